"""The `connect` dialect: Connect's unary error and end-of-stream message, both ways.

Shapes and variants from the Connect spec (protocol.md, RFC 003) and connect-go, the
code and status tables, detection against every look-alike (Google's envelope,
APISIX's gRPC-code envelope, OData, Twirp, problem, status-json), encoding, round
trips, bad input, the realworld captures' detection, and interop with the
`connectrpc` package both ways: its client reads our `http+connect` over a loopback
server, and we read the bytes its server side writes.
"""

from __future__ import annotations

import base64
import json
import pathlib
import socketserver
import struct
import threading
import urllib.parse
from typing import Any

import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2

import errconv
import golden_corpus as gc
from errconv import Code, NextStep
from errconv import details as d
from errconv.codes import HTTP_FOR_CODE
from errconv.dialects import get
from errconv.dialects.connect import CODE_FOR_WORD, HTTP_FOR_WORD, PRE_RFC_003_HTTP, WORD_FOR_CODE
from helpers import assert_same_except

CONNECT = get("connect")
ROOT = pathlib.Path(__file__).resolve().parent.parent
REALWORLD = ROOT / "realworld"


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


def b64(message: Any) -> str:
    return base64.b64encode(message.SerializeToString()).decode().rstrip("=")


def connect(value: Any, **kw: Any) -> errconv.Fault:
    return errconv.decode(dumps(value), "connect", **kw)


def http(status: int, body: bytes, content_type: str = "application/json") -> bytes:
    return f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body


def envelope(flags: int, payload: bytes) -> bytes:
    return struct.pack(">BI", flags, len(payload)) + payload


SPEC_RETRY = {
    "code": "unavailable",
    "message": "overloaded: back off and retry",
    "details": [{"type": "google.rpc.RetryInfo", "value": "CgIIPA", "debug": {"retryDelay": "30s"}}],
}


# --------------------------------------------------------------------------- the tables


def test_the_code_table_is_google_rpc_code_in_snake_case() -> None:
    assert len(CODE_FOR_WORD) == 16 and set(CODE_FOR_WORD.values()) == set(range(1, 17))
    for word, number in CODE_FOR_WORD.items():
        expected = "canceled" if number == Code.CANCELLED else Code(number).name.lower()
        assert word == expected
        assert WORD_FOR_CODE[number] == word


def test_the_status_table_is_the_spec_s_and_code_proto_s() -> None:
    spec = {
        "canceled": 499, "unknown": 500, "invalid_argument": 400, "deadline_exceeded": 504, "not_found": 404,
        "already_exists": 409, "permission_denied": 403, "resource_exhausted": 429, "failed_precondition": 400,
        "aborted": 409, "out_of_range": 400, "unimplemented": 501, "internal": 500, "unavailable": 503,
        "data_loss": 500, "unauthenticated": 401,
    }  # fmt: skip
    assert HTTP_FOR_WORD == spec
    assert all(HTTP_FOR_CODE[CODE_FOR_WORD[w]] == s for w, s in spec.items())
    # Before RFC 003 (connectrpc.com PR 130): four codes had other statuses.
    assert PRE_RFC_003_HTTP == {"canceled": 408, "deadline_exceeded": 408, "failed_precondition": 412, "unimplemented": 404}


@pytest.mark.parametrize("word", sorted(CODE_FOR_WORD))
def test_each_code_decodes_to_its_grpc_code_and_status(word: str) -> None:
    fault = connect({"code": word, "message": "m"})
    assert (fault.grpc_code, fault.status, fault.code) == (CODE_FOR_WORD[word], HTTP_FOR_WORD[word], word)
    assert {"code", "status"} <= set(fault.origin.inferred)  # the protocol's word, the code's status
    steps = {"unavailable": "wait", "resource_exhausted": "wait", "aborted": "wait", "deadline_exceeded": "wait",
             "invalid_argument": "fix_request", "out_of_range": "fix_request"}  # fmt: skip
    assert fault.next_step == steps.get(word, "give_up")


@pytest.mark.parametrize(("word", "status"), sorted(PRE_RFC_003_HTTP.items()))
def test_pre_rfc_003_statuses_are_accepted_without_a_note(word: str, status: int) -> None:
    fault = errconv.decode(http(status, dumps({"code": word, "message": "m"})))
    assert (fault.status, fault.grpc_code, fault.origin.body) == (status, CODE_FOR_WORD[word], "connect")
    assert fault.origin.notes == ()


def test_a_status_no_connect_server_sends_is_noted_and_http_wins() -> None:
    fault = errconv.decode(http(418, dumps({"code": "unavailable", "message": "m"})))
    assert (fault.status, fault.grpc_code, fault.next_step) == (418, Code.UNAVAILABLE, NextStep.WAIT)
    assert any("418" in n and "503" in n for n in fault.origin.notes)


# --------------------------------------------------------------------------- unary errors


def test_the_spec_retry_info_example_reads_the_bytes_not_the_debug() -> None:
    fault = connect(SPEC_RETRY)
    assert (fault.status, fault.grpc_code, fault.code) == (503, Code.UNAVAILABLE, "unavailable")
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 60)  # CgIIPA is 60 s; debug says 30s
    assert fault.detail == "overloaded: back off and retry"
    assert any("debug disagrees" in n for n in fault.origin.notes)


def test_padded_base64_and_a_full_type_url_are_read_too() -> None:
    body = {"code": "unavailable", "details": [{"type": "type.googleapis.com/google.rpc.RetryInfo", "value": "CgIIPA=="}]}
    fault = connect(body)
    assert fault.retry_after_seconds == 60 and fault.origin.notes == ()


def test_a_debug_that_agrees_is_not_noted() -> None:
    body = {"code": "unavailable", "details": [{"type": "google.rpc.RetryInfo", "value": "CgIIPA", "debug": {"retryDelay": "60s"}}]}
    assert connect(body).origin.notes == ()


def test_the_simplest_error_is_just_a_code() -> None:
    fault = connect({"code": "unavailable"})
    assert (fault.status, fault.next_step, fault.detail) == (503, NextStep.WAIT, None)


def test_details_are_google_rpc_details() -> None:
    info = error_details_pb2.ErrorInfo(reason="QUOTA_SPENT", domain="api.example.com", metadata={"plan": "free"})
    bad = error_details_pb2.BadRequest(field_violations=[error_details_pb2.BadRequest.FieldViolation(field="name", description="required")])
    help_ = error_details_pb2.Help(links=[error_details_pb2.Help.Link(description="docs", url="https://example.com")])
    body = {
        "code": "resource_exhausted",
        "message": "quota spent",
        "details": [
            {"type": "google.rpc.ErrorInfo", "value": b64(info)},
            {"type": "google.rpc.BadRequest", "value": b64(bad)},
            {"type": "google.rpc.Help", "value": b64(help_), "debug": {"links": [{"description": "docs", "url": "https://example.com"}]}},
        ],
    }
    fault = connect(body)
    assert (fault.code, fault.domain, fault.metadata) == ("QUOTA_SPENT", "api.example.com", {"plan": "free"})
    assert fault.param == "name" and fault.violations[0].description == "required"
    assert fault.next_step == NextStep.WAIT  # RESOURCE_EXHAUSTED
    assert fault.details == (d.Help(links=(d.Link(description="docs", url="https://example.com"),)),)
    assert "code" not in fault.origin.inferred  # a code of the service's own


def test_an_unknown_detail_type_is_kept_as_its_bytes() -> None:
    value = duration_pb2.Duration(seconds=5).SerializeToString()
    fault = connect({"code": "internal", "details": [{"type": "acme.v1.Thing", "value": base64.b64encode(value).decode()}]})
    assert fault.details == (d.RawDetail(type_url="type.googleapis.com/acme.v1.Thing", value=value),)
    again = errconv.decode(errconv.encode(fault, "connect"), "connect")
    assert again.details == fault.details
    assert b'"type":"acme.v1.Thing"' in errconv.encode(fault, "connect")


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "google.protobuf.Struct", "value": "base64-encoded-protobuf", "debug": {"field": "email"}},  # the python guide's placeholder
        {"type": "google.rpc.RetryInfo"},
        {"value": "CgIIPA"},
        {"type": "", "value": "CgIIPA"},
        {"type": 5, "value": "CgIIPA"},
        "google.rpc.RetryInfo",
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"},
        {"type": "google.rpc.RetryInfo", "value": "C"},  # one base64 character is no byte
    ],
    ids=["placeholder", "no-value", "no-type", "empty-type", "type-not-text", "string", "proto3-json", "bad-length"],
)
def test_a_detail_connect_cannot_read_is_kept_as_it_came(entry: Any) -> None:
    fault = connect({"code": "invalid_argument", "message": "name is required", "details": [entry]})
    assert (fault.grpc_code, fault.details, fault.retry_after_seconds) == (Code.INVALID_ARGUMENT, (), None)
    assert fault.extensions == {"details": [entry]}
    assert errconv.decode(errconv.encode(fault, "connect"), "connect") == fault  # kept through a trip


def test_members_a_detail_should_not_have_are_ignored_as_the_spec_says() -> None:
    fault = connect({"code": "unavailable", "details": [{"type": "google.rpc.RetryInfo", "value": "CgIIPA", "extra": 1}]})
    assert fault.retry_after_seconds == 60 and any("extra" in n for n in fault.origin.notes)


def test_members_the_error_does_not_define_are_extensions() -> None:
    fault = connect({"code": "not_found", "message": "m", "request_id": "r1"}, status=404)
    assert fault.extensions == {"request_id": "r1"}


@pytest.mark.parametrize(("word", "grpc"), [("code_0", 0), ("code_20", Code.UNKNOWN), ("code_99999", Code.UNKNOWN)])
def test_a_non_canonical_code_is_read_as_connect_go_writes_it(word: str, grpc: int) -> None:
    fault = connect({"code": word, "message": "m"})
    assert (fault.grpc_code, fault.code) == (grpc, word)


def test_an_unknown_code_string_is_kept_and_the_grpc_code_comes_from_the_status() -> None:
    fault = connect({"code": "overloaded", "message": "m"}, status=429)
    # connect-go leaves such a code unset and takes it from the HTTP status (gRPC's table).
    assert (fault.code, fault.grpc_code, fault.status) == ("overloaded", Code.UNAVAILABLE, 429)
    assert "code" not in fault.origin.inferred and "grpc_code" in fault.origin.inferred


def test_a_unary_body_without_a_code_inside_an_error_response() -> None:
    fault = connect({"message": "no code"}, status=400)
    assert (fault.grpc_code, fault.status, fault.detail) == (Code.INTERNAL, 400, "no code")


# --------------------------------------------------------------------------- end of stream


def test_the_end_of_stream_message_and_its_metadata() -> None:
    body = {"error": {"code": "unavailable"}, "metadata": {"acme-operation-cost": ["237"]}}
    fault = connect(body)
    assert (fault.status, fault.grpc_code, fault.next_step) == (503, Code.UNAVAILABLE, NextStep.WAIT)
    assert fault.extensions == {"metadata": {"acme-operation-cost": ["237"]}}  # the trailers, kept verbatim
    assert errconv.detect(dumps(body)) == "connect"


def test_a_stream_that_failed_is_an_error_inside_a_200() -> None:
    fault = connect({"error": {"code": "unavailable", "message": "overloaded"}}, status=200)
    assert (fault.status, fault.grpc_code, fault.next_step, fault.detail) == (200, Code.UNAVAILABLE, NextStep.WAIT, "overloaded")
    assert errconv.decode(dumps({"error": {"code": "unavailable"}}), status=200).origin.dialect == "connect"


@pytest.mark.parametrize("body", [{}, {"metadata": {"k": ["v"]}}, {"error": None}, {"error": {}}])
def test_an_end_of_stream_without_an_error_is_a_stream_that_succeeded(body: Any) -> None:
    with pytest.raises(errconv.DecodeError, match="succeeded"):
        connect(body)


@pytest.mark.parametrize("media", ["application/connect+json", "application/connect+proto"])
def test_a_streaming_response_is_read_from_its_end_of_stream_envelope(media: str) -> None:
    # protocol.md, "A failed server streaming RPC", with a data message before the end.
    end = b'{"error": {"code": "unavailable", "message": "overloaded"}, "metadata": {"acme-operation-cost": ["237"]}}'
    body = envelope(0, b'{"greeting": "Hello"}') + envelope(2, end)
    fault = errconv.decode(http(200, body, media))
    assert (fault.status, fault.grpc_code, fault.next_step, fault.detail) == (200, Code.UNAVAILABLE, NextStep.WAIT, "overloaded")
    assert fault.origin.body == "connect"
    assert fault.extensions == {"metadata": {"acme-operation-cost": ["237"]}}


def test_a_streaming_response_that_succeeded_is_no_error() -> None:
    # protocol.md, "a successful client streaming RPC".
    body = envelope(0, b'{"greeting": "Hello, Buf and Connect!"}') + envelope(2, b"{}")
    with pytest.raises(errconv.DecodeError):
        errconv.decode(http(200, body, "application/connect+json"))


@pytest.mark.parametrize(
    "body",
    [
        envelope(2, b'{"error": {"code": "unavailable"}}')[:-3],  # cut short
        envelope(3, b"\x1f\x8b compressed"),  # compressed: not read
        b"\x02\x00\x00",  # less than a prefix
        envelope(2, b"not json"),
    ],
    ids=["truncated", "compressed", "short", "not-json"],
)
def test_a_broken_stream_is_a_decode_error(body: bytes) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(http(200, body, "application/connect+json"))


# --------------------------------------------------------------------------- detection


GOOGLE = {"error": {"code": 503, "message": "The service is currently unavailable.", "status": "UNAVAILABLE"}}
GOOGLE_DETAILS = {"error": {"code": 429, "message": "q", "status": "RESOURCE_EXHAUSTED",
                            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "53s"}]}}  # fmt: skip
# APISIX grpc-transcode with show_status_in_body: the gRPC number in code, raw type_url/value details.
APISIX = {"error": {"details": [{"type_url": "type.googleapis.com/google.rpc.RetryInfo", "value": "\n\x02\x08<"}],
                    "message": "unavailable", "code": 14}}  # fmt: skip
ODATA = {"error": {"code": "BadArgument", "message": "Previous passwords may not be reused", "target": "password",
                   "innererror": {"code": "PasswordError"}}}  # fmt: skip
ODATA_SNAKE_DETAILS = {"error": {"code": "not_found", "message": "m", "target": "id"}}
STRIPE = {"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined."}}
PROBLEM = {"type": "https://example.com/probs/x", "title": "Not found", "status": 404, "code": "not_found"}
STATUS_JSON = {"code": 5, "message": "not found", "details": []}
TWIRP = {"code": "not_found", "msg": "no such hat"}
END_STREAM = {"error": {"code": "unavailable", "message": "overloaded"}, "metadata": {"acme-operation-cost": ["237"]}}


@pytest.mark.parametrize(
    ("body", "dialect"),
    [
        (GOOGLE, "google"),
        (GOOGLE_DETAILS, "google"),
        (APISIX, "google"),  # a Google-looking envelope with an integer code: never Connect
        (STRIPE, "stripe"),
        (PROBLEM, "problem"),
        (STATUS_JSON, "status-json"),
        (TWIRP, "twirp"),
        ({"code": "not_found", "message": "no such hat"}, "connect"),
        ({"code": "not_found"}, "connect"),  # Twirp always writes msg
        (END_STREAM, "connect"),
        ({"error": {"code": "unavailable"}}, "connect"),
        (SPEC_RETRY, "connect"),
    ],
    ids=["google", "google-details", "apisix", "stripe", "problem", "status-json", "twirp", "connect-unary",
         "connect-code-only", "connect-end-stream", "connect-end-stream-bare", "connect-retry-info"],  # fmt: skip
)
def test_look_alikes_are_told_apart(body: Any, dialect: str) -> None:
    assert errconv.detect(dumps(body)) == dialect


@pytest.mark.parametrize("body", [GOOGLE, GOOGLE_DETAILS, APISIX, ODATA, ODATA_SNAKE_DETAILS, STRIPE, PROBLEM, STATUS_JSON, TWIRP])
def test_connect_claims_no_look_alike(body: Any) -> None:
    assert CONNECT.recognise(body, None) == 0
    assert errconv.detect(dumps(body)) != "connect"


@pytest.mark.parametrize("body", [END_STREAM, SPEC_RETRY, {"code": "unavailable"}])
def test_no_other_dialect_claims_connect_as_strongly(body: Any) -> None:
    ours = CONNECT.recognise(body, None)
    for other in errconv.dialects.registered():
        if other.name != "connect" and other.form == "json":
            assert other.recognise(body, None) < ours, other.name


def test_connect_claims_no_object_without_its_keys() -> None:
    for body in (END_STREAM, SPEC_RETRY, {"code": "unavailable"}, {"error": {"code": "unavailable"}}):
        stripped = {k: v for k, v in body.items() if k not in CONNECT.keys}
        assert CONNECT.recognise(stripped, None) == 0


def test_a_2xx_response_holds_a_connect_error_only_in_a_stream() -> None:
    for body in ({"code": "unavailable", "message": "m"}, {"error": {"code": "unavailable"}}):
        with pytest.raises(errconv.DecodeError):
            errconv.decode(http(200, dumps(body)))  # application/json: a unary answer, not a stream


def test_no_golden_body_of_another_dialect_is_claimed_by_connect() -> None:
    for case in gc.cases():
        for dialect in ("problem", "google", "status-json", "stripe", "twirp"):
            value = json.loads((case / gc.FILES[dialect]).read_bytes())
            assert CONNECT.recognise(value, None) == 0, (case.name, dialect)


# --------------------------------------------------------------------------- encoding


def test_encoding_writes_the_unary_form_with_unpadded_base64_and_debug() -> None:
    fault = errconv.Fault.build(status=503, code="maintenance", detail="down", next_step="wait", retry_after_seconds=30)
    body = json.loads(errconv.encode(fault, "connect"))
    assert (body["code"], body["message"]) == ("unavailable", "down")
    types = [entry["type"] for entry in body["details"]]
    assert types == ["google.rpc.ErrorInfo", "google.rpc.RetryInfo", "errconv.v1.Problem"]
    assert all("=" not in entry["value"] for entry in body["details"])
    retry = error_details_pb2.RetryInfo.FromString(base64.b64decode(body["details"][1]["value"] + "=="))
    assert retry.retry_delay.seconds == 30 and body["details"][1]["debug"] == {"retryDelay": "30s"}
    assert body["details"][0]["debug"]["metadata"] == {"next_step": "wait"}
    assert errconv.decode(errconv.encode(fault, "connect"), "connect") == fault


def test_http_connect_is_a_unary_error_response() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=7)
    response = errconv.to_http(fault, "connect")
    assert response.status == 429 and ("Content-Type", "application/json") in response.headers
    assert ("Retry-After", "7") in response.headers
    assert errconv.decode(bytes(response)) == fault


def test_a_fault_with_code_ok_goes_out_as_code_0() -> None:
    fault = errconv.Fault.build(status=500, grpc_code=0, next_step="give_up")
    body = errconv.encode(fault, "connect")
    assert json.loads(body)["code"] == "code_0"
    assert errconv.decode(body, "connect") == fault


@pytest.mark.parametrize("case", gc.cases(), ids=[c.name for c in gc.cases()])
def test_every_golden_fault_goes_from_google_to_connect_and_back_whole(case: pathlib.Path) -> None:
    fault = gc.load_fault(case)
    via = errconv.convert(errconv.encode(fault, "google"), "connect", "google")
    assert errconv.decode(via, "connect") == fault
    assert errconv.decode(errconv.convert(via, "google", "connect"), "google") == fault
    assert errconv.losses(fault, "connect") == ()


@pytest.mark.parametrize("other", ["problem", "google", "status-json", "status", "stripe", "twirp"])
def test_connect_to_another_and_back_loses_only_what_the_other_loses(other: str) -> None:
    fault = connect(SPEC_RETRY)
    back = errconv.decode(errconv.encode(errconv.decode(errconv.encode(fault, other), other), "connect"), "connect")
    assert_same_except(back, fault, errconv.losses(fault, other))


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data",
    [b"[]", b'"unavailable"', b"7", b'{"error": "unavailable"}', b'{"error": [1]}', b"{", b"\xff\xfe", b""],
)
def test_bad_input_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(data, "connect")


def test_too_many_details_is_a_decode_error() -> None:
    entry = {"type": "google.rpc.Help", "value": ""}
    with pytest.raises(errconv.DecodeError, match="details"):
        connect({"code": "internal", "details": [entry] * 100})


# --------------------------------------------------------------------------- the realworld captures


def _captures(service: str) -> list[tuple[str, dict[str, Any]]]:
    facts = json.loads((REALWORLD / service / "facts.json").read_text())
    return sorted(facts.items())


@pytest.mark.parametrize(("name", "entry"), _captures("connect"), ids=[n for n, _ in _captures("connect")])
def test_each_connect_capture_is_detected_as_it_says(name: str, entry: dict[str, Any]) -> None:
    data = (REALWORLD / "connect" / name).read_bytes()
    status = entry["facts"]["status"]
    fault = errconv.decode(data) if name.endswith(".http") or status is None else errconv.decode(data, status=status)
    origin = fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect
    assert origin == entry["expected_dialect"] == "connect"


# --------------------------------------------------------------------------- interop: connectrpc


connectrpc = pytest.importorskip("connectrpc")
from connectrpc._codec import proto_binary_codec  # noqa: E402
from connectrpc._protocol import ConnectWireError  # noqa: E402
from connectrpc._protocol_connect import ConnectEnvelopeWriter  # noqa: E402
from connectrpc.client import ConnectClientSync  # noqa: E402
from connectrpc.code import Code as ConnectCode  # noqa: E402
from connectrpc.errors import ConnectError, ErrorDetail  # noqa: E402
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType  # noqa: E402
from connectrpc.request import Headers as ConnectHeaders  # noqa: E402
from protobuf.wkt import Any as PbAny  # noqa: E402
from protobuf.wkt import Empty  # noqa: E402

FAULTS = {case.name: gc.load_fault(case) for case in gc.cases()}
METHOD = MethodInfo(
    name="Get", service_name="acme.v1.Things", input=Empty, output=Empty,
    idempotency_level=IdempotencyLevel.UNKNOWN, stream_type=StreamType.UNARY,
)  # fmt: skip


class _Replay(socketserver.StreamRequestHandler):
    """Answers each `POST /<case>/<service>/<method>` on a connection with errconv's
    http+connect bytes for the case, as they are (the client keeps connections alive)."""

    def handle(self) -> None:
        while request_line := self.rfile.readline().decode("latin-1"):
            length = 0
            while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.rfile.read(length)
            case = urllib.parse.unquote(request_line.split(" ")[1]).strip("/").split("/")[0]
            self.wfile.write(errconv.encode(FAULTS[case], "http+connect"))
            self.wfile.flush()


@pytest.fixture(scope="module")
def connect_peer():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Replay)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("case", sorted(FAULTS))
def test_connectrpc_client_reads_our_error(connect_peer: str, case: str) -> None:
    fault = FAULTS[case]
    with ConnectClientSync(f"{connect_peer}/{case}", send_compression=None) as client:
        with pytest.raises(ConnectError) as caught:
            client.execute_unary(request=Empty(), method=METHOD)
    error = caught.value
    assert error.code == ConnectCode(WORD_FOR_CODE[fault.grpc_code])
    assert error.message == (fault.detail or fault.title or "")
    # The details it parsed: the types and bytes errconv packed, in order.
    ours = json.loads(errconv.to_http(fault, "connect").body)["details"]  # DebugInfo dropped at this boundary
    assert [(x.type_name, x.message_bytes) for x in error.details] == [
        (entry["type"], base64.b64decode(entry["value"] + "==")) for entry in ours
    ]
    by_type = {x.type_name: x.message_bytes for x in error.details}
    info = error_details_pb2.ErrorInfo.FromString(by_type["google.rpc.ErrorInfo"])
    assert info.metadata["next_step"] == str(fault.next_step)
    if fault.code is not None and fault.code.upper() == fault.code:
        assert info.reason == fault.code
    if fault.param is not None:
        assert info.metadata["param"] == fault.param
    if fault.retry_after_seconds is not None:
        retry = error_details_pb2.RetryInfo.FromString(by_type["google.rpc.RetryInfo"])
        assert retry.retry_delay.seconds == fault.retry_after_seconds
    else:
        assert "google.rpc.RetryInfo" not in by_type


def _connectrpc_details() -> list[ErrorDetail]:
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=12))
    info = error_details_pb2.ErrorInfo(reason="BACKEND_BUSY", domain="acme.example")
    return [
        ErrorDetail(PbAny(type_url="type.googleapis.com/google.rpc.RetryInfo", value=retry.SerializeToString())),
        ErrorDetail(PbAny(type_url="type.googleapis.com/google.rpc.ErrorInfo", value=info.SerializeToString())),
    ]


def test_we_read_the_unary_error_connectrpc_writes() -> None:
    wire = ConnectWireError(ConnectCode.UNAVAILABLE, "busy, try later", _connectrpc_details())
    status = wire.to_http_status().code
    fault = errconv.decode(http(status, wire.to_json_bytes()))
    assert (fault.origin.body, fault.status, fault.grpc_code) == ("connect", 503, Code.UNAVAILABLE)
    assert (fault.code, fault.domain, fault.detail) == ("BACKEND_BUSY", "acme.example", "busy, try later")
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 12)


def test_we_read_the_end_of_stream_connectrpc_writes() -> None:
    wire = ConnectWireError(ConnectCode.RESOURCE_EXHAUSTED, "slow down", _connectrpc_details())
    writer = ConnectEnvelopeWriter(proto_binary_codec(), None)
    body = writer.write(Empty()) + writer.end(ConnectHeaders({"acme-cost": "3"}), wire)
    fault = errconv.decode(http(200, body, "application/connect+proto"))
    assert (fault.origin.body, fault.status, fault.grpc_code) == ("connect", 200, Code.RESOURCE_EXHAUSTED)
    assert (fault.next_step, fault.retry_after_seconds, fault.code) == (NextStep.WAIT, 12, "BACKEND_BUSY")
    assert fault.extensions == {"metadata": {"acme-cost": ["3"]}}


def test_a_next_step_in_error_info_metadata_is_stated() -> None:
    info = error_details_pb2.ErrorInfo(reason="PLAN_LIMIT", metadata={"next_step": "give_up"})
    fault = connect({"code": "resource_exhausted", "details": [{"type": "google.rpc.ErrorInfo", "value": b64(info)}]})
    assert fault.next_step == NextStep.GIVE_UP and fault.origin.stated and fault.metadata == {}
