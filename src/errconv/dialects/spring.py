"""`spring`: Spring Boot's default error body (`DefaultErrorAttributes`). Decode only.

    {"timestamp": "2016-11-06T03:16:02.440+0000", "status": 500, "error": "Internal Server Error",
     "exception": "demo.MyException", "message": "bla bla", "path": "/api/data"}

`status` is the HTTP status (the wire's wins, noted when they differ), `error` its
reason phrase (the title), `message` the detail (blank since Boot 2.3 unless enabled,
and "No message available" when there is none: neither is a detail), `path` the
request path, which is what Spring's own ProblemDetail writes as `instance`.
`errors` (binding errors, when enabled: `field`, `defaultMessage`, `code`) are the
violations. `trace` (the stack trace, when enabled) is a DebugInfo, so that an outer
boundary drops it as it drops every stack trace. Spring writes no application code;
`exception` (the class name) is kept verbatim with `timestamp`, `requestId` and any
other member.

Next step: the status ladder. Detection: `timestamp`, an integer `status`, a string
`error` and a string `path` together. Spring 6's ProblemDetail bodies are RFC 9457,
read by `problem`.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..details import DebugInfo
from ._base import STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import extensions_of, grpc_code_of, status_of, valid_status

__all__ = ["Spring"]

_NO_MESSAGE = frozenset(("", "No message available"))
_MAX_TRACE_LINES = 1000  # a stack trace's lines kept as DebugInfo entries; the rest is cut


def _binding_errors(errors: Any, reading: Reading) -> tuple[Violation, ...] | None:
    """Spring's `errors` (FieldError / ObjectError as JSON) as violations, or None for a
    value of another shape."""
    if type(errors) is not list or not errors or not all(type(e) is dict for e in errors):
        return None
    if len(errors) > reading.limits.max_violations:
        raise DecodeError(f"{len(errors)} violations, over the limit of {reading.limits.max_violations} (Limits.max_violations)")
    out = []
    for entry in errors:
        field = entry.get("field")
        message = entry.get("defaultMessage")
        code = entry.get("code")
        out.append(
            Violation(
                field=field if type(field) is str else "",  # an ObjectError has none: the object as a whole
                description=message if type(message) is str else "",
                reason=code if type(code) is str and code else None,
            )
        )
    return tuple(out)


class Spring(Dialect):
    """Spring Boot's default error attributes (decode only)."""

    name = "spring"
    precedence = 240
    listed = 190
    keys = frozenset(("timestamp",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`timestamp`, an integer `status`, a string `error` and a string `path`."""
        if (
            type(value) is dict
            and "timestamp" in value
            and type(value.get("status")) is int
            and type(value.get("error")) is str
            and type(value.get("path")) is str
        ):
            return STRONG
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a spring error is a JSON object, got {shorten(value)}")
        fields: dict[str, Any] = {}
        read: set[str] = set()
        body_status = valid_status(value.get("status")) if type(value.get("status")) is int else None
        if body_status is not None:
            read.add("status")
        error, message, path = value.get("error"), value.get("message"), value.get("path")
        if type(error) is str:
            fields["title"] = error
            read.add("error")
        if type(message) is str:
            if message not in _NO_MESSAGE:
                fields["detail"] = message
            read.add("message")
        if type(path) is str:
            fields["instance"] = path
            read.add("path")
        violations = _binding_errors(value.get("errors"), reading)
        if violations is not None:
            fields["violations"] = violations
            param = next((v.field for v in violations if v.field), None)
            if param is not None:
                fields["param"] = param
            read.add("errors")
        trace = value.get("trace")
        if type(trace) is str and trace:
            lines = trace.splitlines()[:_MAX_TRACE_LINES]
            exception = value.get("exception")
            fields["details"] = (DebugInfo(stack_entries=tuple(lines), detail=exception if type(exception) is str else ""),)
            read.add("trace")
        if reading.seen is not None:
            reading.saw("body", "", "spring")
            if body_status is not None:
                reading.saw("status", "/status", body_status)
            for name in ("error", "message"):
                if name in read:
                    reading.saw("text", f"/{name}", value[name])
        fields["status"] = status = status_of(reading, body_status, None, 500, "spring")
        fields["grpc_code"] = grpc_code_of(status, reading)
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None)
