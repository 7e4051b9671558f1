"""`status`: a serialized google.rpc.Status (protobuf bytes).

`code` is the gRPC code; the details are packed Any messages: ErrorInfo, RetryInfo
and BadRequest for the agent fields, the fault's other details in order, and
errconv.v1.Problem for what no standard detail carries (RFC 9457 type, title,
instance, a non-default HTTP status, alternatives, extension members). Lossless
for every Fault.
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import DecodeError as ProtoDecodeError
from google.rpc import status_pb2

from .._errors import DecodeError
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, Limits
from ._common import OWN_DETAILS, Hints, details_over, fields_from_status, finish, status_items, valid_code
from ._details import item_from_any, pack_item

__all__ = ["MEDIA_TYPE", "NAME", "decode", "encode", "from_message", "to_message"]

NAME = "status"
MEDIA_TYPE = "application/x-protobuf"


def to_message(fault: Fault, *, keep_debug: bool = True) -> status_pb2.Status:
    """The google.rpc.Status message for a fault."""
    message, items = status_items(fault, keep_debug=keep_debug)
    return status_message(fault.grpc_code, message, [pack_item(i) for i in items])


def status_message(code: int, message: str, packed: Iterable[tuple[str, bytes]]) -> status_pb2.Status:
    """A google.rpc.Status from its code, message and packed details (pack_item's pairs)."""
    # Plain dicts: protobuf builds each Any in place, in C, where an Any object
    # would be built first and then copied into the Status.
    details = [{"type_url": type_url, "value": value} for type_url, value in packed]
    return status_pb2.Status(code=code, message=message, details=details)


def from_message(
    status: status_pb2.Status,
    *,
    limits: Limits = DEFAULT_LIMITS,
    hints: Hints | None = None,
    dialect: str = NAME,
    grpc_code: int | None = None,
    message: str | None = None,
) -> Fault:
    """A Fault from a google.rpc.Status message (what interceptors and trailers use)."""
    if len(status.details) > limits.max_details + OWN_DETAILS:
        raise DecodeError(f"the Status has {details_over(len(status.details), limits)}")
    items = [item_from_any(d, limits) for d in status.details]
    code = valid_code(status.code) if grpc_code is None else grpc_code
    fields, stated, wait = fields_from_status(code, status.message if message is None else message, items)
    hints = hints or Hints()
    return finish(fields, stated, hints, dialect, wait)


def parse(data: bytes, limits: Limits) -> status_pb2.Status:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DecodeError(f"status takes protobuf bytes, got {type(data).__name__}")
    if len(data) > limits.max_bytes:
        raise DecodeError(f"the Status is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    try:
        return status_pb2.Status.FromString(bytes(data))
    except ProtoDecodeError as exc:
        raise DecodeError(f"not a google.rpc.Status in protobuf: {str(exc)[:80]}") from None


def decode(data: bytes, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from serialized google.rpc.Status bytes."""
    return from_message(parse(data, limits), limits=limits)


def encode(fault: Fault) -> bytes:
    """Deterministic serialized google.rpc.Status bytes."""
    # Deterministic already: pack_item serialised each detail that has a map
    # deterministically, and Status and Any have none of their own, so
    # deterministic=True here would give the same bytes, only slower.
    return to_message(fault).SerializeToString()
