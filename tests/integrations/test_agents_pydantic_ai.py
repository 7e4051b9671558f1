"""errconv.agents.pydantic_ai with real PydanticAI agents over FunctionModel and TestModel (offline)."""

from __future__ import annotations

from typing import Any

import pytest
from agents_cases import EXPECTED, MAKE, NAMES, check_refusal, check_text, leak
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from errconv.agents import ToolGuard
from errconv.agents.pydantic_ai import wrap
from errconv.retry import VirtualClock

ARGS = {"amount": 150, "currency": "usd"}


class Script:
    """A FunctionModel script: call `transfer` with ARGS `times` times, then answer; records what it was sent."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.seen: list[tuple[str, str]] = []  # (kind, text) of each tool result the model received

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):
                    # A ModelRetry comes back as outcome "retried", a ToolFailed as "failed".
                    self.seen.append((part.outcome, part.model_response_str()))
        calls = sum(1 for m in messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart))
        if calls < self.times:
            return ModelResponse(parts=[ToolCallPart("transfer", dict(ARGS), tool_call_id=f"call_{calls}")])
        return ModelResponse(parts=[TextPart("done")])


def _agent(script: Script, tool: Any) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(script))
    agent.tool_plain(retries=3)(tool)
    return agent


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_the_model_reads_the_move_and_the_guard_refuses_the_repeat(name: str, is_async: bool) -> None:
    calls: list[int] = []
    clock = VirtualClock()
    if is_async:

        @wrap(clock=clock)
        async def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    else:

        @wrap(clock=clock)
        def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    script = Script(times=2)
    result = _agent(script, transfer).run_sync("send 150 usd")
    assert result.output == "done"
    (kind1, first), (kind2, second) = script.seen
    move = EXPECTED[name][0]
    check_text(name, first)
    leak(result.all_messages_json())
    if move == "fix_request":
        # ModelRetry: the model is asked to correct the arguments; the identical call is not refused.
        assert (kind1, kind2) == ("retried", "retried")
        assert calls == [150, 150]
        check_text(name, second)
    elif move == "wait":
        # 30 s is within max_wait: slept once (on the test clock) and repeated once, then
        # reported; the identical call is then refused until the delay has passed.
        assert clock.sleeps == [30.0]
        assert calls == [150, 150]
        assert (kind1, kind2) == ("failed", "failed")
        check_refusal(name, second)
    else:
        assert (kind1, kind2) == ("failed", "failed")
        assert "Fix the errors" not in first and "try again" not in first.lower()
        assert calls == [150]
        check_refusal(name, second)


def test_a_wait_longer_than_max_wait_is_reported_not_slept_and_expires() -> None:
    clock = VirtualClock()
    calls: list[int] = []

    @wrap(clock=clock, max_wait=10)
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        calls.append(amount)
        raise MAKE["rate_limited"]()

    script = Script(times=2)
    _agent(script, transfer).run_sync("send")
    assert clock.sleeps == [] and calls == [150]
    check_text("rate_limited", script.seen[0][1])
    check_refusal("rate_limited", script.seen[1][1])
    # After the delay the identical call goes through again.
    clock.advance(30)
    script = Script(times=1)
    _agent(script, transfer).run_sync("send")
    assert calls == [150, 150]


def test_a_shared_guard_and_the_run_context_is_not_in_the_key() -> None:
    guard = ToolGuard()
    calls: list[int] = []

    @wrap(guard=guard)
    def transfer(ctx: RunContext[None], amount: int, currency: str) -> str:
        """Move money."""
        calls.append(amount)
        raise MAKE["card_declined"]()

    script = Script(times=2)
    agent: Agent[None, str] = Agent(FunctionModel(script))
    agent.tool(transfer)
    agent.run_sync("send")
    assert calls == [150]
    assert len(guard) == 1
    check_refusal("card_declined", script.seen[1][1])


def test_with_test_model_the_run_survives_a_failing_tool() -> None:
    # TestModel calls every tool once with arguments it makes up; without wrap the
    # RuntimeError would end the run.
    agent: Agent[None, str] = Agent(TestModel())

    @agent.tool_plain
    @wrap
    def lookup(query: str) -> str:
        """Look something up."""
        raise RuntimeError("password=hunter2")

    result = agent.run_sync("look")
    returns = [p for m in result.all_messages() for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)]
    assert len(returns) == 1 and returns[0].outcome == "failed"
    check_text("secret", returns[0].model_response_str())

    plain: Agent[None, str] = Agent(TestModel())

    @plain.tool_plain
    def lookup2(query: str) -> str:
        """Look something up."""
        raise RuntimeError("password=hunter2")

    with pytest.raises(RuntimeError):
        plain.run_sync("look")


def test_pydantic_ai_control_flow_passes_through() -> None:
    from pydantic_ai import ModelRetry

    @wrap
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise ModelRetry("amount must be positive")

    script = Script(times=1)
    _agent(script, transfer).run_sync("send")
    assert script.seen[0][0] == "retried" and "amount must be positive" in script.seen[0][1]


@pytest.mark.parametrize("name", NAMES)
def test_the_capability_covers_every_tool_of_an_agent(name: str) -> None:
    from errconv.agents.pydantic_ai import capability

    calls: list[int] = []
    clock = VirtualClock()
    script = Script(times=2)
    agent: Agent[None, str] = Agent(FunctionModel(script), capabilities=[capability(clock=clock)])

    @agent.tool_plain(retries=3)
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        calls.append(amount)
        raise MAKE[name]()

    result = agent.run_sync("send 150 usd")
    assert result.output == "done"
    (kind1, first), (kind2, second) = script.seen
    move = EXPECTED[name][0]
    check_text(name, first)
    leak(result.all_messages_json())
    if move == "fix_request":
        assert (kind1, kind2) == ("retried", "retried") and calls == [150, 150]
    elif move == "wait":
        assert clock.sleeps == [30.0] and calls == [150, 150]
        check_refusal(name, second)
    else:
        assert (kind1, kind2) == ("failed", "failed") and calls == [150]
        check_refusal(name, second)
