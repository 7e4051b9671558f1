"""`stripe`: Stripe's error object, `{"error": {"type", "code", "message", "param", "doc_url", ...}}`.

Written members, absent ones omitted (never null): `type` (from the status: 402
`card_error`, 5xx `api_error`, an idempotency code `idempotency_error`, everything
else `invalid_request_error`), `code`, `message` (the detail, else the title),
`param`, `doc_url` (the problem `type`: both are the URL that documents the
error), `next_step`, then the extension members in order (`decline_code`,
`advice_code`, `charge`, ... travel there).

A bare Stripe body has no status, so decoding derives one from `type` and `code`
(card_error 402, api_error 500, rate_limit 429, resource_missing 404, ...).
Stripe has no home for a delay, a domain, metadata, alternatives, violations,
blocked_by/unblock_with or typed details; `errconv.losses()` names them.
"""

from __future__ import annotations

from typing import Any

from .._errors import DecodeError, shorten
from ..codes import NextStep, code_for_http
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, Limits
from ._common import STEP_ALIASES, Hints, finish, read_json, write_json
from ._details import check_depth

__all__ = ["MEDIA_TYPE", "NAME", "decode", "encode", "error_type", "looks_like", "status_for"]

NAME = "stripe"
MEDIA_TYPE = "application/json"
_OWN = ("type", "code", "message", "param", "doc_url", "next_step")
_STATUS_FOR_CODE = {
    "rate_limit": 429,
    "lock_timeout": 429,
    "resource_missing": 404,
    "idempotency_key_in_use": 409,
}
_STATUS_FOR_TYPE = {
    "card_error": 402,
    "api_error": 500,
    "rate_limit": 429,
    "rate_limit_error": 429,
    "authentication_error": 401,
    "permission_error": 403,
}


def error_type(status: int, code: str | None) -> str:
    """The Stripe `type` for a status and code, as Stripe's API sends it."""
    if status == 402:
        return "card_error"
    if status >= 500:
        return "api_error"
    if code is not None and code.startswith("idempotency"):
        return "idempotency_error"
    return "invalid_request_error"


def status_for(type_: str | None, code: str | None) -> int:
    """The HTTP status a bare Stripe body implies."""
    if code in _STATUS_FOR_CODE:
        return _STATUS_FOR_CODE[code]
    if type_ in _STATUS_FOR_TYPE:
        return _STATUS_FOR_TYPE[type_]
    return 400


def looks_like(obj: Any) -> bool:
    """`{"error": {...}}` with a string `type`, or an `error` object with Stripe's members."""
    if not isinstance(obj, dict) or not isinstance(obj.get("error"), dict):
        return False
    inner = obj["error"]
    return isinstance(inner.get("type"), str) or (
        not inner.keys() & {"status", "details"} and bool(inner.keys() & {"param", "doc_url", "decline_code"})
    )


def from_object(
    obj: Any,
    limits: Limits = DEFAULT_LIMITS,
    *,
    dialect: str = NAME,
    hints: Hints | None = None,
    http_status: int | None = None,
) -> Fault:
    if not isinstance(obj, dict) or "error" not in obj:
        raise DecodeError(f"a stripe error is {{\"error\": {{...}}}}, got {shorten(obj)}")
    inner = obj["error"]
    hints = hints or Hints()
    fields: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    if isinstance(inner, str):  # OAuth: {"error": "invalid_grant", "error_description": "..."}
        fields["code"] = inner
        if isinstance(obj.get("error_description"), str):
            fields["detail"] = obj["error_description"]
        inner = {}
    elif not isinstance(inner, dict):
        raise DecodeError(f"\"error\" must be an object, got {shorten(inner)}")
    type_ = inner.get("type") if isinstance(inner.get("type"), str) else None
    for name, target in (("code", "code"), ("message", "detail"), ("param", "param"), ("doc_url", "type")):
        if isinstance(inner.get(name), str):
            fields[target] = inner[name]
        elif name in inner:
            extensions[name] = inner[name]
    if type_ == "idempotency_error" and "code" not in fields:
        fields["code"] = "idempotency_error"  # the type is the only stable identifier it has
    status = http_status if http_status is not None else status_for(type_, fields.get("code"))
    if type_ is not None and type_ != error_type(status, fields.get("code")):
        hints.notes.append(f"Stripe type {type_!r} does not match status {status}")
    fields["status"] = status
    fields["grpc_code"] = code_for_http(status)
    stated: NextStep | None = None
    step = inner.get("next_step")
    if isinstance(step, str) and step in STEP_ALIASES:
        stated = STEP_ALIASES[step]
    elif step is not None:
        extensions["next_step"] = step
    for name, value in inner.items():
        if name not in _OWN:
            extensions[name] = value
    check_depth(extensions, limits.max_depth)
    fields["extensions"] = extensions
    return finish(fields, stated, hints, dialect)


def decode(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from a Stripe error body."""
    return from_object(read_json(data, limits, "the stripe body"), limits)


def to_object(fault: Fault) -> dict[str, Any]:
    inner: dict[str, Any] = {"type": error_type(fault.status, fault.code)}
    if fault.code is not None:
        inner["code"] = fault.code
    message = fault.detail or fault.title
    if message is not None:
        inner["message"] = message
    if fault.param is not None:
        inner["param"] = fault.param
    if fault.type is not None:
        inner["doc_url"] = fault.type
    if fault.next_step is not None:
        inner["next_step"] = str(fault.next_step)
    # A member of Stripe's own came in with the wrong type and was kept: it goes back
    # verbatim when its field is empty (as it then is, unless converted from elsewhere).
    if fault.extensions:
        for name, value in fault.extensions.items():
            if name not in inner:
                inner[name] = value
    return {"error": inner}


def encode(fault: Fault) -> bytes:
    """Compact Stripe JSON."""
    return write_json(to_object(fault))
