"""The framework hooks: Starlette and FastAPI (`install`), Litestar (`LitestarPlugin`).

FastAPI and Litestar are served by uvicorn and called with httpx over loopback; the
placement questions (where each hook sits relative to Starlette's ServerErrorMiddleware,
and so whether CORS headers reach a 500) are answered with Starlette's own stack driven
in process by httpx's ASGI transport.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import pytest
from fastapi import FastAPI, HTTPException, Query
from litestar import Litestar, get, post
from litestar.enums import RequestEncodingType
from litestar.exceptions import HTTPException as LitestarHTTPException
from litestar.params import Body
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Route

import errconv
from errconv.gateway import LitestarPlugin, ProblemMiddleware, install
from loopback import serve_asgi

SECRET = "password=hunter2"
BUSY = errconv.Fault.build(status=503, code="busy", next_step="wait", retry_after_seconds=8, detail="Busy")

# --------------------------------------------------------------------------- FastAPI


class Item(BaseModel):
    sku: str
    quantity: int = Field(gt=0)


class Address(BaseModel):
    street: str
    zip: str = Field(pattern=r"^[0-9]{5}$")


class Order(BaseModel):
    email: str
    items: list[Item]
    address: Address


def fastapi_app(**options: Any) -> FastAPI:
    app = FastAPI()
    install(app, **options)

    @app.post("/orders")
    def create(order: Order) -> dict[str, bool]:
        return {"ok": True}

    @app.get("/items")
    def items(limit: int = Query(le=100)) -> list[int]:
        return list(range(limit))

    @app.get("/slow")
    def slow() -> None:
        raise HTTPException(429, detail="Slow down", headers={"Retry-After": "5"})

    @app.get("/private")
    def private() -> None:
        raise HTTPException(401, headers={"WWW-Authenticate": 'Bearer realm="api"', "X-Bad": "a\r\nSet-Cookie: x=1"})

    @app.get("/busy")
    async def busy() -> None:
        raise errconv.FaultError(BUSY)

    return app


@pytest.fixture(scope="module")
def fastapi_base() -> Iterator[str]:
    with serve_asgi(fastapi_app()) as url:
        yield url


BAD_ORDER = {"email": "a@example.com", "items": [{"sku": "x", "quantity": 0}], "address": {"street": "Main", "zip": "abc"}}


def test_fastapi_validation_answers_a_problem_naming_the_field(fastapi_base: str) -> None:
    resp = httpx.post(f"{fastapi_base}/orders", json=BAD_ORDER, timeout=10)
    assert resp.status_code == 422  # FastAPI's status, kept by default
    assert resp.headers["content-type"] == "application/problem+json"
    body = resp.json()
    assert (body["next_step"], body["param"], body["code"]) == ("fix_request", "items[0].quantity", "validation_failed")
    fault = errconv.from_http(resp)
    assert [v.field for v in fault.violations] == ["items[0].quantity", "address.zip"]  # one violation per error
    assert [v.reason for v in fault.violations] == ["GREATER_THAN", "STRING_PATTERN_MISMATCH"]
    assert fault.violations[0].description == "Input should be greater than 0"
    assert "retry-after" not in resp.headers


def test_fastapi_a_missing_field_and_a_query_parameter(fastapi_base: str) -> None:
    missing = httpx.post(f"{fastapi_base}/orders", json={k: v for k, v in BAD_ORDER.items() if k != "email"}, timeout=10)
    assert missing.json()["param"] == "email"
    assert errconv.from_http(missing).violations[0].reason == "MISSING"
    query = httpx.get(f"{fastapi_base}/items", params={"limit": "lots"}, timeout=10)
    assert (query.status_code, query.json()["param"]) == (422, "limit")
    assert httpx.get(f"{fastapi_base}/items", params={"limit": "3"}, timeout=10).json() == [0, 1, 2]


def test_fastapi_http_exception_keeps_its_retry_after_and_says_wait_in_the_body(fastapi_base: str) -> None:
    resp = httpx.get(f"{fastapi_base}/slow", timeout=10)
    assert resp.status_code == 429
    assert resp.headers["retry-after"] == "5"
    assert resp.headers["content-type"] == "application/problem+json"
    body = resp.json()
    assert (body["next_step"], body["retry_after_seconds"], body["detail"]) == ("wait", 5, "Slow down")


def test_fastapi_http_exception_keeps_its_other_headers_but_never_an_unsafe_one(fastapi_base: str) -> None:
    resp = httpx.get(f"{fastapi_base}/private", timeout=10)
    assert resp.status_code == 401
    assert resp.headers["www-authenticate"] == 'Bearer realm="api"'
    assert "x-bad" not in resp.headers and "set-cookie" not in resp.headers
    assert resp.json()["next_step"] == "give_up"
    assert "detail" not in resp.json()  # Starlette's default detail is the reason phrase: the status says it


def test_fastapi_routing_errors_are_problems_too(fastapi_base: str) -> None:
    missing = httpx.get(f"{fastapi_base}/nowhere", timeout=10)
    assert (missing.status_code, missing.headers["content-type"]) == (404, "application/problem+json")
    wrong = httpx.delete(f"{fastapi_base}/orders", timeout=10)
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"


def test_fastapi_fault_error_and_negotiation(fastapi_base: str) -> None:
    resp = httpx.get(f"{fastapi_base}/busy", headers={"Accept": "application/json"}, timeout=10)
    assert resp.status_code == 503 and resp.headers["retry-after"] == "8"
    assert resp.headers["content-type"] == "application/json"  # json_dialect="problem", labelled as asked
    assert resp.json()["retry_after_seconds"] == 8


def test_an_http_exception_header_errconv_will_not_read_costs_only_that_header() -> None:
    app = FastAPI()
    install(app)

    @app.get("/odd")
    def odd() -> None:
        raise HTTPException(503, detail="Down", headers={"X-Trace": "t" * 10_000})  # past Limits.max_header

    resp = _call(app, "GET", "/odd")
    assert (resp.status_code, resp.headers["content-type"], resp.json()["next_step"]) == (503, "application/problem+json", "wait")
    assert resp.headers["x-trace"] == "t" * 10_000  # kept: a long header is no unsafe one


def test_fastapi_validation_status_can_be_400() -> None:
    resp = _call(fastapi_app(validation_status=400), "POST", "/orders", json=BAD_ORDER)
    assert (resp.status_code, resp.json()["param"]) == (400, "items[0].quantity")


def _call(app: Any, method: str, path: str, **kwargs: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        # raise_app_exceptions=False: ServerErrorMiddleware re-raises after answering, by design.
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.request(method, path, **kwargs)

    import asyncio

    return asyncio.run(go())


# --------------------------------------------------------------------------- where each hook sits


async def crash(request: Any) -> None:
    raise RuntimeError(SECRET)


async def busy(request: Any) -> None:
    raise errconv.FaultError(BUSY)


ORIGIN = {"Origin": "https://app.example"}


def starlette_app() -> Starlette:
    return Starlette(routes=[Route("/crash", crash), Route("/busy", busy)])


def test_add_middleware_sits_inside_server_error_middleware_so_cors_reaches_the_500() -> None:
    app = starlette_app()
    app.add_middleware(ProblemMiddleware, catch_all=True)
    app.add_middleware(CORSMiddleware, allow_origins=["*"])  # added last: outermost of the user middleware
    resp = _call(app, "GET", "/crash", headers=ORIGIN)
    assert (resp.status_code, resp.headers["content-type"]) == (500, "application/problem+json")
    assert resp.headers["access-control-allow-origin"] == "*"
    assert SECRET not in resp.text
    assert _call(app, "GET", "/busy", headers=ORIGIN).headers["access-control-allow-origin"] == "*"


def test_install_catch_all_is_lifted_into_server_error_middleware_outside_cors() -> None:
    app = starlette_app()
    install(app, catch_all=True)
    app.add_middleware(CORSMiddleware, allow_origins=["*"])
    crashed = _call(app, "GET", "/crash", headers=ORIGIN)
    assert (crashed.status_code, crashed.headers["content-type"]) == (500, "application/problem+json")
    assert "access-control-allow-origin" not in crashed.headers  # Starlette runs an Exception handler outside all user middleware
    assert SECRET not in crashed.text
    # A FaultError's handler runs in ExceptionMiddleware, inside the user middleware: CORS applies.
    handled = _call(app, "GET", "/busy", headers=ORIGIN)
    assert (handled.status_code, handled.headers["access-control-allow-origin"]) == (503, "*")


def test_wrapping_the_app_object_sees_only_what_server_error_middleware_already_answered() -> None:
    wrapped = ProblemMiddleware(starlette_app(), catch_all=True)
    resp = _call(wrapped, "GET", "/crash")
    assert resp.status_code == 500
    assert resp.headers["content-type"].startswith("text/plain")  # Starlette's 500 went first; not rewritten
    # Even a FaultError: ServerErrorMiddleware answered it before re-raising. For a Starlette
    # app, add_middleware (or install) is the way; wrapping is for bare ASGI apps.
    busy = _call(wrapped, "GET", "/busy")
    assert (busy.status_code, busy.headers["content-type"]) == (500, "text/plain; charset=utf-8")


# --------------------------------------------------------------------------- Litestar


@dataclasses.dataclass
class LitestarOrder:
    email: str
    quantity: int


@post("/orders")
async def litestar_create(data: Annotated[LitestarOrder, Body(media_type=RequestEncodingType.JSON)]) -> dict[str, bool]:
    return {"ok": True}


@get("/busy")
async def litestar_busy() -> None:
    raise errconv.FaultError(BUSY)


@get("/slow")
async def litestar_slow() -> None:
    raise LitestarHTTPException(status_code=429, detail="Slow down", headers={"Retry-After": "5"})


@get("/crash")
async def litestar_crash() -> None:
    raise RuntimeError(SECRET)


@pytest.fixture(scope="module")
def litestar_base() -> Iterator[str]:
    app = Litestar(
        route_handlers=[litestar_create, litestar_busy, litestar_slow, litestar_crash],
        plugins=[LitestarPlugin(json_dialect="google", catch_all=True)],
        logging_config=None,
    )
    with serve_asgi(app) as url:
        yield url


def test_litestar_fault_error_answers_problem_details(litestar_base: str) -> None:
    resp = httpx.get(f"{litestar_base}/busy", timeout=10)
    assert (resp.status_code, resp.headers["content-type"], resp.headers["retry-after"]) == (503, "application/problem+json", "8")
    assert errconv.from_http(resp) == BUSY.replace(instance="/busy")


def test_litestar_json_dialect_answers_the_google_envelope(litestar_base: str) -> None:
    resp = httpx.get(f"{litestar_base}/busy", headers={"Accept": "application/json"}, timeout=10)
    assert resp.headers["content-type"] == "application/json; charset=UTF-8"
    assert resp.json()["error"]["status"] == "UNAVAILABLE"
    assert errconv.from_http(resp) == BUSY.replace(instance="/busy")


def test_litestar_http_exception_keeps_retry_after(litestar_base: str) -> None:
    resp = httpx.get(f"{litestar_base}/slow", timeout=10)
    assert (resp.status_code, resp.headers["retry-after"]) == (429, "5")
    body = resp.json()
    assert (body["next_step"], body["retry_after_seconds"], body["detail"]) == ("wait", 5, "Slow down")


def test_litestar_validation_names_the_field(litestar_base: str) -> None:
    resp = httpx.post(f"{litestar_base}/orders", json={"email": "a@example.com", "quantity": "many"}, timeout=10)
    assert resp.status_code == 400  # Litestar's own status for a bad request
    body = resp.json()
    assert (body["next_step"], body["param"], body["code"]) == ("fix_request", "quantity", "validation_failed")


def test_litestar_catch_all_sends_no_exception_text(litestar_base: str) -> None:
    resp = httpx.get(f"{litestar_base}/crash", timeout=10)
    assert (resp.status_code, resp.json()["next_step"]) == (500, "give_up")
    assert SECRET not in resp.text


def test_litestar_routing_errors_are_problems(litestar_base: str) -> None:
    resp = httpx.get(f"{litestar_base}/nowhere", timeout=10)
    assert (resp.status_code, resp.headers["content-type"]) == (404, "application/problem+json")
