"""errconv at an OpenAI Agents SDK tool boundary (`openai-agents`; the `openai-agents` extra).

The SDK calls a tool's `failure_error_function(ctx, error)` when the tool raises and
gives the model the string it returns; its default says "An error occurred while
running the tool. Please try again." whatever the failure. Two ways in:

- `failure_error_function`: pass it to `function_tool(..., failure_error_function=...)`
  (or to an MCP server's `failure_error_function`); the model reads
  `errconv.agent_message` for the exception;
- `wrap`: a decorator under `@function_tool` that does the same translation inside
  the tool, and runs the harness guard (on by default): an identical call that ended
  give_up, or a wait whose delay has not passed, is refused without calling the tool.

    from agents import function_tool
    from errconv.agents.openai_agents import wrap

    @function_tool
    @wrap
    def charge(amount: int, currency: str) -> str:
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

from ._core import Outcome, ToolGuard, guarded, outcome, require

__all__ = ["failure_error_function", "wrap"]

F = TypeVar("F", bound=Callable[..., Any])


def failure_error_function(ctx: Any, error: Exception) -> str:
    """The SDK's `ToolErrorFunction`: the text the model reads for the exception a tool raised.

    `ctx` (the SDK's run context) is not read: what the model is told comes from the
    exception alone, and never its message.
    """
    return outcome(error).text


def _text(result: Outcome) -> str:
    return result.text


@overload
def wrap(fn: F, /) -> F: ...
@overload
def wrap(*, guard: ToolGuard | bool | None = True, name: str | None = None) -> Callable[[F], F]: ...
def wrap(fn: Any = None, /, *, guard: ToolGuard | bool | None = True, name: str | None = None) -> Any:
    """Decorate a tool function (sync or async) so a failure returns the text for the model.

    Put it under `@function_tool`, which reads the signature and docstring through it.
    The harness guard is on by default (`guard=False` turns it off; a shared
    `ToolGuard` spans tools); the run context argument (`RunContextWrapper`,
    `ToolContext`) is not part of the guard's key.
    """

    def decorate(f: F) -> F:
        sdk = require("agents", package="the OpenAI Agents SDK (openai-agents)", extra="openai-agents")
        wrapped = cast(F, guarded(f, name=name, guard=guard, on_failure=_text, skip_types=(sdk.RunContextWrapper,)))
        return wrapped

    return decorate(fn) if fn is not None else decorate
