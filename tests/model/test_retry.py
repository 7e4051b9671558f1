"""RetryPolicy and TerminalGuard on a virtual clock: exact calls, exact sleeps."""

from __future__ import annotations

import random

import pytest

import errconv
from errconv import Fault, FaultError, NextStep
from errconv.retry import (
    Clock,
    Decision,
    GuardRefused,
    RetryPolicy,
    SystemClock,
    TerminalGuard,
    VirtualClock,
)


def wait(seconds: int | None) -> Fault:
    if seconds is None:  # what a vague 503 decodes to; Fault.build refuses to make one
        return Fault(status=503, grpc_code=14, next_step=NextStep.WAIT)
    return Fault.build(status=503, code="maintenance", next_step="wait", retry_after_seconds=seconds)


GIVE_UP = Fault.build(status=403, code="account_suspended", next_step="give_up")
FIX = Fault.build(status=400, code="missing_parameter", param="currency")


class Service:
    """Fails with each fault in turn, then answers "ok"; counts its calls."""

    def __init__(self, *faults: Fault) -> None:
        self.faults = list(faults)
        self.calls = 0

    def __call__(self, *args: object, **kwargs: object) -> str:
        self.calls += 1
        self.last_args = (args, kwargs)
        if self.faults:
            raise FaultError(self.faults.pop(0))
        return "ok"


# --------------------------------------------------------------------------- RetryPolicy


def test_two_waits_of_two_seconds_then_success_is_three_calls_and_four_seconds() -> None:
    clock = VirtualClock()
    service = Service(wait(2), wait(2))
    assert RetryPolicy(clock=clock).call(service, "transfer", amount=150) == "ok"
    assert service.calls == 3
    assert clock.sleeps == [2, 2]
    assert clock.now() == 4
    assert service.last_args == (("transfer",), {"amount": 150})


@pytest.mark.parametrize("fault", [GIVE_UP, FIX], ids=["give_up", "fix_request"])
def test_give_up_and_fix_request_are_called_once(fault: Fault) -> None:
    clock = VirtualClock()
    service = Service(fault, fault)
    with pytest.raises(FaultError) as info:
        RetryPolicy(clock=clock).call(service)
    assert service.calls == 1
    assert clock.sleeps == []
    assert info.value.fault is fault
    assert "stopped after 1 call:" in info.value.__notes__[0]


def test_backoff_steps_when_no_delay_is_given_and_the_budget_counts_calls() -> None:
    clock = VirtualClock()
    service = Service(*[wait(None)] * 20)
    with pytest.raises(FaultError) as info:
        RetryPolicy(clock=clock).call(service)
    assert service.calls == 8
    assert clock.sleeps == [1, 2, 4, 8, 16, 16, 16]  # the last step repeats
    assert "budget spent: 8 of 8 calls made" in info.value.__notes__[0]


def test_seed_004_stripe_column_backoff_past_the_reset_is_six_calls_and_31_seconds() -> None:
    # The scripted service clears at 30 s; a doubling backoff guesses its way past it.
    clock = VirtualClock()
    calls = 0

    def service() -> str:
        nonlocal calls
        calls += 1
        if clock.now() < 30:
            raise FaultError(wait(None))
        return "ok"

    assert RetryPolicy(clock=clock).call(service) == "ok"
    assert (calls, clock.now()) == (6, 31)


def test_decide_says_why() -> None:
    policy = RetryPolicy(clock=VirtualClock())
    assert policy.decide(wait(30), 1) == Decision(True, 30.0, "wait 30 s, as the fault says")
    assert policy.decide(wait(None), 3) == Decision(True, 4.0, "wait 4 s, backoff step 3: the fault gave no delay")
    assert policy.decide(wait(30), 8) == Decision(False, 0.0, "budget spent: 8 of 8 calls made")
    assert not policy.decide(GIVE_UP, 1).retry
    assert policy.decide(FIX, 1).reason == "fix_request: repeating the same arguments cannot succeed (change currency)"


def test_a_delay_over_max_sleep_stops_instead_of_retrying_early() -> None:
    policy = RetryPolicy(max_sleep=60, clock=VirtualClock())
    decision = policy.decide(wait(3600), 1)
    assert not decision.retry
    assert "max_sleep" in decision.reason
    # A backoff step is the caller's own guess, so it is capped rather than refused.
    assert RetryPolicy(backoff=(120,), max_sleep=60).decide(wait(None), 1).sleep == 60


def test_jitter_never_shortens_a_stated_delay_and_keeps_backoff_within_half_to_full() -> None:
    policy = RetryPolicy(jitter=True, clock=VirtualClock(), rng=random.Random(7))
    for _ in range(200):
        assert 30 <= policy.decide(wait(30), 1).sleep <= 33
        assert 4 <= policy.decide(wait(None), 4).sleep <= 8


def test_other_exceptions_go_straight_through() -> None:
    clock = VirtualClock()

    def broken() -> None:
        raise KeyError("currency")

    with pytest.raises(KeyError):
        RetryPolicy(clock=clock).call(broken)
    assert clock.sleeps == []


@pytest.mark.parametrize(
    "kwargs",
    [{"budget": 0}, {"budget": True}, {"backoff": ()}, {"backoff": (1, -2)}, {"max_sleep": -1}],
)
def test_bad_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_attempt_counts_from_one() -> None:
    with pytest.raises(ValueError):
        RetryPolicy().decide(wait(1), 0)


def test_clocks() -> None:
    assert isinstance(SystemClock(), Clock) and isinstance(VirtualClock(), Clock)
    clock = VirtualClock(start=100)
    clock.sleep(1.5)
    clock.advance(10)
    assert (clock.now(), clock.sleeps, clock.slept) == (111.5, [1.5], 1.5)
    with pytest.raises(ValueError):
        clock.sleep(-1)
    real = SystemClock()
    before = real.now()
    real.sleep(0)
    assert real.now() >= before


# --------------------------------------------------------------------------- TerminalGuard


def test_the_guard_refuses_an_identical_repeat_and_lets_a_different_key_through() -> None:
    guard = TerminalGuard(clock=VirtualClock())
    key = ("Transfer", b'{"amount": 150}')
    assert guard.record(key, GIVE_UP)
    with pytest.raises(GuardRefused) as info:
        guard.check(key)
    refused = info.value
    assert isinstance(refused, FaultError)
    assert refused.fault is GIVE_UP
    assert refused.refused is True
    assert refused.key == key
    assert str(refused).startswith("refused: an identical call already ended give_up")
    guard.check(("Transfer", b'{"amount": 40}'))  # a different call goes through


def test_the_guard_forgets_after_the_ttl() -> None:
    clock = VirtualClock()
    guard = TerminalGuard(ttl=60, clock=clock)
    guard.record("k", GIVE_UP)
    clock.advance(59)
    with pytest.raises(GuardRefused):
        guard.check("k")
    clock.advance(1)
    guard.check("k")
    assert len(guard) == 0


def test_the_guard_never_holds_more_than_max_entries() -> None:
    guard = TerminalGuard(max_entries=3, clock=VirtualClock())
    for i in range(10):
        guard.record(i, GIVE_UP)
        assert len(guard) <= 3
    for i in range(7):
        guard.check(i)  # the oldest were forgotten
    for i in range(7, 10):
        with pytest.raises(GuardRefused):
            guard.check(i)


def test_recording_again_refreshes_an_entry() -> None:
    guard = TerminalGuard(max_entries=2, clock=VirtualClock())
    guard.record("a", GIVE_UP)
    guard.record("b", GIVE_UP)
    guard.record("a", GIVE_UP)  # "a" is now the newest
    guard.record("c", GIVE_UP)  # so "b" goes
    guard.check("b")
    with pytest.raises(GuardRefused):
        guard.check("a")


def test_the_guard_remembers_only_give_up() -> None:
    guard = TerminalGuard(clock=VirtualClock())
    assert not guard.record("w", wait(30))
    assert not guard.record("f", FIX)
    assert len(guard) == 0
    guard.record("g", GIVE_UP)
    guard.forget("g")
    guard.check("g")


def test_a_policy_stops_at_once_on_a_refusal() -> None:
    # A harness checks the guard inside the call; the refusal is a give_up, never retried.
    clock = VirtualClock()
    guard = TerminalGuard(clock=clock)
    guard.record("k", GIVE_UP)
    calls = 0

    def guarded() -> None:
        nonlocal calls
        calls += 1
        guard.check("k")

    with pytest.raises(GuardRefused):
        RetryPolicy(clock=clock).call(guarded)
    assert calls == 1


@pytest.mark.parametrize("kwargs", [{"max_entries": 0}, {"ttl": 0}, {"ttl": -5}])
def test_bad_guard_settings_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TerminalGuard(**kwargs)  # type: ignore[arg-type]


def test_exported_from_the_package() -> None:
    for name in ("RetryPolicy", "TerminalGuard", "GuardRefused", "Decision"):
        assert getattr(errconv, name) is getattr(errconv.retry, name)
        assert name in errconv.__all__
    assert errconv.__all__ == sorted(errconv.__all__)
