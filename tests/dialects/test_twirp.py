"""The `twirp` dialect: Twirp's `{"code", "msg", "meta"}` error, both ways.

Shapes from Twirp's PROTOCOL.md, docs/errors.md and errors.go (its HTTP table,
`malformed` and `bad_route`, `meta.argument`, the `retryable`/`retry_after` metadata
of its docs, the Go serializer's `type` fallback, the intermediary metadata its
clients add), detection against its look-alikes (Connect, problem, status-json),
encoding, round trips, bad input and the realworld captures' detection.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
import golden_corpus as gc
from errconv import Code, NextStep
from errconv.dialects import get
from errconv.dialects.twirp import CODE_FOR_WORD, HTTP_FOR_WORD, delay_seconds
from helpers import assert_same_except

TWIRP = get("twirp")
REALWORLD = pathlib.Path(__file__).resolve().parent.parent / "realworld"


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


def twirp(value: Any, **kw: Any) -> errconv.Fault:
    return errconv.decode(dumps(value), "twirp", **kw)


def http(status: int, body: bytes) -> bytes:
    return f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


# --------------------------------------------------------------------------- the tables


def test_the_http_table_is_errors_go_s() -> None:
    # twitchtv/twirp errors.go, ServerHTTPStatusFromErrorCode.
    assert HTTP_FOR_WORD == {
        "canceled": 408, "unknown": 500, "invalid_argument": 400, "malformed": 400, "deadline_exceeded": 408,
        "not_found": 404, "bad_route": 404, "already_exists": 409, "permission_denied": 403, "unauthenticated": 401,
        "resource_exhausted": 429, "failed_precondition": 412, "aborted": 409, "out_of_range": 400,
        "unimplemented": 501, "internal": 500, "unavailable": 503, "data_loss": 500,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("word", "grpc", "step"),
    [
        ("canceled", Code.CANCELLED, "give_up"),
        ("unknown", Code.UNKNOWN, "give_up"),
        ("invalid_argument", Code.INVALID_ARGUMENT, "fix_request"),
        ("malformed", Code.INVALID_ARGUMENT, "fix_request"),  # the message could not be decoded: send a good one
        ("deadline_exceeded", Code.DEADLINE_EXCEEDED, "wait"),
        ("not_found", Code.NOT_FOUND, "give_up"),
        ("bad_route", Code.UNIMPLEMENTED, "give_up"),  # no such method: never a missing entity
        ("already_exists", Code.ALREADY_EXISTS, "give_up"),
        ("permission_denied", Code.PERMISSION_DENIED, "give_up"),
        ("unauthenticated", Code.UNAUTHENTICATED, "give_up"),
        ("resource_exhausted", Code.RESOURCE_EXHAUSTED, "wait"),
        ("failed_precondition", Code.FAILED_PRECONDITION, "give_up"),
        ("aborted", Code.ABORTED, "wait"),
        ("out_of_range", Code.OUT_OF_RANGE, "fix_request"),
        ("unimplemented", Code.UNIMPLEMENTED, "give_up"),
        ("internal", Code.INTERNAL, "give_up"),
        ("unavailable", Code.UNAVAILABLE, "wait"),
        ("data_loss", Code.DATA_LOSS, "give_up"),
    ],
)
def test_each_code_row(word: str, grpc: int, step: str) -> None:
    assert CODE_FOR_WORD[word] == grpc
    fault = twirp({"code": word, "msg": "m"})
    assert (fault.grpc_code, fault.status, fault.code, fault.next_step) == (grpc, HTTP_FOR_WORD[word], word, step)
    assert {"code", "status"} <= set(fault.origin.inferred)  # Twirp's word, its table's status
    assert errconv.detect(dumps({"code": word, "msg": "m"})) == "twirp"


def test_the_spec_s_dataloss_spelling_is_read_as_data_loss() -> None:
    assert twirp({"code": "dataloss", "msg": "m"}).grpc_code == Code.DATA_LOSS


def test_v5_resource_exhausted_at_403_is_accepted_without_a_note() -> None:
    fault = errconv.decode(http(403, b'{"code":"resource_exhausted","msg":"slow down"}'))
    assert (fault.status, fault.next_step, fault.origin.notes) == (403, NextStep.WAIT, ())


def test_a_status_twirp_would_not_send_is_noted_and_http_wins() -> None:
    fault = errconv.decode(http(500, b'{"code":"not_found","msg":"no hat"}'))
    assert fault.status == 500 and fault.grpc_code == Code.NOT_FOUND
    assert any("404" in n for n in fault.origin.notes)


# --------------------------------------------------------------------------- meta


def test_meta_argument_is_the_param() -> None:
    # twirp.InvalidArgumentError("inches", "I can't make a hat that small!")
    fault = twirp({"code": "invalid_argument", "msg": "inches I can't make a hat that small!", "meta": {"argument": "inches"}})
    assert (fault.param, fault.next_step, fault.metadata) == ("inches", NextStep.FIX_REQUEST, {})


def test_the_docs_retryable_and_retry_after_give_a_wait() -> None:
    # docs/errors.md: Unavailable.Error("taking a nap ...").WithMeta("retryable", "true").WithMeta("retry_after", "15s")
    body = {"code": "unavailable", "msg": "taking a nap ...", "meta": {"retryable": "true", "retry_after": "15s"}}
    fault = twirp(body)
    assert (fault.next_step, fault.retry_after_seconds, fault.status) == (NextStep.WAIT, 15, 503)
    assert fault.metadata == {"retryable": "true"}  # kept: it is no field of errconv's
    assert "Twirp meta retry_after" in fault.origin.next_step


def test_retryable_alone_makes_a_wait_and_false_forbids_one() -> None:
    assert twirp({"code": "internal", "msg": "m", "meta": {"retryable": "true"}}).next_step == NextStep.WAIT
    fault = twirp({"code": "unavailable", "msg": "m", "meta": {"retryable": "false"}})
    assert fault.next_step == NextStep.GIVE_UP and "retryable: false" in fault.origin.next_step


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("15s", 15), ("1m30s", 90), ("1.5s", 2), ("500ms", 1), ("2h", 7200), ("30", 30), ("0.2", 1), ("48h", 86400)],
)
def test_retry_after_durations(text: str, seconds: int) -> None:
    assert delay_seconds(text) == seconds


@pytest.mark.parametrize("text", ["soon", "-5s", "", "15 s", "1d"])
def test_an_unreadable_retry_after_is_noted_not_guessed(text: str) -> None:
    fault = twirp({"code": "unavailable", "msg": "m", "meta": {"retry_after": text}})
    assert fault.retry_after_seconds is None and fault.next_step == NextStep.WAIT  # UNAVAILABLE still waits
    assert any("retry_after" in n for n in fault.origin.notes)


def test_meta_other_keys_are_metadata_and_odd_values_extensions() -> None:
    fault = twirp({"code": "permission_denied", "msg": "Thou shall not pass", "meta": {"target": "Balrog", "power": "999", "n": 5}})
    assert fault.metadata == {"target": "Balrog", "power": "999"}
    assert fault.extensions == {"meta": {"n": 5}}
    assert (fault.status, fault.detail) == (403, "Thou shall not pass")


def test_errconv_s_own_meta_keys_are_read_back() -> None:
    body = {"code": "failed_precondition", "msg": "Balance too low",
            "meta": {"code": "insufficient_funds", "domain": "pay.example", "next_step": "give_up",
                     "blocked_by": "balance", "unblock_with": "request_deposit", "status_code": "402"}}  # fmt: skip
    fault = twirp(body)
    assert (fault.code, fault.domain, fault.blocked_by, fault.unblock_with) == ("insufficient_funds", "pay.example", "balance", "request_deposit")
    assert (fault.status, fault.next_step, fault.origin.stated, fault.metadata) == (402, NextStep.GIVE_UP, True, {})


def test_an_intermediary_error_a_twirp_client_recorded_has_its_status() -> None:
    # docs/errors.md "HTTP Errors from Intermediary Proxies": the meta a Go client adds.
    body = {"code": "unavailable", "msg": "Error from intermediary with HTTP status code 503",
            "meta": {"http_error_from_intermediary": "true", "status_code": "502", "body": "<html>bad gateway</html>"}}  # fmt: skip
    fault = twirp(body)
    assert (fault.status, fault.grpc_code, fault.next_step) == (502, Code.UNAVAILABLE, NextStep.WAIT)
    assert fault.metadata == {"http_error_from_intermediary": "true", "body": "<html>bad gateway</html>"}


def test_an_unknown_next_step_in_meta_is_noted_and_dropped() -> None:
    fault = twirp({"code": "internal", "msg": "m", "meta": {"next_step": "pray"}})
    assert fault.next_step == NextStep.GIVE_UP and not fault.origin.stated and fault.metadata == {}
    assert any("pray" in n for n in fault.origin.notes)


# --------------------------------------------------------------------------- liberal shapes


def test_the_go_serializer_s_fallback_with_type_instead_of_code() -> None:
    # errors.go writes {"type": "internal", "msg": ...} when marshalling the error fails.
    body = {"type": "internal", "msg": "failed to marshal error"}
    fault = twirp(body)
    assert (fault.code, fault.grpc_code, fault.status) == ("internal", Code.INTERNAL, 500)
    assert errconv.detect(dumps(body)) == "twirp"


def test_a_code_outside_twirp_s_set_is_kept_and_the_status_decides() -> None:
    # twirp issue 233: an intermediary's `{"msg": "gateway rate limit", "code": "rate-limit"}`.
    fault = twirp({"msg": "gateway rate limit", "code": "rate-limit"}, status=429)
    assert (fault.code, fault.grpc_code, fault.next_step) == ("rate-limit", Code.RESOURCE_EXHAUSTED, NextStep.WAIT)
    assert "code" not in fault.origin.inferred


def test_members_twirp_does_not_define_are_extensions() -> None:
    fault = twirp({"code": "internal", "msg": "m", "trace_id": "t1", "meta": "oops"})
    assert fault.extensions == {"trace_id": "t1", "meta": "oops"}


def test_a_code_of_the_wrong_type_is_kept() -> None:
    fault = twirp({"code": 13, "msg": "m"}, status=500)
    assert fault.extensions == {"code": 13} and fault.grpc_code == Code.INTERNAL and fault.code is None


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("body", "dialect"),
    [
        ({"code": "not_found", "msg": "no such hat"}, "twirp"),
        ({"code": "not_found", "msg": "no such hat", "meta": {"id": "7"}}, "twirp"),
        ({"code": "not_found", "message": "no such hat"}, "connect"),
        ({"code": "not_found"}, "connect"),
        ({"type": "https://example.com/probs/x", "title": "Not found", "status": 404, "code": "not_found"}, "problem"),
        ({"code": 5, "message": "not found"}, "status-json"),
        ({"error": {"code": "not_found", "message": "m"}}, "connect"),
        ({"message": "Signature expired"}, "general"),
    ],
    ids=["twirp", "twirp-meta", "connect", "connect-code-only", "problem", "status-json", "connect-end-stream", "aws-gateway"],
)
def test_look_alikes_are_told_apart(body: Any, dialect: str) -> None:
    assert errconv.detect(dumps(body)) == dialect


@pytest.mark.parametrize(
    "body",
    [
        {"code": "not_found", "message": "m"},
        {"code": "not_found", "msg": "m", "detail": "x"},  # a member Twirp does not have
        {"code": "rate-limit", "msg": "m"},  # not a Twirp code
        {"code": 5, "msg": "m"},
        {"code": "not_found", "msg": 5},
        {"code": "not_found", "msg": "m", "meta": ["x"]},
        {"title": "x", "msg": "m"},
        {"error": {"code": "not_found", "msg": "m"}},
    ],
)
def test_twirp_claims_no_look_alike(body: Any) -> None:
    assert TWIRP.recognise(body, None) == 0


def test_twirp_claims_no_object_without_its_keys() -> None:
    for body in ({"code": "not_found", "msg": "m"}, {"type": "internal", "msg": "m"}, {"code": "internal", "msg": "m", "meta": {}}):
        stripped = {k: v for k, v in body.items() if k not in TWIRP.keys}
        assert TWIRP.recognise(stripped, None) == 0


def test_a_twirp_error_is_never_a_2xx() -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(http(200, b'{"code":"not_found","msg":"m"}'))


def test_no_golden_body_of_another_dialect_is_claimed_by_twirp() -> None:
    for case in gc.cases():
        for dialect in ("problem", "google", "status-json", "stripe", "connect"):
            value = json.loads((case / gc.FILES[dialect]).read_bytes())
            assert TWIRP.recognise(value, None) == 0, (case.name, dialect)


# --------------------------------------------------------------------------- encoding


def test_encoding_puts_the_agent_fields_in_meta_as_strings() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limited", domain="api.example.com", detail="60 per minute",
                                next_step="wait", retry_after_seconds=30, metadata={"plan": "free"})  # fmt: skip
    body = json.loads(errconv.encode(fault, "twirp"))
    assert body == {
        "code": "resource_exhausted",
        "msg": "60 per minute",
        "meta": {"plan": "free", "code": "rate_limited", "domain": "api.example.com", "next_step": "wait", "retry_after": "30s"},
    }
    assert all(type(v) is str for v in body["meta"].values())
    assert errconv.decode(errconv.encode(fault, "twirp"), "twirp") == fault


def test_param_goes_out_as_argument() -> None:
    fault = errconv.Fault.build(status=400, code="invalid_argument", param="inches", detail="too small")
    assert json.loads(errconv.encode(fault, "twirp")) == {
        "code": "invalid_argument", "msg": "too small", "meta": {"argument": "inches", "next_step": "fix_request"},
    }  # fmt: skip
    assert errconv.decode(errconv.encode(fault, "twirp"), "twirp") == fault


def test_twirp_s_own_codes_are_written_when_they_fit() -> None:
    for code, grpc in (("bad_route", Code.UNIMPLEMENTED), ("malformed", Code.INVALID_ARGUMENT)):
        fault = twirp({"code": code, "msg": "m"})
        assert json.loads(errconv.encode(fault, "twirp"))["code"] == code and fault.grpc_code == grpc
    # A code of another gRPC code is not a Twirp code for this one: it rides in meta.
    fault = errconv.Fault.build(status=404, grpc_code=Code.NOT_FOUND, code="bad_route", next_step="give_up")
    assert json.loads(errconv.encode(fault, "twirp"))["code"] == "not_found"


def test_a_bare_body_carries_a_status_its_code_does_not_give() -> None:
    fault = errconv.Fault.build(status=422, code="validation_failed", grpc_code=Code.INVALID_ARGUMENT, param="age")
    body = json.loads(errconv.encode(fault, "twirp"))
    assert body["meta"]["status_code"] == "422"
    assert errconv.decode(errconv.encode(fault, "twirp"), "twirp").status == 422
    # Inside HTTP the status line says it.
    response = errconv.to_http(fault, "twirp")
    assert response.status == 422 and "status_code" not in json.loads(response.body)["meta"]
    assert errconv.decode(bytes(response)) == fault


def test_what_twirp_cannot_carry_is_reported() -> None:
    from errconv import details as d

    fault = errconv.Fault.build(status=404, code="not_found", title="Not found", detail="no hat 7", type="https://example.com/p",
                                details=[d.ResourceInfo(resource_type="hat", resource_name="7")], extensions={"n": 1})  # fmt: skip
    assert set(errconv.losses(fault, "twirp")) == {"title", "type", "details.ResourceInfo", "extensions"}
    with pytest.raises(errconv.LossError):
        errconv.convert(errconv.encode(fault, "problem"), "twirp", "problem", strict=True)


@pytest.mark.parametrize("other", ["problem", "google", "status-json", "status", "connect", "stripe"])
def test_twirp_to_another_and_back_loses_only_what_the_other_loses(other: str) -> None:
    fault = twirp({"code": "unavailable", "msg": "taking a nap", "meta": {"retryable": "true", "retry_after": "15s"}})
    back = errconv.decode(errconv.encode(errconv.decode(errconv.encode(fault, other), other), "twirp"), "twirp")
    assert_same_except(back, fault, errconv.losses(fault, other))


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("data", [b"[]", b'"internal"', b"null", b"{", b"\xff", b""])
def test_bad_input_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(data, "twirp")


# --------------------------------------------------------------------------- the realworld captures


def _captures() -> list[tuple[str, dict[str, Any]]]:
    return sorted(json.loads((REALWORLD / "twirp" / "facts.json").read_text()).items())


@pytest.mark.parametrize(("name", "entry"), _captures(), ids=[n for n, _ in _captures()])
def test_each_twirp_capture_is_detected_as_it_says(name: str, entry: dict[str, Any]) -> None:
    data = (REALWORLD / "twirp" / name).read_bytes()
    status = entry["facts"]["status"]
    fault = errconv.decode(data) if name.endswith(".http") or status is None else errconv.decode(data, status=status)
    origin = fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect
    if entry["expected_dialect"] == "unknown":
        assert origin not in ("twirp", "connect")  # an intermediary's body, not Twirp's
    else:
        assert origin == entry["expected_dialect"] == "twirp"
