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

from typing import Any

from .._errors import DecodeError, shorten
from .._fault import Fault
from ..codes import CODE_BY_NAME, Code, code_for_http, code_name
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, write_json
from ._schema import check_depth, item_from_json
from ._status import check_details_count, fields_from_status, status_items_json

__all__ = ["Google"]

_KNOWN = ("code", "message", "status", "details")


def _unwrap(obj: Any) -> Any:
    if type(obj) is list:
        return next((x for x in obj if type(x) is dict), None)
    return obj


def decode_envelope(obj: Any, reading: Reading) -> Fault:
    """A Fault from a parsed `{"error": {...}}` envelope (or the list-wrapped form)."""
    at = ""
    if type(obj) is list:
        index = next((i for i, x in enumerate(obj) if type(x) is dict), 0)
        at, obj = f"/{index}", _unwrap(obj)
    if type(obj) is not dict or type(obj.get("error")) is not dict:
        raise DecodeError(f"a google error is {{\"error\": {{...}}}}, got {shorten(obj)}")
    inner = obj["error"]
    http, name, message, details = inner.get("code"), inner.get("status"), inner.get("message"), inner.get("details")
    unknown: dict[str, Any] = {}
    if details is None:
        details = ()
    elif type(details) is not list:
        unknown["details"] = details  # ignored for meaning, kept
        details = ()
    check_details_count(len(details), reading.limits)
    items = [item_from_json(d, reading.limits) for d in details]
    if message is None:
        message = ""
    elif type(message) is not str:
        unknown["message"] = message
        message = ""
    body_status = http if type(http) is int and 100 <= http <= 599 else None
    if http is not None and body_status is None:
        unknown["code"] = http
    if type(name) is str and name in CODE_BY_NAME:
        grpc_code = CODE_BY_NAME[name]
    else:
        if name is not None:
            unknown["status"] = name
        status = body_status or reading.status
        grpc_code = code_for_http(status) if status is not None else int(Code.UNKNOWN)
        reading.inferred.append("grpc_code")
    if len(inner) > len(_KNOWN) or not inner.keys() <= set(_KNOWN):
        unknown.update((k, v) for k, v in inner.items() if k not in _KNOWN)
    fields, stated, wait = fields_from_status(grpc_code, message, items, http_status=body_status)
    fields["status"] = reading.http_status_wins(fields["status"])
    if unknown:
        check_depth(unknown, reading.limits.max_depth)
        fields["extensions"] = {**unknown, **fields["extensions"]}
    if reading.seen is not None:
        reading.saw("body", at, "google")
        if body_status is not None:
            reading.saw("status", f"{at}/error/code", http)
        if message:
            reading.saw("text", f"{at}/error/message", message)
        reading.saw("details", f"{at}/error/details", list(details))
    return reading.finish(fields, stated, wait)


class Google(Dialect):
    """Google's `{"error": {...}}` envelope."""

    lossless = True
    name = "google"
    media_type = "application/json"
    content_type = "application/json; charset=UTF-8"  # as Google's front ends send it
    reserved = frozenset(_KNOWN)

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

    def decode(self, value: Any, reading: Reading) -> Fault:
        return decode_envelope(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        message, details = status_items_json(fault, keep_debug=writing.keep_debug)
        return write_json({"error": {"code": fault.status, "message": message, "status": code_name(fault.grpc_code), "details": details}})
