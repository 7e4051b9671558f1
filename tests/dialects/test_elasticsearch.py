"""elasticsearch: `{"error": {root_cause, type, reason, ...}, "status": N}` and the
legacy string form, told apart from Stripe's and Google's `{"error": {...}}`."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import NextStep

from .adhoc import bare, body as as_bytes, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response

NOT_FOUND = {
    "error": {
        "root_cause": [{"type": "index_not_found_exception", "reason": "no such index [test]", "index": "test"}],
        "type": "index_not_found_exception",
        "reason": "no such index [test]",
        "index": "test",
    },
    "status": 404,
}


def test_type_is_the_code_and_the_rest_is_kept() -> None:
    fault = bare(NOT_FOUND)
    assert fault.origin.dialect == "elasticsearch"
    assert (fault.status, fault.code, fault.detail, fault.next_step) == (404, "index_not_found_exception", "no such index [test]", NextStep.GIVE_UP)
    assert fault.extensions == {"root_cause": NOT_FOUND["error"]["root_cause"], "index": "test"}


def test_a_clash_between_error_and_top_level_members_keeps_both() -> None:
    body = {"error": {"type": "x_exception", "reason": "r", "took": 1}, "status": 400, "took": 2}
    fault = errconv.decode(as_bytes(body), "elasticsearch")
    assert fault.extensions == {"error": {"took": 1}, "took": 2}


@pytest.mark.parametrize(("status", "durability", "step"), [(429, None, NextStep.WAIT), (500, None, NextStep.WAIT), (503, "TRANSIENT", NextStep.WAIT), (429, "PERMANENT", NextStep.GIVE_UP)])
def test_circuit_breakers_wait_unless_permanent(status: int, durability: str | None, step: NextStep) -> None:
    error: dict[str, Any] = {"root_cause": [], "type": "circuit_breaking_exception", "reason": "[parent] Data too large", "bytes_wanted": 1, "bytes_limit": 1}
    if durability:
        error["durability"] = durability
    fault = response(status, {"error": error, "status": status})
    assert fault.next_step == step


def test_a_rejection_waits_also_as_a_root_cause_under_another_status() -> None:
    body = {"error": {"root_cause": [{"type": "es_rejected_execution_exception", "reason": "rejected execution"}], "type": "search_phase_execution_exception", "reason": "all shards failed"}, "status": 400}
    fault = bare(body)
    assert (fault.code, fault.next_step) == ("search_phase_execution_exception", NextStep.WAIT)
    assert "root cause" in fault.origin.next_step


def test_legacy_string_error() -> None:
    fault = bare({"error": "IndexMissingException[[search_database] missing]", "status": 404})
    assert (fault.origin.dialect, fault.code, fault.detail, fault.status) == ("elasticsearch", None, "IndexMissingException[[search_database] missing]", 404)


def test_the_wire_status_wins() -> None:
    fault = response(503, NOT_FOUND)
    assert fault.status == 503 and any("differs" in n for n in fault.origin.notes)


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        (NOT_FOUND, "elasticsearch"),
        ({"error": {"type": "mapper_parsing_exception", "reason": "failed to parse"}, "status": 400}, "elasticsearch"),
        # Stripe: a string type and its own members.
        ({"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined.", "decline_code": "generic_decline"}}, "stripe"),
        ({"error": {"type": "invalid_request_error", "message": "No such customer", "param": "id"}}, "stripe"),
        # Stripe-shaped with a top-level status but no reason: not Elasticsearch's.
        ({"error": {"type": "invalid_request_error", "message": "x"}, "status": 400}, "stripe"),
        # Google: code, message and a status name.
        ({"error": {"code": 404, "message": "Not found", "status": "NOT_FOUND"}}, "google"),
        ({"error": "Not Found", "status": 404}, "general"),  # an ad-hoc string, not ES's Exception[...]
    ],
)
def test_elasticsearch_stripe_and_google_are_told_apart(obj: dict[str, Any], want: str) -> None:
    assert detected(obj) == want
    assert detected(obj, status=404) == want


def test_elasticsearch_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="elasticsearch is read, not written"):
        errconv.encode(errconv.Fault.build(status=404, code="not_found"), "elasticsearch")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("elasticsearch")


@pytest.mark.parametrize(("key", "path", "entry"), captures("elasticsearch"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
