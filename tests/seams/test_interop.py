"""Interop: what errconv writes, read by the real clients that consume it.

Every golden case goes through independent parsers, over loopback only (127.0.0.1):

1. requests (urllib3 + http.client) reads our HTTP responses exactly as
   errconv's own `parse_response` does, and google-api-core turns an
   `http+google` response into the exception, reason, domain and metadata the
   Fault implies (`from_http_response`);
2. grpcio + grpcio-status carry our `grpc` trailers through a real server and
   client: `rpc_status.from_call` accepts them, `errconv.decode` of what the
   client received gives the Fault back, and google-api-core's
   `from_grpc_error` reads the same reason, domain and metadata;
3. stripe-python's own client path (`StripeClient.raw_request` down to
   `handle_error_response` and its retry loop) reads our `http+stripe`
   responses into the class, code, param, request id and retry decision the
   Fault implies;
4. the RFC 9457 Appendix A JSON Schema accepts every problem body we write;
5. protobuf's reference JSON parser (`json_format`) reads our `status-json`
   and `google` details into the same messages as `status.binpb`.

Expected values are written out here (class tables, Stripe's ladder, the
metadata keys), not taken from errconv, so a wrong encoder cannot agree with
itself.
"""

from __future__ import annotations

import base64
import collections
import json
import re
import socketserver
import threading
import urllib.parse
from concurrent import futures
from typing import Any

import grpc
import jsonschema
import pytest
import requests
import stripe
from google.api_core import exceptions as gexc
from google.protobuf import json_format, message_factory, symbol_database
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from requests.structures import CaseInsensitiveDict
from stripe._http_client import HTTPClient

import errconv
import golden_corpus as gc
from errconv.details import RequestInfo
from errconv.dialects import status as errconv_status
from errconv.dialects._trailers import from_text
from errconv.dialects._responses import parse_response

CASES = gc.cases()
IDS = [c.name for c in CASES]
FAULTS = {c.name: gc.load_fault(c) for c in CASES}
HTTP_DIALECTS = ("http+problem", "http+google", "http+stripe")

# Keys errconv writes into ErrorInfo.metadata for the scalar agent fields (DESIGN.md section 3).
AGENT_METADATA_KEYS = ("next_step", "param", "blocked_by", "unblock_with")
ERROR_INFO_URL = "type.googleapis.com/google.rpc.ErrorInfo"
RETRY_INFO_URL = "type.googleapis.com/google.rpc.RetryInfo"
DEBUG_INFO_URL = "type.googleapis.com/google.rpc.DebugInfo"


# --------------------------------------------------------------------------- what a Fault implies


def message_of(fault: errconv.Fault) -> str:
    """Status.message / error.message / grpc-message: the detail, else the title."""
    return fault.detail or fault.title or ""


def expected_reason(fault: errconv.Fault) -> str:
    """ErrorInfo.reason: the code in UPPER_SNAKE, or the gRPC code name when there is no code."""
    if fault.code is None:
        return fault.grpc_code_name
    return fault.code.upper()


def expected_metadata(fault: errconv.Fault) -> dict[str, str]:
    """ErrorInfo.metadata: the fault's metadata plus the agent fields that are set."""
    meta = dict(fault.metadata)
    for key in AGENT_METADATA_KEYS:
        value = getattr(fault, key)
        if value is not None:
            meta[key] = str(value)
    return meta


def request_id_of(fault: errconv.Fault) -> str | None:
    return next((d.request_id for d in fault.details if isinstance(d, RequestInfo) and d.request_id), None)


def waits(fault: errconv.Fault) -> bool:
    return fault.next_step == errconv.NextStep.WAIT


def test_every_case_has_an_agent_contract() -> None:
    # The tests below compare retry decisions and metadata with next_step: make sure
    # no case silently lacks one (which would make those comparisons vacuous).
    assert all(f.next_step is not None for f in FAULTS.values())


# --------------------------------------------------------------------------- loopback HTTP peer


class _CannedResponder(socketserver.StreamRequestHandler):
    """Answers `GET /<case>/<dialect>` with the raw bytes errconv encodes, then closes."""

    def handle(self) -> None:
        request_line = self.rfile.readline().decode("latin-1")
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # request headers; a GET has no body
        _, path, _ = request_line.split(" ", 2)
        case, dialect = urllib.parse.unquote(path).strip("/").split("/")
        self.wfile.write(errconv.encode(FAULTS[case], dialect))


@pytest.fixture(scope="module")
def http_peer():
    """A loopback TCP server replaying our HTTP bytes, so a real HTTP client parses them."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _CannedResponder)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def fetch(base: str, case: str, dialect: str) -> requests.Response:
    """GET our response through requests; trust_env off so no proxy sits in between."""
    with requests.Session() as session:
        session.trust_env = False
        return session.get(f"{base}/{case}/{dialect}", timeout=10)


@pytest.mark.parametrize("dialect", HTTP_DIALECTS)
@pytest.mark.parametrize("case", IDS)
def test_requests_parses_our_http_like_parse_response(http_peer, case, dialect) -> None:
    # The other tests trust errconv's parse_response only because http.client agrees
    # with it: status line, every header, and a body exactly Content-Length long.
    resp = fetch(http_peer, case, dialect)
    ours = parse_response(errconv.encode(FAULTS[case], dialect))
    assert (resp.status_code, resp.reason) == (ours.status, ours.reason)
    assert {k.lower(): v for k, v in resp.headers.items()} == dict(ours.headers)
    assert resp.content == ours.body
    assert int(resp.headers["Content-Length"]) == len(resp.content)
    assert resp.json()  # the declared charset (or JSON's UTF-8 default) decodes the body


# --------------------------------------------------------------------------- 1. google-api-core over HTTP

# api_core's HTTP table (exceptions.py, 2.44): the first class declared for a status wins.
API_CORE_HTTP_CLASS = {
    400: gexc.BadRequest,
    401: gexc.Unauthorized,
    403: gexc.Forbidden,
    404: gexc.NotFound,
    405: gexc.MethodNotAllowed,
    409: gexc.Conflict,
    411: gexc.LengthRequired,
    412: gexc.PreconditionFailed,
    416: gexc.RequestRangeNotSatisfiable,
    429: gexc.TooManyRequests,
    499: gexc.Cancelled,
    500: gexc.InternalServerError,
    501: gexc.MethodNotImplemented,
    502: gexc.BadGateway,
    503: gexc.ServiceUnavailable,
    504: gexc.GatewayTimeout,
}


@pytest.mark.parametrize("case", IDS)
def test_api_core_reads_http_google(http_peer, case) -> None:
    fault = FAULTS[case]
    resp = fetch(http_peer, case, "http+google")
    exc = gexc.from_http_response(resp)

    # api_core picks the class from the status line alone (statuses it has no class
    # for, like 402 and 422, give the base class with .code set).
    assert type(exc) is API_CORE_HTTP_CLASS.get(fault.status, gexc.GoogleAPICallError)
    assert exc.code == fault.status
    assert exc.message == f"GET {resp.request.url}: {message_of(fault)}"
    assert exc.response is resp

    # reason/domain/metadata come from the first ErrorInfo, matched by exact type URL.
    assert exc.reason == expected_reason(fault)
    assert exc.domain == fault.domain  # proto3 JSON omits an empty domain: None then
    assert exc.metadata == (expected_metadata(fault) or None)

    # api_core passes details through as JSON dicts; protobuf's parser reads the delay.
    types = [d["@type"] for d in exc.details]
    assert types[0] == ERROR_INFO_URL
    assert DEBUG_INFO_URL not in types  # an HTTP response is an outer boundary
    retry = [d for d in exc.details if d["@type"] == RETRY_INFO_URL]
    if fault.retry_after_seconds is None:
        assert retry == []
        assert "Retry-After" not in resp.headers
    else:
        info = json_format.ParseDict({k: v for k, v in retry[0].items() if k != "@type"}, error_details_pb2.RetryInfo())
        assert info.retry_delay.ToTimedelta().total_seconds() == fault.retry_after_seconds
        assert resp.headers["Retry-After"] == str(fault.retry_after_seconds)


# --------------------------------------------------------------------------- 2. grpcio + grpcio-status

STATUS_CODES = {c.value[0]: c for c in grpc.StatusCode}
# gRPC's Percent-Byte-Unencoded set (PROTOCOL-HTTP2.md): space and VCHAR except "%".
_GRPC_MESSAGE_SAFE = "".join(chr(b) for b in range(0x20, 0x7F) if b != ord("%"))
_SERVICE = "errconv.interop.Faults"
_WAYS = ("abort", "return")  # abort_with_status, or set_code/set_details/set_trailing_metadata


def grpc_message_encode(text: str) -> str:
    """grpc-message as the spec writes it, via urllib rather than errconv."""
    return urllib.parse.quote(text, safe=_GRPC_MESSAGE_SAFE)


class _Status(collections.namedtuple("_Status", ("code", "details", "trailing_metadata")), grpc.Status):
    """A grpc.Status; grpcio-status builds its own the same way (grpc.Status is an interface)."""


def server_status(fault: errconv.Fault) -> Any:
    """What a grpcio server hands to abort_with_status: errconv.to_grpc's answer, as it is.

    grpcio writes grpc-status and grpc-message itself, from the code and the *plain*
    details (it percent-encodes them), and refuses them as metadata; everything else
    (grpc-status-details-bin, grpc-retry-pushback-ms) goes out as trailing metadata.
    """
    status = errconv.to_grpc(fault, keep_debug=True)  # service to service: DebugInfo too
    assert isinstance(status.code, grpc.StatusCode)  # grpcio is installed
    return status


def sent_pairs(fault: errconv.Fault) -> list[tuple[str, Any]]:
    """The trailers the grpc dialect writes, as pairs with raw -bin values."""
    out = []
    for key, value in from_text(errconv.encode(fault, "grpc")):
        if key.endswith("-bin"):
            value = base64.b64decode(value + "=" * (-len(value) % 4))
        out.append((key, value))
    return out


def _fail(way: str):
    def handler(request: bytes, context: grpc.ServicerContext) -> bytes:
        status = server_status(FAULTS[request.decode()])
        if way == "abort":
            context.abort_with_status(status)
        context.set_code(status.code)
        context.set_details(status.details)
        context.set_trailing_metadata(status.trailing_metadata)
        return b""

    return grpc.unary_unary_rpc_method_handler(handler)  # no serializers: raw bytes both ways


@pytest.fixture(scope="module")
def grpc_peer():
    """One real grpcio server and channel on 127.0.0.1 for the whole module."""
    with futures.ThreadPoolExecutor(max_workers=4) as pool:
        server = grpc.server(pool)
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(_SERVICE, {way: _fail(way) for way in _WAYS}),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.enable_http_proxy", 0)])
        try:
            yield channel
        finally:
            channel.close()
            server.stop(grace=None).wait(5)


def call_failing(channel: grpc.Channel, case: str, way: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        channel.unary_unary(f"/{_SERVICE}/{way}")(case.encode(), timeout=10)
    return info.value


def received_trailers(exc: grpc.RpcError) -> list[tuple[str, str | bytes]]:
    """The trailers as they were on the wire.

    grpcio takes grpc-status and grpc-message out of trailing_metadata() (they are
    code() and details(), the latter percent-decoded); put them back, re-encoded.
    """
    pairs: list[tuple[str, str | bytes]] = [("grpc-status", str(exc.code().value[0]))]
    if exc.details():
        pairs.append(("grpc-message", grpc_message_encode(exc.details())))
    pairs.extend((k, v) for k, v in exc.trailing_metadata())
    return pairs


@pytest.mark.parametrize("way", _WAYS)
@pytest.mark.parametrize("case", IDS)
def test_grpc_status_over_a_real_call(grpc_peer, case, way) -> None:
    fault = FAULTS[case]
    sent = sent_pairs(fault)
    exc = call_failing(grpc_peer, case, way)

    assert exc.code() == STATUS_CODES[fault.grpc_code]
    assert exc.details() == message_of(fault)
    # grpcio-status checks code and message against the Status inside, and raises on a mismatch.
    assert rpc_status.from_call(exc) == errconv_status.to_message(fault)
    # Our trailers arrive byte for byte, and our grpc-message is the spec's percent-encoding.
    sent_trailers = {k: v for k, v in sent if k not in ("grpc-status", "grpc-message")}
    assert dict(exc.trailing_metadata()) == sent_trailers
    assert dict(sent).get("grpc-message", "") == grpc_message_encode(message_of(fault))
    # gRFC A6 pushback: the delay in ms for a wait that has one, -1 for any other step.
    pushback = sent_trailers.get("grpc-retry-pushback-ms")
    if waits(fault):
        expected = None if fault.retry_after_seconds is None else str(fault.retry_after_seconds * 1000)
    else:
        expected = "-1"
    assert pushback == expected
    # And what the client received decodes back to the fault.
    assert errconv.decode(received_trailers(exc), "grpc") == fault


# api_core's gRPC table (the specific subclass per code, google.md section 5.3).
API_CORE_GRPC_CLASS = {
    1: gexc.Cancelled,
    2: gexc.Unknown,
    3: gexc.InvalidArgument,
    4: gexc.DeadlineExceeded,
    5: gexc.NotFound,
    6: gexc.AlreadyExists,
    7: gexc.PermissionDenied,
    8: gexc.ResourceExhausted,
    9: gexc.FailedPrecondition,
    10: gexc.Aborted,
    11: gexc.OutOfRange,
    12: gexc.MethodNotImplemented,
    13: gexc.InternalServerError,
    14: gexc.ServiceUnavailable,
    15: gexc.DataLoss,
    16: gexc.Unauthenticated,
}


@pytest.mark.parametrize("case", IDS)
def test_api_core_reads_the_grpc_error(grpc_peer, case) -> None:
    fault = FAULTS[case]
    exc = gexc.from_grpc_error(call_failing(grpc_peer, case, "abort"))

    assert type(exc) is API_CORE_GRPC_CLASS[fault.grpc_code]
    assert exc.grpc_status_code == STATUS_CODES[fault.grpc_code]
    assert exc.message == message_of(fault)
    # Here error_info is the unpacked ErrorInfo proto (the last one): empty domain is "".
    assert exc.reason == expected_reason(fault)
    assert exc.domain == (fault.domain or "")
    assert dict(exc.metadata) == expected_metadata(fault)
    retry = [d for d in exc.details if isinstance(d, error_details_pb2.RetryInfo)]
    if fault.retry_after_seconds is None:
        assert retry == []
    else:
        assert [r.retry_delay.seconds for r in retry] == [fault.retry_after_seconds]


# --------------------------------------------------------------------------- 3. stripe-python


class CannedHTTPClient(HTTPClient):
    """stripe's HTTPClient with the socket replaced by queued (body, status, headers) tuples.

    Everything above `request` is stripe's own: the retry loop, `_should_retry`,
    `_interpret_response` and the error ladder. Backoff sleeps are skipped.
    """

    name = "canned"

    def __init__(self, *responses):
        super().__init__()
        self.responses, self.calls = list(responses), 0

    def request(self, method, url, headers, post_data=None):
        self.calls += 1
        return self.responses.pop(0)

    def _sleep_time_seconds(self, num_retries):
        return 0.0


def stripe_class_for(status: int, error: dict) -> type[stripe.StripeError]:
    """stripe-python 16's v1 ladder (_api_requestor.specific_v1_api_error), by status first."""
    if status == 429 or (status == 400 and error.get("code") == "rate_limit"):
        return stripe.RateLimitError
    if status in (400, 404):
        return stripe.IdempotencyError if error.get("type") == "idempotency_error" else stripe.InvalidRequestError
    return {401: stripe.AuthenticationError, 402: stripe.CardError, 403: stripe.PermissionError}.get(
        status, stripe.APIError
    )


@pytest.mark.parametrize("case", IDS)
def test_stripe_python_reads_http_stripe(http_peer, case) -> None:
    fault = FAULTS[case]
    resp = fetch(http_peer, case, "http+stripe")
    # Exactly what stripe's RequestsClient.request returns for this response.
    reply = (resp.content, resp.status_code, resp.headers)
    assert isinstance(resp.headers, CaseInsensitiveDict)  # stripe looks up "request-id" in lower case

    # With one retry allowed and the same error queued twice, stripe sends the request
    # again exactly when it decides to retry.
    transport = CannedHTTPClient(reply, reply)
    client = stripe.StripeClient("sk_test_interop", http_client=transport, max_network_retries=1)
    with pytest.raises(stripe.StripeError) as info:
        client.raw_request("post", "/v1/charges")
    err = info.value

    body_error = json.loads(resp.content)["error"]
    assert type(err) is stripe_class_for(fault.status, body_error)
    assert err.http_status == fault.status
    assert err.error.code == fault.code
    assert err.error.param == fault.param
    assert err.error.message == (fault.detail or fault.title)
    assert err.error.doc_url == fault.type
    assert err.error.decline_code == fault.extensions.get("decline_code")
    assert err.request_id == request_id_of(fault)

    # Retry: stripe's own decision agrees with our next step.
    assert HTTPClient()._should_retry(reply, None, 0, 2) is waits(fault)
    assert transport.calls == (2 if waits(fault) else 1)


# --------------------------------------------------------------------------- 4. RFC 9457 Appendix A

# RFC 9457 Appendix A, verbatim but for the RFC 8792 line wrapping of the descriptions.
PROBLEM_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "An RFC 7807 problem object",
    "type": "object",
    "properties": {
        "type": {
            "type": "string",
            "format": "uri-reference",
            "description": "A URI reference that identifies the problem type.",
        },
        "title": {
            "type": "string",
            "description": "A short, human-readable summary of the problem type.",
        },
        "status": {
            "type": "integer",
            "description": "The HTTP status code generated by the origin server for this occurrence of the problem.",
            "minimum": 100,
            "maximum": 599,
        },
        "detail": {
            "type": "string",
            "description": "A human-readable explanation specific to this occurrence of the problem.",
        },
        "instance": {
            "type": "string",
            "format": "uri-reference",
            "description": "A URI reference that identifies the specific occurrence of the problem. "
            "It may or may not yield further information if dereferenced.",
        },
    },
}

# jsonschema checks uri-reference only with rfc3987 or rfc3986-validator installed, and
# neither is a dependency; then we check RFC 3986's URI-reference ABNF (section 4.1) here.
_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_PCHAR = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_SEGMENT = rf"{_PCHAR}*"
_SEGMENT_NZ_NC = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}@]|{_PCT})+"
_USERINFO = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*"
_REG_NAME = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*"
_IP_LITERAL = rf"\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+)\]"
_AUTHORITY = rf"(?:{_USERINFO}@)?(?:{_IP_LITERAL}|{_REG_NAME})(?::[0-9]*)?"
_QUERY = rf"(?:{_PCHAR}|[/?])*"  # fragment has the same grammar
_PATH_ABEMPTY = rf"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = rf"/(?:{_PCHAR}+(?:/{_SEGMENT})*)?"
_PATH_ROOTLESS = rf"{_PCHAR}+(?:/{_SEGMENT})*"
_PATH_NOSCHEME = rf"{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*"
_TAIL = rf"(?:\?{_QUERY})?(?:#{_QUERY})?"
_URI = rf"[A-Za-z][A-Za-z0-9+\-.]*:(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_ROOTLESS}|){_TAIL}"
_RELATIVE_REF = rf"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_PATH_NOSCHEME}|){_TAIL}"
URI_REFERENCE = re.compile(rf"{_URI}|{_RELATIVE_REF}")


def problem_format_checker() -> jsonschema.FormatChecker:
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    if "uri-reference" in checker.checkers:
        return checker
    checker = jsonschema.FormatChecker()
    checker.checks("uri-reference")(lambda value: not isinstance(value, str) or bool(URI_REFERENCE.fullmatch(value)))
    return checker


PROBLEM_VALIDATOR = jsonschema.Draft202012Validator(PROBLEM_SCHEMA, format_checker=problem_format_checker())


def test_the_problem_schema_and_its_format_check_bite() -> None:
    # Guard against a vacuous schema test: the schema is valid, and it rejects bad members.
    jsonschema.Draft202012Validator.check_schema(PROBLEM_SCHEMA)
    for good in ("https://api.example.com/problems/x", "about:blank", "/requests/7f3a", "", "#f", "../a?b=c%20d",
                 "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", "http://[::1]:8080/p"):  # fmt: skip
        assert PROBLEM_VALIDATOR.is_valid({"type": good, "instance": good}), good
    for bad in ("http://exa mple.com", "https://example.com/é", ":no-scheme", "a%zz", "http://[::1/p", "x\ny"):
        assert not PROBLEM_VALIDATOR.is_valid({"type": bad}), bad
    for bad in ({"status": 99}, {"status": 600}, {"status": 404.5}, {"status": "404"}, {"title": 1}, []):
        assert not PROBLEM_VALIDATOR.is_valid(bad), bad


def assert_valid_problem(body: dict, fault: errconv.Fault) -> None:
    errors = [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in PROBLEM_VALIDATOR.iter_errors(body)
    ]
    assert not errors, errors
    # RFC 9457 3.1.2: status, when present, is the HTTP status of the response.
    assert body.get("status", fault.status) == fault.status


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_golden_problem_json_matches_rfc9457_schema(case) -> None:
    assert_valid_problem(json.loads((case / "problem.json").read_bytes()), FAULTS[case.name])


@pytest.mark.parametrize("case", IDS)
def test_http_problem_body_matches_rfc9457_schema(http_peer, case) -> None:
    resp = fetch(http_peer, case, "http+problem")
    assert resp.headers["Content-Type"] == "application/problem+json"
    assert_valid_problem(resp.json(), FAULTS[case])


# --------------------------------------------------------------------------- 5. protobuf json_format

_POOL = symbol_database.Default().pool


def unpacked(status: status_pb2.Status) -> list[tuple[str, object]]:
    """Each detail as (type URL, message), so map fields compare as maps, not as bytes."""
    out = []
    for any_ in status.details:
        cls = message_factory.GetMessageClass(_POOL.FindMessageTypeByName(any_.TypeName()))
        out.append((any_.type_url, cls.FromString(any_.value)))
    return out


def _all_types_known(status: status_pb2.Status) -> bool:
    try:
        unpacked(status)
    except KeyError:
        return False
    return True


# json_format cannot parse an Any whose type it has no descriptor for (that is why
# errconv keeps such details opaque with its own codec), so those cases sit out.
ROOT_UNKNOWN = next(c for c in CASES if c.name == "unknown_detail")
KNOWN_TYPE_CASES = [c for c in CASES if _all_types_known(status_pb2.Status.FromString((c / "status.binpb").read_bytes()))]


def test_only_the_unknown_detail_case_sits_out_of_json_format() -> None:
    assert {c.name for c in CASES} - {c.name for c in KNOWN_TYPE_CASES} == {"unknown_detail"}
    with pytest.raises(json_format.ParseError):
        json_format.Parse((ROOT_UNKNOWN / "status-json.json").read_bytes(), status_pb2.Status())


@pytest.mark.parametrize("case", KNOWN_TYPE_CASES, ids=[c.name for c in KNOWN_TYPE_CASES])
def test_json_format_reads_our_status_json_and_google_details(case) -> None:
    want = status_pb2.Status.FromString((case / "status.binpb").read_bytes())
    status_json = json_format.Parse((case / "status-json.json").read_bytes(), status_pb2.Status())
    assert (status_json.code, status_json.message) == (want.code, want.message)
    assert unpacked(status_json) == unpacked(want)

    # Google's envelope carries the same proto3 JSON details; only code/status differ.
    envelope = json.loads((case / "google.json").read_bytes())["error"]
    google = json_format.ParseDict({"details": envelope["details"]}, status_pb2.Status())
    assert unpacked(google) == unpacked(want)
    assert envelope["status"] == FAULTS[case.name].grpc_code_name
