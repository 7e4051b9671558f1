"""gRPC interceptors for grpc.aio: the same as `errconv.interceptors`, for asyncio.

`ServerInterceptor` wraps every handler kind of an aio server: coroutines,
async generators, the read/write style (`await context.write(...)`), and sync
functions and generators run on the server's thread pool. A raised
`errconv.FaultError` ends the call with the rich status; any other exception with
INTERNAL, give_up and a message that says nothing of it; the handler's own aborts
stand.

On the client, grpc.aio files each interceptor into one list by its class (a class
that is several kinds at once intercepts unary-unary calls only), so there are four
classes, one per call kind, and `client_interceptors(...)`, which gives the four with
one configuration:

    channel = grpc.aio.insecure_channel(target, interceptors=errconv.aio.client_interceptors(retry=RetryPolicy()))

A failed call raises a `FaultAioRpcError`: a `grpc.aio.AioRpcError` with `.fault`.
With `retry`, a wait is awaited (on the policy's clock: `asyncio.sleep` for the real
one) and the identical call repeated.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Hashable
from typing import Any

from ._extras import require

require("grpc.aio", package="grpcio", extra="grpc", what="errconv.aio")
import grpc  # noqa: E402 - after the check that names the extra
import grpc.aio  # noqa: E402

from ._model.errors import FaultError
from ._model.fault import Fault
from ._interceptor_core import DEFAULT_TRAILER_BUDGET, Attempts, ClientSide, Outcome, ServerSide, replayable, request_key, requests_key
from ._model.limits import DEFAULT_LIMITS, Limits
from .dialects._trailers import status_code
from .interceptors import _KINDS, _MAKERS, _streaming, _unary, _Wrapped
from .retry import Clock, GuardRefused, RetryPolicy, SystemClock, TerminalGuard

__all__ = [
    "FaultAioRpcError",
    "RefusedAioRpcError",
    "ServerInterceptor",
    "StreamStreamClientInterceptor",
    "StreamUnaryClientInterceptor",
    "UnaryStreamClientInterceptor",
    "UnaryUnaryClientInterceptor",
    "client_interceptors",
]

_LOG = logging.getLogger("errconv.interceptors")


# --------------------------------------------------------------------------- server


class ServerInterceptor(grpc.aio.ServerInterceptor):
    """Ends failed calls with the rich status, for every handler kind of an aio server.

    Takes the arguments of `errconv.interceptors.ServerInterceptor`: `keep_debug`,
    `max_trailer_bytes` (default 7 KiB), `unexpected`, `expose_exceptions` and `catalog`.
    """

    def __init__(
        self,
        *,
        keep_debug: bool = False,
        max_trailer_bytes: int = DEFAULT_TRAILER_BUDGET,
        unexpected: Fault | None = None,
        expose_exceptions: bool = False,
        catalog: Any = None,
        telemetry: bool = False,
    ) -> None:
        options: dict[str, Any] = dict(
            keep_debug=keep_debug, max_trailer_bytes=max_trailer_bytes, unexpected=unexpected, expose_exceptions=expose_exceptions, telemetry=telemetry
        )
        # With an errconv.Catalog, only its codes go out (Catalog.server_side).
        self.side = ServerSide(**options) if catalog is None else catalog.server_side(**options)
        self._wrapped = _Wrapped(wrap_handler)

    def __repr__(self) -> str:
        return f"errconv.aio.ServerInterceptor({self.side!r})"

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], handler_call_details: Any) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return self._wrapped.get(handler, handler_call_details.method, self.side)


def wrap_handler(handler: Any, method: str, side: ServerSide) -> Any:
    """`handler` with its behaviour wrapped by `side`, keeping the style grpc.aio runs it
    in (it tells them apart as `inspect` does, and so does this)."""
    kind = _KINDS[bool(handler.request_streaming), bool(handler.response_streaming)]
    behavior = getattr(handler, kind)
    if behavior is None:
        return handler
    if inspect.isasyncgenfunction(behavior):
        wrapped = _async_generator(behavior, method, side)
    elif inspect.iscoroutinefunction(behavior):
        wrapped = _coroutine(behavior, method, side)
    elif handler.response_streaming:  # a sync generator, run on the thread pool
        wrapped = _streaming(behavior, method, side, (grpc.aio.AbortError,), (grpc.aio.UsageError,))
    else:
        wrapped = _unary(behavior, method, side, (grpc.aio.AbortError,), (grpc.aio.UsageError,))
    try:
        return handler._replace(**{kind: wrapped})
    except AttributeError:
        return _MAKERS[kind](wrapped, handler.request_deserializer, handler.response_serializer)


def _coroutine(behavior: Callable[..., Any], method: str, side: ServerSide) -> Callable[..., Any]:
    # Unary responses, and response streams in the read/write style (which return None).
    async def wrapped(request: Any, context: Any) -> Any:
        try:
            return await behavior(request, context)
        except Exception as exc:
            outcome = _ending(exc, context, method, side)
            del exc  # a frame holding its own exception is a cycle (see errconv.interceptors)
            if outcome is not None:
                await context.abort(status_code(outcome.code), outcome.message, tuple(outcome.trailing_metadata))
            raise

    return wrapped


def _async_generator(behavior: Callable[..., Any], method: str, side: ServerSide) -> Callable[..., Any]:
    async def wrapped(request: Any, context: Any) -> AsyncIterator[Any]:
        responses = behavior(request, context)
        try:
            async for message in responses:
                yield message
        except Exception as exc:
            outcome = _ending(exc, context, method, side)
            del exc
            if outcome is not None:
                await context.abort(status_code(outcome.code), outcome.message, tuple(outcome.trailing_metadata))
            raise
        finally:
            await responses.aclose()

    return wrapped


def _ending(exc: BaseException, context: Any, method: str, side: ServerSide) -> Outcome | None:
    """How to end the call for `exc` (aio's abort sends the status at once, then
    raises), or None to let `exc` pass: an AbortError is the handler's abort, and the
    same object must reach grpc.aio; a call whose status went out already (`done()`:
    the handler aborted and swallowed it) keeps that status."""
    if isinstance(exc, grpc.aio.AbortError) or context.done():
        return None
    outcome = side.outcome(exc, context.trailing_metadata(), method)
    if outcome.unexpected:
        _LOG.error("%s raised %s; the call ends %s", method, type(exc).__name__, status_code(outcome.code).name, exc_info=exc)
    return outcome


# --------------------------------------------------------------------------- client errors


class FaultAioRpcError(FaultError, grpc.aio.AioRpcError):
    """A failed aio call: the `grpc.aio.AioRpcError` it raised (`.error`), with its Fault.

    Its code, details, metadata and debug string are the original's, so code that
    catches `grpc.aio.AioRpcError` or `grpc.RpcError` goes on working; `.fault` is
    decoded from the trailers (never raising), `.attempts` counts the calls made.
    """

    def __init__(self, fault: Fault, error: grpc.aio.AioRpcError | None = None, *, attempts: int = 1) -> None:
        # AioRpcError's own __init__, not FaultError's: it is AioRpcError's
        # signature that grpc.aio and its users rely on.
        if error is not None:
            grpc.aio.AioRpcError.__init__(
                self, error.code(), error.initial_metadata(), error.trailing_metadata(), error.details(), error.debug_error_string()
            )
        else:
            grpc.aio.AioRpcError.__init__(
                self, status_code(fault.grpc_code), grpc.aio.Metadata(), grpc.aio.Metadata(), fault.detail or fault.title or ""
            )
        self.fault = fault
        self.error = error
        self.attempts = attempts

    @staticmethod
    def of(error: grpc.aio.AioRpcError, fault: Fault, attempts: Attempts | None = None) -> FaultAioRpcError:
        """The FaultAioRpcError for `error`, with the retry's note when it stopped one."""
        made = FaultAioRpcError(fault, error, attempts=attempts.attempt if attempts is not None else 1)
        note = attempts.note() if attempts is not None else ""
        if note:
            made.add_note(note)
        return made


class RefusedAioRpcError(FaultAioRpcError, GuardRefused):
    """An identical repeat of a call that ended give_up, refused before it was sent: an
    `errconv.retry.GuardRefused` (`.key`, `.fault`, `.refused`) and an AioRpcError whose
    code and message are the original failure's."""

    def __init__(self, key: Hashable, fault: Fault) -> None:
        FaultAioRpcError.__init__(self, fault, None, attempts=0)
        self.key = key
        self.args = (f"refused: an identical call already ended give_up ({fault.detail or fault.title or fault.code})",)

    def __str__(self) -> str:
        return str(self.args[0])


# --------------------------------------------------------------------------- client


async def sleep_on(clock: Clock | None, seconds: float) -> None:
    """Wait `seconds` on `clock` without blocking the loop: the real clock's wait is
    `asyncio.sleep`; another clock's `sleep` is called, and awaited when it returns an
    awaitable (a VirtualClock's returns at once, having recorded the sleep)."""
    if clock is None or isinstance(clock, SystemClock):
        await asyncio.sleep(seconds)
        return
    sleep: Callable[[float], Any] = clock.sleep  # a clock of asyncio may return an awaitable
    result = sleep(seconds)
    if inspect.isawaitable(result):
        await result


def _with_timeout(details: Any, timeout: float | None) -> Any:
    return details if timeout is None else details._replace(timeout=timeout)


class _Client(ClientSide):
    """What the four aio client interceptors share: the configuration of
    `errconv.interceptors.ClientInterceptor` (retry, guard, request_key, limits)."""

    async def _unary_response(
        self, continuation: Callable[..., Awaitable[Any]], details: Any, requests: Any, attempts: Attempts, retryable: bool
    ) -> Any:
        # Awaited here, inside the interceptor's task: grpc.aio's call is then done
        # when the last attempt is, and cancelling it cancels the attempt under way.
        try:
            attempts.start()
        except GuardRefused as refused:
            raise RefusedAioRpcError(refused.key, refused.fault) from None
        call_details = details
        while True:
            call = await continuation(call_details, requests)
            try:
                await call
                return call
            except grpc.aio.AioRpcError as error:
                fault = self.fault(error)
                sleep = attempts.failed(fault, retryable)
                if sleep is None:
                    raise FaultAioRpcError.of(error, fault, attempts) from None
            await sleep_on(attempts.clock, sleep)
            attempts.start()
            call_details = _with_timeout(details, attempts.timeout())


class UnaryUnaryClientInterceptor(_Client, grpc.aio.UnaryUnaryClientInterceptor):
    """The Fault of failed unary-unary calls, and retry by the three moves."""

    async def intercept_unary_unary(self, continuation: Callable[..., Awaitable[Any]], client_call_details: Any, request: Any) -> Any:
        attempts = self._attempts(client_call_details, lambda: self.request_key(request))
        return await self._unary_response(continuation, client_call_details, request, attempts, True)


class StreamUnaryClientInterceptor(_Client, grpc.aio.StreamUnaryClientInterceptor):
    """The Fault of failed stream-unary calls; retried when the requests are a sequence."""

    async def intercept_stream_unary(
        self, continuation: Callable[..., Awaitable[Any]], client_call_details: Any, request_iterator: Any
    ) -> Any:
        if replayable(request_iterator):
            requests = request_iterator
            attempts = self._attempts(client_call_details, lambda: requests_key(requests, self.request_key))
            return await self._unary_response(continuation, client_call_details, requests, attempts, True)
        # An iterator, or the call's own `write()`s: these are consumed as they are sent,
        # and grpc.aio feeds `write()` only once this interceptor has returned, so the
        # call is handed back at once and its failure translated when it is awaited.
        attempts = self._attempts(client_call_details, None)
        attempts.start()
        call = await continuation(client_call_details, request_iterator)
        return _UnaryResponse(self, call, attempts)


class UnaryStreamClientInterceptor(_Client, grpc.aio.UnaryStreamClientInterceptor):
    """The Fault of failed unary-stream calls; retried only before the first message."""

    async def intercept_unary_stream(self, continuation: Callable[..., Awaitable[Any]], client_call_details: Any, request: Any) -> Any:
        attempts = self._attempts(client_call_details, lambda: self.request_key(request))
        try:
            attempts.start()
        except GuardRefused as refused:
            raise RefusedAioRpcError(refused.key, refused.fault) from None
        call = await continuation(client_call_details, request)
        return _UnaryStream(self, continuation, client_call_details, request, attempts, True, call)


class StreamStreamClientInterceptor(_Client, grpc.aio.StreamStreamClientInterceptor):
    """The Fault of failed stream-stream calls; retried only before the first message,
    and only when the requests are a sequence."""

    async def intercept_stream_stream(
        self, continuation: Callable[..., Awaitable[Any]], client_call_details: Any, request_iterator: Any
    ) -> Any:
        retryable = replayable(request_iterator)
        requests = request_iterator
        key = (lambda: requests_key(requests, self.request_key)) if retryable else None
        attempts = self._attempts(client_call_details, key)
        try:
            attempts.start()
        except GuardRefused as refused:
            raise RefusedAioRpcError(refused.key, refused.fault) from None
        call = await continuation(client_call_details, request_iterator)
        return _StreamStream(self, continuation, client_call_details, request_iterator, attempts, retryable, call)


def client_interceptors(
    *,
    retry: RetryPolicy | None = None,
    guard: TerminalGuard | None = None,
    request_key: Callable[[Any], Hashable | None] = request_key,
    limits: Limits = DEFAULT_LIMITS,
) -> list[grpc.aio.ClientInterceptor]:
    """The four aio client interceptors, one per call kind, with one configuration, for
    `grpc.aio.insecure_channel(target, interceptors=...)`. The arguments are those of
    `errconv.interceptors.ClientInterceptor`; a sleep is awaited, never blocking."""
    config: dict[str, Any] = {"retry": retry, "guard": guard, "request_key": request_key, "limits": limits}
    return [
        UnaryUnaryClientInterceptor(**config),
        UnaryStreamClientInterceptor(**config),
        StreamUnaryClientInterceptor(**config),
        StreamStreamClientInterceptor(**config),
    ]


class _Delegating:
    """A grpc.aio call whose methods are those of the attempt under way."""

    _call: Any
    _retrying = False

    def cancel(self) -> bool:
        return bool(self._call.cancel())

    def cancelled(self) -> bool:
        return bool(self._call.cancelled())

    def done(self) -> bool:
        return not self._retrying and bool(self._call.done())

    def time_remaining(self) -> float | None:
        return self._call.time_remaining()  # type: ignore[no-any-return]

    def add_done_callback(self, callback: Callable[[Any], None]) -> None:
        self._call.add_done_callback(lambda _: callback(self))

    async def initial_metadata(self) -> Any:
        return await self._call.initial_metadata()

    async def trailing_metadata(self) -> Any:
        return await self._call.trailing_metadata()

    async def code(self) -> grpc.StatusCode:
        return await self._call.code()  # type: ignore[no-any-return]

    async def details(self) -> str:
        return await self._call.details()  # type: ignore[no-any-return]

    async def debug_error_string(self) -> str | None:
        return await self._call.debug_error_string()  # type: ignore[no-any-return]

    async def wait_for_connection(self) -> None:
        await self._call.wait_for_connection()

    async def write(self, request: Any) -> None:
        await self._call.write(request)

    async def done_writing(self) -> None:
        await self._call.done_writing()

    @property
    def _done_writing_flag(self) -> bool:
        # grpc.aio's intercepted call reads this of the call an interceptor returns.
        return bool(getattr(self._call, "_done_writing_flag", False))


class _UnaryResponse(_Delegating, grpc.aio.StreamUnaryCall[Any, Any]):
    """A stream-unary call that is not retried, its failure translated when awaited."""

    def __init__(self, client: _Client, call: Any, attempts: Attempts) -> None:
        self._client = client
        self._call = call
        self._attempts = attempts

    def __await__(self) -> Generator[Any, None, Any]:
        try:
            response = yield from self._call.__await__()
        except grpc.aio.AioRpcError as error:
            fault = self._client.fault(error)
            self._attempts.failed(fault, False)
            raise FaultAioRpcError.of(error, fault, self._attempts) from None
        return response


class _Stream(_Delegating):
    """A response stream whose failure raises a FaultAioRpcError; retried, when the
    policy says so, only while no message has arrived (after one the call has
    committed, and a repeat would deliver its messages twice)."""

    def __init__(
        self,
        client: _Client,
        continuation: Callable[..., Awaitable[Any]],
        details: Any,
        requests: Any,
        attempts: Attempts,
        retryable: bool,
        call: Any,
    ) -> None:
        self._client = client
        self._continuation = continuation
        self._details = details
        self._requests = requests
        self._attempts = attempts
        self._retryable = retryable
        self._call = call
        self._received = False
        self._messages: AsyncIterator[Any] | None = None

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._messages is None:
            self._messages = self._iterate()
        return self._messages

    async def read(self) -> Any:
        try:
            return await self.__aiter__().__anext__()
        except StopAsyncIteration:
            return grpc.aio.EOF

    async def _iterate(self) -> AsyncIterator[Any]:
        while True:
            try:
                async for message in self._call:
                    self._received = True
                    yield message
                return
            except grpc.aio.AioRpcError as error:
                fault = self._client.fault(error)
                sleep = self._attempts.failed(fault, self._retryable and not self._received)
                if sleep is None:
                    raise FaultAioRpcError.of(error, fault, self._attempts) from None
            self._retrying = True
            try:
                await sleep_on(self._attempts.clock, sleep)
                self._attempts.start()
                self._call = await self._continuation(_with_timeout(self._details, self._attempts.timeout()), self._requests)
            finally:
                self._retrying = False


class _UnaryStream(_Stream, grpc.aio.UnaryStreamCall[Any, Any]):
    pass


class _StreamStream(_Stream, grpc.aio.StreamStreamCall[Any, Any]):
    pass


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
