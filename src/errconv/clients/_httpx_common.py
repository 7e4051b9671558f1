"""The httpx transports' work, for httpx and httpx2 alike (the same API, imported
under two names): `errconv.clients.httpx` and `errconv.clients.httpx2` each bind it
to their library in a few lines, so the two cannot drift apart."""

from __future__ import annotations

from typing import Any, ClassVar

from .._model.limits import Limits
from ..retry import RetryPolicy, TerminalGuard
from ._core import (
    Attempts,
    Call,
    configure,
    cut_fault,
    fault_of_response,
    fill,
    guard_key,
    is_error_status,
    message,
    read_bounded,
    read_bounded_async,
    replay_allowed,
    sleep_async,
    transport_fault,
)

__all__ = ["AsyncTransportMixin", "TransportMixin", "init_error"]

# Where the fault of a stopped request is left for the caller who gets the response.
FAULT_EXTENSION = "errconv.fault"
# Where a user-level call's budget rides from one redirect hop to the next: httpx
# builds each redirect request with a copy of the previous one's extensions.
CALL_EXTENSION = "errconv.call"
# Set (to the bytes kept) on a response whose error body was cut at Limits.max_bytes.
CUT_EXTENSION = "errconv.body_cut"


def init_error(error: Any, fault: Any, request: Any, response: Any, calls: int, reason: str) -> None:
    """Fill an error that is both the library's HTTPStatusError and a StoppedError.

    Neither base's __init__ runs: httpx's calls super().__init__(message), which the
    MRO would route into FaultError's with a string.
    """
    Exception.__init__(error, message(fault, calls, reason))
    error.request = request
    fill(error, fault, response=response, calls=calls, reason=reason)


class _Common:
    """Configuration and the stopping rules, shared by the sync and async transports."""

    lib: ClassVar[Any]  # the httpx module the subclass binds to
    stopped_error: ClassVar[Any]  # its FaultHTTPStatusError
    too_long_error: ClassVar[Any]  # its WaitTooLongError

    def _configure(
        self,
        retry: RetryPolicy | None,
        guard: TerminalGuard | None,
        retry_non_idempotent: bool,
        raise_for_status: bool,
        limits: Limits | None = None,
        telemetry: bool = False,
    ) -> None:
        configure(self, retry, guard, retry_non_idempotent, raise_for_status, limits, telemetry)

    def _plan(self, request: Any) -> tuple[Attempts, bool]:
        """The request's Attempts (on its user-level call's budget), and whether it may be sent again."""
        try:
            body: bytes | None = request.content
        except self.lib.RequestNotRead:
            # A redirect hop carries its body as the stream of the request it follows,
            # unread: in memory (a ByteStream), so read it; anything else is a streamed
            # upload, gone once sent.
            body = request.read() if isinstance(request.stream, self.lib.ByteStream) else None
        url = str(request.url)
        replayable = body is not None and replay_allowed(request.method, request.headers, self.retry_non_idempotent)
        call = request.extensions.get(CALL_EXTENSION)
        if not (isinstance(call, Call) and call.continued_by(request)):
            call = Call()
            request.extensions[CALL_EXTENSION] = call
        attempts = Attempts(self.retry, self.guard, guard_key(request.method, url, body), call, observer=self.observer, peer=request.url)
        return attempts, replayable

    def _returned(self, request: Any, response: Any, attempts: Attempts) -> Any:
        """`response`, the hop's last: a redirect lets the call go on to its next hop."""
        attempts.call.answered(request, bool(response.has_redirect_location))
        return response

    def _cut(self, response: Any, body: bytes) -> Any:
        """The fault of `response`, whose body the transport read no further than the
        limit and closed: `body` is what the caller gets as its content."""
        # httpx has no public way to give a response a body other than its stream's;
        # `_content` is where its own read() keeps it, and read(), `.content` and
        # iter_bytes() all serve it from there.
        response._content = body
        response.extensions[CUT_EXTENSION] = len(body)
        return cut_fault(response.status_code, response.headers, self.limits)

    def _no_response(self, error: Exception) -> tuple[Any, bool] | None:
        """The fault of a request that got no response, and whether it certainly never
        reached the server; None for an error that no repetition can help."""
        lib = self.lib
        if isinstance(error, (lib.ConnectError, lib.ConnectTimeout)):
            return transport_fault(connect=True, timeout=isinstance(error, lib.ConnectTimeout)), True
        if isinstance(error, lib.TimeoutException):
            return transport_fault(connect=False, timeout=True), False
        if isinstance(error, (lib.NetworkError, lib.RemoteProtocolError)):
            return transport_fault(connect=False, timeout=False), False
        return None

    def _stop(self, request: Any, response: Any, fault: Any, attempts: Attempts) -> Any:
        """The last response, or the error that says why it is the last."""
        response.extensions[FAULT_EXTENSION] = fault
        if attempts.too_long:
            error = self.too_long_error(fault, request=request, response=response, calls=attempts.calls(), reason=attempts.reason)
            raise error
        if self.raise_for_status:
            raise self.stopped_error(fault, request=request, response=response, calls=attempts.calls(), reason=attempts.reason)
        return response

    def _describe(self) -> str:
        return f"retry={self.retry!r}, guard={self.guard!r}, retry_non_idempotent={self.retry_non_idempotent}, raise_for_status={self.raise_for_status}"

    limits: Limits
    retry: RetryPolicy
    guard: TerminalGuard | None
    retry_non_idempotent: bool
    raise_for_status: bool
    observer: Any


# Telemetry of a resend: httpcore calls a request's `trace` extension inside the attempt,
# where the span OpenTelemetry's httpx instrumentation opened for that attempt is
# current (when it wraps the transport errconv's wraps), so the resend count and the wait
# before it land on the attempt's own span; with no span of its own, on the outer one as
# an event. Any `trace` the caller set is called too, and put back after.


def _resend_trace(request: Any, count: int, delay: float | None, resend: Any) -> tuple[Any, list[bool]]:
    observer, outer = resend
    previous = request.extensions.get("trace")
    told = [False]

    def trace(name: str, info: Any) -> None:
        if not told[0]:
            told[0] = True
            observer.resend(count, delay, outer)
        if previous is not None:
            previous(name, info)

    async def atrace(name: str, info: Any) -> None:
        if not told[0]:
            told[0] = True
            observer.resend(count, delay, outer)
        if previous is not None:
            await previous(name, info)

    return (previous, (trace, atrace)), told


def _restore(request: Any, previous: Any, told: list[bool], count: int, delay: float | None, resend: Any) -> None:
    if previous is None:
        request.extensions.pop("trace", None)
    else:
        request.extensions["trace"] = previous
    if not told[0]:  # an inner transport that is no httpcore pool: said on the outer span
        resend[0].resend(count, delay, resend[1])


class TransportMixin(_Common):
    """`handle_request` for a sync transport wrapping `self.inner`."""

    inner: Any

    def handle_request(self, request: Any) -> Any:
        """Send `request` through the wrapped transport, repeating it as the policy says."""
        attempts, replayable = self._plan(request)
        slept = None
        while True:
            attempts.start()
            resend = attempts.resending()
            try:
                if resend is None:
                    response = self.inner.handle_request(request)
                else:
                    (previous, (trace, _)), told = _resend_trace(request, attempts.attempt - 1, slept, resend)
                    request.extensions["trace"] = trace
                    try:
                        response = self.inner.handle_request(request)
                    finally:
                        _restore(request, previous, told, attempts.attempt - 1, slept, resend)
            except Exception as error:
                found = self._no_response(error)
                if found is None:
                    raise
                fault, unsent = found
                sleep = attempts.failed(fault, replayable or unsent)
                if sleep is None:
                    error.add_note(attempts.note())
                    raise
                attempts.clock.sleep(sleep)
                slept = sleep
                continue
            if not is_error_status(response.status_code):
                return self._returned(request, response, attempts)
            fault = self._read(response)  # the body says what to do; the caller still gets it
            sleep = attempts.failed(fault, replayable)
            if sleep is None:
                return self._stop(request, response, fault, attempts)
            response.close()
            attempts.clock.sleep(sleep)
            slept = sleep

    def _read(self, response: Any) -> Any:
        """The fault of an error response, its body read up to the limit and no further."""
        body, cut = read_bounded(response.iter_bytes(), self.limits.max_bytes, lambda: response.num_bytes_downloaded)
        if not cut:
            response._content = body  # read to its end: what read() would have kept
            return fault_of_response(response, self.limits)
        response.close()  # the rest is never read: the connection goes, not the memory
        return self._cut(response, body)

    def close(self) -> None:
        """Close the wrapped transport."""
        self.inner.close()


class AsyncTransportMixin(_Common):
    """`handle_async_request` for an async transport wrapping `self.inner`."""

    inner: Any

    async def handle_async_request(self, request: Any) -> Any:
        """Send `request` through the wrapped transport, repeating it as the policy says;
        every sleep is awaited, never blocking the loop."""
        attempts, replayable = self._plan(request)
        slept = None
        while True:
            attempts.start()
            resend = attempts.resending()
            try:
                if resend is None:
                    response = await self.inner.handle_async_request(request)
                else:
                    (previous, (_, atrace)), told = _resend_trace(request, attempts.attempt - 1, slept, resend)
                    request.extensions["trace"] = atrace
                    try:
                        response = await self.inner.handle_async_request(request)
                    finally:
                        _restore(request, previous, told, attempts.attempt - 1, slept, resend)
            except Exception as error:
                found = self._no_response(error)
                if found is None:
                    raise
                fault, unsent = found
                sleep = attempts.failed(fault, replayable or unsent)
                if sleep is None:
                    error.add_note(attempts.note())
                    raise
                await sleep_async(attempts.clock, sleep)
                slept = sleep
                continue
            if not is_error_status(response.status_code):
                return self._returned(request, response, attempts)
            fault = await self._aread(response)
            sleep = attempts.failed(fault, replayable)
            if sleep is None:
                return self._stop(request, response, fault, attempts)
            await response.aclose()
            await sleep_async(attempts.clock, sleep)
            slept = sleep

    async def _aread(self, response: Any) -> Any:
        """The fault of an error response, its body read up to the limit and no further."""
        body, cut = await read_bounded_async(response.aiter_bytes(), self.limits.max_bytes, lambda: response.num_bytes_downloaded)
        if not cut:
            response._content = body  # read to its end: what aread() would have kept
            return fault_of_response(response, self.limits)
        await response.aclose()  # the rest is never read: the connection goes, not the memory
        return self._cut(response, body)

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self.inner.aclose()
