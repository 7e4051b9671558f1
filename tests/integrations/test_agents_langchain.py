"""errconv.agents.langchain with real LangChain / LangGraph: ToolNode, tools, and create_agent over a fake chat model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents_cases import EXPECTED, MAKE, NAMES, TERMINAL, check_refusal, check_text, leak
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from errconv.agents.langchain import handle_tool_error, middleware, wrap

ARGS = {"amount": 150, "currency": "usd"}


def _call(i: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": "transfer", "args": dict(ARGS), "id": f"call_{i}", "type": "tool_call"}])


def _tool(name: str, calls: list[int], *, is_async: bool = False) -> BaseTool:
    if is_async:

        @tool
        async def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    else:

        @tool
        def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    return transfer


def _via_tool_node(node: ToolNode, times: int = 2, is_async: bool = False) -> list[ToolMessage]:
    # A ToolNode runs inside a graph (it reads the graph's runtime): the smallest one.
    builder = StateGraph(MessagesState)
    builder.add_node("tools", node)
    builder.add_edge(START, "tools")
    builder.add_edge("tools", END)
    graph = builder.compile()
    out: list[ToolMessage] = []
    for i in range(times):
        state = {"messages": [_call(i)]}
        result = asyncio.run(graph.ainvoke(state)) if is_async else graph.invoke(state)
        message = result["messages"][-1]
        assert isinstance(message, ToolMessage)
        out.append(message)
    return out


def _check_pair(name: str, calls: list[int], first: ToolMessage, second: ToolMessage) -> None:
    assert first.status == "error" and second.status == "error"
    check_text(name, str(first.content))
    if name in TERMINAL or EXPECTED[name][0] == "wait":
        assert calls == [150]
        check_refusal(name, str(second.content))
    else:
        assert calls == [150, 150]
        check_text(name, str(second.content))


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_wrap_over_tool_in_a_tool_node(name: str, is_async: bool) -> None:
    calls: list[int] = []
    wrapped = wrap(_tool(name, calls, is_async=is_async))
    assert wrapped.handle_tool_error is handle_tool_error
    assert set(wrapped.args) == {"amount", "currency"}
    first, second = _via_tool_node(ToolNode([wrapped]), is_async=is_async)
    _check_pair(name, calls, first, second)


@pytest.mark.parametrize("name", NAMES)
def test_wrap_under_tool_raises_a_tool_exception_with_the_text(name: str) -> None:
    calls: list[int] = []

    @wrap
    def move(amount: int, currency: str) -> str:
        """Move money."""
        calls.append(amount)
        raise MAKE[name]()

    transfer = StructuredTool.from_function(move, name="transfer", handle_tool_error=True)

    first, second = _via_tool_node(ToolNode([transfer]))
    _check_pair(name, calls, first, second)
    # Called directly, the function raises the ToolException, chained to the original.
    with pytest.raises(ToolException) as info:
        transfer.func(amount=1, currency="eur")  # type: ignore[misc]
    check_text(name, str(info.value))


@pytest.mark.parametrize("name", NAMES)
def test_handle_tool_error_in_tool_node_and_on_a_tool(name: str) -> None:
    calls: list[int] = []
    node = ToolNode([_tool(name, calls)], handle_tool_errors=handle_tool_error)
    first, _ = _via_tool_node(node)
    check_text(name, str(first.content))
    assert calls == [150, 150]  # no guard on this path: a hook only sees the failure
    # The same tool with LangGraph's own handler: the exception's repr, whatever the move.
    default = _via_tool_node(ToolNode([_tool(name, [])], handle_tool_errors=True), times=1)[0]
    assert "Please fix your mistakes" in str(default.content)

    def move(amount: int, currency: str) -> str:
        """Move money."""
        raise ToolException("upstream failed") from MAKE[name]()

    transfer = StructuredTool.from_function(move, name="transfer", handle_tool_error=handle_tool_error)

    message = transfer.invoke({"name": "transfer", "args": ARGS, "id": "call_x", "type": "tool_call"})
    assert message.status == "error"
    check_text(name, str(message.content))


class _ToolCallingFake(FakeMessagesListChatModel):
    """LangChain's fake chat model, told that it can call tools (it answers from its list)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_middleware_in_create_agent(name: str, is_async: bool) -> None:
    calls: list[int] = []
    model = _ToolCallingFake(responses=[_call(0), _call(1), AIMessage(content="done")])
    agent = create_agent(model, tools=[_tool(name, calls, is_async=is_async)], middleware=[middleware()])
    inputs = {"messages": [{"role": "user", "content": "send 150 usd"}]}
    state = asyncio.run(agent.ainvoke(inputs)) if is_async else agent.invoke(inputs)
    assert state["messages"][-1].content == "done"
    first, second = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    _check_pair(name, calls, first, second)
    leak([m.content for m in state["messages"]])


def test_middleware_without_guard_and_limited_to_some_tools() -> None:
    calls: list[int] = []
    model = _ToolCallingFake(responses=[_call(0), _call(1), AIMessage(content="done")])
    agent = create_agent(model, tools=[_tool("secret", calls)], middleware=[middleware(guard=False)])
    state = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    assert calls == [150, 150]
    for message in [m for m in state["messages"] if isinstance(m, ToolMessage)]:
        check_text("secret", str(message.content))
    # Limited to another tool: the failure propagates as LangChain lets it.
    model = _ToolCallingFake(responses=[_call(0), AIMessage(content="done")])
    agent = create_agent(model, tools=[_tool("secret", [])], middleware=[middleware(tools=["other"])])
    with pytest.raises(RuntimeError):
        agent.invoke({"messages": [{"role": "user", "content": "go"}]})
