"""errconv.agents.mcp with the real MCP SDK: an MCPServer and a Client connected in memory."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from agents_cases import EXPECTED, MAKE, NAMES, TERMINAL, check_refusal, check_text, leak
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

import errconv
from errconv.agents import ToolGuard
from errconv.agents.mcp import TOOL_FAILURE_META, tool_result, wrap

ARGS = {"amount": 150, "currency": "usd"}


def _server(name: str, calls: list[dict[str, Any]], *, is_async: bool = False, guard: Any = True) -> MCPServer:
    server = MCPServer("payments")
    if is_async:

        @server.tool()
        @wrap(guard=guard)
        async def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append({"amount": amount, "currency": currency})
            raise MAKE[name]()

    else:

        @server.tool()
        @wrap(guard=guard)
        def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append({"amount": amount, "currency": currency})
            raise MAKE[name]()

    return server


async def _twice(server: MCPServer, args: dict[str, Any] = ARGS) -> tuple[Any, Any]:
    async with Client(server) as client:
        first = await client.call_tool("transfer", args)
        second = await client.call_tool("transfer", args)
    return first, second


def _text(result: Any) -> str:
    assert len(result.content) == 1
    return str(result.content[0].text)


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_the_model_reads_the_move_and_the_result_reads_back(name: str, is_async: bool) -> None:
    calls: list[dict[str, Any]] = []
    first, second = asyncio.run(_twice(_server(name, calls, is_async=is_async)))
    move, what = EXPECTED[name]
    assert first.is_error is True
    check_text(name, _text(first))
    # Nothing secret anywhere in what crossed the wire, structured part and _meta included.
    wire = first.model_dump_json(by_alias=True, exclude_none=True)
    leak(wire)
    # errconv's mcp dialect reads the result back: the same move, delay and parameter.
    back = errconv.decode(wire.encode())
    assert errconv.detect(wire.encode()) == "mcp"
    assert back.next_step == move
    assert back.retry_after_seconds == (30 if move == "wait" else None)
    assert back.param == ("currency" if move == "fix_request" else None)
    # The structured content is the problem body of the same fault.
    assert errconv.decode(json.dumps(first.structured_content).encode(), "problem").next_step == move
    # The draft toolFailure in _meta.
    failure = first.meta[TOOL_FAILURE_META]
    assert failure["retryable"] is (move == "wait")
    assert failure["class"] == ("reliability" if move == "wait" else "capability")
    assert failure["correlationId"]
    if move == "wait":
        assert failure["retryNotBefore"] == pytest.approx((time.time() + 30) * 1000, abs=5000)
    else:
        assert "retryNotBefore" not in failure
    # The guard: a give_up or a wait is refused the second time without calling the tool;
    # a fix_request repeated goes through (and fails again).
    if name in TERMINAL or move == "wait":
        assert len(calls) == 1
        assert second.is_error is True
        check_refusal(name, _text(second))
        leak(second.model_dump_json(by_alias=True))
        assert errconv.decode(second.model_dump_json(by_alias=True).encode()).next_step == move
    else:
        assert len(calls) == 2
        check_text(name, _text(second))


def test_without_the_guard_every_call_reaches_the_tool() -> None:
    calls: list[dict[str, Any]] = []
    first, second = asyncio.run(_twice(_server("card_declined", calls, guard=False)))
    assert len(calls) == 2
    check_text("card_declined", _text(second))


def test_different_arguments_are_a_different_call() -> None:
    calls: list[dict[str, Any]] = []
    server = _server("card_declined", calls)

    async def run() -> tuple[Any, Any]:
        async with Client(server) as client:
            await client.call_tool("transfer", ARGS)
            other = await client.call_tool("transfer", {"amount": 20, "currency": "usd"})
            same = await client.call_tool("transfer", {"currency": "usd", "amount": 150})  # order does not matter
        return other, same

    other, same = asyncio.run(run())
    assert len(calls) == 2
    assert not _text(other).startswith("Not called")
    assert _text(same).startswith("Not called")


def test_a_shared_guard_spans_servers() -> None:
    guard = ToolGuard()
    calls: list[dict[str, Any]] = []
    asyncio.run(_twice(_server("secret", calls, guard=guard)))
    asyncio.run(_twice(_server("secret", calls, guard=guard)))
    assert len(calls) == 1
    assert len(guard) == 1


def test_the_sdk_alone_gives_no_move() -> None:
    # The baseline this adapter replaces: the same tool without wrap.
    server = MCPServer("payments")

    @server.tool()
    def transfer(amount: int, currency: str) -> str:
        raise MAKE["rate_limited"]()

    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool("transfer", ARGS)

    result = asyncio.run(run())
    assert result.is_error is True and result.structured_content is None
    assert "30" not in _text(result)


def test_tool_result_of_a_fault_and_of_an_exception() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30)
    result = tool_result(fault)
    assert result.is_error and "30 seconds" in result.content[0].text
    assert result.meta[TOOL_FAILURE_META]["code"] == "rate_limited"
    denied = tool_result(errconv.Fault.build(status=403, code="forbidden"))
    assert denied.meta[TOOL_FAILURE_META]["class"] == "governance"
    assert denied.meta[TOOL_FAILURE_META]["retryable"] is False
    result = tool_result(MAKE["card_declined"]())
    assert result.meta[TOOL_FAILURE_META]["correlationId"] == "req_agents1"
    with pytest.raises(TypeError):
        tool_result("boom")  # type: ignore[arg-type]


def test_a_body_that_echoes_a_key_reaches_no_part_of_the_result() -> None:
    import httpx
    from agents_cases import SECRET_KEY

    body = {"title": "Bad request", "status": 400, "detail": f"key {SECRET_KEY} may not set currency", "param": "currency"}
    server = MCPServer("payments")

    @server.tool()
    @wrap
    def transfer(amount: int, currency: str) -> str:
        request = httpx.Request("POST", f"https://api.example.com/v1/transfers?key={SECRET_KEY}")
        httpx.Response(400, json=body, request=request, headers={"Content-Type": "application/problem+json"}).raise_for_status()
        return "sent"

    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool("transfer", ARGS)

    result = asyncio.run(run())
    wire = result.model_dump_json(by_alias=True)
    leak(wire)
    assert errconv.decode(wire.encode()).param == "currency"


def test_the_request_context_is_not_part_of_the_key() -> None:
    calls: list[int] = []
    server = MCPServer("payments")

    @server.tool()
    @wrap
    async def transfer(amount: int, currency: str, ctx: Context) -> str:
        """Move money."""
        assert ctx is not None  # the SDK still injects it through the wrapper
        calls.append(amount)
        raise MAKE["card_declined"]()

    first, second = asyncio.run(_twice(server))
    assert calls == [150]
    check_text("card_declined", _text(first))
    check_refusal("card_declined", _text(second))
