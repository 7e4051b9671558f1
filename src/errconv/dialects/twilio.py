"""`twilio`: Twilio's REST API error bodies, both generations. Decode only.

    {"code": 20404, "message": "The requested resource ... was not found", "more_info": "https://www.twilio.com/docs/errors/20404", "status": 404}
    {"type": "https://www.twilio.com/docs/api/errors/20001", "title": "Invalid parameter", "status": 400, "code": 20001,
     "detail": "...", "instance": "/api/v1/...", "errors": [{"detail": "...", "pointer": "#/age"}]}

The integer `code` is the code, as a string (`"20404"`). The older body has
`message` (the detail), `more_info` (the page documenting the code, as `type`),
`status` and sometimes `details` (kept verbatim); the newer APIs answer RFC 9457
problem details plus that integer code, read member for member as `problem` reads
them (`errors` with pointers as violations). The status: the wire's; else the body's;
else, for a code `20NNN` whose last three digits are an HTTP error status (20404,
20429, 20500, 20503: Twilio's own convention), that status; else 400, marked
inferred. Next step: the code table below, else the status ladder.

Detection: `more_info` or a problem `type` under https://www.twilio.com/docs/, or a
`Twilio-Request-Id` header, beside an integer `code` (STRONG, which puts a Twilio RFC
9457 body ahead of plain `problem`); else an integer `code` of Twilio's five digits
with a `message` and only Twilio's members (LIKELY). A problem body with a string
`code`, as errconv writes, is never Twilio's. Inside HTTP, a body whose media type is
`application/problem+json` is read by `problem` (the media type decides there), which
keeps the integer code verbatim as an extension.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import REASON_PHRASES, Code, NextStep
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import Row, by_code, extensions_of, grpc_code_of, status_of, valid_status
from .problem import violations as problem_violations

__all__ = ["Twilio", "CODES"]

CODES: dict[str, Row] = {
    # Too many requests / service unavailable: a wait even if a proxy put another status on it.
    "20429": (NextStep.WAIT, Code.RESOURCE_EXHAUSTED),
    "20503": (NextStep.WAIT, Code.UNAVAILABLE),
}
_DOCS = ("https://www.twilio.com/docs/", "http://www.twilio.com/docs/")
_LEGACY_MEMBERS = frozenset(("code", "message", "more_info", "status", "details"))
_TEXT = ("type", "title", "detail", "instance")


def _twilio_code(value: Any) -> bool:
    return type(value) is int and 10000 <= value <= 99999


class Twilio(Dialect):
    """Twilio's error bodies (decode only)."""

    name = "twilio"
    precedence = 210
    listed = 150
    keys = frozenset(("code",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        if type(value) is not dict or type(value.get("code")) is not int:
            return 0.0
        more_info, type_ = value.get("more_info"), value.get("type")
        if (type(more_info) is str and more_info.startswith(_DOCS)) or (type(type_) is str and type_.startswith(_DOCS)):
            return STRONG
        if http is not None and "twilio-request-id" in http.headers:
            return STRONG
        if _twilio_code(value["code"]) and type(value.get("message")) is str and value.keys() <= _LEGACY_MEMBERS:
            return LIKELY
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a twilio error is a JSON object, got {shorten(value)}")
        fields: dict[str, Any] = {}
        read: set[str] = set()
        raw = value.get("code")
        code = str(raw) if type(raw) is int else None
        if code is not None:
            fields["code"] = code
            read.add("code")
        for name in _TEXT:
            item = value.get(name)
            if type(item) is str:
                fields[name] = item
                read.add(name)
        message, more_info = value.get("message"), value.get("more_info")
        if type(message) is str and "detail" not in fields:
            fields["detail"] = message
            read.add("message")
        if type(more_info) is str and more_info.startswith(("https://", "http://")) and "type" not in fields:
            fields["type"] = more_info
            read.add("more_info")
        errors = value.get("errors")
        if errors is not None:
            found = problem_violations(errors, reading)
            if found is not None:
                fields["violations"] = found
                read.add("errors")
        body_status = valid_status(value.get("status")) if type(value.get("status")) is int else None
        if body_status is not None:
            read.add("status")
        derived = None
        if type(raw) is int and 20400 <= raw <= 20599 and raw - 20000 in REASON_PHRASES:
            derived = raw - 20000
        if reading.seen is not None:
            reading.saw("body", "", "twilio")
            if body_status is not None:
                reading.saw("status", "/status", body_status)
            if "detail" in fields:
                reading.saw("text", "/detail" if "detail" in read else "/message", fields["detail"])
        row = CODES.get(code) if code is not None else None
        fields["status"] = status = status_of(reading, body_status, derived, 400, "twilio")
        fields["grpc_code"] = grpc_code_of(status, reading, row)
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, by_code=by_code(CODES, code, "twilio"))
