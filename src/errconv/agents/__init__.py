"""Agent-framework adapters: an exception at a tool call becomes a move the model can act on.

Agents meet errors at one place, a tool call, and most frameworks hand the model
`str(exc)` and "please try again" whatever the failure (and `str(exc)` can carry a URL
with its query string, headers or a body). Each module here puts errconv at that
boundary for one framework: the exception is read with `errconv.from_exception`, the
model reads `errconv.agent_message` (the move: fix a named parameter, wait a stated
number of seconds, or stop), and the framework gets the result shape it knows.

`errconv.agents.wrap(fn)` is the tool wrapper for an agent in no framework (a plain loop
over plain functions): a failure comes back as the text the model reads, or, with
`raise_errors=True`, as one `errconv.agents.ToolError` carrying `.fault` and `.text`.

    from errconv.agents import wrap

    @wrap
    def charge(amount: int, currency: str) -> str:
        ...  # what the client library raises becomes "Fix the request: ..." / "Wait 30 seconds ..."

| module | framework | hook | a failure becomes |
|---|---|---|---|
| `errconv.agents.mcp` | the MCP Python SDK | `tool_result(exc_or_fault)` | `CallToolResult(isError=True)`, problem JSON in `structuredContent`, the draft `toolFailure` in `_meta` |
| `errconv.agents.openai_agents` | OpenAI Agents SDK | `failure_error_function`, `hooks()` | the text, as the tool's output |
| `errconv.agents.langchain` | LangChain / LangGraph | `handle_tool_error`, `on_error`, `middleware()` | a `ToolMessage(status="error")` |
| `errconv.agents.pydantic_ai` | PydanticAI | `capability()` (every tool of an agent) | fix_request: `ModelRetry`; give_up: `ToolFailed`; wait: one retry after a short sleep, else `ToolFailed` stating the wait |
| `errconv.agents.llama_index` | LlamaIndex | `tool_output(exc_or_fault, tool_name)` | `ToolOutput(is_error=True)` |
| `errconv.agents.crewai` | CrewAI | `tool_failure(exc_or_fault)` | `ToolFailure(code, retryable)` |

Every module has `wrap` too, the same boundary as `errconv.agents.wrap`: a decorator for a tool function (sync or async) that does the
translation and runs the harness guard of seed 000 at the tool boundary, on by default:
an identical call (the tool's name and the canonical JSON of its arguments) that
already ended give_up is refused without calling the tool, and one that ended wait is
refused until its delay has passed; the model then reads a result that says so.
`ToolGuard` is that guard (an `errconv.retry.TerminalGuard` that also remembers waits);
pass one to several `wrap`s to share it, or `guard=False` to turn it off.

What a model receives as structure (MCP `structuredContent` and `_meta`, LlamaIndex's
`raw_output`, CrewAI's `details`) is built by allow-list from errconv's own fields, never
by copying the service's extension members: `carry("name", ...)` opts more members in,
by name. Every string in it is scrubbed of credentials, whatever built the fault, and the
whole is at most `STRUCTURED_MAX_BYTES` (4 KiB) of JSON.

Importing this package imports no framework; each module imports its framework when
it is used, and raises ImportError naming the extra to install when it is missing
(`pip install 'errconv[mcp]'`).
"""

from ._core import STRUCTURED_MAX_BYTES, Outcome, ToolGuard, WaitRefused, call_key, carry, outcome
from ._plain import ToolError, wrap

__all__ = ["STRUCTURED_MAX_BYTES", "Outcome", "ToolError", "ToolGuard", "WaitRefused", "call_key", "carry", "outcome", "wrap"]
