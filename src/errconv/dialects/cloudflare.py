"""`cloudflare`: the Cloudflare API v4 envelope of a failure. Decode only.

    {"success": false, "errors": [{"code": 1003, "message": "...", "documentation_url": ..., "source": {"pointer": ...}}],
     "messages": [], "result": null}

The first error gives the code (its integer `code`, as a string: `"1003"`), the
detail (`message`), the documentation page (`documentation_url`, as `type`) and,
when it has a `source.pointer`, the param; every error with a pointer is a
violation. The rest stays verbatim: further errors (the whole `errors` list is kept
when it holds more than the first error's members), a non-empty `messages`, a
non-null `result` (upload details, ...). `success` is false, or null in some of
Cloudflare's own fixtures; a body that has no `success` member is not this one.

A bare body has no status: a code in the table below gives one, else 400 is assumed
(Cloudflare answers its request errors with 4xx), marked inferred. Next step: the
code table, else the status ladder.

Detection: `success` false or null beside an `errors` list of objects; CERTAIN with
`messages` or `result` too, or with integer codes (neither GraphQL nor JSON:API
errors have a `success` flag).
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import Code, NextStep
from ._base import CERTAIN, STRONG, Dialect, HttpInfo
from ._common import Reading
from ._pointer import pointer_to_field
from ._vendor import Row, by_code, extensions_of, grpc_code_of, status_of

__all__ = ["Cloudflare", "CODES"]

CODES: dict[str, Row] = {
    # "Authentication error": a bad or under-privileged token, answered with 403
    # (hieunc229/mailflare#1, cloudflare/pages-action#112); the same token fails again.
    "10000": (NextStep.GIVE_UP, Code.PERMISSION_DENIED),
    # "Please wait and consider throttling your request speed": the API's rate limit (a 429).
    "971": (NextStep.WAIT, Code.RESOURCE_EXHAUSTED),
}
_STATUS_FOR_CODE = {"10000": 403, "971": 429}
_FIRST_MEMBERS = frozenset(("code", "message", "documentation_url", "source"))


def _is_error(item: Any) -> bool:
    return type(item) is dict and ("message" in item or "code" in item)


def _code(value: Any) -> str | None:
    if type(value) is int:
        return str(value)
    if type(value) is str and value:
        return value
    return None


class Cloudflare(Dialect):
    """The Cloudflare API v4 failure envelope (decode only)."""

    name = "cloudflare"
    precedence = 180
    listed = 120
    keys = frozenset(("success",))
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`success` false (or null) beside an `errors` list of `{code, message}` objects."""
        if type(value) is not dict or "success" not in value or value["success"] not in (False, None):
            return 0.0
        errors = value.get("errors")
        if type(errors) is not list or not all(_is_error(e) for e in errors):
            return 0.0
        if "messages" in value or "result" in value or (errors and all(type(e.get("code")) is int for e in errors)):
            return CERTAIN
        return STRONG

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict or type(value.get("errors")) is not list:
            raise DecodeError(f"a cloudflare error is {{\"success\": false, \"errors\": [...]}}, got {shorten(value)}")
        fields: dict[str, Any] = {}
        errors = value["errors"]
        read: set[str] = {"errors"}
        if value.get("success", True) in (False, None):
            read.add("success")
        if value.get("messages", 0) in ([], None):
            read.add("messages")
        if "result" in value and value["result"] is None:
            read.add("result")
        items = [e for e in errors if type(e) is dict]
        first = items[0] if items else None
        code = None
        if first is not None:
            code = _code(first.get("code"))
            if code is not None:
                fields["code"] = code
            message, doc = first.get("message"), first.get("documentation_url")
            if type(message) is str:
                fields["detail"] = message
            if type(doc) is str and doc.startswith(("https://", "http://")):
                fields["type"] = doc
        violations = []
        for item in items:
            source = item.get("source")
            pointer = source.get("pointer") if type(source) is dict else None
            if type(pointer) is str and pointer:
                description = item.get("message")
                violations.append(
                    Violation(
                        field=pointer_to_field(pointer) if pointer.startswith(("#", "/")) else pointer,
                        description=description if type(description) is str else "",
                        reason=_code(item.get("code")),
                    )
                )
        if len(violations) > reading.limits.max_violations:
            raise DecodeError(f"{len(violations)} violations, over the limit of {reading.limits.max_violations} (Limits.max_violations)")
        if violations:
            fields["violations"] = tuple(violations)
            param = next((v.field for v in violations if v.field), None)
            if param is not None:
                fields["param"] = param  # the error's source names it
        if len(errors) != 1 or first is None or not first.keys() <= _FIRST_MEMBERS or (code is None and "code" in first):
            read.discard("errors")  # more than the first error's members: the list is kept whole
        if reading.seen is not None:
            reading.saw("body", "", "cloudflare")
            if "detail" in fields:
                reading.saw("text", "/errors/0/message", fields["detail"])
        row = CODES.get(code) if code is not None else None
        fields["status"] = status = status_of(reading, None, _STATUS_FOR_CODE.get(code or ""), 400, "cloudflare")
        fields["grpc_code"] = grpc_code_of(status, reading, row)
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, by_code=by_code(CODES, code, "cloudflare"))
