"""errconv at an OpenAI Agents SDK tool boundary (`openai-agents`; the `openai-agents` extra).

The SDK calls a tool's `failure_error_function(ctx, error)` when the tool raises and
gives the model the string it returns; its default says "An error occurred while
running the tool. Please try again." whatever the failure. Two ways in:

- `failure_error_function`: pass it to `function_tool(..., failure_error_function=...)`
  (or to an MCP server's `failure_error_function`); the model reads
  `errconv.agent_message` for the exception;
- `wrap`: a decorator under `@function_tool` that does the same translation inside
  the tool, and runs the harness guard (on by default): an identical call that ended
  give_up, or a wait whose delay has not passed, is refused without calling the tool;
- `hooks()`: the guard for tools you do not wrap, on the SDK's own hooks: its
  `failure_error_function` records each failure, its `input_guardrail` (a
  `ToolInputGuardrail`) rejects an identical repeat before the tool runs.

    from agents import function_tool
    from errconv.agents.openai_agents import wrap

    @function_tool
    @wrap
    def charge(amount: int, currency: str) -> str:
        ...
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast, overload

from errconv._telemetry import telemetry as _telemetry
from errconv.retry import GuardRefused

from ._core import Outcome, ToolGuard, call_key, guarded, outcome, refusal, report_failure, report_refusal, require, resolve_guard

__all__ = ["Hooks", "failure_error_function", "hooks", "wrap"]

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
def wrap(*, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Callable[[F], F]: ...
def wrap(fn: Any = None, /, *, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Any:
    """Decorate a tool function (sync or async) so a failure returns the text for the model.

    Put it under `@function_tool`, which reads the signature and docstring through it.
    The harness guard is on by default (`guard=False` turns it off; a shared
    `ToolGuard` spans tools); the run context argument (`RunContextWrapper`,
    `ToolContext`) is not part of the guard's key.
    `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: F) -> F:
        sdk = require("agents", package="the OpenAI Agents SDK (openai-agents)", extra="openai-agents")
        wrapped = cast(F, guarded(f, name=name, guard=guard, on_failure=_text, skip_types=(sdk.RunContextWrapper,), telemetry=telemetry))
        return wrapped

    return decorate(fn) if fn is not None else decorate


def _key(ctx: Any) -> tuple[str, str]:
    raw = getattr(ctx, "tool_arguments", None)
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else {}
    except ValueError:
        arguments = {"*": raw}
    if not isinstance(arguments, dict):
        arguments = {"*": arguments}
    return call_key(str(getattr(ctx, "tool_name", "")), arguments)


@dataclass(frozen=True)
class Hooks:
    """The SDK's two hooks around a tool, sharing one guard: see `hooks`."""

    guard: ToolGuard
    input_guardrail: Any
    """A `ToolInputGuardrail`: rejects an identical repeat of a give_up, or of a wait too early."""
    observer: Any = None
    """Where failures are reported (`telemetry=True`); None: the process's, if instrumented."""

    def failure_error_function(self, ctx: Any, error: Exception) -> str:
        """The text for the model, and the failure recorded for the guardrail to refuse its repeat."""
        result = outcome(error)
        self.guard.record(_key(ctx), result.fault)
        report_failure(self.observer, result)
        return result.text

    def tool(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        """`function_tool(fn, ...)` with both hooks set."""
        sdk = require("agents", package="the OpenAI Agents SDK (openai-agents)", extra="openai-agents")
        guardrails = [*(kwargs.pop("tool_input_guardrails", None) or ()), self.input_guardrail]
        return sdk.function_tool(
            fn, failure_error_function=self.failure_error_function, tool_input_guardrails=guardrails, **kwargs
        )


def hooks(guard: ToolGuard | None = None, telemetry: bool = False) -> Hooks:
    """The guard on the SDK's own hooks, for tools you do not wrap.

    `function_tool(fn, failure_error_function=h.failure_error_function,
    tool_input_guardrails=[h.input_guardrail])`, or `h.tool(fn)`, for `h = hooks()`. The
    guard's key is the tool's name and the arguments as the model sent them. Several
    tools may share one `Hooks`; `guard` is a `ToolGuard` to share with other adapters
    (a new one by default). `telemetry=True` records each failure and refusal on the
    span current at the call (`errconv.otel`).
    """
    sdk = require("agents", package="the OpenAI Agents SDK (openai-agents)", extra="openai-agents")
    the_guard = resolve_guard(guard if guard is not None else True)
    observer = _telemetry(telemetry)
    assert the_guard is not None

    def errconv_guard(data: Any) -> Any:
        context = data.context
        try:
            the_guard.check(_key(context))
        except GuardRefused as refused:
            report_refusal(observer, refused)
            text = refusal(str(getattr(context, "tool_name", "the tool")), refused).text
            return sdk.ToolGuardrailFunctionOutput.reject_content(text)
        return sdk.ToolGuardrailFunctionOutput.allow()

    return Hooks(the_guard, sdk.ToolInputGuardrail(guardrail_function=errconv_guard, name="errconv_guard"), observer)


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
