"""The ASGI middleware, and what the framework hooks share.

`ProblemMiddleware(app, ...)` is pure ASGI middleware that answers a FaultError, a gRPC
error, an upstream HTTP client's status error and (with `catch_all`) any other exception
raised before the response started. The framework hooks (`starlette.py`, `litestar.py`)
answer through the same `_Answers`, and read validation errors and HTTP exceptions with
`validation_fault` and `_http_exception_fault` here.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from .._pipeline.edge import INTERNAL, fault_of as _fault_of, is_rpc_error, upstream_response
from .._model.errors import DecodeError, FaultError
from .. import _observe
from .._telemetry import telemetry as _telemetry
from .._model.fault import Fault, Violation
from .._pipeline.http import to_http
from ..dialects._responses import HttpResponse
from .._model.limits import DEFAULT_LIMITS, Limits
from .._pipeline.negotiate import body_dialect as _body_dialect, negotiate
from ..codes import Code, NextStep

if TYPE_CHECKING:
    from errconv import Catalog

__all__ = ["ProblemMiddleware", "fault_of", "validation_fault", "wire_headers"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("errconv.gateway")

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")  # RFC 9110 5.5 field-value: no CR, LF, NUL or other control
_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,200}")  # printable ASCII, no space, bounded: copied into every answer
_URI_SAFE = "-._~!$&'()*+,;=:@/"  # RFC 3986 unreserved, sub-delims, ":", "@" and "/": a path as it may stand
_URI_PATH = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*(?:%[0-9A-Fa-f]{2}[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)*")
_CACHED_HEADER = 256  # header sets this short in all are checked once and remembered
_NO_BODY = frozenset({204, 205, 304})
_LOCATIONS = frozenset({"body", "query", "path", "header", "cookie"})  # FastAPI's loc[0]
# Written by the answer itself: an exception's own header of these names gives way.
_OURS = frozenset({"content-type", "content-length", "retry-after", "vary", "x-should-retry"})


def fault_of(error: Any, *, limits: Limits = DEFAULT_LIMITS) -> Fault:
    """The Fault `to_http` answers for `error`: any of the kinds it takes (a Fault, a
    FaultError, a gRPC error, an upstream response, any other exception).

    Unlike `from_http`, which refuses what it cannot read, this never fails on what an
    upstream sent: a body that is not UTF-8 or is past the limits is read from the
    status and headers alone, so `raise FaultError(fault_of(resp))` and
    `to_grpc(fault_of(resp))` hold for any upstream. A 2xx or 3xx response is still no
    error (`DecodeError`).
    """
    return _fault_of(error, limits)


def wire_headers(headers: Iterable[tuple[str, str]], body_length: int | None) -> list[tuple[bytes, bytes]]:
    """Header pairs as ASGI sends them, each checked: a name that is no token, or a
    value holding CR, LF, NUL or another control (or a character beyond latin-1), is
    refused (left out, and logged), so nothing copied into a header can split the
    response. `Content-Length` is written from `body_length` and never copied."""
    pairs = tuple(headers)
    checked = _seen.get(pairs)  # the usual sets (Content-Type, Retry-After, Vary) repeat
    if checked is None:
        checked = _wire(pairs)
        if sum(len(v) if isinstance(v, str) else _CACHED_HEADER for _, v in pairs) < _CACHED_HEADER:
            if len(_seen) >= 256:
                _seen.clear()  # bounded; refilled by the sets in use
            _seen[pairs] = checked
    if body_length is None:
        return list(checked)
    return [(b"content-length", str(body_length).encode("ascii")), *checked]


def _wire(pairs: tuple[tuple[Any, Any], ...]) -> tuple[tuple[bytes, bytes], ...]:
    out = []
    for name, value in pairs:
        if not (isinstance(name, str) and isinstance(value, str) and _TOKEN.fullmatch(name) and _FIELD_VALUE.fullmatch(value)):
            log.warning("errconv.gateway refused a header that is not safe to send: %r", name if isinstance(name, str) else type(name))
            continue
        if name.lower() != "content-length":
            out.append((name.lower().encode("latin-1"), value.strip(" \t").encode("latin-1")))
    return tuple(out)


_seen: dict[tuple[tuple[Any, Any], ...], tuple[tuple[bytes, bytes], ...]] = {}


@functools.lru_cache(maxsize=1024)
def _path_instance(raw: bytes) -> str | None:
    """The instance for a request path as the client sent it (paths repeat: cached)."""
    path = raw.partition(b"?")[0].decode("latin-1")
    if _URI_PATH.fullmatch(path):
        return path  # already a valid URI path
    return urllib.parse.quote(path, safe=_URI_SAFE + "%") or None


def _singled(exc: BaseException) -> BaseException:
    """The one exception inside (nested) exception groups of one, as anyio task groups
    and Starlette wrap them; any other exception as it is."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


class _Answers:
    """The choices every hook shares: dialects, instance, limits."""

    def __init__(
        self,
        *,
        dialect: str,
        json_dialect: str,
        request_id_header: str | None,
        limits: Limits,
        catalog: Catalog | None = None,
        telemetry: bool = False,
    ) -> None:
        _body_dialect(dialect)  # refused now, at startup, not on the first failing request
        _body_dialect(json_dialect)
        self.catalog = catalog
        self.dialect = dialect
        self.json_dialect = json_dialect
        self.request_id = request_id_header.lower().encode("latin-1") if request_id_header else None
        self.limits = limits
        self.observer = _telemetry(telemetry)

    def instance(self, scope: Scope, request_id: str | None) -> str | None:
        """The occurrence: the request id when configured and sent, else the request path
        (as sent, without the query string, which may hold keys)."""
        if request_id is not None and _REQUEST_ID.fullmatch(request_id):
            return urllib.parse.quote(request_id, safe=_URI_SAFE)
        raw = scope.get("raw_path")
        if raw:
            return _path_instance(bytes(raw))
        return urllib.parse.quote(scope.get("root_path", "") + scope.get("path", ""), safe=_URI_SAFE) or None

    def fault(self, error: Any) -> Fault:
        """The Fault for an error of any kind to_http takes; INTERNAL for one that says
        no error happened (an HTTP client's status error on a 3xx)."""
        if isinstance(error, FaultError):
            return error.fault
        try:
            return _fault_of(error, self.limits)
        except DecodeError:
            return INTERNAL

    def answer(self, fault: Fault, scope: Scope) -> HttpResponse:
        """The response for `fault`, negotiated on the request's Accept (under a catalog,
        only its codes: anything else is its internal error, logged)."""
        if self.catalog is not None:
            fault = self.catalog.conform(fault)
        accept = request_id = None
        for key, value in scope.get("headers") or ():  # one pass for both
            if key == b"accept" and accept is None:
                accept = bytes(value).decode("latin-1")
            elif key == self.request_id and request_id is None:
                request_id = bytes(value).decode("latin-1")
        response = to_http(
            fault,
            self.dialect,
            accept=accept or "",  # "" is any: still negotiated, so Vary: Accept goes out
            json_dialect=self.json_dialect,
            instance=self.instance(scope, request_id),
            limits=self.limits,
        )
        observer = _observe.observer(self.observer)
        if observer is not None:  # telemetry: the fault written, on the request's server span
            written = negotiate(accept or "", self.dialect, self.json_dialect).dialect.name
            route = getattr(scope.get("route"), "path", None)  # the template Starlette's router matched
            observer.fault(fault, "server", written, status=response.status, where=("http.route", route) if isinstance(route, str) else None)
        return response


async def _send_response(send: Send, response: HttpResponse, scope: Scope, extra: Iterable[tuple[str, str]] = ()) -> None:
    body = b"" if response.status in _NO_BODY else response.body
    headers = wire_headers([*response.headers, *extra] if extra else response.headers, len(body))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else body})


class _Answer:
    """An answer as an ASGI app, which is all Starlette asks of a handler's response."""

    __slots__ = ("response", "extra")

    def __init__(self, response: HttpResponse, extra: list[tuple[str, str]]) -> None:
        self.response = response
        self.extra = extra

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _send_response(send, self.response, scope, self.extra)


class ProblemMiddleware:
    """Pure ASGI middleware that answers errors in one dialect, negotiated per request.

    It catches, from the app it wraps and before the response started: a FaultError;
    a gRPC error (`grpc.RpcError`, `grpc.aio.AioRpcError`: anything with callable
    `code()`, `details()`, `trailing_metadata()`); an HTTP client's status error that
    carries the upstream response (`httpx.HTTPStatusError`, `requests.HTTPError`);
    and, with `catch_all=True`, any other exception, answered as 500 INTERNAL,
    give_up, and logged with its traceback, its text never sent.

    The answer is `to_http(...)`: the fault's status, a Content-Type from the client's
    Accept (`dialect` for `*/*` or no Accept, `json_dialect` for `application/json`,
    problem+json when nothing fits), `Retry-After` for every wait (the body's number),
    `Vary: Accept`, `instance` from `request_id_header` when the request sends it,
    else the request path; DebugInfo and exception text are never sent. With
    `catalog=` (an `errconv.Catalog`), it answers only with the catalog's codes: a
    fault whose code is not in it, or disagrees with its entry, is answered as the
    catalog's internal error and logged (`Catalog.conform`).

    A response that already started is never touched: the exception is logged and
    re-raised, so the server closes the connection and the client sees a broken
    response, not a second one. Lifespan and WebSocket scopes pass through untouched.
    Not `BaseHTTPMiddleware`: streaming, background tasks and contextvars behave as
    they do without it. `telemetry=True` records every fault it answers on the request's
    span and counts it (`errconv.otel`, which needs the `otel` extra).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        json_dialect: str = "problem",
        dialect: str = "problem",
        catch_all: bool = False,
        request_id_header: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
        catalog: Catalog | None = None,
        telemetry: bool = False,
    ) -> None:
        self.app = app
        self.catch_all = catch_all
        self._answers = _Answers(
            dialect=dialect, json_dialect=json_dialect, request_id_header=request_id_header, limits=limits, catalog=catalog,
            telemetry=telemetry,
        )

    def _handles(self, exc: BaseException) -> bool:
        if isinstance(exc, FaultError) or self.catch_all:
            return True
        return is_rpc_error(exc) or (upstream_response(exc) is not None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection: the app's, with its errors answered (see the class)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False  # per request, never per middleware: requests run concurrently

        # A plain function returning send's awaitable: one coroutine per message, not two,
        # which is most of what this middleware costs a request that succeeds.
        def watched(message: Message) -> Awaitable[None]:
            nonlocal started
            if not started and message["type"] == "http.response.start":
                started = True
            return send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as raised:
            exc = _singled(raised)
            if not self._handles(exc):
                raise
            if started:
                log.error(
                    "%s %s failed after its response started; re-raised so the server ends the response",
                    scope.get("method"), scope.get("path"), exc_info=exc,
                )
                raise
            fault = self._answers.fault(exc)
            if fault is INTERNAL:  # a bug, not an answer: the traceback goes to the log, never to the client
                log.error("%s %s raised; answered 500", scope.get("method"), scope.get("path"), exc_info=exc)
            await _send_response(send, self._answers.answer(fault, scope), scope)


# --------------------------------------------------------------------------- what the framework hooks share


def _dotted(loc: Iterable[Any]) -> str:
    """A FastAPI error location as a field path: ("body", "items", 0, "price") is
    `items[0].price`, the form errconv's field violations use everywhere."""
    parts = list(loc)
    if len(parts) > 1 and parts[0] in _LOCATIONS:
        parts = parts[1:]
    out = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "body"


def validation_fault(errors: Iterable[Mapping[str, Any]], *, status: int = 422, limits: Limits = DEFAULT_LIMITS) -> Fault:
    """The fault for a list of pydantic-style errors (`{loc, msg, type}`): one
    violation per error, `param` the first one's field path, fix_request."""
    violations: list[Violation] = []
    for error in errors:
        if len(violations) >= limits.max_violations:
            break
        reason = error.get("type")
        field = _dotted(error.get("loc") or ())
        description = str(error.get("msg") or "")
        if reason == "json_invalid":  # pydantic's loc is ("body", <character offset>): no field, the body
            offset = list(error.get("loc") or ())[-1:]
            at = f" at character {offset[0]}" if offset and isinstance(offset[0], int) else ""
            field, description = "body", f"the request body is not valid JSON{at}"
        violations.append(
            Violation(
                field=field,
                description=description,
                reason=reason.upper() if isinstance(reason, str) and reason else None,
            )
        )
    if not violations:
        violations.append(Violation(field="body", description="the request is not valid"))
    first = violations[0]
    more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
    return Fault.build(
        status=status,
        grpc_code=Code.INVALID_ARGUMENT,
        code="validation_failed",
        title="Your request is not valid.",
        detail=f"{first.field}: {first.description}{more}",
        next_step="fix_request",
        param=first.field,
        violations=violations,
    )


def _http_exception_fault(status: int, detail: Any, headers: Mapping[str, str] | None, limits: Limits = DEFAULT_LIMITS) -> Fault:
    """The fault for a framework's HTTPException: its status and headers read as a
    response would be (so `Retry-After: 5` is a wait of 5 s), its detail as the detail."""
    # Read as an upstream's response is: a header errconv will not read costs only that header.
    fault = _fault_of((status, list((headers or {}).items()), b""), limits)
    if status == 409 and fault.next_step == NextStep.WAIT and fault.retry_after_seconds is None:
        # A bare 409 is a conflict with the resource's state (a version, a duplicate):
        # the identical call fails again however long the caller waits. It must re-read
        # and decide, so: give_up on this call (README, "Gateway"). A Retry-After still says wait.
        fault = fault.replace(next_step=NextStep.GIVE_UP)
    if isinstance(detail, Mapping):
        return _structured_detail(fault, detail, limits)
    if isinstance(detail, str):
        text: str | None = detail
    elif detail is None:
        text = None
    else:
        text = json.dumps(detail, default=str, ensure_ascii=False)  # FastAPI allows any JSON value here
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    # Starlette fills an absent detail with the reason phrase: the status says that already.
    if text == phrase:
        text = None
    return fault.replace(detail=text[: limits.max_string] if text else None)


def _structured_detail(fault: Fault, detail: Mapping[Any, Any], limits: Limits) -> Fault:
    """An HTTPException's object detail, kept as structure: its members become extension
    members; a text `code` is the code, a text `message` or `detail` the detail. Members
    another dialect reserves (`type`, `errors`, ...) and values that are no JSON go into
    the detail as JSON text, as the whole detail went before."""
    from ..dialects import reserved_names

    reserved = reserved_names()
    changes: dict[str, Any] = {}
    ext: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in detail.items():
        if key == "code" and isinstance(value, str) and value:
            changes["code"] = value[: limits.max_string]
        elif key in ("message", "detail") and isinstance(value, str) and "detail" not in changes:
            changes["detail"] = value[: limits.max_string] or None
        elif isinstance(key, str) and key not in reserved and _plain_json(value, 0, limits.max_depth):
            ext[key] = value
        else:
            rest[str(key)] = value
    if rest:
        text = json.dumps(rest, default=str, ensure_ascii=False)
        changes["detail"] = f"{changes['detail']} {text}" if changes.get("detail") else text
        changes["detail"] = changes["detail"][: limits.max_string]
    if ext:
        changes["extensions"] = {**fault.extensions, **ext}
    return fault.replace(**changes)


def _plain_json(value: Any, depth: int, limit: int) -> bool:
    """Whether `value` is JSON every dialect carries exactly (as Fault.build checks)."""
    if depth > limit:
        return False
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, int):
        return abs(value) <= 2**53
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if isinstance(value, (list, tuple)):
        return all(_plain_json(v, depth + 1, limit) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _plain_json(v, depth + 1, limit) for k, v in value.items())
    return False


def _kept(headers: Mapping[str, str] | None) -> list[tuple[str, str]]:
    return [(k, v) for k, v in (headers or {}).items() if k.lower() not in _OURS]


def _optional_errors() -> list[type[Exception]]:
    """The gRPC and HTTP client errors to handle, for the libraries that are installed."""
    found: list[type[Exception]] = []
    try:
        import grpc

        found.append(grpc.RpcError)
    except ImportError:
        pass
    try:
        import httpx

        found.append(httpx.HTTPStatusError)
    except ImportError:
        pass
    try:
        import requests

        found.append(requests.HTTPError)
    except ImportError:
        pass
    return found


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
