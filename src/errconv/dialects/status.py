"""`status`: a serialized google.rpc.Status (protobuf bytes).

`code` is the gRPC code; the details are packed Any messages: ErrorInfo, RetryInfo
and BadRequest for the agent fields, the fault's other details in order, and
errconv.v1.Problem for what no standard detail carries (RFC 9457 type, title,
instance, a non-default HTTP status, alternatives, extension members). Lossless
for every Fault.
"""

from __future__ import annotations

import re

from typing import Any

from google.protobuf.message import DecodeError as ProtoDecodeError
from google.rpc import status_pb2

from .._model.errors import DecodeError
from .._model.fault import Fault
from ._base import LIKELY, Dialect, HttpInfo
from ._common import CodeValue, Reading, Writing, valid_code
from .._model.schema import item_to_json, items_from_anys, pack_item
from ._status import OWN_DETAILS, check_details_count, fields_from_status, pack, status_bytes, status_items, status_message

__all__ = ["Status", "from_message", "parse", "status_message", "to_message"]


def to_message(fault: Fault, *, keep_debug: bool = True) -> status_pb2.Status:
    """The google.rpc.Status message for a fault."""
    message, items = status_items(fault, keep_debug=keep_debug)
    return status_message(fault.grpc_code, message, [pack_item(i) for i in items])


def parse(data: Any, reading: Reading) -> status_pb2.Status:
    """A google.rpc.Status from its bytes, under the limits."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DecodeError(f"status takes protobuf bytes, got {type(data).__name__}")
    limit = reading.limits.max_bytes
    if len(data) > limit:
        raise DecodeError(f"the Status is {len(data)} bytes, over the limit of {limit} (Limits.max_bytes)")
    try:
        return status_pb2.Status.FromString(data if type(data) is bytes else bytes(data))
    except ProtoDecodeError as exc:
        raise DecodeError(f"not a google.rpc.Status in protobuf: {str(exc)[:80]}") from None


def from_message(
    status: status_pb2.Status,
    reading: Reading,
    *,
    grpc_code: int | None = None,
    message: str | None = None,
    at: str = "",
    traced: bool = True,
) -> Fault:
    """A Fault from a google.rpc.Status message; `grpc_code` and `message`, when given,
    win over the Status's own (grpc-status and grpc-message around it)."""
    # Every Status read comes through here: the checks that almost never fire are
    # tested inline before their calls.
    details = status.details
    limits = reading.limits
    if len(details) > limits.max_details + OWN_DETAILS:
        check_details_count(len(details), limits, "the Status has ")
    items = items_from_anys(details, limits)
    code: CodeValue
    if grpc_code is None:
        code = status.code  # an int32: a code of google.rpc.Code, or past it (UNKNOWN)
        if not 0 <= code <= 16:
            code = valid_code(code)
    else:
        code = grpc_code
    fields, stated, wait = fields_from_status(code, status.message if message is None else message, items)
    if reading.status is not None:
        fields["status"] = reading.http_status_wins(fields["status"])
    if reading.seen is not None and traced:
        reading.saw("body", at, "status")
        reading.saw("status", f"{at}/code", status.code)
        if status.message:
            reading.saw("text", f"{at}/message", status.message)
        reading.saw("details", f"{at}/details", [item_to_json(item) for item in items])
    return reading.finish(fields, stated, wait)


_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f]")  # the bytes below 0x20 that are no white space


class Status(Dialect):
    """Serialized google.rpc.Status bytes."""

    lossless = True
    name = "status"
    precedence = 270
    listed = 50
    form = "bytes"
    suffix = "binpb"
    binary = True

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        # Binary: a control byte among the first 64 (a Status starts with a field tag, 0x08 or 0x12).
        if isinstance(value, (bytes, bytearray)) and _CONTROL.search(value, 0, 64) is not None:
            return LIKELY
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        return from_message(parse(value, reading), reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        # The bytes protobuf's deterministic serialisation gives (the envelope, the
        # ErrorInfo and the RetryInfo written out as the gRPC trailers write them).
        message, items = status_items(fault, keep_debug=writing.keep_debug)
        return status_bytes(fault.grpc_code, message, [pack(i) for i in items])
