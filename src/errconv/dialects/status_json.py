"""`status-json`: proto3 JSON of google.rpc.Status, `{"code": <gRPC>, "message", "details"}`.

What grpc-gateway and Envoy's transcoder emit: no wrapper, `code` is the gRPC code,
no status name. Details as in `status`, in proto3 JSON. Lossless for every Fault.
"""

from __future__ import annotations

from typing import Any

from .._errors import DecodeError, shorten
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, Limits
from ._common import (
    OWN_DETAILS,
    Hints,
    details_over,
    fields_from_status,
    finish,
    http_status_wins,
    read_json,
    status_items_json,
    valid_code,
    write_json,
)
from ._details import item_from_json
from ._typed import read_status_json

__all__ = ["MEDIA_TYPE", "NAME", "decode", "encode", "looks_like"]

NAME = "status-json"
MEDIA_TYPE = "application/json"


def looks_like(obj: Any) -> bool:
    """A JSON object with an integer gRPC `code` and no `error` wrapper."""
    return (
        isinstance(obj, dict)
        and "error" not in obj
        and isinstance(obj.get("code"), int)
        and not isinstance(obj.get("code"), bool)
        and 0 <= obj["code"] <= 16
        and ("message" in obj or "details" in obj)
        and not ("title" in obj or "type" in obj or "detail" in obj)
    )


def from_object(
    obj: Any,
    limits: Limits = DEFAULT_LIMITS,
    *,
    dialect: str = NAME,
    hints: Hints | None = None,
    http_status: int | None = None,
) -> Fault:
    if not isinstance(obj, dict):
        raise DecodeError(f"status-json must be a JSON object, got {shorten(obj)}")
    message = obj.get("message", "")
    details = obj.get("details", [])
    if not isinstance(message, str):
        message = ""
    if not isinstance(details, list):
        raise DecodeError(f"\"details\" must be an array, got {shorten(details)}")
    if len(details) > limits.max_details + OWN_DETAILS:
        raise DecodeError(details_over(len(details), limits))
    items = [item_from_json(d, limits) for d in details]
    fields, stated, wait = fields_from_status(valid_code(obj.get("code")), message, items)
    hints = hints or Hints()
    fields["status"] = http_status_wins(fields["status"], http_status, hints)
    return finish(fields, stated, hints, dialect, wait)


def decode(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from proto3 JSON of a google.rpc.Status."""
    typed = read_status_json(data, limits)  # the usual shape, decoded typed; None for any other
    if typed is not None:
        code, message, items = typed
        fields, stated, wait = fields_from_status(valid_code(code), message, items)
        return finish(fields, stated, Hints(), NAME, wait)
    return from_object(read_json(data, limits, "the status-json body"), limits)


def to_object(fault: Fault, *, keep_debug: bool = True) -> dict[str, Any]:
    message, details = status_items_json(fault, keep_debug=keep_debug)
    return {"code": fault.grpc_code, "message": message, "details": details}


def encode(fault: Fault) -> bytes:
    """Compact proto3 JSON, members in field order, `details` always present."""
    return write_json(to_object(fault))
