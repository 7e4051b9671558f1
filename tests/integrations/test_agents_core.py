"""errconv.agents' shared core: the translation, the guard at the tool boundary, the wrapper, lazy imports."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from typing import Any

import pytest
from agents_cases import EXPECTED, MAKE, NAMES, check_refusal, check_text

import errconv
from errconv.agents import Outcome, ToolGuard, WaitRefused, call_key, outcome
from errconv.agents._core import guarded, require
from errconv.retry import GuardRefused, RetryPolicy, TerminalGuard, VirtualClock

FRAMEWORKS = ("mcp", "agents", "langchain_core", "langchain", "langgraph", "pydantic_ai", "llama_index", "crewai")


def test_importing_the_adapters_imports_no_framework() -> None:
    code = (
        "import sys, errconv.agents, errconv.agents.mcp, errconv.agents.openai_agents, errconv.agents.langchain, "
        "errconv.agents.pydantic_ai, errconv.agents.llama_index, errconv.agents.crewai\n"
        f"print([m for m in {FRAMEWORKS!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_missing_framework_names_the_extra() -> None:
    with pytest.raises(ImportError, match=r"needs Foo \(foo-sdk\), which is not installed: pip install 'errconv\[foo\]'"):
        require("errconv_no_such_module", package="Foo (foo-sdk)", extra="foo")


@pytest.mark.parametrize("name", NAMES)
def test_outcome_of_each_case(name: str) -> None:
    result = outcome(MAKE[name]())
    move, _ = EXPECTED[name]
    assert result.next_step == move and not result.refused
    check_text(name, result.text)
    assert result == outcome(result.error) if result.error else True  # the error is not compared
    assert outcome(result.fault).text == result.text
    with pytest.raises(TypeError):
        outcome("boom")  # type: ignore[arg-type]


def test_call_key_is_canonical() -> None:
    assert call_key("t", {"b": 1, "a": [1, 2]}) == call_key("t", {"a": [1, 2], "b": 1})
    assert call_key("t", {"a": 1}) != call_key("u", {"a": 1})
    assert call_key("t", {"a": 1}) != call_key("t", {"a": 2})

    class Context:
        def __repr__(self) -> str:
            return "<Context>"

    # An object with no value errconv can read is keyed by its identity (issue 27): not
    # by its type or a constant repr, which made two different calls one.
    one = Context()
    assert call_key("t", {"ctx": one}) == call_key("t", {"ctx": one})
    assert call_key("t", {"ctx": Context()}) != call_key("t", {"ctx": Context()})
    # A pydantic model by its type and data.
    from pydantic import BaseModel

    class Money(BaseModel):
        amount: int

    assert call_key("t", {"m": Money(amount=1)}) == ("t", '{"m":' + f"{Money.__module__}.{Money.__qualname__}" + '{"amount":1}}')
    assert call_key("t", {1: "x", "a": "y"}) != call_key("t", {"1": "x", "a": "y"})  # keys by type


def test_the_guard_refuses_give_up_for_good_and_wait_until_its_delay() -> None:
    clock = VirtualClock()
    guard = ToolGuard(clock=clock)
    assert isinstance(guard, TerminalGuard)
    declined = outcome(MAKE["card_declined"]()).fault
    limited = outcome(MAKE["rate_limited"]()).fault
    missing = outcome(MAKE["missing_parameter"]()).fault
    assert guard.record(("a", "1"), declined)
    assert guard.record(("b", "1"), limited)
    assert not guard.record(("c", "1"), missing)  # a fix_request is followed by other arguments
    no_delay = outcome(ConnectionError("refused")).fault
    assert no_delay.next_step == "wait" and no_delay.retry_after_seconds is None
    assert not guard.record(("d", "1"), no_delay)  # no delay to enforce
    with pytest.raises(GuardRefused) as refused:
        guard.check(("a", "1"))
    assert not isinstance(refused.value, WaitRefused)
    clock.advance(12)
    with pytest.raises(WaitRefused) as waiting:
        guard.check(("b", "1"))
    assert waiting.value.remaining == 18
    clock.advance(18)
    guard.check(("b", "1"))  # the delay has passed: the call goes through
    guard.check(("c", "1"))
    clock.advance(10**6)
    with pytest.raises(GuardRefused):
        guard.check(("a", "1"))  # give_up has no expiry unless ttl says so
    expiring = ToolGuard(ttl=60, clock=clock)
    expiring.record(("a", "1"), declined)
    clock.advance(60)
    expiring.check(("a", "1"))


def test_the_guard_is_bounded_and_thread_safe() -> None:
    guard = ToolGuard(max_entries=50)
    fault = outcome(MAKE["secret"]()).fault

    def work(n: int) -> None:
        for i in range(200):
            guard.record(("t", f"{n}-{i}"), fault)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(guard) == 50


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_guarded_refuses_without_calling_and_passes_success_through(is_async: bool) -> None:
    calls: list[tuple[Any, ...]] = []
    seen: list[Outcome] = []

    def body(amount: int, currency: str = "usd", **extra: Any) -> str:
        calls.append((amount, currency, extra))
        if amount < 0:
            raise MAKE["secret"]()
        return "ok"

    if is_async:

        async def fn(amount: int, currency: str = "usd", **extra: Any) -> str:
            return body(amount, currency, **extra)

    else:
        fn = body  # type: ignore[assignment]

    wrapped = guarded(fn, name=None, guard=True, on_failure=lambda r: seen.append(r) or r.text)

    def run(*args: Any, **kwargs: Any) -> Any:
        result = wrapped(*args, **kwargs)
        return asyncio.run(result) if is_async else result

    assert asyncio.iscoroutinefunction(wrapped) is is_async
    assert wrapped.__name__ == "fn" if is_async else wrapped.__name__ == "body"
    assert run(1) == "ok"
    check_text("secret", run(-1))
    # Positional, keyword and defaulted spellings of one call are one call.
    check_refusal("secret", run(-1, "usd"))
    check_refusal("secret", run(amount=-1))
    assert len(calls) == 2
    assert [r.refused for r in seen] == [False, True, True]
    # **kwargs are arguments too.
    run(-1, note="a")
    run(-1, note="b")
    assert len(calls) == 4


def test_guarded_retries_a_short_wait_once_on_the_policy_clock() -> None:
    clock = VirtualClock()
    calls: list[int] = []

    def fn(n: int) -> str:
        calls.append(n)
        if len(calls) == 1:
            raise MAKE["rate_limited"]()
        return "ok"

    wrapped = guarded(fn, name="fn", guard=ToolGuard(clock=clock), on_failure=lambda r: r.text, retry=RetryPolicy(budget=2, max_sleep=60, clock=clock))
    assert wrapped(1) == "ok"
    assert clock.sleeps == [30.0] and calls == [1, 1]


def test_passthrough_exceptions_propagate_and_a_plain_terminal_guard_is_accepted() -> None:
    class Signal(Exception):
        pass

    def fn() -> None:
        raise Signal()

    with pytest.raises(Signal):
        guarded(fn, name="fn", guard=True, on_failure=lambda r: r, passthrough=(Signal,))()
    terminal = TerminalGuard()
    wrapped = guarded(lambda: (_ for _ in ()).throw(RuntimeError("password=hunter2")), name="f", guard=terminal, on_failure=lambda r: r)
    assert not wrapped().refused
    assert wrapped().refused
    assert len(terminal) == 1
    with pytest.raises(TypeError):
        guarded(fn, name="fn", guard="yes", on_failure=lambda r: r)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        guarded(42, name="fn", guard=True, on_failure=lambda r: r)  # type: ignore[arg-type]


def test_the_docstring_examples_hold() -> None:
    import doctest

    from errconv.agents import _core

    failed, attempted = doctest.testmod(_core, optionflags=doctest.ELLIPSIS)
    assert attempted >= 4 and failed == 0


def test_problem_json_redacts_credentials_a_body_echoes() -> None:
    import httpx

    from agents_cases import SECRET_KEY, leak
    from errconv.agents._core import problem_json

    body = {
        "title": "Invalid key",
        "status": 401,
        "detail": f"api_key={SECRET_KEY} is not valid",
        "instance": f"https://api.example.com/v1/charges?api_key={SECRET_KEY}",
        "code": "invalid_key",
        "notes": ["line one\n  line two", {"authorization": "Bearer hunter2hunter2"}],
    }
    request = httpx.Request("GET", "https://api.example.com/v1/charges")
    response = httpx.Response(401, json=body, headers={"Content-Type": "application/problem+json"}, request=request)
    fault = outcome(httpx.HTTPStatusError("401", request=request, response=response)).fault
    structured = problem_json(fault)
    leak(structured)
    assert structured["code"] == "invalid_key" and structured["status"] == 401
    assert "[redacted]" in structured["detail"]
    # The service's extension members, and the instance URI, are not carried unless named.
    assert "notes" not in structured and "instance" not in structured
    carried = problem_json(fault, carry=("notes", "instance"))
    leak(carried)
    assert carried["notes"] == ["line one line two", {"authorization": "[redacted]"}]  # control runs become one space
    assert carried["instance"] == "https://api.example.com/v1/charges?[redacted]"
