"""What `to_http` accepts as an error, read into a Fault.

- a `Fault`, or a `FaultError` carrying one;
- a gRPC error: anything with callable `code()`, `details()` and `trailing_metadata()`
  (`grpc.RpcError` as grpcio raises it, `grpc.aio.AioRpcError`), read through
  `from_grpc`; or a status with those three as attributes (`grpc.Status`,
  `errconv.to_grpc`'s answer);
- an upstream HTTP response: anything with `status_code`, `headers` and `content`
  (`httpx.Response`, `requests.Response`), an exception carrying one as `.response`
  (`httpx.HTTPStatusError`, `requests.HTTPError`), or a `(status, headers, body)`
  tuple, read as `from_http` reads one;
- any other exception: INTERNAL, give_up, and nothing of the exception's text.

Everything is duck-typed, so errconv imports neither grpcio nor an HTTP client for it.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, FaultError, shorten
from .._model.fault import Fault
from .._model.limits import Limits
from ..codes import Code
from ..dialects._trailers import from_grpc
from ..dialects._responses import read_response

__all__ = ["INTERNAL", "fault_of", "is_rpc_error", "rpc_fault", "upstream_fault", "upstream_response"]

# What a client learns of a bug: that it is one, and that repeating the call will not
# help (AIP-194: INTERNAL is give_up). Never the exception's text, which can hold
# paths, SQL, keys or another user's data.
INTERNAL = Fault.build(status=500, grpc_code=Code.INTERNAL, next_step="give_up", title="Internal Server Error")

# grpcio's own messages for an exception a servicer did not handle: the exception's
# text follows them, and must not reach an HTTP client through the gateway.
_GRPCIO_LEAKS = ("Exception calling application", "Exception iterating responses", "Exception deserializing")


def is_rpc_error(error: Any) -> bool:
    """A finished gRPC call's error, as grpcio and grpc.aio raise it."""
    return all(callable(getattr(error, name, None)) for name in ("code", "details", "trailing_metadata"))


def _is_status(error: Any) -> bool:
    return all(hasattr(error, name) for name in ("code", "details", "trailing_metadata")) and not isinstance(error, BaseException)


def upstream_response(error: Any) -> tuple[int, Any, Any] | None:
    """The (status, headers, body) of an HTTP response in any of the usual forms, or None."""
    if isinstance(error, tuple) and len(error) == 3 and isinstance(error[0], int):
        return error
    if isinstance(error, BaseException):
        inner = getattr(error, "response", None)  # httpx.HTTPStatusError, requests.HTTPError
        return upstream_response(inner) if inner is not None and not isinstance(inner, BaseException) else None
    status = getattr(error, "status_code", None)
    if not (isinstance(status, int) and not isinstance(status, bool) and hasattr(error, "headers")):
        return None
    try:
        body = error.content
    except AttributeError:
        return None  # a status_code and headers, but no response body: not a response
    except Exception:  # a streamed response nobody read (httpx.ResponseNotRead): status and headers still say much
        body = b""
    return status, error.headers, body


def upstream_fault(status: Any, headers: Any, body: Any, limits: Limits, *, hostile: bool = False) -> Fault:
    """The Fault of an upstream HTTP response: read whole; when what it carries is
    unreadable (invalid UTF-8, a body or a header over the limits) its status and
    headers, then its status alone, still say what the caller should do. A status that
    is no error status (a success, or none at all) is not stepped down: the first error
    is raised. `hostile`: the parts come from an exception's attributes, where anything
    may raise as it is read, so every failure steps down, not DecodeError alone.

    The one reader of an upstream response for the gateway (`fault_of`) and for
    `from_exception`."""
    guarded: type[Exception] = Exception if hostile else DecodeError
    try:
        return read_response(status, headers, body, limits=limits)
    except guarded:
        if not (isinstance(status, int) and 400 <= status <= 599):
            raise  # a success or no status at all: not an error this can answer
    try:
        return read_response(status, headers, b"", limits=limits)
    except guarded:
        return read_response(status, (), b"", limits=limits)


def rpc_fault(code: Any, details: Any, metadata: Any, limits: Limits, *, hostile: bool = False) -> Fault:
    """The Fault of a finished gRPC call's code, details and trailing metadata, through
    `from_grpc`. grpcio's own text for an exception a servicer did not handle is not
    read (the exception's text follows it); trailers over the limits (or, `hostile`,
    unreadable in any way) leave the code alone to say what to do.

    The one reader of a gRPC error for the gateway (`fault_of`) and for `from_exception`."""
    if isinstance(details, bytes):
        details = details.decode("utf-8", "replace")
    if not isinstance(details, str) or details.startswith(_GRPCIO_LEAKS):
        details = None
    try:
        return from_grpc(code, details, metadata if metadata is not None else (), limits=limits)
    except Exception if hostile else DecodeError:
        return from_grpc(code, None, (), limits=limits)


def fault_of(error: Any, limits: Limits) -> Fault:
    """The Fault `to_http` answers for `error` (see the module docstring)."""
    if isinstance(error, Fault):
        return error
    if isinstance(error, FaultError):
        return error.fault
    if isinstance(error, BaseException) and is_rpc_error(error):
        rpc: Any = error  # duck-typed: grpc.RpcError declares none of the three
        return rpc_fault(rpc.code(), rpc.details(), rpc.trailing_metadata(), limits)
    response = upstream_response(error)
    if response is not None:
        return upstream_fault(*response, limits)
    if _is_status(error):
        return rpc_fault(error.code, error.details, error.trailing_metadata, limits)
    if isinstance(error, BaseException):
        return INTERNAL
    raise TypeError(
        "to_http takes a Fault, a FaultError, a gRPC error, an HTTP response (or status, headers, body) "
        f"or an exception, got {shorten(error)}"
    )
