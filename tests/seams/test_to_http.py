"""`to_http` for every error kind, content negotiation, and the middleware's own choices."""

from __future__ import annotations

import asyncio
import doctest
import json
import time
from typing import Any

import grpc
import httpx
import pytest
import requests

import errconv
import errconv.gateway
import golden_corpus as gc
from errconv import dialects
from errconv._pipeline.negotiate import parse_accept
from errconv.gateway import ProblemMiddleware, fault_of

FAULTS = {c.name: gc.load_fault(c) for c in gc.cases()}
WAIT = errconv.Fault.build(status=429, code="slow_down", next_step="wait", retry_after_seconds=5, detail="Slow down")
PROBLEM = "application/problem+json"
GOOGLE = "application/json; charset=UTF-8"


# --------------------------------------------------------------------------- negotiation


@pytest.mark.parametrize(
    "accept, dialect, content_type",
    [
        (None, "problem", PROBLEM),  # no negotiation asked for
        ("", "problem", PROBLEM),  # an empty Accept is no Accept
        ("*/*", "problem", PROBLEM),
        ("application/*", "problem", PROBLEM),
        (PROBLEM, "problem", PROBLEM),
        ("application/json", "google", GOOGLE),
        ("APPLICATION/JSON", "google", GOOGLE),  # media types are case-insensitive
        ("text/html, application/json;q=0.9", "google", GOOGLE),
        ("application/json;q=0.5, application/problem+json", "problem", PROBLEM),
        ("application/json, application/problem+json;q=0.9", "google", GOOGLE),
        ("application/json, application/problem+json", "problem", PROBLEM),  # equal q: the default's own type
        ("application/json;q=0.5, */*", "problem", PROBLEM),  # */* at q=1 beats json at 0.5
        ("application/json, */*", "google", GOOGLE),  # named exactly beats a wildcard at equal q
        ("application/problem+json;q=0, */*", "google", GOOGLE),  # q=0 excludes, even with */*
        ("application/problem+json;q=0, application/*;q=0.2", "google", GOOGLE),
        ("text/html", "problem", PROBLEM),  # nothing acceptable: problem+json anyway, no 406
        ("application/json;q=0, application/problem+json;q=0", "problem", PROBLEM),
        ("*/*;q=0", "problem", PROBLEM),
        ("application/json;q=2", "problem", PROBLEM),  # no qvalue: that range is dropped, nothing else fits
        ("application/json;q=abc, */*;q=0.1", "problem", PROBLEM),
        ("*/json", "problem", PROBLEM),  # no media range
        ("garbage", "problem", PROBLEM),  # nothing parses: as if no Accept
        ("application/json;charset=utf-8;q=0.8", "google", GOOGLE),
        ("application/json ; q=0.8 ; level=1", "google", GOOGLE),
    ],
)
def test_negotiation(accept: str | None, dialect: str, content_type: str) -> None:
    resp = errconv.to_http(WAIT, "problem", accept=accept, json_dialect="google")
    assert resp.headers[0] == ("Content-Type", content_type)
    assert errconv.detect(resp.body) == dialect
    assert ("Vary", "Accept") in resp.headers if accept is not None else ("Vary", "Accept") not in resp.headers
    assert dict(resp.headers)["Retry-After"] == "5"


def test_a_problem_body_asked_for_as_application_json_is_labelled_so() -> None:
    resp = errconv.to_http(WAIT, accept="application/json")  # json_dialect defaults to the dialect
    assert resp.headers[0] == ("Content-Type", "application/json")
    assert errconv.detect(resp.body) == "problem"


def test_the_default_dialect_answers_wildcards_and_json_dialect_answers_json() -> None:
    assert errconv.to_http(WAIT, "stripe", accept="*/*", json_dialect="google").body.startswith(b'{"error":{"type"')
    assert errconv.detect(errconv.to_http(WAIT, "stripe", accept="application/json", json_dialect="google").body) == "google"
    assert errconv.detect(errconv.to_http(WAIT, "google", accept="application/json").body) == "google"


def test_only_body_dialects_are_accepted() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="not an HTTP body dialect"):
        errconv.to_http(WAIT, accept="application/json", json_dialect="grpc")
    with pytest.raises(errconv.UnknownDialectError, match="not an HTTP body dialect"):
        ProblemMiddleware(lambda s, r, se: None, json_dialect="status")  # type: ignore[arg-type,return-value]
    with pytest.raises(errconv.UnknownDialectError):
        ProblemMiddleware(lambda s, r, se: None, dialect="nope")  # type: ignore[arg-type,return-value]


def test_a_registered_dialect_is_offered_under_its_own_media_type() -> None:
    class Tiny(dialects.Dialect):
        name = "tiny-gateway-test"
        media_type = "application/vnd.tiny+json"

        def recognise(self, value: Any, http: Any) -> float:
            return 0.0

        def encode(self, fault: errconv.Fault, writing: Any) -> bytes:
            return json.dumps({"tiny": fault.code}).encode()

    errconv.register_dialect(Tiny)
    try:
        resp = errconv.to_http(WAIT, accept="application/vnd.tiny+json, */*;q=0.1")
        assert (resp.headers[0], resp.body) == (("Content-Type", "application/vnd.tiny+json"), b'{"tiny": "slow_down"}')
    finally:
        dialects.unregister_dialect("tiny-gateway-test")
    assert errconv.to_http(WAIT, accept="application/vnd.tiny+json").headers[0] == ("Content-Type", PROBLEM)


def test_a_huge_accept_is_read_in_bounded_time() -> None:
    accept = ", ".join(f"text/x-{i};q=0.{i % 9}" for i in range(20_000)) + ", application/json"
    start = time.perf_counter()
    resp = errconv.to_http(WAIT, accept=accept, json_dialect="google")
    assert time.perf_counter() - start < 0.5
    assert resp.headers[0] == ("Content-Type", PROBLEM)  # application/json is past the ranges read
    assert len(parse_accept(accept) or []) == 64


@pytest.mark.parametrize("accept", ["*/*", "application/json", PROBLEM, "text/html"])
@pytest.mark.parametrize("json_dialect", ["problem", "google", "status-json", "stripe"])
def test_every_wait_says_its_delay_in_the_header_and_the_body(accept: str, json_dialect: str) -> None:
    for name, fault in FAULTS.items():
        resp = errconv.to_http(fault, accept=accept, json_dialect=json_dialect)
        headers = dict(resp.headers)
        back = errconv.from_http(resp.status, [(k, v) for k, v in resp.headers if k != "Retry-After"], resp.body)
        if fault.next_step == errconv.NextStep.WAIT and fault.retry_after_seconds is not None:
            assert headers["Retry-After"] == str(fault.retry_after_seconds), name
            if resp.headers[0][1] != "application/json" or json_dialect != "stripe":  # a Stripe body has no home for it
                assert back.retry_after_seconds == fault.retry_after_seconds, (name, json_dialect)
        else:
            assert "Retry-After" not in headers, name


# --------------------------------------------------------------------------- the error kinds


class FakeRpcError(grpc.RpcError):
    """What grpcio raises for a failed call: the three methods, nothing else."""

    def __init__(self, code: Any, details: str, trailing: Any = ()) -> None:
        self._code, self._details, self._trailing = code, details, trailing

    def code(self) -> Any:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self) -> Any:
        return self._trailing


def test_a_fault_and_a_fault_error_answer_the_same() -> None:
    assert bytes(errconv.to_http(errconv.FaultError(WAIT))) == bytes(errconv.to_http(WAIT))


def test_a_grpc_error_is_read_with_its_rich_status() -> None:
    fault = FAULTS["validation_failed"]
    status = errconv.to_grpc(fault)
    for error in (FakeRpcError(status.code, status.details, status.trailing_metadata), status):
        resp = errconv.to_http(error)
        assert resp.status == 422
        assert errconv.from_http(resp.status, resp.headers, resp.body) == fault


def test_grpcio_exception_text_is_not_passed_on() -> None:
    error = FakeRpcError(grpc.StatusCode.UNKNOWN, "Exception calling application: password=hunter2")
    resp = errconv.to_http(error)
    assert resp.status == 500 and b"hunter2" not in resp.body
    assert json.loads(resp.body)["next_step"] == "give_up"


def test_grpc_trailers_past_the_limits_still_answer_from_the_code() -> None:
    error = FakeRpcError(grpc.StatusCode.UNAVAILABLE, "down", [("grpc-status-details-bin", b"\x00" * 2_000_000)])
    resp = errconv.to_http(error)
    assert (resp.status, json.loads(resp.body)["next_step"]) == (503, "wait")


def _httpx_response(status: int, headers: list[tuple[str, str]], body: bytes) -> httpx.Response:
    return httpx.Response(status, headers=headers, content=body, request=httpx.Request("GET", "http://upstream.test/x"))


def _requests_response(status: int, headers: list[tuple[str, str]], body: bytes) -> requests.Response:
    resp = requests.Response()
    resp.status_code = status
    resp.headers = requests.structures.CaseInsensitiveDict(headers)
    resp._content = body
    return resp


UPSTREAM_429 = (429, [("Content-Type", "application/json"), ("Retry-After", "20")],
                b'{"error": {"message": "slow down", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}')  # fmt: skip


@pytest.mark.parametrize("form", ["tuple", "httpx", "requests", "httpx_error", "requests_error"])
def test_an_upstream_response_in_any_usual_form(form: str) -> None:
    status, headers, body = UPSTREAM_429
    error: Any = {
        "tuple": lambda: UPSTREAM_429,
        "httpx": lambda: _httpx_response(*UPSTREAM_429),
        "requests": lambda: _requests_response(*UPSTREAM_429),
        "httpx_error": lambda: httpx.HTTPStatusError("429", request=httpx.Request("GET", "http://u.test"), response=_httpx_response(*UPSTREAM_429)),
        "requests_error": lambda: requests.HTTPError("429", response=_requests_response(*UPSTREAM_429)),
    }[form]()
    resp = errconv.to_http(error)
    assert (resp.status, dict(resp.headers)["Retry-After"]) == (429, "20")
    problem = json.loads(resp.body)
    assert (problem["code"], problem["next_step"], problem["retry_after_seconds"]) == ("rate_limit_exceeded", "wait", 20)
    assert fault_of(error) == errconv.from_http(status, headers, body)
    if form in ("httpx", "requests"):
        assert errconv.from_http(error) == errconv.from_http(status, headers, body)  # from_http takes the response too


def test_an_unread_streamed_response_is_read_from_its_status_and_headers() -> None:
    stream = httpx.Response(503, headers={"Retry-After": "4"}, stream=httpx.ByteStream(b"{}"))
    with pytest.raises(httpx.ResponseNotRead):
        stream.content
    assert errconv.to_http(stream).headers == [("Content-Type", PROBLEM), ("Retry-After", "4"), ("x-should-retry", "true")]


@pytest.mark.parametrize(
    "headers, body",
    [
        # not UTF-8: from_http reads it now, with U+FFFD and a note (tests/test_newcomer_conveniences.py)
        ([("Retry-After", "7")], b"x" * (errconv.Limits().max_bytes + 1)),  # past max_bytes
        ([("Retry-After", "7"), ("X-Long", "v" * 10_000)], b"{}"),  # a header past max_header
    ],
)
def test_an_unreadable_upstream_still_gets_a_well_formed_answer(headers: list[tuple[str, str]], body: bytes) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.from_http(503, headers, body)  # from_http refuses it, as it should
    resp = errconv.to_http((503, headers, body))
    assert resp.status == 503
    assert json.loads(resp.body)["next_step"] == "wait"
    if len(dict(headers).get("X-Long", "")) < 8192:
        assert dict(resp.headers)["Retry-After"] == "7"


def test_a_success_is_no_error() -> None:
    with pytest.raises(errconv.DecodeError, match="not an error response: 200"):
        errconv.to_http((200, [], b"{}"))


def test_any_other_exception_is_internal_give_up_with_no_text() -> None:
    resp = errconv.to_http(KeyError("customer 42's card 4242 4242 4242 4242"))
    assert resp.status == 500
    assert json.loads(resp.body) == {"title": "Internal Server Error", "status": 500, "next_step": "give_up"}


def test_what_is_no_error_is_refused() -> None:
    with pytest.raises(TypeError, match="to_http takes"):
        errconv.to_http("just a string")


def test_instance_fills_in_but_never_overrides() -> None:
    assert json.loads(errconv.to_http(WAIT, instance="/orders/7").body)["instance"] == "/orders/7"
    own = FAULTS["not_found"]
    assert json.loads(errconv.to_http(own, instance="/elsewhere").body)["instance"] == own.instance


def test_the_seams_are_the_same_functions() -> None:
    assert errconv.gateway.to_http is errconv.to_http
    assert errconv.gateway.from_http is errconv.from_http


def test_docstring_examples_run() -> None:
    for module in (errconv.gateway,):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


# --------------------------------------------------------------------------- the middleware's instance


def _through(middleware: ProblemMiddleware, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=middleware), base_url="http://t") as client:
            return await client.get(path, headers=headers)

    return asyncio.run(go())


async def _fails(scope: Any, receive: Any, send: Any) -> None:
    raise errconv.FaultError(WAIT)


@pytest.mark.parametrize(
    "sent, instance",
    [
        ("req_42", "req_42"),
        ("abc def", "/a%20b/c"),  # a space: not copied, the path instead
        ("x" * 201, "/a%20b/c"),  # too long to copy into every answer
        ("req/<1>", "req/%3C1%3E"),  # percent-encoded into a URI reference
    ],
)
def test_instance_is_the_request_id_when_it_is_safe_else_the_path(sent: str, instance: str) -> None:
    middleware = ProblemMiddleware(_fails, request_id_header="X-Request-Id")
    assert _through(middleware, "/a%20b/c?token=secret", {"X-Request-Id": sent}).json()["instance"] == instance
    assert _through(middleware, "/a%20b/c?token=secret").json()["instance"] == "/a%20b/c"


def test_a_client_status_error_on_a_redirect_answers_500_not_a_crash() -> None:
    async def redirects(scope: Any, receive: Any, send: Any) -> None:
        response = httpx.Response(302, headers={"Location": "/elsewhere"}, request=httpx.Request("GET", "http://u.test"))
        response.raise_for_status()

    resp = _through(ProblemMiddleware(redirects), "/x")
    assert (resp.status_code, resp.json()["next_step"]) == (500, "give_up")
