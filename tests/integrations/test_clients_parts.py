"""Issue 21: the parts of errconv.clients one at a time, and x-should-retry on the wire."""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys

import httpx
import pytest
import requests
import tenacity

import errconv
import errconv.clients
import errconv.clients.httpx
import errconv.clients.httpx2
import errconv.clients.requests
import errconv.clients.stamina
import errconv.clients.tenacity
import golden_corpus as gc
from errconv.gateway import ProblemMiddleware
from errconv.retry import RetryPolicy, TerminalGuard, VirtualClock

SRC = pathlib.Path(errconv.__file__).parent / "clients"
LIBRARIES = {"httpx": "httpx", "httpx2": "httpx2", "requests": "requests", "tenacity": "tenacity", "stamina": "stamina"}


# --------------------------------------------------------------------------- imports


def test_importing_errconv_clients_imports_no_client_library() -> None:
    code = (
        "import sys, errconv, errconv.clients, errconv.gateway\n"
        f"loaded = sorted(n for n in {sorted(set(LIBRARIES) | {'urllib3', 'openai', 'anthropic', 'stripe'})!r} if n in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("module, library", LIBRARIES.items())
def test_a_missing_library_names_the_extra(module: str, library: str) -> None:
    code = (
        f"import sys\nsys.modules[{library!r}] = None\n"
        f"try:\n    import errconv.clients.{module}\nexcept ImportError as exc:\n    print(exc)\nelse:\n    raise SystemExit('imported')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert f"pip install 'errconv[{module}]'" in out


def test_the_httpx2_module_is_the_httpx_module_bound_to_httpx2() -> None:
    def code(name: str) -> str:
        text = (SRC / f"{name}.py").read_text()
        return text[text.index('"""', 3) + 3 :]  # after the module docstring

    assert code("httpx2").replace("httpx2", "httpx") == code("httpx")


def test_the_errors_are_the_librarys_own_and_errconvs() -> None:
    for module, base in ((errconv.clients.httpx, httpx.HTTPStatusError), (errconv.clients.requests, requests.HTTPError)):
        stopped = module.WaitTooLongError
        assert issubclass(stopped, base) and issubclass(stopped, errconv.clients.WaitTooLong)
        assert issubclass(stopped, errconv.clients.StoppedError) and issubclass(stopped, errconv.FaultError)


# --------------------------------------------------------------------------- the transports, in memory


WAIT = errconv.Fault.build(status=503, code="busy", next_step="wait", retry_after_seconds=0)


def _answer(fault: errconv.Fault, dialect: str = "problem") -> httpx.Response:
    response = errconv.to_http(fault, dialect)
    return httpx.Response(response.status, headers=response.headers, content=response.body)


def test_the_async_transport_sleeps_on_the_event_loop_with_the_real_clock() -> None:
    calls: list[int] = []

    async def api(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return _answer(WAIT) if len(calls) == 1 else httpx.Response(200, json={})

    async def go() -> int:
        transport = errconv.clients.httpx.AsyncTransport(httpx.MockTransport(api), retry=RetryPolicy())
        async with httpx.AsyncClient(transport=transport) as client:
            return (await client.get("https://api.example.com/")).status_code

    assert asyncio.run(go()) == 200 and len(calls) == 2


def test_the_delay_comes_from_the_body_when_no_header_states_it() -> None:
    quota = errconv.Fault.build(status=429, code="quota", next_step="wait", retry_after_seconds=42)
    headerless = httpx.Response(429, headers={"Content-Type": "application/json"}, content=errconv.encode(quota, "google"))
    answers = iter([headerless, httpx.Response(200, json={})])
    clock = VirtualClock()
    transport = errconv.clients.httpx.Transport(httpx.MockTransport(lambda r: next(answers)), retry=RetryPolicy(clock=clock))
    with httpx.Client(transport=transport) as client:
        assert client.get("https://api.example.com/").status_code == 200
    assert clock.sleeps == [42]


def test_the_error_message_names_no_url() -> None:
    fault = errconv.Fault.build(status=403, code="account_suspended", detail="suspended", next_step="give_up")
    transport = errconv.clients.httpx.Transport(httpx.MockTransport(lambda r: _answer(fault)), raise_for_status=True)
    with httpx.Client(transport=transport) as client, pytest.raises(errconv.clients.httpx.FaultHTTPStatusError) as caught:
        client.get("https://api.example.com/v1?key=sk-secret")
    assert "sk-secret" not in str(caught.value) and "account_suspended" in str(caught.value)
    assert caught.value.retry_after_seconds is None and caught.value.calls == 1


def test_the_adapter_refuses_urllib3_retries_underneath() -> None:
    with pytest.raises(ValueError, match="max_retries"):
        errconv.clients.requests.Adapter(max_retries=3)
    with pytest.raises(TypeError):
        errconv.clients.httpx.Transport(retry=3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- tenacity and stamina


def _status_error(fault: errconv.Fault, dialect: str = "problem", headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    # A POST with an Idempotency-Key: one the hooks may repeat (issue 27).
    keyed = {"Idempotency-Key": "transfer-1"} if headers is None else headers
    request = httpx.Request("POST", "https://api.example.com/transfers", content=b'{"amount": 150}', headers=keyed)
    response = _answer(fault, dialect)
    response.request = request
    return httpx.HTTPStatusError("failed", request=request, response=response)


def test_the_stamina_hook_returns_the_delay_true_or_false() -> None:
    hook = errconv.clients.stamina.backoff_hook(retry=RetryPolicy(max_sleep=300))
    assert hook(_status_error(errconv.Fault.build(status=429, next_step="wait", retry_after_seconds=30))) == 30.0
    assert hook(_status_error(errconv.Fault.build(status=429, next_step="wait", retry_after_seconds=30), headers={})) is False  # no key
    assert hook(_status_error(errconv.Fault.build(status=400, param="currency", next_step="fix_request"))) is False
    assert hook(ValueError("not an HTTP error")) is False
    assert hook(errconv.FaultError(errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=2))) == 2.0
    vague = httpx.HTTPStatusError("x", request=httpx.Request("GET", "https://x"), response=httpx.Response(503, request=httpx.Request("GET", "https://x")))
    assert hook(vague) is True  # a wait with no delay: stamina's own backoff
    with pytest.raises(errconv.clients.WaitTooLong) as caught:
        hook(_status_error(errconv.Fault.build(status=429, next_step="wait", retry_after_seconds=3600)))
    assert caught.value.retry_after_seconds == 3600


def test_the_guard_shared_with_tenacity_refuses_in_the_transport() -> None:
    guard = TerminalGuard()
    suspended = errconv.Fault.build(status=403, code="account_suspended", next_step="give_up")
    error = _status_error(suspended)
    state = tenacity.RetryCallState(retry_object=tenacity.Retrying(), fn=None, args=(), kwargs={})
    state.set_exception((type(error), error, None))
    assert errconv.clients.tenacity.retry_if_fault(retry=RetryPolicy(), guard=guard)(state) is False
    assert errconv.clients.tenacity.wait_fault(retry=RetryPolicy())(state) == 0.0
    transport = errconv.clients.httpx.Transport(httpx.MockTransport(lambda r: httpx.Response(200)), guard=guard)
    with httpx.Client(transport=transport) as client, pytest.raises(errconv.GuardRefused):
        client.post("https://api.example.com/transfers", content=b'{"amount": 150}')


def test_tenacitys_attempt_number_spends_the_policys_budget() -> None:
    busy = errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=7)
    calls: list[int] = []
    clock = VirtualClock()

    def call() -> None:
        calls.append(1)
        raise errconv.FaultError(busy)

    with pytest.raises(errconv.FaultError):
        errconv.clients.tenacity.retrying(retry=RetryPolicy(budget=3, clock=clock))(call)
    assert len(calls) == 3 and clock.sleeps == [7, 7]


# --------------------------------------------------------------------------- on the wire


HTTP_DIALECTS = [name for name in errconv.dialect_names() if name.startswith("http+")]


@pytest.mark.parametrize("dialect", HTTP_DIALECTS)
def test_every_http_rendering_says_x_should_retry_once(dialect: str) -> None:
    for case in gc.cases():
        fault = gc.load_fault(case)
        raw = errconv.encode(fault, dialect)
        head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
        values = [line.split(":", 1)[1].strip() for line in head if line.lower().startswith("x-should-retry:")]
        assert values == ["true" if fault.next_step == "wait" else "false"], (case.name, dialect, values)


def test_the_gateway_answers_with_x_should_retry() -> None:
    async def app(scope: object, receive: object, send: object) -> None:
        raise errconv.FaultError(errconv.Fault.build(status=503, code="busy", next_step="wait", retry_after_seconds=7))

    async def denied(scope: object, receive: object, send: object) -> None:
        raise errconv.FaultError(errconv.Fault.build(status=403, code="forbidden", next_step="give_up"))

    async def call(target: object) -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=ProblemMiddleware(target)), base_url="http://t") as client:
            return await client.get("/x")

    busy, no = asyncio.run(call(app)), asyncio.run(call(denied))
    assert (busy.headers["retry-after"], busy.headers["x-should-retry"]) == ("7", "true")
    assert no.headers["x-should-retry"] == "false" and "retry-after" not in no.headers


def test_an_http_exceptions_own_x_should_retry_is_read_not_doubled() -> None:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    import errconv.gateway

    async def busy(request: object) -> None:
        raise HTTPException(503, detail="Busy", headers={"Retry-After": "5", "x-should-retry": "false"})

    app = Starlette(routes=[Route("/busy", busy)])
    errconv.gateway.install(app)

    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return await client.get("/busy")

    response = asyncio.run(call())
    # The server's "do not retry" outranks its delay: one header, saying false, and no wait.
    assert response.headers.get_list("x-should-retry") == ["false"]
    assert response.json()["next_step"] == "give_up"


def test_the_docstring_examples_run() -> None:
    import doctest

    import errconv.clients._core

    result = doctest.testmod(errconv.clients._core)
    assert result.failed == 0 and result.attempted > 0
