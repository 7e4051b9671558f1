"""`install(app, ...)`: errconv's exception handlers for Starlette and FastAPI."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._extras import require
from .._model.errors import FaultError
from .._model.fault import Fault
from .._model.limits import DEFAULT_LIMITS, Limits
from ..codes import NextStep
from .._pipeline.edge import INTERNAL
from .asgi import _NO_BODY, _Answer, _Answers, _http_exception_fault, _kept, _optional_errors, log, validation_fault, wire_headers

if TYPE_CHECKING:
    from errconv import Catalog
    from starlette.applications import Starlette

__all__ = ["install"]

# RFC 6455 7.4.1 close codes for a WebSocket that fails: 1008 the client's fault,
# 1013 try again later, 1011 the server's fault.
_WS_CLOSE = {NextStep.FIX_REQUEST: 1008, NextStep.WAIT: 1013}


def install(
    app: Starlette,
    *,
    json_dialect: str = "problem",
    dialect: str = "problem",
    validation_status: int = 422,
    catch_all: bool = False,
    request_id_header: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    catalog: Catalog | None = None,
    telemetry: bool = False,
) -> None:
    """Register errconv's exception handlers on a Starlette or FastAPI app.

    Handled, inside Starlette's ExceptionMiddleware (so they pass through every user
    middleware, CORS included): FaultError; HTTPException, keeping its headers
    (`Retry-After: 5` also says wait 5 in the body); FastAPI's RequestValidationError,
    as a problem body with one violation per error, `param` the first field's path and
    fix_request, at `validation_status` (422 as FastAPI, or 400); gRPC errors and
    httpx/requests status errors when those libraries are installed. With `catch_all`,
    an `Exception` handler answers 500 INTERNAL; Starlette lifts that one into
    ServerErrorMiddleware, outside all user middleware, which re-raises after it
    answered so the server logs the traceback. `catalog=`: only the catalog's codes
    (as `ProblemMiddleware`). `telemetry=True`: each answer recorded (`errconv.otel`).
    """
    require("starlette", package="Starlette", extra="starlette", what="errconv.gateway.install")
    from starlette.exceptions import HTTPException
    from starlette.requests import HTTPConnection
    from starlette.responses import Response
    from starlette.websockets import WebSocket

    answers = _Answers(dialect=dialect, json_dialect=json_dialect, request_id_header=request_id_header, limits=limits, catalog=catalog, telemetry=telemetry)

    async def answer(conn: HTTPConnection, fault: Fault, extra: list[tuple[str, str]]) -> _Answer | None:
        if isinstance(conn, WebSocket):  # no HTTP response to write: close with the code that says the move
            code = _WS_CLOSE.get(fault.next_step, 1011) if fault.next_step else 1011
            await conn.close(code=code, reason=(fault.code or "")[:120])
            return None
        return _Answer(answers.answer(fault, conn.scope), extra)

    async def on_fault(conn: HTTPConnection, exc: Exception) -> _Answer | None:
        fault = answers.fault(exc)
        if fault is INTERNAL:
            log.error("%s raised; answered 500", conn.scope.get("path"), exc_info=exc)
        return await answer(conn, fault, [])

    async def on_http_exception(conn: HTTPConnection, exc: Exception) -> Response | _Answer | None:
        assert isinstance(exc, HTTPException)
        if exc.status_code < 400 or exc.status_code in _NO_BODY:
            out = Response(status_code=exc.status_code)
            out.raw_headers = wire_headers(list((exc.headers or {}).items()), 0 if exc.status_code not in _NO_BODY else None)
            return out
        fault = _http_exception_fault(exc.status_code, exc.detail, exc.headers, limits)
        return await answer(conn, fault, _kept(exc.headers))

    async def on_validation(conn: HTTPConnection, exc: Exception) -> _Answer | None:
        errors = getattr(exc, "errors", None)
        errors = errors() if callable(errors) else []
        return await answer(conn, validation_fault(errors, status=validation_status, limits=limits), [])

    # Starlette types a handler as taking a Request or a WebSocket; these take either.
    add: Callable[[Any, Any], None] = app.add_exception_handler
    add(FaultError, on_fault)
    add(HTTPException, on_http_exception)
    for kind in _optional_errors():
        add(kind, on_fault)
    try:
        from fastapi.exceptions import RequestValidationError
    except ImportError:
        pass
    else:
        add(RequestValidationError, on_validation)
    if catch_all:
        add(Exception, on_fault)


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
