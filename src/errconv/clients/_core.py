"""What every client integration shares, with no client library in it.

- `StoppedError` and `WaitTooLong`: what a client raises when it stops;
- `Attempts`: one request's retry decisions, through `RetryPolicy.decide` and
  `TerminalGuard` (the integrations send, sleep and raise; they decide nothing);
- `fault_of_response` / `fault_of_exception`: the Fault of a failed response, never
  failing on what a server sent;
- `replay_allowed`: whether a request may be sent twice;
- `guard_key`: what the guard remembers a request by;
- `Call`: one user-level call across the redirects its client follows (one budget);
- `read_bounded` / `cut_fault`: an error body read up to `Limits.max_bytes` and no
  further, and the fault of a body cut there.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import urllib.parse
import weakref
from collections.abc import AsyncIterable, Callable, Hashable, Iterable, Mapping
from typing import Any

import msgspec

from .. import Fault, FaultError, _observe
from .._model.fault import Origin
from .._model.limits import DEFAULT_LIMITS, Limits
from .._telemetry import telemetry as _telemetry
from ..codes import Code, NextStep, reason_phrase
from ..gateway import fault_of
from ..retry import Clock, GuardRefused, RetryPolicy, SystemClock, TerminalGuard

__all__ = [
    "Attempts",
    "Call",
    "StoppedError",
    "cut_fault",
    "read_bounded",
    "read_bounded_async",
    "configure",
    "WaitTooLong",
    "fault_of_exception",
    "fault_of_response",
    "fault_of_status",
    "guard_key",
    "is_error_status",
    "replay_allowed",
    "sleep_async",
    "stopped",
    "transport_fault",
]

# RFC 9110 9.2.2: the methods whose repetition has the effect of one request.
IDEMPOTENT_METHODS = frozenset(("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"))


# --------------------------------------------------------------------------- the errors


class StoppedError(FaultError):
    """A client gave up on a request: its `.fault`, the last `.response` (body read),
    the number of `.calls` made, the `.reason` it stopped, and `.retry_after_seconds`:
    the stated delay when the fault was a wait, else None.

    The integrations raise it as a subclass that is also the client library's own
    status error (`httpx.HTTPStatusError`, `requests.HTTPError`), so handlers written
    for the library keep working.
    """

    retry_after_seconds: int | None
    response: Any
    calls: int
    reason: str

    def __init__(self, fault: Fault, *, response: Any = None, calls: int = 1, reason: str = "") -> None:
        super().__init__(fault)
        fill(self, fault, response=response, calls=calls, reason=reason)


class WaitTooLong(StoppedError):
    """A wait longer than the policy's `max_sleep`, given up at once rather than slept
    through or retried early: reschedule the call `.retry_after_seconds` from now."""

    retry_after_seconds: int


def fill(error: StoppedError, fault: Fault, *, response: Any, calls: int, reason: str) -> None:
    """Set a StoppedError's attributes (for the subclasses whose first base is a
    library's exception, whose __init__ runs instead of FaultError's)."""
    error.fault = fault
    error.response = response
    error.calls = calls
    error.reason = reason
    error.retry_after_seconds = fault.retry_after_seconds if fault.next_step == NextStep.WAIT else None


def message(fault: Fault, calls: int, reason: str) -> str:
    """One line for a stopped request: what the server said and why errconv stopped.
    No URL (a query string can hold a key); the server's own text only."""
    # The server's code, else the status's name: a gRPC code name here would read as a code the server sent.
    what = fault.code or reason_phrase(fault.status)
    said = f": {fault.detail}" if fault.detail else ""
    said = said if len(said) <= 200 else said[:197] + "..."
    return f"{fault.status} {what}{said} (errconv: stopped after {calls} call{'s' if calls != 1 else ''}: {reason})"


def stopped(error: BaseException | None) -> StoppedError | None:
    """The `StoppedError` behind `error`: itself, or one in its `__cause__` /
    `__context__` chain. An SDK that wraps what its transport raises (the OpenAI and
    Anthropic SDKs raise `APIConnectionError` from it) still lets the caller read the
    fault and the delay:

    >>> import errconv
    >>> fault = errconv.Fault.build(status=429, next_step="wait", retry_after_seconds=3600)
    >>> try:
    ...     try:
    ...         raise WaitTooLong(fault, reason="too long")
    ...     except WaitTooLong as inner:
    ...         raise RuntimeError("connection error") from inner
    ... except RuntimeError as outer:
    ...     stopped(outer).retry_after_seconds
    3600
    """
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, StoppedError):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


# --------------------------------------------------------------------------- faults


def fault_of_response(response: Any, limits: Limits = DEFAULT_LIMITS) -> Fault:
    """The Fault of a failed HTTP client response (its body already read). Never fails
    on what the server sent: an unreadable body is read from the status and headers."""
    return fault_of(response, limits=limits)


# Raw bytes read past the limit before a body is cut even though its decoded length is
# still under it: a compressed body's framing and a few chunks' headers.
RAW_SLACK = 64 * 1024


def read_bounded(chunks: Iterable[bytes], limit: int, downloaded: Callable[[], int] | None = None) -> tuple[bytes, bool]:
    """The body from `chunks` up to `limit` bytes, and whether it was longer (cut).

    Reading stops at the first chunk past the limit (decoded bytes) or once
    `downloaded()` (raw bytes off the wire) is past it by more than `RAW_SLACK`: the
    caller closes the response then, so the rest is never read. Memory: the limit plus
    one chunk (a client's chunk is at most 64 KiB off the wire, more only after a
    compressed chunk was inflated)."""
    parts: list[bytes] = []
    size = 0
    for chunk in chunks:
        parts.append(chunk)
        size += len(chunk)
        if size > limit or (downloaded is not None and downloaded() > limit + RAW_SLACK):
            return b"".join(parts)[:limit], True
    return b"".join(parts), False


async def read_bounded_async(chunks: AsyncIterable[bytes], limit: int, downloaded: Callable[[], int] | None = None) -> tuple[bytes, bool]:
    """`read_bounded` for an async stream of chunks."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        parts.append(chunk)
        size += len(chunk)
        if size > limit or (downloaded is not None and downloaded() > limit + RAW_SLACK):
            return b"".join(parts)[:limit], True
    return b"".join(parts), False


def cut_fault(status: int, headers: Any, limits: Limits) -> Fault:
    """The fault of an error response whose body was longer than `limits.max_bytes`
    and cut there: read from the status and headers alone, the cut said in the
    fault's `origin.notes`. The cut body is not decoded: a prefix can say what the
    whole does not (`"retry_after_seconds": 30` cut from `300`, half a message)."""
    fault = fault_of((status, headers, b""), limits=limits)
    note = (
        f"the body was longer than Limits.max_bytes ({limits.max_bytes} bytes): read up to there, the rest not read, "
        "and not decoded (a cut body can say what the whole does not); the fault is read from the status and headers"
    )
    origin = fault.origin if fault.origin is not None else Origin(dialect="http")
    return fault.replace(origin=msgspec.structs.replace(origin, notes=(*origin.notes, note)))


def is_error_status(status: Any) -> bool:
    """Whether a response's status is an HTTP error errconv reads: 400 to 599. A server
    can send any three digits (a 600, a 999); such a status is no error HTTP defines, so
    the response goes back to the caller as it came, as a 2xx does."""
    return isinstance(status, int) and not isinstance(status, bool) and 400 <= status <= 599


def _attr(obj: Any, name: str) -> Any:
    """`obj.name`, or None when it is missing or raises (an exception a tool raised may
    carry any object at all)."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def fault_of_exception(error: BaseException) -> Fault | None:
    """The Fault an exception carries: a FaultError's, or that of the HTTP response an
    HTTP client's status error carries (`httpx.HTTPStatusError`, `requests.HTTPError`,
    the OpenAI, Anthropic and other SDKs' `APIStatusError`); None for any other. Never
    raises, whatever the exception holds."""
    if issubclass(type(error), FaultError):  # not isinstance: that reads __class__, which can raise
        fault = _attr(error, "fault")
        return fault if issubclass(type(fault), Fault) else None
    response = _attr(error, "response")
    status = _attr(response, "status_code")
    if not is_error_status(status):
        return None
    try:
        if _attr(response, "_content") is False:
            # A requests response streamed and never read (`stream=True`): reading
            # `.content` would pull the whole body into memory, however large. What the
            # caller left unread stays unread: the status and headers say the move.
            return fault_of((status, response.headers, b""))
        return fault_of(response)
    except Exception:  # a response object whose headers or body raise as they are read
        return fault_of_status(status)


def fault_of_status(status: int) -> Fault:
    """The Fault of an HTTP error status alone (no headers, no body)."""
    from .._pipeline.http import from_http

    return from_http(status, (), b"")


def transport_fault(connect: bool, timeout: bool) -> Fault:
    """The Fault of a request that got no response: a wait with no stated delay (the
    policy's backoff applies), DEADLINE_EXCEEDED for a timeout, UNAVAILABLE else."""
    if timeout:
        return Fault(status=504, grpc_code=Code.DEADLINE_EXCEEDED, code="timeout", detail="the request timed out", next_step=NextStep.WAIT)
    what = "no connection could be made" if connect else "the connection failed"
    return Fault(status=503, grpc_code=Code.UNAVAILABLE, code="connection_error", detail=what, next_step=NextStep.WAIT)


# --------------------------------------------------------------------------- requests


def configure(
    target: Any,
    retry: RetryPolicy | None,
    guard: TerminalGuard | None,
    retry_non_idempotent: bool,
    raise_for_status: bool,
    limits: Limits | None = None,
    telemetry: bool = False,
) -> None:
    """Check and set the options every transport and adapter takes (`retry`, `guard`,
    `retry_non_idempotent`, `raise_for_status`, `limits`, `telemetry`) on `target`."""
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise TypeError(f"retry must be an errconv.retry.RetryPolicy, got {type(retry).__name__}")
    if guard is not None and not isinstance(guard, TerminalGuard):
        raise TypeError(f"guard must be an errconv.retry.TerminalGuard, got {type(guard).__name__}")
    if limits is not None and not isinstance(limits, Limits):
        raise TypeError(f"limits must be an errconv.Limits, got {type(limits).__name__}")
    target.limits = limits if limits is not None else DEFAULT_LIMITS
    target.retry = retry if retry is not None else RetryPolicy()
    target.guard = guard
    target.retry_non_idempotent = retry_non_idempotent
    target.raise_for_status = raise_for_status
    target.observer = _telemetry(telemetry)


def has_idempotency_key(headers: Mapping[str, str] | Any) -> bool:
    """Whether the request carries an Idempotency-Key (IETF draft; Stripe, Adyen...)."""
    try:
        return bool(headers.get("Idempotency-Key") or headers.get("idempotency-key"))
    except Exception:
        return False


NOT_REPLAYABLE = "a wait, but the request is not idempotent and carries no Idempotency-Key: it is not sent twice"


def replay_allowed(method: str, headers: Any, always: bool) -> bool:
    """Whether a request may be sent again: an idempotent method, an Idempotency-Key,
    or the caller's word (`always`)."""
    return always or method.upper() in IDEMPOTENT_METHODS or has_idempotency_key(headers)


def guard_key(method: str, url: str, body: bytes | None) -> Hashable | None:
    """What the guard remembers a request by: its method, URL and a digest of its body;
    None (not guarded) when the body cannot be read without consuming a stream."""
    if body is None:
        return None
    return (method.upper(), url, hashlib.sha256(body).hexdigest())


# --------------------------------------------------------------------------- the decisions


class Call:
    """One user-level call (`client.get(...)`, `session.get(...)`), across the redirects
    its client follows: every hop's Attempts spends this one budget.

    The client library sends each redirect hop as a request of its own; the transports
    find the hop's Call where the library carries it from hop to hop (httpx copies a
    request's extensions into its redirect; requests shares a request's hooks). A hop
    continues a call only while the call's last answer was a redirect, and only for a
    request other than the one that got it (the same request sent again is a new call).

    `failures` counts the failed sends of the whole call and is the attempt number
    `RetryPolicy.decide` sees: so a call sleeps at most `budget - 1` times, each at most
    `max_sleep`, whatever the redirects; `sends` counts every request sent; `slept` the
    seconds slept. Redirect hops themselves are the client's to bound (`max_redirects`).
    """

    __slots__ = ("failures", "last", "link", "redirected", "sends", "slept", "__weakref__")

    def __init__(self, link: Any = None) -> None:
        self.failures = 0
        self.sends = 0
        self.slept = 0.0
        self.redirected = False
        self.last: weakref.ref[Any] | None = None
        self.link = link

    def continued_by(self, request: Any, link: Any = None) -> bool:
        """Whether `request` is the next hop of this call (see the class)."""
        if not self.redirected or (link is not None and self.link is not link):
            return False
        last = self.last() if self.last is not None else None
        return last is not request

    def answered(self, request: Any, redirect: bool) -> None:
        """Note that the hop for `request` answered: with a redirect the call may go on."""
        self.redirected = redirect
        try:
            self.last = weakref.ref(request) if redirect else None
        except TypeError:  # a request object that takes no weak reference: compare nothing
            self.last = None


class Attempts:
    """One request's retry decisions, with no I/O.

    - `start()` before each attempt: before the first, asks the guard, which raises
      `errconv.retry.GuardRefused` for an identical request that ended give_up;
    - `failed(fault, replayable)` after an attempt failed: records a give_up with the
      guard, and returns the sleep before the next attempt, or None to stop; then
      `reason` says why and `too_long` whether a wait was given up for its length.

    With `call`, the budget is that Call's, shared with the other hops of one
    user-level call (a redirect chain); without, the request is a call of its own.
    """

    __slots__ = ("attempt", "call", "guard", "key", "observer", "peer", "policy", "reason", "too_long")

    def __init__(
        self,
        policy: RetryPolicy,
        guard: TerminalGuard | None,
        key: Hashable | None,
        call: Call | None = None,
        *,
        observer: _observe.Observer | None = None,
        peer: Any = None,
    ) -> None:
        self.observer = observer
        self.peer = peer  # the request's URL (text or the client's URL object): its host, for telemetry
        self.policy = policy
        self.guard = guard if key is not None else None
        self.key = key
        self.call = call if call is not None else Call()
        # The hop has begun: the call awaits no redirect until this hop answers one
        # (`Call.answered`), so a call that ends any other way (a final response, an
        # exception) is never continued.
        self.call.redirected = False
        self.attempt = 0
        self.reason = ""
        self.too_long = False

    @property
    def clock(self) -> Clock:
        """The policy's clock: every sleep is taken on it."""
        return self.policy.clock

    def start(self) -> None:
        """Count an attempt; before the first, ask the guard."""
        if self.attempt == 0 and self.guard is not None:
            try:
                self.guard.check(self.key)
            except GuardRefused as refused:
                observer = _observe.observer(self.observer)
                if observer is not None:
                    observer.event("guard_refused", "an identical request ended give_up", refused.fault)
                raise
        self.attempt += 1
        self.call.sends += 1

    def failed(self, fault: Fault, replayable: bool = True) -> float | None:
        """The sleep before the next attempt, or None to stop with `fault`."""
        sleep = self._failed(fault, replayable)
        observer = _observe.observer(self.observer)
        if observer is not None:  # telemetry: the fault read, on the span current at the request
            origin = fault.origin
            host = _host(self.peer)
            where = ("server.address", host) if host else None
            observer.fault(fault, "client", origin.dialect if origin is not None else None, sleep is None, status=fault.status, sleep=sleep, where=where)
            if self.too_long:
                observer.event("wait_too_long", self.reason, fault)
        return sleep

    def resending(self) -> Any:
        """The observer and the span at the shell's level, when a resend is to be
        recorded (the attempt about to start is not the first), else None."""
        if self.attempt < 2:
            return None
        observer = _observe.observer(self.observer)
        return None if observer is None else (observer, observer.outer())

    def _failed(self, fault: Fault, replayable: bool) -> float | None:
        if self.guard is not None:
            self.guard.record(self.key, fault)
        self.call.failures += 1
        decision = self.policy.decide(fault, self.call.failures)
        delay = fault.retry_after_seconds if fault.next_step == NextStep.WAIT else None
        # Said apart from decide()'s reason: a wait too long to sleep through is given up
        # explicitly (WaitTooLong) even when the budget would also have stopped it.
        self.too_long = not decision.retry and delay is not None and delay > self.policy.max_sleep
        if decision.retry and not replayable:
            self.reason = NOT_REPLAYABLE
            return None
        if not decision.retry:
            self.reason = decision.reason
            return None
        self.call.slept += decision.sleep
        return decision.sleep

    def calls(self) -> int:
        """Calls made so far (every hop of the user-level call)."""
        return self.call.sends

    def note(self) -> str:
        """The note a stopped request's exception carries (as `RetryPolicy.call` writes it)."""
        calls = self.calls()
        return f"errconv.retry: stopped after {calls} call{'s' if calls != 1 else ''}: {self.reason}"


def _host(url: Any) -> str | None:
    """The host of a request's URL (httpx's `URL.host`, else parsed from the text)."""
    host = _attr(url, "host")
    if isinstance(host, str):
        return host or None
    try:
        return urllib.parse.urlsplit(str(url)).hostname if url is not None else None
    except ValueError:
        return None


async def sleep_async(clock: Clock, seconds: float) -> None:
    """Wait `seconds` on `clock` without blocking the event loop: the real clock's wait
    is the running loop's own sleep (anyio's when present, so trio works too); another
    clock's `sleep` is called, and awaited when it returns an awaitable (a
    VirtualClock's returns at once, having recorded the sleep)."""
    if isinstance(clock, SystemClock):
        try:
            import anyio
        except ImportError:  # httpx needs anyio; a client that does not gets asyncio's
            await asyncio.sleep(seconds)
        else:
            await anyio.sleep(seconds)
        return
    sleep: Any = clock.sleep  # a clock of asyncio may return an awaitable
    result = sleep(seconds)
    if inspect.isawaitable(result):
        await result


def request_of_error(error: BaseException) -> Any:
    """The request behind an HTTP client's status error, or None."""
    response = _attr(error, "response")
    return _attr(response, "request") or _attr(error, "request")


def replay_allowed_for(error: BaseException, always: bool) -> bool:
    """Whether the request behind `error` may be sent again (see `replay_allowed`): a
    failure with no request to read (a FaultError a function raised) is the function's
    to judge, and may be."""
    if always:
        return True
    request = request_of_error(error)
    method = _attr(request, "method")
    if not isinstance(method, str):
        return True
    return replay_allowed(method, _attr(request, "headers"), False)


def key_of_error(error: BaseException) -> Hashable | None:
    """The guard's key for the request behind an HTTP client's status error (its
    response's request: httpx's `Request`, requests' `PreparedRequest`), else None."""
    # Every attribute read guarded: httpx raises RuntimeError for a response built
    # without a request and RequestNotRead for a streamed upload, and an exception a
    # tool raised may carry anything. No key means the request is not guarded.
    response = _attr(error, "response")
    request = _attr(response, "request") or _attr(error, "request")
    method, url = _attr(request, "method"), _attr(request, "url")
    if not isinstance(method, str) or url is None:
        return None
    try:
        text = str(url)
    except Exception:
        return None
    body = _attr(request, "content")
    if body is None:
        body = _attr(request, "body")
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    if body is None:
        body = b""
    return guard_key(method, text, body) if isinstance(body, bytes) else None
