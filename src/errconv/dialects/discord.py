"""`discord`: the Discord API's error bodies. Decode only.

    {"code": 50035, "message": "Invalid Form Body",
     "errors": {"activities": {"0": {"platform": {"_errors": [{"code": "BASE_TYPE_CHOICES", "message": "..."}]}}}}}
    {"message": "You are being rate limited.", "retry_after": 64.57, "global": false}
    {"message": "Index not yet available. Try again later", "code": 110000, "documents_indexed": 0, "retry_after": 2}

`code` (Discord's JSON error code, as a string: `"50035"`) is the code, `message` the
detail. `errors` is a tree keyed by the request's JSON path whose leaves `_errors`
hold `{code, message}`: each is a violation, its field the path joined with dots
(`activities.0.platform`), its reason the leaf's code; `_errors` at the top is the
request as a whole (no field). The first field named is the param.

`retry_after` (seconds, fractional) is the body's delay, rounded up to whole seconds;
the 429's `Retry-After` and `X-RateLimit-Reset-After` headers are read by the core
(and agree with it, rounded). A search whose index is not ready answers 202 with an
error-shaped body and a `retry_after`: a failure inside a success response, a wait.
`global`, `documents_indexed` and the rest are kept verbatim.

A bare body has no status: a `retry_after` without `code` is a 429, `errors` a 400,
an "Unknown ..." code (10001-10999) a 404; else 400, marked inferred. Next step: the
code table below, else the status ladder.

Detection: an integer `code` and a string `message` beside an `errors` object or a
`retry_after`; the 429 body's `message`, `retry_after` and boolean `global`; a plain
`{code, message}` only with Discord's `X-RateLimit-Bucket` header (else it is
Twilio's shape too, which `twilio` reads).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import Code, NextStep
from ._base import STRONG, Dialect, HttpInfo
from ._common import Reading, whole_seconds
from ._vendor import Row, by_code, extensions_of, grpc_code_of, status_of

__all__ = ["Discord", "CODES"]

_WAIT = NextStep.WAIT
# discord-api-docs, "JSON Error Codes": the codes that clear with time, whatever status
# they come with (the ladder would read a 400 as fix_request). Other codes: the ladder.
CODES: dict[str, Row] = {
    "20016": (_WAIT, Code.RESOURCE_EXHAUSTED),  # slowmode rate limit
    "20022": (_WAIT, Code.RESOURCE_EXHAUSTED),  # announcement edit rate limit
    "20028": (_WAIT, Code.RESOURCE_EXHAUSTED),  # the channel's write rate limit
    "20029": (_WAIT, Code.RESOURCE_EXHAUSTED),  # the server's write rate limit
    # "Maximum number of ... has been reached. Try again later": rolling windows, not caps.
    "30040": (_WAIT, Code.RESOURCE_EXHAUSTED),
    "30042": (_WAIT, Code.RESOURCE_EXHAUSTED),
    "30046": (_WAIT, Code.RESOURCE_EXHAUSTED),
    "40062": (_WAIT, Code.RESOURCE_EXHAUSTED),  # service resource is being rate limited
    "110000": (_WAIT, Code.UNAVAILABLE),  # index not yet available (the search 202)
    "110001": (_WAIT, Code.UNAVAILABLE),  # application not yet available
    "130000": (_WAIT, Code.UNAVAILABLE),  # API resource overloaded
    "530006": (_WAIT, Code.UNAVAILABLE),  # "not a terminal error, and should resolve itself upon a retry"
}
_LEAF = "_errors"


def _number(value: Any) -> bool:
    return (type(value) is int or type(value) is float) and value == value


def _violations(tree: dict[str, Any], reading: Reading) -> tuple[Violation, ...]:
    """The leaves of an `errors` tree as violations, depth first in the body's order."""
    out: list[Violation] = []
    limit = reading.limits.max_violations
    stack: list[tuple[str, Iterator[tuple[str, Any]]]] = [("", iter(tree.items()))]
    while stack:
        path, members = stack[-1]
        member = next(members, None)
        if member is None:
            stack.pop()
            continue
        key, node = member
        if key == _LEAF:
            if type(node) is list:
                for leaf in node:
                    if type(leaf) is not dict:
                        continue
                    code, message = leaf.get("code"), leaf.get("message")
                    out.append(
                        Violation(
                            field=path,
                            description=message if type(message) is str else "",
                            reason=code if type(code) is str and code else None,
                        )
                    )
                if len(out) > limit:
                    raise DecodeError(f"over {limit} violations (Limits.max_violations)")
        elif type(node) is dict:
            stack.append((f"{path}.{key}" if path else str(key), iter(node.items())))
    return tuple(out)


class Discord(Dialect):
    """The Discord API's error bodies (decode only)."""

    name = "discord"
    precedence = 200
    listed = 140
    keys = frozenset(("message",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False
    errors_on_success = True  # the search's 202 "index not yet available"

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        if type(value) is not dict or type(value.get("message")) is not str:
            return 0.0
        code = value.get("code")
        numbered = type(code) is int
        retry = _number(value.get("retry_after"))
        if http is not None and http.status is not None and http.status < 400:
            return STRONG if numbered and retry else 0.0  # a 2xx is an error only with a delay to wait
        if numbered and (type(value.get("errors")) is dict or retry):
            return STRONG
        if retry and type(value.get("global")) is bool:
            return STRONG
        if numbered and http is not None and "x-ratelimit-bucket" in http.headers:
            return STRONG
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a discord error is a JSON object, got {shorten(value)}")
        fields: dict[str, Any] = {}
        read: set[str] = set()
        raw_code, message, tree, retry = value.get("code"), value.get("message"), value.get("errors"), value.get("retry_after")
        code = str(raw_code) if type(raw_code) is int else None
        if code is not None:
            fields["code"] = code
            read.add("code")
        if type(message) is str:
            fields["detail"] = message
            read.add("message")
        derived: int | None = None
        if type(tree) is dict:
            violations = _violations(tree, reading)
            if violations:
                fields["violations"] = violations
                param = next((v.field for v in violations if v.field), None)
                if param is not None:
                    fields["param"] = param  # the tree's path names it
            read.add("errors")
            derived = 400
        body_wait = None
        seconds = whole_seconds(retry) if _number(retry) else None
        if seconds is not None:
            fields["retry_after_seconds"] = seconds
            body_wait = "Discord retry_after"
            read.add("retry_after")
            if code is None:
                derived = 429
        if derived is None and type(raw_code) is int and 10001 <= raw_code <= 10999:
            derived = 404  # "Unknown <thing>"
        if reading.seen is not None:
            reading.saw("body", "", "discord")
            if seconds is not None:
                reading.saw("delay:retry_after", "/retry_after", retry)
            if "detail" in fields:
                reading.saw("text", "/message", message)
        row = CODES.get(code) if code is not None else None
        fields["status"] = status = status_of(reading, None, derived, 400, "discord")
        fields["grpc_code"] = grpc_code_of(status, reading, row)
        if status < 400 and row is None and seconds is not None:
            fields["grpc_code"] = int(Code.UNAVAILABLE)  # not ready yet, come back after the delay
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, body_wait=body_wait, by_code=by_code(CODES, code, "discord"))
