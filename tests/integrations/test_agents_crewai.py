"""errconv.agents.crewai with real CrewAI tools, where CrewAI is installed.

CrewAI pins `mcp<2` and `pydantic<2.13`, which the `test` extra (with `mcp>=2`) cannot
hold, so it has its own extra and its own environment:

    python -m venv /tmp/crewai-env && /tmp/crewai-env/bin/pip install -e '.[crewai]' pytest hypothesis httpx stripe
    /tmp/crewai-env/bin/python -m pytest -p no:cacheprovider tests/integrations/test_agents_crewai.py

In the test environment (no CrewAI) this file checks what a user without the extra
meets: the ImportError naming it. The tests that need CrewAI are skipped there, by name.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from typing import Any

import pytest
from agents_cases import EXPECTED, MAKE, NAMES, TERMINAL, check_refusal, check_text, leak

import errconv

HAS_CREWAI = importlib.util.find_spec("crewai") is not None
needs_crewai = pytest.mark.skipif(not HAS_CREWAI, reason="CrewAI conflicts with the test extra (mcp<2); run in the crewai extra's env")
ARGS = {"amount": 150, "currency": "usd"}


@pytest.mark.skipif(HAS_CREWAI, reason="checks the environment without CrewAI")
def test_without_crewai_the_error_names_the_extra() -> None:
    from errconv.agents import crewai as adapter  # importing the module imports no CrewAI

    with pytest.raises(ImportError, match=r"pip install 'errconv\[crewai\]'"):
        adapter.tool_failure(RuntimeError("x"))
    with pytest.raises(ImportError, match=r"pip install 'errconv\[crewai\]'"):
        adapter.wrap(lambda: None)


@needs_crewai
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", NAMES)
def test_a_crewai_tool_returns_a_tool_failure_with_the_move(name: str, is_async: bool) -> None:
    from crewai.tools import tool
    from crewai.tools.tool_failure import ToolFailure, detect_tool_failure

    from errconv.agents.crewai import wrap

    calls: list[int] = []
    if is_async:

        @tool("transfer")
        @wrap
        async def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

        def run() -> Any:
            return asyncio.run(transfer.arun(**ARGS))

    else:

        @tool("transfer")
        @wrap
        def transfer(amount: int, currency: str) -> str:
            """Move money."""
            calls.append(amount)
            raise MAKE[name]()

        def run() -> Any:
            return transfer.run(**ARGS)

    assert set(transfer.args_schema.model_fields) == {"amount", "currency"}
    first, second = run(), run()
    move, _ = EXPECTED[name]
    failure = detect_tool_failure(first)
    assert isinstance(failure, ToolFailure)
    assert failure.retryable is (move == "wait")
    assert failure.details["next_step"] == move
    # What the agent reads: CrewAI renders the failure as its message and code.
    text = transfer.format_output_for_agent(first)
    check_text(name, text)
    leak(failure.model_dump_json())
    back = errconv.decode(json.dumps(failure.details["problem"]).encode(), "problem")
    assert back.next_step == move
    if name in TERMINAL or move == "wait":
        assert calls == [150]
        check_refusal(name, transfer.format_output_for_agent(second))
        assert detect_tool_failure(second).details["refused"] is True
    else:
        assert calls == [150, 150]


@needs_crewai
def test_tool_failure_of_a_fault() -> None:
    from errconv.agents.crewai import tool_failure

    failure = tool_failure(errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30))
    assert failure.retryable is True and failure.code == "rate_limited"
    assert failure.details["retry_after_seconds"] == 30


@needs_crewai
def test_the_readme_crewai_example_runs_as_pasted() -> None:
    import pathlib
    import re
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    section = (root / "docs" / "guide" / "agents.md").read_text().split("## For agent builders", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```py\n(.*?)```", section, re.DOTALL)
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "give_up" in result.stdout
