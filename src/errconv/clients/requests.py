"""errconv for requests: `Adapter`, an `HTTPAdapter` that reads every failed response
with `errconv.from_http` and acts on its next step through `errconv.retry.RetryPolicy`.

    import requests, errconv.clients.requests
    from errconv.retry import RetryPolicy

    session = requests.Session()
    adapter = errconv.clients.requests.Adapter(retry=RetryPolicy(max_sleep=300))
    session.mount("https://", adapter)
    session.mount("http://", adapter)

It does what `errconv.clients.httpx.Transport` does (see there): a wait is sent again
after exactly the stated delay, a wait longer than `max_sleep` raises
`WaitTooLongError` (`.fault`, `.retry_after_seconds`), a fix_request or a give_up is
never repeated, a POST or PATCH only with an `Idempotency-Key` or
`retry_non_idempotent=True`, and the last response comes back with its body (urllib3's
`Retry` raises `RetryError` and loses it), or is raised with `raise_for_status=True`
as `FaultHTTPError`, a `requests.HTTPError` with `.fault`. urllib3's own retries stay
off (`max_retries=0`): the policy is the only loop. An error body is read up to
`Limits.max_bytes` (1 MiB; `limits=`) and no further, `stream=True` included: a longer
one is cut there, its connection closed, its fault read from the status and headers
(`response.errconv_body_cut` holds the bytes kept). The redirects a session follows
share one call's budget: one `session.get()` sleeps at most `budget - 1` times.

stripe-python sends through a requests session of your choosing, so a session with
this adapter mounted makes Stripe's client honour Retry-After (which it never reads)
as stated; Stripe sets an Idempotency-Key on every POST, so its writes are repeated
safely:

    client = stripe.StripeClient(key, http_client=stripe.RequestsClient(session=session), max_network_retries=0)

Needs requests (`pip install 'errconv[requests]'`).
"""

from __future__ import annotations

import threading
from typing import Any

from .._extras import require

require("requests", package="requests", extra="requests", what="errconv.clients.requests")
import requests  # noqa: E402 - after the check that names the extra
import requests.adapters  # noqa: E402
import requests.exceptions  # noqa: E402
import urllib3.exceptions  # noqa: E402

from .._model.limits import Limits
from ..retry import RetryPolicy, TerminalGuard
from ._core import (
    Attempts,
    Call,
    StoppedError,
    WaitTooLong,
    configure,
    cut_fault,
    fault_of_response,
    fill,
    guard_key,
    is_error_status,
    message,
    read_bounded,
    replay_allowed,
    transport_fault,
)

__all__ = ["Adapter", "FaultHTTPError", "WaitTooLongError"]


class FaultHTTPError(requests.HTTPError, StoppedError):
    """The last failed response, raised: a `requests.HTTPError` (`.request`,
    `.response`) that is also an `errconv.clients.StoppedError` (`.fault`, `.calls`,
    `.reason`, `.retry_after_seconds`)."""

    def __init__(self, fault: Any, *, request: Any, response: requests.Response, calls: int = 1, reason: str = "") -> None:
        # Neither base's __init__: requests' pops keywords and passes the rest up the MRO.
        OSError.__init__(self, message(fault, calls, reason))
        self.request = request
        fill(self, fault, response=response, calls=calls, reason=reason)


class WaitTooLongError(FaultHTTPError, WaitTooLong):
    """A wait longer than the policy's `max_sleep`, given up after the call that
    stated it; `.retry_after_seconds` is the delay to reschedule by."""


# Where the fault of a stopped request is left on the response for the caller.
FAULT_ATTRIBUTE = "errconv_fault"
# Set (to the bytes kept) on a response whose error body was cut at Limits.max_bytes.
CUT_ATTRIBUTE = "errconv_body_cut"
# The chunk an error body is read in.
CHUNK = 64 * 1024

# Each thread's open call: requests follows a redirect on the thread that sent the
# request before it (Session.resolve_redirects), with a copy of that request sharing
# its hooks dict, so the hop finds its call here (see `Call`).
_open = threading.local()


def _call_for(request: requests.PreparedRequest) -> Call:
    """The user-level call `request` belongs to: the open one when it is its next hop."""
    call = getattr(_open, "call", None)
    if isinstance(call, Call) and call.continued_by(request, link=request.hooks):
        return call
    call = Call(link=request.hooks)
    _open.call = call
    return call


class Adapter(requests.adapters.HTTPAdapter):
    """A requests transport adapter that acts on errconv's three moves (see the module).

    Args:
        retry: the policy (default `RetryPolicy()`); its clock takes every sleep.
        guard: refuses repeats of requests (method, URL, body) that ended give_up.
        retry_non_idempotent: repeat a POST or PATCH without an Idempotency-Key too.
        raise_for_status: raise `FaultHTTPError` instead of returning the last failed
            response.
        limits: an error body is read up to `limits.max_bytes` (default 1 MiB) and no
            further; a longer one is cut there and its connection closed.
        telemetry: record each fault read on the span current at the request and count
            it; each resend is an `errconv.resend` event (`errconv.otel`).
        **kwargs: `HTTPAdapter`'s pool settings (`max_retries` must stay 0).
    """

    retry: RetryPolicy  # set by configure(), with the three below
    guard: TerminalGuard | None
    retry_non_idempotent: bool
    raise_for_status: bool
    limits: Limits
    observer: Any

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        guard: TerminalGuard | None = None,
        retry_non_idempotent: bool = False,
        raise_for_status: bool = False,
        limits: Limits | None = None,
        telemetry: bool = False,
        **kwargs: Any,
    ) -> None:
        if kwargs.get("max_retries", 0) not in (0, None):
            raise ValueError("errconv's Adapter is the retry loop: leave max_retries at 0 (urllib3 would retry underneath it)")
        kwargs["max_retries"] = 0
        configure(self, retry, guard, retry_non_idempotent, raise_for_status, limits, telemetry)
        super().__init__(**kwargs)

    def __repr__(self) -> str:
        return (
            f"errconv.clients.requests.Adapter(retry={self.retry!r}, guard={self.guard!r}, "
            f"retry_non_idempotent={self.retry_non_idempotent}, raise_for_status={self.raise_for_status})"
        )

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        """Send `request`, repeating it as the policy says; takes `HTTPAdapter.send`'s arguments."""
        body = request.body
        raw: bytes | None = body.encode("utf-8") if isinstance(body, str) else body if isinstance(body, bytes) else None
        if body is None:
            raw = b""
        method = request.method or "GET"
        call = _call_for(request)
        attempts = Attempts(self.retry, self.guard, guard_key(method, request.url or "", raw), call, observer=self.observer, peer=request.url)
        replayable = raw is not None and replay_allowed(method, request.headers, self.retry_non_idempotent)
        slept = None
        while True:
            attempts.start()
            resend = attempts.resending()
            if resend is not None:  # requests' instrumentation spans Session.send, above this loop: an event there
                resend[0].resend(attempts.attempt - 1, slept, resend[1])
            try:
                response = super().send(request, *args, **kwargs)
            except (requests.exceptions.SSLError, requests.exceptions.ProxyError, requests.exceptions.RetryError):
                raise  # no repetition helps these
            except (requests.exceptions.Timeout, requests.exceptions.ConnectionError) as error:
                unsent = _never_sent(error)
                fault = transport_fault(connect=unsent, timeout=isinstance(error, requests.exceptions.Timeout))
                sleep = attempts.failed(fault, replayable or unsent)
                if sleep is None:
                    error.add_note(attempts.note())
                    raise
                attempts.clock.sleep(sleep)
                slept = sleep
                continue
            if not is_error_status(response.status_code):
                call.answered(request, response.is_redirect)
                return response
            fault = self._read(response)  # the body says what to do, and the caller still gets it
            sleep = attempts.failed(fault, replayable)
            if sleep is None:
                setattr(response, FAULT_ATTRIBUTE, fault)
                calls, reason = attempts.calls(), attempts.reason
                if attempts.too_long:
                    raise WaitTooLongError(fault, request=request, response=response, calls=calls, reason=reason)
                if self.raise_for_status:
                    raise FaultHTTPError(fault, request=request, response=response, calls=calls, reason=reason)
                return response
            response.close()
            attempts.clock.sleep(sleep)
            slept = sleep

    def _read(self, response: requests.Response) -> Any:
        """The fault of an error response, its body read up to the limit and no further
        (`stream=True` included: the error body is the adapter's to read)."""
        raw = response.raw
        limit = self.limits.max_bytes
        downloaded = (lambda: raw.tell()) if callable(getattr(raw, "tell", None)) else None
        body, cut = read_bounded(response.iter_content(CHUNK), limit, downloaded)
        if cut:
            response.close()  # before the body is marked read: this closes the connection, the rest unread
        # requests keeps a read body here (`.content`, iter_content() and .json() serve it).
        response._content = body
        response._content_consumed = True
        if not cut:
            return fault_of_response(response, self.limits)
        setattr(response, CUT_ATTRIBUTE, len(body))
        return cut_fault(response.status_code, response.headers, self.limits)


def _never_sent(error: Exception) -> bool:
    """Whether the request certainly never reached the server (no connection was made)."""
    if isinstance(error, requests.exceptions.ConnectTimeout):
        return True
    reason = getattr(error.args[0] if error.args else None, "reason", None)
    return isinstance(reason, urllib3.exceptions.NewConnectionError)


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
