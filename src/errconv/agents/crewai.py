"""errconv at a CrewAI tool boundary (`crewai`; the `crewai` extra, installed on its own).

CrewAI retries a raising tool blindly, then gives the agent the exception's text.
Recent CrewAI lets a tool return a `ToolFailure(message, code, retryable, details)`
instead: the agent reads `message (code: ...)`, and the framework records the failure
and applies its `tool_failure_policy`. Here:

- `tool_failure(exc_or_fault)`: that `ToolFailure`, its message `errconv.agent_message`,
  `code` the fault's code, `retryable` true only for a wait, and in `details` the move
  (`next_step`, `retry_after_seconds`, `param`) and the fault as problem JSON (errconv's
  own fields only, scrubbed, at most 4 KiB: see `errconv.agents._core.problem_json`); where
  the installed CrewAI has no `ToolFailure`, the text;
- `wrap`: a decorator for a tool function (sync or async), under CrewAI's `@tool`,
  that returns that failure instead of raising, with the harness guard on by default:
  an identical call that ended give_up, or a wait whose delay has not passed, is
  refused without calling the function.

CrewAI pins `mcp<2` and `pydantic<2.13`, so it cannot share an environment with the
`test` extra (which has `mcp>=2`): the `crewai` extra stands alone.

    from crewai.tools import tool
    from errconv.agents.crewai import wrap

    @tool("charge")
    @wrap
    def charge(amount: int, currency: str) -> str:
        \"\"\"Charge a card.\"\"\"
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

from errconv import Fault, NextStep

from ._core import Outcome, ToolGuard, guarded, outcome, problem_json, require, safe_code

__all__ = ["tool_failure", "wrap"]

F = TypeVar("F", bound=Callable[..., Any])


def _failure_class() -> Any:
    module = require("crewai.tools", package="CrewAI (crewai)", extra="crewai")
    failure = getattr(module, "ToolFailure", None)
    if failure is None:
        try:
            failure = require("crewai.tools.tool_failure", package="CrewAI (crewai)", extra="crewai").ToolFailure
        except (ImportError, AttributeError):  # a CrewAI from before ToolFailure
            return None
    return failure


def _details(result: Outcome) -> dict[str, Any]:
    """The `details` of the ToolFailure: the move, and the fault as problem JSON, both
    from errconv's own fields, scrubbed and bounded (`problem_json`)."""
    fault = result.fault
    problem = problem_json(fault)
    details: dict[str, Any] = {"next_step": str(fault.next_step or NextStep.GIVE_UP)}
    if fault.retry_after_seconds is not None:
        details["retry_after_seconds"] = fault.retry_after_seconds
    if "param" in problem:
        details["param"] = problem["param"]
    if result.refused:
        details["refused"] = True
    details["problem"] = problem
    return details


def _failure(result: Outcome) -> Any:
    cls = _failure_class()
    if cls is None:
        return result.text
    fault = result.fault
    return cls(
        message=result.text,
        code=safe_code(fault),
        retryable=fault.next_step == NextStep.WAIT,
        details=_details(result),
    )


def tool_failure(exc_or_fault: BaseException | Fault) -> Any:
    """CrewAI's `ToolFailure` for an exception a tool raised, or a Fault (the text where CrewAI has none)."""
    return _failure(outcome(exc_or_fault))


@overload
def wrap(fn: F, /) -> F: ...
@overload
def wrap(*, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Callable[[F], F]: ...
def wrap(fn: Any = None, /, *, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Any:
    """Decorate a tool function (sync or async) so a failure returns `tool_failure(...)`.

    Put it under CrewAI's `@tool`, which reads the signature and docstring through it.
    The guard is on by default (`guard=False` turns it off; a shared `ToolGuard` spans
    tools).
    `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: F) -> F:
        require("crewai.tools", package="CrewAI (crewai)", extra="crewai")
        wrapped = cast(F, guarded(f, name=name, guard=guard, on_failure=_failure, telemetry=telemetry))
        return wrapped

    return decorate(fn) if fn is not None else decorate


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
