"""errconv at a LlamaIndex tool boundary (`llama-index-core`; the `llama-index` extra).

LlamaIndex's agents call a tool and, when it raises, give the model
`ToolOutput("Encountered error: " + str(e), is_error=True)`: the exception's message
(a URL with its key, a password) and no move. Here:

- `tool_output(exc_or_fault, tool_name)`: the `ToolOutput(is_error=True)` whose
  content is `errconv.agent_message` (its `raw_output` is the fault as problem JSON of
  errconv's own fields, scrubbed and at most 4 KiB: `errconv.agents._core.problem_json`);
- `wrap(fn, **from_defaults)`: a `FunctionTool` for a tool function (sync or async)
  whose `call`/`acall` return that output instead of raising, with the harness guard
  on by default: an identical call that ended give_up, or a wait whose delay has not
  passed, is refused without calling the function.

    from errconv.agents.llama_index import wrap

    def charge(amount: int, currency: str) -> str:
        \"\"\"Charge a card.\"\"\"
        ...

    charge_tool = wrap(charge)  # a FunctionTool, for any LlamaIndex agent
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from errconv import Fault

from ._core import Outcome, ToolGuard, guarded, outcome, problem_json, require

__all__ = ["tool_output", "wrap"]


def _tools() -> Any:
    return require("llama_index.core.tools", package="LlamaIndex (llama-index-core)", extra="llama-index")


def _output(result: Outcome, tool_name: str, raw_input: Mapping[str, Any] | None = None) -> Any:
    return _tools().ToolOutput(
        content=result.text,
        tool_name=tool_name,
        raw_input=dict(raw_input or {}),
        raw_output=problem_json(result.fault),
        is_error=True,
    )


def tool_output(exc_or_fault: BaseException | Fault, tool_name: str, raw_input: Mapping[str, Any] | None = None) -> Any:
    """The `ToolOutput(is_error=True)` a model should read for an exception a tool raised, or a Fault."""
    return _output(outcome(exc_or_fault), tool_name, raw_input)


class _Failed:
    """What the guarded function returns on failure, turned into a ToolOutput by the tool's callback."""

    __slots__ = ("result",)

    def __init__(self, result: Outcome) -> None:
        self.result = result

    def __str__(self) -> str:
        return self.result.text


def wrap(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    guard: ToolGuard | bool | None = True,
    name: str | None = None,
    telemetry: bool = False,
    **from_defaults: Any,
) -> Any:
    """A LlamaIndex `FunctionTool` for `fn` whose failures are `ToolOutput(is_error=True)` with the move.

    `name` and the other keywords go to `FunctionTool.from_defaults` (`description`,
    `return_direct`, `fn_schema`, ...); a `callback` given there still sees every
    successful result. The guard is on by default (`guard=False` turns it off; a shared
    `ToolGuard` spans tools). Without `fn`, returns a decorator.
    `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: Callable[..., Any]) -> Any:
        tools = _tools()
        tool_name = name or getattr(f, "__name__", None) or "tool"
        user_callback = from_defaults.pop("callback", None)
        if from_defaults.get("async_callback") is not None:
            raise TypeError("wrap takes a sync callback only; it runs on both paths")

        def callback(raw_output: Any) -> Any:
            if isinstance(raw_output, _Failed):
                return _output(raw_output.result, tool_name)
            return user_callback(raw_output) if user_callback is not None else None

        inner = guarded(f, name=tool_name, guard=guard, on_failure=_Failed, telemetry=telemetry)
        return tools.FunctionTool.from_defaults(fn=inner, name=tool_name, callback=callback, **from_defaults)

    return decorate(fn) if fn is not None else decorate


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
