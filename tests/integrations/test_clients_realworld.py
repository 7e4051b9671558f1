"""Issue 21: errconv's client integrations against real captures that state a wait.

Every whole-response capture in tests/realworld/ whose facts say `wait` with a delay
(Discord, GitHub, Slack, Microsoft Graph: Retry-After, a body `retry_after`, a spent
X-RateLimit-Reset measured against the capture's own Date) is served as captured from
the loopback API, and clears once its delay has passed on the virtual clock. Each
integration waits exactly the delay the facts record and succeeds on the second call;
a delay past the policy's `max_sleep` (300 s) is given up after one call with the
delay in the error.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterator

import pytest

import clients_server as cs
import errconv.clients
from errconv.retry import RetryPolicy, VirtualClock
from test_clients_matrix import OURS, RAISED, _run

REALWORLD = pathlib.Path(__file__).resolve().parents[1] / "realworld"
MAX_SLEEP = 300


def _captures() -> list[tuple[str, int]]:
    found = []
    for facts_path in sorted(REALWORLD.glob("*/facts.json")):
        for name, entry in json.loads(facts_path.read_text()).items():
            facts = entry.get("facts", {})
            status = facts.get("status")
            if name.endswith(".http") and facts.get("next_step") == "wait" and facts.get("retry_after_seconds") is not None:
                if status is not None and status >= 400:
                    found.append((f"{facts_path.parent.name}/{name}", facts["retry_after_seconds"]))
    return found


CAPTURES = _captures()
CLIENTS = [name for name in OURS if name != "stripe"]  # stripe-python speaks only to Stripe's paths


def test_there_is_a_handful_of_captures_short_and_long() -> None:
    delays = [delay for _, delay in CAPTURES]
    assert len(CAPTURES) >= 5
    assert any(d <= MAX_SLEEP for d in delays) and any(d > MAX_SLEEP for d in delays)


@pytest.fixture(scope="module")
def server() -> Iterator[cs.Api]:
    with cs.serve(VirtualClock()) as api:
        yield api


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("capture, delay", CAPTURES, ids=[c for c, _ in CAPTURES])
def test_each_integration_waits_exactly_the_captured_delay_or_gives_it_up(
    server: cs.Api, client: str, capture: str, delay: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.clock = VirtualClock()
    server.first.clear()
    server.counts.clear()
    server.raw["capture"] = (cs.parse_capture((REALWORLD / capture).read_bytes()), delay)
    RAISED.clear()
    outcome = _run(client, server, f"{server.base}/raw/capture", RetryPolicy(budget=8, max_sleep=MAX_SLEEP, clock=server.clock), monkeypatch)
    calls = server.calls("/raw/capture")
    if delay <= MAX_SLEEP:
        assert (outcome, calls, server.clock.sleeps) == ("ok", 2, [delay])
    else:
        assert calls == 1 and server.clock.sleeps == []
        error = errconv.clients.stopped(RAISED[-1])
        assert isinstance(error, errconv.clients.WaitTooLong) and error.retry_after_seconds == delay
