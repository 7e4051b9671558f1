"""`errconv.from_exception` on real exceptions of real client libraries.

Each library's exception is raised by its own client against a server on 127.0.0.1
(OS-chosen port) answering with a real-world capture from tests/realworld/ (each with
its provenance in that folder's facts.json), or, where a client cannot be pointed at
loopback, constructed offline by the library's own code. The fault must say what the
capture's facts say (status, code, next step, delay, parameter) and equal what
`from_http` reads from the same response: everything the seam knows applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import pathlib
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

import errconv
from errconv import NextStep
from loopback import serve_grpc, serve_http

REALWORLD = pathlib.Path(__file__).resolve().parents[1] / "realworld"
# Framing headers the loopback server writes itself.
_FRAMING = {"content-length", "transfer-encoding", "connection", "content-encoding"}


class Capture:
    """A real-world response from tests/realworld/: status, headers, body and the facts
    its source states."""

    def __init__(self, service: str, name: str) -> None:
        entry = json.loads((REALWORLD / service / "facts.json").read_text())[name]
        self.facts: dict[str, Any] = entry["facts"]
        data = (REALWORLD / service / name).read_bytes()
        if name.endswith(".http"):
            head, _, body = data.replace(b"\r\n", b"\n").partition(b"\n\n")
            lines = head.decode("latin-1").split("\n")
            self.status = int(lines[0].split()[1])
            self.headers = [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in lines[1:] if line.strip())]
            self.body = body
        else:
            assert self.facts["status"] is not None, f"{name}: a bare body needs its status in the facts"
            self.status = self.facts["status"]
            self.headers = [("Content-Type", "application/json")]
            self.body = data
        self.served = [(k, v) for k, v in self.headers if k.lower() not in _FRAMING]

    def route(self) -> tuple[int, list[tuple[str, str]], bytes]:
        return self.status, self.served, self.body

    def seam(self) -> errconv.Fault:
        """What the HTTP seam reads from the same response."""
        return errconv.from_http(self.status, self.served, self.body)


def assert_facts(fault: errconv.Fault, facts: dict[str, Any], *, body: bool = True) -> None:
    assert fault.status == facts["status"]
    assert fault.next_step == facts["next_step"]
    assert fault.retry_after_seconds == facts["retry_after_seconds"]
    if body:  # aiohttp's exception carries no body: no code, no parameter
        assert fault.code == facts["code"]
        assert fault.param == facts["param"]


@contextlib.contextmanager
def silent_server() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def closed_port() -> str:
    """A loopback URL nothing listens on (the port was just released)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def raised(fn: Any, *args: Any, **kwargs: Any) -> BaseException:
    try:
        fn(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001 - the point is to catch what the client raises
        return exc
    raise AssertionError("the call did not raise")


# --------------------------------------------------------------------------- httpx


def test_httpx_status_error_timeout_and_connect_error() -> None:
    httpx = pytest.importorskip("httpx")
    capture = Capture("github", "secondary-rate-limit-retry-after-60-403.http")
    with serve_http({"/repos": capture.route()}) as base:
        exc = raised(lambda: httpx.get(f"{base}/repos?access_token=ghp_abcdefgh12345678").raise_for_status())
    assert isinstance(exc, httpx.HTTPStatusError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()

    with silent_server() as base:
        timeout = raised(httpx.get, base, timeout=0.3)
    assert isinstance(timeout, httpx.TimeoutException)
    fault = errconv.from_exception(timeout)
    assert (fault.next_step, fault.retry_after_seconds, fault.grpc_code) == (NextStep.WAIT, None, errconv.Code.DEADLINE_EXCEEDED)

    refused = raised(httpx.get, closed_port(), timeout=5)
    assert isinstance(refused, httpx.ConnectError)
    fault = errconv.from_exception(refused)
    assert (fault.next_step, fault.retry_after_seconds, fault.grpc_code) == (NextStep.WAIT, None, errconv.Code.UNAVAILABLE)

    bug = raised(httpx.get, "ftp://127.0.0.1/x")  # UnsupportedProtocol: a bug, not a transient
    assert isinstance(bug, httpx.TransportError)
    assert errconv.from_exception(bug).next_step == NextStep.GIVE_UP


# --------------------------------------------------------------------------- requests


def test_requests_http_error_timeout_and_connection_error() -> None:
    requests = pytest.importorskip("requests")
    capture = Capture("stripe", "api-error-should-not-retry-500.http")
    with serve_http({"/v1/charges": capture.route()}) as base:
        exc = raised(lambda: requests.post(f"{base}/v1/charges", timeout=10).raise_for_status())
    assert isinstance(exc, requests.HTTPError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)  # Stripe-Should-Retry: false makes the 500 a give_up
    assert fault == capture.seam()

    # stream=True, the body never read: the status and headers speak, and the body is
    # left for the caller (reading it would download all of it).
    with serve_http({"/v1/charges": capture.route()}) as base:
        streamed = requests.post(f"{base}/v1/charges", timeout=10, stream=True)
        exc = raised(streamed.raise_for_status)
        fault = errconv.from_exception(exc)
        assert (fault.status, fault.next_step) == (500, NextStep.GIVE_UP)  # Stripe-Should-Retry: false, a header
        assert streamed.content == capture.body
    with silent_server() as base:
        timeout = raised(requests.get, base, timeout=0.3)
    assert isinstance(timeout, requests.Timeout)
    assert (errconv.from_exception(timeout).next_step, errconv.from_exception(timeout).retry_after_seconds) == (NextStep.WAIT, None)

    refused = raised(requests.get, closed_port(), timeout=5)
    assert isinstance(refused, requests.ConnectionError)
    fault = errconv.from_exception(refused)
    assert (fault.next_step, fault.grpc_code) == (NextStep.WAIT, errconv.Code.UNAVAILABLE)

    assert errconv.from_exception(raised(requests.get, "127.0.0.1/no-scheme")).next_step == NextStep.GIVE_UP  # MissingSchema


# --------------------------------------------------------------------------- aiohttp


def test_aiohttp_client_response_error_has_status_and_headers_but_no_body() -> None:
    aiohttp = pytest.importorskip("aiohttp")
    capture = Capture("slack", "ratelimited-retry-after-429.http")

    async def call(base: str) -> BaseException:
        async with aiohttp.ClientSession(raise_for_status=True) as session:
            try:
                async with session.post(f"{base}/api/chat.postMessage?token=xoxb-123456789012"):
                    pass
            except aiohttp.ClientResponseError as exc:
                return exc
        raise AssertionError("no error")

    with serve_http({"/api/chat.postMessage": capture.route()}) as base:
        exc = asyncio.run(call(base))
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts, body=False)
    assert fault == errconv.from_http(capture.status, capture.served, b"")
    assert "xoxb" not in errconv.agent_message(fault)


# --------------------------------------------------------------------------- urllib


def test_urllib_http_error_body_is_read() -> None:
    capture = Capture("github", "validation-failed-label-color-422.http")
    with serve_http({"/repos/o/r/labels": capture.route()}) as base:
        exc = raised(urllib.request.urlopen, f"{base}/repos/o/r/labels", timeout=10)
    assert isinstance(exc, urllib.error.HTTPError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()

    refused = raised(urllib.request.urlopen, closed_port(), timeout=5)
    assert isinstance(refused, urllib.error.URLError)  # its reason is the ConnectionRefusedError
    assert errconv.from_exception(refused).next_step == NextStep.WAIT


# --------------------------------------------------------------------------- grpcio


def _rich_status_handler(request: bytes, context: Any) -> bytes:
    from google.protobuf import any_pb2, duration_pb2
    from google.rpc import error_details_pb2, status_pb2
    from grpc_status import rpc_status

    info, retry = any_pb2.Any(), any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason="RATE_LIMIT_EXCEEDED", domain="example.com"))
    retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=30)))
    status = status_pb2.Status(code=8, message="quota exceeded", details=[info, retry])
    context.abort_with_status(rpc_status.to_status(status))
    raise AssertionError("unreachable")


def _leaky_handler(request: bytes, context: Any) -> bytes:
    raise RuntimeError("db password=hunter2 at postgres://admin:hunter2@db/prod")


def test_grpc_rpc_error_sync_and_aio() -> None:
    grpc = pytest.importorskip("grpc")
    handlers = {"Quota": _rich_status_handler, "Leak": _leaky_handler}
    with serve_grpc("test.Svc", handlers) as target:
        with grpc.insecure_channel(target) as channel:
            exc = raised(channel.unary_unary("/test.Svc/Quota"), b"", timeout=10)
            leak = raised(channel.unary_unary("/test.Svc/Leak"), b"", timeout=10)

        async def aio_call() -> BaseException:
            async with grpc.aio.insecure_channel(target) as achannel:
                try:
                    await achannel.unary_unary("/test.Svc/Quota")(b"", timeout=10)
                except grpc.aio.AioRpcError as e:
                    return e
            raise AssertionError("no error")

        aio_exc = asyncio.run(aio_call())
    assert isinstance(exc, grpc.RpcError)
    for error in (exc, aio_exc):
        fault = errconv.from_exception(error)
        assert (fault.grpc_code, fault.code, fault.domain) == (errconv.Code.RESOURCE_EXHAUSTED, "RATE_LIMIT_EXCEEDED", "example.com")
        assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 30)
    fault = errconv.from_exception(leak)  # grpcio's "Exception calling application: ..." carries the servicer's text
    assert fault.grpc_code == errconv.Code.UNKNOWN and fault.next_step == NextStep.GIVE_UP
    assert "hunter2" not in repr(fault) and "hunter2" not in errconv.agent_message(fault)


# --------------------------------------------------------------------------- google-api-core


def test_google_api_call_error_from_http_grpc_and_by_hand() -> None:
    pytest.importorskip("google.api_core")
    requests = pytest.importorskip("requests")
    grpc = pytest.importorskip("grpc")
    from google.api_core import exceptions as gexc
    from google.rpc import error_details_pb2

    capture = Capture("google_cloud", "gemini-retry-info.json")
    with serve_http({"/v1beta/models": capture.route()}) as base:
        response = requests.post(f"{base}/v1beta/models", timeout=10)
    exc = gexc.from_http_response(response)
    assert isinstance(exc, gexc.TooManyRequests)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()

    with serve_grpc("test.Svc", {"Quota": _rich_status_handler}) as target:
        with grpc.insecure_channel(target) as channel:
            rpc = raised(channel.unary_unary("/test.Svc/Quota"), b"", timeout=10)
    wrapped = gexc.from_grpc_error(rpc)
    assert isinstance(wrapped, gexc.ResourceExhausted) and wrapped.reason == "RATE_LIMIT_EXCEEDED"
    fault = errconv.from_exception(wrapped)
    assert (fault.code, fault.next_step, fault.retry_after_seconds) == ("RATE_LIMIT_EXCEEDED", NextStep.WAIT, 30)

    # Made by hand, as a library or a test double raises it: no response, its details
    # as protobuf messages (what the gRPC transport unpacks) and an ErrorInfo.
    info = error_details_pb2.ErrorInfo(reason="INVALID_NAME", domain="example.com", metadata={"service": "x.example.com"})
    violation = error_details_pb2.BadRequest.FieldViolation(field="name", description="must not be empty")
    by_hand = gexc.BadRequest("invalid request", details=[info, error_details_pb2.BadRequest(field_violations=[violation])], error_info=info)
    fault = errconv.from_exception(by_hand)
    assert (fault.status, fault.code, fault.domain, fault.metadata) == (400, "INVALID_NAME", "example.com", {"service": "x.example.com"})
    assert (fault.next_step, fault.param) == (NextStep.FIX_REQUEST, "name")
    # googleapis.com's own reasons are known to the seam: an invalid key is no request to fix.
    key = error_details_pb2.ErrorInfo(reason="API_KEY_INVALID", domain="googleapis.com")
    fault = errconv.from_exception(gexc.BadRequest("API key not valid", details=[key], error_info=key))
    assert (fault.code, fault.next_step) == ("API_KEY_INVALID", NextStep.GIVE_UP)
    fault = errconv.from_exception(gexc.ServiceUnavailable("backend down"))
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (503, NextStep.WAIT, None)
    # api-core's Retry gave up on its deadline: the last exception it saw says what it was.
    retry = gexc.RetryError("Timeout of 120.0s exceeded", wrapped)
    fault = errconv.from_exception(retry)
    assert (fault.code, fault.next_step, fault.retry_after_seconds) == ("RATE_LIMIT_EXCEEDED", NextStep.WAIT, 30)


# --------------------------------------------------------------------------- stripe


def test_stripe_errors_from_the_stripe_client() -> None:
    stripe = pytest.importorskip("stripe")
    capture = Capture("stripe", "card-error-invalid-expiry-year-402.json")
    with serve_http({"/v1/customers/cus_123": capture.route()}) as base:
        client = stripe.StripeClient("sk_test_4eC39HqLyjWDarjtT1zdp7dc", base_addresses={"api": base}, max_network_retries=0)
        exc = raised(client.v1.customers.retrieve, "cus_123")
    assert isinstance(exc, stripe.CardError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()
    assert "sk_test" not in errconv.agent_message(fault)

    # Made offline by stripe-python's own constructor: the fraud-declined capture (its
    # source shows no status; 402 is what Stripe documents for card errors).
    declined = (REALWORLD / "stripe" / "card-declined-fraudulent.json").read_text()
    card = stripe.CardError("Your card was declined.", None, "card_declined", http_body=declined, http_status=402, json_body=json.loads(declined))
    fault = errconv.from_exception(card)
    assert (fault.status, fault.code, fault.next_step, fault.param) == (402, "card_declined", NextStep.GIVE_UP, None)
    # Without its body, what the exception states: the code, the parameter, the class's type.
    bare = stripe.InvalidRequestError("No such customer: 'cus_x'", "customer", "resource_missing", http_status=404)
    fault = errconv.from_exception(bare)
    assert (fault.status, fault.code, fault.param, fault.next_step) == (404, "resource_missing", "customer", NextStep.FIX_REQUEST)
    limited = stripe.RateLimitError("Too many requests", http_status=429, headers={"Retry-After": "3"})
    assert (errconv.from_exception(limited).next_step, errconv.from_exception(limited).retry_after_seconds) == (NextStep.WAIT, 3)

    client = stripe.StripeClient("sk_test_4eC39HqLyjWDarjtT1zdp7dc", base_addresses={"api": closed_port()}, max_network_retries=0)
    refused = raised(client.v1.customers.retrieve, "cus_123")
    assert isinstance(refused, stripe.APIConnectionError)
    assert (errconv.from_exception(refused).next_step, errconv.from_exception(refused).retry_after_seconds) == (NextStep.WAIT, None)


# --------------------------------------------------------------------------- openai, anthropic


def test_openai_status_connection_and_timeout_errors() -> None:
    openai = pytest.importorskip("openai")
    capture = Capture("openai", "unsupported-parameter-max-tokens-400.json")
    with serve_http({"/v1/chat/completions": capture.route()}) as base:
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="sk-proj-abcdefghijklmnop1234", max_retries=0)
        exc = raised(client.chat.completions.create, model="o1", messages=[{"role": "user", "content": "hi"}], max_tokens=5)
    assert isinstance(exc, openai.BadRequestError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()

    client = openai.OpenAI(base_url=f"{closed_port()}/v1", api_key="sk-x", max_retries=0)
    refused = raised(client.models.list)
    assert isinstance(refused, openai.APIConnectionError)
    assert errconv.from_exception(refused).grpc_code == errconv.Code.UNAVAILABLE
    with silent_server() as base:
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="sk-x", max_retries=0, timeout=0.3)
        timeout = raised(client.models.list)
    assert isinstance(timeout, openai.APITimeoutError)
    fault = errconv.from_exception(timeout)
    assert (fault.next_step, fault.retry_after_seconds, fault.grpc_code) == (NextStep.WAIT, None, errconv.Code.DEADLINE_EXCEEDED)


def test_anthropic_status_error() -> None:
    anthropic = pytest.importorskip("anthropic")
    capture = Capture("anthropic", "rate-limit-prompt-bytes-per-hour.http")
    with serve_http({"/v1/messages": capture.route()}) as base:
        client = anthropic.Anthropic(base_url=base, api_key="sk-ant-api03-abcdefghijkl", max_retries=0)
        exc = raised(client.messages.create, model="claude-sonnet-4-5", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert isinstance(exc, anthropic.RateLimitError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()


# --------------------------------------------------------------------------- botocore


@functools.cache
def _botocore_session() -> Any:
    import botocore.session

    return botocore.session.get_session()  # one: each reads the service's model anew


def _dynamodb(base: str) -> Any:
    import botocore.config

    session = _botocore_session()
    # One attempt: "max_attempts" counts retries in botocore (one, after a jittered sleep of up to 2 s).
    config = botocore.config.Config(retries={"total_max_attempts": 1, "mode": "standard"}, connect_timeout=5, read_timeout=5)
    return session.create_client(
        "ecs", region_name="us-east-1", endpoint_url=base, aws_access_key_id="AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", config=config,
    )  # fmt: skip


def test_botocore_client_error_throttling_and_x_amz_retry_after() -> None:
    pytest.importorskip("botocore")
    from botocore.exceptions import ClientError

    capture = Capture("aws_json", "ecs-throttling.http")
    # The same capture with botocore's delay header added (botocore/retries/standard.py
    # reads x-amz-retry-after as milliseconds): not a real-world response, a check
    # that the header is read.
    status, headers, body = capture.route()
    with serve_http({"/": capture.route(), "/delayed": (status, [*headers, ("x-amz-retry-after", "5000")], body)}) as base:
        exc = raised(_dynamodb(base).list_clusters)
        delayed = raised(_dynamodb(f"{base}/delayed").list_clusters)
    assert isinstance(exc, ClientError) and isinstance(delayed, ClientError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert (fault.code, fault.detail) == (capture.seam().code, capture.seam().detail)
    fault = errconv.from_exception(delayed)
    assert (fault.code, fault.next_step, fault.retry_after_seconds) == ("ThrottlingException", NextStep.WAIT, 5)

    refused = raised(_dynamodb(closed_port()).list_clusters)
    assert type(refused).__name__ == "EndpointConnectionError"
    assert (errconv.from_exception(refused).next_step, errconv.from_exception(refused).grpc_code) == (NextStep.WAIT, errconv.Code.UNAVAILABLE)

    # Made by hand (a stub, botocore's Stubber): no response metadata, the code alone.
    stub = ClientError({"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, "ListClusters")
    assert errconv.from_exception(stub).next_step == NextStep.WAIT


# --------------------------------------------------------------------------- azure-core


def test_azure_http_response_error() -> None:
    pytest.importorskip("azure.core")
    from azure.core import PipelineClient
    from azure.core.exceptions import HttpResponseError
    from azure.core.rest import HttpRequest

    capture = Capture("azure_openai", "invalid-subscription-key-401.http")
    with serve_http({"/openai/deployments": capture.route()}) as base:
        with PipelineClient(base_url=base) as client:
            response = client.send_request(HttpRequest("GET", f"{base}/openai/deployments?api-key=0123456789abcdef0123456789abcdef"))
            exc = raised(response.raise_for_status)
    assert isinstance(exc, HttpResponseError)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()

    from azure.core.exceptions import ServiceRequestError

    with PipelineClient(base_url=closed_port()) as client:
        refused = raised(client.send_request, HttpRequest("GET", f"{closed_port()}/x"))
    assert isinstance(refused, ServiceRequestError)
    assert errconv.from_exception(refused).next_step == NextStep.WAIT


# --------------------------------------------------------------------------- kubernetes


def test_kubernetes_api_exception() -> None:
    kubernetes = pytest.importorskip("kubernetes")
    capture = Capture("kubernetes", "pod-not-found.http")
    with serve_http({"/api/v1/namespaces/default/pods/grafana": capture.route()}) as base:
        config = kubernetes.client.Configuration(host=base)
        config.api_key = {"authorization": "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"}
        with kubernetes.client.ApiClient(config) as api:
            exc = raised(kubernetes.client.CoreV1Api(api).read_namespaced_pod, "grafana", "default")
    assert isinstance(exc, kubernetes.client.ApiException)
    fault = errconv.from_exception(exc)
    assert_facts(fault, capture.facts)
    assert fault == capture.seam()


# --------------------------------------------------------------------------- slack_sdk


def test_slack_api_error_on_a_200_and_a_429() -> None:
    pytest.importorskip("slack_sdk")
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    auth, limited = Capture("slack", "invalid-auth-200.http"), Capture("slack", "ratelimited-retry-after-429.http")
    with serve_http({"/api/auth.test": auth.route(), "/api/chat.postMessage": limited.route()}) as base:
        client = WebClient(token="xoxb-1234567890-abcdefghij", base_url=f"{base}/api/")
        exc = raised(client.auth_test)
        rate = raised(client.chat_postMessage, channel="C1", text="hi")
    assert isinstance(exc, SlackApiError) and isinstance(rate, SlackApiError)
    for error, capture in ((exc, auth), (rate, limited)):
        fault = errconv.from_exception(error)
        assert_facts(fault, capture.facts)
        assert fault == capture.seam()


# --------------------------------------------------------------------------- PyGithub


def test_pygithub_exceptions() -> None:
    github = pytest.importorskip("github")
    invalid, limited = Capture("github", "validation-failed-label-color-422.http"), Capture("github", "secondary-rate-limit-retry-after-60-403.http")
    with serve_http({"/repos/o/r/labels": invalid.route(), "/user": limited.route()}) as base:
        gh = github.Github(auth=github.Auth.Token("ghp_abcdefghijklmnopqrstuvwxyz0123456789"), base_url=base, retry=None, lazy=True)
        exc = raised(lambda: gh.get_repo("o/r").create_label("bug", "not-a-color"))
        rate = raised(lambda: gh.get_user().login)
    assert isinstance(exc, github.GithubException)
    assert isinstance(rate, github.RateLimitExceededException)
    for error, capture in ((exc, invalid), (rate, limited)):
        fault = errconv.from_exception(error)
        assert_facts(fault, capture.facts)
        assert (fault.next_step, fault.retry_after_seconds, fault.param) == (
            capture.seam().next_step, capture.seam().retry_after_seconds, capture.seam().param)  # fmt: skip


# --------------------------------------------------------------------------- errconv's own, built-ins, wrappers


def test_fault_error_gives_its_fault() -> None:
    fault = errconv.Fault.build(status=402, code="insufficient_funds", next_step="give_up", unblock_with="request_deposit")
    assert errconv.from_exception(errconv.FaultError(fault)) is fault


@pytest.mark.parametrize(
    "exc, code",
    [
        (TimeoutError("read timed out"), errconv.Code.DEADLINE_EXCEEDED),
        (asyncio.TimeoutError(), errconv.Code.DEADLINE_EXCEEDED),
        (socket.timeout("timed out"), errconv.Code.DEADLINE_EXCEEDED),
        (ConnectionRefusedError(111, "Connection refused"), errconv.Code.UNAVAILABLE),
        (ConnectionResetError(104, "Connection reset by peer"), errconv.Code.UNAVAILABLE),
        (BrokenPipeError(32, "Broken pipe"), errconv.Code.UNAVAILABLE),
    ],
)
def test_builtin_timeouts_and_connection_errors_are_waits_without_a_delay(exc: BaseException, code: int) -> None:
    fault = errconv.from_exception(exc)
    assert (fault.next_step, fault.retry_after_seconds, fault.grpc_code) == (NextStep.WAIT, None, code)


@pytest.mark.parametrize("exc", [RuntimeError("password=hunter2"), KeyError("sk-live-key"), ValueError(), Exception("x" * 10**6)])
def test_any_other_exception_is_an_internal_give_up_naming_only_its_class(exc: BaseException) -> None:
    fault = errconv.from_exception(exc)
    assert (fault.status, fault.grpc_code, fault.next_step) == (500, errconv.Code.INTERNAL, NextStep.GIVE_UP)
    assert fault.detail == type(exc).__name__
    text = errconv.agent_message(fault)
    assert type(exc).__name__ in text
    assert "hunter2" not in text and "sk-live" not in text and "xxx" not in text


def test_a_wrapper_is_read_through_its_cause() -> None:
    httpx = pytest.importorskip("httpx")
    capture = Capture("openai", "unsupported-parameter-max-tokens-400.json")
    with serve_http({"/v1/x": capture.route()}) as base:
        inner = raised(lambda: httpx.post(f"{base}/v1/x").raise_for_status())

    class ToolError(Exception):
        pass

    try:
        try:
            raise inner
        except httpx.HTTPStatusError as e:
            raise ToolError("search failed: password=hunter2") from e
    except ToolError as outer:
        wrapper = outer
    fault = errconv.from_exception(wrapper)
    assert_facts(fault, capture.facts)

    # A cause that is itself unreadable: the outer exception's class, nothing more.
    try:
        try:
            raise RuntimeError("token=abc")
        except RuntimeError as e:
            raise ToolError("x") from e
    except ToolError as outer:
        fault = errconv.from_exception(outer)
    assert (fault.next_step, fault.detail) == (NextStep.GIVE_UP, "ToolError")

    # An exception group (a task group around one failing tool): its first exception.
    group = ExceptionGroup("unhandled errors in a TaskGroup", [wrapper, RuntimeError("password=hunter2")])
    assert_facts(errconv.from_exception(group), capture.facts)

    # A cycle of causes ends.
    a, b = ToolError("a"), ToolError("b")
    a.__cause__, b.__cause__ = b, a
    assert errconv.from_exception(a).next_step == NextStep.GIVE_UP


# --------------------------------------------------------------------------- the whole corpus


def _corpus() -> list[tuple[str, str]]:
    out = []
    for facts_path in sorted(REALWORLD.glob("*/facts.json")):
        for name, entry in json.loads(facts_path.read_text()).items():
            if name.endswith(".http") or (name.endswith(".json") and entry["facts"]["status"] is not None):
                out.append((facts_path.parent.name, name))
    return out


CORPUS = _corpus()


def test_the_corpus_is_wide() -> None:
    assert len(CORPUS) >= 150 and len({service for service, _ in CORPUS}) >= 20


@pytest.mark.parametrize("service, name", CORPUS, ids=[f"{s}/{n}" for s, n in CORPUS])
def test_every_real_world_response_reads_through_an_exception_as_through_the_seam(service: str, name: str) -> None:
    # requests' HTTPError around a requests.Response built offline from the capture:
    # the decision fields are the seam's, and the text differs at most by redaction.
    requests = pytest.importorskip("requests")
    capture = Capture(service, name)
    response = requests.Response()
    response.status_code, response._content = capture.status, capture.body
    response.headers.update(capture.served)
    fault = errconv.from_exception(requests.HTTPError(f"{capture.status} Error", response=response))
    try:
        seam = capture.seam()
    except errconv.DecodeError:
        # The seam refuses this one (a 200 that is no error response, tests/dialects/test_realworld.py
        # says why): the exception still gives a fault, the internal give_up naming its class.
        assert capture.status < 400
        assert (fault.status, fault.next_step, fault.detail) == (500, NextStep.GIVE_UP, "HTTPError")
        return
    for field in ("status", "grpc_code", "code", "domain", "next_step", "retry_after_seconds", "param", "unblock_with"):
        assert getattr(fault, field) == getattr(seam, field), field
    if fault != seam:
        assert "[redacted]" in repr(fault), (repr(fault), repr(seam))
