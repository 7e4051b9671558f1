"""errconv for stamina: a backoff hook that returns the stated delay.

    import stamina, errconv.clients.stamina
    from errconv.retry import RetryPolicy

    @stamina.retry(on=errconv.clients.stamina.backoff_hook(retry=RetryPolicy(max_sleep=300)), attempts=8, timeout=None)
    def fetch():
        httpx.get(url).raise_for_status()

stamina's `on=` hook gets each exception and returns False (re-raise it), True (retry
after stamina's backoff) or a delay (retry after exactly that). The hook reads the
fault (a FaultError's own, or from the response an HTTP client's status error carries,
body and headers) and asks `RetryPolicy.decide`:

- a wait with a stated delay returns the delay (stamina then sleeps exactly that);
- a wait with none returns True: stamina's own jittered backoff;
- a fix_request, a give_up, or an exception with no response returns False;
- so does a wait on a request that is not idempotent (POST, PATCH) and carries no
  `Idempotency-Key` (as the transports refuse it), unless `retry_non_idempotent=True`;
- a wait longer than the policy's `max_sleep` raises `errconv.clients.WaitTooLong`
  (`.fault`, `.retry_after_seconds`) from the failure: given up at once.

stamina counts the attempts (`attempts=`, `timeout=`) and takes the sleeps itself; the
hook sees one exception at a time, so the policy's budget and clock are stamina's there.
With `guard=TerminalGuard()`, a give_up is recorded against its request.

Needs stamina (`pip install 'errconv[stamina]'`).
"""

from __future__ import annotations

from collections.abc import Callable

from .._extras import require

require("stamina", package="stamina", extra="stamina", what="errconv.clients.stamina")  # now rather than at the first retry

from ..codes import NextStep
from ..retry import RetryPolicy, TerminalGuard
from ._core import WaitTooLong, fault_of_exception, key_of_error, replay_allowed_for

__all__ = ["backoff_hook"]


def backoff_hook(
    *, retry: RetryPolicy | None = None, guard: TerminalGuard | None = None, retry_non_idempotent: bool = False
) -> Callable[[Exception], bool | float]:
    """stamina's `on=` hook, deciding through `retry` (see the module)."""
    policy = retry if retry is not None else RetryPolicy()

    def hook(error: Exception) -> bool | float:
        fault = fault_of_exception(error)
        if fault is None:
            return False
        if guard is not None:
            key = key_of_error(error)
            if key is not None:
                guard.record(key, fault)
        # Attempt 1: stamina counts attempts itself; the budget is its `attempts=`.
        decision = policy.decide(fault, 1)
        delay = fault.retry_after_seconds if fault.next_step == NextStep.WAIT else None
        if delay is not None and delay > policy.max_sleep:
            raise WaitTooLong(fault, response=getattr(error, "response", None), reason=decision.reason) from error
        if not decision.retry or not replay_allowed_for(error, retry_non_idempotent):
            return False
        return float(delay) if delay is not None else True

    hook.__qualname__ = hook.__name__ = "errconv_backoff_hook"
    return hook


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
