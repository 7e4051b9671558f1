"""The gateway and gRPC servers answering from the catalog, end to end on 127.0.0.1.

- `ProblemMiddleware(app, catalog=...)` through a real uvicorn, called with httpx;
  `install(app, catalog=...)` on Starlette the same way;
- grpcio servers (sync, and grpc.aio) with errconv's server interceptor and
  `catalog=`, called through a real channel with errconv's client interceptor.

Catalogued errors go out as the catalog builds them; anything else goes out as the
catalog's internal error and is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pathlib
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import httpx
import pytest
from loopback import serve_asgi

import errconv
from errconv.aio import ServerInterceptor as AioServerInterceptor
from errconv.gateway import ProblemMiddleware, install
from errconv.interceptors import ClientInterceptor, FaultRpcError, ServerInterceptor

ROOT = pathlib.Path(__file__).resolve().parents[2]
CATALOG = errconv.Catalog.load(ROOT / "tests" / "catalog" / "errors.toml")
SECRET = "postgres://admin:hunter2@db"  # an exception's text: must reach no client


def _raise(path: str) -> None:
    if path == "/rate":
        raise CATALOG.errors.rate_limited(metadata={"quotaLimit": "RequestsPerMinute"}, detail="60 per minute")
    if path == "/funds":
        CATALOG.raise_("insufficient_funds", detail="Balance 42.10 below 150.00", metadata={"balance": "42.10"})
    if path == "/slot":
        raise CATALOG.errors.slot_unavailable(alternatives=[{"start": "14:45"}, {"start": "16:00"}], alternatives_truncated=False)
    if path == "/fix":
        raise CATALOG.errors.missing_parameter(param="amount", detail="amount is required")
    if path == "/stray":  # a handler that built its own fault, with a code the catalog lacks
        raise errconv.FaultError(errconv.Fault.build(status=418, code="teapot", next_step="give_up"))
    if path == "/drift":  # a catalogued code that disagrees with its entry
        raise errconv.FaultError(errconv.Fault.build(status=503, code="rate_limited", next_step="wait", retry_after_seconds=5))
    if path == "/bug":
        raise RuntimeError(SECRET)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    _raise(scope["path"])
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"fine"})


@pytest.fixture(scope="module")
def gateway() -> Iterator[str]:
    with serve_asgi(ProblemMiddleware(app, catalog=CATALOG, catch_all=True, json_dialect="google")) as base:
        yield base


def _http(resp: httpx.Response) -> bytes:
    head = [f"HTTP/1.1 {resp.status_code} {resp.reason_phrase}", *(f"{k}: {v}" for k, v in resp.headers.items())]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + resp.content


def test_catalogued_errors_go_out_as_the_catalog_builds_them(gateway: str) -> None:
    with httpx.Client(base_url=gateway) as client:
        rate = client.get("/rate")
        funds = client.get("/funds")
        slot = client.get("/slot")
        fix = client.get("/fix")
        ok = client.get("/ok")
    assert (ok.status_code, ok.text) == (200, "fine")
    assert (rate.status_code, rate.headers["retry-after"], rate.headers["content-type"]) == (429, "30", "application/problem+json")
    assert rate.json()["type"] == "https://api.example.com/problems/rate_limited"
    want = CATALOG.fault("rate_limited", metadata={"quotaLimit": "RequestsPerMinute"}, detail="60 per minute", instance="/rate")
    assert errconv.decode(rate.content, status=429) == want
    assert errconv.decode(funds.content, status=402) == CATALOG.fault(
        "insufficient_funds", detail="Balance 42.10 below 150.00", metadata={"balance": "42.10"}, instance="/funds"
    )
    assert slot.status_code == 409 and slot.json()["alternatives"] == [{"start": "14:45"}, {"start": "16:00"}]
    assert (fix.status_code, fix.json()["param"], fix.json()["next_step"]) == (400, "amount", "fix_request")
    for resp in (rate, funds, slot, fix):
        assert errconv.lint_body(_http(resp), catalog=CATALOG) == [], resp.url


def test_uncatalogued_errors_become_the_internal_error_and_are_logged(gateway: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="errconv"):
        with httpx.Client(base_url=gateway) as client:
            answers = {path: client.get(path) for path in ("/stray", "/drift", "/bug")}
    internal = CATALOG.internal
    for path, resp in answers.items():
        assert resp.status_code == 500, path
        body = resp.json()
        assert (body["code"], body["next_step"], body["type"]) == ("internal_error", "give_up", internal.type), path
        assert SECRET not in resp.text and "teapot" not in resp.text
        assert errconv.lint_body(_http(resp), catalog=CATALOG) == [], path
    logged = " | ".join(r.getMessage() for r in caplog.records if r.name == "errconv.catalog")
    assert "code 'teapot' is not in the catalog" in logged
    assert "rate_limited is status 429 in the catalog, the body says 503" in logged
    assert any(r.exc_info and r.exc_info[1] is not None and SECRET in str(r.exc_info[1]) for r in caplog.records), "the bug's traceback is logged"


def test_google_clients_get_the_catalogs_reason(gateway: str) -> None:
    with httpx.Client(base_url=gateway, headers={"accept": "application/json"}) as client:
        resp = client.get("/rate")
    info = resp.json()["error"]["details"][0]
    assert (resp.status_code, info["reason"], info["domain"]) == (429, "RATE_LIMITED", "api.example.com")
    assert errconv.lint_body(_http(resp), catalog=CATALOG) == []


def test_starlette_install_answers_from_the_catalog() -> None:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    async def rate(request: Any) -> Any:
        raise CATALOG.errors.rate_limited(retry_after_seconds=12)

    async def missing(request: Any) -> Any:
        raise HTTPException(404)  # not a catalog code: the catalog's internal error

    web = Starlette(routes=[Route("/rate", rate), Route("/missing", missing)])
    install(web, catalog=CATALOG)
    with serve_asgi(web) as base, httpx.Client(base_url=base) as client:
        r, m = client.get("/rate"), client.get("/missing")
    assert (r.status_code, r.headers["retry-after"], r.json()["code"]) == (429, "12", "rate_limited")
    assert (m.status_code, m.json()["code"]) == (500, "internal_error")


def test_litestar_plugin_answers_from_the_catalog() -> None:
    from litestar import Litestar, get

    from errconv.gateway import LitestarPlugin

    @get("/funds")
    async def funds() -> str:
        raise CATALOG.errors.insufficient_funds(detail="Balance 42.10 below 150.00")

    @get("/stray")
    async def stray() -> str:
        raise errconv.FaultError(errconv.Fault.build(status=404, code="no_such_page", next_step="give_up"))

    web = Litestar(route_handlers=[funds, stray], plugins=[LitestarPlugin(catalog=CATALOG)])
    with serve_asgi(web) as base, httpx.Client(base_url=base) as client:
        f, s = client.get("/funds"), client.get("/stray")
    assert (f.status_code, f.json()["code"], f.json()["unblock_with"]) == (402, "insufficient_funds", "request_deposit")
    assert (s.status_code, s.json()["code"]) == (500, "internal_error")


# --------------------------------------------------------------------------- gRPC

SERVICE = "example.Bookings"


def _handler(request: bytes, context: grpc.ServicerContext) -> bytes:
    _raise(request.decode())
    return b"fine"


@contextlib.contextmanager
def _server(interceptor: Any) -> Iterator[grpc.Channel]:
    with futures.ThreadPoolExecutor(max_workers=4) as pool:
        server = grpc.server(pool, interceptors=[interceptor])
        handlers = {"Book": grpc.unary_unary_rpc_method_handler(_handler)}
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                yield grpc.intercept_channel(channel, ClientInterceptor())
        finally:
            server.stop(grace=None).wait(5)


def _call(channel: grpc.Channel, path: str) -> Any:
    method = channel.unary_unary(f"/{SERVICE}/Book")
    try:
        return method(path.encode(), timeout=10)
    except FaultRpcError as exc:
        return exc


def test_a_grpc_server_answers_from_the_catalog(caplog: pytest.LogCaptureFixture) -> None:
    with _server(ServerInterceptor(catalog=CATALOG)) as channel, caplog.at_level(logging.ERROR, logger="errconv"):
        assert _call(channel, "/ok") == b"fine"
        rate = _call(channel, "/rate")
        slot = _call(channel, "/slot")
        stray = _call(channel, "/stray")
        bug = _call(channel, "/bug")
    assert rate.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert dict(rate.trailing_metadata())["grpc-retry-pushback-ms"] == "30000"
    assert rate.fault == CATALOG.fault("rate_limited", metadata={"quotaLimit": "RequestsPerMinute"}, detail="60 per minute")
    assert slot.code() == grpc.StatusCode.ALREADY_EXISTS and slot.fault.alternatives == ({"start": "14:45"}, {"start": "16:00"})
    for exc in (stray, bug):
        assert exc.code() == grpc.StatusCode.INTERNAL
        assert (exc.fault.code, exc.fault.next_step, exc.fault.type) == ("internal_error", "give_up", CATALOG.internal.type)
        assert SECRET not in (exc.details() or "")
    for exc in (rate, slot, stray, bug):
        assert CATALOG.disagreements(exc.fault) == []
    assert any("teapot" in r.getMessage() for r in caplog.records if r.name == "errconv.catalog")
    assert any(r.name == "errconv.interceptors" and r.exc_info for r in caplog.records)


def test_a_grpc_aio_server_answers_from_the_catalog() -> None:
    async def handler(request: bytes, context: Any) -> bytes:
        _raise(request.decode())
        return b"fine"

    async def main() -> tuple[Any, Any]:
        server = grpc.aio.server(interceptors=[AioServerInterceptor(catalog=CATALOG)])
        handlers = {"Book": grpc.unary_unary_rpc_method_handler(handler)}
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                method = channel.unary_unary(f"/{SERVICE}/Book")
                out = []
                for path in ("/funds", "/stray"):
                    try:
                        await method(path.encode(), timeout=10)
                    except grpc.aio.AioRpcError as exc:
                        out.append(errconv.from_grpc(exc.code().value[0], exc.details(), exc.trailing_metadata()))
                return out[0], out[1]
        finally:
            await server.stop(None)

    funds, stray = asyncio.run(main())
    assert funds == CATALOG.fault("insufficient_funds", detail="Balance 42.10 below 150.00", metadata={"balance": "42.10"})
    assert (stray.code, stray.grpc_code_name) == ("internal_error", "INTERNAL")
