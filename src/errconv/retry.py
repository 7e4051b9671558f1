"""The caller's side of the contract: how long to wait, when to stop, what not to send again.

Written once and shared by everything in errconv that calls on someone's behalf
(`errconv simulate` now, the gRPC client interceptor later):

- `RetryPolicy` turns a `Fault` into a `Decision`: a `wait` sleeps the delay it was
  given, or a backoff step when it was given none; `fix_request` and `give_up` are
  never repeated; a budget caps the number of calls. `policy.call(fn, ...)` runs a
  callable under the policy.
- `TerminalGuard` remembers calls that ended `give_up` and refuses an identical
  repeat with `GuardRefused`, so a harness can stop a model that retries a terminal
  failure anyway (seed 000: "belt and braces").
- Time comes from a clock: any object with `now()` and `sleep(seconds)`. The default
  is the real one; tests and the simulator pass a `VirtualClock`, on which a thirty
  second wait costs nothing and the counts are exact.

>>> from errconv import Fault
>>> clock = VirtualClock()
>>> policy = RetryPolicy(clock=clock)
>>> policy.decide(Fault.build(status=503, next_step="wait", retry_after_seconds=30), attempt=1)
Decision(retry=True, sleep=30.0, reason='wait 30 s, as the fault says')
>>> policy.decide(Fault.build(status=400, param="currency"), attempt=1).retry
False
"""

from __future__ import annotations

import collections
import hashlib
import random
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

import msgspec

from ._model.errors import FaultError
from .codes import NextStep
from ._model.fault import Fault
from ._model.limits import MAX_RETRY_AFTER_SECONDS

__all__ = [
    "Clock",
    "Decision",
    "GuardRefused",
    "RetryPolicy",
    "SystemClock",
    "TerminalGuard",
    "VirtualClock",
]

T = TypeVar("T")

DEFAULT_BACKOFF: tuple[float, ...] = (1, 2, 4, 8, 16)
# The longest sleep a policy takes in-process by default. A delay longer than this is
# not slept through (a daily quota should be rescheduled, not waited on by a thread);
# the policy stops and says why, rather than retrying early and hammering.
DEFAULT_MAX_SLEEP = 300.0


# --------------------------------------------------------------------------- clocks


@runtime_checkable
class Clock(Protocol):
    """Where a policy gets the time and how it waits."""

    def now(self) -> float:
        """Seconds on this clock (only differences matter)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait `seconds`."""
        ...


class SystemClock:
    """The real clock: `time.monotonic()` and `time.sleep()`."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


class VirtualClock:
    """A clock that only moves when slept on, for tests and the simulator.

    `sleeps` records every sleep, in order.

    >>> clock = VirtualClock()
    >>> clock.sleep(30); clock.sleep(2.5)
    >>> clock.now(), clock.sleeps
    (32.5, [30, 2.5])
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self._now

    def sleep(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"cannot sleep a negative time, got {seconds}")
        self.sleeps.append(seconds)
        self._now += seconds

    def advance(self, seconds: float) -> None:
        """Move the clock on without recording a sleep (time passing elsewhere)."""
        if seconds < 0:
            raise ValueError(f"a clock does not go back, got {seconds}")
        self._now += seconds

    @property
    def slept(self) -> float:
        """The total of every sleep so far."""
        return sum(self.sleeps)

    def __repr__(self) -> str:
        return f"VirtualClock(now={self._now:g})"


# --------------------------------------------------------------------------- the policy


@dataclass(frozen=True)
class Decision:
    """What to do after a failed call: repeat it after `sleep` seconds, or stop.

    `reason` is one line for a log or a person, saying why.
    """

    retry: bool
    sleep: float
    reason: str


class RetryPolicy:
    """How a caller that honours the contract retries.

    - `wait`: sleep `retry_after_seconds`, or `backoff[attempt - 1]` (the last step
      repeating) when the fault gave no delay, then repeat the identical call;
    - `fix_request` and `give_up`: never repeat;
    - `budget` counts calls, the first one included: `budget=8` makes at most 8;
    - a stated delay longer than `max_sleep` is not slept through: the policy stops
      (retrying earlier than told is the hammering this contract exists to prevent);
      a backoff step is capped at `max_sleep`;
    - `jitter=True` spreads callers that failed together: a backoff step becomes a
      random time between half the step and the step; a stated delay gets up to 10%
      more, never less, because the server said "at least". `rng` makes it
      reproducible.

    Args:
        budget: the most calls to make, at least 1.
        backoff: the sleeps, in seconds, for waits that carry no delay.
        max_sleep: the longest single sleep the policy will take.
        jitter: randomise sleeps as described above.
        clock: where time comes from; the real clock by default.
        rng: the random source for jitter.
    """

    def __init__(
        self,
        budget: int = 8,
        backoff: Sequence[float] = DEFAULT_BACKOFF,
        max_sleep: float = DEFAULT_MAX_SLEEP,
        jitter: bool = False,
        clock: Clock | None = None,
        *,
        rng: random.Random | None = None,
    ) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"budget counts calls and must be a whole number of at least 1, got {budget!r}")
        steps = tuple(float(s) for s in backoff)
        if not steps or any(s < 0 for s in steps):
            raise ValueError(f"backoff must be one or more non-negative numbers of seconds, got {tuple(backoff)!r}")
        if max_sleep < 0:
            raise ValueError(f"max_sleep must not be negative, got {max_sleep!r}")
        self.budget = budget
        self.backoff = steps
        self.max_sleep = float(max_sleep)
        self.jitter = jitter
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._rng = rng if rng is not None else random.Random()

    def __repr__(self) -> str:
        return (
            f"RetryPolicy(budget={self.budget}, backoff={self.backoff}, max_sleep={self.max_sleep:g}, "
            f"jitter={self.jitter}, clock={self.clock!r})"
        )

    def decide(self, fault: Fault, attempt: int) -> Decision:
        """What to do after call number `attempt` (1 for the first call) failed with `fault`."""
        if attempt < 1:
            raise ValueError(f"attempt counts calls from 1, got {attempt}")
        step = fault.next_step
        if step == NextStep.FIX_REQUEST:
            what = f"change {fault.param}" if fault.param else "the fault names no parameter"
            return Decision(False, 0.0, f"fix_request: repeating the same arguments cannot succeed ({what})")
        if step != NextStep.WAIT:
            # give_up, and a fault that states nothing at all: a bug does not clear with time.
            return Decision(False, 0.0, f"{step or 'no next step'}: this call will not succeed if repeated")
        if attempt >= self.budget:
            return Decision(False, 0.0, f"budget spent: {attempt} of {self.budget} calls made")
        if fault.retry_after_seconds is not None:
            delay = float(min(fault.retry_after_seconds, MAX_RETRY_AFTER_SECONDS))
            if delay > self.max_sleep:
                return Decision(False, 0.0, f"wait {delay:g} s is longer than max_sleep {self.max_sleep:g} s; reschedule the call")
            if self.jitter:
                delay = min(delay * (1 + 0.1 * self._rng.random()), max(delay, self.max_sleep))
            return Decision(True, delay, f"wait {delay:g} s, as the fault says")
        index = min(attempt, len(self.backoff)) - 1
        delay = min(self.backoff[index], self.max_sleep)
        if self.jitter:
            delay = delay / 2 + self._rng.random() * delay / 2
        return Decision(True, delay, f"wait {delay:g} s, backoff step {index + 1}: the fault gave no delay")

    def call(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """Call `fn(*args, **kwargs)` until it returns or the policy stops.

        `fn` signals failure by raising `errconv.FaultError`; any other exception
        propagates at once. When the policy stops, the last FaultError is raised
        again, with a note saying how many calls were made and why it stopped.
        """
        attempt = 0
        while True:
            attempt += 1
            try:
                return fn(*args, **kwargs)
            except FaultError as exc:
                decision = self.decide(exc.fault, attempt)
                if not decision.retry:
                    exc.add_note(f"errconv.retry: stopped after {attempt} call{'s' if attempt > 1 else ''}: {decision.reason}")
                    raise
            self.clock.sleep(decision.sleep)


# --------------------------------------------------------------------------- the guard


class GuardRefused(FaultError):
    """An identical repeat of a call that ended `give_up`, refused before it was sent.

    Carries the original fault (`.fault`), the caller's `.key`, and `.refused`
    (always True) so a handler that catches FaultError can tell a refusal from a
    fresh failure.
    """

    refused = True

    def __init__(self, key: Hashable, fault: Fault) -> None:
        super().__init__(fault)
        self.key = key
        self.args = (f"refused: an identical call already ended give_up ({self.args[0]})",)


class TerminalGuard:
    """Remembers calls that ended `give_up` and refuses identical repeats.

    Keys are the caller's: anything hashable that is equal for identical calls,
    e.g. the method name and the serialized request. Memory is bounded in entries
    and in bytes: past `max_entries` the least recently recorded key is forgotten,
    and a key made of strings, bytes, numbers, None and tuples of them (every key
    errconv makes: a tool's name and its arguments' canonical text, an HTTP request's
    method, URL and body digest) is held as its 16-byte BLAKE2b digest, not as
    itself, so 1,024 entries cost 1,024 digests whatever the arguments weighed
    (numbers by value, as `==` compares them: 1, 1.0 and True are one key). Any other
    hashable key is held as given. A key of None is never remembered. The fault kept
    with a key is the one recorded, unless it is large (over 16 KiB as JSON, a body
    of a megabyte read into extension members): then a copy with what a refusal says
    (status, codes, the move, the delay, param, the first violations and
    alternatives, strings cut at 2,000 characters) and without the extension
    members, metadata, details and origin. With `ttl`, an
    entry is forgotten `ttl` seconds after it was recorded, since a terminal answer
    can go stale (a suspended account is reinstated). Safe to share between threads.

    >>> guard = TerminalGuard()
    >>> guard.record(("Transfer", b"..."), Fault.build(status=403, code="account_suspended"))
    True
    >>> guard.check(("Transfer", b"..."))
    Traceback (most recent call last):
    ...
    errconv.retry.GuardRefused: refused: an identical call already ended give_up (account_suspended)
    """

    def __init__(self, max_entries: int = 1024, ttl: float | None = None, clock: Clock | None = None) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ValueError(f"max_entries must be a whole number of at least 1, got {max_entries!r}")
        if ttl is not None and ttl <= 0:
            raise ValueError(f"ttl must be a positive number of seconds or None, got {ttl!r}")
        self.max_entries = max_entries
        self.ttl = ttl
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._entries: collections.OrderedDict[Hashable, tuple[Fault, float]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def remembers(self, fault: Fault) -> bool:
        """Whether `record` keeps a call that ended in `fault`: a give_up. Other faults
        are not remembered: a wait may clear, and a fix_request is followed by a
        different request, which has a different key. (A subclass widens this, not
        `record`: the bounded, thread-safe store stays one.)"""
        return fault.next_step == NextStep.GIVE_UP

    @staticmethod
    def _slot(key: Hashable) -> Hashable:
        """What the store holds for `key`: its digest when it is made of plain values
        (see the class), else the key itself."""
        parts: list[bytes] = []
        if not _digestible(key, parts, 0):
            return key
        return _Digest(hashlib.blake2b(b"".join(parts), digest_size=16).digest())

    def record(self, key: Hashable, fault: Fault) -> bool:
        """Remember `key` if `remembers(fault)` (a give_up); returns whether it was remembered."""
        if key is None or not self.remembers(fault):
            return False
        slot = self._slot(key)
        kept = _kept(fault)
        with self._lock:
            self._entries[slot] = (kept, self.clock.now())
            self._entries.move_to_end(slot)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return True

    def check(self, key: Hashable) -> None:
        """Raise `GuardRefused` if `key` ended give_up and has not been forgotten."""
        slot = self._slot(key)
        with self._lock:
            entry = self._entries.get(slot)
            if entry is None:
                return
            fault, recorded = entry
            if self.ttl is not None and self.clock.now() - recorded >= self.ttl:
                del self._entries[slot]
                return
        raise GuardRefused(key, fault)

    def forget(self, key: Hashable) -> None:
        """Drop `key`, e.g. after the condition that blocked it was changed."""
        slot = self._slot(key)
        with self._lock:
            self._entries.pop(slot, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __repr__(self) -> str:
        return f"TerminalGuard(max_entries={self.max_entries}, ttl={self.ttl}, entries={len(self)})"


# A fault larger than this (as JSON) is kept by the guard as a smaller copy.
_FAULT_BYTES = 16 * 1024
_KEPT_STRING = 2000
_KEPT_ITEMS = 16


def _kept(fault: Fault) -> Fault:
    """The fault a guard entry keeps: `fault`, or its smaller copy when it is large."""
    try:
        size = len(msgspec.json.encode(fault))
    except Exception:  # a value msgspec cannot write (an extension object): judge it large
        size = _FAULT_BYTES + 1
    if size <= _FAULT_BYTES:
        return fault

    def cut(text: str | None) -> str | None:
        return text if text is None or len(text) <= _KEPT_STRING else text[: _KEPT_STRING - 3] + "..."  # ASCII: a non-ASCII mark would double the string's width

    violations = tuple(
        msgspec.structs.replace(v, field=cut(v.field) or "", description=cut(v.description) or "", localized_message=None)
        for v in fault.violations[:_KEPT_ITEMS]
    )
    small = [a for a in fault.alternatives[:_KEPT_ITEMS] if _small(a)]
    return msgspec.structs.replace(
        fault,
        title=cut(fault.title),
        detail=cut(fault.detail),
        type=cut(fault.type),
        instance=cut(fault.instance),
        code=cut(fault.code),
        domain=cut(fault.domain),
        param=cut(fault.param),
        blocked_by=cut(fault.blocked_by),
        unblock_with=cut(fault.unblock_with),
        violations=violations,
        alternatives=tuple(small),
        alternatives_truncated=fault.alternatives_truncated or len(small) < len(fault.alternatives),
        metadata={},
        details=(),
        extensions={},
        origin=None,
    )


def _small(value: object) -> bool:
    try:
        return len(msgspec.json.encode(value)) <= _KEPT_STRING
    except Exception:
        return False


class _Digest(bytes):
    """A key's digest in the guard's store: a type of its own, so that no key a caller
    gives as bytes is ever taken for the digest of another."""

    __slots__ = ()


# Deeper keys are held as given (a key errconv makes is two levels deep).
_MAX_KEY_DEPTH = 32


def _digestible(key: object, parts: list[bytes], depth: int) -> bool:
    """Append `key`'s canonical bytes to `parts` (type-tagged, length-prefixed, numbers
    by value as `==` compares them); False when it holds anything else."""
    if key is None:
        parts.append(b"N")
    elif isinstance(key, str):
        data = key.encode("utf-8", "surrogatepass")
        parts.append(b"s%d:" % len(data) + data)
    elif isinstance(key, bytes) and not isinstance(key, _Digest):
        parts.append(b"b%d:" % len(key) + bytes(key))
    elif isinstance(key, (bool, int)):
        parts.append(b"i%x;" % int(key))  # hex: no digit limit; True is 1, as == says
    elif isinstance(key, float):
        if key != key:
            parts.append(b"n")
        elif key.is_integer():
            parts.append(b"i%x;" % int(key))  # 1.0 is 1, as == says
        else:
            parts.append(b"f" + key.hex().encode("ascii") + b";")
    elif isinstance(key, tuple) and depth < _MAX_KEY_DEPTH:
        parts.append(b"t%d:" % len(key))
        return all(_digestible(item, parts, depth + 1) for item in key)
    else:
        return False
    return True


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
