"""The agent loop of seed 004: the seed's tables, exactly, and what errconv's renderings change."""

from __future__ import annotations

import golden_corpus as gc
import pytest

import errconv
from errconv.retry import RetryPolicy, VirtualClock
from errconv._cli.simulate import (
    FAILURES,
    FAULTS,
    POLICIES,
    Outcome,
    renderings,
    run_loop,
    simulate,
)

# Copied from seed 004 ("Feed each error to a loop and count"), byte for byte.
SEED_TABLES = """\
a loop that reads the body, calls made and seconds slept
  failure           problem               google                stripe                vague
  missing_parameter fix currency 1c 0s    fix currency 1c 0s    fix currency 1c 0s    fix (no param) 1c 0s
  rate_limited      ok 2c 30s             ok 2c 30s             ok 6c 31s             ok 6c 31s
  maintenance       ok 2c 30s             ok 2c 30s             ok 6c 31s             ok 6c 31s
  account_suspended give_up 1c 0s         give_up 1c 0s         give_up 1c 0s         give_up 1c 0s

a loop that reads only the Retry-After header
  failure           problem               google                stripe                vague
  rate_limited      ok 2c 30s             budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s
  maintenance       ok 2c 30s             budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s

a loop that retries at once
  failure           problem               google                stripe                vague
  rate_limited      budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s
  maintenance       budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s    budget spent 8c 0s
"""


def test_seed_renderings_print_the_seed_tables_exactly() -> None:
    assert simulate("seed").render() == SEED_TABLES


def test_errconv_renderings_let_a_header_only_client_finish_in_two_calls_and_30_seconds() -> None:
    result = simulate("errconv")
    assert result.columns == ("http+problem", "http+google", "http+stripe")
    for failure in ("rate_limited", "maintenance"):
        for column in result.columns:
            for policy in ("contract", "header-only"):
                assert result.results[policy][failure][column] == Outcome("ok", 2, 30.0)
            assert result.results["hammer"][failure][column] == Outcome("budget_spent", 8, 0.0)


def test_the_four_failures_are_the_golden_cases() -> None:
    for name, fault in FAULTS.items():
        assert fault == gc.load_fault(gc.ROOT / name), name


def test_errconv_renderings_are_errconvs_own_encodings() -> None:
    table = renderings("errconv")
    for failure in FAILURES:
        for dialect, data in table[failure].items():
            assert data == errconv.encode(FAULTS[failure], dialect)


def test_the_contract_policy_is_retry_policy_itself() -> None:
    # The loop's contract column and RetryPolicy.call, run against the same scripted
    # service, make the same calls and sleep the same seconds.
    table = renderings("seed")
    factory = POLICIES["contract"][0]
    for column in table["rate_limited"]:
        response = table["rate_limited"][column]
        clock = VirtualClock()
        outcome = run_loop(response, factory(clock, 8), clock, clears_at=30)

        clock = VirtualClock()
        calls = []

        def service(clock: VirtualClock = clock, response: bytes = response, calls: list[float] = calls) -> str:
            calls.append(clock.now())
            if clock.now() < 30:
                raise errconv.FaultError(errconv.decode(response))
            return "ok"

        RetryPolicy(clock=clock).call(service)
        assert (outcome.calls, outcome.seconds) == (len(calls), clock.now()), column


def test_json_has_one_row_per_loop() -> None:
    doc = simulate("seed", budget=3).to_dict()
    assert (doc["renderings"], doc["budget"], doc["clears_at"]) == ("seed", 3, 30)
    assert len(doc["loops"]) == 4 * 4 + 2 * 4 + 2 * 4
    row = next(r for r in doc["loops"] if (r["policy"], r["failure"], r["rendering"]) == ("contract", "rate_limited", "stripe"))
    assert row == {
        "policy": "contract",
        "failure": "rate_limited",
        "rendering": "stripe",
        "result": "budget_spent",
        "calls": 3,
        "seconds": 3.0,
        "param": None,
    }


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="one of: errconv, seed"):
        simulate("vague")
    with pytest.raises(ValueError):
        simulate(budget=0)
    with pytest.raises(ValueError):
        simulate(clears_at=-1)


def test_docstring_examples_run() -> None:
    import doctest

    import errconv.lint
    import errconv.retry
    import errconv._cli.simulate

    for module in (errconv.retry, errconv.lint, errconv._cli.simulate):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__
