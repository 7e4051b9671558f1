"""Issue 21: which shipped client honours which signal, measured; the HTTP clients guide's
table (docs/guide/clients.md) must say what this measures.

Each probe is one failed response on the loopback API, each client's own sleep on a
virtual clock, budget 8 calls:

- `Retry-After: 30` on a 429 (no other signal), clearing 30 s after the first call;
- `retry-after-ms: 30000` on a 429, alone;
- the delay only in the body: Google's RetryInfo `30s` on a 429, no header;
- `x-should-retry: false` on a 503 (which every client retries by its status);
- `Stripe-Should-Retry: false` on a 503;
- `Retry-After: 3600` on a 429, clearing an hour after the first call.

A signal is honoured ("yes") when the client does what it says: waits exactly 30 s
then succeeds in 2 calls; makes 1 call when told not to retry. For the hour: "stops"
(1 call), "sleeps 3600 s", or "retries early" (sleeps less and calls again).
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import anthropic._base_client
import httpx
import httpx_retries
import httpx_retries.retry
import openai
import openai._base_client
import pytest
import requests
import requests.adapters
import stripe
import stripe._http_client
import urllib3.util.retry

import clients_server as cs
import errconv
import errconv.clients.httpx
import errconv.clients.requests
from errconv.retry import RetryPolicy, VirtualClock

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "clients.md"  # holds both tables
BUDGET = 8
TEXT = [("Content-Type", "text/plain")]
_RATE = errconv.to_http(errconv.Fault.build(status=429, code="rate_limited", detail="slow down", next_step="wait", retry_after_seconds=30), "google")
PROBES: dict[str, tuple[cs.Canned, float]] = {
    "`Retry-After: 30`": ((429, [*TEXT, ("Retry-After", "30")], b"Too Many Requests"), 30),
    "`retry-after-ms: 30000`": ((429, [*TEXT, ("retry-after-ms", "30000")], b"Too Many Requests"), 30),
    "RetryInfo in the body": ((429, [("Content-Type", "application/json")], _RATE.body), 30),
    "`x-should-retry: false`": ((503, [*TEXT, ("x-should-retry", "false")], b"Service Unavailable"), 1e9),
    "`Stripe-Should-Retry: false`": ((503, [*TEXT, ("Stripe-Should-Retry", "false")], b"Service Unavailable"), 1e9),
    "`Retry-After: 3600`": ((429, [*TEXT, ("Retry-After", "3600")], b"Too Many Requests"), 3600),
}


def _quiet(call: Callable[[], Any]) -> None:
    try:
        call()
    except Exception:
        pass  # what it raised is not the measure: the calls and the sleeps are


def _urllib3(api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urllib3.util.retry, "time", cs.VirtualTime(api.clock))
    retry = urllib3.util.retry.Retry(
        total=BUDGET - 1, status_forcelist=[429, 500, 502, 503, 504], respect_retry_after_header=True, backoff_factor=0.5, raise_on_status=False
    )
    session = requests.Session()
    session.mount("http://", requests.adapters.HTTPAdapter(max_retries=retry))
    _quiet(lambda: session.get(url, timeout=10))


def _httpx_retries(api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(httpx_retries.retry, "time", cs.VirtualTime(api.clock))
    transport = httpx_retries.RetryTransport(retry=httpx_retries.Retry(total=BUDGET - 1, backoff_factor=0.5))
    with httpx.Client(transport=transport) as client:
        _quiet(lambda: client.get(url))


def _stripe(api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stripe._http_client, "time", cs.VirtualTime(api.clock))
    client = stripe.StripeClient("sk_test_123", base_addresses={"api": url}, http_client=stripe.RequestsClient(), max_network_retries=BUDGET - 1)
    _quiet(lambda: client.v1.customers.create(params={"email": "jenny@example.com"}))


def _sdk(cls: Any, module: Any) -> Callable[[cs.Api, str, pytest.MonkeyPatch], None]:
    def run(api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(module, "time", cs.VirtualTime(api.clock))
        client = cls(api_key="sk-test", base_url=url, max_retries=BUDGET - 1)
        _quiet(lambda: client.models.list())

    return run


def _errconv_httpx(api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = RetryPolicy(budget=BUDGET, max_sleep=300, clock=api.clock)
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=policy)) as client:
        _quiet(lambda: client.get(url))


def _errconv_requests(api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    session = requests.Session()
    session.mount("http://", errconv.clients.requests.Adapter(retry=RetryPolicy(budget=BUDGET, max_sleep=300, clock=api.clock)))
    _quiet(lambda: session.get(url))


CLIENTS: dict[str, Callable[[cs.Api, str, pytest.MonkeyPatch], None]] = {
    "requests + urllib3 `Retry`": _urllib3,
    "httpx + httpx-retries": _httpx_retries,
    "stripe-python": _stripe,
    "OpenAI SDK": _sdk(openai.OpenAI, openai._base_client),
    "Anthropic SDK": _sdk(anthropic.Anthropic, anthropic._base_client),
    "errconv.clients (httpx `Transport`)": _errconv_httpx,
    "errconv.clients (requests `Adapter`)": _errconv_requests,
}


@pytest.fixture(scope="module")
def server() -> Iterator[cs.Api]:
    with cs.serve(VirtualClock()) as api:
        yield api


def _cell(probe: str, calls: int, sleeps: list[float]) -> str:
    slept = sum(sleeps)
    if probe == "`Retry-After: 3600`":
        if calls == 1:
            return "stops"
        if calls == 2 and slept == 3600:
            return "sleeps 3600 s"
        return "retries early"
    if "false" in probe:
        return "yes" if calls == 1 else "no"
    return "yes" if calls == 2 and sleeps == [30] else "no"


def measure(api: cs.Api, client: str, probe: str, monkeypatch: pytest.MonkeyPatch) -> str:
    api.clock = VirtualClock()
    api.first.clear()
    api.counts.clear()
    api.raw["probe"] = PROBES[probe]
    with monkeypatch.context() as patch:
        CLIENTS[client](api, f"{api.base}/raw/probe", patch)
    return _cell(probe, api.calls("/raw/probe"), api.clock.sleeps)


def measured_table(api: cs.Api, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    lines = ["| client | " + " | ".join(PROBES) + " |", "|---|" + "---|" * len(PROBES)]
    for client in CLIENTS:
        cells = [measure(api, client, probe, monkeypatch) for probe in PROBES]
        lines.append(f"| {client} | " + " | ".join(cells) + " |")
    return lines


def guide_table() -> list[str]:
    section = GUIDE.read_text()
    start = section.index("| client |")
    lines = []
    for line in section[start:].splitlines():
        if not line.startswith("|"):
            break
        lines.append(line)
    return lines


def test_the_guide_table_of_signals_is_what_the_clients_do(server: cs.Api, monkeypatch: pytest.MonkeyPatch) -> None:
    measured = measured_table(server, monkeypatch)
    assert guide_table() == measured, "\n".join(["docs/guide/clients.md should hold:", *measured])


def test_the_table_can_fail() -> None:
    # The probes tell the clients apart: a table of one answer everywhere would say nothing.
    rows = [re.split(r"\s*\|\s*", line.strip("| ")) for line in guide_table()[2:]]
    assert len({tuple(r[1:]) for r in rows}) >= 4


# --------------------------------------------------------------------------- issue 21's table, again


SEED_COLUMNS = [(dialect, case) for dialect in ("problem", "stripe") for case in ("rate_limited", "maintenance", "internal_error")]


def _seed_cell(api: cs.Api, client: str, dialect: str, case: str, monkeypatch: pytest.MonkeyPatch) -> str:
    api.clock = VirtualClock()
    api.first.clear()
    api.counts.clear()
    with monkeypatch.context() as patch:
        CLIENTS[client](api, f"{api.base}/{dialect}/{case}", patch)
    calls, slept = api.calls(f"/{dialect}/{case}"), api.clock.slept
    if case == "internal_error":
        return f"{calls} call{'s' if calls != 1 else ''}"
    if calls == 2 and api.clock.sleeps == [30]:
        return "2 calls, 30 s"
    if calls == 1:
        return "1 call, not retried"
    return f"{calls} calls, {'under' if slept < 30 else 'over'} 30 s"


def seed_table(api: cs.Api, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    head = " | ".join(f"http+{d} {'give_up 500' if c == 'internal_error' else c.replace('_', ' ')}" for d, c in SEED_COLUMNS)
    lines = [f"| client | {head} |", "|---|" + "---|" * len(SEED_COLUMNS)]
    for client in CLIENTS:
        cells = [_seed_cell(api, client, d, c, monkeypatch) for d, c in SEED_COLUMNS]
        lines.append(f"| {client} | " + " | ".join(cells) + " |")
    return lines


def guide_seed_table() -> list[str]:
    section = GUIDE.read_text()
    start = section.index("| client | http+problem")
    lines = []
    for line in section[start:].splitlines():
        if not line.startswith("|"):
            break
        lines.append(line)
    return lines


def test_the_guide_table_of_the_seed_failures_is_what_the_clients_do(server: cs.Api, monkeypatch: pytest.MonkeyPatch) -> None:
    measured = seed_table(server, monkeypatch)
    assert guide_seed_table() == measured, "\n".join(["docs/guide/clients.md should hold:", *measured])
