"""`status-json`: proto3 JSON of google.rpc.Status, `{"code": <gRPC>, "message", "details"}`.

What grpc-gateway and Envoy's transcoder emit: no wrapper, `code` is the gRPC code,
no status name. Details as in `status`, in proto3 JSON. Lossless for every Fault.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import http_for_code
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, valid_code, write_json
from .._model.schema import WireDetail, check_depth, item_from_json, typed_items
from ._status import OWN_DETAILS, check_details_count, fields_from_status, status_items_json

__all__ = ["StatusJson"]

_KNOWN = ("code", "message", "details")


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    """The usual shape, for msgspec to read in C."""

    code: int | None = None
    message: str = ""
    details: list[WireDetail] = []


class StatusJson(Dialect):
    """google.rpc.Status in proto3 JSON."""

    lossless = True
    name = "status-json"
    precedence = 250
    listed = 40
    media_type = "application/json"
    reserved = frozenset(_KNOWN)
    keys = frozenset(("code",))
    ceiling = STRONG

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """An integer gRPC `code` with a `message` or `details`, and no `error` wrapper
        and none of problem's members."""
        if type(value) is not dict or "error" in value:
            return 0.0
        code = value.get("code")
        if type(code) is not int or not 0 <= code <= 16 or not ("message" in value or "details" in value):
            return 0.0
        if "title" in value or "type" in value or "detail" in value:
            return 0.0
        details = value.get("details")
        if type(details) is list and details and all(type(d) is dict and "@type" in d for d in details):
            return STRONG
        if http is not None and http.status is not None and http.status >= 400 and http_for_code(code) != http.status:
            # A gateway that writes google.rpc.Status sends the status its code maps to; a
            # small `code` beside another status (DNSExit's 6 at 400, "Record Type not
            # Supported") is the service's own number, for the general reader.
            return 0.0
        return LIKELY

    schema = _Body

    def decode_typed(self, body: _Body, reading: Reading) -> Fault | None:
        code = body.code
        if reading.seen is not None or len(body.details) > reading.limits.max_details + OWN_DETAILS:
            return None  # a trace, or a limit to name: the general way
        if code is not None and valid_code(code) != code:
            return None  # kept as an extension, the general way
        items = typed_items(body.details, reading.limits)
        if items is None:
            return None
        fields, stated, wait = fields_from_status(valid_code(code), body.message, items)
        if reading.status is not None:
            fields["status"] = reading.http_status_wins(fields["status"])
        return reading.finish(fields, stated, wait)

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"status-json must be a JSON object, got {shorten(value)}")
        message, details = value.get("message", ""), value.get("details")
        unknown: dict[str, Any] = {k: v for k, v in value.items() if k not in _KNOWN}
        if type(message) is not str:
            unknown["message"] = message
            message = ""
        if details is None:
            details = ()
        elif type(details) is not list:
            unknown["details"] = details
            details = ()
        check_details_count(len(details), reading.limits)
        items = [item_from_json(d, reading.limits) for d in details]
        code = value.get("code")
        if code is not None and valid_code(code) != code:
            unknown["code"] = code
        fields, stated, wait = fields_from_status(valid_code(code), message, items)
        fields["status"] = reading.http_status_wins(fields["status"])
        if unknown:
            if reading.deep:  # else the body is known to nest no deeper (_depth.shallow)
                check_depth(unknown, reading.limits.max_depth)
            fields["extensions"] = {**unknown, **fields["extensions"]} if "extensions" in fields else unknown
        if reading.seen is not None:
            reading.saw("body", "", "status")
            if message:
                reading.saw("text", "/message", message)
            reading.saw("details", "/details", list(details))
        return reading.finish(fields, stated, wait)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        """Compact proto3 JSON, members in field order, `details` always present."""
        message, details = status_items_json(fault, keep_debug=writing.keep_debug)
        return write_json({"code": fault.grpc_code, "message": message, "details": details})
