"""The general reader (issue 19): the vocabulary, prose and wire delays, the precedence of
evidence, the evidence recorded in Origin, its place in the registry and its limits.

The bodies here are written for the test, each to isolate one rule (the real ones are in
tests/realworld_open/, scored by test_realworld_open.py).
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
from errconv import _vocabulary as vocab
from errconv import dialects
from errconv._model.retry_after import prose_delay, read_retry_after, reset_delay
from errconv.dialects.general import FALLBACK, General, prose_param

NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z
DATE = "Fri, 15 Jan 2027 08:00:00 GMT"
JSON = [("Content-Type", "application/json")]


def body(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def http(status: int, obj: Any, headers: list[tuple[str, str]] | None = None) -> errconv.Fault:
    return errconv.from_http(status, JSON + (headers or []), body(obj), now=NOW)


# --------------------------------------------------------------------------- the vocabulary


@pytest.mark.parametrize(
    ("code", "row", "step"),
    [
        ("RATE_LIMIT_EXCEEDED", "rate limit", "wait"),
        ("rateLimited", "rate limit", "wait"),
        ("ThrottlingException", "rate limit", "wait"),
        ("too_many_requests", "rate limit", "wait"),
        ("server_overloaded", "overloaded", "wait"),
        ("model_loading", "overloaded", "wait"),
        ("UNDER_MAINTENANCE", "maintenance", "wait"),
        ("GatewayTimeout", "overloaded", "wait"),  # a gateway's: the upstream row first
        ("request_timeout", "timeout", "wait"),
        ("insufficient_funds", "insufficient funds", "give_up"),
        ("INSUFFICIENT_CREDIT", "insufficient funds", "give_up"),
        ("insufficient_quota", "insufficient funds", "give_up"),
        ("billing_hard_limit_reached", "billing", "give_up"),
        ("insufficient_storage", "out of space", "give_up"),
        ("invalid_parameter", "invalid request", "fix_request"),
        ("missing_required_field", "invalid request", "fix_request"),
        ("unauthorized", "unauthorized", "give_up"),
        ("invalid_api_key", "unauthorized", "give_up"),
        ("forbidden", "forbidden", "give_up"),
        ("PERMISSION_DENIED", "forbidden", "give_up"),
        ("token_expired", "expired credentials", "give_up"),
        ("resource_not_found", "not found", "give_up"),
        ("already_exists", "already exists", "fix_request"),
        ("DuplicateEntry", "already exists", "fix_request"),
        ("record_locked", "closed or locked", "give_up"),
        ("issue_closed", "closed or locked", "give_up"),
        ("edit_conflict", "conflict", "fix_request"),  # re-read, then send a request that fits
        ("operation_in_progress", "in progress", "wait"),
        ("BudgetExceeded", "billing", "give_up"),
        ("INTERNAL_ERROR", "internal error", "None"),  # the status decides
        ("PasswordPolicyViolation", "password policy", "fix_request"),
    ],
)
def test_the_code_vocabulary(code: str, row: str, step: str) -> None:
    meaning = vocab.meaning_of(vocab.words(code))
    assert meaning is not None and (meaning.name, str(meaning.step)) == (row, step), (code, meaning)


def test_time_members_and_jsend() -> None:
    assert http(429, {"message": "later", "retry_at": "2027-01-15T08:01:00Z"}).retry_after_seconds == 60
    assert http(429, {"message": "later", "reset_at": 1_800_000_005}).retry_after_seconds == 5
    fault = http(400, {"status": "fail", "data": {"title": "A title is required"}})
    assert (fault.param, fault.next_step) == ("title", "fix_request")


@pytest.mark.parametrize(
    ("text", "period", "step"),
    [
        ("quota exceeded per second", "short", "wait"),
        ("requests per minute quota exceeded", "short", "wait"),
        ("daily quota exceeded", "long", "give_up"),
        ("monthly usage cap reached", "long", "give_up"),
        ("quota of your free plan is spent", "plan", "give_up"),
        ("quota exceeded", None, None),
    ],
)
def test_periods_decide_a_quota(text: str, period: str | None, step: str | None) -> None:
    found = vocab.period_of(vocab.words(text))
    assert (found[0] if found else None, str(found[1]) if found else None) == (period, step)


def test_words_generic_codes_and_statuses_in_prose() -> None:
    assert vocab.words("rateLimitExceeded") == vocab.words("RATE_LIMIT_EXCEEDED") == "rate limit exceeded"
    assert vocab.words("HTTPError") == "http error"
    assert vocab.is_generic("BAD_REQUEST_ERROR") and vocab.is_generic("Not Found") and not vocab.is_generic("quota_exceeded")
    assert vocab.status_in_prose("404 Not Found") == 404
    assert vocab.status_in_prose("HTTP 503: Service Unavailable") == 503
    assert vocab.status_in_prose("404 files processed") is None and vocab.status_in_prose("Not Found") is None


def test_every_row_of_the_tables_has_a_comment_or_a_plain_name() -> None:
    # Rows are named; the module says why for the surprising ones (a test cannot read
    # intent, but it can hold the names unique so notes and explain stay unambiguous).
    names = [meaning.name for _, meaning in vocab.CODE_WORDS]
    assert len(names) >= 18
    assert {"rate limit", "quota", "insufficient funds", "billing", "out of space", "invalid request", "unauthorized",
            "forbidden", "expired credentials", "not found", "already exists", "closed or locked", "conflict",
            "maintenance", "timeout", "overloaded"} <= set(names)  # fmt: skip


# --------------------------------------------------------------------------- delays


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Too Many Requests: retry after 3", 3),
        ("Please retry after 2282 seconds", 2282),
        ("For security purposes, you can only request this after 49 seconds.", 49),
        ("Rate limit reached. Please try again in 20s.", 20),
        ("Rate limit reached, try again in 600ms", 1),
        ("Slow down: try again in 1.5 seconds", 2),
        ("Too many attempts, wait 5 minutes", 300),
        ("Please retry in 2 min", 120),
        ("retry_after=12", 12),
        ("Quota resets in 1 hour", 3600),
    ],
)
def test_prose_delays(text: str, seconds: int) -> None:
    found = prose_delay(text)
    assert found is not None and found[0] == seconds, (text, found)


@pytest.mark.parametrize(
    "text",
    ["The upload of 20 MB took 5 minutes", "Request timed out after 30 seconds", "Try again later", "Error 429", "in 5 m"],
)
def test_prose_without_a_delay(text: str) -> None:
    assert prose_delay(text) is None, text


@pytest.mark.parametrize(
    ("value", "seconds", "how"),
    [
        ("120", 120, "delay"),
        ("1.5", 2, "decimal"),
        ("0.2", 1, "decimal"),
        (DATE.replace("08:00:00", "08:00:45"), 45, "date"),
        ("1800000030", 30, "epoch"),
        ("1800000030000", 30, "epoch"),
        ("1799999000", 0, "epoch"),  # a past reset: no wait
        ("999999999", 86_400, "delay"),  # nine digits is a delay, within the cap
    ],
)
def test_retry_after_forms(value: str, seconds: int, how: str) -> None:
    assert read_retry_after(value, lambda: NOW) == (seconds, how)


def test_reset_headers_by_magnitude() -> None:
    assert reset_delay("60", lambda: NOW) == (60, "seconds")
    assert reset_delay("1800000060", lambda: NOW) == (60, "epoch")
    assert reset_delay("soon", lambda: NOW) is None


def test_a_retry_after_timestamp_is_measured_against_date_and_noted() -> None:
    with_date = errconv.from_http(429, [("Retry-After", "1800000030"), ("Date", DATE)], b"", now=0.0)
    assert with_date.retry_after_seconds == 30
    assert any("Unix timestamp" in n and "Date header" in n for n in with_date.origin.notes)
    without = errconv.from_http(429, [("Retry-After", "1800000030")], b"", now=NOW - 10)
    assert without.retry_after_seconds == 40 and any("the clock" in n for n in without.origin.notes)
    # Not a delay of a day, as it was read before (a 10-digit delay-seconds, capped).
    assert errconv.from_http(429, [("Retry-After", "1800000030"), ("Date", DATE)], b"").retry_after_seconds == 30


def test_a_reset_header_on_a_429_without_remaining() -> None:
    fault = http(429, {"message": "slow down"}, [("X-RateLimit-Reset", "1800000090"), ("Date", DATE)])
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", 90)
    assert ("retry_after_seconds", "header x-ratelimit-reset") in fault.origin.evidence
    relative = http(429, {"message": "slow down"}, [("X-Rate-Limit-Reset", "12")])
    assert relative.retry_after_seconds == 12
    # Whatever reads the body (here none: no body at all), a 429's reset is its delay.
    empty = errconv.from_http(429, [("RateLimit-Reset", "7")], b"")
    assert (empty.next_step, empty.retry_after_seconds) == ("wait", 7) and any("read as seconds" in n for n in empty.origin.notes)
    # On another status a reset says nothing about this failure.
    assert http(404, {"message": "no such page"}, [("X-RateLimit-Reset", "12")]).retry_after_seconds is None


# --------------------------------------------------------------------------- what the issue found missed


def test_a_stated_status_under_another_name() -> None:
    assert errconv.decode(body({"statusCode": 503, "message": "upstream down"})).status == 503
    fault = errconv.decode(body({"ok": False, "error_code": 429, "description": "Too Many Requests"}))
    assert (fault.status, fault.code, fault.next_step) == (429, None, "wait")  # a mirrored status is no code
    assert "status" not in fault.origin.inferred
    assert errconv.decode(body({"status": "404", "message": "gone fishing"})).status == 404  # a number as a string


@pytest.mark.parametrize(
    ("obj", "code"),
    [
        ({"errorCode": "E_QUOTA", "message": "m"}, "E_QUOTA"),
        ({"error_code": "card_declined", "message": "m"}, "card_declined"),
        ({"errorType": "ValidationError", "message": "m"}, "ValidationError"),
        ({"name": "NotFoundError", "message": "m"}, "NotFoundError"),
        ({"errors": [{"code": "MANIFEST_UNKNOWN", "message": "m"}]}, "MANIFEST_UNKNOWN"),
        ({"error": {"code": 1101, "description": "m"}}, "1101"),  # with "message" it is Google's
        ([{"code": "too_many", "message": "m"}], "too_many"),
        ({"error": "rate_limit_exceeded"}, "rate_limit_exceeded"),
    ],
)
def test_codes_under_other_names(obj: Any, code: str) -> None:
    fault = http(400, obj)
    assert (fault.origin.body, fault.code) == ("general", code)
    assert any(fact == "code" for fact, _ in fault.origin.evidence)


@pytest.mark.parametrize(
    ("obj", "seconds"),
    [
        ({"message": "slow", "retry_after": 7}, 7),
        ({"message": "slow", "retryAfter": "8"}, 8),
        ({"error": "Model x is currently loading", "estimated_time": 20.2}, 21),
        ({"description": "flood", "parameters": {"retry_after": 9}}, 9),
        ({"error": {"message": "slow", "retry_after_ms": 1500}}, 2),
        ({"message": "Too many requests, try again in 20s"}, 20),
    ],
)
def test_delays_under_other_names_and_in_prose(obj: Any, seconds: int) -> None:
    fault = http(429, obj)
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", seconds)


@pytest.mark.parametrize(
    ("status", "obj", "step"),
    [
        (429, {"code": "monthly_usage_cap_exceeded", "message": "the cap for this month is spent"}, "give_up"),
        (409, {"code": "E409", "message": "insufficient space on the volume"}, "give_up"),
        (400, {"code": "RATE_LIMITED", "message": "slow"}, "wait"),
        (403, {"code": "password_policy_violation", "message": "too short"}, "fix_request"),
        (400, {"message": "permission denied"}, "give_up"),
        (422, {"message": "This record is closed"}, "give_up"),
    ],
)
def test_the_body_over_the_status(status: int, obj: Any, step: str) -> None:
    assert http(status, obj).next_step == step


def test_errors_as_a_string_and_maps_keyed_by_field() -> None:
    text = http(429, {"errors": "Exceeded 4 calls per second for api client."})
    assert (text.next_step, text.param, text.detail) == ("wait", None, "Exceeded 4 calls per second for api client.")
    fields = http(400, {"message": "invalid", "details": {"name": ["is required"], "age": ["must be positive"]}})
    assert fields.param == "name" and [(v.field, v.description) for v in fields.violations] == [("name", "is required"), ("age", "must be positive")]
    listed = http(400, {"errors": [{"field": "email", "message": "bad", "code": "invalid"}]})
    assert (listed.param, listed.violations[0].reason) == ("email", "invalid")


def test_parameters_named_in_prose() -> None:
    assert prose_param("Error in `inputs.context`: field required") == "inputs.context"
    assert prose_param("Missing required parameter: api_version") == "api_version"
    assert prose_param("messages: invalid type: string, expected a sequence") == "messages"
    assert prose_param("Something went wrong") is None


# --------------------------------------------------------------------------- precedence and evidence


def test_a_stated_next_step_wins_and_the_loser_is_noted() -> None:
    fault = http(429, {"code": "rate_limited", "nextStep": "give_up"})  # (`next_step` marks a problem body)
    assert fault.next_step == "give_up" and fault.origin.stated
    assert any("rate limit" in n and "stated" in n for n in fault.origin.notes)


def test_retryable_false_forbids_a_wait() -> None:
    assert http(503, {"code": "overloaded", "retryable": False}).next_step == "give_up"
    assert http(400, {"code": "x1", "retryable": True}).next_step == "wait"


def test_a_code_over_a_wire_wait_is_noted() -> None:
    fault = http(429, {"code": "insufficient_funds"}, [("Retry-After", "30")])
    assert (fault.next_step, fault.retry_after_seconds) == ("give_up", None)
    assert any("Retry-After says wait" in n for n in fault.origin.notes)


def test_message_words_never_override_a_wire_wait() -> None:
    fault = http(503, {"message": "permission denied"}, [("Retry-After", "5")])
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", 5)
    assert any("Retry-After says wait and wins" in n for n in fault.origin.notes)


def test_an_inferred_status_is_marked_inferred() -> None:
    fault = errconv.decode(body({"error": {"code": "rate_limit_exceeded", "description": "slow"}}))  # (with a message: OData's)
    assert (fault.status, fault.next_step) == (429, "wait") and "status" in fault.origin.inferred
    assert ("status", "inferred from code 'rate_limit_exceeded' at /error/code (rate limit)") in fault.origin.evidence
    nothing = errconv.decode(body({"error": {"code": "E77", "description": "odd"}}))
    assert nothing.status == 500 and "status" in nothing.origin.inferred and nothing.origin.notes


def test_each_fact_records_where_it_came_from() -> None:
    fault = http(429, {"error": {"code": "slow_down", "description": "easy", "field": "q", "retry_after": 3}})
    evidence = dict(fault.origin.evidence)
    assert evidence["code"] == "/error/code" and evidence["param"] == "/error/field"
    assert evidence["retry_after_seconds"] == "/error/retry_after" and evidence["detail"] == "/error/description"
    assert evidence["status"] == "the HTTP status line" and evidence["next_step"].startswith("inferred from code")


def test_text_bodies_are_read_for_their_prose() -> None:
    fault = errconv.from_http(429, [("Content-Type", "text/plain")], b"Rate limited. Please retry after 42 seconds.")
    assert (fault.origin.body, fault.retry_after_seconds) == ("general", 42)
    page = b"<html><head><title>Insufficient Storage</title></head><body>out of disk space</body></html>"
    assert errconv.from_http(503, [("Content-Type", "text/html")], page).next_step == "give_up"
    # Prose that says no more than the status stays vague.
    assert errconv.from_http(502, [("Content-Type", "text/html")], b"<h1>502 Bad Gateway</h1>").origin.body == "vague"


def test_unknown_members_are_kept() -> None:
    fault = http(418, {"message": "short and stout", "teapot": {"spout": True}})
    assert fault.extensions == {"teapot": {"spout": True}}


# --------------------------------------------------------------------------- registry, limits, hot path


def test_it_is_in_the_registry_last_and_below_every_claim() -> None:
    general = dialects.get("general")
    assert isinstance(general, General) and not general.encodes
    assert [d.name for d in dialects.ranked()][-1] == "general"
    assert general.ceiling == FALLBACK < dialects.WEAK
    with pytest.raises(errconv.ErrconvError):
        errconv.encode(errconv.Fault.build(status=404), "general")


def test_bare_json_is_claimed_only_when_it_looks_like_an_error() -> None:
    with pytest.raises(errconv.DecodeError, match="no dialect recognises"):
        errconv.decode(b'{"description": "a settings file", "losses": {}}')
    with pytest.raises(errconv.DecodeError, match="cannot tell the dialect"):
        errconv.decode(b"hello, world")  # text without a status is nobody's, unless it is an error's prose
    line = errconv.decode(b"Rate limit exceeded. Retry after 30 seconds")
    assert (line.origin.dialect, line.status, line.next_step, line.retry_after_seconds) == ("general", 429, "wait", 30)
    assert "status" in line.origin.inferred
    assert errconv.decode(b"404 Not Found").status == 404
    assert errconv.decode(b'{"msg": "x", "code": 5000}').origin.dialect == "general"


def test_limits_bind_it() -> None:
    small = errconv.Limits(max_violations=2)
    many = {"message": "bad", "errors": [{"field": f"f{i}", "message": "m"} for i in range(3)]}
    with pytest.raises(errconv.DecodeError, match="max_violations"):
        errconv.from_http(400, JSON, body(many), limits=small)
    deep: Any = 1
    for _ in range(40):
        deep = {"x": deep}
    with pytest.raises(errconv.DecodeError):
        errconv.from_http(400, JSON, body({"message": "m", "extra": deep}))
    with pytest.raises(errconv.DecodeError, match="max_bytes"):
        errconv.from_http(400, JSON, b'{"message": "' + b"x" * 2000 + b'"}', limits=errconv.Limits(max_bytes=1000))


REALWORLD = pathlib.Path(__file__).resolve().parents[1] / "realworld"
SHAPE_ONLY = {"github/secondary-rate-limit-retry-after-60-403.http", "google_cloud/v1-errors-as-strings.json", "drf/authentication-failed-bad-credentials-403.json"}  # read as their shape (test_realworld.py)


def test_a_body_a_dialect_claims_never_pays_for_the_general_reader() -> None:
    calls: list[str] = []

    inner = dialects.get("general")

    class Counting(dialects.Dialect):
        """The general reader, counted. It delegates rather than subclasses General: a
        compiled build's classes take no interpreted subclass."""

        name = inner.name
        keys = inner.keys
        ceiling = inner.ceiling
        media_type = inner.media_type
        encodes = inner.encodes
        precedence = inner.precedence
        listed = inner.listed

        def non_json(self, body: bytes, http: Any) -> bytes | None:
            return inner.non_json(body, http)

        def recognise(self, value: Any, http: Any) -> float:
            calls.append("recognise")
            return inner.recognise(value, http)

        def decode(self, value: Any, reading: Any) -> errconv.Fault:
            calls.append("decode")
            return inner.decode(value, reading)

    original = dialects.get("general")
    dialects.register_dialect(Counting(), replace=True)
    try:
        read = 0
        for facts in sorted(REALWORLD.glob("*/facts.json")):
            for name, entry in json.loads(facts.read_text()).items():
                if entry["expected_dialect"] == "unknown" or f"{facts.parent.name}/{name}" in SHAPE_ONLY:
                    continue
                data = (facts.parent / name).read_bytes()
                status = entry["facts"]["status"]
                if name.endswith(".http") or status is None:
                    errconv.decode(data, now=NOW)
                else:
                    errconv.decode(data, status=status, now=NOW)
                read += 1
        assert read > 250 and calls == [], calls[:5]
    finally:
        dialects.register_dialect(original, replace=True)


def test_no_capture_a_dialect_reads_changes_dialect() -> None:
    # The general reader reads only captures no vendor dialect is expected to (tests/realworld
    # calls them `unknown`: five bodies of shared member names that problem's liberal reading
    # took before issue 19); every other capture is read by the dialect its facts name
    # (test_realworld.py holds which).
    for facts in sorted(REALWORLD.glob("*/facts.json")):
        for name, entry in json.loads(facts.read_text()).items():
            data = (facts.parent / name).read_bytes()
            status = entry["facts"]["status"]
            fault = errconv.decode(data, now=NOW) if name.endswith(".http") or status is None else errconv.decode(data, status=status, now=NOW)
            read_as = fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect
            if read_as == "general":
                assert entry["expected_dialect"] == "unknown" or f"{facts.parent.name}/{name}" in SHAPE_ONLY, name
