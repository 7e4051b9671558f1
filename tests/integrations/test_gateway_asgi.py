"""ProblemMiddleware as a pure ASGI middleware, through uvicorn and real clients.

What it must never do is as important as what it does: rewrite a response that has
started, touch a lifespan or WebSocket scope, buffer a stream, send exception text, or
let a field reach a header it could split.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets.sync.client

import errconv
from errconv.gateway import ProblemMiddleware, wire_headers
from loopback import raw_get, serve_asgi

WAIT = errconv.Fault.build(status=503, code="draining", next_step="wait", retry_after_seconds=12, detail="Draining")
SECRET = "token=sk_live_do_not_print"


async def _start(send: Any, status: int = 200, content_type: bytes = b"text/plain") -> None:
    await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", content_type)]})


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The app behind the middleware: one route per behaviour under test."""
    if scope["type"] == "lifespan":
        message = await receive()
        scope["state"]["booted"] = message["type"] == "lifespan.startup"
        await send({"type": "lifespan.startup.complete"})
        await receive()
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        message = await receive()
        if message.get("text") == "fail":
            raise errconv.FaultError(WAIT)  # must not become an HTTP response on a WebSocket
        await send({"type": "websocket.send", "text": "echo " + message.get("text", "")})
        await send({"type": "websocket.close", "code": 1000})
        return
    path = scope["path"]
    if path == "/ok":
        assert scope["state"]["booted"]  # the lifespan reached the app through the middleware
        await _start(send)
        await send({"type": "http.response.body", "body": b"fine"})
    elif path == "/wait":
        raise errconv.FaultError(WAIT)
    elif path == "/group":
        raise ExceptionGroup("from a task group", [errconv.FaultError(WAIT)])
    elif path == "/bug":
        raise RuntimeError(SECRET)
    elif path == "/stream":
        await _start(send)
        await send({"type": "http.response.body", "body": b"first chunk\n", "more_body": True})
        await asyncio.sleep(0.05)  # the chunk is on the wire before the failure
        raise errconv.FaultError(WAIT)
    elif path == "/stream-slowly":
        await _start(send)
        for i in range(3):
            await send({"type": "http.response.body", "body": f"chunk {i}\n".encode(), "more_body": True})
            await asyncio.sleep(0.2)
        await send({"type": "http.response.body", "body": b""})
    elif path == "/hostile":
        raise errconv.FaultError(
            errconv.Fault.build(status=400, code="bad_input", next_step="fix_request", param="name\r\nSet-Cookie: a=b",
                                title="T" * 100_000, detail="oops\r\nSet-Cookie: session=stolen\x00")  # fmt: skip
        )
    else:
        raise errconv.FaultError(errconv.Fault.build(status=404, code="no_route", next_step="give_up"))


@pytest.fixture(scope="module")
def plain() -> Iterator[str]:
    with serve_asgi(ProblemMiddleware(app), lifespan="on") as url:
        yield url


@pytest.fixture(scope="module")
def catching() -> Iterator[str]:
    with serve_asgi(ProblemMiddleware(app, catch_all=True), lifespan="on") as url:
        yield url


def test_a_fault_answers_with_status_type_retry_after_and_instance(plain: str) -> None:
    resp = httpx.get(f"{plain}/wait", timeout=10)
    assert resp.status_code == 503
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.headers["retry-after"] == "12"
    body = resp.json()
    assert (body["next_step"], body["retry_after_seconds"], body["instance"]) == ("wait", 12, "/wait")
    assert errconv.from_http(resp) == WAIT.replace(instance="/wait")


def test_a_success_and_the_lifespan_pass_through(plain: str) -> None:
    resp = httpx.get(f"{plain}/ok", timeout=10)
    assert (resp.status_code, resp.text, resp.headers["content-type"]) == (200, "fine", "text/plain")


def test_a_fault_inside_an_exception_group_is_answered(plain: str) -> None:
    resp = httpx.get(f"{plain}/group", timeout=10)
    assert (resp.status_code, resp.headers["retry-after"]) == (503, "12")


def test_head_answers_the_headers_without_the_body(plain: str) -> None:
    raw = raw_get(plain, "/wait").split(b"\r\n\r\n", 1)
    head_only = httpx.head(f"{plain}/wait", timeout=10)
    assert head_only.status_code == 503 and head_only.content == b""
    assert head_only.headers["content-length"] == str(len(raw[1]))


def test_other_exceptions_are_not_caught_unless_asked(plain: str) -> None:
    resp = httpx.get(f"{plain}/bug", timeout=10)
    assert resp.status_code == 500
    assert resp.headers["content-type"].startswith("text/plain")  # uvicorn's own answer: the middleware stayed out
    assert SECRET not in resp.text


def test_catch_all_answers_500_give_up_logs_the_traceback_and_sends_no_text(
    catching: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="errconv.gateway"):
        resp = httpx.get(f"{catching}/bug", timeout=10)
    assert resp.status_code == 500
    assert resp.headers["content-type"] == "application/problem+json"
    body = resp.json()
    assert body["next_step"] == "give_up" and body["status"] == 500
    assert SECRET not in resp.text and "RuntimeError" not in resp.text
    logged = [r for r in caplog.records if r.name == "errconv.gateway"]
    assert logged and logged[-1].exc_info is not None and SECRET in str(logged[-1].exc_info[1])


@pytest.mark.parametrize("server", ["plain", "catching"])
def test_a_stream_that_fails_after_its_first_chunk_is_not_rewritten(
    server: str, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    base = request.getfixturevalue(server)
    with caplog.at_level(logging.ERROR, logger="errconv.gateway"):
        raw = raw_get(base, "/stream")
        with httpx.stream("GET", f"{base}/stream", timeout=10) as resp:
            assert resp.status_code == 200
            received = b""
            with pytest.raises(httpx.RemoteProtocolError):  # the client sees a broken stream
                for chunk in resp.iter_raw():
                    received += chunk
    assert received == b"first chunk\n"
    # On the wire: one status line, the first chunk, and no last chunk that would end it cleanly.
    assert raw.count(b"HTTP/1.1 ") == 1 and raw.startswith(b"HTTP/1.1 200 ")
    assert b"first chunk" in raw and not raw.endswith(b"0\r\n\r\n")
    assert b"problem+json" not in raw and b"draining" not in raw
    assert any("after its response started" in r.getMessage() for r in caplog.records)


def test_a_stream_is_not_buffered(plain: str) -> None:
    # The first chunk arrives while the app is still sleeping before the next one.
    with httpx.stream("GET", f"{plain}/stream-slowly", timeout=10) as resp:
        chunks = resp.iter_raw()
        start = time.monotonic()
        first = next(chunks)
        elapsed = time.monotonic() - start
        rest = b"".join(chunks)
    assert first == b"chunk 0\n" and elapsed < 0.3
    assert rest == b"chunk 1\nchunk 2\n"


def test_hostile_fields_give_a_well_formed_response_and_no_header(plain: str) -> None:
    raw = raw_get(plain, "/hostile")
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0].startswith(b"HTTP/1.1 400 ")
    assert [line for line in raw.split(b"\r\n") if line.lower().startswith(b"set-cookie")] == []
    assert all(b":" in line and b"\n" not in line and b"\x00" not in line for line in lines[1:])
    length = int(next(line for line in lines if line.lower().startswith(b"content-length")).split(b":")[1])
    assert length == len(body)  # the 100 KB title is all there, and nothing after it
    problem = json.loads(body)
    assert len(problem["title"]) == 100_000
    assert problem["detail"] == "oops\r\nSet-Cookie: session=stolen\x00"
    assert problem["param"] == "name\r\nSet-Cookie: a=b"


def test_websockets_pass_through_untouched(catching: str) -> None:
    url = catching.replace("http://", "ws://")
    with websockets.sync.client.connect(f"{url}/ws", open_timeout=10) as ws:
        ws.send("hi")
        assert ws.recv(timeout=10) == "echo hi"
    # A failure on a WebSocket is the server's to end (uvicorn drops the connection, or
    # closes with 1011), not an HTTP answer of ours.
    with websockets.sync.client.connect(f"{url}/ws", open_timeout=10) as ws:
        ws.send("fail")
        with pytest.raises(websockets.exceptions.ConnectionClosedError) as info:
            ws.recv(timeout=10)
    assert info.value.rcvd is None or info.value.rcvd.code == 1011


def test_non_http_scopes_get_the_very_same_receive_and_send() -> None:
    seen: list[Any] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.append((scope, receive, send))

    async def receive() -> dict[str, Any]:
        return {}

    async def send(message: Any) -> None:
        pass

    middleware = ProblemMiddleware(inner, catch_all=True)
    for kind in ("lifespan", "websocket"):
        scope = {"type": kind}
        asyncio.run(middleware(scope, receive, send))
        assert seen[-1][0] is scope and seen[-1][1] is receive and seen[-1][2] is send


def test_wire_headers_refuses_what_could_split_a_response(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="errconv.gateway"):
        out = wire_headers(
            [
                ("Retry-After", "5"),
                ("X-Bad", "a\r\nSet-Cookie: x=1"),
                ("X-Nul", "a\x00b"),
                ("Bad Name", "1"),
                ("X\r\nInjected", "1"),
                ("Content-Length", "999"),  # never copied: written from the body
                ("X-Unicode", "naïve ✓"),
            ],
            body_length=3,
        )
    assert out == [(b"content-length", b"3"), (b"retry-after", b"5")]
    assert len([r for r in caplog.records if "refused" in r.getMessage()]) == 5  # ✓ is no latin-1 byte either
