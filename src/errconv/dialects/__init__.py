"""The dialects errconv reads and writes, in one table.

Each row names a dialect and the module that holds its codec. Adding a dialect
means one module with `decode` and `encode`, one row here, and one golden file
per case.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .._errors import DecodeError, UnknownDialectError
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, Limits
from . import google_error, http_response, problem, rpc_status, status_json, stripe_error, trailers
from ._common import read_json

__all__ = ["DIALECTS", "Dialect", "detect", "get", "json_dialect"]


@dataclass(frozen=True)
class Dialect:
    """One row of the table: a name, its wire media type, and its codec."""

    name: str
    media_type: str
    decode: Callable[..., Fault]
    encode: Callable[[Fault], Any]
    binary: bool = False


DIALECTS: dict[str, Dialect] = {
    d.name: d
    for d in (
        Dialect("problem", problem.MEDIA_TYPE, problem.decode, problem.encode),
        Dialect("google", google_error.MEDIA_TYPE, google_error.decode, google_error.encode),
        Dialect("status-json", status_json.MEDIA_TYPE, status_json.decode, status_json.encode),
        Dialect("status", rpc_status.MEDIA_TYPE, rpc_status.decode, rpc_status.encode, binary=True),
        Dialect("grpc", trailers.MEDIA_TYPE, trailers.decode, trailers.encode),
        Dialect("stripe", stripe_error.MEDIA_TYPE, stripe_error.decode, stripe_error.encode),
        Dialect("http", http_response.MEDIA_TYPE, http_response.decode, partial(http_response.encode_with, "problem")),
        Dialect("http+problem", http_response.MEDIA_TYPE, http_response.decode, partial(http_response.encode_with, "problem")),
        Dialect("http+google", http_response.MEDIA_TYPE, http_response.decode, partial(http_response.encode_with, "google")),
        Dialect("http+stripe", http_response.MEDIA_TYPE, http_response.decode, partial(http_response.encode_with, "stripe")),
    )
}


def get(name: str) -> Dialect:
    """The dialect called `name`; UnknownDialectError with the closest names otherwise."""
    try:
        return DIALECTS[name]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(name), DIALECTS, n=2)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        raise UnknownDialectError(
            f"unknown dialect {name!r}{hint}; one of: {', '.join(DIALECTS)}"
        ) from None


# Spaces and tabs only: \s would cross newlines, and rescan a run of them from every line start.
def json_dialect(obj: Any) -> str | None:
    """The dialect of a parsed JSON body by its shape: google, stripe, status-json or problem.

    None for JSON that is no error body (an array without an `error` object, a scalar).
    """
    if google_error.looks_like(obj):
        return "google"
    if stripe_error.looks_like(obj):
        return "stripe"
    if status_json.looks_like(obj):
        return "status-json"
    if isinstance(obj, dict):
        return "problem"
    return None


_TRAILER_LINE = re.compile(rb"^[ \t]*grpc-status[ \t]*:", re.MULTILINE | re.IGNORECASE)


def detect(data: Any, *, limits: Limits = DEFAULT_LIMITS) -> str:
    """The name of the dialect `data` is written in.

    A whole HTTP response is `http` whatever its body; a list of pairs is `grpc`.

    >>> detect(b'{"error": {"code": 404, "message": "no", "status": "NOT_FOUND"}}')
    'google'
    """
    if isinstance(data, (list, tuple)):
        return "grpc"
    if isinstance(data, str):
        try:
            data = data.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise DecodeError("the input text holds a lone surrogate; give bytes or valid Unicode text") from None
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DecodeError(f"cannot read a {type(data).__name__}; give bytes, text or a list of trailer pairs")
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise DecodeError(f"the input is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    head = data.lstrip()
    if not head:
        raise DecodeError("the input is empty; give an error body, an HTTP response or gRPC trailers")
    if head.startswith(b"HTTP/"):
        return "http"
    if head[:1] in (b"{", b"["):
        obj = read_json(head, limits, "the input")
        name = json_dialect(obj)
        if name is not None:
            return name
        raise DecodeError("a JSON array is not an error body (a list-wrapped google error holds an \"error\" object)")
    if _TRAILER_LINE.search(head):
        return "grpc"
    if any(b < 0x09 or 0x0E <= b < 0x20 for b in data[:64]):
        return "status"
    raise DecodeError(
        f"cannot tell the dialect of {data[:30]!r}; name it (one of: {', '.join(DIALECTS)})"
    )
