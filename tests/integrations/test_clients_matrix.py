"""Issue 21: HTTP clients that act on the three moves, measured on a loopback server.

Each client calls `tests/clients_server.py`'s API, which answers errconv's renderings
of the seed failures (a 429 and a 503 that clear 30 s after the first call, a 400
naming a parameter, a 403 and a 500 give_up) in http+problem, http+google, http+stripe
and the vendor's own dialect. Every sleep is on a virtual clock: errconv's policy's
`VirtualClock` for errconv's integrations, the library's own `time.sleep` patched for
the shipped clients. Budget 8 calls.

- errconv's integrations (requests `Adapter`, httpx `Transport` and `AsyncTransport`,
  tenacity, stamina, the OpenAI and Anthropic SDKs on `errconv.clients.httpx2` with
  `max_retries=0`, stripe-python on a session with the `Adapter`): every wait ends in
  2 calls and 30 virtual seconds, every fix_request and give_up in 1 call;
- the OpenAI and Anthropic SDKs as shipped (their own retries, budget 8): the same,
  because errconv writes `x-should-retry` (without it their give_up takes 8 calls).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import anthropic._base_client
import httpx
import httpx2
import openai
import openai._base_client
import pytest
import requests
import stamina
import stripe
import stripe._http_client
import tenacity
import tenacity.nap

import clients_server as cs
import errconv.clients
import errconv.clients.httpx
import errconv.clients.httpx2
import errconv.clients.requests
import errconv.clients.stamina
import errconv.clients.tenacity
from errconv.retry import RetryPolicy, VirtualClock

BUDGET = 8


@pytest.fixture(scope="module")
def server() -> Iterator[cs.Api]:
    with cs.serve(VirtualClock()) as api:
        yield api


@pytest.fixture
def api(server: cs.Api) -> cs.Api:
    """The server with a fresh virtual clock and no calls counted."""
    server.clock = VirtualClock()
    server.first.clear()
    server.counts.clear()
    server.bodies.clear()
    server.raw.clear()
    return server


def _policy(api: cs.Api, **kwargs: Any) -> RetryPolicy:
    return RetryPolicy(budget=BUDGET, clock=api.clock, **kwargs)


# --------------------------------------------------------------------------- the clients
# Each runs one call to `url` and says how it ended: "ok", or the name of what it raised.


RAISED: list[BaseException] = []  # what the runners caught, for the tests that look closer


def _outcome(call: Callable[[], Any]) -> str:
    try:
        call()
    except Exception as error:
        RAISED.append(error)
        return type(error).__name__
    return "ok"


def run_requests(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    session = requests.Session()
    session.mount("http://", errconv.clients.requests.Adapter(retry=policy, raise_for_status=True))
    return _outcome(lambda: session.get(url, timeout=10))


def run_httpx(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=policy, raise_for_status=True)) as client:
        return _outcome(lambda: client.get(url))


def run_httpx_async(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    async def go() -> str:
        async with httpx.AsyncClient(transport=errconv.clients.httpx.AsyncTransport(retry=policy, raise_for_status=True)) as client:
            try:
                await client.get(url)
            except Exception as error:
                RAISED.append(error)
                return type(error).__name__
            return "ok"

    return asyncio.run(go())


def run_tenacity(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    def call() -> None:
        for attempt in errconv.clients.tenacity.retrying(retry=policy):
            with attempt:
                httpx.get(url).raise_for_status()

    return _outcome(call)


def run_stamina(api: cs.Api, url: str, policy: RetryPolicy, monkeypatch: pytest.MonkeyPatch) -> str:
    # stamina sleeps through tenacity's default sleep: time.sleep, looked up in tenacity.nap.
    monkeypatch.setattr(tenacity.nap, "time", cs.VirtualTime(api.clock))

    @stamina.retry(on=errconv.clients.stamina.backoff_hook(retry=policy), attempts=BUDGET, timeout=None)
    def call() -> None:
        httpx.get(url).raise_for_status()

    return _outcome(call)


def _sdk_client(sdk: Any, api: cs.Api, url: str, policy: RetryPolicy) -> Any:
    transport = errconv.clients.httpx2.Transport(retry=policy)
    return sdk(api_key="sk-test", base_url=url, http_client=httpx2.Client(transport=transport), max_retries=0)


def run_openai(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    return _outcome(lambda: _sdk_client(openai.OpenAI, api, url, policy).models.list())


def run_openai_on_httpx(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    # The OpenAI SDK takes an httpx client too (the Anthropic SDK only an httpx2 one).
    http_client = httpx.Client(transport=errconv.clients.httpx.Transport(retry=policy))
    return _outcome(lambda: openai.OpenAI(api_key="sk-test", base_url=url, http_client=http_client, max_retries=0).models.list())


def run_anthropic(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    return _outcome(lambda: _sdk_client(anthropic.Anthropic, api, url, policy).models.list())


def _async_sdk(sdk: Any, url: str, policy: RetryPolicy) -> str:
    async def go() -> str:
        transport = errconv.clients.httpx2.AsyncTransport(retry=policy)
        async with httpx2.AsyncClient(transport=transport) as http_client:
            client = sdk(api_key="sk-test", base_url=url, http_client=http_client, max_retries=0)
            try:
                await client.models.list()
            except Exception as error:
                RAISED.append(error)
                return type(error).__name__
            return "ok"

    return asyncio.run(go())


def run_openai_async(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    return _async_sdk(openai.AsyncOpenAI, url, policy)


def run_anthropic_async(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    return _async_sdk(anthropic.AsyncAnthropic, url, policy)


def _stripe_client(url: str, http_client: Any, retries: int) -> Any:
    return stripe.StripeClient("sk_test_123", base_addresses={"api": url}, http_client=http_client, max_network_retries=retries)


def run_stripe(api: cs.Api, url: str, policy: RetryPolicy) -> str:
    session = requests.Session()
    session.mount("http://", errconv.clients.requests.Adapter(retry=policy))
    client = _stripe_client(url, stripe.RequestsClient(session=session), 0)
    # A POST: Stripe puts an Idempotency-Key on every one, so the Adapter may repeat it.
    return _outcome(lambda: client.v1.customers.create(params={"email": "jenny@example.com"}))


OURS: dict[str, tuple[Callable[..., str], tuple[str, ...]]] = {
    "requests": (run_requests, ()),
    "httpx": (run_httpx, ()),
    "httpx-async": (run_httpx_async, ()),
    "tenacity": (run_tenacity, ()),
    "stamina": (run_stamina, ()),
    "openai": (run_openai, ("openai",)),
    "anthropic": (run_anthropic, ("anthropic",)),
    "openai-on-httpx": (run_openai_on_httpx, ("openai",)),
    "openai-async": (run_openai_async, ("openai",)),
    "anthropic-async": (run_anthropic_async, ("anthropic",)),
    "stripe": (run_stripe, ()),  # http+stripe is its own dialect, already in the list
}
DIALECTS = ("problem", "google", "stripe")
CELLS = [(client, dialect) for client, (_, own) in OURS.items() for dialect in (*DIALECTS, *own)]


def _run(client: str, api: cs.Api, url: str, policy: RetryPolicy, monkeypatch: pytest.MonkeyPatch) -> str:
    runner = OURS[client][0]
    if runner is run_stamina:
        return run_stamina(api, url, policy, monkeypatch)
    return runner(api, url, policy)


# --------------------------------------------------------------------------- the matrix


@pytest.mark.parametrize("client, dialect", CELLS, ids=[f"{c}-http+{d}" for c, d in CELLS])
def test_every_wait_takes_two_calls_and_thirty_seconds_and_nothing_else_is_repeated(
    api: cs.Api, client: str, dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = {}
    for case in cs.CASES:
        api.clock = VirtualClock()
        api.first.clear()
        outcome = _run(client, api, f"{api.base}/{dialect}/{case}", _policy(api), monkeypatch)
        seen[case] = (outcome, api.calls(f"/{dialect}/{case}"), api.clock.slept)
    for case in cs.WAITS:
        assert seen[case] == ("ok", 2, 30), (case, seen[case])
    for case in (*cs.FIX, *cs.GIVE_UP):
        outcome, calls, slept = seen[case]
        assert (calls, slept) == (1, 0) and outcome != "ok", (case, seen[case])


SHIPPED_SDKS = {"openai": (openai.OpenAI, openai._base_client), "anthropic": (anthropic.Anthropic, anthropic._base_client)}
SHIPPED_CELLS = [(sdk, dialect) for sdk in SHIPPED_SDKS for dialect in (*DIALECTS, sdk)]


def _shipped_sdk(sdk: str, api: cs.Api, url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    cls, module = SHIPPED_SDKS[sdk]
    monkeypatch.setattr(module, "time", cs.VirtualTime(api.clock))  # their _sleep_for_retry's time.sleep
    client = cls(api_key="sk-test", base_url=url, max_retries=BUDGET - 1)
    return _outcome(lambda: client.models.list())


@pytest.mark.parametrize("sdk, dialect", SHIPPED_CELLS, ids=[f"{s}-as-shipped-http+{d}" for s, d in SHIPPED_CELLS])
def test_the_sdks_as_shipped_now_stop_at_a_give_up_because_of_x_should_retry(
    api: cs.Api, sdk: str, dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for case in cs.CASES:
        api.clock = VirtualClock()
        api.first.clear()
        outcome = _shipped_sdk(sdk, api, f"{api.base}/{dialect}/{case}", monkeypatch)
        got = (outcome, api.calls(f"/{dialect}/{case}"), api.clock.slept)
        if case in cs.WAITS:
            assert got == ("ok", 2, 30), (case, got)
        else:
            assert got[1:] == (1, 0) and outcome != "ok", (case, got)


@pytest.mark.parametrize("sdk", list(SHIPPED_SDKS))
def test_without_x_should_retry_the_sdks_spend_their_budget_on_a_give_up(api: cs.Api, sdk: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The control: the same give_up 500 without the header (errconv's rendering before
    # issue 21) is retried until the budget is spent.
    _shipped_sdk(sdk, api, f"{api.base}/problem~bare/internal_error", monkeypatch)
    assert api.calls("/problem~bare/internal_error") == BUDGET


# --------------------------------------------------------------------------- a wait too long


LONG = errconv.Fault.build(status=429, code="daily_quota", detail="Daily quota spent", next_step="wait", retry_after_seconds=3600)


@pytest.mark.parametrize("client, dialect", CELLS, ids=[f"{c}-http+{d}" for c, d in CELLS])
def test_a_wait_past_max_sleep_is_given_up_after_one_call_with_the_fault_and_the_delay(
    api: cs.Api, client: str, dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.raw["long"] = (cs.canned(errconv.to_http(LONG, dialect)), 3600)
    RAISED.clear()
    _run(client, api, f"{api.base}/raw/long", _policy(api, max_sleep=300), monkeypatch)
    assert api.calls("/raw/long") == 1 and api.clock.slept == 0
    assert len(RAISED) == 1
    caught = RAISED
    error = errconv.clients.stopped(caught[0])  # the SDKs raise APIConnectionError from it
    assert isinstance(error, errconv.clients.WaitTooLong), repr(caught[0])
    assert error.retry_after_seconds == 3600
    assert error.fault.next_step == "wait" and error.fault.retry_after_seconds == 3600
    assert "longer than max_sleep 300" in error.reason


# --------------------------------------------------------------------------- idempotency and timeouts


def _timeouts(api: cs.Api, method: str, headers: dict[str, str]) -> tuple[str, int]:
    policy = RetryPolicy(budget=3, clock=api.clock)
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=policy), timeout=0.1) as client:
        outcome = _outcome(lambda: client.request(method, f"{api.base}/slow/{method.lower()}", headers=headers, content=b"{}"))
    return outcome, api.calls(f"/slow/{method.lower()}")


def _timeouts_requests(api: cs.Api, method: str, headers: dict[str, str]) -> tuple[str, int]:
    session = requests.Session()
    session.mount("http://", errconv.clients.requests.Adapter(retry=RetryPolicy(budget=3, clock=api.clock)))
    outcome = _outcome(lambda: session.request(method, f"{api.base}/slow/{method.lower()}", headers=headers, data=b"{}", timeout=0.1))
    return outcome, api.calls(f"/slow/{method.lower()}")


@pytest.mark.parametrize("send", [_timeouts, _timeouts_requests], ids=["httpx", "requests"])
def test_a_post_without_an_idempotency_key_is_not_sent_again_after_a_timeout(api: cs.Api, send: Callable[..., tuple[str, int]]) -> None:
    outcome, calls = send(api, "POST", {})
    assert outcome in ("ReadTimeout",) and calls == 1
    api.counts.clear()
    outcome, calls = send(api, "POST", {"Idempotency-Key": "k-1"})
    assert outcome == "ReadTimeout" and calls == 3  # the budget: a timeout is a wait without a delay
    assert api.clock.sleeps == [1.0, 2.0]  # the policy's backoff, on its clock
    api.counts.clear()
    outcome, calls = send(api, "GET", {})
    assert outcome == "ReadTimeout" and calls == 3


def test_the_note_on_a_timeout_says_why_it_was_not_repeated(api: cs.Api) -> None:
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=RetryPolicy(clock=api.clock)), timeout=0.1) as client:
        with pytest.raises(httpx.ReadTimeout) as caught:
            client.post(f"{api.base}/slow/note", content=b"{}")
    assert any("not idempotent" in note and "stopped after 1 call" in note for note in caught.value.__notes__)


def test_a_wait_on_a_post_without_a_key_is_returned_not_repeated_unless_the_caller_says_so(api: cs.Api) -> None:
    url = f"{api.base}/problem/rate_limited"
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=_policy(api))) as client:
        assert client.post(url, content=b"{}").status_code == 429
    assert api.calls("/problem/rate_limited") == 1
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=_policy(api), retry_non_idempotent=True)) as client:
        assert client.post(url, content=b"{}").status_code == 200
    assert api.calls("/problem/rate_limited") == 3 and api.clock.sleeps == [30]  # a 429, then 200 after 30 s


# --------------------------------------------------------------------------- the last response


@pytest.mark.parametrize("case", [*cs.FIX, *cs.GIVE_UP])
def test_the_last_response_is_the_callers_with_its_body_and_its_fault(api: cs.Api, case: str) -> None:
    expected = errconv.to_http(cs.FAULTS[case], "google")
    url = f"{api.base}/google/{case}"
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=_policy(api))) as client:
        response = client.get(url)
    assert (response.status_code, response.content) == (expected.status, expected.body)
    assert response.extensions["errconv.fault"].next_step == cs.FAULTS[case].next_step
    session = requests.Session()
    session.mount("http://", errconv.clients.requests.Adapter(retry=_policy(api)))
    got = session.get(url)
    assert (got.status_code, got.content) == (expected.status, expected.body)
    assert got.errconv_fault.next_step == cs.FAULTS[case].next_step  # type: ignore[attr-defined]


def test_a_spent_budget_returns_the_last_response_and_raise_for_status_raises_it(api: cs.Api) -> None:
    never = errconv.Fault.build(status=503, code="busy", next_step="wait", retry_after_seconds=5)
    api.raw["busy"] = (cs.canned(errconv.to_http(never, "problem")), 1e9)
    url = f"{api.base}/raw/busy"
    with httpx.Client(transport=errconv.clients.httpx.Transport(retry=RetryPolicy(budget=3, clock=api.clock))) as client:
        response = client.get(url)
    assert response.status_code == 503 and response.json()["code"] == "busy" and api.calls("/raw/busy") == 3
    assert api.clock.sleeps == [5, 5]
    transport = errconv.clients.httpx.Transport(retry=RetryPolicy(budget=2, clock=api.clock), raise_for_status=True)
    with httpx.Client(transport=transport) as client, pytest.raises(httpx.HTTPStatusError) as caught:
        client.get(url)
    error = caught.value
    assert isinstance(error, errconv.clients.httpx.FaultHTTPStatusError) and isinstance(error, errconv.FaultError)
    assert error.response.json()["code"] == "busy" and error.fault.code == "busy"
    assert error.retry_after_seconds == 5 and error.calls == 2 and "budget spent" in error.reason
    session = requests.Session()
    session.mount("http://", errconv.clients.requests.Adapter(retry=RetryPolicy(budget=2, clock=api.clock), raise_for_status=True))
    with pytest.raises(requests.HTTPError) as raised:
        session.get(url)
    assert isinstance(raised.value, errconv.clients.requests.FaultHTTPError)
    assert raised.value.response.json()["code"] == "busy" and raised.value.fault.code == "busy"


def test_the_guard_refuses_a_repeat_of_a_give_up_before_it_is_sent(api: cs.Api) -> None:
    guard = errconv.TerminalGuard()
    transport = errconv.clients.httpx.Transport(retry=_policy(api), guard=guard)
    url = f"{api.base}/problem/account_suspended"
    with httpx.Client(transport=transport) as client:
        assert client.get(url).status_code == 403
        with pytest.raises(errconv.GuardRefused):
            client.get(url)
        assert client.get(url + "?other=1").status_code == 403  # another request is sent
    assert api.calls("/problem/account_suspended") == 2


def test_the_sdks_own_retries_off_and_errconv_on_make_one_loop(api: cs.Api) -> None:
    # With both on, the SDK would multiply errconv's attempts; with max_retries=0 a
    # give_up is one call and a wait two, as the matrix shows. This checks the
    # SDK's POST path too: a completion is not repeated without a key...
    client = _sdk_client(openai.OpenAI, api, f"{api.base}/openai/rate_limited/v1", _policy(api))
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert api.calls("/openai/rate_limited") == 1 and caught.value.response.status_code == 429
    # ...and is, after exactly the stated delay, when the call carries one.
    client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], extra_headers={"Idempotency-Key": "chat-1"}
    )
    assert api.calls("/openai/rate_limited") == 3 and api.clock.sleeps == [30]
