"""The `stripe` dialect's code table and the shapes stripe-python's own tests send.

Expected values come from research/stripe.md (stripe-python's `_api_requestor.py`
ladder, its tests, the 2015-09-08 changelog) and tests/realworld/stripe, not from errconv.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
from errconv import NextStep
from errconv.dialects import stripe as stripe_dialect

REALWORLD = pathlib.Path(__file__).resolve().parent.parent / "realworld"
WAIT, GIVE_UP, FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST


def stripe(inner: dict[str, Any], status: int | None = None, headers: list[tuple[str, str]] | None = None) -> errconv.Fault:
    data = json.dumps({"error": inner}).encode()
    if headers is not None:
        return errconv.from_http(status or 400, headers, data)
    return errconv.decode(data, status=status)


def test_a_code_only_card_error_is_stripe_and_fixable() -> None:
    fault = stripe({"code": "invalid_expiry_year"}, 402)
    assert fault.origin.dialect == "stripe"
    assert (fault.code, fault.next_step) == ("invalid_expiry_year", FIX)
    assert "the stripe code table: 'invalid_expiry_year'" in fault.origin.next_step
    assert stripe({"code": "invalid_expiry_year"}).status == 402  # a bare body: CardError's status


def test_the_legacy_rate_limit_at_400_waits() -> None:
    fault = stripe({"code": "rate_limit"}, 400)
    assert (fault.origin.dialect, fault.code, fault.next_step) == ("stripe", "rate_limit", WAIT)


def test_the_v2_rate_limit_type_waits() -> None:
    fault = stripe({"type": "rate_limit", "code": "account_rate_limit_exceeded"}, 400)
    assert (fault.code, fault.next_step) == ("account_rate_limit_exceeded", WAIT)
    typed = stripe({"type": "rate_limit", "code": "some_new_limit", "message": "m"}, 400)
    assert typed.next_step == WAIT and "type 'rate_limit'" in typed.origin.next_step


def test_a_type_alone_is_the_code() -> None:
    fault = stripe({"type": "api_error"}, 500, [("Stripe-Should-Retry", "false")])
    assert (fault.code, fault.next_step) == ("api_error", GIVE_UP)
    assert stripe({"type": "idempotency_error"}, 400).code == "idempotency_error"


def test_errconvs_own_body_without_a_code_comes_back_without_one() -> None:
    fault = errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=3, detail="down")
    data = errconv.encode(fault, "stripe")
    assert json.loads(data)["error"]["type"] == "api_error"
    assert errconv.decode(data, "stripe").code is None
    assert "code" not in errconv.losses(fault, "stripe")


def test_card_declined_still_gives_up() -> None:
    fault = stripe({"type": "card_error", "code": "card_declined", "decline_code": "generic_decline", "message": "m"}, 402)
    assert fault.next_step == GIVE_UP


def test_a_stated_should_retry_false_outranks_a_table_wait() -> None:
    fault = stripe({"type": "invalid_request_error", "code": "lock_timeout"}, 429, [("Stripe-Should-Retry", "false")])
    assert fault.next_step == GIVE_UP


# Each row at a status whose ladder would say otherwise: 402 without a param gives up,
# 400 fixes.
@pytest.mark.parametrize("code, step", [(c, s) for c, (s, _) in stripe_dialect.STEP_FOR_CODE.items()])
def test_code_table_row(code: str, step: NextStep) -> None:
    status = 402 if step is not GIVE_UP else 400
    fault = stripe({"type": "card_error" if status == 402 else "invalid_request_error", "code": code, "message": "m"}, status)
    assert fault.next_step == step, fault.origin.next_step
    assert f"the stripe code table: {code!r}" in fault.origin.next_step


def test_elasticsearch_and_odata_bodies_are_not_stripe() -> None:
    es = {"error": {"root_cause": [{"type": "x", "reason": "y"}], "type": "index_not_found_exception", "reason": "no such index"}, "status": 404}
    es_short = {"error": {"type": "es_rejected_execution_exception", "reason": "rejected"}, "status": 429}
    odata = {"error": {"code": "InvalidPasswordFormat", "message": "m", "target": "password"}}
    for obj in (es, es_short, odata):
        assert errconv.dialects.get("stripe").recognise(obj, None) == 0.0


def test_a_code_only_body_needs_a_stripe_code() -> None:
    assert errconv.dialects.get("stripe").recognise({"error": {"code": "SomethingElse"}}, None) == 0.0
    assert errconv.dialects.get("stripe").recognise({"error": {"code": "rate_limit", "target": "x"}}, None) == 0.0


def test_the_oauth_branch_is_still_read_when_named() -> None:
    # stripe-python reads {"error": "invalid_grant"} from Connect's OAuth endpoint; detection
    # leaves such bodies to other dialects (Stripe never claims a string `error`).
    assert errconv.dialects.get("stripe").recognise({"error": "invalid_grant"}, None) == 0.0
    fault = errconv.decode(b'{"error": "invalid_grant", "error_description": "bad code"}', "stripe", status=400)
    assert (fault.code, fault.detail) == ("invalid_grant", "bad code")


CAPTURES = [
    (f"stripe/{name}", REALWORLD / "stripe" / name, entry)
    for name, entry in json.loads((REALWORLD / "stripe" / "facts.json").read_text()).items()
]


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=[c[0] for c in CAPTURES])
def test_each_capture_is_detected_as_it_says(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    status = entry["facts"]["status"]
    fault = errconv.decode(path.read_bytes(), status=status) if path.suffix == ".json" and status else errconv.decode(path.read_bytes())
    origin = fault.origin
    assert (origin.body if origin.dialect == "http" else origin.dialect) == entry["expected_dialect"] == "stripe", key
