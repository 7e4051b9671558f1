"""The HTTP edge: answer every error in one consistent dialect.

- `to_http(error, dialect="problem", *, accept=None, instance=None)` and `from_http`:
  the seams (the same functions as `errconv.to_http` and `errconv.from_http`).
- `ProblemMiddleware(app, ...)`: pure ASGI middleware that answers a FaultError, a
  gRPC error, an upstream HTTP client's status error and (with `catch_all`) any other
  exception raised before the response started.
- `install(app, ...)`: exception handlers for Starlette and FastAPI (FaultError,
  HTTPException with its headers, FastAPI's RequestValidationError, gRPC and HTTP
  client errors).
- `fault_of(error)`: the Fault behind an answer, for code that raises or bridges it.
- `LitestarPlugin(...)`: the same for Litestar, as an init plugin.

No web framework is imported until a hook that needs it runs.

>>> import asyncio, httpx, errconv
>>> from errconv.gateway import ProblemMiddleware
>>> async def app(scope, receive, send):
...     raise errconv.FaultError(errconv.Fault.build(status=503, code="busy", next_step="wait", retry_after_seconds=7))
>>> async def call():
...     async with httpx.AsyncClient(transport=httpx.ASGITransport(app=ProblemMiddleware(app)), base_url="http://x") as c:
...         return await c.get("/jobs")
>>> r = asyncio.run(call())
>>> r.status_code, r.headers["retry-after"], r.json()["retry_after_seconds"], r.json()["instance"]
(503, '7', 7, '/jobs')
"""

from .._pipeline.http import from_http, to_http
from .asgi import ProblemMiddleware, fault_of, validation_fault, wire_headers
from .litestar import LitestarPlugin
from .starlette import install

__all__ = [
    "LitestarPlugin",
    "ProblemMiddleware",
    "fault_of",
    "from_http",
    "install",
    "to_http",
    "validation_fault",
    "wire_headers",
]


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
