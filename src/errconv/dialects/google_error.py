"""`google`: Google's HTTP JSON error envelope (AIP-193, "HTTP/1.1+JSON representation").

    {"error": {"code": <HTTP>, "message": ..., "status": "<CODE_NAME>", "details": [...]}}

`code` is the HTTP status and `status` the gRPC code name: written always, since it is
the only lossless carrier of the gRPC code over HTTP. Decoding also accepts the
list-wrapped form streaming endpoints send (`[{"error": ...}]`) and keeps members it
does not know (the legacy `errors` array among them) as extensions. Lossless for
every Fault.
"""

from __future__ import annotations

from typing import Any

from .._errors import DecodeError, shorten
from ..codes import Code, code_for_http, code_name
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, Limits
from ._common import Hints, fields_from_status, finish, read_json, status_items, write_json
from ._details import item_from_json, item_to_json

__all__ = ["MEDIA_TYPE", "NAME", "decode", "encode", "looks_like"]

NAME = "google"
MEDIA_TYPE = "application/json"
_KNOWN = frozenset({"code", "message", "status", "details"})


def _unwrap(obj: Any) -> Any:
    if isinstance(obj, list):
        return next((x for x in obj if isinstance(x, dict)), None)
    return obj


def looks_like(obj: Any) -> bool:
    """`{"error": {...}}` whose inner object has a status name, details or a numeric code."""
    obj = _unwrap(obj)
    if not isinstance(obj, dict) or not isinstance(obj.get("error"), dict):
        return False
    inner = obj["error"]
    return isinstance(inner.get("status"), str) or isinstance(inner.get("details"), list) or (
        isinstance(inner.get("code"), int) and "type" not in inner
    )


def from_object(
    obj: Any,
    limits: Limits = DEFAULT_LIMITS,
    *,
    dialect: str = NAME,
    hints: Hints | None = None,
    http_status: int | None = None,
) -> Fault:
    obj = _unwrap(obj)
    if not isinstance(obj, dict) or not isinstance(obj.get("error"), dict):
        raise DecodeError(f"a google error is {{\"error\": {{...}}}}, got {shorten(obj)}")
    inner = obj["error"]
    http = inner.get("code")
    body_status = http if isinstance(http, int) and not isinstance(http, bool) and 100 <= http <= 599 else None
    name = inner.get("status")
    if isinstance(name, str) and name in Code.__members__:
        grpc_code = int(Code[name])
    elif body_status is not None or http_status is not None:
        grpc_code = code_for_http(body_status or http_status)  # type: ignore[arg-type]
    else:
        grpc_code = int(Code.UNKNOWN)
    message = inner.get("message")
    details = inner.get("details", [])
    if not isinstance(details, list):
        raise DecodeError(f"\"error.details\" must be an array, got {shorten(details)}")
    if len(details) > limits.max_details:
        raise DecodeError(f"{len(details)} details, over the limit of {limits.max_details} (Limits.max_details)")
    items = [item_from_json(d, limits) for d in details]
    fields, stated, wait = fields_from_status(
        grpc_code, message if isinstance(message, str) else "", items, http_status=body_status
    )
    hints = hints or Hints()
    if http_status is not None:
        if fields["status"] != http_status:
            hints.notes.append(f"body status {fields['status']} differs from HTTP status {http_status}; HTTP wins")
        fields["status"] = http_status
    unknown = {k: v for k, v in inner.items() if k not in _KNOWN}
    if unknown:
        fields["extensions"] = {**unknown, **fields["extensions"]}
    if hints.wait is None:
        hints.wait = wait
    return finish(fields, stated, hints, dialect)


def decode(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from a Google error envelope."""
    return from_object(read_json(data, limits, "the google error body"), limits)


def to_object(fault: Fault, *, keep_debug: bool = True) -> dict[str, Any]:
    message, items = status_items(fault, keep_debug=keep_debug)
    return {
        "error": {
            "code": fault.status,
            "message": message,
            "status": code_name(fault.grpc_code),
            "details": [item_to_json(i) for i in items],
        }
    }


def encode(fault: Fault) -> bytes:
    """Compact JSON: code, message, status, details."""
    return write_json(to_object(fault))
