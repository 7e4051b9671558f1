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
from ..codes import CODE_BY_NAME, Code, code_for_http, code_name
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
    write_json,
)
from ._details import Item, check_depth, item_from_json
from ._typed import read_google

__all__ = ["MEDIA_TYPE", "NAME", "decode", "encode", "looks_like"]

NAME = "google"
MEDIA_TYPE = "application/json"
_KNOWN = frozenset({"code", "message", "status", "details"})


def _unwrap(obj: Any) -> Any:
    if isinstance(obj, list):
        return next((x for x in obj if isinstance(x, dict)), None)
    return obj


def looks_like(obj: Any) -> bool:
    """`{"error": {...}}` whose inner object has a status name, details or a numeric code,
    and no string `type`: that is Stripe's mark (Google's envelope has no `type`, and a
    Stripe body may carry `status` or `details` among its extension members)."""
    obj = _unwrap(obj)
    if not isinstance(obj, dict) or not isinstance(obj.get("error"), dict):
        return False
    inner = obj["error"]
    if isinstance(inner.get("type"), str):
        return False
    return isinstance(inner.get("status"), str) or isinstance(inner.get("details"), list) or (
        isinstance(inner.get("code"), int) and "type" not in inner
    )


def _codes(http: Any, name: Any, http_status: int | None) -> tuple[int | None, int]:
    """`error.code` when it is an HTTP status, and the gRPC code: named by `error.status`,
    else derived from the HTTP status (the body's, else the response's)."""
    body_status = http if isinstance(http, int) and not isinstance(http, bool) and 100 <= http <= 599 else None
    if isinstance(name, str) and name in CODE_BY_NAME:
        grpc_code = CODE_BY_NAME[name]
    elif body_status is not None or http_status is not None:
        grpc_code = code_for_http(body_status or http_status)  # type: ignore[arg-type]
    else:
        grpc_code = int(Code.UNKNOWN)
    return body_status, grpc_code


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
    message = inner.get("message")
    details = inner.get("details", [])
    if not isinstance(details, list):
        raise DecodeError(f"\"error.details\" must be an array, got {shorten(details)}")
    if len(details) > limits.max_details + OWN_DETAILS:
        raise DecodeError(details_over(len(details), limits))
    items = [item_from_json(d, limits) for d in details]
    unknown = {k: v for k, v in inner.items() if k not in _KNOWN}
    if unknown:
        check_depth(unknown, limits.max_depth)
    message = message if isinstance(message, str) else ""
    return _fault(inner.get("code"), inner.get("status"), message, items, unknown, dialect, hints, http_status)


def from_typed(
    typed: tuple[int | None, str | None, str, list[Item]],
    *,
    dialect: str = NAME,
    hints: Hints | None = None,
    http_status: int | None = None,
) -> Fault:
    """A Fault from what `_typed.read_google` gives for a body in the usual shape."""
    http, name, message, items = typed
    return _fault(http, name, message, items, {}, dialect, hints, http_status)


def _fault(
    http: Any,
    name: Any,
    message: str,
    items: list[Item],
    unknown: dict[str, Any],
    dialect: str,
    hints: Hints | None,
    http_status: int | None,
) -> Fault:
    body_status, grpc_code = _codes(http, name, http_status)
    fields, stated, wait = fields_from_status(grpc_code, message, items, http_status=body_status)
    hints = hints or Hints()
    fields["status"] = http_status_wins(fields["status"], http_status, hints)
    if unknown:
        fields["extensions"] = {**unknown, **fields["extensions"]}
    return finish(fields, stated, hints, dialect, wait)


def decode(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from a Google error envelope."""
    typed = read_google(data, limits)  # the usual shape, decoded typed; None for any other
    if typed is not None:
        return from_typed(typed)
    return from_object(read_json(data, limits, "the google error body"), limits)


def to_object(fault: Fault, *, keep_debug: bool = True) -> dict[str, Any]:
    message, details = status_items_json(fault, keep_debug=keep_debug)
    return {"error": {"code": fault.status, "message": message, "status": code_name(fault.grpc_code), "details": details}}


def encode(fault: Fault) -> bytes:
    """Compact JSON: code, message, status, details."""
    return write_json(to_object(fault))
