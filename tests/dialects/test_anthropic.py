"""The `anthropic` dialect: Anthropic's error response.

Expected values are written out from the sources (docs.claude.com/en/api/errors, the
anthropic SDK's ErrorType and error details, the captures in tests/realworld/anthropic),
not taken from errconv.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
from errconv import Code, NextStep
from errconv.details import RequestInfo
from errconv.dialects import anthropic as anthropic_dialect

REALWORLD = pathlib.Path(__file__).resolve().parent.parent / "realworld"
WAIT, GIVE_UP, FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST


def envelope(type_: str, message: str = "m", request_id: str | None = "req_011CZAau32QzxDkriovTaFCB", **inner: Any) -> bytes:
    obj: dict[str, Any] = {"type": "error", "error": {"type": type_, "message": message, **inner}}
    if request_id is not None:
        obj["request_id"] = request_id
    return json.dumps(obj).encode()


def anthropic(data: bytes, status: int | None = None) -> errconv.Fault:
    return errconv.decode(data, "anthropic", status=status)


# --------------------------------------------------------------------------- shapes and the type table


@pytest.mark.parametrize(
    "type_, status, grpc, step",
    [
        ("invalid_request_error", 400, Code.INVALID_ARGUMENT, FIX),
        ("authentication_error", 401, Code.UNAUTHENTICATED, GIVE_UP),
        ("billing_error", 402, Code.FAILED_PRECONDITION, GIVE_UP),
        ("permission_error", 403, Code.PERMISSION_DENIED, GIVE_UP),
        ("not_found_error", 404, Code.NOT_FOUND, GIVE_UP),
        ("request_too_large", 413, Code.INVALID_ARGUMENT, FIX),
        ("rate_limit_error", 429, Code.RESOURCE_EXHAUSTED, WAIT),
        ("api_error", 500, Code.INTERNAL, GIVE_UP),
        ("timeout_error", 504, Code.DEADLINE_EXCEEDED, WAIT),
        ("overloaded_error", 529, Code.UNAVAILABLE, WAIT),
    ],
)
def test_each_type_of_a_bare_body(type_: str, status: int, grpc: int, step: NextStep) -> None:
    fault = anthropic(envelope(type_))
    assert (fault.status, fault.grpc_code, fault.code, fault.next_step) == (status, grpc, type_, step)
    assert fault.details == (RequestInfo(request_id="req_011CZAau32QzxDkriovTaFCB"),)
    assert fault.origin.dialect == "anthropic" and "status" not in fault.origin.inferred


def test_overloaded_529_waits_over_http_too() -> None:
    fault = errconv.from_http(529, [("content-type", "application/json")], envelope("overloaded_error", "Overloaded"))
    assert (fault.status, fault.grpc_code, fault.next_step) == (529, Code.UNAVAILABLE, WAIT)
    assert "the anthropic code table: 'overloaded_error'" in fault.origin.next_step


def test_any_413_must_shrink() -> None:
    fault = anthropic(envelope("invalid_request_error", "Request size exceeds model context window"), 413)
    assert fault.next_step == FIX and "413" in fault.origin.next_step


def test_an_unknown_type_bare_is_400_noted() -> None:
    fault = anthropic(envelope("memory_path_exploded_error"))
    assert fault.status == 400 and "status" in fault.origin.inferred and fault.origin.notes


def test_the_request_id_header() -> None:
    fault = errconv.from_http(429, [("request-id", "req_1"), ("x-should-retry", "true")], envelope("rate_limit_error", request_id=None))
    assert fault.details == (RequestInfo(request_id="req_1"),) and fault.origin.body == "anthropic"


def test_x_should_retry_false_turns_overloaded_into_give_up() -> None:
    fault = errconv.from_http(529, [("x-should-retry", "false")], envelope("overloaded_error"))
    assert fault.next_step == GIVE_UP


# --------------------------------------------------------------------------- details.error_code


def test_error_code_is_the_code_and_the_type_stays_a_category() -> None:
    data = envelope("rate_limit_error", "Your organization crossed its usage threshold",
                    details={"error_code": "enforced_spend_limit_reached"})  # fmt: skip
    fault = errconv.from_http(429, [("x-should-retry", "true")], data)
    assert (fault.code, fault.status, fault.next_step) == ("enforced_spend_limit_reached", 429, GIVE_UP)
    assert fault.metadata == {}  # the type is the one errconv writes for 429
    assert "the anthropic code table: 'enforced_spend_limit_reached'" in fault.origin.next_step
    # The SDK's retry would disagree: x-should-retry true came from the server and errconv's
    # table outranks a wire wait, but not the server's own "false".


def test_details_field_is_the_param_and_the_rest_is_kept() -> None:
    data = envelope("invalid_request_error", "storage not attachable",
                    details={"error_code": "storage_not_attachable", "field": "inference_data_privacy.safeguards_storage", "extra": [1]})  # fmt: skip
    fault = anthropic(data, 400)
    assert (fault.code, fault.param) == ("storage_not_attachable", "inference_data_privacy.safeguards_storage")
    assert fault.extensions == {"details": {"extra": [1]}}
    inner = json.loads(errconv.encode(fault, "anthropic"))["error"]
    assert inner["details"] == {"error_code": "storage_not_attachable", "extra": [1]}
    assert errconv.decode(errconv.encode(fault, "anthropic"), "anthropic", status=400) == fault


def test_a_type_not_of_its_status_is_kept_and_written_back() -> None:
    fault = anthropic(envelope("memory_path_conflict_error", details={"error_code": "path_taken"}), 409)
    assert fault.metadata == {"type": "memory_path_conflict_error"}
    assert json.loads(errconv.encode(fault, "anthropic"))["error"]["type"] == "memory_path_conflict_error"


TABLE_ROWS = [(code, step) for code, (step, _) in anthropic_dialect.STEP_FOR_CODE.items()]


@pytest.mark.parametrize("code, step", TABLE_ROWS)
def test_code_table_row(code: str, step: NextStep) -> None:
    # A status whose ladder says otherwise: 400 fixes, 429 waits, 500 gives up.
    status = {WAIT: 400, FIX: 500, GIVE_UP: 429}[step]
    data = envelope("invalid_request_error", details={"error_code": code}) if code not in ("overloaded_error", "request_too_large") else envelope(code)
    fault = anthropic(data, status)
    assert fault.next_step == step, (code, fault.origin.next_step)
    assert "the anthropic code table" in fault.origin.next_step


def test_the_spent_usage_sentences_give_up() -> None:
    for message in ("You're out of extra usage. Add more at claude.ai/settings/usage and keep going.",
                    "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
                    "You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."):  # fmt: skip
        fault = anthropic(envelope("invalid_request_error", message), 400)
        assert fault.next_step == GIVE_UP and fault.code == "invalid_request_error"
        assert any("read from the message" in n for n in fault.origin.notes)
    # Elsewhere in a message, or beside an error_code, it decides nothing.
    quoted = anthropic(envelope("invalid_request_error", "messages.0: text `Your credit balance is too low` is not allowed"), 400)
    assert quoted.next_step == FIX


# --------------------------------------------------------------------------- detection


LEGACY = {
    "401 legacy": {"error": {"type": "authentication_error", "message": "Invalid API Key"}},
    "413 cloudflare": {"error": {"type": "request_too_large", "message": "Request exceeds the maximum size"}},
    "403 forbidden": {"error": {"type": "forbidden", "message": "Request not allowed"}},
}
NOT_ANTHROPIC = {
    "stripe-mock (shared type)": {"error": {"message": "Unrecognized request URL (GET: /v1/nope).", "type": "invalid_request_error"}},
    "stripe api_error": {"error": {"type": "api_error"}},
    "stripe card": {"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined."}},
    "openai": {"error": {"message": "m", "type": "invalid_request_error", "param": None, "code": "x"}},
    "openai compat": {"error": {"code": "rate_limit_error", "message": "m", "type": "invalid_request_error", "param": None}},
    "openai type only": {"error": {"type": "server_error", "message": "m"}},
    "google": {"error": {"code": 503, "message": "m", "status": "UNAVAILABLE"}},
    "elasticsearch": {"error": {"type": "index_not_found_exception", "reason": "no such index", "root_cause": []}, "status": 404},
    "oauth": {"error": "invalid_grant", "error_description": "x"},
    "odata": {"error": {"code": "BadArgument", "message": "m", "target": "x"}},
    "problem with type": {"type": "about:blank", "title": "t", "status": 400},
    "type error without error object": {"type": "error", "error": "overloaded"},
}


@pytest.mark.parametrize("name", list(LEGACY))
def test_older_bodies_without_type_error_are_anthropic(name: str) -> None:
    assert errconv.detect(json.dumps(LEGACY[name]).encode()) == "anthropic"


@pytest.mark.parametrize("name", list(NOT_ANTHROPIC))
def test_look_alikes_are_not_claimed(name: str) -> None:
    assert errconv.dialects.get("anthropic").recognise(NOT_ANTHROPIC[name], None) == 0.0
    assert errconv.detect(json.dumps(NOT_ANTHROPIC[name]).encode()) != "anthropic"


def test_the_envelope_outbids_everyone() -> None:
    obj = json.loads(envelope("invalid_request_error"))
    mine = errconv.dialects.get("anthropic").recognise(obj, None)
    for other in ("stripe", "openai", "google", "problem"):
        assert errconv.dialects.get(other).recognise(obj, None) <= mine, other
    assert errconv.detect(envelope("api_error")) == "anthropic"


def test_anthropic_headers_mark_a_legacy_body_of_a_shared_type() -> None:
    data = json.dumps({"error": {"type": "invalid_request_error", "message": "m"}}).encode()
    assert errconv.detect(data) == "stripe"
    fault = errconv.from_http(400, [("anthropic-ratelimit-requests-limit", "50")], data)
    assert fault.origin.body == "anthropic"


# --------------------------------------------------------------------------- encoding


def test_encoding_the_status_type_and_the_code_beside_it() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30, detail="slow")
    out = json.loads(errconv.encode(fault, "anthropic"))
    assert out == {"type": "error", "error": {"type": "rate_limit_error", "message": "slow", "details": {"error_code": "rate_limited"},
                                              "next_step": "wait", "retry_after_seconds": 30}}  # fmt: skip
    assert errconv.decode(errconv.encode(fault, "anthropic"), "anthropic") == fault


def test_a_code_that_is_the_types_own_is_written_once() -> None:
    fault = anthropic(envelope("overloaded_error", "Overloaded"))
    out = json.loads(errconv.encode(fault, "anthropic"))
    assert out["error"] == {"type": "overloaded_error", "message": "Overloaded", "next_step": "wait"}
    assert out["request_id"] == "req_011CZAau32QzxDkriovTaFCB"


def test_a_code_of_another_status_becomes_the_error_code() -> None:
    # api_error is the type of 500: at 503 the type is overloaded_error, api_error its error_code.
    fault = errconv.Fault.build(status=503, code="api_error", next_step="wait", retry_after_seconds=3)
    inner = json.loads(errconv.encode(fault, "anthropic"))["error"]
    assert (inner["type"], inner["details"]) == ("overloaded_error", {"error_code": "api_error"})


def test_http_anthropic_headers() -> None:
    fault = errconv.Fault.build(status=500, code="api_error", next_step="give_up", details=[RequestInfo(request_id="req_7")])
    response = errconv.to_http(fault, "anthropic")
    assert ("x-should-retry", "false") in response.headers and ("request-id", "req_7") in response.headers
    assert json.loads(response.body)["request_id"] == "req_7"
    assert errconv.decode(bytes(response)) == fault


def test_a_param_and_agent_fields_ride_inside_error() -> None:
    fault = errconv.Fault.build(status=400, code="missing_parameter", next_step="fix_request", param="max_tokens")
    inner = json.loads(errconv.encode(fault, "anthropic"))["error"]
    assert inner["param"] == "max_tokens" and inner["next_step"] == "fix_request"
    assert errconv.decode(errconv.encode(fault, "anthropic"), "anthropic") == fault


@pytest.mark.parametrize("target", ["problem", "google", "stripe", "openai", "http+anthropic"])
def test_real_anthropic_bodies_convert_and_come_back_within_the_losses(target: str) -> None:
    facts = json.loads((REALWORLD / "anthropic" / "facts.json").read_text())
    for name, entry in facts.items():
        path = REALWORLD / "anthropic" / name
        status = entry["facts"]["status"]
        first = errconv.decode(path.read_bytes(), status=status) if path.suffix == ".json" else errconv.decode(path.read_bytes())
        middle = errconv.decode(errconv.encode(first, target), "http" if target.startswith("http+") else target)
        back = errconv.decode(errconv.to_http(middle, "anthropic").__bytes__())
        lost = set(errconv.losses(first, target))
        for field in ("code", "next_step", "param", "detail", "status"):
            if field not in lost:
                assert getattr(back, field) == getattr(first, field), (name, target, field)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data",
    [b"[]", b"{}", b'{"type": "error"}', b'{"type": "error", "error": "x"}', b"{\"type\":", b"\xfe"],
)  # fmt: skip
def test_bad_input_is_a_decode_error(data: bytes, no_safety_net: None) -> None:
    with pytest.raises(errconv.DecodeError, match="anthropic"):
        errconv.decode(data, "anthropic")


@pytest.mark.parametrize(
    ("data", "code"),
    [(b'{"type": "error", "error": {"type": 5}}', None),
     (b'{"type": "error", "error": {"type": "x", "details": "y", "message": []}}', "x")],
)  # fmt: skip
def test_odd_members_are_read_liberally(data: bytes, code: str | None, no_safety_net: None) -> None:
    fault = errconv.decode(data, "anthropic")
    assert fault.origin is not None and fault.origin.dialect == "anthropic"
    assert (fault.status, fault.code, fault.detail) == (400, code, None)


def test_details_null_is_nothing() -> None:
    fault = anthropic(b'{"type":"error","error":{"details":null,"type":"rate_limit_error","message":"Rate limited"}}')
    assert (fault.code, fault.status, fault.next_step, fault.extensions) == ("rate_limit_error", 429, WAIT, {})


def test_members_of_the_wrong_type_are_kept() -> None:
    fault = anthropic(b'{"type": "error", "error": {"type": "api_error", "message": [], "details": "y", "param": 3}}', 500)
    assert fault.code == "api_error" and fault.detail is None
    assert fault.extensions == {"message": [], "details": "y", "param": 3}


# --------------------------------------------------------------------------- the captures


def _captures() -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    facts = json.loads((REALWORLD / "anthropic" / "facts.json").read_text())
    return [(f"anthropic/{name}", REALWORLD / "anthropic" / name, entry) for name, entry in facts.items()]


CAPTURES = _captures()


def test_anthropic_has_its_five_captures_and_more() -> None:
    assert len(CAPTURES) >= 5 and all(entry["expected_dialect"] == "anthropic" for _, _, entry in CAPTURES)


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=[c[0] for c in CAPTURES])
def test_each_capture_is_detected_as_it_says(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    status = entry["facts"]["status"]
    fault = errconv.decode(path.read_bytes(), status=status) if path.suffix == ".json" and status else errconv.decode(path.read_bytes())
    origin = fault.origin
    assert (origin.body if origin.dialect == "http" else origin.dialect) == "anthropic", key
