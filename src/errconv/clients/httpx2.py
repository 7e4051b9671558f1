"""errconv for httpx2: `Transport` and `AsyncTransport`, which read every failed response
with `errconv.from_http` and act on its next step through `errconv.retry.RetryPolicy`.

The same code as `errconv.clients.httpx`, bound to httpx2, the fork the OpenAI and
Anthropic SDKs build on; pass a client with it to the SDK with the SDK's own retries
off, so that errconv's policy is the only loop:

    import anthropic, httpx2, errconv.clients.httpx2
    from errconv.retry import RetryPolicy
    transport = errconv.clients.httpx2.Transport(retry=RetryPolicy(max_sleep=300))
    sdk = anthropic.Anthropic(http_client=httpx2.Client(transport=transport), max_retries=0)

    client = httpx2.Client(transport=errconv.clients.httpx2.Transport(retry=RetryPolicy(max_sleep=300)))

- a wait is sent again after exactly the stated delay, wherever it is stated (the
  body's `retry_after_seconds`, RetryInfo, Retry-After, `retry-after-ms`, a spent rate
  limit), or after the policy's backoff when none is;
- a wait longer than the policy's `max_sleep` is given up at once: `WaitTooLongError`
  carries `.fault` and `.retry_after_seconds`;
- a fix_request and a give_up are never repeated; neither is a request that is not
  idempotent (POST, PATCH) unless it carries an `Idempotency-Key` or
  `retry_non_idempotent=True` says it may be;
- a timeout or a broken connection is a wait without a delay (the policy's backoff);
  a connection never made is safe to repeat for any method;
- an error body is read up to `Limits.max_bytes` (1 MiB; `limits=`) and no
  further: a longer one is cut there, its connection closed, and its fault read
  from the status and headers (`fault.origin.notes` says so;
  `response.extensions["errconv.body_cut"]` holds the bytes kept);
- one budget per call: the redirects the client follows share it
  (`follow_redirects=True`), each hop retried as the policy says, so one
  `client.get()` sleeps at most `budget - 1` times, each at most `max_sleep`;
- the last response comes back as it was, its body read and its Fault in
  `response.extensions["errconv.fault"]`; with `raise_for_status=True` it is raised
  instead as `FaultHTTPStatusError`, an `httpx2.HTTPStatusError` with `.fault`;
- with `guard=TerminalGuard()`, a request identical (method, URL, body) to one that
  ended give_up is refused before it is sent (`errconv.retry.GuardRefused`).

Needs httpx2 (`pip install 'errconv[httpx2]'`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._extras import require

require("httpx2", package="httpx2", extra="httpx2", what="errconv.clients.httpx2")
import httpx2  # noqa: E402 - after the check that names the extra

from .._model.limits import Limits
from ..retry import RetryPolicy, TerminalGuard
from ._core import StoppedError, WaitTooLong
from ._httpx_common import AsyncTransportMixin, TransportMixin, init_error

__all__ = ["AsyncTransport", "FaultHTTPStatusError", "Transport", "WaitTooLongError"]


class FaultHTTPStatusError(httpx2.HTTPStatusError, StoppedError):
    """The last failed response, raised: an `httpx2.HTTPStatusError` (`.request`,
    `.response`) that is also an `errconv.clients.StoppedError` (`.fault`, `.calls`,
    `.reason`, `.retry_after_seconds`)."""

    def __init__(self, fault: Any, *, request: httpx2.Request, response: httpx2.Response, calls: int = 1, reason: str = "") -> None:
        init_error(self, fault, request, response, calls, reason)


class WaitTooLongError(FaultHTTPStatusError, WaitTooLong):
    """A wait longer than the policy's `max_sleep`, given up after the call that
    stated it; `.retry_after_seconds` is the delay to reschedule by."""


class Transport(TransportMixin, httpx2.BaseTransport):
    """A sync httpx2 transport that acts on errconv's three moves (see the module).

    Args:
        transport: the transport that sends (default `httpx2.HTTPTransport()`).
        retry: the policy (default `RetryPolicy()`); its clock takes every sleep.
        guard: refuses repeats of requests that ended give_up.
        retry_non_idempotent: repeat a POST or PATCH without an Idempotency-Key too.
        raise_for_status: raise `FaultHTTPStatusError` instead of returning the last
            failed response.
        limits: an error body is read up to `limits.max_bytes` (default 1 MiB) and
            no further; a longer one is cut there and its connection closed.
        telemetry: record each fault read on the span current at the request and
            count it; each resend's attempt span gets `http.request.resend_count`
            (`errconv.otel`; put OpenTelemetry's httpx transport inside this one).
    """

    lib: ClassVar[Any] = httpx2
    stopped_error = FaultHTTPStatusError
    too_long_error = WaitTooLongError

    def __init__(
        self,
        transport: httpx2.BaseTransport | None = None,
        *,
        retry: RetryPolicy | None = None,
        guard: TerminalGuard | None = None,
        retry_non_idempotent: bool = False,
        raise_for_status: bool = False,
        limits: Limits | None = None,
        telemetry: bool = False,
    ) -> None:
        self.inner = transport if transport is not None else httpx2.HTTPTransport()
        self._configure(retry, guard, retry_non_idempotent, raise_for_status, limits, telemetry)

    def __repr__(self) -> str:
        return f"errconv.clients.httpx2.Transport({self.inner!r}, {self._describe()})"


class AsyncTransport(AsyncTransportMixin, httpx2.AsyncBaseTransport):
    """An async httpx2 transport that acts on errconv's three moves; takes the arguments
    of `Transport` (default inner transport `httpx2.AsyncHTTPTransport()`). Sleeps are
    awaited on the policy's clock (the event loop's sleep for the real clock)."""

    lib: ClassVar[Any] = httpx2
    stopped_error = FaultHTTPStatusError
    too_long_error = WaitTooLongError

    def __init__(
        self,
        transport: httpx2.AsyncBaseTransport | None = None,
        *,
        retry: RetryPolicy | None = None,
        guard: TerminalGuard | None = None,
        retry_non_idempotent: bool = False,
        raise_for_status: bool = False,
        limits: Limits | None = None,
        telemetry: bool = False,
    ) -> None:
        self.inner = transport if transport is not None else httpx2.AsyncHTTPTransport()
        self._configure(retry, guard, retry_non_idempotent, raise_for_status, limits, telemetry)

    def __repr__(self) -> str:
        return f"errconv.clients.httpx2.AsyncTransport({self.inner!r}, {self._describe()})"


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
