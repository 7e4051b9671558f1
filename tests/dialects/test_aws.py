"""The `aws` dialect: AWS's JSON and XML errors, read as botocore reads them.

Interop is with botocore itself, independent of errconv: its protocol parsers
(`create_parser(protocol)`) read every AWS capture in tests/realworld to the same code
and message; its standard-mode retry classifier agrees with our wait / not-wait; and a
real botocore client, pointed at a loopback server replaying each capture, raises the
same code and retries exactly when errconv says wait. Expected values elsewhere are
written out, not taken from errconv.
"""

from __future__ import annotations

import http.server
import json
import pathlib
import threading
import types
from typing import Any

import botocore.session
import pytest
from botocore import handlers
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.parsers import create_parser
from botocore.retries import standard
from hypothesis import given, settings
from hypothesis import strategies as st

import errconv
import golden_corpus as gc
from errconv import Code, NextStep
from errconv.dialects._responses import parse_response
from errconv.details import RequestInfo
from errconv.dialects.aws import CODES, code_row
from helpers import assert_same_except

ROOT = pathlib.Path(__file__).resolve().parent.parent / "realworld"
NOW = 1_800_000_000.0


def _captures() -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    out = []
    for service in ("aws_json", "aws_xml"):
        for name, entry in json.loads((ROOT / service / "facts.json").read_text()).items():
            out.append((f"{service}/{name}", ROOT / service / name, entry))
    return out


CAPTURES = _captures()
IDS = [key for key, _, _ in CAPTURES]


def _read(path: pathlib.Path, entry: dict[str, Any]) -> errconv.Fault:
    data = path.read_bytes()
    status = entry["facts"]["status"]
    if path.suffix == ".http" or status is None:
        return errconv.decode(data, now=NOW)
    return errconv.decode(data, status=status, now=NOW)


def _response(path: pathlib.Path, entry: dict[str, Any], fault: errconv.Fault) -> tuple[int, dict[str, str], bytes]:
    """The capture as the HTTP response botocore would see: a bare body's status is the
    one its source states, else the one errconv inferred (said in the test's name)."""
    data = path.read_bytes()
    if path.suffix == ".http":
        resp = parse_response(data)
        return resp.status, dict(resp.headers.items), resp.body
    return entry["facts"]["status"] or fault.status, {}, data


def _botocore(protocol: str, status: int, headers: dict[str, str], body: bytes) -> tuple[dict[str, Any], bool]:
    """botocore's parsed error and its standard-mode verdict (retry or not) for a response."""
    if handlers._looks_like_special_case_error(status, body):
        status = 500  # botocore's S3 handler (_handle_200_error): an <Error> inside a 200 is a 500
    parsed = create_parser(protocol).parse({"status_code": status, "headers": headers, "body": body}, None)
    operation = types.SimpleNamespace(service_model=types.SimpleNamespace(service_name="interop"), error_shapes=[])
    response = types.SimpleNamespace(status_code=status, headers=headers, content=body)
    context = standard.RetryContext(attempt_number=1, operation_model=operation, parsed_response=parsed, http_response=response)
    return parsed, standard.StandardRetryConditions().is_retryable(context)


# Where botocore and errconv part, and why (the only ones; every other capture agrees):
# a restJson service answering in XML (botocore's own test; API Gateway). botocore's JSON
# parser cannot read the body, so its code is the status ("403") and its message the
# whole body; the body does name the error, as its root element, and errconv reads that.
DISAGREE = {
    "aws_xml/restjson-service-xml-access-denied.xml": ("AccessDeniedException", "Unable to determine service/operation name to be authorized"),
    "aws_xml/apigateway-missing-auth-token-xml.xml": ("MissingAuthenticationTokenException", "Missing Authentication Token"),
}


# --------------------------------------------------------------------------- botocore agrees


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=IDS)
def test_botocores_parser_reads_the_same_code_and_message(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    fault = _read(path, entry)
    status, headers, body = _response(path, entry, fault)
    parsed, _ = _botocore(entry["protocol"], status, headers, body)
    error = parsed["Error"]
    if key in DISAGREE:
        assert (error["Code"], error["Message"]) == (str(status), body.decode())
        assert (fault.code, fault.detail) == DISAGREE[key]
        return
    # A body that states no code: botocore falls back to the status as the code, errconv
    # leaves the code empty (the status is in its own field).
    assert error["Code"] == (fault.code if fault.code is not None else str(status))
    assert (error.get("Message") or None) == fault.detail


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=IDS)
def test_botocores_retry_classifier_agrees_on_wait(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    fault = _read(path, entry)
    status, headers, body = _response(path, entry, fault)
    _, retryable = _botocore(entry["protocol"], status, headers, body)
    assert retryable == (fault.next_step == NextStep.WAIT), (key, fault.next_step, fault.origin.next_step)


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=IDS)
def test_each_capture_is_detected_as_it_says(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    origin = _read(path, entry).origin
    read_as = origin.body if origin.dialect == "http" else origin.dialect
    if entry["expected_dialect"] == "aws":
        assert read_as == "aws"
    else:  # "unknown": nothing in it says AWS (lambda-caller-rate-limit.json, a bare {"message", "Reason", "Type"})
        assert entry["expected_dialect"] == "unknown" and read_as != "aws"


def test_the_corpus_has_its_captures_and_every_protocol() -> None:
    labelled = [key for key, _, entry in CAPTURES if entry["expected_dialect"] == "aws"]
    assert len(labelled) == 39
    assert {entry["protocol"] for _, _, entry in CAPTURES} == {"json", "rest-json", "query", "ec2", "rest-xml"}


# --------------------------------------------------------------------------- a real botocore client over loopback

# One operation per protocol, the service whose parser botocore picks for it: the capture
# is served as the answer, whatever the operation asked.
STAND_INS = {
    "json": ("dynamodb", "list_tables", {}),
    "rest-json": ("lambda", "list_functions", {}),
    "query": ("sts", "get_caller_identity", {}),
    "ec2": ("ec2", "describe_instances", {}),
    "rest-xml": ("s3", "list_objects_v2", {"Bucket": "bucket"}),
}
# botocore's S3 region redirector answers these two by re-sending the request to AWS's own
# regional endpoint, which a loopback test must not reach; the parser tests above read them.
REDIRECTED = {"aws_xml/s3-permanent-redirect.http", "aws_xml/s3-authorization-header-malformed.http"}


# One session: its loaders read each service model once.
_SESSION = botocore.session.Session()


class _Replay(http.server.BaseHTTPRequestHandler):
    """Answers every request with the capture the server holds, counting requests."""

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        server: Any = self.server
        server.hits += 1
        status, headers, body = server.canned
        self.send_response(status)
        for name, value in headers.items():
            if name not in ("content-length", "connection", "date"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def replay():
    server: Any = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Replay)
    server.daemon_threads = True
    server.hits, server.canned = 0, (500, {}, b"")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    # botocore waits rand() * base * 2**attempt between tries: none here, so a retry costs no time.
    monkeypatch.setattr(standard.ExponentialBackoff, "delay_amount", lambda self, context: 0.0)
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.setenv(name, "/dev/null")
    for name in ("AWS_PROFILE", "AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS", "AWS_ENDPOINT_URL", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("key, path, entry", [c for c in CAPTURES if c[0] not in REDIRECTED], ids=[k for k in IDS if k not in REDIRECTED])
def test_a_botocore_client_raises_the_code_and_retries_exactly_the_waits(
    replay: Any, no_backoff: None, key: str, path: pathlib.Path, entry: dict[str, Any]
) -> None:
    fault = _read(path, entry)
    replay.canned = _response(path, entry, fault)
    replay.hits = 0
    service, operation, params = STAND_INS[entry["protocol"]]
    client = _SESSION.create_client(
        service,
        region_name="us-east-1",
        endpoint_url=f"http://127.0.0.1:{replay.server_address[1]}",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="interop-secret",
        config=Config(retries={"mode": "standard", "max_attempts": 2}, s3={"addressing_style": "path"}, proxies={}),
    )
    with pytest.raises(ClientError) as raised:
        getattr(client, operation)(**params)
    error = raised.value.response["Error"]
    status = replay.canned[0]
    if key in DISAGREE:
        assert error["Code"] == str(status)
    else:
        assert error["Code"] == (fault.code if fault.code is not None else str(status))
    assert (replay.hits > 1) == (fault.next_step == NextStep.WAIT), (key, replay.hits, fault.next_step)


# --------------------------------------------------------------------------- the code table


def test_botocores_throttling_and_transient_codes_are_waits_in_the_table() -> None:
    listed = (
        standard.ThrottledRetryableChecker._THROTTLED_ERROR_CODES
        + standard.TransientRetryableChecker._TRANSIENT_ERROR_CODES
    )
    legacy = json.loads((pathlib.Path(botocore.__file__).parent / "data" / "_retry.json").read_text())

    def codes(node: Any) -> list[str]:
        if isinstance(node, dict):
            own = [node["service_error_code"]] if "service_error_code" in node else []
            return own + [c for v in node.values() for c in codes(v)]
        return []

    # Legacy mode also retried S3's BadDigest (a Content-MD5 mismatch); standard mode, the
    # default since botocore 1.36, does not, and errconv follows the default.
    legacy_codes = [c for c in codes(legacy) if c != "BadDigest"]
    assert len(legacy_codes) == len(codes(legacy)) - 1
    for code in [*listed, *legacy_codes, "IDPCommunicationError"]:
        assert CODES[code][0] == NextStep.WAIT, code
        # ... even on a 400, in either wire form.
        json_body = json.dumps({"__type": f"com.amazonaws.x#{code}", "message": "m"}).encode()
        xml_body = f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>m</Message></Error></ErrorResponse>".encode()
        for body in (json_body, xml_body):
            fault = errconv.from_http(400, [], body)
            assert (fault.code, fault.next_step, fault.origin.body) == (code, NextStep.WAIT, "aws")


# (code, status it came with, next step, gRPC code): each row where the status misleads.
ROWS = [
    ("ThrottlingException", 400, "wait", Code.RESOURCE_EXHAUSTED),
    ("LimitExceededException", 400, "wait", Code.RESOURCE_EXHAUSTED),  # botocore's list, whatever the service means
    ("RequestTimeout", 400, "wait", Code.DEADLINE_EXCEEDED),
    ("PriorRequestNotComplete", 400, "wait", Code.UNAVAILABLE),
    ("ReplicatedWriteConflictException", 409, "wait", Code.ABORTED),
    ("AccessDenied", 400, "give_up", Code.PERMISSION_DENIED),
    ("AccessDeniedException", 400, "give_up", Code.PERMISSION_DENIED),
    ("UnauthorizedOperation", 403, "give_up", Code.PERMISSION_DENIED),
    ("UnrecognizedClientException", 400, "give_up", Code.UNAUTHENTICATED),
    ("ExpiredTokenException", 400, "give_up", Code.UNAUTHENTICATED),
    ("ResourceNotFoundException", 400, "give_up", Code.NOT_FOUND),
    ("InvalidInstanceID.NotFound", 400, "give_up", Code.NOT_FOUND),
    ("NoSuchEntity", 400, "give_up", Code.NOT_FOUND),
    ("UnknownResourceFault", 400, "give_up", Code.NOT_FOUND),
    ("AWS.SimpleQueueService.NonExistentQueue", 400, "give_up", Code.NOT_FOUND),
    ("AlreadyExists", 400, "give_up", Code.ALREADY_EXISTS),
    ("FileSystemAlreadyExists", 409, "give_up", Code.ALREADY_EXISTS),  # 409 alone would say wait
    ("BucketAlreadyOwnedByYou", 409, "give_up", Code.ALREADY_EXISTS),
    ("LimitExceeded", 409, "give_up", Code.RESOURCE_EXHAUSTED),  # IAM's quota, not botocore's LimitExceededException
    ("ServiceQuotaExceededException", 400, "give_up", Code.RESOURCE_EXHAUSTED),
    ("ValidationException", 500, "fix_request", Code.INVALID_ARGUMENT),
    ("ValidationError", 400, "fix_request", Code.INVALID_ARGUMENT),
    ("InvalidParameterValue", 400, "fix_request", Code.INVALID_ARGUMENT),
    ("PermanentRedirect", 301, "fix_request", Code.FAILED_PRECONDITION),
]


@pytest.mark.parametrize("code, status, step, grpc_code", ROWS, ids=[r[0] for r in ROWS])
def test_a_code_table_row_outranks_the_status(code: str, status: int, step: str, grpc_code: int) -> None:
    body = f"<Error><Code>{code}</Code><Message>m</Message></Error>".encode()
    fault = errconv.from_http(status, [("Retry-After", "30")] if step != "wait" else [], body)
    assert (fault.status, fault.code, fault.next_step, fault.grpc_code) == (status, code, step, grpc_code)
    assert fault.origin.next_step == f"inferred from aws code {code!r}"
    assert fault.retry_after_seconds is None  # a Retry-After beside a code that says otherwise is not a wait
    assert code_row(code) is not None


def test_codes_the_table_does_not_know_go_by_the_status() -> None:
    body = b'{"__type": "ConflictException", "message": "busy"}'
    assert errconv.from_http(409, [], body).next_step == NextStep.WAIT  # 409 ABORTED, as the ladder says
    assert errconv.from_http(400, [], body.replace(b"Conflict", b"Serialization")).next_step == NextStep.FIX_REQUEST
    assert errconv.from_http(403, [], b'{"__type": "OptInRequired"}').next_step == NextStep.GIVE_UP
    # A 500 is a wait, as botocore retries it (errconv's ladder alone would give up on it).
    fault = errconv.from_http(500, [], b'{"__type": "InternalFailure"}')
    assert (fault.next_step, fault.grpc_code, fault.origin.next_step) == ("wait", Code.INTERNAL, "inferred from HTTP 500, a transient status to botocore")
    assert errconv.from_http(503, [], b'{"__type": "ServiceUnavailable"}').next_step == NextStep.WAIT


# --------------------------------------------------------------------------- JSON shapes


def test_json_type_loses_its_namespace_to_the_domain_and_its_url() -> None:
    fault = errconv.decode(b'{"__type": "com.amazon.coral.service#SerializationException:http://internal.amazon.com/coral/x/", "Message": "bad"}', status=400)
    assert (fault.code, fault.domain, fault.detail) == ("SerializationException", "com.amazon.coral.service", "bad")
    assert fault.origin.dialect == "aws" and fault.extensions == {}
    assert "the URL after ':' in __type is dropped, as botocore does" in fault.origin.notes


def test_rest_json_takes_the_header_first_then_the_body_code() -> None:
    body = b'{"code": "BodyCode", "__type": "TypeCode", "message": "m"}'
    fault = errconv.from_http(400, [("Content-Type", "application/json"), ("x-amzn-ErrorType", "HeaderCode:http://x/")], body)
    assert (fault.code, fault.origin.body) == ("HeaderCode", "aws")
    assert fault.extensions == {"code": "BodyCode", "__type": "TypeCode"}  # not the code: kept as written
    assert len(fault.origin.notes) == 2
    fault = errconv.from_http(400, [("Content-Type", "application/json"), ("x-amzn-RequestId", "r-1")], b'{"Code": "BodyCode", "Message": "m"}')
    assert (fault.code, fault.detail, fault.extensions) == ("BodyCode", "m", {})
    assert fault.details == (RequestInfo(request_id="r-1"),)


def test_aws_json_takes_type_first_as_botocores_json_parser_does() -> None:
    headers = [("Content-Type", "application/x-amz-json-1.0"), ("x-amzn-ErrorType", "Other")]
    fault = errconv.from_http(400, headers, b'{"__type": "com.amazonaws.dynamodb.v20120810#ResourceInUseException", "message": "m"}')
    assert fault.code == "ResourceInUseException"
    assert any("__type wins" in note for note in fault.origin.notes)


def test_the_query_compatible_header_gives_the_query_code() -> None:
    headers = [("Content-Type", "application/x-amz-json-1.0"), ("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender")]
    fault = errconv.from_http(400, headers, b'{"__type": "com.amazonaws.sqs#QueueDoesNotExist", "message": "The specified queue does not exist."}')
    assert (fault.code, fault.next_step, fault.grpc_code) == ("AWS.SimpleQueueService.NonExistentQueue", "give_up", Code.NOT_FOUND)
    # botocore says the same.
    parsed = create_parser("json").parse(
        {"status_code": 400, "headers": {k.lower(): v for k, v in headers}, "body": b'{"__type": "com.amazonaws.sqs#QueueDoesNotExist"}'}, None
    )
    assert parsed["Error"]["Code"] == fault.code


def test_the_message_members_in_botocores_order_then_the_header() -> None:
    read = lambda body, headers=(): errconv.from_http(400, [("x-amzn-ErrorType", "E"), *headers], body)  # noqa: E731
    both = read(b'{"Message": "upper", "message": "lower"}')
    assert (both.detail, both.extensions) == ("lower", {"Message": "upper"})
    assert read(b'{"errorMessage": "lambda"}').detail == "lambda"
    assert read(b"{}", [("x-amzn-ErrorMessage", "from the header")]).detail == "from the header"
    # No body at all (a HEAD, or an API Gateway answer whose body was not kept): the headers say it all.
    empty = read(b"", [("x-amzn-ErrorMessage", "no body")])
    assert (empty.origin.body, empty.code, empty.detail) == ("aws", "E", "no body")


def test_plain_text_under_the_error_type_header_is_the_message() -> None:
    fault = errconv.from_http(500, [("x-amzn-ErrorType", "InternalFailure"), ("Content-Type", "text/plain")], b"Internal Server Error\n")
    assert (fault.origin.body, fault.code, fault.detail, fault.next_step) == ("aws", "InternalFailure", "Internal Server Error", "wait")
    # An HTML page is no AWS body, whatever the headers: it stays vague.
    page = errconv.from_http(502, [("x-amzn-ErrorType", "InternalFailure")], b"<html><title>502</title></html>")
    assert page.origin.body == "vague"


def test_a_lambda_function_error_reads_its_type_as_the_code() -> None:
    body = b'{"errorMessage": "Unable to import module", "errorType": "Runtime.ImportModuleError", "stackTrace": []}'
    fault = errconv.decode(body)
    assert (fault.origin.dialect, fault.code, fault.detail, fault.extensions) == ("aws", "Runtime.ImportModuleError", "Unable to import module", {"stackTrace": []})


def test_smithy_field_lists_give_the_violations_and_the_param() -> None:
    body = json.dumps(
        {"message": "2 validation errors", "fieldList": [{"path": "/a", "message": "too long"}, {"path": "/b/0", "message": "null"}]}
    ).encode()
    fault = errconv.from_http(400, [("x-amzn-ErrorType", "ValidationException")], body)
    assert (fault.param, [v.field for v in fault.violations], fault.violations[0].description) == ("/a", ["/a", "/b/0"], "too long")
    assert fault.next_step == NextStep.FIX_REQUEST and fault.extensions == {}
    # A service's own ValidationException names its fields by `name`, beside a `reason`.
    named = b'{"message": "m", "reason": "fieldValidationFailed", "fieldList": [{"name": "roleArn", "message": "bad"}]}'
    fault = errconv.from_http(400, [("x-amzn-ErrorType", "ValidationException")], named)
    assert (fault.param, fault.extensions) == ("roleArn", {"reason": "fieldValidationFailed"})
    # A list of another shape is kept as it came.
    odd = errconv.from_http(400, [("x-amzn-ErrorType", "ValidationException")], b'{"fieldList": [1]}')
    assert (odd.param, odd.extensions) == (None, {"fieldList": [1]})


def test_members_the_format_does_not_define_are_kept_in_order() -> None:
    fault = errconv.decode(b'{"__type": "FooError", "z": 1, "ErrorDetails": [{"__type": "x#Inner"}], "a": null}', status=500)
    assert list(fault.extensions) == ["z", "ErrorDetails", "a"]


def test_a_bare_json_body_gets_its_status_from_the_table_or_the_fault_type() -> None:
    cases = [
        (b'{"__type": "ThrottlingException"}', 400),
        (b'{"__type": "TooManyRequestsException"}', 429),
        (b'{"__type": "ResourceNotFoundException"}', 404),
        (b'{"__type": "InternalFailure"}', 500),
        (b'{"__type": "Whatever", "Type": "Service"}', 500),
        (b'{"__type": "Whatever", "Type": "User"}', 400),
        (b'{"__type": "Whatever"}', 400),
    ]
    for body, status in cases:
        fault = errconv.decode(body)
        assert (fault.status, "status" in fault.origin.inferred) == (status, True), body


def test_wire_signals_around_an_aws_body() -> None:
    body = b'{"__type": "ThrottlingException", "message": "Rate exceeded"}'
    fault = errconv.from_http(400, [("x-amz-retry-after", "2500")], body)
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", 3)
    assert errconv.from_http(400, [("x-should-retry", "false")], body).next_step == NextStep.GIVE_UP


def test_a_json_body_in_a_2xx_is_no_error() -> None:
    with pytest.raises(errconv.DecodeError, match="not an error response: 200"):
        errconv.from_http(200, [("Content-Type", "application/x-amz-json-1.1")], b'{"__type": "ThrottlingException"}')
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        errconv.decode(b'{"__type": "ThrottlingException"}', "aws", status=200)


# --------------------------------------------------------------------------- XML shapes


def test_query_xml() -> None:
    body = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error>'
        b"<Type>Receiver</Type><Code>ServiceFailure</Code><Message>a &amp; b <![CDATA[<c>]]></Message><Extra>x</Extra>"
        b"</Error><RequestId>r-1</RequestId></ErrorResponse>"
    )
    fault = errconv.decode(body)
    assert (fault.code, fault.detail, fault.domain) == ("ServiceFailure", "a & b <c>", "https://iam.amazonaws.com/doc/2010-05-08/")
    assert (fault.status, fault.next_step) == (500, "wait")  # Receiver: a server fault, which botocore retries as a 500
    assert fault.extensions == {"Type": "Receiver", "Extra": "x"}
    assert fault.details == (RequestInfo(request_id="r-1"),)


def test_ec2_xml_keeps_every_error_after_the_first() -> None:
    body = (
        b"<Response><Errors><Error><Code>InvalidParameterValue</Code><Message>first</Message></Error>"
        b"<Error><Code>InvalidInstanceID.Malformed</Code><Message>second</Message></Error></Errors>"
        b"<RequestID>r-2</RequestID></Response>"
    )
    fault = errconv.from_http(400, [("Content-Type", "text/xml;charset=UTF-8")], body)
    assert (fault.origin.body, fault.code, fault.detail, fault.next_step) == ("aws", "InvalidParameterValue", "first", "fix_request")
    assert fault.extensions == {"Errors": [{"Code": "InvalidInstanceID.Malformed", "Message": "second"}]}
    assert fault.details == (RequestInfo(request_id="r-2"),)


def test_s3_xml_keeps_its_resource_elements() -> None:
    body = b"<Error><Code>NoSuchBucket</Code><Message>m</Message><BucketName>b</BucketName><RequestId>r</RequestId><HostId>h</HostId></Error>"
    fault = errconv.from_http(404, [("Content-Type", "application/xml"), ("x-amz-request-id", "header-id")], body)
    assert (fault.code, fault.next_step, fault.extensions) == ("NoSuchBucket", "give_up", {"BucketName": "b", "HostId": "h"})
    assert fault.details == (RequestInfo(request_id="r"),)  # the body's id, the same request's
    assert errconv.from_http(404, [("x-amz-request-id", "header-id")], body.replace(b"<RequestId>r</RequestId>", b"")).details == (
        RequestInfo(request_id="header-id"),
    )


def test_xml_with_a_namespace_prefix_or_a_byte_order_mark() -> None:
    body = b'\xef\xbb\xbf<aws:ErrorResponse xmlns:aws="urn:x"><aws:Error><aws:Code>Throttling</aws:Code></aws:Error></aws:ErrorResponse>'
    assert errconv.decode(body).code == "Throttling"


def test_an_s3_error_inside_a_200_is_an_error_and_other_xml_in_a_200_is_not() -> None:
    fault = errconv.from_http(200, [], b"<Error><Code>InternalError</Code><Message>m</Message></Error>")
    assert (fault.status, fault.grpc_code, fault.next_step) == (200, Code.INTERNAL, "wait")  # botocore retries it as a 500
    with pytest.raises(errconv.DecodeError, match="not an error response: 200"):
        errconv.from_http(200, [], b"<ErrorResponse><Error><Code>Throttling</Code></Error></ErrorResponse>")
    with pytest.raises(errconv.DecodeError, match="not an error response: 200"):
        errconv.from_http(200, [("Content-Type", "application/xml")], b"<ListBucketResult><Name>b</Name></ListBucketResult>")


def test_the_root_can_be_the_error_itself() -> None:
    fault = errconv.from_http(403, [], b"<AccessDeniedException><Message>no</Message></AccessDeniedException>")
    assert (fault.code, fault.detail, fault.next_step) == ("AccessDeniedException", "no", "give_up")
    assert "the code is the name of the root element <AccessDeniedException>" in fault.origin.notes


# --------------------------------------------------------------------------- detection against the look-alikes

LOOK_ALIKES_JSON = {
    "problem": b'{"type": "https://example.com/probs/out-of-credit", "title": "You do not have enough credit.", "status": 403, "detail": "d"}',
    "stripe": b'{"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined."}}',
    "google": b'{"error": {"code": 429, "message": "m", "status": "RESOURCE_EXHAUSTED"}}',
    "fastapi": b'{"detail": [{"loc": ["body", "name"], "msg": "Field required", "type": "missing"}]}',
    "fastapi-string": b'{"detail": "Not Found"}',
    "status-json": b'{"code": 8, "message": "m", "details": []}',
    "bare-message": b'{"message": "Forbidden"}',  # API Gateway's default body, and Kong's, and many others'
}


@pytest.mark.parametrize("name", LOOK_ALIKES_JSON)
def test_look_alike_json_is_not_claimed(name: str) -> None:
    body = LOOK_ALIKES_JSON[name]
    assert errconv.dialects.get("aws").recognise(json.loads(body), None) == 0
    assert errconv.decode(body, status=403).origin.dialect != "aws"
    # Behind API Gateway (its request id, but no x-amzn-ErrorType), a body of another shape stays its own.
    if name != "bare-message":
        fault = errconv.from_http(403, [("Content-Type", "application/json"), ("x-amzn-RequestId", "r")], body)
        assert fault.origin.body != "aws"


def test_an_aws_json_body_is_claimed_by_no_other_dialect() -> None:
    for body in (b'{"__type": "ThrottlingException", "message": "Rate exceeded"}', b'{"__type": "x#Y", "Message": "m", "code": 5}'):
        assert errconv.detect(body) == "aws"
        value = json.loads(body)
        others = [d.name for d in errconv.dialects.registered() if d.name != "aws" and d.form == "json" and d.recognise(value, None) >= 3]
        assert others == []


def test_the_api_gateway_default_body_is_aws_only_with_aws_headers() -> None:
    body = b'{"message": "Forbidden"}'
    assert errconv.decode(body, status=403).origin.dialect == "general"  # no marker: a generic {"message"} body
    fault = errconv.from_http(403, [("Content-Type", "application/json"), ("x-amzn-RequestId", "r"), ("x-amz-apigw-id", "a")], body)
    assert (fault.origin.body, fault.code, fault.detail) == ("aws", None, "Forbidden")
    fault = errconv.from_http(403, [("x-amzn-ErrorType", "ForbiddenException"), ("x-amzn-RequestId", "r")], body)
    assert (fault.origin.body, fault.code, fault.next_step) == ("aws", "ForbiddenException", "give_up")
    fault = errconv.from_http(429, [("x-amzn-ErrorType", "TooManyRequestsException")], b'{"message": "Too Many Requests"}')
    assert fault.next_step == NextStep.WAIT


HTML_PAGES = [
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
    b'<!DOCTYPE html>\n<html lang="en"><head><title>Error</title></head><body>Service Unavailable</body></html>',
    b'<?xml version="1.0"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><title>403 Forbidden</title></head></html>',
]


@pytest.mark.parametrize("page", HTML_PAGES)
def test_html_error_pages_stay_vague(page: bytes) -> None:
    for headers in ([("Content-Type", "text/html")], []):
        fault = errconv.from_http(502, headers, page)
        assert fault.origin.body in ("vague", "general") and fault.code is None  # prose of another move: the general reader
    assert errconv.dialects.get("aws").recognise(page, None) == 0


OTHER_XML = [
    b'<problem xmlns="urn:ietf:rfc:7807"><type>https://example.com/probs/out-of-credit</type><title>t</title><status>403</status></problem>',
    b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode>'
    b"<faultstring>x</faultstring></soap:Fault></soap:Body></soap:Envelope>",
    b"<Error><Message>no code</Message></Error>",
    b"<rss><channel><title>t</title></channel></rss>",
]


@pytest.mark.parametrize("body", OTHER_XML)
def test_other_xml_is_not_aws(body: bytes) -> None:
    assert errconv.dialects.get("aws").recognise(body, None) == 0
    assert errconv.from_http(500, [("Content-Type", "application/xml")], body).origin.body != "aws"
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body, "aws")


# --------------------------------------------------------------------------- hostile XML

HOSTILE = {
    "billion-laughs": b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
    b"<Error><Code>&lol2;</Code></Error>",
    "external-entity": b'<?xml version="1.0"?><!DOCTYPE e [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Error><Code>&xxe;</Code></Error>',
    "parameter-entity": b'<!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]><Error><Code>X</Code></Error>',
    "public-dtd": b'<!DOCTYPE Error SYSTEM "http://127.0.0.1:9/x.dtd"><Error><Code>X</Code></Error>',
    "processing-instruction": b'<?xml version="1.0"?><?xml-stylesheet href="x.xsl"?><Error><Code>X</Code></Error>',
    "instruction-inside": b"<Error><?php echo 1 ?><Code>X</Code></Error>",
    "undefined-entity": b"<Error><Code>&nope;</Code></Error>",
    "too-deep": b"<Error><Code>X</Code>" + b"<a>" * 40 + b"</a>" * 40 + b"</Error>",
    "malformed": b"<Error><Code>X</Code>",
    "not-utf8": b"<Error><Code>X</Code><Message>\xff\xfe</Message></Error>",
    "utf16": "<Error><Code>X</Code></Error>".encode("utf-16"),
    "empty": b"   ",
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_xml_is_a_decode_error(name: str) -> None:
    body = HOSTILE[name]
    with pytest.raises(errconv.DecodeError) as raised:
        errconv.decode(body, "aws")
    assert "\n" not in str(raised.value)
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body)  # detected: refused, or no dialect reads it


def test_a_refused_body_inside_http_says_so() -> None:
    with pytest.raises(errconv.DecodeError, match="refuses"):
        errconv.from_http(400, [("Content-Type", "application/xml")], HOSTILE["billion-laughs"])
    # Not XML at all (cut short): read from the status, as botocore falls back to it.
    fault = errconv.from_http(503, [("Content-Type", "application/xml")], HOSTILE["malformed"])
    assert (fault.origin.body, fault.next_step) == ("vague", "wait")


def test_xml_over_the_size_limit_is_refused() -> None:
    body = b"<Error><Code>X</Code><Message>" + b"m" * 2000 + b"</Message></Error>"
    with pytest.raises(errconv.DecodeError, match="max_bytes"):
        errconv.decode(body, "aws", limits=errconv.Limits(max_bytes=1000))
    with pytest.raises(errconv.DecodeError, match="max_string"):
        errconv.decode(body, "aws", limits=errconv.Limits(max_string=1000))


def test_depth_follows_the_limits() -> None:
    body = b"<Error><Code>X</Code>" + b"<a>" * 6 + b"</a>" * 6 + b"</Error>"
    assert errconv.decode(body, "aws").code == "X"
    with pytest.raises(errconv.DecodeError, match="max_depth"):
        errconv.decode(body, "aws", limits=errconv.Limits(max_depth=4))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet="<>/?!&;:#[]-= \"'ErorCdeMsagTypRqI\x00é", max_size=120), st.sampled_from([None, 200, 301, 400, 500]))
def test_any_markup_is_a_fault_or_a_decode_error(text: str, status: int | None) -> None:
    for data in (text.encode(), b"<Error><Code>" + text.encode() + b"</Code></Error>"):
        try:
            errconv.decode(data, "aws", status=status)
        except errconv.DecodeError:
            pass
        try:
            errconv.from_http(status or 400, [("Content-Type", "text/xml")], data)
        except errconv.DecodeError:
            pass


@pytest.mark.parametrize("data", [b"[]", b'"x"', b"[1, 2]", b"{"])
def test_bad_json_input_is_a_decode_error(data: bytes, no_safety_net: None) -> None:
    with pytest.raises(errconv.DecodeError, match="aws"):
        errconv.decode(data, "aws")


def test_an_object_of_odd_members_still_reads_liberally(no_safety_net: None) -> None:
    fault = errconv.decode(b'{"__type": 1}', "aws")
    assert fault.origin is not None and fault.origin.dialect == "aws"
    assert (fault.status, fault.code) == (400, None)


# --------------------------------------------------------------------------- decode only

def test_encoding_names_the_dialects_that_can() -> None:
    fault = errconv.Fault.build(status=400, code="ThrottlingException", next_step="wait", retry_after_seconds=1)
    with pytest.raises(errconv.UnknownDialectError, match=r"aws is read, not written; errconv writes: fault, problem, .*http\+problem"):
        errconv.encode(fault, "aws")
    with pytest.raises(errconv.ErrconvError, match="not an HTTP body dialect"):
        errconv.to_http(fault, "aws")
    assert "http+aws" not in errconv.dialect_names()


WRITERS = [name for name in gc.FILES if not name.startswith("http+")]


@pytest.mark.parametrize("target", WRITERS)
@pytest.mark.parametrize("key, path, entry", [c for c in CAPTURES if c[2]["expected_dialect"] == "aws"], ids=[k for k, _, e in CAPTURES if e["expected_dialect"] == "aws"])
def test_aws_to_any_and_back_within_the_losses(target: str, key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    fault = _read(path, entry)
    back = errconv.decode(errconv.encode(fault, target), target)
    assert_same_except(back, fault, errconv.losses(fault, target))
