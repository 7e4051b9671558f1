"""Regression tests for every crash, hang and leak the fuzzing found (issue 4).

Each test names the input that broke errconv before the fix. The safety net that turns
stray exceptions into DecodeError is off here: these inputs must be handled by the
codecs themselves.
"""

from __future__ import annotations

import base64
import io
import re
import time
from typing import Any

import msgspec
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2 as ed
from google.rpc import status_pb2

import errconv
from errconv._pipeline import api as _api
from errconv import _cli as cli
from errconv.details import BadRequest, DebugInfo, FieldViolation, Help, Link, RawDetail, RequestInfo, RetryInfo
from errconv.dialects._trailers import percent_decode, percent_encode, trailers_for
from errconv._model.limits import DEFAULT_LIMITS, MAX_RETRY_AFTER_SECONDS
from errconv._proto.errconv.v1 import problem_pb2

NOW = 1_800_000_000.0
T = "type.googleapis.com/"


@pytest.fixture(autouse=True)
def _no_safety_net() -> Any:
    _api._SAFETY_NET = False
    yield
    _api._SAFETY_NET = True


def timed(data: Any, dialect: str | None, limits: errconv.Limits = DEFAULT_LIMITS) -> tuple[Any, float]:
    """decode's Fault or DecodeError, and the seconds it took."""
    start = time.perf_counter()
    try:
        result: Any = errconv.decode(data, dialect, limits=limits, now=NOW)
    except errconv.DecodeError as exc:
        result = exc
    return result, time.perf_counter() - start


def http(head: bytes, body: bytes = b"", status: bytes = b"HTTP/1.1 429 Too Many Requests") -> bytes:
    return status + b"\r\n" + head + b"\r\n\r\n" + body


def status_bytes(*anys: tuple[str, bytes], code: int = 8, message: str = "m") -> bytes:
    from google.protobuf import any_pb2

    details = [any_pb2.Any(type_url=T + name, value=value) for name, value in anys]
    return status_pb2.Status(code=code, message=message, details=details).SerializeToString()


def trailers(fault: errconv.Fault, limits: errconv.Limits = DEFAULT_LIMITS) -> list[tuple[str, Any]]:
    """The whole trailers for `fault` as grpcio's peer sees them: grpc-status, grpc-message, the metadata."""
    code, message, metadata = trailers_for(fault, limits=limits)
    head: list[tuple[str, Any]] = [("grpc-status", str(code))]
    if message:
        head.append(("grpc-message", percent_encode(message)))
    return [*head, *metadata]


def round_trips(fault: errconv.Fault) -> None:
    """Every encoder writes `fault`, and its decoder reads the same Fault minus its losses."""
    from helpers import assert_same_except

    roomy = errconv.Limits(max_bytes=1 << 30, max_details=1 << 20, max_violations=1 << 20)
    for dialect in [name for name in errconv.dialect_names() if errconv.dialects.get(name).encodes]:
        out = errconv.encode(fault, dialect)
        back = errconv.decode(out, "http" if dialect.startswith("http") else dialect, limits=roomy, now=NOW)
        assert_same_except(back, fault, errconv.losses(fault, dialect))


# --------------------------------------------------------------------------- hangs (quadratic paths)

HANGS = {
    # 15 s before: each interim block re-sliced and re-searched the rest of the input.
    "interim responses": (http(b"Content-Type: text/plain", b"x", b"HTTP/1.1 100 Continue\n\n" * 40_000 + b"HTTP/1.1 429 X"), "http"),
    # 6 s before: every obs-fold line rebuilt the whole header value.
    "obs-fold lines": (http(b"X-Fold: a" + b"\r\n b" * 250_000), "http"),
    # 4.9 s before: the title pattern was retried, 2000 characters deep, at every "<title".
    "repeated <title>": (http(b"Content-Type: text/html", b"<title>" * 140_000), "http"),
    # Seconds before: <[^>]{0,2000}> rescanned 2000 characters after every "<".
    "runs of <": (http(b"Content-Type: text/html", b"<" * 900_000), "http"),
    "unclosed tags": (http(b"Content-Type: text/html", b"<a " * 300_000), "http"),
    # 4.6 s before: base64 parts were joined with += (quadratic).
    "comma-split base64": (b"grpc-status: 8\ngrpc-status-details-bin: " + b",".join([b"QUFB"] * 200_000), "grpc"),
    "long %-runs": (b"grpc-status: 8\ngrpc-message: " + b"%41" * 300_000, "grpc"),
    "deep JSON": (b"[" * 500_000, "problem"),
    "deep object": (b'{"a":' * 200_000, "google"),
    "4300-digit number": (b'{"status": 429, "x": ' + b"9" * 4300 + b"}", "problem"),
    "many details": (b'{"error":{"code":429,"details":[' + b",".join([b'{"@type":"x"}'] * 60_000) + b"]}}", "google"),
    "many violations": (b'{"status":400,"errors":[' + b",".join([b'{"field":"a"}'] * 70_000) + b"]}", "problem"),
    "long header line": (http(b"X-Long: " + b"v" * 900_000), "http"),
    # Found by the long run, over half an hour before: detection's ^\s*grpc-status (multiline)
    # rescanned a run of newlines from every line start.
    "runs of newlines": (b"x" + b"\n" * 1_000_000, None),
    "runs of whitespace lines": (b"x" + b" \t\r\n" * 250_000, None),
}


@pytest.mark.parametrize("name", list(HANGS))
def test_pathological_inputs_cost_linear_time(name: str) -> None:
    data, dialect = HANGS[name]
    assert len(data) <= DEFAULT_LIMITS.max_bytes
    for d in (dialect, None):
        result, elapsed = timed(data, d)
        assert isinstance(result, (errconv.Fault, errconv.DecodeError))
        assert elapsed < 1.5, f"{name} as {d}: {elapsed:.2f}s for {len(data)} bytes"


def test_interim_responses_are_bounded_and_a_few_still_read() -> None:
    two = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n\r\n" + http(b"Retry-After: 5", status=b"HTTP/1.1 503 Unavailable")
    assert errconv.decode(two, "http").retry_after_seconds == 5
    many = b"HTTP/1.1 100 Continue\r\n\r\n" * 9 + http(b"Retry-After: 5")
    with pytest.raises(errconv.DecodeError, match="interim"):
        errconv.decode(many, "http")


# --------------------------------------------------------------------------- crashes and wrong answers


@pytest.mark.parametrize("status", [b"000", b"099", b"600", b"999"])
def test_a_status_outside_100_to_599_is_no_http_response(status: bytes) -> None:
    # Before: status 0 was decoded, and http+ then wrote `HTTP/1.1 0 Unknown`, which it cannot read.
    with pytest.raises(errconv.DecodeError, match="outside 100..599"):
        errconv.decode(http(b"Retry-After: 5", status=b"HTTP/1.1 " + status + b" X"), "http")


def test_a_year_0000_retry_after_is_ignored_not_fatal() -> None:
    # Before: calendar raised ValueError ("year 0 is out of range") out of the decoder.
    fault = errconv.decode(http(b"Retry-After: Sun Nov  6 08:49:37 0000"), "http", now=NOW)
    assert fault.next_step == "wait" and fault.retry_after_seconds is None
    assert any("Retry-After" in n for n in fault.origin.notes)


@pytest.mark.parametrize(
    "header",
    [b"grpc-status: \xb2", b"RateLimit: a;r=0;t=\xb2", b"X-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: \xb2", b"Retry-After: \xb3"],
)
def test_unicode_digits_in_headers_are_not_numbers(header: bytes) -> None:
    # Before: "²".isdigit() is true and int("²") raises ValueError.
    fault = errconv.decode(http(header, status=b"HTTP/1.1 400 Bad Request"), "http")
    assert fault.status == 400 and fault.grpc_code == errconv.Code.INVALID_ARGUMENT


@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "\uff18", "8\u00b2"])
def test_unicode_digits_in_grpc_status_are_unknown(value: str) -> None:
    assert errconv.decode([("grpc-status", value)], "grpc").grpc_code == errconv.Code.UNKNOWN


@pytest.mark.parametrize(
    "data",
    ["{\"status\": 400, \"detail\": \"\ud800\"}", "HTTP/1.1 400 X\r\n\r\n\ud800", "grpc-status: 3\ngrpc-message: \ud800"],
)
def test_text_with_a_lone_surrogate_is_a_decode_error_or_read(data: str) -> None:
    # Before: detection raised UnicodeEncodeError out of decode() (it ran outside the guard).
    for dialect in (None, "problem", "http", "grpc", "google"):
        result, _ = timed(data, dialect)
        assert isinstance(result, (errconv.Fault, errconv.DecodeError))


def test_bytes_smuggled_in_text_read_as_bytes() -> None:
    raw = http(b"Content-Type: text/plain", "caf\u00e9".encode())
    assert errconv.decode(raw.decode("utf-8", "surrogateescape"), "http").detail == "caf\u00e9"


def test_a_number_no_double_holds_is_a_decode_error() -> None:
    # Before: decoded, and then every google.rpc encoder raised OverflowError on it.
    for digits in (309, 4300):
        with pytest.raises(errconv.DecodeError, match="out of range"):
            errconv.decode(b'{"status": 400, "x": ' + b"9" * digits + b"}", "problem")
    big = errconv.decode(b'{"status": 400, "x": 18446744073709551616}', "problem")
    assert big.extensions == {"x": 2**64}
    round_trips(big)


def test_a_stripe_body_with_details_or_status_members_stays_stripe() -> None:
    # Before: Google's detector took it (a `details` list), and the google decoder then failed.
    body = b'{"error":{"type":"card_error","code":"card_declined","status":"x","details":[5]}}'
    assert errconv.detect(body) == "stripe"
    fault = errconv.decode(body)
    assert fault.extensions == {"status": "x", "details": [5]}
    assert errconv.decode(errconv.encode(fault, "http+stripe"), "http") == fault


def test_a_huge_retry_info_in_problem_details_is_capped() -> None:
    # Before: 10**11 seconds went into the body while Retry-After said a day.
    body = b'{"status":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"100000000000s"}]}'
    fault = errconv.decode(body, "problem")
    assert fault.retry_after_seconds == MAX_RETRY_AFTER_SECONDS
    assert b"Retry-After: 86400\r\n" in errconv.encode(fault, "http+problem")
    # Past google.protobuf.Duration's range it is no RetryInfo at all, and is kept as it came.
    beyond = errconv.decode(body.replace(b"100000000000s", b"1000000000000000s"), "problem")
    assert beyond.retry_after_seconds is None and isinstance(beyond.details[0], RawDetail)


@pytest.mark.parametrize(
    "detail",
    [
        {"@type": T + "google.rpc.RetryInfo", "retryDelay": "99999999999999999999s"},  # past Duration's range
        {"@type": T + "google.rpc.RetryInfo", "retryDelay": "\u00b2s"},
        {"@type": T + "google.rpc.QuotaFailure", "violations": [{"quotaValue": "99999999999999999999"}]},
        {"@type": T + "google.rpc.QuotaFailure", "violations": [{"futureQuotaValue": 2**64}]},
        {"@type": T + "google.rpc.QuotaFailure", "violations": [{"quotaValue": "--5"}]},
        {"@type": T + "google.rpc.QuotaFailure", "violations": [{"quotaValue": "\u00b2"}]},
        {"@type": T + "errconv.v1.Problem", "httpStatus": 99999},
        {"@type": T + "errconv.v1.Problem", "httpStatus": 2**40},
        {"@type": T + "errconv.v1.Problem", "httpStatus": -1},
    ],
)
def test_out_of_range_json_details_are_kept_whole_and_encode(detail: dict[str, Any]) -> None:
    # Before: read as typed values that no protobuf encoder could write (int64, int32 and
    # Duration overflow), or an HTTP status of 99999 that http+ wrote on its status line.
    body = {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [
        {"@type": T + "google.rpc.RetryInfo", "retryDelay": "5s"}, detail]}}  # fmt: skip
    fault = errconv.decode(msgspec.json.encode(body), "google")
    assert 100 <= fault.status <= 599
    assert RawDetail(type_url=detail["@type"], fields={k: v for k, v in detail.items() if k != "@type"}) in fault.details
    round_trips(fault)


@pytest.mark.parametrize(
    "name, message",
    [
        ("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=duration_pb2.Duration(seconds=2**62))),
        ("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=duration_pb2.Duration(seconds=2**63 - 1, nanos=999_999_999))),
        ("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=duration_pb2.Duration(seconds=5, nanos=-1))),
        ("errconv.v1.Problem", problem_pb2.Problem(http_status=99999)),
        ("errconv.v1.Problem", problem_pb2.Problem(http_status=42)),
    ],
)
def test_out_of_range_packed_details_are_kept_raw(name: str, message: Any) -> None:
    value = message.SerializeToString()
    data = status_bytes(("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=duration_pb2.Duration(seconds=5)).SerializeToString()), (name, value))
    fault = errconv.decode(data, "status")
    assert fault.retry_after_seconds == 5 and 100 <= fault.status <= 599
    assert RawDetail(type_url=T + name, value=value) in fault.details
    round_trips(fault)


def test_deep_unknown_members_of_a_google_error_are_refused() -> None:
    # Before: kept as extensions 900 levels deep; the Status encoder then hit RecursionError.
    body = b'{"error":{"code":400,"message":"m","x":' + b"[" * 900 + b"]" * 900 + b"}}"
    with pytest.raises(errconv.DecodeError, match="max_depth"):
        errconv.decode(body, "google")


def test_an_unreadable_next_step_in_error_info_does_not_stick_in_metadata() -> None:
    # Before: kept in metadata, where the encoder wrote the fault's own step over it.
    info = ed.ErrorInfo(reason="R_X", metadata={"next_step": "bogus", "k": "v"}).SerializeToString()
    fault = errconv.decode(status_bytes(("google.rpc.ErrorInfo", info), code=14), "status")
    assert fault.metadata == {"k": "v"} and fault.next_step == "wait"
    assert errconv.decode(errconv.encode(fault, "status"), "status") == fault


def test_problem_metadata_with_a_field_name_stays_an_extension() -> None:
    body = b'{"status":400,"param":"a","metadata":{"param":"b","k":"v"}}'
    fault = errconv.decode(body, "problem")
    assert fault.metadata == {} and fault.extensions == {"metadata": {"param": "b", "k": "v"}}
    round_trips(fault)


def test_a_bad_at_bytes_member_keeps_the_detail_whole() -> None:
    body = b'{"error":{"code":400,"details":[{"@type":"type.googleapis.com/acme.Blob","@bytes":" !"}]}}'
    fault = errconv.decode(body, "google")
    assert fault.details == (RawDetail(type_url=T + "acme.Blob", fields={"@bytes": " !"}),)


def test_metadata_from_a_status_comes_out_in_one_order() -> None:
    # Before: the order of protobuf's map (a hash table) leaked into every JSON output.
    info = ed.ErrorInfo(reason="R_X", metadata={k: "v" for k in ("zeta", "alpha", "mid", "beta")}).SerializeToString()
    fault = errconv.decode(status_bytes(("google.rpc.ErrorInfo", info)), "status")
    assert list(fault.metadata) == ["alpha", "beta", "mid", "zeta"]


# --------------------------------------------------------------------------- limits


def test_limits_have_safe_defaults() -> None:
    limits = errconv.Limits()
    assert (limits.max_bytes, limits.max_depth, limits.max_details, limits.max_violations) == (1 << 20, 32, 64, 256)
    assert (limits.max_string, limits.max_header, limits.max_trailer_bytes) == (65_536, 8_192, 8_192)


def test_max_bytes() -> None:
    body = b'{"status":400,"detail":"' + b"x" * 2000 + b'"}'
    with pytest.raises(errconv.DecodeError, match="max_bytes"):
        errconv.decode(body, "problem", limits=errconv.Limits(max_bytes=1000))
    pairs = [("grpc-status", "8"), ("grpc-message", "x" * 2000)]
    with pytest.raises(errconv.DecodeError, match="max_bytes"):
        errconv.decode(pairs, "grpc", limits=errconv.Limits(max_bytes=1000))  # before: pairs had no bound


def test_max_string() -> None:
    body = b'{"status":400,"detail":"' + b"x" * 70_000 + b'"}'
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.decode(body, "problem")
    assert len(errconv.decode(body, "problem", limits=errconv.Limits(max_string=70_000)).detail) == 70_000
    nested = b'{"status":400,"x":{"k":["' + b"y" * 70_000 + b'"]}}'
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.decode(nested)
    key = b'{"status":400,"x":{"' + b"k" * 70_000 + b'":1}}'
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.decode(key)


def test_max_header() -> None:
    data = http(b"Request-Id: " + b"r" * 9000)
    with pytest.raises(errconv.DecodeError, match="max_header"):
        errconv.decode(data, "http")
    assert errconv.decode(data, "http", limits=errconv.Limits(max_header=10_000)).details[0].request_id == "r" * 9000


def test_max_depth() -> None:
    ok = b'{"status":400,"x":' + b"[" * 31 + b"]" * 31 + b"}"
    deep = b'{"status":400,"x":' + b"[" * 32 + b"]" * 32 + b"}"
    assert errconv.decode(ok, "problem")
    with pytest.raises(errconv.DecodeError, match="max_depth"):
        errconv.decode(deep, "problem")


def test_max_details() -> None:
    # A Status may hold four more, for the fault's own fields: errconv reads back what it wrote.
    own = [{"@type": T + "google.rpc.ErrorInfo"}, {"@type": T + "google.rpc.RetryInfo", "retryDelay": "1s"},
           {"@type": T + "google.rpc.BadRequest"}, {"@type": T + "errconv.v1.Problem", "title": "t"}]  # fmt: skip
    for n, ok in ((64, True), (65, False)):
        for data, dialect in (
            (msgspec.json.encode({"error": {"code": 400, "details": own + [{"@type": "x"}] * n}}), "google"),
            (msgspec.json.encode({"code": 3, "details": own + [{"@type": "x"}] * n}), "status-json"),
        ):
            result, _ = timed(data, dialect)
            assert isinstance(result, errconv.Fault) == ok, (dialect, n, result)
            if not ok:
                assert "max_details" in str(result)
    with pytest.raises(errconv.DecodeError, match="max_details"):
        errconv.decode(msgspec.json.encode({"status": 400, "details": [{"@type": "x"}] * 65}), "problem")
    # Found by the long run: 67 details besides an ErrorInfo in a Status are too many for a fault.
    with pytest.raises(errconv.DecodeError, match="max_details"):
        errconv.decode(status_bytes(*[("google.rpc.Help", b"")] * 65), "status")
    # Found by the long run: 64 details, at the limit, came back from google as 66 entries.
    fault = errconv.decode(msgspec.json.encode({"status": 400, "details": [{"@type": "x", "n": i} for i in range(64)]}), "problem")
    for dialect in ("google", "status-json", "status", "grpc"):
        out = errconv.encode(fault, dialect, limits=errconv.Limits(max_trailer_bytes=1 << 20))
        assert errconv.decode(out, dialect).details == fault.details


def test_max_violations_covers_every_list_of_violations() -> None:
    # Before: only problem's `errors` was counted; a BadRequest could hold any number.
    fvs = [{"field": "a"}] * 257
    for detail in (
        {"@type": T + "google.rpc.BadRequest", "fieldViolations": fvs},
        {"@type": T + "google.rpc.QuotaFailure", "violations": [{"subject": "s"}] * 257},
        {"@type": T + "google.rpc.PreconditionFailure", "violations": [{"type": "t"}] * 257},
        {"@type": T + "google.rpc.Help", "links": [{"url": "u"}] * 257},
    ):
        with pytest.raises(errconv.DecodeError, match="max_violations"):
            errconv.decode(msgspec.json.encode({"error": {"code": 400, "details": [detail]}}), "google")
    packed = ed.BadRequest(field_violations=[ed.BadRequest.FieldViolation(field="a")] * 257).SerializeToString()
    with pytest.raises(errconv.DecodeError, match="max_violations"):
        errconv.decode(status_bytes(("google.rpc.BadRequest", packed)), "status")
    with pytest.raises(errconv.DecodeError, match="max_violations"):
        errconv.decode(msgspec.json.encode({"status": 400, "errors": fvs}), "problem")


# --------------------------------------------------------------------------- what errconv writes


def _hpack(pairs: list[tuple[str, Any]]) -> int:
    return sum(len(k) + (-(-len(v) * 4 // 3) if k.endswith("-bin") else len(v)) + 32 for k, v in pairs)


def _big_fault(**changes: Any) -> errconv.Fault:
    fields: dict[str, Any] = dict(
        status=500,
        code="internal_error",
        detail="Something broke. " * 20,
        title="Internal",
        type="https://example.com/problems/internal",
        violations=[{"field": f"f{i}", "description": "bad " * 10} for i in range(40)],
        extensions={"trace": "t" * 3000},
        details=[
            RequestInfo(request_id="req-1"),
            Help(links=(Link(description="docs", url="https://example.com/" + "d" * 2000),)),
            DebugInfo(stack_entries=tuple(f"frame {i} " + "s" * 100 for i in range(60)), detail="boom"),
        ],
    )
    return errconv.Fault.build(**{**fields, **changes})


def test_grpc_trailers_stay_under_the_8_kib_guidance() -> None:
    # Before: a fault with a long stack trace wrote 41 KiB of trailers (gRPC refuses > 8 KiB).
    fault = _big_fault()
    pairs = trailers(fault)
    assert _hpack(pairs) <= 8192
    back = errconv.decode(pairs, "grpc")
    # DebugInfo goes first, then the other details, last first; the agent fields stay.
    assert not any(isinstance(d, DebugInfo) for d in back.details)
    assert (back.code, back.next_step, back.status) == ("internal_error", "give_up", 500)
    lost = errconv.losses(fault, "grpc")
    assert "details.DebugInfo" in lost
    with pytest.raises(errconv.LossError):
        errconv.convert(errconv.encode(fault, "status"), "grpc", "status", strict=True)


def test_grpc_trailer_budget_drops_in_order() -> None:
    fault = _big_fault()
    budgets = [8192, 4096, 2048, 1024, 512, 256, 128]
    kept_before: set[str] = set(errconv.Fault.__struct_fields__)
    for budget in budgets:
        limits = errconv.Limits(max_trailer_bytes=budget)
        pairs = trailers(fault, limits=limits)
        assert _hpack(pairs) <= budget, budget
        values = dict(pairs)
        assert values["grpc-status"] == "13" and values["grpc-retry-pushback-ms"] == "-1"
        lost = set(errconv.losses(fault, "grpc", limits=limits))
        kept = set(errconv.Fault.__struct_fields__) - lost
        assert kept <= kept_before, f"a smaller budget brought back {kept - kept_before}"
        kept_before = kept
    small = dict(trailers(fault, limits=errconv.Limits(max_trailer_bytes=1024)))
    assert percent_decode(small["grpc-message"]).endswith("\u2026")


def test_grpc_trailer_budget_drops_debug_info_then_the_last_detail_first() -> None:
    from errconv.details import LocalizedMessage

    fault = errconv.Fault.build(
        status=500,
        code="internal_error",
        details=[
            RequestInfo(request_id="a"),
            DebugInfo(detail="x" * 3000),  # in the middle: dropping it must not shift what goes next
            Help(links=(Link(url="u" * 200),)),
            LocalizedMessage(locale="en", message="m" * 200),
        ],
    )
    # (The exact code, "internal_error", rides beside its reason in errconv.v1.Problem.)
    steps = [errconv.losses(fault, "grpc", limits=errconv.Limits(max_trailer_bytes=b)) for b in (8192, 1200, 900, 550)]
    assert steps == [
        (),
        ("details.DebugInfo",),
        ("details.DebugInfo", "details.LocalizedMessage"),
        ("details.DebugInfo", "details.Help", "details.LocalizedMessage"),
    ]


def test_grpc_trailer_budget_keeps_a_minimal_status_and_says_what_it_dropped() -> None:
    # Before: a small budget dropped grpc-status-details-bin altogether, and the reason
    # (and a wait's RetryInfo) with it. Now the message goes first, and the last Status
    # standing is ErrorInfo (reason, agent fields) plus RetryInfo.
    from google.rpc import error_details_pb2 as ed

    fault = _big_fault(next_step="wait", retry_after_seconds=7, status=503, param="shard")
    for budget in (512, 640, 1024):
        limits = errconv.Limits(max_trailer_bytes=budget)
        pairs = trailers(fault, limits=limits)
        assert _hpack(pairs) <= budget
        values = dict(pairs)
        status = status_pb2.Status.FromString(values["grpc-status-details-bin"])
        infos = [d for d in status.details if d.Is(ed.ErrorInfo.DESCRIPTOR)]
        retries = [d for d in status.details if d.Is(ed.RetryInfo.DESCRIPTOR)]
        info, retry = ed.ErrorInfo(), ed.RetryInfo()
        infos[0].Unpack(info)
        retries[0].Unpack(retry)
        assert (info.reason, info.metadata["next_step"], retry.retry_delay.seconds) == ("INTERNAL_ERROR", "wait", 7)
        assert values["grpc-retry-pushback-ms"] == "7000"
        back = errconv.decode(pairs, "grpc")
        assert (back.code, back.next_step, back.retry_after_seconds, back.param) == ("internal_error", "wait", 7, "shard")
        if budget < 600:
            # The exact code outranks the record of what was dropped, which 512 bytes cannot hold too.
            assert "errconv_dropped" not in info.metadata
            continue
        # The record names what went, in losses' vocabulary; from_grpc reads it into the notes.
        recorded = info.metadata["errconv_dropped"].split(",")
        assert {"details.DebugInfo", "violations", "extensions"} <= set(recorded)
        assert "errconv_dropped" not in back.metadata
        assert any("details.DebugInfo" in note and "errconv_dropped" in note for note in back.origin.notes)
        assert set(recorded) <= set(errconv.losses(fault, "grpc", limits=limits))
    # A fault that fits records nothing.
    small = _big_fault(details=[], violations=[], extensions={})
    assert "errconv_dropped" not in errconv.decode(trailers(small), "grpc").origin.notes.__repr__()


def test_a_fault_that_fits_is_written_whole() -> None:
    fault = _big_fault(details=[RequestInfo(request_id="req-1")], violations=[], extensions={})
    assert errconv.losses(fault, "grpc") == ()


@pytest.mark.parametrize("seconds", [10**12, 2**63, MAX_RETRY_AFTER_SECONDS + 1])
def test_huge_delays_are_capped_everywhere(seconds: int) -> None:
    fault = errconv.Fault(status=429, grpc_code=8, next_step=errconv.NextStep.WAIT, retry_after_seconds=seconds)
    assert b"Retry-After: 86400\r\n" in errconv.encode(fault, "http+problem")
    assert dict(trailers(fault))["grpc-retry-pushback-ms"] == "86400000"
    for data, dialect in [
        (http(b"Retry-After: " + str(seconds).encode()), "http"),
        (http(b"Retry-After: Fri, 31 Dec 9999 23:59:59 GMT"), "http"),
        (b'{"status":429,"retry_after_seconds":' + str(seconds).encode() + b"}", "problem"),
        (b'{"status":429,"retry_after":1e308}', "problem"),
        ([("grpc-status", "8"), ("grpc-retry-pushback-ms", "9999999999")], "grpc"),
    ]:
        assert errconv.decode(data, dialect, now=NOW).retry_after_seconds == MAX_RETRY_AFTER_SECONDS


def test_negative_and_fractional_delays_are_whole_and_not_negative() -> None:
    assert errconv.decode(b'{"status":429,"retry_after_seconds":-5}').retry_after_seconds == 0
    assert errconv.decode(b'{"status":429,"retry_after_seconds":1.2}').retry_after_seconds == 2
    fault = errconv.Fault(status=429, grpc_code=8, next_step=errconv.NextStep.WAIT, retry_after_seconds=-5)
    assert b"Retry-After: 0\r\n" in errconv.encode(fault, "http+problem")
    assert dict(trailers(fault))["grpc-retry-pushback-ms"] == "0"


HOSTILE_TEXT = "line1\r\nSet-Cookie: evil=1\x00\x1b[31m\u2028 caf\u00e9 \u6771"


def test_no_control_character_reaches_a_header() -> None:
    fault = errconv.Fault.build(
        status=503,
        code="unavailable",
        title=HOSTILE_TEXT,
        detail=HOSTILE_TEXT,
        next_step="wait",
        retry_after_seconds=5,
        details=[RequestInfo(request_id=HOSTILE_TEXT)],
    )
    for dialect in ("http+problem", "http+google", "http+stripe"):
        head = errconv.encode(fault, dialect).partition(b"\r\n\r\n")[0]
        for line in head.split(b"\r\n"):
            assert re.fullmatch(rb"[\x20-\x7e]+", line), line
        assert b"evil" not in head
    for key, value in trailers(fault):
        if not key.endswith("-bin"):
            assert re.fullmatch(r"[\x20-\x7e]*", value), (key, value)
    message = dict(trailers(fault))["grpc-message"]
    assert "%0D%0A" in message and "%00" in message and percent_decode(message) == HOSTILE_TEXT


@pytest.mark.parametrize(
    "request_id, written",
    [("req_123", b"req_123"), ("  ", None), ("caf\u00e9", None), ("a\r\nb", b"a  b"), ("r" * 9000, None), ("tab\there", None)],
)
def test_request_id_is_copied_only_when_safe(request_id: str, written: bytes | None) -> None:
    fault = errconv.Fault.build(status=500, details=[RequestInfo(request_id=request_id)])
    head = errconv.encode(fault, "http+stripe").partition(b"\r\n\r\n")[0]
    found = re.search(rb"\r\nRequest-Id: ([^\r\n]*)", head)
    assert (found.group(1) if found else None) == written


def test_debug_info_never_crosses_the_http_boundary() -> None:
    # Before: only a typed DebugInfo was dropped; one kept raw (bytes that did not parse,
    # JSON of another shape) or nested in an extension member went out to the client.
    raw_bytes = RawDetail(type_url=T + "google.rpc.DebugInfo", value=b"\xff\xff")
    raw_json = RawDetail(type_url=T + "google.rpc.DebugInfo", fields={"stackEntries": "secret"})
    nested = {"@type": T + "google.rpc.DebugInfo", "detail": "secret"}
    fault = errconv.Fault(
        status=500,
        grpc_code=13,
        next_step=errconv.NextStep.GIVE_UP,
        details=(DebugInfo(detail="secret"), raw_bytes, raw_json, RequestInfo(request_id="r")),
        extensions={"debug": nested, "list": [1, nested]},
        alternatives=(nested,),
    )
    for dialect in ("http+problem", "http+google", "http+stripe"):
        out = errconv.encode(fault, dialect)
        assert b"secret" not in out and b"DebugInfo" not in out and base64.b64encode(b"\xff\xff") not in out
    kept = errconv.encode(fault, "http+problem", keep_debug=True)
    assert b"secret" in kept
    # Inside, nothing is dropped.
    assert errconv.decode(errconv.encode(fault, "status"), "status").details == fault.details


def test_a_debug_info_shape_anywhere_stays_inside() -> None:
    # Found by the long run: extension members that are themselves a DebugInfo (an
    # upstream error object carrying "@type": "...DebugInfo"), and one nested in an
    # unknown detail's members, went out inside errconv.v1.Problem and the details.
    for body in (
        b'{"error":{"code":500,"@type":"google.rpc.DebugInfo","stackEntries":["secret"]}}',
        b'{"error":{"code":500,"details":[{"@type":"acme.Trace","inner":{"@type":"google.rpc.DebugInfo","detail":"secret"}}]}}',
    ):
        fault = errconv.decode(body, "google")
        for dialect in ("http+problem", "http+google", "http+stripe"):
            out = errconv.encode(fault, dialect)
            assert b"secret" not in out and b"DebugInfo" not in out, (dialect, out)


def test_scrubbing_debug_info_out_of_an_unknown_detail_is_a_named_loss() -> None:
    # Found by the long run: with its nested DebugInfo objects removed at the boundary, a
    # raw ErrorInfo fits the schema and reads back typed; losses() names it, by type.
    body = msgspec.json.encode({"error": {"code": 404, "status": "NOT_FOUND", "details": [
        {"@type": T + "google.rpc.ErrorInfo", "reason": "R", "metadata": {"k": {"@type": T + "google.rpc.DebugInfo"}}},
    ]}})  # fmt: skip
    fault = errconv.decode(body, "google")
    assert isinstance(fault.details[0], RawDetail)
    assert errconv.losses(fault, "http+google") == ("details.google.rpc.ErrorInfo",)
    round_trips(fault)


def test_a_stripe_extension_list_past_max_details_still_converts() -> None:
    # Found by the long run: a Stripe body's 65-entry `details` extension was written as
    # problem's own `details` member, and read back as its details. Now an extension never
    # goes out under a member name of the dialect's own: the loss is named, nothing crashes.
    body = msgspec.json.encode({"error": {"type": "card_error", "details": [{"@type": "x", "n": i} for i in range(65)]}})
    fault = errconv.decode(body, "stripe")
    assert len(fault.extensions["details"]) == 65
    assert set(errconv.losses(fault, "problem")) == {"extensions"}
    assert b'"details"' not in errconv.encode(fault, "problem")
    round_trips(fault)


def test_an_opaque_detail_naming_a_known_type_reads_as_in_json() -> None:
    # Found by the long run: an OpaqueDetail naming google.rpc.DebugInfo was a RawDetail
    # from a Status but a DebugInfo from JSON, so a round trip changed the detail's type.
    opaque = problem_pb2.OpaqueDetail(type_url=T + "google.rpc.DebugInfo").SerializeToString()
    fault = errconv.decode(status_bytes(("errconv.v1.OpaqueDetail", opaque)), "status")
    assert fault.details == (DebugInfo(),)
    round_trips(fault)


def test_decode_error_messages_are_one_line() -> None:
    for data, dialect in [
        (b"not\r\njson", "problem"),
        (http(b"bad header\r\n"), "http"),
        (b"grpc-status: 8\ngrpc-status-details-bin: !!\r\n!!", "grpc"),
        (b"\n\n\x00\x01", "status"),
    ]:
        with pytest.raises(errconv.DecodeError) as info:
            errconv.decode(data, dialect)
        assert "\n" not in str(info.value) and "\r" not in str(info.value)


def test_the_cli_shows_control_characters_escaped() -> None:
    stdout, stderr = io.BytesIO(), io.StringIO()
    code = cli.main(["convert", "/nonexistent/a\x1b[31mb", "--to", "problem"], stdin=io.BytesIO(), stdout=stdout, stderr=stderr)
    assert code == 2
    assert "\x1b" not in stderr.getvalue() and stderr.getvalue().count("\n") == 1


def test_a_fault_from_fuzzing_with_everything_round_trips() -> None:
    # A composite of the shapes above: what decodes must encode and read back in every dialect.
    detail_bad = {"@type": T + "google.rpc.BadRequest", "fieldViolations": [{"field": "a", "description": "d"}]}
    body = {
        "error": {
            "code": 400,
            "message": HOSTILE_TEXT,
            "status": "INVALID_ARGUMENT",
            "details": [detail_bad, {"@type": T + "google.rpc.DebugInfo", "stackEntries": [1]}, {"x": 1}],
            "extra": {"a": [None, True, 1.5, -0.0, 2**53]},
        }
    }
    fault = errconv.decode(msgspec.json.encode(body), "google")
    assert fault.violations[0].field == "a"
    assert BadRequest(field_violations=(FieldViolation(field="a", description="d"),)) not in fault.details
    round_trips(fault)
    assert RetryInfo not in {type(d) for d in fault.details}


def test_a_debug_info_under_a_malformed_type_url_stays_inside() -> None:
    # Found by fuzz/long_run.py: "{" where the "/" of the type URL belongs. A client that
    # matches the end of the URL would still read the stack trace, so it is dropped too.
    body = (
        b'{"error":{"code":500,"message":"boom","status":"INTERNAL","details":['
        b'{"@type":"type.googleapis.com{google.rpc.DebugInfo","stackEntries":["Traceback"],"detail":"KeyError"}]}}'
    )
    fault = errconv.decode(body, "google")
    for dialect in ("http+google", "http+problem", "http+stripe"):
        out = errconv.encode(fault, dialect)
        assert b"DebugInfo" not in out and b"Traceback" not in out, dialect
