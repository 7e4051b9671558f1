"""errconv.aio over a real grpc.aio server and real aio channels on 127.0.0.1.

Every aio handler style raises through `ServerInterceptor`: coroutines, async
generators, the read/write style, and sync functions and generators run on the
server's thread pool. The client side is grpc.aio's channel with the four
interceptors of `client_interceptors()`. One event loop, on a thread of its own,
hosts the server and every client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from typing import Any, TypeVar

import grpc
import grpc.aio
import pytest
from grpc_status import rpc_status

import errconv
import errconv.aio
from errconv.aio import FaultAioRpcError, RefusedAioRpcError, ServerInterceptor, client_interceptors
from errconv.retry import GuardRefused, RetryPolicy, SystemClock, TerminalGuard, VirtualClock
from grpc_scenarios import (
    BIG,
    CASES,
    COUNTS,
    FAULTS,
    HANDLER_TRAILER,
    SECRET,
    SERVICE,
    check_client_fault,
    check_rich_status,
    counted,
    expected_pushback,
    message_of,
    no_secret_in,
    pushback_of,
    scripted,
    sent_fault,
)
from test_interceptors import act as sync_act

T = TypeVar("T")
CODES = {c.value[0]: c for c in grpc.StatusCode}


async def aact(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    """The scenario a request names, as an async handler plays it."""
    name = request.decode()
    if name in FAULTS:
        context.set_trailing_metadata((HANDLER_TRAILER,))
        raise errconv.FaultError(FAULTS[name])
    if name == "secret":
        raise KeyError(SECRET)
    if name == "big":
        raise errconv.FaultError(BIG)
    if name == "abort":
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "nope")
    if name == "abort-then-raise":
        try:
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "nope")
        except grpc.aio.AbortError:
            pass  # swallowed: aio sent the status at once, and it stands
        raise KeyError(SECRET)
    if name == "own-status":
        await context.abort(grpc.StatusCode.NOT_FOUND, "by hand", (("x-own", "1"), ("grpc-status-details-bin", b"\xff\xfe")))
    if counted(request):
        fault = scripted(request)
        if fault is not None:
            raise errconv.FaultError(fault)
        return b"ok:" + request
    if name == "ok":
        return b"ok"
    raise AssertionError(f"no scenario {name!r}")


async def unary_unary(request: bytes, context: Any) -> bytes:
    return await aact(request, context)


async def unary_stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
    if request == b"midstream":
        yield b"one"
        yield b"two"
        raise KeyError(SECRET)
    if request.startswith(b"midwait:"):
        COUNTS.hit(request)
        yield b"one"
        raise errconv.FaultError(errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=2))
    yield await aact(request, context)


async def rw_unary_stream(request: bytes, context: Any) -> None:
    # The read/write style: writes, returns None.
    if request == b"midstream":
        await context.write(b"one")
        await context.write(b"two")
        raise KeyError(SECRET)
    await context.write(await aact(request, context))


async def stream_unary(requests: Any, context: Any) -> bytes:
    received = [r async for r in requests]
    return await aact(received[0], context)


async def stream_stream(requests: Any, context: Any) -> AsyncIterator[bytes]:
    received = [r async for r in requests]
    if received[0] == b"midstream":
        yield b"one"
        yield b"two"
        raise KeyError(SECRET)
    yield await aact(received[0], context)


async def rw_stream_stream(requests: Any, context: Any) -> None:
    first = await context.read()
    while await context.read() is not grpc.aio.EOF:
        pass
    await context.write(await aact(first, context))


def sync_unary_unary(request: bytes, context: Any) -> bytes:
    # A sync handler on an aio server runs on its thread pool, with a context of its own.
    return sync_act(request, context)


def sync_unary_stream(request: bytes, context: Any) -> Iterator[bytes]:
    yield sync_act(request, context)


HANDLERS = {
    "unary_unary": grpc.unary_unary_rpc_method_handler(unary_unary),
    "unary_stream": grpc.unary_stream_rpc_method_handler(unary_stream),
    "rw_unary_stream": grpc.unary_stream_rpc_method_handler(rw_unary_stream),
    "stream_unary": grpc.stream_unary_rpc_method_handler(stream_unary),
    "stream_stream": grpc.stream_stream_rpc_method_handler(stream_stream),
    "rw_stream_stream": grpc.stream_stream_rpc_method_handler(rw_stream_stream),
    "sync_unary_unary": grpc.unary_unary_rpc_method_handler(sync_unary_unary),
    "sync_unary_stream": grpc.unary_stream_rpc_method_handler(sync_unary_stream),
}
# What kind of call each method is, on the client.
CALL_KIND = {name: name.removeprefix("rw_").removeprefix("sync_") for name in HANDLERS}
ASYNC_METHODS = [m for m in HANDLERS if not m.startswith("sync_")]


class Loop:
    """An event loop on a thread of its own: the tests, sync, run coroutines on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="aio-tests", daemon=True)
        self.thread.start()

    def run(self, coroutine: Awaitable[T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)  # type: ignore[arg-type]

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.fixture(scope="module")
def loop() -> Iterator[Loop]:
    loop = Loop()
    yield loop
    loop.close()


async def start(interceptors: list[Any], handlers: dict[str, Any] = HANDLERS) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(interceptors=interceptors)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


@contextlib.contextmanager
def serving(loop: Loop, interceptors: list[Any]) -> Iterator[int]:
    server, port = loop.run(start(interceptors))
    try:
        yield port
    finally:
        loop.run(server.stop(None))


@pytest.fixture(scope="module")
def port(loop: Loop) -> Iterator[int]:
    with serving(loop, [ServerInterceptor()]) as port:
        yield port


def channel(port: int, **config: Any) -> grpc.aio.Channel:
    """An aio channel with errconv's four client interceptors (made on the loop)."""
    return grpc.aio.insecure_channel(f"127.0.0.1:{port}", interceptors=client_interceptors(**config), options=[("grpc.enable_http_proxy", 0)])


async def agen(items: list[bytes]) -> AsyncIterator[bytes]:
    for item in items:
        yield item


async def ainvoke(ch: grpc.aio.Channel, method: str, request: bytes, *, requests: Any = None, timeout: float = 10) -> Any:
    """Call `method`; a response stream is read to its end."""
    kind = CALL_KIND[method]
    path = f"/{SERVICE}/{method}"
    stream = requests if requests is not None else agen([request])
    if kind == "unary_unary":
        return await ch.unary_unary(path)(request, timeout=timeout)
    if kind == "unary_stream":
        return [m async for m in ch.unary_stream(path)(request, timeout=timeout)]
    if kind == "stream_unary":
        return await ch.stream_unary(path)(stream, timeout=timeout)
    return [m async for m in ch.stream_stream(path)(stream, timeout=timeout)]


def failing(loop: Loop, port: int, method: str, request: bytes, **kwargs: Any) -> FaultAioRpcError:
    config = {k: kwargs.pop(k) for k in ("retry", "guard") if k in kwargs}

    async def body() -> FaultAioRpcError:
        async with channel(port, **config) as ch:
            try:
                await ainvoke(ch, method, request, **kwargs)
            except FaultAioRpcError as exc:
                return exc
        raise AssertionError("the call did not fail")

    return loop.run(body())


# --------------------------------------------------------------------------- the rich status


@pytest.mark.parametrize("method", list(HANDLERS))
@pytest.mark.parametrize("case", CASES)
def test_a_fault_error_reaches_the_client_with_the_rich_status(loop: Loop, port: int, method: str, case: str) -> None:
    fault = FAULTS[case]
    exc = failing(loop, port, method, case.encode())

    # Still what grpc.aio raises: an AioRpcError, and an errconv.FaultError.
    assert isinstance(exc, grpc.aio.AioRpcError) and isinstance(exc, errconv.FaultError)
    assert exc.code() is CODES[fault.grpc_code]
    assert exc.details() == message_of(fault)
    check_rich_status(rpc_status.from_call(exc), sent_fault(fault))  # type: ignore[arg-type]
    if not method.startswith("sync_"):
        # A sync handler's context on an aio server cannot tell its trailers (no getter).
        assert dict(exc.trailing_metadata())[HANDLER_TRAILER[0]] == HANDLER_TRAILER[1]
    assert pushback_of(exc.trailing_metadata()) == expected_pushback(fault)
    check_client_fault(exc.fault, fault)


def test_the_call_object_says_the_same_as_the_exception(loop: Loop, port: int) -> None:
    fault = FAULTS["validation_failed"]

    async def body() -> None:
        async with channel(port) as ch:
            call = ch.unary_unary(f"/{SERVICE}/unary_unary")(b"validation_failed")
            with pytest.raises(FaultAioRpcError):
                await call
            assert await call.code() is CODES[fault.grpc_code]
            assert await call.details() == message_of(fault)
            check_rich_status(await rpc_status.aio.from_call(call), sent_fault(fault))
            stream = ch.unary_stream(f"/{SERVICE}/rw_unary_stream")(b"validation_failed")
            with pytest.raises(FaultAioRpcError):
                await stream.read()
            assert await stream.code() is CODES[fault.grpc_code]
            check_rich_status(await rpc_status.aio.from_call(stream), sent_fault(fault))

    loop.run(body())


@pytest.mark.parametrize("method", list(HANDLERS))
def test_an_unexpected_exception_is_internal_and_its_text_goes_nowhere(loop: Loop, port: int, method: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="errconv.interceptors"):
        exc = failing(loop, port, method, b"secret")
    assert (exc.code(), exc.details()) == (grpc.StatusCode.INTERNAL, "Internal error")
    no_secret_in(exc.details(), exc.trailing_metadata(), rpc_status.from_call(exc), repr(exc.fault), str(exc))  # type: ignore[arg-type]
    assert (exc.fault.next_step, exc.fault.code) == ("give_up", "internal_error")

    def logged() -> bool:
        return any(isinstance(r.exc_info and r.exc_info[1], KeyError) for r in caplog.records if r.name == "errconv.interceptors")

    # A sync handler's abort on an aio server sends the status before it returns to the
    # handler's thread, where the exception is logged: the client can be first.
    for _ in range(200):
        if logged():
            break
        time.sleep(0.01)
    assert logged()


@pytest.mark.parametrize("method", ["unary_stream", "rw_unary_stream", "stream_stream"])
def test_an_exception_after_two_messages_is_internal_and_its_text_goes_nowhere(loop: Loop, port: int, method: str) -> None:
    async def body() -> tuple[list[bytes], FaultAioRpcError, grpc.StatusCode]:
        async with channel(port) as ch:
            path = f"/{SERVICE}/{method}"
            call = ch.unary_stream(path)(b"midstream") if CALL_KIND[method] == "unary_stream" else ch.stream_stream(path)([b"midstream"])
            received = []
            try:
                async for message in call:
                    received.append(message)
            except FaultAioRpcError as exc:
                return received, exc, await call.code()
        raise AssertionError("the stream did not fail")

    received, exc, code = loop.run(body())
    assert received == [b"one", b"two"]
    assert (exc.code(), exc.details(), code) == (grpc.StatusCode.INTERNAL, "Internal error", grpc.StatusCode.INTERNAL)
    no_secret_in(exc.details(), exc.trailing_metadata(), rpc_status.from_call(exc), repr(exc.fault))  # type: ignore[arg-type]


@pytest.mark.parametrize("method", list(HANDLERS))
@pytest.mark.parametrize("scenario", ["abort", "abort-then-raise"])
def test_the_handlers_own_abort_passes_through(loop: Loop, port: int, method: str, scenario: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="errconv.interceptors"):
        exc = failing(loop, port, method, scenario.encode())
    assert not [r for r in caplog.records if r.name == "errconv.interceptors"]
    assert (exc.code(), exc.details()) == (grpc.StatusCode.PERMISSION_DENIED, "nope")
    assert rpc_status.from_call(exc) is None  # type: ignore[arg-type]
    assert (exc.fault.grpc_code, exc.fault.detail, exc.fault.next_step) == (7, "nope", "give_up")


@pytest.mark.parametrize("method", ASYNC_METHODS)
def test_a_status_the_handler_built_passes_through_and_a_corrupt_one_reads_as_code_and_message(loop: Loop, port: int, method: str) -> None:
    exc = failing(loop, port, method, b"own-status")
    assert (exc.code(), exc.details()) == (grpc.StatusCode.NOT_FOUND, "by hand")
    assert dict(exc.trailing_metadata()) == {"x-own": "1", "grpc-status-details-bin": b"\xff\xfe"}
    assert (exc.fault.grpc_code, exc.fault.detail) == (5, "by hand")
    assert any("grpc-status-details-bin ignored" in note for note in exc.fault.origin.notes)  # type: ignore[union-attr]


def test_a_huge_fault_keeps_its_code_reason_and_delay_and_never_overflows(loop: Loop) -> None:
    with serving(loop, [ServerInterceptor(keep_debug=True)]) as port:
        for method in HANDLERS:
            exc = failing(loop, port, method, b"big")
            assert exc.code() is grpc.StatusCode.UNAVAILABLE, method
            assert rpc_status.from_call(exc) is not None  # type: ignore[arg-type]
            assert (exc.fault.code, exc.fault.next_step, exc.fault.retry_after_seconds) == ("overloaded", "wait", 3)
            assert pushback_of(exc.trailing_metadata()) == "3000"
            assert "details.DebugInfo" in " ".join(exc.fault.origin.notes)  # type: ignore[union-attr]


# --------------------------------------------------------------------------- the client keeps working


def test_calls_that_succeed_look_as_without_the_interceptors(loop: Loop, port: int) -> None:
    async def body() -> None:
        async with channel(port, retry=RetryPolicy(clock=VirtualClock()), guard=TerminalGuard()) as ch:
            assert await ch.unary_unary(f"/{SERVICE}/unary_unary")(b"ok") == b"ok"
            call = ch.unary_unary(f"/{SERVICE}/unary_unary")(b"ok")
            assert await call == b"ok" and await call.code() is grpc.StatusCode.OK and call.done()
            assert [m async for m in ch.unary_stream(f"/{SERVICE}/unary_stream")(b"ok")] == [b"ok"]
            stream = ch.unary_stream(f"/{SERVICE}/rw_unary_stream")(b"ok")
            assert await stream.read() == b"ok" and await stream.read() is grpc.aio.EOF
            assert await ch.stream_unary(f"/{SERVICE}/stream_unary")([b"ok"]) == b"ok"
            assert await ch.stream_unary(f"/{SERVICE}/stream_unary")(agen([b"ok"])) == b"ok"
            assert [m async for m in ch.stream_stream(f"/{SERVICE}/stream_stream")(agen([b"ok"]))] == [b"ok"]
            # The write style: the interceptor must hand the call back before any write.
            writer = ch.stream_unary(f"/{SERVICE}/stream_unary")()
            await writer.write(b"ok")
            await writer.write(b"more")
            await writer.done_writing()
            assert await writer == b"ok"
            both = ch.stream_stream(f"/{SERVICE}/rw_stream_stream")()
            await both.write(b"ok")
            await both.done_writing()
            assert [m async for m in both] == [b"ok"] and await both.code() is grpc.StatusCode.OK

    loop.run(body())


def test_a_write_style_failure_is_translated(loop: Loop, port: int) -> None:
    async def body() -> FaultAioRpcError:
        async with channel(port) as ch:
            writer = ch.stream_unary(f"/{SERVICE}/stream_unary")()
            await writer.write(b"not_found")
            await writer.done_writing()
            try:
                await writer
            except FaultAioRpcError as exc:
                assert await writer.code() is grpc.StatusCode.NOT_FOUND
                return exc
        raise AssertionError("no failure")

    assert loop.run(body()).fault.code == FAULTS["not_found"].code


# --------------------------------------------------------------------------- retry, the three moves


def _requests(method: str, request: bytes) -> Any:
    return [request] if CALL_KIND[method].startswith("stream") else None  # a list: replayable


RETRY_METHODS = ["unary_unary", "unary_stream", "rw_unary_stream", "stream_unary", "stream_stream", "rw_stream_stream"]


@pytest.mark.parametrize("method", RETRY_METHODS)
def test_a_wait_is_awaited_and_the_call_repeated(loop: Loop, port: int, method: str) -> None:
    clock = VirtualClock()
    request = f"flaky:aio-{method}".encode()

    async def body() -> Any:
        async with channel(port, retry=RetryPolicy(clock=clock)) as ch:
            return await ainvoke(ch, method, request, requests=_requests(method, request))

    result = loop.run(body())
    assert result in (b"ok:" + request, [b"ok:" + request])
    assert COUNTS[request] == 3
    assert clock.sleeps == [2.0, 2.0] and clock.slept == 4


@pytest.mark.parametrize("method", RETRY_METHODS)
@pytest.mark.parametrize("step", ["giveup", "fix"])
def test_give_up_and_fix_request_are_called_once(loop: Loop, port: int, method: str, step: str) -> None:
    clock = VirtualClock()
    request = f"{step}:aio-{method}".encode()
    exc = failing(loop, port, method, request, requests=_requests(method, request), retry=RetryPolicy(clock=clock))
    assert COUNTS[request] == 1 and clock.sleeps == [] and exc.attempts == 1
    assert exc.fault.next_step == ("give_up" if step == "giveup" else "fix_request")
    assert any("stopped after 1 call" in note for note in exc.__notes__)


def test_a_stated_delay_longer_than_max_sleep_gives_up_with_the_fault(loop: Loop, port: int) -> None:
    clock = VirtualClock()
    exc = failing(loop, port, "unary_unary", b"wait10:aio", retry=RetryPolicy(clock=clock, max_sleep=5))
    assert COUNTS[b"wait10:aio"] == 1 and clock.sleeps == []
    assert (exc.fault.next_step, exc.fault.retry_after_seconds) == ("wait", 10)
    assert any("max_sleep" in note for note in exc.__notes__)


def test_a_stream_is_never_retried_once_a_message_arrived(loop: Loop, port: int) -> None:
    clock = VirtualClock()

    async def body() -> tuple[list[bytes], FaultAioRpcError]:
        async with channel(port, retry=RetryPolicy(clock=clock)) as ch:
            received = []
            try:
                async for message in ch.unary_stream(f"/{SERVICE}/unary_stream")(b"midwait:aio"):
                    received.append(message)
            except FaultAioRpcError as exc:
                return received, exc
        raise AssertionError("no failure")

    received, exc = loop.run(body())
    assert received == [b"one"] and COUNTS[b"midwait:aio"] == 1 and clock.sleeps == []
    assert exc.fault.next_step == "wait"


@pytest.mark.parametrize("method", ["stream_unary", "stream_stream"])
def test_a_request_stream_that_cannot_be_replayed_is_not_retried(loop: Loop, port: int, method: str) -> None:
    clock = VirtualClock()
    request = f"flaky:aio-once-{method}".encode()
    exc = failing(loop, port, method, request, requests=agen([request]), retry=RetryPolicy(clock=clock))
    assert COUNTS[request] == 1 and clock.sleeps == [] and exc.fault.next_step == "wait"


@pytest.mark.parametrize("method", RETRY_METHODS)
def test_the_guard_refuses_an_identical_repeat_of_a_give_up_and_lets_another_through(loop: Loop, port: int, method: str) -> None:
    guard = TerminalGuard()
    first, other = f"giveup:aio-guard-{method}".encode(), f"giveup:aio-guard-other-{method}".encode()

    async def body() -> RefusedAioRpcError:
        async with channel(port, guard=guard) as ch:
            with pytest.raises(FaultAioRpcError):
                await ainvoke(ch, method, first, requests=_requests(method, first))
            with pytest.raises(RefusedAioRpcError) as info:
                await ainvoke(ch, method, first, requests=_requests(method, first))
            with pytest.raises(FaultAioRpcError) as later:
                await ainvoke(ch, method, other, requests=_requests(method, other))
            assert not isinstance(later.value, RefusedAioRpcError)
            return info.value

    refused = loop.run(body())
    assert COUNTS[first] == 1 and COUNTS[other] == 1
    assert isinstance(refused, GuardRefused) and isinstance(refused, grpc.aio.AioRpcError) and refused.refused
    assert refused.code() is grpc.StatusCode.PERMISSION_DENIED and refused.fault.code == "account_suspended"
    assert "refused" in str(refused)


def test_the_real_clock_is_awaited_not_slept(monkeypatch: pytest.MonkeyPatch) -> None:
    # errconv.aio never blocks the loop: the real clock's wait is asyncio.sleep.
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    monkeypatch.setattr(SystemClock, "sleep", lambda self, seconds: pytest.fail("time.sleep on the loop"))
    asyncio.run(errconv.aio.sleep_on(SystemClock(), 2.0))
    clock = VirtualClock()
    asyncio.run(errconv.aio.sleep_on(clock, 3.0))
    assert slept == [2.0] and clock.sleeps == [3.0]


def test_the_aio_channel_needs_one_interceptor_a_kind() -> None:
    kinds = [type(i).__mro__[1:] for i in client_interceptors()]
    bases = (
        grpc.aio.UnaryUnaryClientInterceptor,
        grpc.aio.UnaryStreamClientInterceptor,
        grpc.aio.StreamUnaryClientInterceptor,
        grpc.aio.StreamStreamClientInterceptor,
    )
    # Each is exactly one kind: grpc.aio files an interceptor by the first kind it is.
    assert [[b for b in bases if b in mro] for mro in kinds] == [[b] for b in bases]
