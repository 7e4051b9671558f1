"""gRPC interceptors for grpcio: the rich status out of a server, a Fault into every client.

`ServerInterceptor` ends a call whose handler raised `errconv.FaultError(fault)` with
the status the fault implies: grpc-status and grpc-message, the google.rpc.Status in
grpc-status-details-bin (ErrorInfo always, RetryInfo for a wait, BadRequest for
violations, errconv's own details for the rest), grpc-retry-pushback-ms for a wait
(gRPC's own retry reads only that), and the trailing metadata the handler had set.
Any other exception ends it INTERNAL, give_up, with a message that says nothing of
the exception; the exception is logged on the server (logger `errconv.interceptors`).
Aborts the handler made itself pass through untouched.

`ClientInterceptor` gives every failed call an exception that is still the
`grpc.RpcError` (and `grpc.Call`) grpcio raises, with the Fault its trailers say in
`.fault`; with `retry=RetryPolicy(...)` it follows the three moves: a wait is slept
and the identical call repeated, fix_request and give_up are not; with
`guard=TerminalGuard()` an identical repeat of a call that ended give_up is refused
without being sent.

    server = grpc.server(pool, interceptors=[errconv.interceptors.ServerInterceptor()])
    channel = grpc.intercept_channel(grpc.insecure_channel(target),
                                     errconv.interceptors.ClientInterceptor(retry=RetryPolicy()))

grpcio is imported here and in `errconv.aio` only; what the interceptors decide is
in a module of no grpcio (`errconv._interceptor_core`), which other gRPC stacks can
stand on the same way.
"""

from __future__ import annotations

import collections
import logging
import sys
import threading
import types
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any

from ._extras import require

require("grpc", package="grpcio", extra="grpc", what="errconv.interceptors")
import grpc  # noqa: E402 - after the check that names the extra

from ._model.errors import FaultError
from ._model.fault import Fault
from .dialects._trailers import GrpcStatus, status_code
from ._interceptor_core import DEFAULT_TRAILER_BUDGET, Attempts, ClientSide, Outcome, ServerSide, replayable, requests_key
from ._model.limits import Limits
from .retry import GuardRefused, RetryPolicy, TerminalGuard

__all__ = ["ClientInterceptor", "FaultCallError", "FaultRpcError", "RefusedRpcError", "ServerInterceptor"]

_LOG = logging.getLogger("errconv.interceptors")
# grpc.Future is generic in the type stubs only.
if TYPE_CHECKING:
    _Future = grpc.Future[Any]
else:
    _Future = grpc.Future


# --------------------------------------------------------------------------- server


class ServerInterceptor(grpc.ServerInterceptor):
    """Ends failed calls with the rich status, for every handler kind of a sync server.

    Unary and streaming, requests and responses, plain functions and generators: the
    handler is wrapped, and for a response stream the wrapper is itself a generator,
    so an exception raised after the first message is caught too.

    Args:
        keep_debug: send DebugInfo details (stack traces); off by default.
        max_trailer_bytes: the budget for the whole trailer block (default 7 KiB,
            under grpcio's 8 KiB soft limit; past its 16 KiB hard limit the client
            sees RESOURCE_EXHAUSTED instead of the status). Over it the least
            important parts go first (DebugInfo, the other details last first, ...;
            the README's Limits table gives the order), named in ErrorInfo's
            metadata under `errconv_dropped`; the code, the reason and the delay
            always go out. The handler's own trailers count too, and go only when
            they would leave the fault less than 1 KiB.
        unexpected: the Fault an exception that is no FaultError ends the call with
            (default: INTERNAL, give_up, code `internal_error`, "Internal error").
        expose_exceptions: for development: the exception's type and text in the
            message, its traceback in a DebugInfo (sent with `keep_debug`). Never on
            a server whose clients are not yours.
        catalog: an `errconv.Catalog`: end calls only with its codes; a fault whose
            code is not in it (or disagrees with its entry), and any other
            exception, ends the call with the catalog's internal error, logged.
        telemetry: record each fault a call ends with on the call's span (the one
            OpenTelemetry's gRPC instrumentation opened), and count it (`errconv.otel`).
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
        return f"errconv.interceptors.ServerInterceptor({self.side!r})"

    def intercept_service(self, continuation: Callable[[Any], Any], handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        return self._wrapped.get(handler, handler_call_details.method, self.side)


class _Wrapped:
    """The wrapped handler of each (handler, method), made once: grpcio looks a method's
    handler up on every call, and wrapping it anew (a closure and a namedtuple
    `_replace`) would cost every call, the successful ones too, a few microseconds."""

    __slots__ = ("_entries", "_wrap")
    MAX = 1024  # a generic handler that makes a handler per call only churns this

    def __init__(self, wrap: Callable[[Any, str, ServerSide], Any]) -> None:
        self._wrap = wrap
        self._entries: dict[tuple[int, str], tuple[Any, Any]] = {}

    def get(self, handler: Any, method: str, side: ServerSide) -> Any:
        key = (id(handler), method)
        entry = self._entries.get(key)
        if entry is not None and entry[0] is handler:  # the same object, not one at a reused id
            return entry[1]
        wrapped = self._wrap(handler, method, side)
        if len(self._entries) >= self.MAX:
            self._entries.clear()
        self._entries[key] = (handler, wrapped)  # holding the handler keeps its id unique
        return wrapped


_KINDS = {(False, False): "unary_unary", (False, True): "unary_stream", (True, False): "stream_unary", (True, True): "stream_stream"}
_MAKERS = {
    "unary_unary": grpc.unary_unary_rpc_method_handler,
    "unary_stream": grpc.unary_stream_rpc_method_handler,
    "stream_unary": grpc.stream_unary_rpc_method_handler,
    "stream_stream": grpc.stream_stream_rpc_method_handler,
}


def wrap_handler(handler: Any, method: str, side: ServerSide) -> Any:
    """`handler` (a `grpc.RpcMethodHandler`) with its behaviour wrapped by `side`."""
    kind = _KINDS[bool(handler.request_streaming), bool(handler.response_streaming)]
    behavior = getattr(handler, kind)
    if behavior is None:
        return handler
    wrapped = _streaming(behavior, method, side) if handler.response_streaming else _unary(behavior, method, side)
    try:
        return handler._replace(**{kind: wrapped})  # grpcio's own handlers are namedtuples
    except AttributeError:
        return _MAKERS[kind](wrapped, handler.request_deserializer, handler.response_serializer)


class _Watch:
    """Marks the handler's own aborts. grpcio's sync `abort` raises a bare Exception
    (grpc/grpc#36009), which tells nothing, and an abort is final even when the
    handler catches it and goes on (grpc/grpc#33890): so the context's `abort` and
    `abort_with_status` are shadowed, on this context only, by ones that say so."""

    __slots__ = ("aborted", "shadowed")

    def __init__(self, context: Any) -> None:
        self.aborted = False
        self.shadowed = False
        try:
            abort, abort_with_status = context.abort, context.abort_with_status

            def watched_abort(*args: Any, **kwargs: Any) -> Any:
                self.aborted = True
                return abort(*args, **kwargs)

            def watched_abort_with_status(*args: Any, **kwargs: Any) -> Any:
                self.aborted = True
                return abort_with_status(*args, **kwargs)

            context.abort = watched_abort
            context.abort_with_status = watched_abort_with_status
            self.shadowed = True
        except AttributeError:
            pass  # a context that takes no attributes (aio's sync one): aborted() asks grpcio

    def release(self, context: Any) -> None:
        """Take the shadows off (they hold the context: a cycle otherwise)."""
        if self.shadowed:
            vars(context).pop("abort", None)
            vars(context).pop("abort_with_status", None)

    def aborted_in(self, context: Any) -> bool:
        # grpcio's own record, for a context the watch could not shadow.
        return self.aborted or getattr(getattr(context, "_state", None), "aborted", False) is True


# What aio raises for an abort, and for a second one: passed in by errconv.aio for a
# sync handler on an aio server, so that this module needs no grpc.aio.
_Aborts = tuple[type[BaseException], ...]


def _unary(behavior: Callable[..., Any], method: str, side: ServerSide, aborts: _Aborts = (), again: _Aborts = ()) -> Callable[..., Any]:
    def wrapped(request: Any, context: Any) -> Any:
        watch = _Watch(context)
        try:
            return behavior(request, context)
        except Exception as exc:
            ending = _ending(exc, context, watch, side, aborts, method)
            # Unbound before anything raises out of this frame: the frame is in the
            # exception's traceback, and a frame holding its own exception is a cycle,
            # one per failed call, left for the garbage collector.
            del exc
            if ending is not None:
                _abort(context, ending, method, again)
            raise
        finally:
            watch.release(context)

    return wrapped


def _streaming(behavior: Callable[..., Any], method: str, side: ServerSide, aborts: _Aborts = (), again: _Aborts = ()) -> Callable[..., Any]:
    # A generator itself: grpcio iterates the handler's responses after the handler
    # has returned, so only a wrapper that iterates them sees what they raise.
    def wrapped(request: Any, context: Any) -> Iterator[Any]:
        watch = _Watch(context)
        try:
            yield from behavior(request, context)
        except Exception as exc:
            ending = _ending(exc, context, watch, side, aborts, method)
            del exc  # as in _unary: no cycle through this frame
            if ending is not None:
                _abort(context, ending, method, again)
            raise
        finally:
            watch.release(context)

    return wrapped


def _ending(exc: BaseException, context: Any, watch: _Watch, side: ServerSide, aborts: _Aborts, method: str) -> Outcome | None:
    """How to end the call for `exc`, or None to let it pass: after the handler's own
    abort, whose status stands, and on a call that is over (cancelled by the client,
    past its deadline), where nothing can be sent. `aborts` are exceptions that are an
    abort themselves (aio's, for a sync handler on an aio server)."""
    if isinstance(exc, aborts) or watch.aborted_in(context):
        return None
    is_active = getattr(context, "is_active", None)
    if is_active is not None and not is_active():
        return None
    trailers = getattr(context, "trailing_metadata", None)
    return side.outcome(exc, trailers() if trailers is not None else (), method)


def _abort(context: Any, outcome: Outcome, method: str, again: _Aborts) -> None:
    """End the call with `outcome` (aborting raises), called while the handler's
    exception is being handled. Returns only when `again` says the call had been
    aborted already (aio refuses a second abort), whose status then stands."""
    status = GrpcStatus(status_code(outcome.code), outcome.message, outcome.trailing_metadata)
    abort_with_status = getattr(context, "abort_with_status", None)
    original = sys.exc_info()[1]
    try:
        if abort_with_status is not None:
            abort_with_status(status)
        else:  # aio's context for a sync handler: abort takes the trailers itself
            context.abort(status.code, status.details, status.trailing_metadata)
    except again:
        return
    except BaseException:  # the abort's own exception, which ends the call
        # Logged once the abort is under way, not before: a refused one ends nothing.
        if outcome.unexpected and original is not None:
            _LOG.error("%s raised %s; the call ends %s", method, type(original).__name__, status.code.name, exc_info=original)
        raise
    finally:
        del original


# --------------------------------------------------------------------------- client errors


class FaultRpcError(FaultError, grpc.RpcError):
    """A failed call: the `grpc.RpcError` grpcio raised (`.error`), with its Fault.

    `.fault` is decoded from the trailers (made from the code and message when there
    are no details, with a note in `fault.origin.notes` when they do not parse);
    `.attempts` counts the calls made. `code()`, `details()`, `trailing_metadata()`,
    `initial_metadata()` and `debug_error_string()` are the original's. Raised as a
    `grpc.Call` (and `grpc.Future`) whenever the original was one.
    """

    def __init__(self, fault: Fault, error: Any = None, *, attempts: int = 1) -> None:
        FaultError.__init__(self, fault)
        self.error = error
        self.attempts = attempts

    @staticmethod
    def of(error: Any, fault: Fault, attempts: Attempts | None = None) -> FaultRpcError:
        """The FaultRpcError for `error`: a Call (and Future) when `error` is one."""
        kind = FaultCallError if isinstance(error, grpc.Call) else FaultRpcError
        made = kind(fault, error, attempts=attempts.attempt if attempts is not None else 1)
        note = attempts.note() if attempts is not None else ""
        if note:
            made.add_note(note)
        return made

    def _ask(self, name: str, default: Any) -> Any:
        method = getattr(self.error, name, None)
        return method() if callable(method) else default

    def code(self) -> grpc.StatusCode:
        """The call's status code."""
        return self._ask("code", status_code(self.fault.grpc_code))  # type: ignore[no-any-return]

    def details(self) -> str | None:
        """The call's message (grpc-message)."""
        return self._ask("details", self.fault.detail or self.fault.title or "")  # type: ignore[no-any-return]

    def trailing_metadata(self) -> Any:
        """The trailing metadata the server sent."""
        return self._ask("trailing_metadata", ())

    def initial_metadata(self) -> Any:
        """The initial metadata the server sent."""
        return self._ask("initial_metadata", None)

    def debug_error_string(self) -> str | None:
        """grpcio's debug string of the call, when it has one."""
        return self._ask("debug_error_string", None)  # type: ignore[no-any-return]

    def __str__(self) -> str:
        fault = self.fault
        step = f"{fault.next_step} {fault.retry_after_seconds} s" if fault.retry_after_seconds is not None else str(fault.next_step)
        code = self.code()
        return f"{getattr(code, 'name', code)}: {self.details() or ''} (next step: {step})"


class FaultCallError(FaultRpcError, grpc.Call, _Future):  # type: ignore[misc]
    """A FaultRpcError that is also the Call and the Future of the call, as grpcio's
    own error is: `result()` raises it, iterating it raises it."""

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> Any:
        return self._ask("time_remaining", None)

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False

    def cancelled(self) -> bool:
        return bool(self._ask("cancelled", False))

    def running(self) -> bool:
        return False

    def done(self) -> bool:
        return True

    def result(self, timeout: float | None = None) -> Any:
        raise self

    def exception(self, timeout: float | None = None) -> FaultRpcError:
        return self

    def traceback(self, timeout: float | None = None) -> types.TracebackType | None:
        return self.__traceback__

    def add_done_callback(self, fn: Callable[[Any], None]) -> None:
        fn(self)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        raise self


class RefusedRpcError(FaultCallError, GuardRefused):  # type: ignore[misc]
    """An identical repeat of a call that ended give_up, refused by the guard before it
    was sent: an `errconv.retry.GuardRefused` (`.key`, `.fault`, `.refused`) and a
    `grpc.RpcError` whose code and message are the original failure's."""

    def __init__(self, key: Hashable, fault: Fault) -> None:
        GuardRefused.__init__(self, key, fault)
        self.error = None
        self.attempts = 0

    def __str__(self) -> str:
        return str(self.args[0])


# --------------------------------------------------------------------------- client


class _CallDetails(
    collections.namedtuple("_CallDetails", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")),
    grpc.ClientCallDetails,
):
    """Call details for a later attempt: the first one's, with the time left."""


def _with_timeout(details: Any, timeout: float | None) -> Any:
    if timeout is None:
        return details
    return _CallDetails(
        details.method,
        timeout,
        getattr(details, "metadata", None),
        getattr(details, "credentials", None),
        getattr(details, "wait_for_ready", None),
        getattr(details, "compression", None),
    )


def _rpc_error(outcome: Any) -> Any:
    """The RpcError a finished call failed with; None when it succeeded, or failed here
    before anything was sent (a serializer's error: grpcio raises that one itself)."""
    error = outcome.exception()
    return error if isinstance(error, grpc.RpcError) else None


class ClientInterceptor(
    ClientSide,
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Gives every failed call its Fault, and retries as the fault says when asked to.

    Attach with `grpc.intercept_channel(channel, ClientInterceptor(...))`; one
    instance serves all four call kinds. A failed call raises a `FaultRpcError` (a
    `grpc.RpcError` with `.fault`); blocking calls, `.with_call()`, `.future()` and
    streaming iteration work as without it.

    Args:
        retry: an `errconv.retry.RetryPolicy`; None (the default) retries nothing.
            A wait sleeps its delay (on the policy's clock) and repeats the identical
            call; fix_request and give_up are never repeated; a stated delay longer
            than `max_sleep`, or one that would end past the call's deadline (which
            spans every attempt), stops with the fault. A response stream is retried
            only before its first message; a request stream only when given as a
            sequence (a list, a tuple), which can be sent again.
        guard: an `errconv.retry.TerminalGuard`: a call that ended give_up is
            remembered by its method and serialized request, and an identical repeat
            is refused (`RefusedRpcError`) without being sent. Request streams are
            guarded when given as a sequence.
        request_key: what the guard keys a request by (default: a protobuf message's
            deterministic serialization, bytes as they are, else the value itself
            when hashable); None from it leaves the call unguarded.
        limits: the limits the trailers are decoded under.
        telemetry: record each fault read on the span current at the call, a
            retried one as an event, and count it (`errconv.otel`).
    """

    def _streamed(self, details: Any, request_iterator: Any) -> tuple[Callable[[], Any], Attempts, bool]:
        """A client-streaming call's requests, its attempts, and whether it may be retried:
        only requests that can be replayed (a list, a tuple) are sent again."""
        if replayable(request_iterator):
            requests = request_iterator
            return (lambda: iter(requests)), self._attempts(details, lambda: requests_key(requests, self.request_key)), True
        return (lambda: request_iterator), self._attempts(details, None), False

    # ------------------------------------------------------------------ response: one message

    def intercept_unary_unary(self, continuation: Callable[..., Any], client_call_details: Any, request: Any) -> Any:
        attempts = self._attempts(client_call_details, lambda: self.request_key(request))
        return self._unary_response(continuation, client_call_details, lambda: request, attempts, True)

    def intercept_stream_unary(self, continuation: Callable[..., Any], client_call_details: Any, request_iterator: Any) -> Any:
        return self._unary_response(continuation, client_call_details, *self._streamed(client_call_details, request_iterator))

    def _unary_response(self, continuation: Callable[..., Any], details: Any, requests: Callable[[], Any], attempts: Attempts, retryable: bool) -> Any:
        try:
            attempts.start()
        except GuardRefused as refused:
            return RefusedRpcError(refused.key, refused.fault)
        outcome = continuation(details, requests())
        # A blocking call (`__call__`, `with_call`) has finished by now; `.future()`
        # gives a call in flight (an iterator), to be retried off the caller's thread.
        if not outcome.done() or isinstance(outcome, Iterator):
            return _RetryingFuture(self, continuation, details, requests, attempts, retryable, outcome)
        while True:
            error = _rpc_error(outcome)
            if error is None:
                return outcome
            fault = self.fault(error)
            sleep = attempts.failed(fault, retryable)
            if sleep is None:
                return FaultRpcError.of(error, fault, attempts)
            attempts.clock.sleep(sleep)  # type: ignore[union-attr]
            attempts.start()
            outcome = continuation(_with_timeout(details, attempts.timeout()), requests())

    # ------------------------------------------------------------------ response: a stream

    def intercept_unary_stream(self, continuation: Callable[..., Any], client_call_details: Any, request: Any) -> Any:
        attempts = self._attempts(client_call_details, lambda: self.request_key(request))
        return self._stream_response(continuation, client_call_details, lambda: request, attempts, True)

    def intercept_stream_stream(self, continuation: Callable[..., Any], client_call_details: Any, request_iterator: Any) -> Any:
        return self._stream_response(continuation, client_call_details, *self._streamed(client_call_details, request_iterator))

    def _stream_response(self, continuation: Callable[..., Any], details: Any, requests: Callable[[], Any], attempts: Attempts, retryable: bool) -> Any:
        try:
            attempts.start()
        except GuardRefused as refused:
            return RefusedRpcError(refused.key, refused.fault)
        return _Stream(self, continuation, details, requests, attempts, retryable)


class _Stream(grpc.Call, _Future):
    """A response stream whose failure raises a FaultRpcError; retried, when the
    policy says so, only while no message has arrived (after one the call has
    committed, and a repeat would deliver its messages twice)."""

    def __init__(
        self,
        interceptor: ClientInterceptor,
        continuation: Callable[..., Any],
        details: Any,
        requests: Callable[[], Any],
        attempts: Attempts,
        retryable: bool,
    ) -> None:
        self._interceptor = interceptor
        self._continuation = continuation
        self._details = details
        self._requests = requests
        self._attempts = attempts
        self._retryable = retryable
        self._received = False
        self._call = continuation(details, requests())

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> Any:
        while True:
            try:
                message = next(self._call)
            except grpc.RpcError as error:
                self._call = self._after(error)
                continue
            self._received = True
            return message

    next = __next__

    def _after(self, error: Any) -> Any:
        """The next attempt's call, or raise the FaultRpcError of this one."""
        fault = self._interceptor.fault(error)
        sleep = self._attempts.failed(fault, self._retryable and not self._received)
        if sleep is None:
            raise FaultRpcError.of(error, fault, self._attempts) from None
        self._attempts.clock.sleep(sleep)  # type: ignore[union-attr]
        self._attempts.start()
        return self._continuation(_with_timeout(self._details, self._attempts.timeout()), self._requests())

    def _translated(self, value: Any) -> Any:
        if isinstance(value, grpc.RpcError) and not isinstance(value, FaultRpcError):
            return FaultRpcError.of(value, self._interceptor.fault(value), self._attempts)
        return value

    # The Call and the Future are those of the attempt under way.
    def initial_metadata(self) -> Any:
        return self._call.initial_metadata()

    def trailing_metadata(self) -> Any:
        return self._call.trailing_metadata()

    def code(self) -> Any:
        return self._call.code()

    def details(self) -> Any:
        return self._call.details()

    def is_active(self) -> bool:
        return bool(self._call.is_active())

    def time_remaining(self) -> Any:
        return self._call.time_remaining()

    def cancel(self) -> bool:
        return bool(self._call.cancel())

    def add_callback(self, callback: Any) -> bool:
        return bool(self._call.add_callback(callback))

    def cancelled(self) -> bool:
        return bool(self._call.cancelled())

    def running(self) -> bool:
        return bool(self._call.running())

    def done(self) -> bool:
        return bool(self._call.done())

    def result(self, timeout: float | None = None) -> Any:
        try:
            return self._call.result(timeout)
        except grpc.RpcError as error:
            raise self._translated(error) from None

    def exception(self, timeout: float | None = None) -> Any:
        return self._translated(self._call.exception(timeout))

    def traceback(self, timeout: float | None = None) -> Any:
        return self._call.traceback(timeout)

    def add_done_callback(self, fn: Callable[[Any], None]) -> None:
        self._call.add_done_callback(lambda _: fn(self))

    def __getattr__(self, name: str) -> Any:
        # What else grpcio's call offers (debug_error_string, ...).
        call = self.__dict__.get("_call")
        if call is None:
            raise AttributeError(name)
        return getattr(call, name)


_PENDING: Any = object()
_CANCELLED: Any = object()  # cancelled between attempts


class _RetryingFuture(grpc.Call, _Future):
    """`.future()` of a unary-response call: done when the last attempt is, retried
    from a thread of its own so that `.future()` never blocks its caller."""

    def __init__(
        self,
        interceptor: ClientInterceptor,
        continuation: Callable[..., Any],
        details: Any,
        requests: Callable[[], Any],
        attempts: Attempts,
        retryable: bool,
        first: Any,
    ) -> None:
        self._interceptor = interceptor
        self._continuation = continuation
        self._details = details
        self._requests = requests
        self._attempts = attempts
        self._retryable = retryable
        self._condition = threading.Condition()
        self._current = first
        self._final: Any = _PENDING  # the finished future, or the FaultRpcError to raise
        self._callbacks: list[Callable[[Any], None]] = []
        self._cancelled = False
        first.add_done_callback(self._settle)

    def _settle(self, future: Any) -> None:
        final: Any = future  # a success, a cancelled call, or a failure before anything was sent
        if not future.cancelled():
            error = _rpc_error(future)
            if error is not None:
                fault = self._interceptor.fault(error)
                sleep = None if self._cancelled else self._attempts.failed(fault, self._retryable)
                if sleep is not None:
                    threading.Thread(target=self._again, args=(sleep,), name="errconv-retry", daemon=True).start()
                    return
                final = FaultRpcError.of(error, fault, self._attempts)
        self._finish(final)

    def _finish(self, final: Any) -> None:
        with self._condition:
            self._final = final
            callbacks, self._callbacks = self._callbacks, []
            self._condition.notify_all()
        for fn in callbacks:
            fn(self)

    def _again(self, sleep: float) -> None:
        self._attempts.clock.sleep(sleep)  # type: ignore[union-attr]
        self._attempts.start()
        with self._condition:
            cancelled = self._cancelled
        if cancelled:  # during the sleep: no attempt is under way to cancel
            self._finish(_CANCELLED)
            return
        future = self._continuation(_with_timeout(self._details, self._attempts.timeout()), self._requests())
        with self._condition:
            self._current = future
        future.add_done_callback(self._settle)

    def _wait(self, timeout: float | None) -> Any:
        with self._condition:
            if not self._condition.wait_for(lambda: self._final is not _PENDING, timeout):
                raise grpc.FutureTimeoutError()
            final = self._final
        if final is _CANCELLED:
            raise grpc.FutureCancelledError()
        return final

    def result(self, timeout: float | None = None) -> Any:
        final = self._wait(timeout)
        if isinstance(final, FaultRpcError):
            raise final
        return final.result()

    def exception(self, timeout: float | None = None) -> Any:
        final = self._wait(timeout)
        return final if isinstance(final, FaultRpcError) else final.exception()

    def traceback(self, timeout: float | None = None) -> Any:
        final = self._wait(timeout)
        return final.__traceback__ if isinstance(final, FaultRpcError) else final.traceback()

    def add_done_callback(self, fn: Callable[[Any], None]) -> None:
        with self._condition:
            if self._final is _PENDING:
                self._callbacks.append(fn)
                return
        fn(self)

    def cancel(self) -> bool:
        with self._condition:
            if self._final is not _PENDING:
                return False
            self._cancelled = True  # no further attempt starts
            current = self._current
        current.cancel()
        return True

    def cancelled(self) -> bool:
        final = self._final
        if final is _PENDING:
            return False
        return self._cancelled or (not isinstance(final, FaultRpcError) and bool(final.cancelled()))

    def running(self) -> bool:
        return self._final is _PENDING

    def done(self) -> bool:
        return self._final is not _PENDING

    # The Call is that of the attempt under way (or the last one).
    def initial_metadata(self) -> Any:
        return self._current.initial_metadata()

    def trailing_metadata(self) -> Any:
        return self._current.trailing_metadata()

    def code(self) -> Any:
        return self._current.code()

    def details(self) -> Any:
        return self._current.details()

    def is_active(self) -> bool:
        return self._final is _PENDING

    def time_remaining(self) -> Any:
        return self._current.time_remaining()

    def add_callback(self, callback: Any) -> bool:
        return bool(self._current.add_callback(callback))


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
