"""twilio: the older `{code, message, more_info, status}` body and the newer RFC 9457
bodies with an integer code, told apart from plain problem, Discord and status-json."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import NextStep

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response

LEGACY = {"code": 20404, "message": "The requested resource /2010-04-01/Accounts/AC1/Calls/CA1.json was not found", "more_info": "https://www.twilio.com/docs/errors/20404", "status": 404}
RFC = {
    "type": "https://www.twilio.com/docs/api/errors/20001",
    "title": "Validation failed",
    "status": 422,
    "code": 20001,
    "detail": "Request validation failed",
    "instance": "/api/v1/accounts/AC123",
    "errors": [{"detail": "must be a positive integer", "pointer": "#/age"}, {"detail": "must be 'green', 'red' or 'blue'", "pointer": "#/profile/color"}],
}


def test_legacy_body() -> None:
    fault = bare(LEGACY)
    assert fault.origin.dialect == "twilio"
    assert (fault.code, fault.status, fault.detail, fault.type, fault.next_step) == ("20404", 404, LEGACY["message"], LEGACY["more_info"], NextStep.GIVE_UP)
    assert fault.extensions == {}


def test_rfc9457_body_with_an_integer_code() -> None:
    fault = bare(RFC)
    assert fault.origin.dialect == "twilio"
    assert (fault.code, fault.status, fault.title, fault.detail, fault.instance, fault.type) == ("20001", 422, "Validation failed", "Request validation failed", "/api/v1/accounts/AC123", RFC["type"])
    assert [v.field for v in fault.violations] == ["age", "profile.color"]
    assert fault.next_step == NextStep.FIX_REQUEST


def test_details_are_kept() -> None:
    fault = bare({"code": 20001, "message": "Bad request", "more_info": "https://www.twilio.com/docs/errors/20001", "status": 400, "details": {"foo": "bar"}})
    assert fault.extensions == {"details": {"foo": "bar"}}


@pytest.mark.parametrize(("code", "status"), [(20404, 404), (20429, 429), (20500, 500), (20503, 503), (20003, 400), (21211, 400)])
def test_a_bare_body_of_a_20nnn_code_has_that_status(code: int, status: int) -> None:
    fault = bare({"message": "m", "code": code})
    assert fault.status == status and "status" in fault.origin.inferred


@pytest.mark.parametrize("code", [20429, 20503])
def test_wait_codes_wait_whatever_the_status(code: int) -> None:
    fault = response(400, {"message": "m", "code": code})
    assert fault.next_step == NextStep.WAIT and "twilio code" in fault.origin.next_step


@pytest.mark.parametrize(
    ("obj", "headers", "want"),
    [
        (LEGACY, (), "twilio"),
        (RFC, (), "twilio"),
        ({"message": "Invalid phone number", "code": 21211}, (), "twilio"),
        ({"code": 20001, "message": "m", "status": 400}, (("Twilio-Request-Id", "RQ1"),), "twilio"),
        # Plain problem: a string code (as errconv writes), or an integer one under another type.
        ({"type": "https://example.com/probs/out-of-credit", "title": "x", "status": 403, "code": "out_of_credit"}, (), "problem"),
        ({"type": "https://example.com/probs/x", "title": "x", "status": 400, "code": 20001, "detail": "d"}, (), "problem"),
        ({"title": "x", "status": 400, "detail": "d"}, (), "problem"),
        ({"code": 3, "message": "bad"}, (), "status-json"),
        ({"code": 50035, "message": "Invalid Form Body", "errors": {}}, (), "discord"),
    ],
)
def test_twilio_problem_discord_and_status_json_are_told_apart(obj: dict[str, Any], headers: tuple[tuple[str, str], ...], want: str) -> None:
    assert detected(obj, status=400, headers=headers) == want
    if not headers:
        assert detected(obj) == want


def test_inside_http_the_problem_media_type_decides() -> None:
    fault = response(422, RFC, (("Content-Type", "application/problem+json"),))
    assert fault.origin.body == "problem" and fault.extensions["code"] == 20001  # kept verbatim


def test_twilio_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="twilio is read, not written"):
        errconv.encode(errconv.Fault.build(status=404, code="not_found"), "twilio")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("twilio")


@pytest.mark.parametrize(("key", "path", "entry"), captures("twilio"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
