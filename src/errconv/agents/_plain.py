"""The framework-neutral tool wrapper: `errconv.agents.wrap` and `errconv.agents.ToolError`.

Many agents are a plain loop: the model names a tool and its arguments, the loop calls a
Python function and hands the model what came back. `wrap(fn)` makes any function (sync
or async) such a tool: what it returns is returned unchanged; what it raises is read by
`errconv.from_exception` and comes back as the text the model reads
(`errconv.agent_message`: fix a named parameter, wait a stated number of seconds, or
stop), or, with `raise_errors=True`, raised as one `ToolError` carrying `.fault` and
`.text`, for a loop that wants to catch. The harness guard (`ToolGuard`, keyed by
`call_key`: the tool's name and the canonical JSON of its arguments) is on by default.

The framework adapters (`errconv.agents.mcp`, `.openai_agents`, ...) are this same
boundary (`_core.guarded`) with their framework's result shape in place of the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar, cast, overload

from errconv import Fault, FaultError, NextStep

from ._core import Outcome, ToolGuard, guarded

__all__ = ["ToolError", "wrap"]

F = TypeVar("F", bound=Callable[..., Any])


class ToolError(FaultError):
    """A wrapped tool's failure (or a call the guard refused), raised under `raise_errors=True`.

    `str(error)` and `.text` are what the model reads (`errconv.agent_message`, or the
    guard's refusal): hand it to the model as the tool's result. `.fault` is the
    `errconv.Fault` (for a refused wait, its delay is the time still left); `.refused`
    says the guard stopped the call before the tool ran. The exception the tool raised
    is `__cause__` (never shown to the model: its message may hold secrets).

    An `errconv.FaultError`, so what reads one reads this too: `errconv.from_exception`
    (a wrapped tool called inside another keeps its fault), the gateway, the interceptors.
    """

    def __init__(self, fault: Fault, text: str, *, refused: bool = False) -> None:
        super().__init__(fault)
        self.args = (text,)
        self.text = text
        self.refused = refused

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled whole (a multiprocessing pool hands it back): fault, text and refused.
        return (_rebuild, (self.fault, self.text, self.refused))

    @property
    def next_step(self) -> NextStep | None:
        """The move: fix_request, wait or give_up."""
        return self.fault.next_step


def _rebuild(fault: Fault, text: str, refused: bool) -> ToolError:
    return ToolError(fault, text, refused=refused)


def _text(result: Outcome) -> str:
    return result.text


def _raise(result: Outcome) -> NoReturn:
    raise ToolError(result.fault, result.text, refused=result.refused) from result.error


@overload
def wrap(fn: F, /) -> F: ...
@overload
def wrap(*, guard: ToolGuard | bool | None = True, name: str | None = None, raise_errors: bool = False, telemetry: bool = False) -> Callable[[F], F]: ...
def wrap(fn: Any = None, /, *, guard: ToolGuard | bool | None = True, name: str | None = None, raise_errors: bool = False, telemetry: bool = False) -> Any:
    """Make a tool function (sync or async) of any agent loop speak errconv when it fails.

    Used bare (`@wrap`) or with options (`@wrap(raise_errors=True)`, `wrap(fn, name=...)`).
    A call that succeeds returns what `fn` returns. A call that raises returns the text
    the model reads for the failure (so a tool's result is its value or the move), or,
    with `raise_errors=True`, raises `ToolError` (`.fault`, `.text`; an `errconv.FaultError`) from the original
    exception. The wrapper is async when `fn` is.

    The guard is on by default: an identical call (`name`, else the function's name, and
    the canonical JSON of the arguments as the signature binds them) that ended give_up
    is refused without calling `fn`, and one that ended wait is refused until its delay
    has passed; the refusal is the model's text (or a `ToolError` with `.refused`).
    `guard=False` turns it off; pass one `ToolGuard` to several wraps to share it. `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: F) -> F:
        return cast(F, guarded(f, name=name, guard=guard, on_failure=_raise if raise_errors else _text, telemetry=telemetry))

    return decorate(fn) if fn is not None else decorate
