"""errconv for tenacity: a `wait` and a `retry` strategy that read the fault.

    import tenacity, errconv.clients.tenacity as ect
    from errconv.retry import RetryPolicy

    policy = RetryPolicy(max_sleep=300)
    for attempt in tenacity.Retrying(wait=ect.wait_fault(retry=policy), retry=ect.retry_if_fault(retry=policy),
                                     sleep=policy.clock.sleep, reraise=True):
        with attempt:
            httpx.get(url).raise_for_status()

`ect.retrying(retry=policy)` builds that `Retrying`. The fault comes from the
exception: a FaultError's own, or from the response an HTTP client's status error
carries (`httpx.HTTPStatusError`, `requests.HTTPError`, an SDK's `APIStatusError`),
read with `errconv.from_http`, body and headers. The decision is `RetryPolicy.decide`
with tenacity's attempt number, so the policy's budget, backoff and `max_sleep` hold:

- `retry_if_fault` is true for a wait the policy repeats; false for a fix_request, a
  give_up, a spent budget and any exception that carries no response (combine it with
  tenacity's own, `retry_if_fault(...) | retry_if_exception_type(httpx.TransportError)`,
  to retry those as well); for a wait longer than `max_sleep` it raises
  `errconv.clients.WaitTooLong` (`.fault`, `.retry_after_seconds`) from the failure;
- `wait_fault` is the stated delay, or the policy's backoff step when none is stated;
- a request that is not idempotent (POST, PATCH) and carries no `Idempotency-Key` is
  not repeated (as the transports refuse it), unless `retry_non_idempotent=True`
  says it may be; a failure with no request to read (a FaultError your function
  raised) is yours to judge, and is repeated as the policy says.

With `guard=TerminalGuard()`, a give_up is recorded against its request (method, URL,
body), for a `errconv.clients.httpx.Transport` or `requests.Adapter` sharing the guard to
refuse.

Needs tenacity (`pip install 'errconv[tenacity]'`).
"""

from __future__ import annotations

from typing import Any

from .._extras import require

require("tenacity", package="tenacity", extra="tenacity", what="errconv.clients.tenacity")
import tenacity  # noqa: E402 - after the check that names the extra

from ..codes import NextStep
from ..retry import RetryPolicy, TerminalGuard
from ._core import WaitTooLong, fault_of_exception, key_of_error, replay_allowed_for

__all__ = ["retry_if_fault", "retrying", "wait_fault"]


def _failure(retry_state: tenacity.RetryCallState) -> BaseException | None:
    outcome = retry_state.outcome
    if outcome is None or not outcome.failed:
        return None
    return outcome.exception()


class wait_fault(tenacity.wait.wait_base):  # noqa: N801 - tenacity's strategies are lower-case
    """Wait what the fault states (or the policy's backoff step when it states no delay)."""

    def __init__(self, *, retry: RetryPolicy | None = None) -> None:
        self.policy = retry if retry is not None else RetryPolicy()

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        error = _failure(retry_state)
        fault = fault_of_exception(error) if error is not None else None
        if fault is None:
            return 0.0
        decision = self.policy.decide(fault, retry_state.attempt_number)
        return decision.sleep if decision.retry else 0.0


class retry_if_fault(tenacity.retry_base):  # noqa: N801
    """Retry a failure whose fault the policy repeats; raise `WaitTooLong` for a wait
    longer than the policy's `max_sleep`."""

    def __init__(self, *, retry: RetryPolicy | None = None, guard: TerminalGuard | None = None, retry_non_idempotent: bool = False) -> None:
        self.policy = retry if retry is not None else RetryPolicy()
        self.guard = guard
        self.retry_non_idempotent = retry_non_idempotent

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        error = _failure(retry_state)
        fault = fault_of_exception(error) if error is not None else None
        if error is None or fault is None:
            return False
        if self.guard is not None:
            key = key_of_error(error)
            if key is not None:
                self.guard.record(key, fault)
        decision = self.policy.decide(fault, retry_state.attempt_number)
        delay = fault.retry_after_seconds if fault.next_step == NextStep.WAIT else None
        if delay is not None and delay > self.policy.max_sleep:
            raise WaitTooLong(
                fault, response=getattr(error, "response", None), calls=retry_state.attempt_number, reason=decision.reason
            ) from error
        return decision.retry and replay_allowed_for(error, self.retry_non_idempotent)


def retrying(
    *, retry: RetryPolicy | None = None, guard: TerminalGuard | None = None, retry_non_idempotent: bool = False, **kwargs: Any
) -> tenacity.Retrying:
    """A `tenacity.Retrying` driven by the policy: its wait, its retry rule, its clock's
    sleep, and the last exception re-raised as it was (`reraise=True`). `kwargs` go to
    `Retrying` (a `before_sleep` logger, say)."""
    policy = retry if retry is not None else RetryPolicy()
    kwargs.setdefault("reraise", True)
    rule = retry_if_fault(retry=policy, guard=guard, retry_non_idempotent=retry_non_idempotent)
    return tenacity.Retrying(wait=wait_fault(retry=policy), retry=rule, sleep=policy.clock.sleep, **kwargs)


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
