"""oauth: RFC 6749/6750/8628 error responses, JSON or form-encoded, at 400 or inside a
200 (GitHub's device flow); the bearer challenge's `error=`; told apart from Slack,
Stripe and the ad-hoc `{"error": "<message>"}` bodies."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import Code, NextStep
from errconv.dialects.oauth import CODES

from .adhoc import NOW, bare, body as as_bytes, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response

FORM = (("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"),)


def test_members() -> None:
    fault = response(400, {"error": "invalid_grant", "error_description": "The refresh token has expired.", "error_uri": "https://example.com/docs/invalid_grant"})
    assert fault.origin.body == "oauth"
    assert (fault.code, fault.detail, fault.type, fault.next_step) == ("invalid_grant", "The refresh token has expired.", "https://example.com/docs/invalid_grant", NextStep.GIVE_UP)
    assert "oauth code 'invalid_grant'" in fault.origin.next_step


@pytest.mark.parametrize(("code", "row"), sorted(CODES.items()))
def test_every_row(code: str, row: tuple[NextStep, int, int]) -> None:
    step, grpc, status = row
    fault = bare({"error": code})
    assert (fault.status, fault.next_step) == (status, step)
    assert response(400, {"error": code}).next_step == step
    inside_200 = response(200, {"error": code})
    assert (inside_200.status, inside_200.grpc_code, inside_200.next_step) == (200, grpc, step)


def test_github_device_flow_form_encoded_at_200() -> None:
    body = b"error=slow_down&error_description=Too+many+requests+have+been+made+in+the+same+timeframe.&error_uri=https%3A%2F%2Fdocs.github.com&interval=22"
    fault = response(200, body, FORM)
    assert fault.origin.body == "oauth"
    assert (fault.status, fault.code, fault.next_step, fault.retry_after_seconds) == (200, "slow_down", NextStep.WAIT, 22)
    assert (fault.detail, fault.type) == ("Too many requests have been made in the same timeframe.", "https://docs.github.com")
    assert fault.grpc_code == Code.RESOURCE_EXHAUSTED
    pending = response(200, b"error=authorization_pending", FORM)
    assert (pending.next_step, pending.retry_after_seconds) == (NextStep.WAIT, None)  # the interval is not in this response


def test_a_successful_token_response_is_no_error() -> None:
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        response(200, b"access_token=gho_x&token_type=bearer&scope=repo", FORM)
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        response(200, {"access_token": "x", "token_type": "bearer"})
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        response(200, {"error": "something_else"})  # not a registered code: inside a 2xx it is nothing


def test_form_bodies_as_servers_write_them() -> None:
    fault = response(400, b"error=slow_down&interval=7&", FORM)  # a trailing separator
    assert (fault.code, fault.retry_after_seconds) == ("slow_down", 7)
    repeated = response(400, b"error=expired_token&error=slow_down", FORM)  # the first of a repeated name
    assert repeated.code == "expired_token"


def test_a_form_body_of_no_known_shape_is_read_from_the_status() -> None:
    assert response(400, b"%%%&&&==", FORM).origin.body == "general"  # a form of no known shape: the general reader
    many = response(400, b"a=1&" * 300, FORM)  # more fields than a form is read for: the body is text
    assert many.origin.body == "vague" and many.next_step == NextStep.FIX_REQUEST


def test_an_interval_is_a_delay_only_for_a_wait() -> None:
    assert bare({"error": "authorization_pending", "interval": 5}).retry_after_seconds == 5
    denied = bare({"error": "access_denied", "interval": 5})
    assert denied.retry_after_seconds is None and denied.extensions == {"interval": 5}


def test_microsoft_extras_are_kept() -> None:
    body = {"error": "invalid_grant", "error_description": "AADSTS70008: expired", "error_codes": [70008], "timestamp": "2024-01-01 00:00:00Z", "trace_id": "t", "correlation_id": "c"}
    fault = response(400, body)
    assert fault.origin.body == "oauth" and fault.extensions == {"error_codes": [70008], "timestamp": "2024-01-01 00:00:00Z", "trace_id": "t", "correlation_id": "c"}


# --------------------------------------------------------------------------- the bearer challenge (the HTTP layer)


@pytest.mark.parametrize(
    ("challenge", "code"),
    [
        ('Bearer realm="example", error="invalid_token", error_description="The access token expired"', "invalid_token"),
        ('Bearer error="insufficient_scope", scope="repo"', "insufficient_scope"),
        ("Bearer error=invalid_token", "invalid_token"),
        ('Bearer realm="a,b", error="invalid_token"', "invalid_token"),
        ('DPoP error="use_dpop_nonce"', "use_dpop_nonce"),
        ('Basic realm="simple"', None),
        ('Bearer realm="example"', None),
        ('Bearer error_description="x"', None),
    ],
)
def test_a_bearer_challenge_gives_the_code_of_a_body_that_states_none(challenge: str, code: str | None) -> None:
    empty = errconv.from_http(401, [("WWW-Authenticate", challenge)], b"", now=NOW)
    assert empty.code == code and empty.status == 401 and empty.next_step == NextStep.GIVE_UP
    fastapi = response(401, {"detail": "Not authenticated"}, (("WWW-Authenticate", challenge),))
    assert fastapi.code == code and fastapi.detail == "Not authenticated"


def test_a_body_code_wins_over_the_challenge() -> None:
    fault = response(401, {"error": "invalid_client"}, (("WWW-Authenticate", 'Bearer error="invalid_token"'),))
    assert fault.code == "invalid_client"


# --------------------------------------------------------------------------- look-alikes


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        ({"error": "invalid_request"}, "oauth"),
        ({"error": "authorization_declined", "error_description": "The user has declined authorization"}, "oauth"),
        ({"error": "custom_code", "error_description": "x"}, "oauth"),  # unregistered, but OAuth's members
        ({"ok": False, "error": "invalid_auth"}, "slack"),
        ({"error": "not_found"}, "general"),  # a code-shaped word, but neither registered nor described
        ({"error": "Not found"}, "general"),  # an ad-hoc sentence
        ({"error": "Too many requests, try again later"}, "general"),
        ({"error": "IndexMissingException[[x] missing]", "status": 404}, "elasticsearch"),
        ({"error": {"type": "invalid_request_error", "message": "No such token"}}, "stripe"),
    ],
)
def test_oauth_and_its_look_alikes_are_told_apart(obj: dict[str, Any], want: str) -> None:
    assert detected(obj, status=400) == want
    assert detected(obj) == want


def test_stripe_connect_oauth_errors_are_oauth_not_stripe() -> None:
    # connect.stripe.com/oauth/token answers RFC 6749 bodies: never read by the stripe dialect's OAuth branch
    # when detected, even with Stripe's own header.
    body = {"error": "invalid_grant", "error_description": "Authorization code does not exist: ac_123"}
    assert response(400, body, (("Stripe-Version", "2024-06-20"),)).origin.body == "oauth"
    assert bare(body).origin.dialect == "oauth"
    # Named explicitly, the stripe dialect still reads it (its branch is kept for that).
    assert errconv.decode(as_bytes(body), "stripe").code == "invalid_grant"


def test_oauth_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="oauth is read, not written"):
        errconv.encode(errconv.Fault.build(status=400, code="invalid_grant", next_step="give_up"), "oauth")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("oauth")


@pytest.mark.parametrize(("key", "path", "entry"), captures("oauth"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
