"""errconv at a LangChain / LangGraph tool boundary (`langchain-core`, `langchain`; the `langchain` extra).

LangGraph's `ToolNode` writes "Error: {repr(e)}\\n Please fix your mistakes." whatever
the failure (and `repr(e)` carries the exception's message), and LangChain's retry
middleware never reads Retry-After. Three hooks and a wrapper:

- `handle_tool_error(exc)`: for a tool's `handle_tool_error=` (it receives the
  `ToolException`, and reads the exception it was raised from) and for `ToolNode(...,
  handle_tool_errors=handle_tool_error)` (any exception): the text of the move;
- `on_error(exc, request)`: the handler of LangChain's `ToolErrorMiddleware`;
- `middleware(guard=True)`: a `ToolErrorMiddleware` that also runs the harness guard
  before each call (an identical call that ended give_up, or a wait whose delay has not
  passed, is answered without running the tool);
- `wrap`: a decorator for a tool function, or a tool made by `@tool`, with the guard
  on by default: a failure becomes a `ToolException` carrying the text, which the tool
  returns as a `ToolMessage(status="error")`.

    from langchain_core.tools import tool
    from errconv.agents.langchain import wrap

    @wrap
    @tool
    def charge(amount: int, currency: str) -> str:
        \"\"\"Charge a card.\"\"\"
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from errconv._telemetry import telemetry as _telemetry
from errconv.retry import GuardRefused

from ._core import Outcome, ToolGuard, call_key, guarded, outcome, refusal, report_failure, report_refusal, require, resolve_guard, schema_defaults

__all__ = ["handle_tool_error", "middleware", "on_error", "wrap"]

F = TypeVar("F", bound=Callable[..., Any])

_EXTRA = {"package": "LangChain (langchain-core)", "extra": "langchain"}


def _tools() -> Any:
    return require("langchain_core.tools", **_EXTRA)


def _outcome_of(exc: BaseException) -> Outcome:
    carried = getattr(exc, "errconv_outcome", None)
    if isinstance(carried, Outcome):
        return carried
    tools = _tools()
    # A ToolException raised from the client library's exception: the cause is the failure.
    if isinstance(exc, tools.ToolException) and exc.__cause__ is not None:
        return outcome(exc.__cause__)
    return outcome(exc)


def handle_tool_error(exc: Exception) -> str:
    """The text a model reads for a failed tool: for `handle_tool_error=` and `ToolNode(handle_tool_errors=)`."""
    return _outcome_of(exc).text


def on_error(exc: Exception, request: Any) -> str:
    """The `on_error` handler of `langchain.agents.middleware.ToolErrorMiddleware`."""
    return _outcome_of(exc).text


def _raise(result: Outcome) -> Any:
    error = _tools().ToolException(result.text)
    error.errconv_outcome = result
    raise error from result.error


def _arguments(request: Any) -> dict[str, Any]:
    args = request.tool_call.get("args") or {}
    return dict(args) if isinstance(args, dict) else {"*": args}


def _schema_properties(request: Any) -> Any:
    """The tool's argument schema (`BaseTool.args`: name to JSON Schema), or None."""
    try:
        return request.tool.args if request.tool is not None else None
    except Exception:  # a tool whose schema cannot be built: no defaults
        return None


def middleware(guard: ToolGuard | bool | None = True, tools: list[Any] | None = None, telemetry: bool = False) -> Any:
    """A `ToolErrorMiddleware` for `create_agent(..., middleware=[...])` with errconv's text and the guard.

    Every exception a tool raises becomes an error `ToolMessage` with the move; with the
    guard (on by default), an identical call (tool name and arguments) that ended
    give_up, or a wait whose delay has not passed, is answered with a refusal without
    running the tool. `tools` limits it to some tools, as ToolErrorMiddleware's does.
    `telemetry=True` records each failure and refusal on the span current at the call
    (`errconv.otel`; `errconv.otel.instrument()` does it for every shell).
    """
    mw = require("langchain.agents.middleware", package="LangChain (langchain)", extra="langchain")
    messages = require("langchain_core.messages", **_EXTRA)
    the_guard = resolve_guard(guard)
    observer = _telemetry(telemetry)
    base: Any = mw.ToolErrorMiddleware

    class ErrconvToolMiddleware(base):  # type: ignore[misc]
        """ToolErrorMiddleware with errconv's translation and the harness guard."""

        def _key(self, request: Any) -> tuple[str, str]:
            # With the defaults the tool's schema states: a default spelled out or left out is one call.
            defaults = schema_defaults({"properties": _schema_properties(request)})
            return call_key(str(request.tool_call["name"]), _arguments(request), defaults)

        def _refused(self, request: Any) -> Any:
            name = request.tool.name if request.tool else request.tool_call["name"]
            if the_guard is None or not self._should_handle_tool(name):
                return None
            try:
                the_guard.check(self._key(request))
            except GuardRefused as refused:
                report_refusal(observer, refused)
                return messages.ToolMessage(
                    content=refusal(name, refused).text, tool_call_id=request.tool_call["id"], name=name, status="error"
                )
            return None

        def _on_error(self, exc: Exception, request: Any) -> str:
            result = _outcome_of(exc)
            if the_guard is not None:
                the_guard.record(self._key(request), result.fault)
            report_failure(observer, result)
            return result.text

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            refused = self._refused(request)
            return refused if refused is not None else super().wrap_tool_call(request, handler)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            refused = self._refused(request)
            return refused if refused is not None else await super().awrap_tool_call(request, handler)

    instance = ErrconvToolMiddleware(on_error, tools=tools)
    instance.on_error = instance._on_error
    return instance


@overload
def wrap(fn: F, /) -> F: ...
@overload
def wrap(*, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Callable[[F], F]: ...
def wrap(fn: Any = None, /, *, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Any:
    """Decorate a tool function, or a LangChain tool, so a failure reaches the model as the move.

    On a plain function (sync or async), a failure raises a `ToolException` whose
    message is the text, so a tool with `handle_tool_error=True` (or this module's
    `handle_tool_error`) returns it. On a tool made by `@tool` / `StructuredTool`, its function (and
    coroutine) are wrapped the same way and its `handle_tool_error` is set to this
    module's when it had none: `@wrap` above `@tool` is all it takes. The guard is on
    by default (`guard=False` turns it off; a shared `ToolGuard` spans tools).
    `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: Any) -> Any:
        tools = _tools()
        if isinstance(f, tools.BaseTool):
            shared = resolve_guard(guard)  # one guard for the tool's sync and async paths
            tool_name = name or f.name
            for attr in ("func", "coroutine"):
                inner = getattr(f, attr, None)
                if callable(inner):
                    setattr(f, attr, guarded(inner, name=tool_name, guard=shared if shared is not None else False, on_failure=_raise, telemetry=telemetry))
            if not f.handle_tool_error:
                f.handle_tool_error = handle_tool_error
            return f
        return guarded(f, name=name, guard=guard, on_failure=_raise, telemetry=telemetry)

    return decorate(fn) if fn is not None else decorate


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
