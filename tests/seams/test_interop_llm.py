"""Interop: the real `openai` and `anthropic` SDKs read what errconv writes.

Every golden case and every real capture of the two services is written as
`http+openai` / `http+anthropic` and served to the SDK's own client through an
in-process transport (`MockTransport` of the HTTP library the SDK is built on; no
socket is opened). The SDK must raise the exception class its own status table names,
with the code, param and status the fault has, and its own retry loop (max_retries=2,
sleeps recorded instead of slept) must agree with errconv's next step: a wait is
retried, after the fault's delay when it sends one; give_up and fix_request are not.
errconv's `x-should-retry` is what makes them agree where the status alone would not
(a 429 whose quota is gone, a 500 that is a bug, a wait sent as 400).

Where they cannot agree: the OpenAI SDK refuses to retry when Retry-After is over
120 seconds (MAX_RETRY_AFTER_DELAY), whatever x-should-retry says; errconv's wait stands
(the caller is to wait that long itself), and the test expects the SDK's single request.

Expected classes are written out here from the SDKs' status tables, not taken from errconv.
"""

from __future__ import annotations

import json
import pathlib
import time
import types
from typing import Any

import anthropic
import openai
import pytest

import errconv
import golden_corpus as gc
from errconv import NextStep

# The HTTP library each SDK is built on (httpx, or its successor httpx2): the transport
# must be of the SDK's own kind.
_openai_http = openai._base_client.httpx2 if hasattr(openai._base_client, "httpx2") else openai._base_client.httpx  # type: ignore[attr-defined]
_anthropic_http = anthropic._base_client.httpx2 if hasattr(anthropic._base_client, "httpx2") else anthropic._base_client.httpx  # type: ignore[attr-defined]

REALWORLD = pathlib.Path(__file__).resolve().parents[1] / "realworld"
CASES = gc.cases()
FAULTS = {c.name: gc.load_fault(c) for c in CASES}
OPENAI_MAX_RETRY_AFTER = 120  # openai/_constants.py MAX_RETRY_AFTER_DELAY

# openai/_client.py `_make_status_error`: the class by status.
OPENAI_CLASS = {
    400: openai.BadRequestError, 401: openai.AuthenticationError, 403: openai.PermissionDeniedError, 404: openai.NotFoundError,
    409: openai.ConflictError, 422: openai.UnprocessableEntityError, 429: openai.RateLimitError,
}  # fmt: skip
# anthropic/_error_classes.py ERROR_CLASSES, the (status, None) rows.
ANTHROPIC_CLASS = {
    400: anthropic.BadRequestError, 401: anthropic.AuthenticationError, 402: anthropic.PaymentRequiredError,
    403: anthropic.PermissionDeniedError, 404: anthropic.NotFoundError, 408: anthropic.RequestTimeoutError,
    409: anthropic.ConflictError, 412: anthropic.PreconditionFailedError, 413: anthropic.ContentTooLargeError,
    422: anthropic.UnprocessableEntityError, 429: anthropic.RateLimitError, 501: anthropic.HTTPNotImplementedError,
    503: anthropic.ServiceUnavailableError, 504: anthropic.GatewayTimeoutError, 529: anthropic.OverloadedError,
}  # fmt: skip


def openai_class(status: int) -> type[Exception]:
    return OPENAI_CLASS.get(status) or (openai.InternalServerError if status >= 500 else openai.APIStatusError)


def anthropic_class(status: int) -> type[Exception]:
    return ANTHROPIC_CLASS.get(status) or (anthropic.InternalServerError if status >= 500 else anthropic.APIStatusError)


class Served:
    """One errconv response, served to every request; the requests counted."""

    def __init__(self, response: errconv.HttpResponse, lib: Any) -> None:
        self.response, self.lib, self.calls = response, lib, 0

    def __call__(self, request: Any) -> Any:
        self.calls += 1
        return self.lib.Response(self.response.status, headers=self.response.headers, content=self.response.body)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The SDKs' retry sleeps, recorded instead of slept."""
    slept: list[float] = []
    clock = types.SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
    clock.sleep = slept.append
    monkeypatch.setattr(openai._base_client, "time", clock)
    monkeypatch.setattr(anthropic._base_client, "time", clock)
    return slept


def call_openai(response: errconv.HttpResponse) -> tuple[Exception, int]:
    served = Served(response, _openai_http)
    client = openai.OpenAI(api_key="sk-test", base_url="http://llm.invalid/v1", max_retries=2,
                           http_client=_openai_http.Client(transport=_openai_http.MockTransport(served)))  # fmt: skip
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model="gpt-test", messages=[{"role": "user", "content": "hi"}])
    return info.value, served.calls


def call_anthropic(response: errconv.HttpResponse) -> tuple[Exception, int]:
    served = Served(response, _anthropic_http)
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url="http://llm.invalid", max_retries=2,
                                 http_client=_anthropic_http.Client(transport=_anthropic_http.MockTransport(served)))  # fmt: skip
    with pytest.raises(anthropic.APIStatusError) as info:
        client.messages.create(model="claude-test", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    return info.value, served.calls


def expected_requests(fault: errconv.Fault, *, cap: int | None) -> int:
    """How many requests the SDK (max_retries=2) makes when it agrees with the next step."""
    if fault.next_step != NextStep.WAIT:
        return 1
    if cap is not None and fault.retry_after_seconds is not None and fault.retry_after_seconds > cap:
        return 1  # the OpenAI SDK will not wait that long (see the module docstring)
    return 3


def check_sleeps(fault: errconv.Fault, slept: list[float], *, cap: int | None) -> None:
    delay = fault.retry_after_seconds
    if fault.next_step == NextStep.WAIT and delay and (cap is None or delay <= cap):
        assert slept == [float(delay), float(delay)]  # the SDK waits our Retry-After, each time


def check_openai(fault: errconv.Fault, slept: list[float]) -> openai.APIStatusError:
    response = errconv.to_http(fault, "openai")
    err, calls = call_openai(response)
    assert type(err) is openai_class(response.status)
    assert isinstance(err, openai.APIStatusError)
    assert err.status_code == response.status == fault.status
    assert err.code == fault.code and err.param == fault.param
    assert err.type == json.loads(response.body)["error"]["type"]
    assert calls == expected_requests(fault, cap=OPENAI_MAX_RETRY_AFTER), (fault.next_step, calls)
    check_sleeps(fault, slept, cap=OPENAI_MAX_RETRY_AFTER)
    return err


def check_anthropic(fault: errconv.Fault, slept: list[float]) -> anthropic.APIStatusError:
    response = errconv.to_http(fault, "anthropic")
    err, calls = call_anthropic(response)
    assert isinstance(err, anthropic_class(response.status)), (type(err), response.status)
    assert isinstance(err, anthropic.APIStatusError)
    assert err.status_code == response.status == fault.status
    # The code: details.error_code when errconv wrote one, else the type.
    assert (err.error_code or err.type) == fault.code or (fault.code is None and err.error_code is None)
    sent = json.loads(response.body)
    assert err.type == sent["error"]["type"] and err.request_id == sent.get("request_id")
    assert calls == expected_requests(fault, cap=None), (fault.next_step, calls)
    check_sleeps(fault, slept, cap=None)
    return err


# --------------------------------------------------------------------------- every golden case


@pytest.mark.parametrize("case", [c.name for c in CASES])
def test_openai_sdk_reads_http_openai(case: str, sleeps: list[float]) -> None:
    fault = FAULTS[case]
    if fault.status < 400:
        pytest.skip("not an error status")
    assert bytes(errconv.to_http(fault, "openai")) == (gc.ROOT / case / "http-openai.http").read_bytes()
    check_openai(fault, sleeps)


@pytest.mark.parametrize("case", [c.name for c in CASES])
def test_anthropic_sdk_reads_http_anthropic(case: str, sleeps: list[float]) -> None:
    fault = FAULTS[case]
    assert bytes(errconv.to_http(fault, "anthropic")) == (gc.ROOT / case / "http-anthropic.http").read_bytes()
    check_anthropic(fault, sleeps)


# --------------------------------------------------------------------------- every real capture


def _captures(service: str, dialect: str) -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    facts = json.loads((REALWORLD / service / "facts.json").read_text())
    return [(f"{service}/{n}", REALWORLD / service / n, e) for n, e in facts.items() if e["expected_dialect"] == dialect]


def _read(path: pathlib.Path, entry: dict[str, Any]) -> errconv.Fault:
    status = entry["facts"]["status"]
    if path.suffix == ".json" and status is not None:
        return errconv.decode(path.read_bytes(), status=status)
    return errconv.decode(path.read_bytes())


OPENAI_CAPTURES = _captures("openai", "openai") + _captures("azure_openai", "openai")
ANTHROPIC_CAPTURES = _captures("anthropic", "anthropic")


@pytest.mark.parametrize("key, path, entry", OPENAI_CAPTURES, ids=[c[0] for c in OPENAI_CAPTURES])
def test_openai_sdk_reads_our_rendering_of_each_capture(key: str, path: pathlib.Path, entry: dict[str, Any], sleeps: list[float]) -> None:
    fault = _read(path, entry)
    err = check_openai(fault, sleeps)
    facts = entry["facts"]
    assert err.code == facts["code"] and err.param == facts["param"]
    if facts["status"] is not None:
        assert err.status_code == facts["status"]


@pytest.mark.parametrize("key, path, entry", ANTHROPIC_CAPTURES, ids=[c[0] for c in ANTHROPIC_CAPTURES])
def test_anthropic_sdk_reads_our_rendering_of_each_capture(key: str, path: pathlib.Path, entry: dict[str, Any], sleeps: list[float]) -> None:
    fault = _read(path, entry)
    err = check_anthropic(fault, sleeps)
    facts = entry["facts"]
    assert (err.error_code or err.type) == facts["code"]
    if facts["status"] is not None:
        assert err.status_code == facts["status"]


# --------------------------------------------------------------------------- where the status alone would mislead the SDK


def test_insufficient_quota_is_not_retried_though_a_429(sleeps: list[float]) -> None:
    fault = _read(REALWORLD / "openai" / "insufficient-quota-429.json", {"facts": {"status": 429}})
    assert fault.next_step == NextStep.GIVE_UP
    err, calls = call_openai(errconv.to_http(fault, "openai"))
    assert isinstance(err, openai.RateLimitError) and err.code == "insufficient_quota" and calls == 1
    # The SDK alone, on the bare 429 as OpenAI sends it, would retry twice.
    bare = errconv.HttpResponse(429, [("Content-Type", "application/json")], (REALWORLD / "openai" / "insufficient-quota-429.json").read_bytes())
    _, calls = call_openai(bare)
    assert calls == 3


def test_overloaded_529_is_retried_and_a_500_bug_is_not(sleeps: list[float]) -> None:
    overloaded = _read(REALWORLD / "anthropic" / "overloaded-529.json", {"facts": {"status": 529}})
    err, calls = call_anthropic(errconv.to_http(overloaded, "anthropic"))
    assert isinstance(err, anthropic.OverloadedError) and calls == 3
    bug = _read(REALWORLD / "anthropic" / "api-error-500.json", {"facts": {"status": 500}})
    err, calls = call_anthropic(errconv.to_http(bug, "anthropic"))
    assert isinstance(err, anthropic.InternalServerError) and calls == 1


def test_a_wait_sent_as_400_is_retried(sleeps: list[float]) -> None:
    legacy = errconv.decode(b'{"error": {"code":"rate_limit"}}', status=400)  # Stripe's legacy rate limit
    assert legacy.next_step == NextStep.WAIT
    err, calls = call_openai(errconv.to_http(legacy, "openai"))
    assert isinstance(err, openai.BadRequestError) and calls == 3


def test_a_wait_over_two_minutes_is_the_openai_sdks_to_refuse(sleeps: list[float]) -> None:
    fault = errconv.Fault.build(status=429, code="rate_limit_exceeded", next_step="wait", retry_after_seconds=600)
    err, calls = call_openai(errconv.to_http(fault, "openai"))
    assert isinstance(err, openai.RateLimitError) and calls == 1
    err, calls = call_anthropic(errconv.to_http(fault, "anthropic"))
    assert isinstance(err, anthropic.RateLimitError) and calls == 3 and sleeps == [600.0, 600.0]


def test_an_anthropic_error_code_picks_the_sdks_specific_class(sleeps: list[float]) -> None:
    fault = errconv.decode(
        json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": "on hold", "details": {"error_code": "organization_on_hold"}}}).encode(),
        status=400,
    )  # fmt: skip
    err, calls = call_anthropic(errconv.to_http(fault, "anthropic"))
    assert type(err).__name__ == "OrganizationOnHoldError" and isinstance(err, anthropic.BadRequestError)
    assert err.error_code == "organization_on_hold" and calls == 1
