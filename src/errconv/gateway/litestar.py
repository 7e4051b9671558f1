"""`LitestarPlugin(...)`: errconv's exception handlers for Litestar, as an init plugin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._extras import require
from .._model.errors import FaultError
from .._model.fault import Fault
from .._model.limits import DEFAULT_LIMITS, Limits
from .._pipeline.edge import INTERNAL
from .asgi import _Answers, _http_exception_fault, _kept, _optional_errors, log, validation_fault, wire_headers

if TYPE_CHECKING:
    from errconv import Catalog
    from litestar.config.app import AppConfig

__all__ = ["LitestarPlugin"]


class LitestarPlugin:
    """errconv's exception handlers for Litestar: `Litestar(..., plugins=[LitestarPlugin()])`.

    A Litestar init plugin (it has `on_app_init`, which is all Litestar's
    `InitPluginProtocol` asks). It registers, in the app's exception handlers, which
    Litestar's ExceptionHandlerMiddleware runs around every route and the middleware
    of that route: FaultError; HTTPException, keeping its headers; ValidationException
    (Litestar's 400 for a bad request), one violation per error in its `extra`, `param`
    the first one's key; gRPC errors and httpx/requests status errors when installed;
    with `catch_all`, every other exception as 500 INTERNAL. Litestar has no
    ServerErrorMiddleware: these handlers are the last word. `catalog=`: only the
    catalog's codes (as `ProblemMiddleware`). `telemetry=True`: each answer recorded
    (`errconv.otel`).
    """

    def __init__(
        self,
        *,
        json_dialect: str = "problem",
        dialect: str = "problem",
        catch_all: bool = False,
        request_id_header: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
        catalog: Catalog | None = None,
        telemetry: bool = False,
    ) -> None:
        # Checked when the plugin is made, not when Litestar first calls it.
        require("litestar", package="Litestar", extra="litestar", what="errconv.gateway.LitestarPlugin")
        self.catch_all = catch_all
        self.limits = limits
        self._answers = _Answers(dialect=dialect, json_dialect=json_dialect, request_id_header=request_id_header, limits=limits, catalog=catalog, telemetry=telemetry)

    def on_app_init(self, app_config: AppConfig) -> AppConfig:
        """Add the handlers to the app's configuration (Litestar calls this once)."""
        from litestar import Request, Response
        from litestar.exceptions import HTTPException, ValidationException

        answers, limits = self._answers, self.limits

        def respond(request: Request[Any, Any, Any], fault: Fault, extra: list[tuple[str, str]]) -> Response[bytes]:
            scope: Any = request.scope  # a TypedDict of Litestar's; an ASGI scope all the same
            response = answers.answer(fault, scope)
            headers = {k: v for k, v in ((k.decode(), v.decode("latin-1")) for k, v in wire_headers([*response.headers, *extra], None))}
            media_type = headers.pop("content-type", "application/problem+json")
            return Response(content=response.body, status_code=response.status, headers=headers, media_type=media_type)

        def on_fault(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
            fault = answers.fault(exc)
            if fault is INTERNAL:
                log.error("%s raised; answered 500", request.scope.get("path"), exc_info=exc)
            return respond(request, fault, [])

        def on_http_exception(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
            assert isinstance(exc, HTTPException)
            headers = dict(exc.headers or {})
            if isinstance(exc, ValidationException) and isinstance(exc.extra, list) and exc.extra:
                errors = [
                    {"loc": (e.get("key") or "body",), "msg": e.get("message"), "type": None}
                    for e in exc.extra
                    if isinstance(e, Mapping)
                ]
                return respond(request, validation_fault(errors, status=exc.status_code, limits=limits), _kept(headers))
            fault = _http_exception_fault(exc.status_code, exc.detail, headers, limits)
            return respond(request, fault, _kept(headers))

        handlers: dict[Any, Any] = {FaultError: on_fault, HTTPException: on_http_exception, ValidationException: on_http_exception}
        for kind in _optional_errors():
            handlers[kind] = on_fault
        if self.catch_all:
            handlers[Exception] = on_fault
        app_config.exception_handlers = {**handlers, **app_config.exception_handlers}  # the app's own handlers win
        return app_config


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
