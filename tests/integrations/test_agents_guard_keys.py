"""Issue 27: the guard keys calls by meaning.

Equal calls get one key (numbers by value, a default spelled out or not); different
calls never share one (dates, datetimes, Decimals, UUIDs, enums, bytes, mapping keys
by type, any object by its identity when it has no value errconv can read). The
guard's memory is bounded in bytes: it holds digests, not arguments.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import gc
import tracemalloc
import uuid
from typing import Any

import pytest

import errconv
from errconv.agents import ToolGuard, call_key
from errconv.agents._core import guarded
from errconv.retry import TerminalGuard, VirtualClock

SOLD_OUT = errconv.Fault.build(status=409, code="sold_out", detail="No seats left", next_step="give_up")


class Booked(Exception):
    pass


def _book_tool(guard: ToolGuard) -> tuple[Any, list[Any]]:
    calls: list[Any] = []

    def book(day: datetime.date, seats: float = 2, note: str | None = None) -> str:
        calls.append((day, seats, note))
        raise errconv.FaultError(SOLD_OUT)

    return guarded(book, name="book", guard=guard, on_failure=lambda outcome: outcome), calls


def test_a_call_for_another_date_is_not_refused_as_a_repeat() -> None:
    # Issue 27's reproduction: every date was keyed "<date>", so booking 2031-12-31 was
    # refused as a repeat of 2024-01-01.
    book, calls = _book_tool(ToolGuard(clock=VirtualClock()))
    first = book(day=datetime.date(2024, 1, 1))
    assert not first.refused and len(calls) == 1
    second = book(day=datetime.date(2031, 12, 31))
    assert not second.refused and len(calls) == 2  # a different call: the tool ran
    again = book(day=datetime.date(2031, 12, 31))
    assert again.refused and len(calls) == 2  # the identical call: refused


def test_150_and_150_point_0_are_one_call_and_a_default_spelled_out_or_not_too() -> None:
    book, calls = _book_tool(ToolGuard(clock=VirtualClock()))
    assert not book(datetime.date(2031, 12, 31), 150).refused
    assert book(datetime.date(2031, 12, 31), 150.0).refused  # the same number: the same call
    assert book(day=datetime.date(2031, 12, 31), seats=decimal.Decimal("150.00")).refused
    assert len(calls) == 1
    assert not book(datetime.date(2031, 12, 31)).refused  # seats=2 by default
    assert book(datetime.date(2031, 12, 31), 2).refused  # the default spelled out
    assert book(datetime.date(2031, 12, 31), seats=2.0, note=None).refused
    assert len(calls) == 2
    # Keys from a model's raw arguments: equal with the schema's defaults given.
    defaults = {"seats": 2, "note": None}
    assert call_key("book", {"day": "2031-12-31"}, defaults) == call_key("book", {"day": "2031-12-31", "seats": 2.0}, defaults)
    assert call_key("book", {"day": "2031-12-31"}, defaults) != call_key("book", {"day": "2031-12-31", "seats": 3}, defaults)


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Size(enum.IntEnum):
    ONE = 1
    TWO = 2


@dataclasses.dataclass(frozen=True)
class Seat:
    row: int
    letter: str


class Opaque:
    """No value to read: equality by identity, and a repr that says nothing."""

    def __repr__(self) -> str:
        return "<Opaque>"


# Pairs of argument values that are different calls: never one key.
DIFFERENT: list[tuple[Any, Any]] = [
    (datetime.date(2024, 1, 1), datetime.date(2031, 12, 31)),
    (datetime.datetime(2031, 1, 1, 9), datetime.datetime(2031, 1, 1, 10)),
    (datetime.datetime(2031, 1, 1, 9, tzinfo=datetime.timezone.utc), datetime.datetime(2031, 1, 1, 9)),
    (datetime.time(9), datetime.time(9, 0, 1)),
    (datetime.timedelta(1), datetime.timedelta(2)),
    (decimal.Decimal("0.1"), decimal.Decimal("0.2")),
    (decimal.Decimal("0.1"), 0.1),  # not the float 0.1, which is 0.1000000000000000055...
    (uuid.UUID(int=1), uuid.UUID(int=2)),
    (Colour.RED, Colour.BLUE),
    (Colour.RED, "red"),
    (Size.ONE, 1),
    (b"\x00", b"\x01"),
    (b"ab", "6162"),
    ({"1": "x"}, {1: "x"}),
    ({1: "x"}, {True: "x"}),
    (True, 1),
    ("150", 150),
    (None, "null"),
    ([1, 2], [2, 1]),
    ({1, 2}, [1, 2]),
    (Seat(1, "A"), Seat(1, "B")),
    (Seat(1, "A"), {"row": 1, "letter": "A"}),
    (Opaque(), Opaque()),
    (10**5000, 10**5000 + 1),
    ("x" * 1_000_000, "x" * 999_999 + "y"),
]

# Pairs that are one call.
EQUAL: list[tuple[Any, Any]] = [
    (150, 150.0),
    (150, decimal.Decimal("150.00")),
    (0.5, decimal.Decimal("0.50")),
    ((1, 2), [1, 2]),
    ({"b": 1, "a": 2}, {"a": 2, "b": 1}),
    (datetime.date(2031, 12, 31), datetime.date(2031, 12, 31)),
    (Seat(1, "A"), Seat(1, "A")),
    (uuid.UUID(int=7), uuid.UUID(int=7)),
    (-0.0, 0),
]


@pytest.mark.parametrize("a, b", DIFFERENT, ids=[f"{type(a).__name__}-{type(b).__name__}-{i}" for i, (a, b) in enumerate(DIFFERENT)])
def test_different_calls_never_share_a_key(a: Any, b: Any) -> None:
    assert call_key("t", {"v": a}) != call_key("t", {"v": b})
    guard = ToolGuard(clock=VirtualClock())
    guard.record(call_key("t", {"v": a}), SOLD_OUT)
    guard.check(call_key("t", {"v": b}))  # not refused


@pytest.mark.parametrize("a, b", EQUAL, ids=[f"{type(a).__name__}-{type(b).__name__}-{i}" for i, (a, b) in enumerate(EQUAL)])
def test_equal_calls_share_one_key(a: Any, b: Any) -> None:
    assert call_key("t", {"v": a}) == call_key("t", {"v": b})
    guard = ToolGuard(clock=VirtualClock())
    guard.record(call_key("t", {"v": a}), SOLD_OUT)
    with pytest.raises(errconv.GuardRefused):
        guard.check(call_key("t", {"v": b}))


def test_the_same_object_with_no_readable_value_is_the_same_call() -> None:
    thing = Opaque()
    assert call_key("t", {"v": thing}) == call_key("t", {"v": thing})
    # Its token outlives no object: a new object at a freed address gets a new one.
    first = call_key("t", {"v": Opaque()})
    gc.collect()
    assert all(call_key("t", {"v": Opaque()}) != first for _ in range(100))


def test_the_guard_holds_digests_not_arguments_1024_entries_of_1_mb() -> None:
    # Issue 27: 1,024 entries of 1 MB arguments held ~1 GB. The guard now keeps a
    # 16-byte digest of each key: measured, what it holds after the arguments are gone.
    guard = ToolGuard(clock=VirtualClock())
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1024):
            guard.record(call_key("upload", {"blob": f"{i:08d}" + "x" * 1_000_000}), SOLD_OUT)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    print(f"the guard holds {held / 1024:.0f} KiB for 1,024 entries of 1 MB arguments ({held / 1024:.0f} bytes an entry)")
    assert len(guard) == 1024
    assert held < 1024 * 1024, held  # under 1 KiB an entry, against 1 MB an entry before
    with pytest.raises(errconv.GuardRefused):
        guard.check(call_key("upload", {"blob": f"{5:08d}" + "x" * 1_000_000}))
    guard.check(call_key("upload", {"blob": f"{5:08d}" + "x" * 999_999 + "y"}))


def test_a_terminal_guard_keys_plain_values_by_value_and_holds_other_keys_as_given() -> None:
    guard = TerminalGuard(clock=VirtualClock())
    guard.record(("GET", "https://api.example.com/", 1), SOLD_OUT)
    with pytest.raises(errconv.GuardRefused) as refused:
        guard.check(("GET", "https://api.example.com/", 1.0))  # 1 == 1.0, as before
    assert refused.value.key == ("GET", "https://api.example.com/", 1.0)  # the caller's key, not the digest
    guard.check(("GET", "https://api.example.com/", "1"))
    guard.check((b"GET", "https://api.example.com/", 1))
    guard.record(frozenset({"a"}), SOLD_OUT)
    with pytest.raises(errconv.GuardRefused):
        guard.check(frozenset({"a"}))
    assert not guard.record(None, SOLD_OUT)  # None is no key


def test_a_model_that_spells_out_a_default_repeats_the_same_call_to_the_capability() -> None:
    # Keys from a model's raw arguments: PydanticAI's capability sees them as sent; the
    # tool's schema says `currency` defaults to "usd", so these are one call.
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from errconv.agents.pydantic_ai import capability

    sent = [{"amount": 150}, {"amount": 150.0, "currency": "usd"}, {"amount": 150, "currency": "eur"}]
    seen: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(1 for m in messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart))
        if done < len(sent):
            return ModelResponse(parts=[ToolCallPart("transfer", dict(sent[done]), tool_call_id=f"call_{done}")])
        return ModelResponse(parts=[TextPart("done")])

    calls: list[tuple[float, str]] = []
    agent: Agent[None, str] = Agent(FunctionModel(script), capabilities=[capability(clock=VirtualClock())])

    @agent.tool_plain(retries=5)
    def transfer(amount: float, currency: str = "usd") -> str:
        """Move money."""
        calls.append((amount, currency))
        raise errconv.FaultError(SOLD_OUT)

    agent.run_sync("send 150")
    # The second call (150.0, the default spelled out) was refused; the third, in euros, ran.
    assert calls == [(150, "usd"), (150, "eur")]


def test_the_langchain_middleware_keys_with_the_tools_defaults() -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from errconv.agents.langchain import middleware

    class Fake(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def ask(i: int, args: dict[str, Any]) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": "transfer", "args": args, "id": f"call_{i}", "type": "tool_call"}])

    calls: list[tuple[float, str]] = []

    @tool
    def transfer(amount: float, currency: str = "usd") -> str:
        """Move money."""
        calls.append((amount, currency))
        raise errconv.FaultError(SOLD_OUT)

    model = Fake(responses=[ask(0, {"amount": 150}), ask(1, {"amount": 150.0, "currency": "usd"}), ask(2, {"amount": 150, "currency": "eur"}), AIMessage(content="done")])
    create_agent(model, tools=[transfer], middleware=[middleware()]).invoke({"messages": [{"role": "user", "content": "send 150"}]})
    assert calls == [(150, "usd"), (150, "eur")]


def test_the_guard_keeps_a_small_copy_of_a_large_fault() -> None:
    # A give_up read from a megabyte body can carry the megabyte (extension members):
    # 1,024 of them would hold a gigabyte. The guard keeps what a refusal says.
    guard = TerminalGuard(clock=VirtualClock())
    small = errconv.Fault.build(status=403, code="account_suspended", next_step="give_up")
    guard.record("small", small)
    with pytest.raises(errconv.GuardRefused) as refused:
        guard.check("small")
    assert refused.value.fault is small  # a fault of the usual size is kept as it is

    def big(i: int) -> errconv.Fault:
        return errconv.Fault.build(
            status=409, code="sold_out", detail=f"{i} " + "d" * 60_000, next_step="give_up", extensions={"blob": "x" * 1_000_000}
        )

    guard.record("warm-up", big(-1))  # what the first large fault imports is not the guard's
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(256):
            guard.record(("book", str(i)), big(i))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    print(f"the guard holds {held / 1024:.0f} KiB for 256 give_ups of 1 MB faults ({held // 256} bytes an entry)")
    assert held < 256 * 4 * 1024, held  # under 4 KiB an entry (the detail cut at 2,000 characters), against 1 MB
    with pytest.raises(errconv.GuardRefused) as refused:
        guard.check(("book", "7"))
    kept = refused.value.fault
    assert (kept.status, kept.code, kept.next_step) == (409, "sold_out", "give_up")
    assert kept.detail is not None and kept.detail.startswith("7 ddd") and len(kept.detail) <= 2000 and not kept.extensions
