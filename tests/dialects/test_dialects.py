"""Dialect behaviours that the golden corpus does not pin: liberal decoding, aliases,
wire signals, and the edge cases of each codec."""

from __future__ import annotations

import base64
import json

import pytest

import errconv
from errconv import Code, Fault, NextStep
from errconv.details import RequestInfo
from errconv.dialects._trailers import from_text, percent_decode, percent_encode


def problem(obj: dict) -> Fault:
    return errconv.decode(json.dumps(obj).encode(), "problem")


# --------------------------------------------------------------------------- problem


def test_problem_members_of_the_wrong_type_are_ignored_but_kept() -> None:
    fault = problem({"type": 7, "title": "T", "status": "404", "detail": ["x"], "balance": 30})
    assert fault.type is None and fault.detail is None and fault.title == "T"
    assert fault.extensions == {"type": 7, "status": "404", "detail": ["x"], "balance": 30}


def test_problem_seed_000_vocabulary() -> None:
    fault = problem(
        {"error": "slot_unavailable", "class": "terminal", "retryable": False, "message": "taken", "status": 409,
         "alternatives": [{"start": "14:45"}], "alternatives_truncated": True}
    )  # fmt: skip
    assert (fault.code, fault.detail, fault.next_step) == ("slot_unavailable", "taken", NextStep.GIVE_UP)
    assert fault.alternatives == ({"start": "14:45"},) and fault.alternatives_truncated
    assert fault.origin.next_step == "stated"
    transient = problem({"error": "busy", "class": "transient", "retry_after": 2, "status": 503})
    assert (transient.next_step, transient.retry_after_seconds) == (NextStep.WAIT, 2)
    retryable = problem({"status": 503, "retryable": True})
    assert retryable.next_step == NextStep.WAIT and retryable.origin.stated


def test_problem_a_sentence_in_error_is_the_detail_not_the_code() -> None:
    fault = problem({"error": "Too many requests, try again later"})
    assert fault.code is None and fault.detail == "Too many requests, try again later"


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("errors", [{"detail": "must be positive", "pointer": "#/items/0/qty"}]),
        ("errors", [{"detail": "must be positive", "pointer": "/items/0/qty"}]),
        ("invalid-params", [{"name": "items[0].qty", "reason": "must be positive"}]),
        ("violations", [{"field": "items[0].qty", "message": "must be positive"}]),
        ("errors", {"items[0].qty": ["must be positive"]}),
        ("errors", [{"loc": ["body", "items", 0, "qty"], "msg": "must be positive"}]),
        ("errors", [{"detail": "must be positive", "source": {"pointer": "/items/0/qty"}}]),
    ],
    ids=["rfc9457", "plain-pointer", "rfc7807", "zalando", "aspnet", "pydantic", "jsonapi"],
)
def test_problem_common_validation_shapes(member: str, value: object) -> None:
    fault = problem({"status": 400, member: value})
    assert [(v.field, v.description) for v in fault.violations] == [("items[0].qty", "must be positive")]
    # Nothing states the step, so the ladder names the first violation's field.
    assert (fault.next_step, fault.param) == (NextStep.FIX_REQUEST, "items[0].qty")
    assert fault.origin.next_step.startswith("inferred")


def test_problem_legacy_google_errors_array_is_kept_verbatim() -> None:
    legacy = [{"message": "Forbidden", "domain": "global", "reason": "forbidden"}]
    fault = problem({"status": 403, "errors": legacy})
    assert fault.violations == () and fault.extensions == {"errors": legacy}


def test_problem_without_status_assumes_one_and_says_so() -> None:
    fault = problem({"title": "x"})
    assert fault.status == 500 and fault.grpc_code == Code.UNKNOWN
    assert any("no status" in n for n in fault.origin.notes)


def test_problem_grpc_code_member_only_when_not_the_default() -> None:
    assert b"grpc_code" not in errconv.encode(Fault.build(status=404), "problem")
    out = json.loads(errconv.encode(Fault.build(status=400, grpc_code=9, next_step="give_up"), "problem"))
    assert out["grpc_code"] == "FAILED_PRECONDITION"


# --------------------------------------------------------------------------- google and status-json


GOOGLE = {
    "error": {
        "code": 429,
        "message": "Quota exceeded",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED", "domain": "googleapis.com",
             "metadata": {"quota_limit": "ReadsPerMinutePerProject"}},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retry_delay": "30s"},
        ],
    }
}  # fmt: skip


def test_google_envelope_and_its_list_wrapped_form() -> None:
    for body in (GOOGLE, [GOOGLE]):
        fault = errconv.decode(json.dumps(body).encode())
        assert (fault.code, fault.domain, fault.retry_after_seconds) == ("RATE_LIMIT_EXCEEDED", "googleapis.com", 30)
        assert fault.next_step == NextStep.WAIT and fault.origin.next_step == "inferred from RetryInfo"
        assert fault.metadata == {"quota_limit": "ReadsPerMinutePerProject"}


def test_google_status_name_is_the_lossless_grpc_code() -> None:
    body = {"error": {"code": 400, "message": "m", "status": "OUT_OF_RANGE"}}
    assert errconv.decode(json.dumps(body).encode(), "google").grpc_code == Code.OUT_OF_RANGE
    no_name = {"error": {"code": 400, "message": "m", "details": []}}
    assert errconv.decode(json.dumps(no_name).encode(), "google").grpc_code == Code.INVALID_ARGUMENT


def test_type_urls_match_on_the_last_segment_and_snake_case_is_accepted() -> None:
    body = {"code": 5, "message": "gone", "details": [
        {"@type": "example.com/x/google.rpc.ResourceInfo", "resource_name": "books/1", "resource_type": "Book"}]}  # fmt: skip
    fault = errconv.decode(json.dumps(body).encode(), "status-json")
    assert fault.details[0].resource_name == "books/1"


def test_a_known_detail_that_breaks_its_schema_travels_as_it_came() -> None:
    broken = {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaDimensions": "[MaxDepth]"}]}
    fault = errconv.decode(json.dumps({"code": 8, "message": "m", "details": [broken]}).encode(), "status-json")
    assert fault.details[0].fields == {"violations": [{"quotaDimensions": "[MaxDepth]"}]}
    assert broken in json.loads(errconv.encode(fault, "status-json"))["details"]


def test_a_code_that_is_not_lower_snake_still_round_trips() -> None:
    fault = Fault.build(status=403, code="no_stock")
    weird = fault.replace(code="rateLimited.v2")
    for dialect in ("google", "status", "status-json", "grpc"):
        assert errconv.decode(errconv.encode(weird, dialect), dialect) == weird
    info = json.loads(errconv.encode(weird, "google"))["error"]["details"][0]
    assert info["reason"] == "RATELIMITED_V2"


def test_a_fault_without_code_still_gets_an_error_info() -> None:
    fault = Fault.build(status=503, retry_after_seconds=1)
    info = json.loads(errconv.encode(fault, "google"))["error"]["details"][0]
    assert info["reason"] == "UNAVAILABLE"
    assert errconv.decode(errconv.encode(fault, "google")).code is None


def test_fractional_retry_info_rounds_up() -> None:
    body = {"code": 8, "message": "m", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.001s"}]}
    assert errconv.decode(json.dumps(body).encode(), "status-json").retry_after_seconds == 1


# --------------------------------------------------------------------------- grpc trailers


def test_percent_encoding_follows_the_grpc_spec() -> None:
    assert percent_encode("naïve 100% ✓ line1\nline2") == "na%C3%AFve 100%25 %E2%9C%93 line1%0Aline2"
    assert percent_decode("na%C3%AFve 100%25") == "naïve 100%"
    assert percent_decode("broken %E2%9C and %zz") == "broken \ufffd and %zz"


def test_trailers_accept_raw_padded_and_unpadded_details() -> None:
    fault = Fault.build(status=404, code="book_not_found", detail="No such book")
    pairs = from_text(errconv.encode(fault, "grpc"))
    raw = base64.b64decode(dict(pairs)["grpc-status-details-bin"] + "==")
    padded = base64.b64encode(raw).decode()
    for value in (raw, padded, padded.rstrip("="), padded.encode()):
        again = [(k, value if k == "grpc-status-details-bin" else v) for k, v in pairs]
        assert errconv.decode(again, "grpc") == fault


def test_grpc_status_wins_over_the_status_inside_and_the_mismatch_is_noted() -> None:
    fault = Fault.build(status=404, code="book_not_found")
    pairs = [("grpc-status", "7") if k == "grpc-status" else (k, v) for k, v in from_text(errconv.encode(fault, "grpc"))]
    got = errconv.decode(pairs, "grpc")
    assert got.grpc_code == Code.PERMISSION_DENIED
    assert any("grpc-status 7 differs" in n for n in got.origin.notes)


def test_pushback_says_wait_and_negative_pushback_forbids_it() -> None:
    wait = errconv.decode([("grpc-status", "8"), ("grpc-retry-pushback-ms", "1500")], "grpc")
    assert (wait.next_step, wait.retry_after_seconds) == (NextStep.WAIT, 2)
    stop = errconv.decode([("grpc-status", "14"), ("grpc-retry-pushback-ms", "-1")], "grpc")
    assert stop.next_step == NextStep.GIVE_UP and "pushback" in stop.origin.next_step


# --------------------------------------------------------------------------- stripe


def test_stripe_status_follows_type_and_code_when_there_is_no_http() -> None:
    cases = {
        ("card_error", "card_declined"): 402,
        ("invalid_request_error", "rate_limit"): 429,
        ("invalid_request_error", "resource_missing"): 404,
        ("api_error", None): 500,
        ("invalid_request_error", "parameter_missing"): 400,
    }
    for (type_, code), status in cases.items():
        body = {"error": {"type": type_, **({"code": code} if code else {}), "message": "m"}}
        assert errconv.decode(json.dumps(body).encode(), "stripe").status == status


def test_stripe_card_error_with_a_param_is_a_fix() -> None:
    body = {"error": {"type": "card_error", "code": "invalid_expiry_year", "param": "exp_year"}}
    fault = errconv.decode(json.dumps(body).encode(), "stripe")
    assert (fault.next_step, fault.param) == (NextStep.FIX_REQUEST, "exp_year")


def test_stripe_writes_no_nulls_and_a_consistent_type() -> None:
    out = json.loads(errconv.encode(Fault.build(status=503, retry_after_seconds=2), "stripe"))
    assert out == {"error": {"type": "api_error", "next_step": "wait"}}
    idem = json.loads(errconv.encode(Fault.build(status=409, code="idempotency_key_in_use", retry_after_seconds=1), "stripe"))
    assert idem["error"]["type"] == "idempotency_error"


# --------------------------------------------------------------------------- http


def http(status_line: str, headers: dict[str, str], body: str = "") -> bytes:
    head = status_line + "\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return (head + "\r\n" + body).encode()


def test_curl_output_with_http2_and_interim_responses() -> None:
    data = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/2 429 \r\nretry-after: 7\r\n\r\n"
    fault = errconv.decode(data)
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (429, NextStep.WAIT, 7)
    tunnel = b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/2 503\r\n\r\n"
    assert errconv.decode(tunnel).status == 503


def test_retry_after_date_uses_the_injected_clock_without_a_date_header() -> None:
    data = http("HTTP/1.1 503 Service Unavailable", {"Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"})
    assert errconv.decode(data, now=784111777.0 - 12).retry_after_seconds == 12
    assert errconv.decode(data, now=784111777.0 + 99).retry_after_seconds == 0  # past: wait 0 s


def test_rate_limit_headers_that_say_the_quota_is_spent() -> None:
    legacy = http("HTTP/1.1 429 Too Many Requests", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "20"})
    assert errconv.decode(legacy).retry_after_seconds == 20
    epoch = http("HTTP/1.1 429 Too Many Requests", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1000000050"})
    assert errconv.decode(epoch, now=1000000000.0).retry_after_seconds == 50
    ietf = http("HTTP/1.1 429 Too Many Requests", {"RateLimit": '"default";r=0;t=5'})
    fault = errconv.decode(ietf)
    assert (fault.retry_after_seconds, fault.origin.next_step) == (5, "inferred from RateLimit")


def test_stripe_should_retry_overrides_the_status() -> None:
    yes = errconv.decode(http("HTTP/1.1 400 Bad Request", {"Stripe-Should-Retry": "true"}))
    assert yes.next_step == NextStep.WAIT and yes.retry_after_seconds is None
    no = errconv.decode(http("HTTP/1.1 503 Service Unavailable", {"Stripe-Should-Retry": "false"}))
    assert no.next_step == NextStep.GIVE_UP


def test_vague_bodies_use_only_the_status_and_headers() -> None:
    plain = errconv.decode(http("HTTP/1.1 503 Service Unavailable", {"Content-Type": "text/plain"}, "try again later"))
    assert (plain.detail, plain.next_step, plain.code) == ("try again later", NextStep.WAIT, None)
    empty = errconv.decode(http("HTTP/1.1 500 Internal Server Error", {}))
    assert empty.detail is None and empty.next_step == NextStep.GIVE_UP
    assert any("states nothing" in n for n in empty.origin.notes)


def test_http_status_wins_over_the_body_status() -> None:
    body = json.dumps({"type": "about:blank", "status": 400})
    fault = errconv.decode(http("HTTP/1.1 422 Unprocessable Content", {"Content-Type": "application/problem+json"}, body))
    assert fault.status == 422
    assert any("differs from HTTP status 422" in n for n in fault.origin.notes)


def test_envoy_bridge_grpc_status_header_gives_the_grpc_code() -> None:
    fault = errconv.decode(http("HTTP/1.1 503 Service Unavailable", {"grpc-status": "5", "grpc-message": "gone"}))
    assert fault.grpc_code == Code.NOT_FOUND


def test_http_encoders_say_a_wait_twice_and_drop_debug_info() -> None:
    from errconv.details import DebugInfo

    fault = Fault.build(status=503, code="maintenance", retry_after_seconds=30,
                        details=[DebugInfo(detail="secret stack"), RequestInfo(request_id="req_1")])  # fmt: skip
    for dialect in ("http+problem", "http+google", "http+stripe"):
        out = errconv.encode(fault, dialect)
        head, _, body = out.partition(b"\r\n\r\n")
        assert b"\r\nRetry-After: 30\r\n" in head
        assert b"secret stack" not in out
        assert f"Content-Length: {len(body)}".encode() in head
        assert errconv.losses(fault, dialect) == ("details.DebugInfo",)
    stripe = errconv.encode(fault, "http+stripe")
    assert b"Stripe-Should-Retry: true\r\nRequest-Id: req_1\r\n" in stripe


def test_header_values_never_carry_cr_lf_or_nul() -> None:
    fault = Fault.build(status=500, details=[RequestInfo(request_id="req\r\nSet-Cookie: x=1\x00")])
    out = errconv.encode(fault, "http+stripe")
    head = out.partition(b"\r\n\r\n")[0]
    # The injected text stays inside the Request-Id value: no line of its own, no NUL.
    assert not any(line.startswith(b"Set-Cookie") for line in head.split(b"\r\n"))
    assert b"\x00" not in head and b"\r\n\r\n" not in head


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("data", "dialect", "message"),
    [
        (b'{"type": ', "problem", "not valid JSON"),
        (b"\xff\xfe{}", "problem", "not valid JSON"),
        (b"[1, 2]", "problem", "JSON object"),
        (b'"text"', "google", "google error"),
        (b'{"error": "x"}', "google", "google error"),
        (b"\x08\x96\x01\x12\xff", "status", "not a google.rpc.Status"),
        (b"grpc-status: 5\ngrpc-status-details-bin: !!!notbase64\n", "grpc", "not base64"),
        (b"not a trailer line\n", "grpc", "not `key: value`"),
        (b"HTTP/1.1 abc\r\n\r\n", "http", "not an HTTP response"),
        # A body that is not UTF-8 is read with U+FFFD, noted (issue 23): tests/test_newcomer_conveniences.py
        (b"[" * 5000 + b"]" * 5000, "problem", "too deeply"),
        (b'{"a": ' * 100 + b"1" + b"}" * 100, "problem", "deeper than"),
        (b"", None, "empty"),
        (b"just some words", None, "cannot tell the dialect"),
    ],
)
def test_bad_input_is_one_decode_error(data: bytes, dialect: str | None, message: str) -> None:
    with pytest.raises(errconv.DecodeError, match=message) as info:
        errconv.decode(data, dialect)
    assert "\n" not in str(info.value)


def test_oversized_input_is_refused_before_parsing() -> None:
    big = b'{"detail": "' + b"x" * 2048 + b'"}'
    with pytest.raises(errconv.DecodeError, match="over the limit of 1024"):
        errconv.decode(big, "problem", limits=errconv.Limits(max_bytes=1024))


def test_unknown_dialect_names_suggest_the_close_ones() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="did you mean problem"):
        errconv.encode(Fault.build(status=404), "problme")


def test_strict_convert_raises_loss_error_naming_the_fields() -> None:
    body = errconv.encode(Fault.build(status=429, code="rate_limited", domain="d.com", retry_after_seconds=3), "problem")
    with pytest.raises(errconv.LossError, match="stripe cannot carry: .*domain") as info:
        errconv.convert(body, to="stripe", strict=True)
    assert "domain" in info.value.losses
    assert errconv.convert(body, to="google", strict=True).startswith(b'{"error"')


def test_a_detail_without_type_is_kept_untyped() -> None:
    body = {"code": 3, "message": "m", "details": [{"field": "x", "description": "bad"}]}
    fault = errconv.decode(json.dumps(body).encode(), "status-json")
    assert fault.details[0].type_url == "" and fault.details[0].fields == {"field": "x", "description": "bad"}
    for dialect in ("status-json", "google", "status", "grpc"):
        assert errconv.decode(errconv.encode(fault, dialect), dialect) == fault


# --------------------------------------------------------------------------- encoding shortcuts


def test_the_pointer_shortcuts_agree_with_the_general_path() -> None:
    from errconv.dialects._pointer import _escaped_pointer, pointer_of, pointer_to_field

    fields = (
        "age", "_x1", "class", "profile.color", "items[0].price", "a[0][1]", "a[007]",  # plain names and simple paths
        "line_items[0][price]", "a[b].c[0]", "a[0b]", "a[_]",  # bracketed names
        "a[b]c", "ünï", "a.b-c", "a/b", "a~b", "", "[0]", "a..b", "1a", "a[]", "a b", "%41", "a[x/y]", "a.", ".a",
    )  # fmt: skip
    for field in fields:
        pointer = _escaped_pointer(field)
        assert pointer_of(field) == (pointer, pointer is not None and pointer_to_field(pointer) == field), field


def test_status_details_in_json_are_the_detail_structs_written_out() -> None:
    import golden_corpus as gc

    from errconv import details as d
    from errconv.dialects._common import write_json
    from errconv.dialects._status import status_items, status_items_json
    from errconv._model.schema import item_to_json
    from errconv._model.fault import Violation

    bad_request = d.BadRequest(field_violations=(d.FieldViolation(field="f", reason="R"),))
    faults = [gc.load_fault(case) for case in gc.cases()] + [
        problem({"code": "not-found", "status": 404, "title": "T"}),  # an exact code beside its reason; title as message
        Fault.build(
            status=400,
            title="T",
            detail="D",
            instance="/i",
            param="a",
            violations=[
                Violation(field="a", description="bad", reason="R", localized_message=d.LocalizedMessage(locale="fr", message="m")),
                Violation(field=""),
            ],
            alternatives=[1, {"x": None}, "z"],
            alternatives_truncated=True,
            blocked_by="b",
            unblock_with="u",
            metadata={"k": "v"},
            extensions={"x": 1},
            details=[bad_request, d.DebugInfo(detail="x"), d.RawDetail(type_url="t", value=b"\0"), d.RawDetail(type_url="", fields={"a": 1})],
        ),
        Fault.build(status=404, details=[bad_request]),  # a second BadRequest, and no violations
        Fault.build(status=429, grpc_code=0, retry_after_seconds=10**9, details=[d.RetryInfo(retry_delay_nanos=1_500_000)]),
    ]
    for fault in faults:
        for keep_debug in (True, False):
            message, items = status_items(fault, keep_debug=keep_debug)
            want = write_json([message, [item_to_json(item) for item in items]])
            assert write_json(list(status_items_json(fault, keep_debug=keep_debug))) == want


def test_members_read_from_a_status_come_back_sorted_whatever_the_process() -> None:
    # protobuf map iteration order differs between processes; JSON written from a
    # decoded Status must not. Twelve members in reverse order: unsorted by chance once in 479 million.
    names = [f"m{i:02d}" for i in range(12)][::-1]
    fault = Fault.build(
        status=409, code="conflict", next_step="give_up", extensions={n: {n: i, "a": i} for i, n in enumerate(names)}
    )
    for dialect in ("status", "grpc"):
        back = errconv.decode(errconv.encode(fault, dialect), dialect)
        assert list(back.extensions) == sorted(names)
        assert all(list(v) == sorted(v) for v in back.extensions.values())


def test_the_usual_http_head_reads_as_the_general_parser_reads_it() -> None:
    import pathlib
    import random

    from errconv.dialects import _responses as h
    from errconv._model.limits import DEFAULT_LIMITS

    golden = pathlib.Path(__file__).resolve().parents[2] / "golden"

    rng = random.Random(7)
    pieces = [b" ", b"\t", b"\r", b"\n", b"\r\n", b":", b"\x00", b"\x0b", b"\x85", b"\xa0", b"A", b"z", b"0", b"9",
              b"HTTP/1.1 100 Continue\r\n\r\n", b"HTTP/2 ", b" 200 Connection established", b"x" * 9000]  # fmt: skip
    usual = 0
    for path in sorted(golden.glob("*/http-*.http")):
        data = path.read_bytes()
        end = data.index(b"\r\n\r\n") + 4
        variants = [data, data.replace(b"\r\n", b"\n")]
        for _ in range(150):
            at = rng.randrange(end + 2)
            variants.append(data[:at] + rng.choice(pieces) + data[at:])
        for variant in variants:
            fast = h._parse_usual(variant, DEFAULT_LIMITS)
            if fast is None:
                continue
            usual += 1
            slow = h._parse_any(variant, DEFAULT_LIMITS)
            assert (fast.status, fast.reason, fast.headers.items, fast.body) == (slow.status, slow.reason, slow.headers.items, slow.body)
    assert usual > 1000  # the usual way is taken, not only the general one


def test_the_plain_pointer_shortcut_reads_as_the_general_way() -> None:
    import random

    from errconv.dialects import _pointer

    rng = random.Random(11)
    alphabet = ["a", "b", "_", "0", "1", "9", "/", "//", "#", "~0", "~1", "%2F", "%41", ".", "[", "]", "Z", "x1", "0a", "é", "ǅ",
                "", "²", " "]  # fmt: skip
    pointers = ["#/age", "#/items/0/price", "#/profile/color", "#/line_items/0/price", "#/a//b", "#/a/", "#/0/a", "#/_"]
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        pointers += [s, "#/" + s, "/" + s, "#" + s]
    for p in pointers:
        assert _pointer.pointer_to_field(p) == _pointer._pointer_to_field_any(p), p
