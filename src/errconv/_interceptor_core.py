"""The pure half of errconv's gRPC interceptors, with no grpcio in it.

`errconv.interceptors` (grpcio) and `errconv.aio` (grpc.aio) are thin I/O shells
around what is here, and another gRPC stack (grpclib, connectrpc) can stand on it
the same way:

- server side, `ServerSide.outcome(exc, handler_trailers)`: what to end a call with
  when its handler raised `exc`: the code (an int), the message and the trailing
  metadata, with the handler's own trailers merged in first (grpcio's sync
  `abort_with_status` and aio's `abort` replace them) and the whole block within the
  trailer budget;
- client side, `call_fault(code, details, trailing_metadata)`: the Fault of a failed
  call, which never raises, whatever the trailers hold;
- `Attempts`: the retry loop's decisions for one call (the guard before the first
  attempt, then after each failure: sleep this long, or stop), through
  `errconv.retry.RetryPolicy.decide`, so the shells only send, sleep and raise;
- `request_key(request)`: what `TerminalGuard` keys a request by.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import msgspec

from . import _observe
from ._telemetry import telemetry as _telemetry
from ._model.errors import FaultError, shorten
from ._model.fault import Fault, Origin
from .dialects._trailers import DETAILS_KEY, PUSHBACK_KEY, _size, from_grpc, trailers_for
from ._model.limits import DEFAULT_LIMITS, Limits
from .codes import NextStep
from .details import DebugInfo
from .dialects._status import without_debug
from .retry import Clock, GuardRefused, RetryPolicy, TerminalGuard

__all__ = [
    "DEFAULT_TRAILER_BUDGET",
    "MIN_TRAILER_BUDGET",
    "Attempts",
    "Outcome",
    "ServerSide",
    "call_fault",
    "default_unexpected",
    "replayable",
    "request_key",
    "requests_key",
]

# The interceptors' default trailer budget: under the 8 KiB gRPC suggests for received
# metadata (grpcio's soft limit), with room for what proxies add; grpcio's hard limit
# is 16 KiB, past which the client sees RESOURCE_EXHAUSTED and the real status is lost.
DEFAULT_TRAILER_BUDGET = 7 * 1024
# The least budget the interceptors accept, and the least they leave the fault when
# the handler's own trailers are large: enough for the minimal Status (the reason, the
# agent fields, the delay) of any fault Fault.build accepts.
MIN_TRAILER_BUDGET = 1024

_CANCELLED = 1
_INTERNAL = 13
# Keys of ours that a handler's own trailers must not duplicate (a second Status would
# contradict the first), and the ones grpcio sets itself from the code and message.
_OURS = frozenset((DETAILS_KEY, PUSHBACK_KEY, "grpc-status", "grpc-message"))


def default_unexpected() -> Fault:
    """What a handler's bug ends the call with: INTERNAL, give_up, and a message that
    says nothing of the exception (its text can hold a key, a path, a customer's data)."""
    return Fault.build(grpc_code=_INTERNAL, code="internal_error", detail="Internal error", next_step="give_up")


class Outcome(msgspec.Struct, frozen=True):
    """How a failed call ends: `code` (a gRPC code number), `message` (text; the gRPC
    library percent-encodes it), `trailing_metadata` (pairs, `-bin` values as bytes,
    the handler's own first), the `fault` they say, and whether it came from an
    exception that was no FaultError (`unexpected`: a bug, to be logged)."""

    code: int
    message: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]
    fault: Fault
    unexpected: bool


class ServerSide:
    """The server interceptor's decisions, the same for every gRPC stack.

    Args:
        keep_debug: send DebugInfo details (stack traces); off by default, as the
            client is outside.
        max_trailer_bytes: the budget for the whole trailer block, counted as HPACK
            counts it (at least `MIN_TRAILER_BUDGET`).
        unexpected: the Fault for an exception that is no FaultError; by default
            INTERNAL, give_up, "Internal error" (`default_unexpected`).
        expose_exceptions: for development only: put the exception's type and text
            in the message, and its traceback in a DebugInfo (sent with `keep_debug`).
        telemetry: record each fault the call ends with on the call's span, and count
            it (`errconv.otel`, which needs the `otel` extra).
    """

    __slots__ = ("expose_exceptions", "keep_debug", "limits", "max_trailer_bytes", "observer", "unexpected")

    def __init__(
        self,
        *,
        keep_debug: bool = False,
        max_trailer_bytes: int = DEFAULT_TRAILER_BUDGET,
        unexpected: Fault | None = None,
        expose_exceptions: bool = False,
        telemetry: bool = False,
    ) -> None:
        if isinstance(max_trailer_bytes, bool) or not isinstance(max_trailer_bytes, int) or max_trailer_bytes < MIN_TRAILER_BUDGET:
            raise ValueError(
                f"max_trailer_bytes must be a whole number of at least {MIN_TRAILER_BUDGET} "
                f"(the minimal Status must fit), got {shorten(max_trailer_bytes)}"
            )
        if unexpected is not None and not isinstance(unexpected, Fault):
            raise TypeError(f"unexpected must be an errconv.Fault, got {shorten(unexpected)}")
        if unexpected is not None and unexpected.grpc_code == 0:
            raise ValueError("unexpected must not have grpc_code OK: a failed call cannot end OK")
        self.keep_debug = keep_debug
        self.max_trailer_bytes = max_trailer_bytes
        self.limits = Limits(max_trailer_bytes=max_trailer_bytes)
        self.unexpected = unexpected if unexpected is not None else default_unexpected()
        self.expose_exceptions = expose_exceptions
        self.observer = _telemetry(telemetry)

    def __repr__(self) -> str:
        return (
            f"ServerSide(keep_debug={self.keep_debug}, max_trailer_bytes={self.max_trailer_bytes}, "
            f"unexpected={self.unexpected.grpc_code_name}, expose_exceptions={self.expose_exceptions})"
        )

    def fault_for(self, exc: BaseException) -> tuple[Fault, bool]:
        """The Fault to send for `exc`, and whether it was unexpected (no FaultError).

        A FaultError whose fault says OK is a bug too: gRPC turns an abort with OK
        into UNKNOWN, and a failure must not read as a success.
        """
        if isinstance(exc, FaultError) and isinstance(getattr(exc, "fault", None), Fault) and exc.fault.grpc_code != 0:
            return exc.fault, False
        fault = self.unexpected
        if self.expose_exceptions:
            text = f"{type(exc).__name__}: {exc}"
            stack = tuple(line.rstrip("\n") for line in traceback.format_exception(exc))
            fault = fault.replace(detail=text, details=(*fault.details, DebugInfo(stack_entries=stack, detail=text)))
        return fault, True

    def status(self, fault: Fault, handler_trailers: Iterable[Any] | None = ()) -> tuple[int, str, tuple[tuple[str, str | bytes], ...]]:
        """The code, message and trailing metadata for `fault`, after the handler's own trailers.

        The handler's entries come first and count against the budget; should they
        leave the fault less than `MIN_TRAILER_BUDGET`, the last of them are dropped
        (and named in the record of what was dropped) until they do not. Entries under
        the keys errconv writes are the handler's attempt at a status of its own; the
        fault's win.
        """
        if not self.keep_debug:
            fault = without_debug(fault)
        own = [(k, v) for k, v in handler_trailers or () if isinstance(k, str) and k.lower() not in _OURS]
        if not own:
            code, message, pairs = trailers_for(fault, limits=self.limits, keep_debug=self.keep_debug)
            return code, message, tuple(pairs)
        dropped: list[str] = []
        budget = self.max_trailer_bytes - _size(own)
        while own and budget < MIN_TRAILER_BUDGET:
            key, value = own.pop()
            dropped.append(f"trailing_metadata.{key}")
            budget += _size([(key, value)])
        code, message, pairs = trailers_for(fault, limits=Limits(max_trailer_bytes=budget), keep_debug=self.keep_debug, dropped=dropped)
        return code, message, (*own, *pairs)

    def outcome(self, exc: BaseException, handler_trailers: Iterable[Any] | None = (), method: str | bytes | None = None) -> Outcome:
        """How to end a call whose handler raised `exc` (a call of `method`, the path gRPC
        gives, for telemetry). Never raises: should the translation itself fail (a bug
        in errconv), the call ends with the `unexpected` fault's code and message alone."""
        fault, unexpected = self.fault_for(exc)
        try:
            code, message, pairs = self.status(fault, handler_trailers)
        except Exception:
            fault, unexpected = self.unexpected, True
            code, message, pairs = fault.grpc_code, fault.detail or "", ()
        observer = _observe.observer(self.observer)
        if observer is not None:  # telemetry: the fault the call ends with, on the server span
            observer.fault(fault, "server", "grpc", where=rpc_method(method))
        return Outcome(code, message, pairs, fault, unexpected)


# --------------------------------------------------------------------------- client side


def call_fault(code: Any, details: str | bytes | None, trailing_metadata: Any, *, limits: Limits = DEFAULT_LIMITS) -> Fault:
    """The Fault of a failed call, from its code, details and trailing metadata.

    Never raises: `from_grpc` already reads a corrupt grpc-status-details-bin as a
    fault from the code and message with a note; trailers it refuses outright (over
    `limits.max_bytes`, not pairs) give the same, noted likewise.
    """
    try:
        return from_grpc(code, details, trailing_metadata or (), limits=limits)
    except Exception as exc:  # error handling must not fail in turn
        problem = f"trailers ignored: {exc}"
    if isinstance(details, (str, bytes)) and len(details) > limits.max_string:
        details = details[: limits.max_string]
    try:
        fault = from_grpc(code, details, (), limits=limits)
    except Exception:
        try:
            fault = from_grpc(code, None, ())
        except Exception:  # no failure's code (from_grpc refuses OK, or a name it does not know)
            fault = from_grpc(None, None, ())
            problem = f"{problem}; code {str(code)[:40]!r} read as UNKNOWN"
    origin = fault.origin or Origin(dialect="grpc")
    return fault.replace(origin=msgspec.structs.replace(origin, notes=(*origin.notes, problem)))


def request_key(request: Any) -> Hashable | None:
    """What identifies a request for `TerminalGuard`: its bytes (a protobuf message
    serialized deterministically, bytes as they are), else the value itself when it
    is hashable; None (the call is not guarded) when it is neither."""
    if isinstance(request, (bytes, str)):
        return request
    if isinstance(request, (bytearray, memoryview)):
        return bytes(request)
    serialize = getattr(request, "SerializeToString", None)
    if serialize is not None:
        try:
            return bytes(serialize(deterministic=True))
        except Exception:
            return None
    try:
        hash(request)
    except TypeError:
        return None
    return request  # type: ignore[no-any-return]


def replayable(requests: Any) -> bool:
    """Whether a request stream can be sent again: a sequence (a list, a tuple) can; an
    iterator or a generator cannot (the first attempt consumed it, and holding every
    message back for a replay would hold an unbounded stream in memory)."""
    return isinstance(requests, Sequence) and not isinstance(requests, (str, bytes, bytearray, memoryview))


def requests_key(requests: Sequence[Any], key: Callable[[Any], Hashable | None]) -> Hashable | None:
    """The guard's key for a replayable request stream: each request's key, in order."""
    keys = tuple(key(r) for r in requests)
    return None if any(k is None for k in keys) else keys


class Attempts:
    """The retry decisions for one call, with no I/O: the shells send, sleep and raise.

    - `start()` before the first attempt: raises `errconv.retry.GuardRefused` when the
      guard remembers an identical call that ended give_up;
    - `failed(fault, retryable)` after an attempt failed: records a give_up with the
      guard, and returns how long to sleep before the next attempt, or None to stop
      (`reason` then says why). `retryable` is False once the call has committed (a
      response message arrived) or cannot be replayed;
    - `timeout()`: the time left for the next attempt, when the call has a deadline:
      it spans every attempt, as in gRPC's own retry, and a sleep that would end past
      it stops instead.
    """

    __slots__ = ("attempt", "deadline", "guard", "key", "method", "observer", "policy", "reason")

    def __init__(
        self,
        policy: RetryPolicy | None,
        guard: TerminalGuard | None,
        key: Hashable | None,
        timeout: float | None,
        observer: _observe.Observer | None = None,
        method: str | bytes | None = None,
    ) -> None:
        self.observer = observer
        self.method = method
        self.policy = policy
        self.guard = guard if key is not None else None
        self.key = key
        self.attempt = 0
        self.reason = ""
        self.deadline = policy.clock.now() + timeout if policy is not None and timeout is not None else None

    @property
    def clock(self) -> Clock | None:
        """The policy's clock (None without a policy: nothing is retried)."""
        return self.policy.clock if self.policy is not None else None

    def start(self) -> None:
        """Count an attempt; before the first, ask the guard."""
        if self.attempt == 0 and self.guard is not None:
            try:
                self.guard.check(self.key)
            except GuardRefused as refused:
                observer = _observe.observer(self.observer)
                if observer is not None:
                    observer.event("guard_refused", "an identical call ended give_up", refused.fault)
                raise
        self.attempt += 1

    def failed(self, fault: Fault, retryable: bool = True) -> float | None:
        """The sleep before the next attempt, or None to stop with `fault`."""
        sleep = self._failed(fault, retryable)
        observer = _observe.observer(self.observer)
        if observer is not None:  # telemetry: the fault read, on the span current at the call
            _observed(observer, fault, sleep, self.reason, self.policy, self.method)
        return sleep

    def _failed(self, fault: Fault, retryable: bool) -> float | None:
        # A cancelled call is the caller's own doing: it says nothing about the request.
        if self.guard is not None and fault.grpc_code != _CANCELLED:
            self.guard.record(self.key, fault)
        if self.policy is None:
            return None
        if not retryable:
            if fault.next_step == NextStep.WAIT:
                self.reason = "the call committed (a response arrived) or its requests cannot be sent again"
            else:
                self.reason = self.policy.decide(fault, self.attempt).reason
            return None
        decision = self.policy.decide(fault, self.attempt)
        if not decision.retry:
            self.reason = decision.reason
            return None
        if self.deadline is not None and self.policy.clock.now() + decision.sleep >= self.deadline:
            self.reason = f"wait {decision.sleep:g} s would end past the call's deadline"
            return None
        return decision.sleep

    def timeout(self) -> float | None:
        """The time left before the call's deadline (None: no deadline)."""
        if self.deadline is None or self.policy is None:
            return None
        return max(0.0, self.deadline - self.policy.clock.now())

    def note(self) -> str:
        """The note a stopped call's exception carries (as `RetryPolicy.call` writes it)."""
        calls = f"{self.attempt} call{'s' if self.attempt != 1 else ''}"
        return f"errconv.retry: stopped after {calls}: {self.reason}" if self.reason else ""


def rpc_method(method: str | bytes | None) -> tuple[str, str] | None:
    """The `rpc.method` attribute of a call to `method` ("/pkg.Service/Method", as gRPC
    names it; grpc.aio gives bytes): the fully-qualified name the RPC conventions ask for,
    `pkg.Service/Method`. Only methods a handler or a stub was made for reach here: the
    low cardinality a metric's attribute needs."""
    if not method:
        return None
    name = method.decode("utf-8", "replace") if isinstance(method, bytes) else method
    return ("rpc.method", name[1:] if name.startswith("/") else name)


def _observed(observer: _observe.Observer, fault: Fault, sleep: float | None, reason: str, policy: RetryPolicy | None, method: str | bytes | None = None) -> None:
    """Report a fault a client read, and a wait given up for its length."""
    origin = fault.origin
    observer.fault(fault, "client", origin.dialect if origin is not None else "grpc", sleep is None, sleep=sleep, where=rpc_method(method))
    delay = fault.retry_after_seconds
    if sleep is None and policy is not None and fault.next_step == NextStep.WAIT and delay is not None and delay > policy.max_sleep:
        observer.event("wait_too_long", reason, fault)


class ClientSide:
    """What the client interceptors share, sync (`errconv.interceptors`) and aio
    (`errconv.aio`): their configuration, their repr, the Fault of a failed call, and the
    attempts of one call."""

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        guard: TerminalGuard | None = None,
        request_key: Callable[[Any], Hashable | None] = request_key,
        limits: Limits = DEFAULT_LIMITS,
        telemetry: bool = False,
    ) -> None:
        self.retry = retry
        self.guard = guard
        self.request_key = request_key
        self.limits = limits
        self.observer = _telemetry(telemetry)

    def __repr__(self) -> str:
        return f"{type(self).__module__}.{type(self).__name__}(retry={self.retry!r}, guard={self.guard!r})"

    def fault(self, error: Any) -> Fault:
        """The Fault of a failed call's error (grpc.RpcError, grpc.aio.AioRpcError; never raises)."""
        fault = getattr(error, "fault", None)
        if isinstance(error, FaultError) and isinstance(fault, Fault):
            return fault  # another errconv interceptor read it already
        code, details, trailers = (getattr(error, name, None) for name in ("code", "details", "trailing_metadata"))
        return call_fault(
            code() if callable(code) else None,
            details() if callable(details) else None,
            trailers() if callable(trailers) else (),
            limits=self.limits,
        )

    def _attempts(self, details: Any, key: Callable[[], Hashable | None] | None) -> Attempts:
        guarded = None
        if self.guard is not None and key is not None:
            request = key()
            if request is not None:
                method = details.method  # grpcio gives the sync interceptors text, grpc.aio bytes
                guarded = (method.decode("utf-8", "replace") if isinstance(method, bytes) else method, request)
        return Attempts(self.retry, self.guard, guarded, getattr(details, "timeout", None), self.observer, getattr(details, "method", None))
