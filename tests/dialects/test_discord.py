"""discord: JSON error codes with the nested `errors` tree, the 429 body's fractional
`retry_after`, the search 202; told apart from Twilio and status-json."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import Code, NextStep
from errconv.dialects.discord import CODES

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response

FORM = {
    "code": 50035,
    "errors": {
        "activities": {"0": {"platform": {"_errors": [{"code": "BASE_TYPE_CHOICES", "message": "Value must be one of ('desktop', 'android', 'ios')."}]}, "type": {"_errors": [{"code": "BASE_TYPE_CHOICES", "message": "Value must be one of (0, 1, 2, 3, 4, 5)."}]}}},
        "_errors": [{"code": "APPLICATION_COMMAND_TOO_LARGE", "message": "Command exceeds maximum size (8000)"}],
    },
    "message": "Invalid Form Body",
}


def test_the_errors_tree_gives_every_leaf_as_a_violation_in_order() -> None:
    fault = bare(FORM)
    assert fault.origin.dialect == "discord"
    assert [(v.field, v.reason) for v in fault.violations] == [
        ("activities.0.platform", "BASE_TYPE_CHOICES"),
        ("activities.0.type", "BASE_TYPE_CHOICES"),
        ("", "APPLICATION_COMMAND_TOO_LARGE"),  # the request as a whole
    ]
    assert (fault.code, fault.param, fault.detail, fault.status, fault.next_step) == ("50035", "activities.0.platform", "Invalid Form Body", 400, NextStep.FIX_REQUEST)


@pytest.mark.parametrize(("retry", "seconds"), [(64.57, 65), (0.001, 1), (2, 2), (0, 0)])
def test_a_fractional_retry_after_rounds_up(retry: float, seconds: int) -> None:
    fault = bare({"message": "You are being rate limited.", "retry_after": retry, "global": False})
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (429, NextStep.WAIT, seconds)
    assert fault.extensions == {"global": False}


def test_the_body_and_the_headers_agree_and_the_body_delay_is_kept() -> None:
    headers = (("Retry-After", "65"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset-After", "64.57"), ("X-RateLimit-Bucket", "abcd1234"))
    fault = response(429, {"message": "You are being rate limited.", "retry_after": 64.57, "global": False}, headers)
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 65)


def test_the_search_202_is_an_error_inside_a_success_that_waits() -> None:
    body = {"message": "Index not yet available. Try again later", "code": 110000, "documents_indexed": 0, "retry_after": 2}
    fault = response(202, body)
    assert fault.origin.body == "discord"
    assert (fault.status, fault.code, fault.next_step, fault.retry_after_seconds) == (202, "110000", NextStep.WAIT, 2)
    assert fault.grpc_code == Code.UNAVAILABLE
    assert fault.extensions == {"documents_indexed": 0}


def test_a_2xx_without_a_delay_is_no_error() -> None:
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        response(200, {"code": 0, "message": "ok", "errors": {}})


@pytest.mark.parametrize("code", sorted(CODES))
def test_codes_that_clear_with_time_wait_whatever_the_status(code: str) -> None:
    fault = response(400, {"code": int(code), "message": "m", "errors": {}})
    assert fault.next_step == NextStep.WAIT and f"discord code {code!r}" in fault.origin.next_step


def test_an_unknown_thing_is_a_404_when_bare() -> None:
    fault = errconv.decode(b'{"message": "Unknown Channel", "code": 10003}', "discord")
    assert (fault.status, fault.code) == (404, "10003")


@pytest.mark.parametrize(
    ("obj", "headers", "want"),
    [
        (FORM, (), "discord"),
        ({"message": "The resource is being rate limited.", "retry_after": 1336.57, "global": False}, (), "discord"),
        ({"message": "Unknown Channel", "code": 10003}, (("X-RateLimit-Bucket", "abcd"),), "discord"),
        ({"message": "Not Found", "code": 20404}, (), "twilio"),  # no Discord header: Twilio's shape
        ({"code": 20404, "message": "Not Found", "more_info": "https://www.twilio.com/docs/errors/20404", "status": 404}, (), "twilio"),
        ({"code": 5, "message": "not found"}, (), "status-json"),  # a gRPC code
        ({"code": 5, "message": "not found", "details": []}, (), "status-json"),
    ],
)
def test_discord_twilio_and_status_json_are_told_apart(obj: dict[str, Any], headers: tuple[tuple[str, str], ...], want: str) -> None:
    assert detected(obj, status=404, headers=headers) == want


def test_discord_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="discord is read, not written"):
        errconv.encode(errconv.Fault.build(status=404, code="not_found"), "discord")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("discord")


@pytest.mark.parametrize(("key", "path", "entry"), captures("discord"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
