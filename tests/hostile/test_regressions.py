"""Regressions found by the hardening audit (issue 13), each named for what it was."""

from __future__ import annotations

from google.protobuf import any_pb2, json_format
from google.rpc import error_details_pb2, status_pb2

import errconv


def _status(code: int, message: str, delay_seconds: int | None = None) -> status_pb2.Status:
    status = status_pb2.Status(code=code, message=message)
    if delay_seconds is not None:
        info = error_details_pb2.RetryInfo()
        info.retry_delay.seconds = delay_seconds
        packed = any_pb2.Any()
        packed.Pack(info)
        status.details.append(packed)
    return status


def test_negative_retryinfo_reads_the_same_in_every_form() -> None:
    status = _status(3, "bad", delay_seconds=-5)  # INVALID_ARGUMENT, with a RetryInfo that makes no sense
    as_bytes = errconv.decode(status.SerializeToString(), "status")
    as_json = errconv.decode(json_format.MessageToJson(status).encode(), "status-json")
    body = json_format.MessageToDict(status)
    google = errconv.encode(as_bytes, "google")
    as_google = errconv.decode(google)
    for fault in (as_bytes, as_json, as_google):
        assert (fault.next_step, fault.retry_after_seconds) == ("wait", 0), fault
    assert body["details"][0]["retryDelay"] == "-5s"


def test_status_bytes_whose_message_holds_a_grpc_status_line() -> None:
    data = _status(14, "upstream said\ngrpc-status: 14\nbye").SerializeToString()
    assert errconv.detect(data) == "status"
    fault = errconv.decode(data)
    assert (fault.grpc_code, fault.detail) == (14, "upstream said\ngrpc-status: 14\nbye")


def test_trailer_text_is_still_trailers() -> None:
    assert errconv.detect(b"grpc-status: 14\ngrpc-message: down\n") == "grpc"


# --------------------------------------------------------------------------- found by the fuzz suite's second round

import pytest  # noqa: E402


@pytest.mark.parametrize("headers", [5, 1.5, object()])
def test_from_http_with_headers_of_no_form_is_a_decode_error(headers: object) -> None:
    # Was TypeError ('int' object is not iterable), escaping from_http and to_http's tuple form.
    with pytest.raises(errconv.DecodeError, match="headers are"):
        errconv.from_http(429, headers, b"")
    # An upstream response given as a tuple is still answered, from its status.
    assert errconv.to_http((429, headers, b"slow down")).status == 429


@pytest.mark.parametrize(("details", "metadata"), [(5, ()), (["m"], ()), (None, 5), (None, object())])
def test_from_grpc_with_details_or_metadata_of_no_form_is_a_decode_error(details: object, metadata: object) -> None:
    # Was TypeError (len() of an int, iterating an int).
    with pytest.raises(errconv.DecodeError):
        errconv.from_grpc(14, details, metadata)  # type: ignore[arg-type]


def test_from_grpc_details_with_a_lone_surrogate_read_as_replacement() -> None:
    # Was UnicodeEncodeError from protobuf: a Status cannot hold a lone surrogate.
    fault = errconv.from_grpc(14, "busy \ud800 now", ())
    assert (fault.grpc_code, fault.detail) == (14, "busy \ufffd now")
    errconv.encode(fault, "grpc").decode("utf-8")


@pytest.mark.parametrize(
    "body",
    [b'{"status":0,"grpc_code":7}', b'{"status":600,"grpc_code":7}', b'{"status":403,"grpc_code":-1}', b'{"status":403,"grpc_code":17}'],
)
def test_fault_json_outside_the_model_ranges_is_a_decode_error(body: bytes) -> None:
    # Was read as it stood: a Fault with status 0 (an "HTTP/1.1 0" response) or grpc_code -1.
    with pytest.raises(errconv.DecodeError, match="not an errconv fault"):
        errconv.decode(body, "fault")
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body)


def test_fault_json_delays_are_capped_and_empty_text_is_none() -> None:
    # Was kept as it stood: a delay of -5 or 10**14 seconds, and code "" (which other
    # decoders read as no code, so a round trip through them changed the fault).
    negative = errconv.decode(b'{"status":429,"grpc_code":8,"next_step":"wait","retry_after_seconds":-5,"code":""}', "fault")
    huge = errconv.decode(b'{"status":429,"grpc_code":8,"next_step":"wait","retry_after_seconds":99999999999999}', "fault")
    assert (negative.retry_after_seconds, negative.code, huge.retry_after_seconds) == (0, None, 86_400)


@pytest.mark.parametrize("target", ["stripe", "openai", "http+stripe", "http+openai"])
def test_an_extension_named_root_cause_is_not_written_inside_an_error_object(target: str) -> None:
    # Was written into {"error": {...}}, which then read back as an Elasticsearch body
    # (its root_cause claims it): a second trip lost the detail.
    es = b'{"error":{"root_cause":[{"type":"x_exception","reason":"r"}],"type":"x_exception","reason":"r"},"status":500}'
    fault = errconv.decode(es, "elasticsearch")
    assert "root_cause" in fault.extensions
    out = errconv.encode(fault, target)
    assert b"root_cause" not in out
    back = errconv.decode(out, "http" if target.startswith("http") else target)
    assert back.origin is not None and (back.origin.body or back.origin.dialect) == target.removeprefix("http+")
    assert "extensions" in errconv.losses(fault, target)


def test_connect_writes_an_opaque_detail_nested_past_protobufs_depth_limit() -> None:
    # Was google.protobuf.message.DecodeError ("Exceeded upb_DecodeOptions_MaxDepth")
    # escaping encode, when connect rendered the detail's debug JSON from its bytes.
    from fuzz_inputs import _deep_struct, join_fields

    # OpaqueDetail{type_url: "t", fields: Struct{"k": <a Value 60 Structs deep>}}, by hand:
    # protobuf itself will not build it.
    fields = join_fields([(1, 2, join_fields([(1, 2, b"k"), (2, 2, _deep_struct(60))]))])
    opaque = join_fields([(1, 2, b"t"), (2, 2, fields)])
    status = status_pb2.Status(code=7, message="m")
    status.details.add(type_url="type.googleapis.com/errconv.v1.OpaqueDetail", value=opaque)
    fault = errconv.decode(status.SerializeToString(), "status")
    out = errconv.encode(fault, "connect")
    assert errconv.decode(out, "connect").grpc_code == 7


def test_a_fastapi_violation_whose_type_is_an_object_reads() -> None:
    # Was TypeError (unhashable type: 'dict') from the check of Pydantic's own types.
    body = b'{"detail":[{"type":{"a":1},"loc":["query","q",0],"msg":"Input should be a valid integer"}]}'
    fault = errconv.decode(body, "fastapi")
    assert [v.field for v in fault.violations] == ["q.0"]
    assert errconv.decode(body).origin.dialect == "fastapi"  # type: ignore[union-attr]


@pytest.mark.parametrize("member", ["extensions", "alternatives", "details"])
def test_fault_json_nested_past_max_depth_is_a_decode_error(member: str) -> None:
    # Was read whole: a Fault no other dialect's reader would take back (past max_depth),
    # so converting it wrote what errconv itself then refused. Found by the long fuzz run.
    deep: object = "leaf"
    for _ in range(40):
        deep = {"a": deep}
    value = {
        "extensions": {"x": deep},
        "alternatives": [deep],
        "details": [{"@type": "raw", "type_url": "type.googleapis.com/a.B", "fields": {"x": deep}}],
    }[member]
    import json

    body = json.dumps({"status": 409, "grpc_code": 10, "next_step": "give_up", member: value}).encode()
    with pytest.raises(errconv.DecodeError, match="max_depth"):
        errconv.decode(body, "fault")
    assert errconv.decode(body, "fault", limits=errconv.Limits(max_depth=64)).status == 409


def test_an_odata_innererror_with_a_grpc_code_and_an_unreadable_status_has_a_status() -> None:
    # Was a Fault with status None (every writer then failed): the innererror's status 1
    # was rightly not read, and its gRPC code left no status derived. Found by the long fuzz run.
    body = b'{"error":{"code":"terms_not_accepted","message":"m","innererror":{"status":1,"grpc_code":"FAILED_PRECONDITION","next_step":"give_up"}}}'
    fault = errconv.decode(body, "odata")
    assert (fault.status, fault.grpc_code, fault.next_step) == (400, 9, "give_up")
    assert fault.origin is not None and "status" in fault.origin.inferred
    errconv.encode(fault, "http+problem")
