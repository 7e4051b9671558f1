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
- `require(module, ...)`: the lazy import that names the extra when it fails (the one
  every integration uses, `errconv._extras.require`).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import math
import re
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import errconv
from errconv import Fault, NextStep
from errconv import _observe
from errconv._agent_text import _credential_named, _data, _said, _step, _visible, _windowed, scrub, scrub_fault
from errconv._extras import require
from errconv._model.fault import MAX_ALTERNATIVES, Violation
from errconv._telemetry import telemetry as _telemetry
from errconv.details import RequestInfo
from errconv.retry import Clock, GuardRefused, RetryPolicy, SystemClock, TerminalGuard

from ._keys import canonical

__all__ = [
    "Boundary",
    "Outcome",
    "ToolGuard",
    "STRUCTURED_FIELDS",
    "STRUCTURED_MAX_BYTES",
    "WaitRefused",
    "call_key",
    "carry",
    "guarded",
    "outcome",
    "problem_json",
    "refusal",
    "require",
    "resolve_guard",
    "safe_code",
    "structured_size",
]


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
    is prose, long, or that the redaction would touch (a key in the code slot) is left out.
    """
    code = fault.code
    return code if isinstance(code, str) and _CODE.fullmatch(code) and scrub(code) == code else None


# --------------------------------------------------------------------------- structured output

STRUCTURED_MAX_BYTES = 4096
"""The most bytes a failure's structured output (`problem_json`) takes, as compact UTF-8 JSON.

Enough for every field errconv fills at its cap in ASCII (about 3.6 KB); text in wider
characters, and members carried by name, give way to the bound (see `problem_json`)."""

STRUCTURED_FIELDS = (
    "type", "title", "status", "detail", "code", "next_step", "retry_after_seconds", "param", "violations",
    "alternatives", "alternatives_truncated", "blocked_by", "unblock_with", "request_id",
)  # fmt: skip
"""errconv's own fields, the only ones structured output is built from unless more are carried by name."""

# Each slot's cap, in characters, after the text is scrubbed (see errconv._agent_text._said).
_TYPE_MAX = 200
_TITLE_MAX = 120
_DETAIL_MAX = 480
_NAME_MAX = 64  # code, param, blocked_by, unblock_with, a violation's field and reason, the request id
_DESCRIPTION_MAX = 120
_VALUE_MAX = 240  # one alternative, one carried member, as JSON
_VIOLATIONS_MAX = 5
# Members of the problem object errconv writes itself: not names to carry.
_OWN_MEMBERS = frozenset((*STRUCTURED_FIELDS, "instance", "grpc_code", "errors", "details", "metadata", "domain"))
_CARRIABLE_FIELDS = ("domain", "instance")  # errconv's fields outside the default set, by name
_NAME = re.compile(r"[A-Za-z_$@][A-Za-z0-9_.$@-]{0,63}")

_carried: tuple[str, ...] = ()
_MARK = "[redacted]"


def _carry_names(names: Iterable[str]) -> tuple[str, ...]:
    if isinstance(names, str):
        raise TypeError("carry takes member names, e.g. carry=(\"balance\",), not one string")
    out: list[str] = []
    for name in names:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"a member to carry is named by an identifier (at most 64 characters), not {name!r}")
        if name in _OWN_MEMBERS and name not in _CARRIABLE_FIELDS:
            raise ValueError(f"{name!r} is one of errconv's own members: it is in the structured output already, or never")
        if name not in out:
            out.append(name)
    return tuple(out)


def carry(*names: str) -> tuple[str, ...]:
    """Carry more members in every adapter's structured output from now on, by name.

    By default the structure a model receives (MCP `structuredContent`, LlamaIndex's
    `raw_output`, CrewAI's `details`) holds errconv's own fields only
    (`STRUCTURED_FIELDS`), never the service's extension members. `carry("balance",
    "documentation_url")` adds those extension members when a fault has them (and
    `"domain"`, `"instance"` add those fields of errconv's), each scrubbed and cut to
    240 characters of JSON, within `STRUCTURED_MAX_BYTES`. A member named like a
    credential is redacted whatever you carry. `carry()` goes back to the default.
    Returns the names now carried. `problem_json(fault, carry=...)` overrides it for one call.

    >>> carry("balance")
    ('balance',)
    >>> carry()
    ()
    """
    global _carried
    _carried = _carry_names(names)
    return _carried


def _request_id(fault: Fault) -> str | None:
    for detail in fault.details:
        request_id = getattr(detail, "request_id", None)
        if isinstance(request_id, str) and request_id:
            return request_id
    return None


def _bounded(fault: Fault, names: tuple[str, ...]) -> Fault:
    """A Fault of errconv's own fields (and the carried ones), each scrubbed and cut to its cap."""

    def text(value: str | None, limit: int) -> str | None:
        return (_said(value, limit) or None) if value else None

    violations = tuple(
        Violation(
            field=_said(v.field, _NAME_MAX),
            description=_said(v.description, _DESCRIPTION_MAX) if v.description else "",
            reason=text(v.reason, _NAME_MAX),
        )
        for v in fault.violations[:_VIOLATIONS_MAX]
    )
    request_id = text(_request_id(fault), _NAME_MAX)
    extensions: dict[str, Any] = {}
    for name in names:
        if name in _CARRIABLE_FIELDS:
            continue
        if name in fault.extensions:
            extensions[name] = _MARK if _credential_named(name) else _data(fault.extensions[name], _VALUE_MAX)
    return Fault(
        status=fault.status,
        grpc_code=fault.grpc_code,
        code=text(fault.code, _NAME_MAX),
        domain=text(fault.domain, _NAME_MAX) if "domain" in names else None,
        title=text(fault.title, _TITLE_MAX),
        detail=text(fault.detail, _DETAIL_MAX),
        type=text(fault.type, _TYPE_MAX),
        instance=text(fault.instance, _TYPE_MAX) if "instance" in names else None,
        next_step=_step(fault.next_step),
        retry_after_seconds=fault.retry_after_seconds,
        param=text(fault.param, _NAME_MAX),
        violations=violations,
        alternatives=tuple(_data(a, _VALUE_MAX) for a in fault.alternatives[:MAX_ALTERNATIVES]),
        alternatives_truncated=fault.alternatives_truncated or len(fault.alternatives) > MAX_ALTERNATIVES,
        blocked_by=text(fault.blocked_by, _NAME_MAX),
        unblock_with=text(fault.unblock_with, _NAME_MAX),
        details=(RequestInfo(request_id=request_id),) if request_id else (),
        extensions=extensions,
    )


def _smaller(fault: Fault) -> Fault | None:
    """`fault` with the least needed of its parts dropped or halved; None when nothing is left to give."""
    if fault.extensions:
        last = list(fault.extensions)[-1]
        return fault.replace(extensions={k: v for k, v in fault.extensions.items() if k != last})
    if fault.alternatives:
        return fault.replace(alternatives=fault.alternatives[:-1], alternatives_truncated=True)
    if len(fault.violations) > 1:
        return fault.replace(violations=fault.violations[:-1])
    for name in ("detail", "title", "type", "instance", "domain"):
        value = getattr(fault, name)
        if value:
            return fault.replace(**{name: value[: len(value) // 2 - 1] + "…" if len(value) > 16 else None})
    if fault.violations:
        return fault.replace(violations=())
    return None


def structured_size(value: Any) -> int:
    """The bytes of `value` as compact UTF-8 JSON: what `STRUCTURED_MAX_BYTES` bounds."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def problem_json(fault: Fault, *, carry: Iterable[str] | None = None) -> dict[str, Any]:
    """The fault as RFC 9457 problem JSON (parsed), for a structured field a model may read.

    Built by allow-list: errconv's own fields (`STRUCTURED_FIELDS`: type, title,
    status, detail, code, next_step, retry_after_seconds, param, violations with their
    field, reason and description, alternatives, blocked_by, unblock_with and the
    request id), never the service's extension members or metadata; `carry` names
    more (default: what `errconv.agents.carry` set). Whatever built the fault (a
    decoder, `from_exception`, a `FaultError`, an application), every string is
    scrubbed of credentials before it is cut to its slot's cap, and a member named like
    a credential is redacted whatever its value. At most `STRUCTURED_MAX_BYTES` bytes of
    compact JSON: where wide characters or carried members would pass that, what matters
    least gives way first (carried members, alternatives, violations past the first,
    then the detail and title are halved). errconv's `problem` dialect reads it back.
    """
    names = _carried if carry is None else _carry_names(carry)
    # The whole fault first, as agent_message does: a secret split across pieces (a
    # violation's field named like a credential and its description) is seen whole.
    request_id = _request_id(fault)
    shown = _visible(fault, max(_VIOLATIONS_MAX, MAX_ALTERNATIVES), names, (RequestInfo(request_id=_windowed(request_id)),) if request_id else ())
    bounded: Fault | None = _bounded(scrub_fault(shown), names)
    while bounded is not None:
        value: dict[str, Any] = json.loads(errconv.encode(bounded, "problem"))
        if structured_size(value) <= STRUCTURED_MAX_BYTES:
            return value
        bounded = _smaller(bounded)
    raise AssertionError("unreachable: the fields without text fit the bound")  # pragma: no cover


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


def report_failure(observer: Any, result: Outcome, sleep: float | None = None) -> None:
    """Telemetry for a tool's failure (side `tool`), on the span current at the call: the
    shell's own observer (`telemetry=True`), else the process's (`errconv.otel.instrument()`).
    A failure retried after `sleep` is an event; the one that ends the call sets the span."""
    found = _observe.observer(observer)
    if found is not None:
        origin = result.fault.origin
        found.fault(result.fault, "tool", origin.dialect if origin is not None else None, sleep is None, sleep=sleep)


def report_refusal(observer: Any, refused: GuardRefused) -> None:
    """Telemetry for a call the guard refused: an `errconv.guard_refused` event."""
    found = _observe.observer(observer)
    if found is not None:
        found.event("guard_refused", "an identical call ended give_up", refused.fault)


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
    With `telemetry=True` (or under `errconv.otel.instrument()`), each failure is recorded
    on the span current at the call (a retried one as an event) and counted, side `tool`.
    """

    def __init__(
        self,
        tool: str,
        *,
        guard: ToolGuard | bool | None,
        on_failure: Callable[[Outcome], Any],
        passthrough: tuple[type[BaseException], ...] = (),
        retry: RetryPolicy | None = None,
        telemetry: bool = False,
    ) -> None:
        self.observer = _telemetry(telemetry)
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
            report_refusal(self.observer, refused)
            return refusal(self.tool, refused)
        return None

    def failed(self, key: Hashable | None, exc: BaseException, attempt: int) -> tuple[Outcome, float | None]:
        """The outcome of failed call number `attempt`, and the sleep before repeating it (None: stop)."""
        result, sleep = self._failed(key, exc, attempt)
        report_failure(self.observer, result, sleep)
        return result, sleep

    def _failed(self, key: Hashable | None, exc: BaseException, attempt: int) -> tuple[Outcome, float | None]:
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
    telemetry: bool = False,
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
    boundary = Boundary(tool, guard=guard, on_failure=on_failure, passthrough=passthrough, retry=retry, telemetry=telemetry)
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
