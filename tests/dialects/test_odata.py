"""The `odata` dialect: the Microsoft REST API guidelines' error object (Azure, Graph, OData).

Decoding of each shape the guidelines, Graph, OData v2/v3 and SAP Gateway send; the code
tables; detection against every look-alike; encoding; round trips through the other
dialects; bad input; and azure-core's own `HttpResponseError`/`ODataV4Format` reading
what errconv writes, served over loopback.
"""

from __future__ import annotations

import json
import pathlib
import socketserver
import threading
from typing import Any

import pytest
import requests
from azure.core import PipelineClient
from azure.core.exceptions import HttpResponseError, ODataV4Format
from azure.core.pipeline import PipelineResponse
from azure.core.pipeline.policies import RetryPolicy
from azure.core.pipeline.transport import RequestsTransport
from azure.core.rest import HttpRequest

import errconv
import golden_corpus as gc
from errconv.codes import Code, NextStep
from errconv.details import LocalizedMessage, RequestInfo
from errconv.dialects import get
from errconv.dialects._common import Headers
from errconv.dialects._base import HttpInfo
from errconv.dialects._responses import parse_response
from errconv.dialects.odata import status_for_code, step_for_codes
from helpers import assert_same_except

ROOT = pathlib.Path(__file__).resolve().parent.parent
REALWORLD = ROOT / "realworld"
ODATA = get("odata")


def body(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def decode(obj: Any, **kwargs: Any) -> errconv.Fault:
    return errconv.decode(body(obj), **kwargs)


def http(status: int, obj: Any, *headers: tuple[str, str]) -> bytes:
    data = body(obj)
    head = "".join(f"{k}: {v}\r\n" for k, v in (("Content-Type", "application/json"), *headers))
    return f"HTTP/1.1 {status} X\r\n{head}Content-Length: {len(data)}\r\n\r\n".encode() + data


def info(headers: list[tuple[str, str]] | None = None, status: int | None = 400) -> HttpInfo:
    return HttpInfo(status, Headers(headers or []), "application/json")


# --------------------------------------------------------------------------- shapes


GUIDELINES = {
    "error": {
        "code": "InvalidPasswordFormat",
        "message": "Human-readable description",
        "target": "target of error",
        "innererror": {"code": "PasswordTooShort", "minLength": 6},
    }
}


def test_the_guidelines_sample() -> None:
    fault = decode(GUIDELINES)
    assert fault.origin.dialect == "odata"
    assert (fault.code, fault.detail, fault.param) == ("InvalidPasswordFormat", "Human-readable description", "target of error")
    # The service's innererror is its own: kept verbatim, never read as errconv's.
    assert fault.extensions == {"innererror": {"code": "PasswordTooShort", "minLength": 6}}
    # No status anywhere: 400 assumed, FAILED_PRECONDITION, with the target to fix.
    assert (fault.status, fault.grpc_code, fault.next_step) == (400, Code.FAILED_PRECONDITION, NextStep.FIX_REQUEST)
    assert {"status", "grpc_code"} <= set(fault.origin.inferred)


def test_an_unknown_code_without_target_gives_up() -> None:
    fault = decode({"error": {"code": "3000", "message": "Error creating entity"}})
    assert (fault.code, fault.status, fault.next_step) == ("3000", 400, NextStep.GIVE_UP)
    assert "status" in fault.origin.inferred


def test_details_are_violations_and_the_first_target_is_the_param() -> None:
    fault = decode(
        {
            "error": {
                "code": "ValidationError",
                "message": "One or more fields contain incorrect values: ",
                "details": [
                    {"code": "ValidationError", "target": "representation", "message": "Parsing error(s): x"},
                    {"code": "Other", "target": "host", "message": "y"},
                ],
            }
        },
        status=400,
    )
    assert [(v.field, v.description, v.reason) for v in fault.violations] == [
        ("representation", "Parsing error(s): x", "ValidationError"),
        ("host", "y", "Other"),
    ]
    assert fault.param == "representation" and "param" in fault.origin.inferred
    assert fault.next_step == NextStep.FIX_REQUEST


def test_a_target_wins_over_the_details() -> None:
    fault = errconv.decode((REALWORLD / "odata" / "guidelines-details-contact-info.json").read_bytes())
    assert fault.param == "contactInfo" and "param" not in fault.origin.inferred
    assert [v.field for v in fault.violations] == ["phoneNumber", "lastName", "address"]
    assert fault.violations[2].reason == "malformedValue"


def test_details_of_another_shape_are_kept_whole() -> None:
    data = (REALWORLD / "odata" / "app-service-broken-details.json").read_bytes()
    fault = errconv.decode(data, status=400)
    assert fault.violations == ()
    original = json.loads(data)["error"]
    assert fault.extensions == {"target": None, "details": original["details"], "innererror": None}
    # ... and go back where they were.
    again = json.loads(errconv.encode(fault, "odata"))["error"]
    assert again["details"] == original["details"] and again["target"] is None


def test_graph_inner_error_is_kept_verbatim() -> None:
    data = (REALWORLD / "odata" / "graph-too-many-requests.json").read_bytes()
    fault = errconv.decode(data)
    assert fault.code == "TooManyRequests"
    assert fault.extensions == {"innerError": json.loads(data)["error"]["innerError"]}
    assert (fault.status, fault.next_step) == (429, NextStep.WAIT)


def test_odata_v2_message_object() -> None:
    fault = decode({"error": {"code": "ABC", "message": {"lang": "en", "value": "Some error occured"}}}, status=400)
    assert fault.detail == "Some error occured"
    assert fault.details == (LocalizedMessage(locale="en", message="Some error occured"),)
    assert not fault.extensions


def test_odata_v3_envelope() -> None:
    fault = errconv.decode((REALWORLD / "odata" / "aad-graph-odata-error-lang-value.json").read_bytes())
    assert fault.origin.dialect == "odata"
    assert (fault.code, fault.detail) == ("Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
    assert (fault.status, fault.next_step) == (403, NextStep.GIVE_UP)  # the code's documented status
    assert "status" not in fault.origin.inferred


def test_sap_gateway_errordetails_give_the_param() -> None:
    inner = {
        "code": "ABC",
        "message": {"lang": "en", "value": "Bad"},
        "innererror": {"errordetails": [{"code": "A", "message": "m", "target": ""}, {"code": "B", "message": "n", "target": "Name"}]},
    }
    fault = decode({"error": inner}, status=400)
    assert fault.param == "Name" and "param" in fault.origin.inferred
    assert fault.extensions == {"innererror": inner["innererror"]}


def test_a_bare_error_object_as_sap_logs_it() -> None:
    data = (REALWORLD / "odata" / "sap-gateway-v2-logged-inner.json").read_bytes()
    assert errconv.detect(data) == "odata"
    fault = errconv.decode(data, status=400)
    assert (fault.code, fault.status, fault.next_step) == ("***/***", 400, NextStep.FIX_REQUEST)


def test_arm_additional_info_is_kept() -> None:
    inner = {
        "code": "RequestDisallowedByPolicy",
        "message": "Resource was disallowed by policy.",
        "additionalInfo": [{"type": "PolicyViolation", "info": {"policyDefinitionName": "x"}}],
    }
    fault = decode({"error": inner}, status=403)
    assert fault.extensions == {"additionalInfo": inner["additionalInfo"]}
    assert fault.next_step == NextStep.GIVE_UP


def test_numeric_codes_are_kept_as_strings_and_name_a_status() -> None:
    fault = decode({"error": {"code": "429", "message": "Rate limit is exceeded. Try again in 2 seconds."}})
    assert (fault.code, fault.status, fault.next_step) == ("429", 429, NextStep.WAIT)
    assert fault.retry_after_seconds is None  # only prose says 2 seconds
    fault = decode({"error": {"code": "401", "message": "Access denied"}})
    assert (fault.status, fault.next_step) == (401, NextStep.GIVE_UP)


def test_the_http_status_wins_over_a_numeric_code() -> None:
    fault = errconv.decode((REALWORLD / "odata" / "azure-core-odata-v4-full.json").read_bytes(), status=400)
    assert (fault.code, fault.status, fault.param, fault.next_step) == ("501", 400, "query", NextStep.FIX_REQUEST)
    assert any("'501' reads as HTTP 501" in note for note in fault.origin.notes)


@pytest.mark.parametrize(
    "code, status",
    [
        ("badRequest", 400), ("unauthorized", 401), ("Unauthorized", 401), ("forbidden", 403), ("notFound", 404),
        ("NotFound", 404), ("conflict", 409), ("gone", 410), ("preconditionFailed", 412), ("tooManyRequests", 429),
        ("TooManyRequests", 429), ("InternalServerError", 500), ("notImplemented", 501), ("serviceUnavailable", 503),
        ("gatewayTimeout", 504), ("requestEntityTooLarge", 413), ("unprocessableEntity", 422), ("429", 429), ("503", 503),
        ("Authorization_RequestDenied", 403), ("DeploymentNotFound", 404), ("ResourceRequestsThrottled", 429),
        ("activityLimitReached", 429), ("200", None), ("3000", None), ("ok", None), ("BadArgument", None),
        ("résumé", None), ("", None), (None, None),
    ],
)  # fmt: skip
def test_status_for_code(code: str | None, status: int | None) -> None:
    assert status_for_code(code) == status


def test_the_header_is_the_code_when_the_body_has_none() -> None:
    fault = errconv.decode(http(404, {"error": {"message": "no such blob", "target": "blob"}}, ("x-ms-error-code", "BlobNotFound")))
    assert (fault.code, fault.status, fault.origin.body) == ("BlobNotFound", 404, "odata")


def test_a_header_that_differs_is_noted_and_the_body_kept() -> None:
    fault = errconv.decode(http(409, {"error": {"code": "ContainerAlreadyExists", "message": "x"}}, ("x-ms-error-code", "Other")))
    assert fault.code == "ContainerAlreadyExists"
    assert any("x-ms-error-code" in note for note in fault.origin.notes)


def test_wait_headers_are_read_inside_http() -> None:
    fault = errconv.decode((REALWORLD / "odata" / "graph-activity-limit-reached.http").read_bytes())
    assert (fault.code, fault.next_step, fault.retry_after_seconds) == ("activityLimitReached", NextStep.WAIT, 41)
    fault = errconv.decode(http(429, {"error": {"code": "TooManyRequests", "message": "m"}}, ("x-ms-retry-after-ms", "2500")))
    assert fault.retry_after_seconds == 3


def test_an_empty_message_says_nothing() -> None:
    fault = errconv.decode((REALWORLD / "odata" / "graph-unknown-error-429.json").read_bytes(), status=429)
    assert fault.detail is None and fault.code == "UnknownError" and fault.next_step == NextStep.WAIT


# --------------------------------------------------------------------------- the code table


@pytest.mark.parametrize(
    "code, status, step",
    [
        ("TooManyRequests", 400, NextStep.WAIT),  # a throttle behind a gateway's 400: still a wait
        ("ResourceRequestsThrottled", 400, NextStep.WAIT),
        ("activityLimitReached", 403, NextStep.WAIT),
        ("ServerBusy", 500, NextStep.WAIT),  # 500 ladders to give_up
        ("OperationTimedOut", 500, NextStep.WAIT),
        ("Conflict", 409, NextStep.GIVE_UP),  # 409 ladders to ABORTED, a wait
        ("Conflict", 400, NextStep.GIVE_UP),  # 400 ladders to fix_request
        ("ContainerAlreadyExists", 409, NextStep.GIVE_UP),
        ("nameAlreadyExists", 409, NextStep.GIVE_UP),
        ("AnotherOperationInProgress", 409, NextStep.WAIT),  # not in the table: the ladder's ABORTED
    ],
)
def test_code_table_rows(code: str, status: int, step: NextStep) -> None:
    fault = decode({"error": {"code": code, "message": "m"}}, status=status)
    assert fault.next_step == step
    if step != errconv.codes.infer_next_step(fault.grpc_code, status)[0]:
        assert fault.origin.next_step == f"inferred from odata code {code!r}"


def test_the_deepest_known_code_decides() -> None:
    # Graph: activityLimitReached / throttledRequest / quota; a client takes the deepest it knows.
    assert step_for_codes(["badRequest", "throttledRequest", "quota"]) == (NextStep.WAIT, "odata code 'throttledRequest'")
    assert step_for_codes(["TooManyRequests", "Conflict"]) == (NextStep.GIVE_UP, "odata code 'Conflict'")
    assert step_for_codes(["badRequest"]) is None
    fault = decode({"error": {"code": "badRequest", "message": "m", "innerError": {"code": "throttledRequest"}}}, status=400)
    assert fault.next_step == NextStep.WAIT


def test_a_servers_do_not_retry_outranks_the_table() -> None:
    fault = errconv.decode(http(429, {"error": {"code": "TooManyRequests", "message": "m"}}, ("x-should-retry", "false")))
    assert fault.next_step == NextStep.GIVE_UP


# --------------------------------------------------------------------------- detection

GOOGLE = {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}
GOOGLE_DETAILS = {"error": {"message": "x", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "R"}]}}
GOOGLE_INT = {"error": {"code": 429, "message": "quota"}}
STRIPE = {"error": {"type": "invalid_request_error", "code": "resource_missing", "message": "No such customer", "param": "id"}}
STRIPE_ONLY = {"error": {"code": "card_declined", "message": "declined", "decline_code": "generic_decline", "charge": "ch_1"}}
OPENAI = {"error": {"message": "Rate limit reached", "type": "tokens", "param": None, "code": "rate_limit_exceeded"}}
AZURE_CONTENT_FILTER = {"error": {"message": "filtered", "type": None, "param": "prompt", "code": "content_filter", "status": 400}}
CONNECT_END = {"error": {"code": "unavailable", "message": "overloaded"}, "metadata": {"acme-id": ["1"]}}
CONNECT_BARE = {"error": {"code": "unavailable", "message": "overloaded"}}
CONNECT_UNARY = {"code": "unavailable", "message": "overloaded", "details": []}
ELASTIC = {"error": {"root_cause": [{"type": "index_not_found_exception", "reason": "no such index"}], "type": "index_not_found_exception", "reason": "no such index"}, "status": 404}  # fmt: skip
ANTHROPIC = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
JSONRPC = {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 1}
TWIRP = {"code": "internal", "msg": "boom", "meta": {}}
KUBERNETES = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "m", "reason": "NotFound", "code": 404}
PROBLEM = {"type": "about:blank", "title": "Not Found", "status": 404}
OAUTH = {"error": "invalid_grant", "error_description": "expired"}
SLACK = {"ok": False, "error": "invalid_auth"}
LOOK_ALIKES = {
    "google": GOOGLE, "google-details": GOOGLE_DETAILS, "google-int": GOOGLE_INT, "stripe": STRIPE, "stripe-only": STRIPE_ONLY,
    "openai": OPENAI, "azure-content-filter": AZURE_CONTENT_FILTER, "connect-end-of-stream": CONNECT_END,
    "connect-unary": CONNECT_UNARY, "elasticsearch": ELASTIC, "anthropic": ANTHROPIC, "jsonrpc": JSONRPC, "twirp": TWIRP,
    "kubernetes": KUBERNETES, "problem": PROBLEM, "oauth": OAUTH, "slack": SLACK,
}  # fmt: skip


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_a_look_alike_is_not_claimed(name: str) -> None:
    value = LOOK_ALIKES[name]
    assert ODATA.recognise(value, None) == 0.0
    assert ODATA.recognise(value, info()) == 0.0
    assert errconv.detect(body(value)) != "odata"


def test_a_bare_connect_code_is_left_to_connect() -> None:
    # The same words are a Connect end of stream; Connect comes first in the precedence list,
    # and odata claims it only weakly, so Connect wins whenever it is registered.
    assert ODATA.recognise(CONNECT_BARE, None) == errconv.dialects.WEAK


def test_the_look_alikes_detect_as_their_own() -> None:
    assert errconv.detect(body(GOOGLE)) == "google"
    assert errconv.detect(body(GOOGLE_DETAILS)) == "google"
    assert errconv.detect(body(GOOGLE_INT)) == "google"
    assert errconv.detect(body(STRIPE)) == "stripe"
    assert errconv.detect(body(STRIPE_ONLY)) == "stripe"
    assert errconv.detect(body(KUBERNETES)) == "kubernetes"


ODATA_BODIES = {
    "plain": {"error": {"code": "ResourceNotFound", "message": "The Resource was not found."}},
    "guidelines": GUIDELINES,
    "arm-details": {"error": {"code": "InvalidTemplate", "message": "m", "details": [{"code": "c", "message": "d"}]}},
    "graph": {"error": {"code": "itemNotFound", "message": "m", "innerError": {"request-id": "r", "date": "d"}}},
    "v2": {"error": {"code": "ABC", "message": {"lang": "en", "value": "v"}}},
    "v3": {"odata.error": {"code": "ABC", "message": {"lang": "en", "value": "v"}}},
    "numeric": {"error": {"code": "429", "message": "Requests ... exceeded token rate limit"}},
    "annotated": {"@odata.context": "$metadata", "error": {"code": "x", "message": "m", "target": "t"}},
}


@pytest.mark.parametrize("name", list(ODATA_BODIES))
def test_odata_bodies_are_not_claimed_by_the_others(name: str) -> None:
    value = ODATA_BODIES[name]
    assert errconv.detect(body(value)) == "odata"
    for other in ("google", "stripe", "problem", "kubernetes", "status-json"):
        assert get(other).recognise(value, None) < ODATA.recognise(value, None), other


def test_azure_headers_strengthen_a_plain_body() -> None:
    plain = ODATA_BODIES["plain"]
    assert ODATA.recognise(plain, None) == errconv.dialects.LIKELY
    assert ODATA.recognise(plain, info([("x-ms-error-code", "ResourceNotFound")])) == errconv.dialects.STRONG
    assert ODATA.recognise(plain, info([("odata-version", "4.0")])) == errconv.dialects.STRONG
    assert ODATA.recognise(CONNECT_BARE, info([("x-ms-error-code", "unavailable")])) == errconv.dialects.STRONG


def test_our_own_body_is_certain_whatever_its_extensions() -> None:
    # A fault carrying Stripe-only or OpenAI-looking extension members still reads back as odata.
    fault = errconv.Fault.build(status=402, code="card_declined", detail="d", extensions={"decline_code": "x", "charge": "c", "type_": 1})
    out = errconv.encode(fault, "odata")
    assert errconv.detect(out) == "odata"
    assert errconv.decode(out) == fault


def test_a_stripe_body_carrying_an_errconv_innererror_stays_stripe() -> None:
    # Found by the long fuzz run: a fault that kept an odata body's innererror as an
    # extension, written by http+stripe, must not read back as odata.
    own = {"status": 429, "next_step": "wait", "retry_after_seconds": 30}
    fault = errconv.Fault.build(status=400, code="rate_limited", detail="d", next_step="give_up", extensions={"innerError2": 1})
    fault = fault.replace(extensions={"innererror": own})
    for name in ("stripe", "http+stripe"):
        out = errconv.encode(fault, name)
        found = errconv.decode(out)
        assert (found.origin.body or found.origin.dialect) == "stripe", name
    # ... while odata's own body, with extensions named like Stripe's and OpenAI's marks, stays odata.
    theirs = errconv.decode(body(STRIPE_ONLY), "stripe").replace(extensions={"type": "x", "param": None, "status": 5, "decline_code": "d"})
    for name in ("odata", "http+odata"):
        found = errconv.decode(errconv.encode(theirs, name))
        assert (found.origin.body or found.origin.dialect) == "odata", name
        assert found.extensions == theirs.extensions


# --------------------------------------------------------------------------- encoding


def test_encoding_is_the_guidelines_shape() -> None:
    fault = errconv.Fault.build(
        status=429, code="TooManyRequests", detail="slow down", domain="example.com", next_step="wait", retry_after_seconds=30
    )
    assert errconv.encode(fault, "odata") == (
        b'{"error":{"code":"TooManyRequests","message":"slow down","innererror":'
        b'{"status":429,"next_step":"wait","retry_after_seconds":30,"domain":"example.com"}}}'
    )
    response = errconv.to_http(fault, "odata")
    assert response.status == 429
    assert response.headers == [("Content-Type", "application/json"), ("Retry-After", "30"), ("x-should-retry", "true"), ("x-ms-error-code", "TooManyRequests")]


def test_a_code_unfit_for_a_header_is_not_copied() -> None:
    fault = errconv.Fault.build(status=404, code="nicht_gefunden", detail="x")
    assert ("x-ms-error-code", "nicht_gefunden") in errconv.to_http(fault, "odata").headers
    fault = errconv.Fault(status=404, grpc_code=5, code="nicht\r\ngefunden", next_step=NextStep.GIVE_UP)
    assert all(k != "x-ms-error-code" or "\n" not in v for k, v in errconv.to_http(fault, "odata").headers)
    assert not any(k == "x-ms-error-code" for k, _ in errconv.to_http(errconv.Fault.build(status=500, detail="x"), "odata").headers)


def test_title_and_detail_survive_in_every_combination() -> None:
    for title, detail in (("T", None), (None, "D"), ("T", "D"), ("X", "X"), (None, None)):
        fault = errconv.Fault.build(status=404, title=title, detail=detail)
        back = errconv.decode(errconv.encode(fault, "odata"), "odata")
        assert (back.title, back.detail) == (title, detail)


def test_a_service_innererror_goes_first_and_comes_back() -> None:
    fault = decode(GUIDELINES, status=400)
    out = json.loads(errconv.encode(fault, "odata"))["error"]
    assert list(out["innererror"])[:2] == ["code", "minLength"]
    assert out["innererror"]["next_step"] == "fix_request"
    back = errconv.decode(errconv.encode(fault, "odata"))
    assert back == fault and back.extensions == {"innererror": {"code": "PasswordTooShort", "minLength": 6}}


def test_a_service_innererror_with_one_of_our_names_travels_whole() -> None:
    # WCF Data Services: innererror {message, type, stacktrace}; `type` is one of errconv's names.
    wcf = {"message": "Object reference not set", "type": "System.NullReferenceException", "stacktrace": "at X"}
    fault = decode({"error": {"code": "", "message": "An error has occurred.", "innererror": wcf}}, status=500)
    assert fault.type is None and fault.extensions == {"innererror": wcf}
    out = json.loads(errconv.encode(fault, "odata"))["error"]
    assert out["innererror"]["extensions"] == {"innererror": wcf}
    assert errconv.decode(errconv.encode(fault, "odata")) == fault


def test_extensions_named_like_our_members_travel_in_innererror() -> None:
    fault = errconv.decode(b'{"code": 404, "error": "not_found", "target": "x", "message": 5}', "problem")
    assert {"code", "target", "message"} <= fault.extensions.keys()
    out = json.loads(errconv.encode(fault, "odata"))["error"]
    assert out["innererror"]["extensions"] == {k: fault.extensions[k] for k in ("code", "target", "message")}
    assert errconv.losses(fault, "odata") == ()


def test_decode_only_dialect_message_names_odata() -> None:
    fault = errconv.Fault.build(status=404, code="not_found", detail="d")
    with pytest.raises(errconv.UnknownDialectError, match="odata"):
        errconv.encode(fault, "kubernetes")


# --------------------------------------------------------------------------- round trips

ENCODERS = [n for n in errconv.dialect_names() if get(n).encodes and getattr(get(n), "alias_of", None) is None and n != "fault"]


def my_captures(label: str = "odata") -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    out = []
    for service in ("odata", "azure_openai", "kubernetes"):
        for name, entry in json.loads((REALWORLD / service / "facts.json").read_text()).items():
            if entry["expected_dialect"] == label:
                out.append((f"{service}/{name}", REALWORLD / service / name, entry))
    return out


CAPTURES = my_captures()


def read_capture(path: pathlib.Path, entry: dict[str, Any]) -> errconv.Fault:
    status = entry["facts"]["status"]
    if path.suffix == ".http" or status is None:
        return errconv.decode(path.read_bytes(), now=1_800_000_000.0)
    return errconv.decode(path.read_bytes(), status=status, now=1_800_000_000.0)


def test_there_are_enough_captures() -> None:
    assert len(CAPTURES) >= 5
    for key, _, entry in CAPTURES:
        assert entry["source"] and entry["note"], key


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=[c[0] for c in CAPTURES])
def test_each_capture_is_detected_as_it_says(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    fault = read_capture(path, entry)
    assert (fault.origin.body or fault.origin.dialect) == entry["expected_dialect"]


def _decoder(name: str) -> str:
    return "http" if name.startswith("http+") else name


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=[c[0] for c in CAPTURES])
def test_captures_go_through_every_dialect_and_back(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    start = read_capture(path, entry)
    first = errconv.decode(errconv.encode(start, "odata"), "odata")
    assert errconv.losses(start, "odata") == ()
    assert_same_except(first, start)
    for middle in ENCODERS:
        via = errconv.decode(errconv.encode(first, middle), _decoder(middle))
        back = errconv.decode(errconv.encode(via, "odata"), "odata")
        assert_same_except(back, first, {*errconv.losses(first, middle)})


@pytest.mark.parametrize("case", gc.cases(), ids=[c.name for c in gc.cases()])
def test_golden_odata_files_come_back_from_every_dialect(case: pathlib.Path) -> None:
    fault = gc.load_fault(case)
    losses = gc.load_meta(case)["losses"]
    assert losses["odata"] == []
    for middle in ENCODERS:
        via = errconv.decode(errconv.encode(errconv.decode((case / "odata.json").read_bytes()), middle), _decoder(middle))
        back = errconv.decode(errconv.encode(via, "odata"))
        assert_same_except(back, fault, losses[middle])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data",
    [
        b"", b"not json", b"[]", b"5", b'"error"', b"{}", b'{"error": 5}', b'{"error": "boom"}', b'{"error": []}',
        b'{"odata.error": null}', b'{"foo": 1}', b'{"error": {"code": "x"', b"\xff\xfe",
        b'{"error": {"code": "x", "innererror": {"next_step": "wait", "details": [{"@type": 5}]}}}',
        b'{"error": {"code": "x", "details": [' + b",".join([b'{"message": "m"}'] * 300) + b"]}}",
        b'{"error": {"code": "x", "extra": ' + b"[" * 40 + b"]" * 40 + b"}}",
        b'{"error": {"code": "x", "n": ' + b"9" * 400 + b"}}",
    ],
)  # fmt: skip
def test_bad_input_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(data, "odata")


def test_a_deep_innererror_chain_is_bounded() -> None:
    node: dict[str, Any] = {"code": "deepest"}
    for i in range(20):
        node = {"code": f"c{i}", "innererror": node}
    fault = decode({"error": {"code": "top", "message": "m", "innererror": node}}, status=400)
    assert fault.code == "top"


# --------------------------------------------------------------------------- azure-core reads what errconv writes

SERVED: dict[str, bytes] = {}


class _Replay(socketserver.StreamRequestHandler):
    """Answers `GET /<key>` with the bytes registered under that key, then closes."""

    def handle(self) -> None:
        line = self.rfile.readline().decode("latin-1")
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        self.wfile.write(SERVED[line.split(" ")[1].lstrip("/")])


@pytest.fixture(scope="module")
def peer():
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


def azure_read(base: str, key: str, data: bytes) -> tuple[Any, Any]:
    """azure-core's own pipeline (RequestsTransport, no retries) fetching `data`; the
    HttpResponseError its generated clients raise from it, and the response."""
    SERVED[key] = data
    session = requests.Session()
    session.trust_env = False  # no proxy between us and the loopback peer
    client = PipelineClient(base_url=base, policies=[], transport=RequestsTransport(session=session, session_owner=False))
    with client:
        request = HttpRequest("GET", f"{base}/{key}")
        response = client.send_request(request)
        response.read()
    return HttpResponseError(response=response, error_format=ODataV4Format), response


def expected_details(fault: errconv.Fault) -> list[tuple[Any, Any, Any]]:
    if not fault.violations and "details" in fault.extensions:
        # A details list errconv could not read goes back as it came: azure-core reads it as it would the original.
        return [(d.code, d.message, d.target) for d in ODataV4Format({"code": "c", "details": fault.extensions["details"]}).details]
    return [(v.reason, v.description, v.field or None) for v in fault.violations]


def check_azure_reading(error: Any, fault: errconv.Fault) -> None:
    assert error.status_code == fault.status
    odata = error.error
    assert odata is not None, "ODataV4Format refused our body"
    assert odata.code == fault.code
    assert odata.message == (fault.detail or fault.title or "")
    assert odata.target == fault.param
    assert [(d.code, d.message, d.target) for d in odata.details] == expected_details(fault)
    # errconv's own fields sit in innererror, which azure-core keeps as the service's object.
    assert odata.innererror["next_step"] == str(fault.next_step)
    assert odata.innererror.get("retry_after_seconds") == fault.retry_after_seconds
    if fault.code is not None:
        assert f"({fault.code})" in str(error)


@pytest.mark.parametrize("case", gc.cases(), ids=[c.name for c in gc.cases()])
def test_azure_core_reads_every_golden_case(peer: str, case: pathlib.Path) -> None:
    fault = gc.load_fault(case)
    error, response = azure_read(peer, f"golden-{case.name}", (case / "http-odata.http").read_bytes())
    check_azure_reading(error, fault)
    assert response.headers.get("x-ms-error-code") == fault.code
    # azure-core's RetryPolicy reads the delay errconv states (Retry-After) for a wait.
    pipeline_response = PipelineResponse(response.request, response, None)  # type: ignore[arg-type]
    assert RetryPolicy().get_retry_after(pipeline_response) == (
        fault.retry_after_seconds if fault.next_step == NextStep.WAIT else None
    )


@pytest.mark.parametrize("key, path, entry", CAPTURES, ids=[c[0] for c in CAPTURES])
def test_azure_core_reads_our_odata_of_each_capture(peer: str, key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    fault = read_capture(path, entry)
    ours, _ = azure_read(peer, f"ours-{key}", errconv.encode(fault, "http+odata"))
    check_azure_reading(ours, fault)
    # Where azure-core reads the original body itself (an `error` envelope with a string
    # message), its reading of ours is the same: code, message, target and details.
    raw = path.read_bytes()
    original = json.loads(parse_response(raw).body if path.suffix == ".http" else raw)
    inner = original.get("error") if isinstance(original, dict) else None
    if isinstance(inner, dict) and isinstance(inner.get("message"), str) and _plain_details(inner):
        theirs = ODataV4Format(original)
        assert (ours.error.code, ours.error.message or None, ours.error.target) == (theirs.code, theirs.message or None, theirs.target)
        assert [(d.code, d.message, d.target) for d in ours.error.details] == [(d.code, d.message, d.target) for d in theirs.details]


def _plain_details(inner: dict[str, Any]) -> bool:
    details = inner.get("details")
    return details is None or (isinstance(details, list) and all(isinstance(d, dict) and set(d) <= {"code", "message", "target"} for d in details))


def test_azure_core_reads_a_request_id_from_graph_inner_error(peer: str) -> None:
    # Graph's innerError travels verbatim: a client that reads it still finds its request-id.
    fault = errconv.decode((REALWORLD / "odata" / "graph-authorization-request-denied.json").read_bytes(), status=403)
    error, _ = azure_read(peer, "graph-inner", errconv.encode(fault, "http+odata"))
    raw = json.loads(error.response.text())
    assert raw["error"]["innerError"]["request-id"] == "6fca4864-c043-4aa6-b312-39cbe2ae4c41"
    assert not any(isinstance(d, RequestInfo) for d in fault.details)
