"""errconv.agents.openai_agents with the real Agents SDK: Runner over its ScriptedModel (offline)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, RunContextWrapper, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from agents_cases import EXPECTED, MAKE, NAMES, TERMINAL, check_refusal, check_text

from errconv.agents.openai_agents import failure_error_function, wrap

# Offline: no trace export is attempted.
set_tracing_disabled(True)

ARGS = {"amount": 150, "currency": "usd"}


def _outputs(model: ScriptedModel) -> list[str]:
    """Every function-call output the model was sent, in order (the last call's input holds them all)."""
    items = model.calls[-1].input
    return [str(item["output"]) for item in items if isinstance(item, dict) and item.get("type") == "function_call_output"]


def _run(tool: Any, calls: int = 2) -> ScriptedModel:
    steps: list[Any] = [[function_call("transfer", ARGS, call_id=f"call_{i}")] for i in range(calls)]
    model = ScriptedModel([*steps, [assistant_message("done")]])
    agent = Agent(name="payments", instructions="Move money.", model=model, tools=[tool])
    result = asyncio.run(Runner.run(agent, "send 150 usd"))
    assert result.final_output == "done"
    return model


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_wrap_tells_the_model_the_move_and_guards_the_repeat(name: str, is_async: bool) -> None:
    calls: list[int] = []
    if is_async:

        @function_tool
        @wrap
        async def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    else:

        @function_tool
        @wrap
        def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

    # The SDK still reads the function's own schema through the wrapper.
    assert set(transfer.params_json_schema["properties"]) == {"amount", "currency"}
    assert transfer.description == "Move money."
    first, second = _outputs(_run(transfer))
    check_text(name, first)
    move = EXPECTED[name][0]
    if name in TERMINAL or move == "wait":
        assert calls == [150]
        check_refusal(name, second)
    else:
        assert calls == [150, 150]
        check_text(name, second)


@pytest.mark.parametrize("name", NAMES)
def test_failure_error_function_replaces_the_default(name: str) -> None:
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise MAKE[name]()

    tool = function_tool(transfer, failure_error_function=failure_error_function)
    (first,) = _outputs(_run(tool, calls=1))
    check_text(name, first)
    # The SDK's own default, for contrast: the same text whatever the failure.
    (default,) = _outputs(_run(function_tool(transfer), calls=1))
    assert "try again" in default.lower() and EXPECTED[name][0] not in default


def test_the_run_context_is_not_part_of_the_key() -> None:
    calls: list[int] = []

    @function_tool
    @wrap
    def transfer(ctx: RunContextWrapper[Any], amount: int, currency: str) -> str:
        """Move money."""
        calls.append(amount)
        raise MAKE["card_declined"]()

    first, second = _outputs(_run(transfer))
    assert calls == [150]
    check_refusal("card_declined", second)


@pytest.mark.parametrize("name", NAMES)
def test_hooks_guard_tools_that_are_not_wrapped(name: str) -> None:
    from errconv.agents.openai_agents import hooks

    calls: list[int] = []

    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        calls.append(amount)
        raise MAKE[name]()

    h = hooks()
    first, second = _outputs(_run(h.tool(transfer)))
    check_text(name, first)
    if name in TERMINAL or EXPECTED[name][0] == "wait":
        assert calls == [150]
        check_refusal(name, second)
    else:
        assert calls == [150, 150]
        check_text(name, second)
