"""errconv.agents.llama_index with real LlamaIndex FunctionTools, called as its agents call them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents_cases import EXPECTED, MAKE, NAMES, TERMINAL, check_refusal, check_text, leak
from llama_index.core.tools import FunctionTool, ToolOutput
from llama_index.core.tools.calling import acall_tool, call_tool

import errconv
from errconv.agents.llama_index import tool_output, wrap

ARGS = {"amount": 150, "currency": "usd"}


def _pair(tool: Any, is_async: bool) -> tuple[ToolOutput, ToolOutput]:
    # call_tool / acall_tool are what LlamaIndex's agents run for each tool call.
    if is_async:
        return asyncio.run(acall_tool(tool, dict(ARGS))), asyncio.run(acall_tool(tool, dict(ARGS)))
    return call_tool(tool, dict(ARGS)), call_tool(tool, dict(ARGS))


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_wrap_gives_an_error_output_with_the_move(name: str, is_async: bool) -> None:
    calls: list[int] = []
    if is_async:

        async def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    else:

        def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    tool = wrap(transfer)
    assert isinstance(tool, FunctionTool)
    assert tool.metadata.name == "transfer"
    assert set(tool.metadata.get_parameters_dict()["properties"]) == {"amount", "currency"}
    first, second = _pair(tool, is_async)
    move = EXPECTED[name][0]
    assert first.is_error and second.is_error
    check_text(name, first.content)
    leak(first.model_dump_json())
    # raw_output is the fault as problem JSON: errconv reads it back.
    back = errconv.decode(json.dumps(first.raw_output).encode(), "problem")
    assert back.next_step == move
    assert back.retry_after_seconds == (30 if move == "wait" else None)
    assert back.param == ("currency" if move == "fix_request" else None)
    if name in TERMINAL or move == "wait":
        assert calls == [150]
        check_refusal(name, second.content)
    else:
        assert calls == [150, 150]
        check_text(name, second.content)


def test_success_passes_through_and_a_users_callback_still_runs() -> None:
    seen: list[Any] = []

    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    tool = wrap(add, callback=lambda out: seen.append(out))
    result = tool.call(a=1, b=2)
    assert not result.is_error and result.content == "3" and seen == [3]


@pytest.mark.parametrize("name", NAMES)
def test_tool_output_and_the_frameworks_own_text(name: str) -> None:
    output = tool_output(MAKE[name](), "transfer", ARGS)
    assert output.is_error and output.tool_name == "transfer" and output.raw_input == ARGS
    check_text(name, output.content)
    # LlamaIndex alone, for contrast: "Encountered error: " + str(e).
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise MAKE[name]()

    plain = call_tool(FunctionTool.from_defaults(fn=transfer), dict(ARGS))
    assert plain.is_error and plain.content.startswith("Encountered error")
    if name == "secret":
        assert "hunter2" in plain.content  # the leak this adapter closes
