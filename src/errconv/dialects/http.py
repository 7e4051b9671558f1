"""`http`: a whole HTTP response, and `http+<name>`: one with a body in dialect `name`.

A thin layer over `errconv.from_http` / `errconv.to_http`. Decoding takes HTTP/1.x
and what people paste: `curl -i` output (HTTP/2 status lines, interim 1xx and proxy
`Connection established` blocks), `curl -v` output (`< ` and `> ` prefixes, `* `
lines), LF line ends and a body straight after the headers. The body is read as the
dialect the registry picks; `http` and every `http+<name>` decode alike. Encoding
writes an HTTP/1.1 response: the status line, `to_http`'s headers, `Content-Length`,
the body; `http` writes `http+problem`. DebugInfo is dropped: this is an outer
boundary.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._model.fault import Fault
from . import get
from ._base import CERTAIN, Dialect, HttpInfo
from ._responses import decode_message, looks_like_http, respond
from ._common import Reading, Writing

__all__ = ["Http", "HttpBody"]


class Http(Dialect):
    """A whole HTTP response, whatever its body."""

    one_line = False
    name = "http"
    precedence = 290
    listed = 290
    form = "http"
    suffix = "http"
    alias_of: ClassVar[str | None] = "http+problem"  # what it writes; no golden file of its own

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        return CERTAIN if isinstance(value, (bytes, bytearray)) and looks_like_http(bytes(value)) else 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        return decode_message(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return bytes(respond(fault, get("problem"), _in_http(writing)))

    def body_form(self, body: Dialect) -> Dialect:
        return HttpBody(body)


class HttpBody(Http):
    """An HTTP response with a body in one dialect (`http+problem`, `http+google`, ...)."""

    alias_of = None

    def __init__(self, body: Dialect) -> None:
        self.body = body
        self.name = f"http+{body.name}"  # type: ignore[misc]
        self.lossless = body.lossless  # type: ignore[misc]

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        return 0.0  # `http` recognises every response; this form names what to write

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return bytes(respond(fault, self.body, _in_http(writing)))


def _in_http(writing: Writing) -> Writing:
    return writing if writing.in_http else Writing(writing.limits, keep_debug=writing.keep_debug, in_http=True)
