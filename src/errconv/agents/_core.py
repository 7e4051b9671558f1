"""What every agent adapter shares, and nothing framework-specific.

- `outcome(exc_or_fault)`: the pure translation, an exception (read by
  `errconv.from_exception`) or a Fault into the Fault and the text a model reads
  (`errconv.agent_message`);
- `ToolGuard`: the harness guard at the tool boundary (seed 000, "belt and braces"),
  an `errconv.retry.TerminalGuard` that also remembers waits until their delay passes;
- `call_key(tool, arguments)`: what makes two calls identical to the guard;
- `Boundary`: one tool's guard-call-translate loop, sync and async, with the framework's
  own result shape supplied by the adapter (`on_failure`); framework hooks that see a
  call's name and arguments (a PydanticAI capability) run it directly;
- `guarded(fn, ...)`: a `Boundary` around a tool function, sync or async as `fn` is:
  every adapter's `wrap`;
- `require(module, ...)`: the lazy import that names the extra when it fails.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json
import math
import re
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import errconv
from errconv import Fault, NextStep
from errconv._agent_text import redact
from errconv.retry import Clock, GuardRefused, RetryPolicy, SystemClock, TerminalGuard

from ._keys import canonical

__all__ = [
    "Boundary",
    "Outcome",
    "ToolGuard",
    "WaitRefused",
    "call_key",
    "guarded",
    "outcome",
    "problem_json",
    "refusal",
    "require",
    "resolve_guard",
    "safe_code",
]


def require(module: str, *, package: str, extra: str) -> ModuleType:
    """Import `module` now, or raise ImportError saying which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"this errconv adapter needs {package}, which is not installed: pip install 'errconv[{extra}]'") from exc


# --------------------------------------------------------------------------- the translation


@dataclass(frozen=True)
class Outcome:
    """A failed (or refused) tool call as an adapter hands it on.

    `fault` is what happened (for a refused wait, its delay is the time still left),
    `text` what the model reads, `refused` whether the guard stopped the call before
    the tool ran, and `error` the exception the tool raised, if any (never shown to the
    model: its message may hold secrets; kept so a framework can chain it in logs).
    """

    fault: Fault
    text: str
    refused: bool = False
    error: BaseException | None = field(default=None, compare=False, repr=False)

    @property
    def next_step(self) -> NextStep | None:
        """The move: fix_request, wait or give_up."""
        return self.fault.next_step


def outcome(exc_or_fault: BaseException | Fault) -> Outcome:
    """The Fault of an exception (or a Fault as it is) and the text a model reads for it."""
    # issubclass(type(...)), not isinstance(): isinstance falls back to `__class__`,
    # which a hostile exception can make raise.
    given: Any = exc_or_fault
    if issubclass(type(given), Fault):
        fault: Fault = given
        error: BaseException | None = None
    elif issubclass(type(given), BaseException):
        fault = errconv.from_exception(given)
        error = given
    else:
        raise TypeError(f"expected an exception or an errconv.Fault, got {type(exc_or_fault).__name__}")
    return Outcome(fault, errconv.agent_message(fault), error=error)


def refusal(tool: str, refused: GuardRefused) -> Outcome:
    """What the model reads when the guard refused a call before the tool ran."""
    if isinstance(refused, WaitRefused):
        fault = refused.fault.replace(retry_after_seconds=refused.remaining)
        text = (
            f"Not called: this identical call to {tool} was told to wait. Wait {refused.remaining} more seconds, "
            "then the identical call may be repeated."
        )
    else:
        fault = refused.fault
        text = (
            f"Not called: the harness refused to repeat an identical call to {tool} that already failed. "
            + errconv.agent_message(fault)
        )
    return Outcome(fault, text, refused=True)


_CODE = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")


def safe_code(fault: Fault) -> str | None:
    """The fault's code where it is a short identifier, for fields a framework shows verbatim.

    A code is a machine identifier (`card_declined`, `RATE_LIMITED`, `"50035"`); one that
    is prose or long is left out rather than passed on unredacted.
    """
    code = fault.code
    return code if isinstance(code, str) and _CODE.fullmatch(code) else None


_MARK = "[redacted]"
# A structured string longer than this is cut (and redacted) rather than passed on whole:
# the redaction reads a bounded prefix, and a model's context is no place for a page.
_STRING_MAX = 2000


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) > _STRING_MAX:
            return redact(value, _STRING_MAX)
        cleaned = redact(value)
        # Only where a credential was found: otherwise the string stays as the service wrote it.
        return cleaned if cleaned.count(_MARK) > value.count(_MARK) else value
    if isinstance(value, dict):
        return {key: _scrubbed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrubbed(item) for item in value]
    return value


def problem_json(fault: Fault) -> dict[str, Any]:
    """The fault as RFC 9457 problem JSON (parsed), for a structured field a model may read.

    Credentials in its strings are redacted as `errconv.agent_message` redacts its text
    (a body can echo a key, a URL can carry one in its query string).
    """
    value = json.loads(errconv.encode(fault, "problem"))
    scrubbed: dict[str, Any] = _scrubbed(value)
    return scrubbed


# --------------------------------------------------------------------------- the guard


def _plain(value: Any) -> str:
    """The canonical text of one argument value: by its full value where errconv can
    read one (JSON values, numbers by value, dates, Decimals, UUIDs, enums, bytes,
    dataclasses, pydantic models...), else by the object's identity (see
    `errconv.agents._keys`)."""
    return canonical(value)


def call_key(tool: str, arguments: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> tuple[str, str]:
    """What makes two calls identical: the tool's name and the canonical text of its arguments.

    Equal calls get one key: numbers by value (150 and 150.0), mapping members in any
    order, and, with `defaults` (the tool's signature or schema defaults), a default
    spelled out or left out. Different calls never share one: every value by its full
    value, mapping keys by their type (`{"1": x}` is not `{1: x}`); an object with no
    value errconv can read is keyed by its identity (the same object, the same call).
    Never raises, whatever the arguments hold. The guard keeps a fixed-size digest of
    the key, not the key (`errconv.retry.TerminalGuard`).

    >>> call_key("charge", {"currency": "usd", "amount": 150})
    ('charge', '{"amount":150,"currency":"usd"}')
    >>> call_key("charge", {"currency": "usd", "amount": 150.0}) == call_key("charge", {"amount": 150, "currency": "usd"})
    True
    """
    try:
        given = dict(arguments)
    except Exception:
        return (tool, canonical(arguments))
    if defaults:
        try:
            given = {**dict(defaults), **given}
        except Exception:
            pass
    return (tool, canonical(given))


def schema_defaults(schema: Any) -> dict[str, Any]:
    """The defaults a tool's JSON Schema states for its arguments (`properties.<name>.default`),
    for `call_key(..., defaults=...)` where the keys come from a model's raw arguments:
    a default the model spelled out or left out is then one call. Nothing for a schema
    that states none or is no JSON Schema object."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    return {name: spec["default"] for name, spec in properties.items() if isinstance(spec, Mapping) and "default" in spec}


class WaitRefused(GuardRefused):
    """An identical repeat of a call that ended `wait`, refused before its delay passed.

    `.remaining` is the whole number of seconds still to wait.
    """

    def __init__(self, key: Hashable, fault: Fault, remaining: int) -> None:
        super().__init__(key, fault)
        self.remaining = remaining
        self.args = (f"refused: an identical call ended wait; {remaining} s of its delay are left",)


class ToolGuard(TerminalGuard):
    """The harness guard at a tool boundary: give_up refused for good, wait until its delay passes.

    A `TerminalGuard` (bounded, thread-safe, optional `ttl` for give_up entries) that
    also records a `wait` carrying `retry_after_seconds`: an identical call before the
    delay has passed raises `WaitRefused`; after it, the entry is dropped and the call
    goes through. A wait without a stated delay is not recorded (there is no time to
    enforce), nor is fix_request (the corrected call has different arguments).

    >>> from errconv.retry import VirtualClock
    >>> clock = VirtualClock()
    >>> guard = ToolGuard(clock=clock)
    >>> guard.record(("search", "{}"), Fault.build(status=429, next_step="wait", retry_after_seconds=30))
    True
    >>> clock.advance(10); guard.check(("search", "{}"))
    Traceback (most recent call last):
    ...
    errconv.agents._core.WaitRefused: refused: an identical call ended wait; 20 s of its delay are left
    >>> clock.advance(20); guard.check(("search", "{}"))
    """

    def remembers(self, fault: Fault) -> bool:
        """A give_up, and a wait that states its delay."""
        return (fault.next_step == NextStep.WAIT and bool(fault.retry_after_seconds)) or super().remembers(fault)

    def check(self, key: Hashable) -> None:
        """Raise `WaitRefused` while a recorded wait lasts, `GuardRefused` for a give_up."""
        slot = self._slot(key)  # the key's fixed-size digest, as the store holds it
        with self._lock:
            entry = self._entries.get(slot)
            if entry is None:
                return
            fault, recorded = entry
            if fault.next_step == NextStep.WAIT:
                left = (fault.retry_after_seconds or 0) - (self.clock.now() - recorded)
                if left <= 0:
                    del self._entries[slot]
                    return
                raise WaitRefused(key, fault, math.ceil(left))
        super().check(key)

    def __repr__(self) -> str:
        return f"ToolGuard(max_entries={self.max_entries}, ttl={self.ttl}, entries={len(self)})"


def resolve_guard(guard: ToolGuard | bool | None, clock: Clock | None = None) -> ToolGuard | None:
    """`True`: a guard of its own; `False` or None: none; a `ToolGuard`: that one (shared)."""
    if guard is True:
        return ToolGuard(clock=clock)
    if guard is False or guard is None:
        return None
    if isinstance(guard, TerminalGuard):
        return guard if isinstance(guard, ToolGuard) else _Terminal(guard)
    raise TypeError(f"guard must be True, False, None or an errconv.agents.ToolGuard, got {type(guard).__name__}")


class _Terminal(ToolGuard):
    """A plain TerminalGuard passed where a ToolGuard is expected: its give_up entries only."""

    def __init__(self, inner: TerminalGuard) -> None:
        super().__init__(inner.max_entries, inner.ttl, inner.clock)
        self._inner = inner

    def record(self, key: Hashable, fault: Fault) -> bool:
        return self._inner.record(key, fault)

    def check(self, key: Hashable) -> None:
        self._inner.check(key)


# --------------------------------------------------------------------------- the wrapper


class Boundary:
    """One tool's boundary: the guard before the call, the translation and the guard after.

    `call(key, thunk)` / `await acall(key, athunk)` run the tool (`thunk()`), unless the
    guard refuses `key`; a refusal, and a failure (anything but `passthrough`, which the
    framework uses for its own control flow), end in `on_failure(outcome)`, whose value
    (or exception) is the call's. With `retry`, a wait the policy allows is slept (on
    the policy's clock, without blocking an event loop) and the call made again, as the
    policy's budget says; what stops it is recorded and handed on. A key of None skips
    the guard. Framework hooks that see a call's name and arguments (middleware,
    capabilities) use this directly; `guarded` builds the key from a function's arguments.
    """

    def __init__(
        self,
        tool: str,
        *,
        guard: ToolGuard | bool | None,
        on_failure: Callable[[Outcome], Any],
        passthrough: tuple[type[BaseException], ...] = (),
        retry: RetryPolicy | None = None,
    ) -> None:
        self.tool = tool
        self.guard = resolve_guard(guard)
        self.on_failure = on_failure
        self.passthrough = passthrough
        self.retry = retry

    def refused(self, key: Hashable | None) -> Outcome | None:
        """The refusal for `key`, or None when the call may go ahead."""
        if self.guard is None or key is None:
            return None
        try:
            self.guard.check(key)
        except GuardRefused as refused:
            return refusal(self.tool, refused)
        return None

    def failed(self, key: Hashable | None, exc: BaseException, attempt: int) -> tuple[Outcome, float | None]:
        """The outcome of failed call number `attempt`, and the sleep before repeating it (None: stop)."""
        result = outcome(exc)
        if self.retry is not None:
            decision = self.retry.decide(result.fault, attempt)
            if decision.retry:
                return result, decision.sleep
        if self.guard is not None and key is not None:
            self.guard.record(key, result.fault)
        return result, None

    def call(self, key: Hashable | None, thunk: Callable[[], Any]) -> Any:
        """Run `thunk()` behind the boundary."""
        refused = self.refused(key)
        if refused is not None:
            return self.on_failure(refused)
        attempt = 0
        while True:
            attempt += 1
            try:
                return thunk()
            except self.passthrough:
                raise
            except Exception as exc:
                result, sleep = self.failed(key, exc, attempt)
            if sleep is None:
                return self.on_failure(result)
            assert self.retry is not None
            self.retry.clock.sleep(sleep)

    async def acall(self, key: Hashable | None, athunk: Callable[[], Awaitable[Any]]) -> Any:
        """Await `athunk()` behind the boundary."""
        refused = self.refused(key)
        if refused is not None:
            return self.on_failure(refused)
        attempt = 0
        while True:
            attempt += 1
            try:
                return await athunk()
            except self.passthrough:
                raise
            except Exception as exc:
                result, sleep = self.failed(key, exc, attempt)
            if sleep is None:
                return self.on_failure(result)
            assert self.retry is not None
            await _sleep(self.retry, sleep)


def guarded(
    fn: Callable[..., Any],
    *,
    name: str | None,
    guard: ToolGuard | bool | None,
    on_failure: Callable[[Outcome], Any],
    skip_types: tuple[type, ...] = (),
    passthrough: tuple[type[BaseException], ...] = (),
    retry: RetryPolicy | None = None,
) -> Callable[..., Any]:
    """`fn` (sync or async, and the wrapper is the same) behind a `Boundary`.

    The guard's key is the tool's name (`name`, else the function's) and the canonical
    JSON of the call's arguments as `fn`'s signature binds them (positional, keyword
    and defaulted spellings of one call are one call); arguments that are instances of
    `skip_types` (a framework's run context) are left out.
    """
    if not callable(fn):
        raise TypeError(f"wrap expects a tool function, got {type(fn).__name__}")
    tool = name or getattr(fn, "__name__", None) or type(fn).__name__
    boundary = Boundary(tool, guard=guard, on_failure=on_failure, passthrough=passthrough, retry=retry)
    try:
        signature: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None

    def key_of(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, str] | None:
        if boundary.guard is None:
            return None
        arguments: dict[str, Any]
        try:
            if signature is None:
                raise TypeError
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            for parameter in signature.parameters.values():
                if parameter.kind is inspect.Parameter.VAR_KEYWORD and isinstance(arguments.get(parameter.name), dict):
                    arguments.update(arguments.pop(parameter.name))
        except TypeError:
            arguments = {"*": list(args), **kwargs}
        if skip_types:
            arguments = {k: v for k, v in arguments.items() if not isinstance(v, skip_types)}
        return call_key(tool, arguments)

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            return await boundary.acall(key_of(args, kwargs), lambda: fn(*args, **kwargs))

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return boundary.call(key_of(args, kwargs), lambda: fn(*args, **kwargs))

    return wrapper


async def _sleep(policy: RetryPolicy | None, seconds: float) -> None:
    """Sleep without blocking the event loop on the real clock; a test clock just records it."""
    assert policy is not None
    if isinstance(policy.clock, SystemClock):
        await asyncio.sleep(seconds)
    else:
        policy.clock.sleep(seconds)
