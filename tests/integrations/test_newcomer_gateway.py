"""The gateway's framework hooks and a framework's HTTPException (issue 23, item 9), on real apps in process."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, HTTPException
from litestar import Litestar, get
from litestar.exceptions import HTTPException as LitestarHTTPException
from pydantic import BaseModel

import errconv
from errconv.gateway import LitestarPlugin, install


class Item(BaseModel):
    name: str


def _fastapi() -> FastAPI:
    app = FastAPI()

    @app.post("/items")
    def create(item: Item) -> dict[str, Any]:
        return {}

    @app.get("/structured")
    def structured() -> None:
        raise HTTPException(409, detail={"reason": "version mismatch", "id": 7, "code": "stale_version"})

    @app.get("/reserved")
    def reserved() -> None:
        raise HTTPException(400, detail={"message": "bad", "errors": ["x"], "param": "q"})

    @app.get("/conflict")
    def conflict() -> None:
        raise HTTPException(409)

    @app.get("/conflict-later")
    def conflict_later() -> None:
        raise HTTPException(409, headers={"Retry-After": "3"})

    install(app)
    return app


def _get(app: Any, method: str, path: str, **kwargs: Any) -> httpx.Response:
    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://api") as c:
            return await c.request(method, path, **kwargs)

    return asyncio.run(call())


def test_a_structured_detail_stays_structure() -> None:
    r = _get(_fastapi(), "GET", "/structured")
    body = r.json()
    assert r.status_code == 409
    assert body["reason"] == "version mismatch" and body["id"] == 7  # members, not a string of JSON
    assert body["code"] == "stale_version"
    assert "detail" not in body
    fault = errconv.decode(r.content)
    assert fault.extensions == {"reason": "version mismatch", "id": 7}


def test_reserved_members_of_a_detail_are_not_dropped() -> None:
    r = _get(_fastapi(), "GET", "/reserved")
    body = r.json()
    assert body["detail"].startswith("bad ") and '"errors": ["x"]' in body["detail"] and '"param": "q"' in body["detail"]


def test_a_bare_409_is_a_conflict_to_resolve_not_a_wait() -> None:
    r = _get(_fastapi(), "GET", "/conflict")
    assert r.status_code == 409
    assert r.json()["next_step"] == "give_up"
    assert "retry-after" not in r.headers
    later = _get(_fastapi(), "GET", "/conflict-later")
    assert (later.json()["next_step"], later.json()["retry_after_seconds"]) == ("wait", 3)


def test_a_malformed_json_body_names_the_body_not_a_character_offset() -> None:
    r = _get(_fastapi(), "POST", "/items", content=b'{"name": ', headers={"content-type": "application/json"})
    body = r.json()
    assert r.status_code == 422
    assert body["param"] == "body"
    assert "[" not in body["param"]
    assert "not valid JSON" in body["errors"][0]["detail"]


def test_litestar_reads_a_bare_409_as_a_conflict_too() -> None:
    @get("/conflict")
    async def conflict() -> None:
        raise LitestarHTTPException(status_code=409)

    app = Litestar(route_handlers=[conflict], plugins=[LitestarPlugin()])
    r = _get(app, "GET", "/conflict")
    assert (r.status_code, r.json()["next_step"]) == (409, "give_up")


def test_the_readme_gateway_section_documents_the_409_choice() -> None:
    gateway = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "gateway.md").read_text()
    assert "A bare 409" in gateway and "give_up" in gateway
    assert "stays structure" in gateway
