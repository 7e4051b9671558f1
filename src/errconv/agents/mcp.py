"""errconv at an MCP tool boundary (the official Python SDK, `mcp`; the `mcp` extra).

The SDK turns a raising tool into `CallToolResult(isError=True)` whose only content is
`str(exc)` (or, for an unexpected exception, `Error executing tool <name>`): nothing
machine-readable, no next move. Here a failure becomes:

- `content`: one text block, `errconv.agent_message` (the move, credentials redacted);
- `structuredContent`: the fault as RFC 9457 problem JSON built by allow-list
  (`errconv.agents._core.problem_json`: errconv's own fields, never the service's
  extension members unless carried by name with `errconv.agents.carry`; every string
  scrubbed of credentials; at most 4 KiB), so errconv's `mcp` dialect, and any client
  that reads problem JSON, reads it back: `errconv.decode(result_json)` gives the same
  next step, delay and parameter;
- `_meta["io.modelcontextprotocol/toolFailure"]`: the move in the shape of the draft
  SEP-3313 (modelcontextprotocol PRs #3312/#3313, open): `class` (`reliability` for a
  wait, `capability` for fix_request and give_up, `governance` for 401/403), `code`
  (the fault's own, else the SEP's baseline vocabulary), `retryable` (true only for a
  wait), `retryNotBefore` (Unix epoch milliseconds, for a wait with a delay),
  `correlationId` (the response's request id when the fault has one, else a fresh
  UUID) and `agentGuidance` (the move in one sentence).

    from mcp.server.mcpserver import MCPServer
    from errconv.agents.mcp import wrap

    server = MCPServer("payments")

    @server.tool()
    @wrap
    def charge(amount: int, currency: str) -> str:
        ...  # whatever the client library raises becomes the result above
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar, cast, overload

import errconv
from errconv import Fault, NextStep

from errconv._agent_text import _identifier

from ._core import Outcome, ToolGuard, _request_id, guarded, outcome, problem_json, require, safe_code

__all__ = ["TOOL_FAILURE_META", "tool_failure", "tool_result", "wrap"]

F = TypeVar("F", bound=Callable[..., Any])

TOOL_FAILURE_META = "io.modelcontextprotocol/toolFailure"
"""The `_meta` key of the draft SEP-3313 tool-failure classification."""

_CENTURY = 100 * 365 * 86_400

# The SEP's baseline codes, for a fault that carries no code of its own.
_BASELINE = {401: "auth_required", 403: "permission_denied", 404: "resource_not_found"}


def _mcp() -> Any:
    return require("mcp.types", package="the MCP Python SDK (mcp)", extra="mcp")


def tool_failure(fault: Fault, *, now: float | None = None, guidance: str | None = None) -> dict[str, Any]:
    """The draft `toolFailure` object (SEP-3313) for `fault`; `now` is Unix time in seconds.

    Built from errconv's own fields only: the class and `retryable` from the move, `code`
    where it is a short identifier the redaction leaves alone (else the SEP's baseline),
    `retryNotBefore` from the delay, the request id where it is a plain identifier (else
    a fresh UUID), and `agentGuidance` (`errconv.agent_message`, or `guidance`).
    """
    step = fault.next_step
    if step == NextStep.WAIT:
        cls = "reliability"
    elif fault.status in (401, 403) and step != NextStep.FIX_REQUEST:
        cls = "governance"  # a credential or a permission: out-of-band action, not a retry
    else:
        cls = "capability"
    code = safe_code(fault)
    if code is None:
        if step == NextStep.WAIT:
            code = "retryable_transient_error"
        elif step == NextStep.FIX_REQUEST:
            code = "invalid_input"
        else:
            code = _BASELINE.get(fault.status, "tool_failed")
    failure: dict[str, Any] = {"class": cls, "code": code, "retryable": step == NextStep.WAIT}
    if step == NextStep.WAIT and fault.retry_after_seconds is not None:
        at = time.time() if now is None else now
        # A delay past any date (a hostile Retry-After) is capped at a century, not an overflow.
        failure["retryNotBefore"] = int((at + min(fault.retry_after_seconds, _CENTURY)) * 1000)
    # The response's request id where it is a plain identifier the redaction leaves alone.
    request_id = _request_id(fault)
    failure["correlationId"] = (_identifier(request_id) if request_id else None) or uuid.uuid4().hex
    failure["agentGuidance"] = guidance if guidance is not None else errconv.agent_message(fault)
    return failure


def _result(result: Outcome) -> Any:
    types = _mcp()
    structured = problem_json(result.fault)  # errconv's fields only, scrubbed, at most STRUCTURED_MAX_BYTES
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structured_content=structured,
        is_error=True,
        _meta={TOOL_FAILURE_META: tool_failure(result.fault, guidance=result.text)},
    )


def tool_result(exc_or_fault: BaseException | Fault) -> Any:
    """The `mcp.types.CallToolResult(isError=True)` for an exception a tool raised, or a Fault.

    Returns it rather than raising, as MCP asks of tool errors: the model sees it.
    """
    return _result(outcome(exc_or_fault))


@overload
def wrap(fn: F, /) -> F: ...
@overload
def wrap(*, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Callable[[F], F]: ...
def wrap(fn: Any = None, /, *, guard: ToolGuard | bool | None = True, name: str | None = None, telemetry: bool = False) -> Any:
    """Decorate a tool function (sync or async) so a failure returns `tool_result(...)`.

    Put it under the server's `@server.tool()`: the SDK reads the function's signature
    and docstring through it, and passes a returned `CallToolResult` on as it is. The
    harness guard is on by default (`guard=False` turns it off; a shared `ToolGuard`
    spans tools); `name` is the tool's name in the guard's key and in refusals
    (the function's name by default). The SDK's own protocol errors (`MCPError`)
    propagate unchanged. Without the SDK, raises ImportError naming the `mcp` extra.
    `telemetry=True` records each failure on the span current at the call (`errconv.otel`).
    """

    def decorate(f: F) -> F:
        # The SDK is checked here, when the tool is made: not when the tool first fails,
        # where its ImportError would stand in for the tool's own error.
        _mcp()
        passthrough: tuple[type[BaseException], ...] = ()
        skip: tuple[type, ...] = ()
        try:
            from mcp.shared.exceptions import MCPError

            passthrough = (MCPError,)
        except ImportError:  # an SDK without it: nothing of its own to pass through
            pass
        try:
            from mcp.server.mcpserver import Context

            skip = (Context,)
        except ImportError:
            pass
        wrapped = cast(F, guarded(f, name=name, guard=guard, on_failure=_result, skip_types=skip, passthrough=passthrough, telemetry=telemetry))
        return wrapped

    return decorate(fn) if fn is not None else decorate


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
