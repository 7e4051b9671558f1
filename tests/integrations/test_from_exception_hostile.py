"""`from_exception` never raises, and what it reads never carries a secret into
`agent_message`: exceptions with no attributes, raising properties, hostile headers,
huge and non-UTF-8 bodies, secrets in the message, the URL and the headers."""

from __future__ import annotations

import time
from typing import Any

import pytest

import errconv
from errconv import NextStep

SECRETS = ("hunter2", "sk-proj-", "AKIAIOSFODNN7", "ghp_", "xoxb-", "s3cr3t", "eyJhbGci", "sk_live_")


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


class Boom(Exception):
    """Every attribute access raises, `__class__` and `__cause__` included."""

    def __getattribute__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} (password=hunter2)")

    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Props(Exception):
    """The attributes every reader looks for, each a property that raises."""

    def _raise(self) -> Any:
        raise ValueError("sk-proj-abcdefghijklmnop")

    response = property(_raise)
    status_code = property(_raise)
    status = property(_raise)
    code = property(_raise)
    headers = property(_raise)
    body = property(_raise)
    http_status = property(_raise)
    json_body = property(_raise)
    reason = property(_raise)
    fault = property(_raise)


class BadHeaders:
    def items(self) -> Any:
        raise OSError("headers gone")

    def __iter__(self) -> Any:
        raise OSError("headers gone")


class Response:
    """A client response: status, headers and body as given."""

    def __init__(self, status_code: Any, headers: Any, content: Any) -> None:
        self.status_code, self.headers, self.content = status_code, headers, content


class WithResponse(Exception):
    def __init__(self, response: Any) -> None:
        super().__init__("GET https://api.example.com/v1/x?api_key=s3cr3t failed: password=hunter2")
        self.response = response


HOSTILE = {
    "no-attributes": Boom,
    "raising-properties": Props,
    "hostile-class-name": type("password=hunter2", (Exception,), {}),  # a class made at run time, any name at all
    "raising-headers": lambda: WithResponse(Response(429, BadHeaders(), b"")),
    "bool-status": lambda: WithResponse(Response(True, [], b"")),  # bool is no status
    "huge-status": lambda: WithResponse(Response(10**9, [], b"")),
    "text-status": lambda: WithResponse(Response("429", [], b"")),
    "object-body": lambda: WithResponse(Response(500, {"x": object()}, object())),
    "garbage-headers": lambda: WithResponse(Response(500, [("a", "b", "c"), 7, None], {"cycle": None})),
}


@pytest.mark.parametrize("make", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_exceptions_give_a_fault(make: Any) -> None:
    # Made inside the test: pytest itself would trip over Boom while collecting.
    fault = errconv.from_exception(make())
    assert isinstance(fault, errconv.Fault)
    assert fault.next_step in (NextStep.WAIT, NextStep.GIVE_UP)
    text = errconv.agent_message(fault)
    assert not leaks(text) and not leaks(repr(fault)), text


def test_raising_headers_still_leave_the_status() -> None:
    fault = errconv.from_exception(WithResponse(Response(429, BadHeaders(), b"")))
    assert (fault.status, fault.next_step) == (429, NextStep.WAIT)


def test_a_cycle_in_a_json_body_and_a_raising_cause() -> None:
    body: dict[str, Any] = {"error": {"message": "x"}}
    body["error"]["self"] = body

    class Stripeish(Exception):
        http_status = 402
        json_body = body
        http_body = None
        headers = {"Request-Id": "req_1"}

    fault = errconv.from_exception(Stripeish())
    assert fault.status == 402  # the body is unusable; the status still speaks

    class RaisingCause(Exception):
        @property
        def __cause__(self) -> Any:  # type: ignore[override]
            raise RuntimeError("token=s3cr3t")

    assert errconv.from_exception(RaisingCause()).next_step == NextStep.GIVE_UP


def test_huge_and_non_utf8_bodies() -> None:
    started = time.perf_counter()
    huge = errconv.from_exception(WithResponse(Response(503, [("Retry-After", "30")], b"password=hunter2 " * 2_000_000)))
    huge_text = errconv.from_exception(WithResponse(Response(503, [("Retry-After", "30")], "x" * 40_000_000)))
    assert time.perf_counter() - started < 5
    for fault in (huge, huge_text):
        assert (fault.status, fault.next_step, fault.retry_after_seconds) == (503, NextStep.WAIT, 30)
    bad = errconv.from_exception(WithResponse(Response(429, [("Retry-After", "7"), ("Content-Type", "application/json")], b'{"error": "\xff\xfe\xfd"}')))
    assert (bad.status, bad.next_step, bad.retry_after_seconds) == (429, NextStep.WAIT, 7)
    assert not leaks(errconv.agent_message(huge))


def test_headers_of_a_million_fields_cost_bounded_work() -> None:
    headers = {f"x-h{i}": "v" for i in range(1_000_000)}
    started = time.perf_counter()
    fault = errconv.from_exception(WithResponse(Response(503, headers, b"")))
    assert time.perf_counter() - started < 5
    assert fault.next_step == NextStep.WAIT


def test_secrets_in_message_url_headers_and_body_never_reach_the_model() -> None:
    httpx = pytest.importorskip("httpx")
    request = httpx.Request(
        "POST",
        "https://user:hunter2@api.example.com/v1/charges?api_key=sk_live_abcdefghijklmnop&token=s3cr3t",
        headers={"Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl", "X-Api-Key": "AKIAIOSFODNN7EXAMPLE"},
    )
    body = (
        b'{"error": {"message": "Incorrect API key provided: sk-proj-abcdefghijklmnop1234. '
        b'Request to https://api.example.com/v1?access_token=ghp_abcdefghijklmnopqrstuvwxyz0123 with password=hunter2 '
        b"and header Authorization: Bearer xoxb-1234567890-abcdefghij failed.\", \"type\": \"invalid_request_error\", "
        b'"code": "invalid_api_key", "param": null}}'
    )
    response = httpx.Response(401, headers={"Content-Type": "application/json", "Set-Cookie": "session=s3cr3t"}, content=body, request=request)
    exc = httpx.HTTPStatusError("401 for https://api.example.com/v1?api_key=s3cr3t password=hunter2", request=request, response=response)
    fault = errconv.from_exception(exc)
    assert (fault.status, fault.code, fault.next_step) == (401, "invalid_api_key", NextStep.GIVE_UP)
    text = errconv.agent_message(fault)
    assert not leaks(text), text
    assert "invalid_api_key" in text and "Do not repeat" in text
    # The fault itself goes to the model too (an MCP tool result's structuredContent):
    # the server's echo of the credentials is redacted in it as well.
    assert not leaks(repr(fault)) and not leaks(errconv.encode(fault, "problem").decode()), repr(fault)
    assert "Incorrect API key provided: [redacted]" in (fault.detail or "")


def test_secrets_in_extensions_violations_and_metadata_of_a_body_are_redacted() -> None:
    requests = pytest.importorskip("requests")
    body = (
        b'{"type": "https://errors.example.com/bad?sig=s3cr3t", "title": "Bad request", "status": 400,'
        b' "detail": "login with password=hunter2 refused", "instance": "/v1/login?token=s3cr3t",'
        b' "invalid-params": [{"name": "pwd", "reason": "was sk-proj-abcdefghijkl1234"}],'
        b' "debug": {"headers": {"Authorization": "Bearer xoxb-1234567890-abcdefghij"}, "key": "AKIAIOSFODNN7EXAMPLE",'
        b' "db_password": "hunter2", "items": [{"client_secret": "s3cr3t"}]}}'
    )
    response = requests.Response()
    response.status_code, response._content = 400, body
    response.headers["Content-Type"] = "application/problem+json"
    exc = requests.HTTPError("400 Client Error for url https://x/v1/login?password=hunter2", response=response)
    fault = errconv.from_exception(exc)
    assert (fault.status, fault.next_step, fault.param) == (400, NextStep.FIX_REQUEST, "pwd")
    assert not leaks(repr(fault)) and not leaks(errconv.encode(fault, "problem").decode()), repr(fault)
    assert (fault.detail, fault.instance) == ("login with password=[redacted] refused", "/v1/login?token=[redacted]")
    assert fault.extensions["debug"]["db_password"] == "[redacted]"
    # Nothing to redact: the fault is the seam's, unchanged.
    clean = requests.Response()
    clean.status_code, clean._content = 404, b'{"title": "Not found", "status": 404, "detail": "no book 7f3a"}'
    clean.headers["Content-Type"] = "application/problem+json"
    plain = errconv.from_exception(requests.HTTPError("404", response=clean))
    assert plain == errconv.from_http(404, clean.headers, clean.content)


def test_kubernetes_api_exception_str_leaks_but_the_fault_does_not() -> None:
    kubernetes = pytest.importorskip("kubernetes")
    exc = kubernetes.client.ApiException(status=403, reason="Forbidden")
    exc.headers = {"Authorization": "Bearer eyJhbGciOiJSUzI1NiJ9.x.y", "Content-Type": "application/json"}
    exc.body = '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"token s3cr3t is not allowed","reason":"Forbidden","code":403}'
    assert "eyJhbGci" in str(exc)  # what a framework would hand the model
    fault = errconv.from_exception(exc)
    assert (fault.status, fault.code, fault.next_step) == (403, "Forbidden", NextStep.GIVE_UP)
    assert not leaks(errconv.agent_message(fault)), errconv.agent_message(fault)
