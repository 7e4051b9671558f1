"""`errconv.agents.wrap`: a tool of a plain agent loop (no framework), sync and async, over real
HTTP failures from a loopback server: a 429 with Retry-After, a 400 naming a parameter, a 403
refused on repeat. The server answers with the bytes of golden/<case>/http-problem.http; the
tools call it with httpx, a key in the URL's query string that must never reach the model.
"""

from __future__ import annotations

import asyncio
import pathlib
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from agents_cases import leak
from loopback import serve_http

import errconv
from errconv.agents import ToolError, ToolGuard, call_key, wrap
from errconv.retry import GuardRefused, VirtualClock

ROOT = pathlib.Path(__file__).resolve().parents[2]
KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"


def _canned(case: str) -> tuple[int, list[tuple[str, str]], bytes]:
    raw = (ROOT / "golden" / case / "http-problem.http").read_bytes().replace(b"\r\n", b"\n")
    head, _, body = raw.partition(b"\n\n")
    lines = head.decode().splitlines()
    headers = [(k, v) for k, _, v in (line.partition(": ") for line in lines[1:]) if k.lower() != "content-length"]
    return int(lines[0].split()[1]), headers, body


ROUTES = {
    "/v1/search": _canned("rate_limited"),  # 429, Retry-After: 30
    "/v1/transfers": _canned("missing_parameter"),  # 400, param currency
    "/v1/services:enable": _canned("permission_denied"),  # 403, give_up
    "/v1/ok": (200, [("Content-Type", "application/json")], b'{"id":"tr_1"}'),
}

# What the model asks for, turn by turn: (tool, arguments).
SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "shoes"}),  # 429: wait 30 s
    ("search", {"query": "shoes"}),  # refused: the wait has not passed
    ("transfer", {"amount": 150}),  # 400: fix currency
    ("transfer", {"amount": 150, "currency": "usd"}),  # the corrected call: the tool runs (and succeeds)
    ("enable", {"service": "geminicloudassist.googleapis.com"}),  # 403: give up
    ("enable", {"service": "geminicloudassist.googleapis.com"}),  # refused for good
]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve_http(ROUTES) as url:
        yield url


def _tools(base: str, calls: list[str], guard: ToolGuard, **options: Any) -> dict[str, Callable[..., Any]]:
    def get(path: str) -> str:
        response = httpx.post(f"{base}{path}?api_key={KEY}", timeout=10)
        response.raise_for_status()
        return response.text

    @wrap(guard=guard, **options)
    def search(query: str) -> str:
        calls.append("search")
        return get("/v1/search")

    @wrap(guard=guard, **options)
    def transfer(amount: int, currency: str | None = None) -> str:
        calls.append("transfer")
        return get("/v1/ok" if currency else "/v1/transfers")

    @wrap(guard=guard, **options)
    def enable(service: str) -> str:
        calls.append("enable")
        return get("/v1/services:enable")

    return {"search": search, "transfer": transfer, "enable": enable}


def _async_tools(base: str, calls: list[str], guard: ToolGuard, **options: Any) -> dict[str, Callable[..., Any]]:
    async def get(path: str) -> str:
        async with httpx.AsyncClient(timeout=10) as client:
            response = await client.post(f"{base}{path}?api_key={KEY}")
        response.raise_for_status()
        return response.text

    @wrap(guard=guard, **options)
    async def search(query: str) -> str:
        calls.append("search")
        return await get("/v1/search")

    @wrap(guard=guard, **options)
    async def transfer(amount: int, currency: str | None = None) -> str:
        calls.append("transfer")
        return await get("/v1/ok" if currency else "/v1/transfers")

    @wrap(guard=guard, **options)
    async def enable(service: str) -> str:
        calls.append("enable")
        return await get("/v1/services:enable")

    return {"search": search, "transfer": transfer, "enable": enable}


def _loop(tools: dict[str, Callable[..., Any]]) -> list[str]:
    """The plain agent loop: call what the model asks for, hand it back what came out."""
    return [str(tools[name](**arguments)) for name, arguments in SCRIPT]


async def _aloop(tools: dict[str, Callable[..., Any]]) -> list[str]:
    return [str(await tools[name](**arguments)) for name, arguments in SCRIPT]


def _catching_loop(tools: dict[str, Callable[..., Any]]) -> list[ToolError | str]:
    results: list[ToolError | str] = []
    for name, arguments in SCRIPT:
        try:
            results.append(tools[name](**arguments))
        except ToolError as error:
            results.append(error)
    return results


def _check_transcript(results: list[str], calls: list[str]) -> None:
    wait, refused_wait, fix, fixed, give_up, refused = results
    assert "next_step: wait" in wait and "Wait 30 seconds" in wait
    assert refused_wait.startswith("Not called") and "Wait 30 more seconds" in refused_wait
    assert "next_step: fix_request" in fix and "`currency`" in fix
    assert fixed == '{"id":"tr_1"}'  # success passes through unchanged
    assert "HTTP 403" in give_up and "next_step: give_up" in give_up and "Do not repeat" in give_up
    assert refused.startswith("Not called") and "refused to repeat an identical call to enable" in refused
    # The refused calls never reached the tool (nor the server).
    assert calls == ["search", "transfer", "transfer", "enable"]
    for text in results:
        leak(text)
        assert KEY not in text and "127.0.0.1" not in text


def test_a_plain_loop_reads_each_failure_as_its_move(base: str) -> None:
    calls: list[str] = []
    results = _loop(_tools(base, calls, ToolGuard(clock=VirtualClock())))
    _check_transcript(results, calls)


def test_a_plain_async_loop_reads_each_failure_as_its_move(base: str) -> None:
    calls: list[str] = []
    tools = _async_tools(base, calls, ToolGuard(clock=VirtualClock()))
    results = asyncio.run(_aloop(tools))
    _check_transcript(results, calls)


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_raise_errors_raises_one_tool_error_with_fault_and_text(base: str, is_async: bool) -> None:
    calls: list[str] = []
    clock = VirtualClock()
    guard = ToolGuard(clock=clock)
    if is_async:
        tools = _async_tools(base, calls, guard, raise_errors=True)

        async def catching() -> list[ToolError | str]:
            results: list[ToolError | str] = []
            for name, arguments in SCRIPT:
                try:
                    results.append(await tools[name](**arguments))
                except ToolError as error:
                    results.append(error)
            return results

        results = asyncio.run(catching())
    else:
        results = _catching_loop(_tools(base, calls, guard, raise_errors=True))
    wait, refused_wait, fix, fixed, give_up, refused = results
    assert fixed == '{"id":"tr_1"}'
    errors = [wait, refused_wait, fix, give_up, refused]
    assert all(isinstance(e, ToolError) for e in errors)
    assert isinstance(wait, ToolError) and isinstance(fix, ToolError) and isinstance(give_up, ToolError)
    assert isinstance(refused_wait, ToolError) and isinstance(refused, ToolError)
    assert (wait.fault.status, wait.next_step, wait.fault.retry_after_seconds) == (429, "wait", 30)
    assert (fix.fault.status, fix.next_step, fix.fault.param) == (400, "fix_request", "currency")
    assert (give_up.fault.status, give_up.next_step) == (403, "give_up")
    # The text is the model's, and the same a non-raising wrap returns.
    assert wait.text == str(wait) == errconv.agent_message(wait.fault)
    assert not wait.refused and refused_wait.refused and refused.refused
    assert refused_wait.fault.retry_after_seconds == 30 and refused.next_step == "give_up"
    # The client's exception is the cause, kept for logs; it never reaches the text.
    assert isinstance(wait.__cause__, httpx.HTTPStatusError) and refused.__cause__ is None
    assert calls == ["search", "transfer", "transfer", "enable"]
    for error in errors:
        assert isinstance(error, ToolError)
        leak(error.text)


def test_the_wait_ends_when_its_delay_has_passed(base: str) -> None:
    calls: list[str] = []
    clock = VirtualClock()
    tools = _tools(base, calls, ToolGuard(clock=clock))
    assert "Wait 30 seconds" in tools["search"](query="shoes")
    clock.advance(12)
    assert "Wait 18 more seconds" in tools["search"](query="shoes")
    clock.advance(18)
    assert "Wait 30 seconds" in tools["search"](query="shoes")  # called again, limited again
    assert calls == ["search", "search"]
    # Another query is another call: not refused.
    assert "Wait 30 seconds" in tools["search"](query="boots")


def test_the_guard_keys_calls_as_call_key_does(base: str) -> None:
    guard = ToolGuard()
    calls: list[str] = []
    tools = _tools(base, calls, guard)
    tools["enable"]("geminicloudassist.googleapis.com")  # positional: the same call as by keyword
    with pytest.raises(GuardRefused):
        guard.check(call_key("enable", {"service": "geminicloudassist.googleapis.com"}))
    assert tools["enable"](service="geminicloudassist.googleapis.com").startswith("Not called")
    assert calls == ["enable"]


def test_options_guard_off_and_name(base: str) -> None:
    calls: list[str] = []
    tools = _tools(base, calls, guard=False)  # type: ignore[arg-type]
    tools["enable"](service="x")
    assert "next_step: give_up" in tools["enable"](service="x")
    assert calls == ["enable", "enable"]  # no guard: the repeat ran

    @wrap(name="payments.charge")
    def charge() -> None:
        raise errconv.FaultError(errconv.Fault.build(status=403, next_step="give_up", code="forbidden"))

    charge()
    assert "identical call to payments.charge" in charge()
    assert charge.__name__ == "charge"  # the function's own metadata is kept for a schema builder


def test_wrap_refuses_what_is_no_function() -> None:
    with pytest.raises(TypeError, match="tool function"):
        wrap(42)  # type: ignore[call-overload]


def test_a_tool_error_is_a_fault_error_whatever_reads_it() -> None:
    fault = errconv.Fault.build(status=429, next_step="wait", retry_after_seconds=30, code="rate_limited")

    @wrap(raise_errors=True, guard=False)
    def inner() -> None:
        raise errconv.FaultError(fault)

    @wrap(guard=False)
    def outer() -> str:
        inner()
        return "unreachable"

    with pytest.raises(errconv.FaultError) as caught:
        inner()
    assert isinstance(caught.value, ToolError) and errconv.from_exception(caught.value) == fault
    assert str(caught.value) == caught.value.text == errconv.agent_message(fault)
    assert outer() == errconv.agent_message(fault)  # the inner tool's fault, not a generic failure
    again = pickle.loads(pickle.dumps(ToolError(fault, "text", refused=True)))
    assert (type(again), again.fault, again.text, again.refused, str(again)) == (ToolError, fault, "text", True, "text")
