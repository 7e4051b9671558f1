"""errconv at a PydanticAI tool boundary (`pydantic-ai`; the `pydantic-ai` extra).

PydanticAI gives the model a `ModelRetry`'s text followed by "Fix the errors and try
again", and any other exception ends the whole run. `wrap` turns what a tool raises
into the move PydanticAI can express:

- fix_request: `ModelRetry` with `errconv.agent_message` (the parameter and its
  violations): the model corrects the arguments, within the tool's retry budget;
- give_up: `ToolFailed` with the text, a terminal failure the model sees and that
  does not spend the retry budget (where the installed PydanticAI has no `ToolFailed`,
  the text is returned as the tool's result instead);
- wait: a delay up to `max_wait` seconds (30 by default) is slept and the call made
  once more; a longer delay, or a second failure, is reported with `ToolFailed`
  stating the seconds, so the model can say so rather than hammer.

The harness guard is on by default: an identical call that ended give_up, or a wait
whose delay has not passed, is refused without calling the tool (`ToolFailed` saying so).

    from pydantic_ai import Agent
    from errconv.agents.pydantic_ai import wrap

    agent = Agent("test")

    @agent.tool_plain
    @wrap
    def charge(amount: int, currency: str) -> str:
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

from errconv import NextStep
from errconv.retry import Clock, RetryPolicy

from ._core import Boundary, Outcome, ToolGuard, call_key, guarded, require, schema_defaults

__all__ = ["DEFAULT_MAX_WAIT", "capability", "raise_for", "wrap"]

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_MAX_WAIT = 30.0
"""The longest delay `wrap` sleeps inside a tool call before repeating it once, in seconds.

A tool call holds the agent's run: a rate limit of a few seconds is cheaper to sleep
than to explain, a daily quota is not (the model is told the wait instead)."""


def _exceptions() -> Any:
    return require("pydantic_ai.exceptions", package="PydanticAI (pydantic-ai-slim)", extra="pydantic-ai")


# PydanticAI's own control flow, raised inside a tool or by its execution machinery:
# never translated (the ones a version lacks are skipped).
_CONTROL = (
    "ModelRetry",
    "ToolFailed",
    "ToolRetryError",
    "ToolFailedError",
    "CallDeferred",
    "ApprovalRequired",
    "SkipToolExecution",
    "SkipToolValidation",
    "AgentRunError",
    "UserError",
)


def _passthrough(exceptions: Any) -> tuple[type[BaseException], ...]:
    return tuple(getattr(exceptions, n) for n in _CONTROL if isinstance(getattr(exceptions, n, None), type))


def raise_for(result: Outcome) -> str:
    """Hand `result` to PydanticAI: raise `ModelRetry` for fix_request, `ToolFailed` otherwise.

    Returns the text only where the installed PydanticAI has no `ToolFailed`.
    """
    exceptions = _exceptions()
    if result.next_step == NextStep.FIX_REQUEST and not result.refused:
        raise exceptions.ModelRetry(result.text) from result.error
    tool_failed = getattr(exceptions, "ToolFailed", None)
    if tool_failed is None:
        return result.text
    raise tool_failed(result.text) from result.error


@overload
def wrap(fn: F, /) -> F: ...
@overload
def wrap(
    *,
    guard: ToolGuard | bool | None = True,
    name: str | None = None,
    max_wait: float = DEFAULT_MAX_WAIT,
    clock: Clock | None = None,
    telemetry: bool = False,
) -> Callable[[F], F]: ...
def wrap(
    fn: Any = None,
    /,
    *,
    guard: ToolGuard | bool | None = True,
    name: str | None = None,
    max_wait: float = DEFAULT_MAX_WAIT,
    clock: Clock | None = None,
    telemetry: bool = False,
) -> Any:
    """Decorate a tool function (sync or async, plain or taking `RunContext`) for PydanticAI.

    Put it under `@agent.tool` / `@agent.tool_plain` (or pass it to `Tool(...)`), which
    read the signature and docstring through it. `max_wait` caps the delay slept before
    the one repeat of a wait; `clock` (an `errconv.retry` clock) is where that sleep
    happens, the real one by default. The guard is on by default (`guard=False` turns
    it off; a shared `ToolGuard` spans tools). PydanticAI's own control-flow
    exceptions raised inside the tool (`ModelRetry`, `ToolFailed`, `CallDeferred`,
    `ApprovalRequired`, ...) pass through unchanged.
    `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: F) -> F:
        passthrough = _passthrough(_exceptions())
        tools = require("pydantic_ai.tools", package="PydanticAI (pydantic-ai-slim)", extra="pydantic-ai")
        policy = RetryPolicy(budget=2, max_sleep=max_wait, clock=clock)
        wrapped = cast(F, guarded(
            f,
            name=name,
            guard=ToolGuard(clock=clock) if guard is True else guard,
            on_failure=raise_for,
            skip_types=(tools.RunContext,),
            passthrough=passthrough,
            retry=policy,
            telemetry=telemetry,
        ))
        return wrapped

    return decorate(fn) if fn is not None else decorate


def capability(
    *, guard: ToolGuard | bool | None = True, max_wait: float = DEFAULT_MAX_WAIT, clock: Clock | None = None, telemetry: bool = False
) -> Any:
    """A PydanticAI capability (`Agent(..., capabilities=[capability()])`) doing `wrap`'s work for every tool.

    Built on PydanticAI's `wrap_tool_execute` hook: the guard's key is the tool's name
    and the call's arguments as the model sent them, with the defaults the tool's
    schema states (a default spelled out or left out is one call); a failure becomes `ModelRetry`,
    `ToolFailed` or one repeat after a short wait, as with `wrap`. Tools already
    wrapped are not translated twice (their failures are PydanticAI's own by then).
    """
    exceptions = _exceptions()
    abstract = require("pydantic_ai.capabilities", package="PydanticAI (pydantic-ai-slim)", extra="pydantic-ai")
    base: Any = abstract.AbstractCapability
    passthrough = _passthrough(exceptions)
    shared = ToolGuard(clock=clock) if guard is True else guard

    class ErrconvToolBoundary(base):  # type: ignore[misc]
        """errconv at every tool call of an agent: the move for the model, and the harness guard."""

        def __init__(self) -> None:
            self.boundaries: dict[str, Boundary] = {}

        def _boundary(self, tool: str) -> Boundary:
            if tool not in self.boundaries:
                self.boundaries[tool] = Boundary(
                    tool,
                    guard=shared if shared is not None else False,
                    on_failure=raise_for,
                    passthrough=passthrough,
                    retry=RetryPolicy(budget=2, max_sleep=max_wait, clock=clock),
                    telemetry=telemetry,
                )
            return self.boundaries[tool]

        async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
            boundary = self._boundary(call.tool_name)
            defaults = schema_defaults(getattr(tool_def, "parameters_json_schema", None))
            key = call_key(call.tool_name, call.args_as_dict(), defaults) if boundary.guard is not None else None
            return await boundary.acall(key, lambda: handler(args))

    return ErrconvToolBoundary()


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
