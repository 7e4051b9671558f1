"""The open core: one registry, honest recognition, limits in the readers, the HTTP and gRPC
seams, liberal reading in every JSON dialect, and what a new user tried."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

import pytest

import errconv
from errconv import dialects
from errconv.dialects import CERTAIN, Dialect, HttpInfo, Reading, Writing

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"


# --------------------------------------------------------------------------- the registry


class Upper(Dialect):
    """A dialect registered at run time: `ERROR: <CODE> <detail>` as plain text."""

    name = "upper-text"
    form = "bytes"
    suffix = "txt"

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        return CERTAIN if isinstance(value, bytes) and value.startswith(b"ERROR: ") else 0.0

    def decode(self, value: Any, reading: Reading) -> errconv.Fault:
        code, _, detail = value[7:].decode().strip().partition(" ")
        return reading.finish({"status": 500, "grpc_code": 13, "code": code.lower(), "detail": detail}, None)

    def encode(self, fault: errconv.Fault, writing: Writing) -> bytes:
        return f"ERROR: {(fault.code or 'unknown').upper()} {fault.detail or ''}".encode()


@pytest.fixture
def upper() -> Any:
    dialect = errconv.register_dialect(Upper)
    yield dialect
    dialects.unregister_dialect(Upper.name)


def test_a_dialect_registered_at_run_time_takes_part_in_everything(upper: Dialect) -> None:
    assert "upper-text" in errconv.dialect_names()
    assert "http+upper-text" not in errconv.dialect_names()  # no media type: no HTTP form
    assert errconv.detect(b"ERROR: DISK_FULL no space left") == "upper-text"
    fault = errconv.decode(b"ERROR: DISK_FULL no space left")
    assert (fault.code, fault.detail, fault.next_step) == ("disk_full", "no space left", "give_up")
    assert errconv.convert(errconv.encode(fault, "google"), "upper-text") == b"ERROR: DISK_FULL no space left"
    assert errconv.losses(errconv.decode(errconv.encode(fault, "google")), "upper-text") == ()


def test_registering_a_taken_name_or_a_non_dialect_is_refused(upper: Dialect) -> None:
    with pytest.raises(errconv.ErrconvError, match="registered already"):
        errconv.register_dialect(Upper)
    errconv.register_dialect(Upper, replace=True)
    with pytest.raises(errconv.ErrconvError, match="errconv.Dialect"):
        errconv.register_dialect(object())  # type: ignore[arg-type]
    with pytest.raises(errconv.UnknownDialectError, match="did you mean upper-text"):
        errconv.encode(errconv.Fault.build(status=500), "upper-txt")


def test_one_precedence_order_settles_equal_claims(upper: Dialect) -> None:
    # Every built-in dialect states its precedence, no two alike; detection, HTTP bodies and
    # lint all use the registry's order, and a dialect that states none comes after them.
    built_in = [d for d in dialects.registered() if type(d).__module__.startswith("errconv.dialects.")]
    assert len(built_in) >= 29
    assert all(d.precedence < 1000 for d in built_in)
    assert len({d.precedence for d in built_in}) == len(built_in)
    ranked = dialects.ranked()
    assert [d.precedence for d in ranked] == sorted(d.precedence for d in ranked)
    assert ranked[-1].name == "upper-text"
    assert ranked.index(dialects.get("jsonrpc")) < ranked.index(dialects.get("google"))


# --------------------------------------------------------------------------- honest recognition


def test_json_no_dialect_recognises_is_no_problem_body() -> None:
    with pytest.raises(errconv.DecodeError, match=r"no dialect recognises this JSON \(an object with the members 'foo'\)"):
        errconv.decode(b'{"foo": 1}')
    # Inside an error response, the general reader reads it (issue 19): nothing is dropped.
    fault = errconv.from_http(502, [("Content-Type", "application/json")], b'{"foo": 1}')
    assert (fault.status, fault.next_step, fault.origin.body) == (502, "wait", "general")
    assert fault.extensions == {"foo": 1} and fault.detail is None


def test_a_bare_body_decodes_with_the_status_the_caller_knows() -> None:
    assert errconv.decode(b'{"foo": 1}', status=429).next_step == "wait"
    text = errconv.decode(b"Service temporarily unavailable", status=503)
    assert (text.status, text.next_step, text.detail, text.origin.body) == (503, "wait", "Service temporarily unavailable", "vague")
    # A body a dialect recognises keeps its dialect; the status given wins over one in the body.
    stripe = errconv.decode(b'{"error": {"type": "invalid_request_error", "code": "resource_missing"}}', status=410)
    assert (stripe.status, stripe.origin.dialect) == (410, "stripe")
    with pytest.raises(errconv.DecodeError, match="HTTP status"):
        errconv.decode(b"x", status=99)


def test_a_success_response_is_not_an_error() -> None:
    ok = b'HTTP/1.1 200 OK\r\nRateLimit: "default";r=0;t=50\r\nContent-Type: application/json\r\n\r\n{"items": []}'
    with pytest.raises(errconv.DecodeError, match="not an error response: 200"):
        errconv.decode(ok)
    with pytest.raises(errconv.DecodeError, match="not an error response: 302"):
        errconv.from_http(302, [("Location", "/elsewhere")], b"")
    with pytest.raises(errconv.DecodeError, match="not an error response: 200"):
        errconv.decode(b'{"type": "about:blank", "title": "fine"}', status=200)


# --------------------------------------------------------------------------- limits inside the readers


def test_every_entry_point_is_bound_by_the_same_limits() -> None:
    body = b'{"status": 400, "detail": "' + b"x" * 70_000 + b'"}'
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.decode(body)
    with pytest.raises(errconv.DecodeError, match="max_string"):  # the registry's dialect, called directly
        dialects.get("problem").decode(json.loads(body), Reading())
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.from_http(400, [("Content-Type", "application/problem+json")], body)
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.from_grpc(3, "x" * 70_000, ())
    assert [f.rule for f in errconv.lint_body(body)] == ["unreadable"]


# --------------------------------------------------------------------------- liberal, as RFC 9457 3.1 says


@pytest.mark.parametrize(
    "dialect, body, kept",
    [
        # google-api-python-client's own test body: `details` a string.
        ("google", b'{"error": {"code": 400, "message": "m", "status": "INVALID_ARGUMENT", "details": "error details"}}', "details"),
        ("google", b'{"error": {"code": "400", "message": "m", "status": "INVALID_ARGUMENT"}}', "code"),
        ("google", b'{"error": {"code": 400, "message": 5, "status": "INVALID_ARGUMENT"}}', "message"),
        ("status-json", b'{"code": 5, "message": "m", "details": {"x": 1}}', "details"),
        ("status-json", b'{"code": 5, "message": ["m"]}', "message"),
        ("problem", b'{"status": "error", "title": "t"}', "status"),
        ("problem", b'{"status": 404, "retry_after_seconds": "30"}', "retry_after_seconds"),
        ("stripe", b'{"error": {"type": "invalid_request_error", "code": 404, "message": "m"}}', "code"),
    ],
)
def test_a_member_of_the_wrong_type_is_ignored_for_meaning_and_kept(dialect: str, body: bytes, kept: str) -> None:
    fault = errconv.decode(body, dialect)
    assert kept in fault.extensions
    for target in ("problem", "google", "status-json", "http+problem"):
        back = errconv.decode(errconv.encode(fault, target), "http" if target.startswith("http") else target)
        # Never written under the member it would overwrite: the real status and step go out.
        assert (back.status, back.next_step) == (fault.status, fault.next_step), target
    # The Status dialects carry it whole, in errconv.v1.Problem.
    assert errconv.decode(errconv.encode(fault, "google"), "google").extensions == fault.extensions


def test_an_extension_never_overwrites_a_standard_member() -> None:
    google = (GOLDEN / "rate_limited" / "google.json").read_bytes()
    out = errconv.convert(google, "problem", "stripe")
    assert json.loads(out)["status"] == 400  # before: "status": "RESOURCE_EXHAUSTED", a string
    assert errconv.losses(errconv.decode(google, "stripe"), "problem") == ("extensions",)


def test_the_model_json_is_read_as_the_model() -> None:
    fault_json = (GOLDEN / "rate_limited" / "fault.json").read_bytes()
    assert errconv.detect(fault_json) == "fault"
    stripe = errconv.convert(fault_json, "stripe")
    assert b"grpc_code" not in stripe
    assert errconv.decode(fault_json) == errconv.Fault.from_json(fault_json)


def test_a_field_errconv_inferred_is_not_reported_lost() -> None:
    # A problem body without grpc_code: errconv derived RESOURCE_EXHAUSTED from 429.
    fault = errconv.decode((GOLDEN / "rate_limited" / "problem.json").read_bytes())
    assert "grpc_code" in fault.origin.inferred
    assert "grpc_code" not in errconv.losses(fault, "stripe")
    # Stated, it is reported.
    stated = errconv.decode((GOLDEN / "slot_unavailable" / "problem.json").read_bytes())
    assert "grpc_code" in errconv.losses(stated, "stripe")


def test_about_blank_is_no_type() -> None:
    fault = errconv.decode(b'{"type": "about:blank", "title": "Not Found", "status": 404}')
    assert fault.type is None
    assert errconv.Fault.build(status=404, type="about:blank").type is None
    assert b"doc_url" not in errconv.encode(errconv.Fault.build(status=404, type="urn:x:not-a-link"), "stripe")


# --------------------------------------------------------------------------- the HTTP seam


def test_from_http_takes_headers_in_any_usual_form() -> None:
    body = b'{"type": "https://x/rate", "status": 429, "code": "rate_limited"}'
    for headers in (
        [("Content-Type", "application/problem+json"), ("Retry-After", "7")],
        {"content-type": "application/problem+json", "retry-after": "7"},
        ((b"Content-Type", b"application/problem+json"), (b"Retry-After", b"7")),
    ):
        fault = errconv.from_http(429, headers, body)
        assert (fault.code, fault.retry_after_seconds, fault.origin.dialect, fault.origin.body) == ("rate_limited", 7, "http", "problem")


def test_to_http_gives_status_headers_and_body() -> None:
    fault = errconv.Fault.build(
        status=503, code="overloaded", detail="line\r\nSet-Cookie: x", next_step="wait", retry_after_seconds=30,
        details=[errconv.details.DebugInfo(detail="secret stack")],
    )  # fmt: skip
    response = errconv.to_http(fault)
    assert response.status == 503
    assert response.headers == [("Content-Type", "application/problem+json"), ("Retry-After", "30"), ("x-should-retry", "true")]
    assert b"secret" not in response.body and json.loads(response.body)["retry_after_seconds"] == 30
    assert b"secret" in errconv.to_http(fault, keep_debug=True).body
    google = errconv.to_http(fault, "google")
    assert google.headers[0] == ("Content-Type", "application/json; charset=UTF-8")
    assert bytes(google) == errconv.encode(fault, "http+google")
    with pytest.raises(errconv.UnknownDialectError, match="not an HTTP body dialect"):
        errconv.to_http(fault, "status")


def test_every_header_value_written_is_safe() -> None:
    fault = errconv.Fault.build(status=500, details=[errconv.details.RequestInfo(request_id="a\r\nSet-Cookie: b")])
    for name, value in errconv.to_http(fault, "stripe").headers:
        assert "\r" not in value and "\n" not in value, (name, value)


# --------------------------------------------------------------------------- the gRPC seam


def test_from_grpc_takes_what_an_rpc_error_gives() -> None:
    import grpc

    sent = errconv.to_grpc(errconv.Fault.build(status=503, code="overloaded", detail="busy", next_step="wait", retry_after_seconds=3))
    assert sent.code is grpc.StatusCode.UNAVAILABLE and sent.details == "busy"
    assert [k for k, _ in sent.trailing_metadata] == ["grpc-status-details-bin", "grpc-retry-pushback-ms"]
    assert dict(sent.trailing_metadata)["grpc-retry-pushback-ms"] == "3000"
    for code in (grpc.StatusCode.UNAVAILABLE, 14, "14"):
        fault = errconv.from_grpc(code, "busy", sent.trailing_metadata)
        assert (fault.code, fault.grpc_code, fault.retry_after_seconds, fault.origin.dialect) == ("overloaded", 14, 3, "grpc")
    bare = errconv.from_grpc(grpc.StatusCode.NOT_FOUND, "no such book", ())
    assert (bare.status, bare.detail, bare.next_step) == (404, "no such book", "give_up")
    # A details header that does not parse: the code and message stand, and the origin says why.
    broken = errconv.from_grpc(grpc.StatusCode.INTERNAL, "x", [("grpc-status-details-bin", b"\xff\xfe")])
    assert (broken.grpc_code, broken.detail) == (13, "x")
    assert any("grpc-status-details-bin ignored" in note for note in broken.origin.notes)
    with pytest.raises(errconv.DecodeError):  # the dialect, given trailers to read, says they are bad
        errconv.decode([("grpc-status", "13"), ("grpc-status-details-bin", b"\xff\xfe")], "grpc")


def test_decoding_and_encoding_never_import_grpcio() -> None:
    code = (
        "import sys, errconv\n"
        "f = errconv.decode(open('golden/rate_limited/grpc.txt', 'rb').read())\n"
        "for d in errconv.dialect_names():\n"
        "    if errconv.dialects.get(d).encodes:\n"  # a decode-only dialect writes nothing
        "        errconv.encode(f, d)\n"
        "errconv.from_grpc(14, 'x', [])\n"
        "assert 'grpc' not in sys.modules, 'grpcio was imported'\n"
        "assert isinstance(errconv.to_grpc(f).code, int) is False\n"
        "assert 'grpc' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_trace_records_where_each_field_came_from() -> None:
    data = (GOLDEN / "rate_limited" / "http-problem.http").read_bytes()
    fault = errconv.decode(data, trace=True)
    trace = {what: (pointer, raw) for what, pointer, raw in fault.origin.trace}
    assert trace["next_step"] == ("/body/next_step", "wait")
    assert trace["delay:retry_after_seconds"] == ("/body/retry_after_seconds", 30)
    assert trace["delay:Retry-After"] == ("/headers/retry-after", ("30", 30))
    assert errconv.decode(data).origin.trace == ()  # only when asked


def _json_bodies() -> list[object]:
    """Every JSON value the corpora hold: golden files and their sources, real-world
    captures (bare and the bodies of whole responses), lint examples."""
    root = pathlib.Path(__file__).resolve().parents[2]
    out: list[object] = []
    paths = [*root.glob("golden/*/*.json"), *root.glob("tests/realworld/*/*"), *root.glob("tests/lint_examples/*.json")]
    import fuzz_inputs

    datas = [p.read_bytes() for p in sorted(paths) if p.is_file() and p.name != "facts.json"]
    for data in [*datas, *(raw for _, raw in fuzz_inputs.SEEDS)]:
        if data.startswith(b"HTTP/"):
            data = data.replace(b"\r\n", b"\n").partition(b"\n\n")[2]
        try:
            out.append(json.loads(data))
        except ValueError:
            pass
    return out


def test_a_dialect_never_claims_an_object_without_its_keys() -> None:
    # Detection asks only the dialects whose `keys` a body has: a dialect that would claim
    # an object lacking all of them would be passed over, so none may.
    bodies = [b for b in _json_bodies() if isinstance(b, dict)]
    assert len(bodies) > 200
    for dialect in dialects.registered():
        if dialect.keys is None or dialect.form != "json":
            continue
        for body in bodies:
            stripped = {k: v for k, v in body.items() if k not in dialect.keys}
            assert dialect.recognise(stripped, None) == 0, (dialect.name, stripped)


def test_no_dialect_claims_past_its_ceiling() -> None:
    """Detection skips a dialect whose ceiling cannot beat the claim found: a claim past
    the ceiling (without the dialect's own media type) would make it choose wrongly."""
    bodies = [b for b in _json_bodies() if isinstance(b, dict)]
    assert len(bodies) > 300
    capped = [d for d in dialects.registered() if d.ceiling < CERTAIN and d.form == "json"]
    assert len(capped) >= 15
    infos: list[HttpInfo | None] = [None]
    for status in (None, 200, 400, 404, 429, 500, 503):
        for media in ("", "application/json", "text/plain", "application/problem+json", "application/grpc+json"):
            infos.append(HttpInfo(status, dialects.Headers(()), media))
    over = []
    for dialect in capped:
        own = {dialect.media_type, *dialect.media_types} - {"application/json"}
        for value in bodies:
            for http in infos:
                if http is not None and http.media_type in own:
                    continue
                claim = dialect.recognise(value, http)
                if claim > dialect.ceiling:
                    over.append((dialect.name, value, claim))
    assert over == []
