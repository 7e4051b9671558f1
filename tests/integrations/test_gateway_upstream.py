"""End to end: upstream HTTP APIs behind the gateway, and behind a gRPC bridge.

    httpx  -->  uvicorn + ProblemMiddleware + bare ASGI app  --httpx-->  upstream (loopback)
    grpc client  -->  grpcio bridge servicer  --httpx-->  upstream (loopback)

The upstreams are tiny real HTTP servers answering with real error bodies and headers,
byte for byte as they were captured (provenance beside each; the same captures are
kept with their stated facts in tests/realworld/). The gateway must answer them as
problem details with the next step, param and delay a correct reading gives; the
bridge must answer its gRPC caller with the status, details and pushback a gRPC
client acts on (read back by grpcio-status and google-api-core, not by errconv).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from google.api_core import exceptions as gexc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import errconv
from errconv.gateway import ProblemMiddleware, fault_of
from loopback import raw_get, serve_asgi, serve_grpc, serve_http

JSON = ("Content-Type", "application/json")

# --------------------------------------------------------------------------- Stripe

# flutter_stripe_demo issue #4 (2021-01-07), https://github.com/MarcinusX/flutter_stripe_demo/issues/4:
# creating a Checkout session, Dio reported "Http status error [400]" with this body.
STRIPE_RESOURCE_MISSING = (
    b'{"error":{"code":"resource_missing","doc_url":"https://stripe.com/docs/error-codes/resource-missing",'
    b'"message":"No such price: \'price_1HFw3QAQHy2zYPZft7bbrtWZ\'","param":"line_items[0][price]",'
    b'"type":"invalid_request_error"}}\n'
)
# zulip/zulip corporate/tests/stripe_fixtures/replace_payment_method--SetupIntent.create.2.json: a recorded
# Stripe test-mode 402 (research/stripe.md section 6 E1), headers verbatim, the expanded objects elided there.
STRIPE_CARD_DECLINED_HEADERS = [
    ("Access-Control-Expose-Headers", "Request-Id, Stripe-Manage-Version, Stripe-Should-Retry, X-Stripe-External-Auth-Required, X-Stripe-Privileged-Session-Required"),
    ("Content-Type", "application/json"),
    ("Idempotency-Key", "00000000-0000-0000-0000-000000000000"),
    ("Original-Request", "req_NORMALIZED"),
    ("Request-Id", "req_NORMALIZED"),
    ("Stripe-Should-Retry", "false"),
    ("Stripe-Version", "2025-11-17.clover"),
]  # fmt: skip
STRIPE_CARD_DECLINED = json.dumps({"error": {
    "advice_code": "try_again_later", "code": "card_declined", "decline_code": "generic_decline",
    "doc_url": "https://stripe.com/docs/error-codes/card-declined", "message": "Your card was declined.",
    "network_decline_code": "01", "payment_method": {"…": "full PaymentMethod object"},
    "request_log_url": "https://dashboard.stripe.com/acct_NORMALIZED/test/workbench/logs?object=req_NORMALIZED",
    "setup_intent": {"…": "full SetupIntent object incl. last_setup_error"}, "type": "card_error",
}}, indent=2).encode()  # fmt: skip
# airbyte source-stripe unit test fixture (Aryant142/airbyte@7fa028a, research/stripe.md section 6 E2): a 429.
STRIPE_RATE_LIMIT = (
    b'{"error": {"message": "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.",'
    b' "type": "invalid_request_error", "code": "rate_limit", "doc_url": "https://stripe.com/docs/error-codes/rate-limit"}}'
)
# stripe-node test/RequestSender.spec.ts#L1551 (663942164d38) "should not retry when a header says not to".
STRIPE_API_ERROR = b'{"error": {"type": "api_error"}}'

# --------------------------------------------------------------------------- OpenAI

# Pythagora-io/gpt-pilot PR #53 (2023-09-07): "API responded with status code: 429. Response text: <body>".
OPENAI_RATE_LIMIT = (
    b'{\n    "error": {\n        "message": "Rate limit reached for 10KTPM-200RPM in organization org-OASFC7k1Ff5IzueeLArhQtnT'
    b' on tokens per min. Limit: 10000 / min. Please try again in 6ms. Contact us through our help center at help.openai.com'
    b' if you continue to have issues.",\n        "type": "tokens",\n        "param": null,\n        "code": "rate_limit_exceeded"\n'
    b"    }\n}\n"
)
# Pythagora-io/gpt-pilot issue #340 (2023-12-06): a 429 whose quota is gone (billing), not a rate limit.
OPENAI_INSUFFICIENT_QUOTA = (
    b'{\n    "error": {\n        "message": "You exceeded your current quota, please check your plan and billing details.",\n'
    b'        "type": "insufficient_quota",\n        "param": null,\n        "code": "insufficient_quota"\n    }\n}\n'
)
# mckaywrigley/chatbot-ui issue #102 (2023-03-23): responseStatusCode "400".
OPENAI_CONTEXT_LENGTH = (
    b'{\n  "error": {\n    "message": "This model\'s maximum context length is 4097 tokens. However, you requested 4120 tokens'
    b' (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",\n'
    b'    "type": "invalid_request_error",\n    "param": "messages",\n    "code": "context_length_exceeded"\n  }\n}\n'
)
# chatanywhere/GPT_API_free issue #62 (2023-07-18): a 401, the key masked as in the source.
OPENAI_INVALID_KEY = (
    b'{"error":{"message":"Incorrect API key provided: sk-VKMIs***************************************wjh3. You can find'
    b' your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,'
    b'"code":"invalid_api_key"}}\n'
)
# The headers OpenAI sends on every API response (research/dialects.md section 7: names from the openai SDK
# and OpenAI's rate-limit documentation); the values here are ours.
OPENAI_HEADERS = [
    JSON,
    ("openai-organization", "org-OASFC7k1Ff5IzueeLArhQtnT"),
    ("openai-processing-ms", "12"),
    ("openai-version", "2020-10-01"),
    ("x-request-id", "req_4f1b9c2e7d"),
]
OPENAI_TPM_HEADERS = [
    *OPENAI_HEADERS,
    ("x-ratelimit-limit-tokens", "10000"),
    ("x-ratelimit-remaining-tokens", "0"),
    ("x-ratelimit-reset-tokens", "6ms"),
]

UPSTREAM = {
    "/stripe/v1/checkout/sessions": (400, [JSON, ("Request-Id", "req_Jk2N0bqJcKc1Ua")], STRIPE_RESOURCE_MISSING),
    "/stripe/v1/setup_intents": (402, STRIPE_CARD_DECLINED_HEADERS, STRIPE_CARD_DECLINED),
    "/stripe/v1/charges": (429, [JSON, ("Request-Id", "req_q8UAaR3xqV4gT1")], STRIPE_RATE_LIMIT),
    "/stripe/v1/refunds": (500, [JSON, ("stripe-should-retry", "false")], STRIPE_API_ERROR),
    "/openai/v1/chat/completions/retry-after": (429, [*OPENAI_TPM_HEADERS, ("retry-after", "20")], OPENAI_RATE_LIMIT),
    "/openai/v1/chat/completions/retry-after-ms": (429, [*OPENAI_TPM_HEADERS, ("retry-after-ms", "2500")], OPENAI_RATE_LIMIT),
    "/openai/v1/chat/completions/quota": (429, OPENAI_HEADERS, OPENAI_INSUFFICIENT_QUOTA),
    "/openai/v1/chat/completions/context": (400, OPENAI_HEADERS, OPENAI_CONTEXT_LENGTH),
    "/openai/v1/models": (401, OPENAI_HEADERS, OPENAI_INVALID_KEY),
    # Hostile upstreams.
    "/hostile/utf8": (502, [JSON], b'{"error": {"message": "\xff\xfe not UTF-8 \xc3\x28"}}'),
    "/hostile/title": (503, [("Content-Type", "application/problem+json"), ("Retry-After", "9")],
                       json.dumps({"title": "A" * 100_000, "status": 503}).encode()),  # fmt: skip
    "/hostile/crlf": (409, [("Content-Type", "application/problem+json")],
                      json.dumps({"status": 409, "code": "conflict", "detail": "x\r\nSet-Cookie: session=stolen\r\n\r\n<html>",
                                  "next_step": "give_up"}).encode()),  # fmt: skip
}


def gateway_for(upstream: str) -> ProblemMiddleware:
    """A gateway in front of the upstream, failing the three ways an app would: by
    `raise_for_status()` (the default), by `raise FaultError(errconv.from_http(resp))`
    (`X-Mode: from_http`, for an upstream errconv can read), or by
    `raise FaultError(fault_of(resp))` (`X-Mode: fault_of`, for any upstream at all)."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        mode = dict(scope["headers"]).get(b"x-mode", b"raise")
        async with httpx.AsyncClient(trust_env=False, timeout=10) as client:
            resp = await client.post(upstream + scope["path"], json={"model": "gpt-4"})
        if resp.is_error and mode == b"from_http":
            raise errconv.FaultError(errconv.from_http(resp))
        if resp.is_error and mode == b"fault_of":
            raise errconv.FaultError(fault_of(resp))
        resp.raise_for_status()
        await send({"type": "http.response.start", "status": resp.status_code, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": resp.content})

    return ProblemMiddleware(app)


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    with serve_http(UPSTREAM) as url:
        yield url


@pytest.fixture(scope="module")
def edge(upstream: str) -> Iterator[str]:
    with serve_asgi(gateway_for(upstream)) as url:
        yield url


def problem(edge: str, path: str, mode: str = "raise") -> tuple[httpx.Response, dict[str, Any]]:
    resp = httpx.get(edge + path, headers={"X-Mode": mode}, timeout=10)
    assert resp.headers["content-type"] == "application/problem+json"
    assert int(resp.headers["content-length"]) == len(resp.content)
    return resp, resp.json()


def test_stripe_resource_missing_is_fix_request_naming_the_param(edge: str) -> None:
    resp, body = problem(edge, "/stripe/v1/checkout/sessions")
    assert resp.status_code == 400
    assert (body["next_step"], body["param"], body["code"]) == ("fix_request", "line_items[0][price]", "resource_missing")
    assert body["type"] == "https://stripe.com/docs/error-codes/resource-missing"
    assert "retry-after" not in resp.headers


def test_stripe_card_declined_with_should_retry_false_is_give_up(edge: str) -> None:
    resp, body = problem(edge, "/stripe/v1/setup_intents")
    assert resp.status_code == 402
    assert (body["next_step"], body["code"]) == ("give_up", "card_declined")
    assert body["detail"] == "Your card was declined."
    # The upstream's own headers are not passed on: only what errconv writes goes out.
    assert "stripe-should-retry" not in resp.headers and "idempotency-key" not in resp.headers


def test_stripe_rate_limit_is_a_wait_without_an_invented_delay(edge: str) -> None:
    resp, body = problem(edge, "/stripe/v1/charges")
    assert resp.status_code == 429
    assert (body["next_step"], body["code"]) == ("wait", "rate_limit")
    # Stripe states no delay on a 429; errconv does not make one up (the caller backs off).
    assert "retry_after_seconds" not in body and "retry-after" not in resp.headers


def test_stripe_api_error_with_should_retry_false_is_give_up(edge: str) -> None:
    resp, body = problem(edge, "/stripe/v1/refunds")
    assert (resp.status_code, body["next_step"]) == (500, "give_up")


def test_openai_rate_limit_with_retry_after_is_a_wait_of_that_delay(edge: str) -> None:
    resp, body = problem(edge, "/openai/v1/chat/completions/retry-after", "from_http")
    assert resp.status_code == 429
    assert (body["next_step"], body["code"], body["retry_after_seconds"]) == ("wait", "rate_limit_exceeded", 20)
    assert resp.headers["retry-after"] == "20"


def test_openai_rate_limit_with_retry_after_ms_is_a_wait_of_that_delay(edge: str) -> None:
    resp, body = problem(edge, "/openai/v1/chat/completions/retry-after-ms", "from_http")
    assert resp.status_code == 429
    assert body["next_step"] == "wait"
    # 2500 ms, in the whole seconds Retry-After and retry_after_seconds carry: rounded up.
    assert (body.get("retry_after_seconds"), resp.headers.get("retry-after")) == (3, "3")


def test_openai_insufficient_quota_is_give_up_despite_the_429(edge: str) -> None:
    resp, body = problem(edge, "/openai/v1/chat/completions/quota", "from_http")
    assert (resp.status_code, body["code"]) == (429, "insufficient_quota")
    assert body["next_step"] == "give_up"
    assert "retry-after" not in resp.headers


def test_openai_context_length_is_fix_request_on_messages(edge: str) -> None:
    resp, body = problem(edge, "/openai/v1/chat/completions/context", "from_http")
    assert resp.status_code == 400
    assert (body["next_step"], body["param"], body["code"]) == ("fix_request", "messages", "context_length_exceeded")


def test_openai_invalid_api_key_is_give_up(edge: str) -> None:
    resp, body = problem(edge, "/openai/v1/models", "from_http")
    assert (resp.status_code, body["next_step"], body["code"]) == (401, "give_up", "invalid_api_key")


# --------------------------------------------------------------------------- hostile upstreams


@pytest.mark.parametrize("mode", ["raise", "fault_of"])
def test_invalid_utf8_from_the_upstream_still_answers_well_formed(edge: str, mode: str) -> None:
    resp, body = problem(edge, "/hostile/utf8", mode)
    assert resp.status_code == 502
    assert body["next_step"] == "wait"  # a 502 is transient, body or no body
    # The bytes that are not UTF-8 are read as U+FFFD (issue 23: as a browser would), and
    # what goes out is valid UTF-8 JSON all the same.
    resp.content.decode("utf-8")
    assert "not UTF-8" in body["detail"] and "\ufffd" in body["detail"]


@pytest.mark.parametrize("mode", ["raise", "fault_of"])
def test_a_100_kb_title_from_the_upstream_still_answers_well_formed(edge: str, mode: str) -> None:
    resp, body = problem(edge, "/hostile/title", mode)
    assert resp.status_code == 503
    # The body is past Limits.max_string, so it is not read; the status and Retry-After still are.
    assert (body["next_step"], body["retry_after_seconds"], resp.headers["retry-after"]) == ("wait", 9, "9")
    assert len(resp.content) < 1000


@pytest.mark.parametrize("mode", ["raise", "from_http"])
def test_crlf_in_an_upstream_field_injects_no_header(edge: str, mode: str) -> None:
    raw = raw_get(edge, "/hostile/crlf", {"X-Mode": mode})
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 409 ")
    assert [line for line in raw.split(b"\r\n") if line.lower().startswith(b"set-cookie")] == []
    assert json.loads(body)["detail"] == "x\r\nSet-Cookie: session=stolen\r\n\r\n<html>"


# --------------------------------------------------------------------------- HTTP to gRPC

BRIDGE = "errconv.test.Bridge"


def bridge_handler(upstream: str) -> Any:
    """A gRPC servicer that calls an upstream HTTP API and, when it fails, answers its
    own caller with the status and trailers that failure means (`to_grpc(from_http(...))`)."""

    def handler(request: bytes, context: grpc.ServicerContext) -> bytes:
        resp = httpx.post(upstream + request.decode(), json={}, timeout=10, trust_env=False)
        if resp.is_error:
            context.abort_with_status(errconv.to_grpc(errconv.from_http(resp)))
        return resp.content

    return handler


@pytest.fixture(scope="module")
def bridge(upstream: str) -> Iterator[grpc.Channel]:
    with serve_grpc(BRIDGE, {"Call": bridge_handler(upstream)}) as target:
        with grpc.insecure_channel(target, options=[("grpc.enable_http_proxy", 0)]) as channel:
            yield channel


def call_bridge(channel: grpc.Channel, path: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        channel.unary_unary(f"/{BRIDGE}/Call")(path.encode(), timeout=10)
    return info.value


def test_an_upstream_429_reaches_the_grpc_caller_as_a_wait_it_can_act_on(bridge: grpc.Channel) -> None:
    exc = call_bridge(bridge, "/openai/v1/chat/completions/retry-after")
    assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert dict(exc.trailing_metadata())["grpc-retry-pushback-ms"] == "20000"  # what gRPC's own retry reads
    status = rpc_status.from_call(exc)  # grpcio-status checks code and message against the Status
    assert status is not None
    infos = [d for d in status.details if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    retry = error_details_pb2.RetryInfo()
    infos[0].Unpack(retry)
    assert retry.retry_delay.seconds == 20
    api = gexc.from_grpc_error(exc)
    assert type(api) is gexc.ResourceExhausted  # api-core picks the class from the gRPC code
    assert (api.reason, api.metadata["next_step"]) == ("RATE_LIMIT_EXCEEDED", "wait")


def test_an_upstream_400_reaches_the_grpc_caller_as_fix_request_with_the_param(bridge: grpc.Channel) -> None:
    exc = call_bridge(bridge, "/stripe/v1/checkout/sessions")
    assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert exc.details() == "No such price: 'price_1HFw3QAQHy2zYPZft7bbrtWZ'"
    assert dict(exc.trailing_metadata())["grpc-retry-pushback-ms"] == "-1"  # gRFC A6: do not retry
    api = gexc.from_grpc_error(exc)
    assert type(api) is gexc.InvalidArgument
    assert api.reason == "RESOURCE_MISSING"
    assert (api.metadata["next_step"], api.metadata["param"]) == ("fix_request", "line_items[0][price]")


def test_an_upstream_give_up_reaches_the_grpc_caller_as_no_retry(bridge: grpc.Channel) -> None:
    exc = call_bridge(bridge, "/stripe/v1/setup_intents")
    assert dict(exc.trailing_metadata())["grpc-retry-pushback-ms"] == "-1"
    api = gexc.from_grpc_error(exc)
    assert (api.reason, api.metadata["next_step"]) == ("CARD_DECLINED", "give_up")
