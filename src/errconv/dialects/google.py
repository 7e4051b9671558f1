"""`google`: Google's HTTP JSON error envelope (AIP-193, "HTTP/1.1+JSON representation").

    {"error": {"code": <HTTP>, "message": ..., "status": "<CODE_NAME>", "details": [...]}}

`code` is the HTTP status and `status` the gRPC code name: written always, since it is
the only lossless carrier of the gRPC code over HTTP. Decoding also accepts the
list-wrapped form streaming endpoints send (`[{"error": ...}]`), and is liberal: a
member of the wrong type (a `details` that is a string, as google-api-python-client's
own tests send) is ignored for meaning and kept, with the members it does not know
(the legacy `errors` array among them), as an extension. Lossless for every Fault.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from .._errors import DecodeError, shorten
from .._fault import Fault
from ..codes import CODE_BY_NAME, Code, code_for_http, code_name
from ..details import ErrorInfo
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, write_json
from ._schema import Item, WireDetail, check_depth, item_from_json, typed_items
from ._status import OWN_DETAILS, check_details_count, fields_from_status, status_items_json

__all__ = ["Google"]

_KNOWN = ("code", "message", "status", "details")


def _unwrap(obj: Any) -> Any:
    if type(obj) is list:
        return next((x for x in obj if type(x) is dict), None)
    return obj


class _Error(msgspec.Struct, forbid_unknown_fields=True):
    code: int | None = None
    message: str = ""
    status: str | None = None
    details: list[WireDetail] = []


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    """The usual shape, for msgspec to read in C (the list-wrapped form goes the general way)."""

    error: _Error


def from_parts(
    http: Any, name: Any, message: str, items: list[Item], unknown: dict[str, Any] | None, reading: Reading
) -> Fault:
    """The Fault of an envelope's members, however they were read: `http` (error.code)
    and `name` (error.status) as they came, `unknown` the members kept for no meaning."""
    body_status = http if type(http) is int and 100 <= http <= 599 else None
    if http is not None and body_status is None:
        unknown = {**(unknown or {}), "code": http}
    grpc_code = CODE_BY_NAME.get(name) if type(name) is str else None
    named = grpc_code is not None
    if grpc_code is None:
        if name is not None:
            unknown = {**(unknown or {}), "status": name}
        status = body_status or reading.status
        grpc_code = code_for_http(status) if status is not None else int(Code.UNKNOWN)
        reading.inferred += ("grpc_code",)
    fields, stated, wait = fields_from_status(grpc_code, message, items, http_status=body_status)
    if named and "code" not in fields and not any(type(item) is ErrorInfo for item in items):
        # No ErrorInfo: the code word in `status` is the only code the service states
        # (errconv's own bodies always carry an ErrorInfo, so this is never a code it added).
        fields["code"] = name
        reading.inferred += ("code",)  # the gRPC code's name: lint still asks for a code of the service's own
    if reading.status is not None:
        fields["status"] = reading.http_status_wins(fields["status"])
    if unknown:
        check_depth(unknown, reading.limits.max_depth)
        fields["extensions"] = {**unknown, **fields["extensions"]} if "extensions" in fields else unknown
    return reading.finish(fields, stated, wait)


def decode_envelope(obj: Any, reading: Reading) -> Fault:
    """A Fault from a parsed `{"error": {...}}` envelope (or the list-wrapped form), read
    liberally: a member of the wrong type is kept, for no meaning, as an extension."""
    at = ""
    if type(obj) is list:
        index = next((i for i, x in enumerate(obj) if type(x) is dict), 0)
        at, obj = f"/{index}", _unwrap(obj)
    inner = obj.get("error") if type(obj) is dict else None
    if type(inner) is not dict:
        raise DecodeError(f"a google error is {{\"error\": {{...}}}}, got {shorten(obj)}")
    get = inner.get
    http, name, message, details = get("code"), get("status"), get("message"), get("details")
    unknown: dict[str, Any] | None = None if inner.keys() <= _KNOWN_SET else {k: v for k, v in inner.items() if k not in _KNOWN_SET}
    items: list[Item] = []
    if type(details) is list:
        check_details_count(len(details), reading.limits)
        limits = reading.limits
        items = [item_from_json(d, limits) for d in details]
    elif details is not None:
        unknown = {**(unknown or {}), "details": details}
    if type(message) is not str:
        if message is not None:
            unknown = {**(unknown or {}), "message": message}
        message = ""
    if reading.seen is not None:
        reading.saw("body", at, "google")
        if type(http) is int:
            reading.saw("status", f"{at}/error/code", http)
        if message:
            reading.saw("text", f"{at}/error/message", message)
        reading.saw("details", f"{at}/error/details", list(details) if type(details) is list else [])
    return from_parts(http, name, message, items, unknown, reading)


_KNOWN_SET = frozenset(_KNOWN)
_DOUBLE_MAX = sys.float_info.max


class Google(Dialect):
    """Google's `{"error": {...}}` envelope."""

    lossless = True
    name = "google"
    media_type = "application/json"
    content_type = "application/json; charset=UTF-8"  # as Google's front ends send it
    reserved = frozenset(_KNOWN)
    keys = frozenset(("error",))

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`{"error": {...}}` whose inner object has a google.rpc.Code name in `status`,
        `@type` details, or an integer `code` beside a `message`; never a string `type`,
        which is Stripe's and OpenAI's mark."""
        value = _unwrap(value)
        if type(value) is not dict:
            return 0.0
        inner = value.get("error")
        if type(inner) is not dict or "type" in inner:
            return 0.0
        status, details, code = inner.get("status"), inner.get("details"), inner.get("code")
        if type(status) is str and status in CODE_BY_NAME:
            return STRONG
        if type(details) is list and details and all(type(d) is dict and "@type" in d for d in details):
            return STRONG
        if type(code) is int and (type(inner.get("message")) is str or type(status) is str):
            return LIKELY
        return 0.0

    schema = _Body

    def decode_typed(self, body: _Body, reading: Reading) -> Fault | None:
        error = body.error
        if error.code is not None and abs(error.code) > _DOUBLE_MAX or reading.seen is not None:
            return None  # a number no double holds, or a trace asked for: the general way
        if len(error.details) > reading.limits.max_details + OWN_DETAILS:
            return None  # the general way names the limit
        items = typed_items(error.details, reading.limits)
        if items is None:
            return None
        return from_parts(error.code, error.status, error.message, items, None, reading)

    def decode(self, value: Any, reading: Reading) -> Fault:
        return decode_envelope(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        message, details = status_items_json(fault, keep_debug=writing.keep_debug)
        return write_json({"error": {"code": fault.status, "message": message, "status": code_name(fault.grpc_code), "details": details}})
