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
