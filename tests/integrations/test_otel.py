"""errconv.otel with the real OpenTelemetry SDK and OpenTelemetry's own instrumentations, on loopback.

Spans go to an InMemorySpanExporter, metrics to an InMemoryMetricReader (the SDK's
global providers, set once for this module). Each test reads the spans it made and the
change in the `errconv.faults` counter it caused.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import httpx
import pytest
from loopback import serve_asgi

pytest.importorskip("opentelemetry.sdk")  # the test extra installs it; the message names it when it does not

from fastapi import FastAPI
from opentelemetry import metrics, trace
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.instrumentation.grpc import client_interceptor, grpcext, server_interceptor
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor, SyncOpenTelemetryTransport
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import errconv
import errconv.otel
from errconv.agents.mcp import wrap
from errconv.clients.httpx import Transport
from errconv.gateway import ProblemMiddleware
from errconv.interceptors import ClientInterceptor, FaultRpcError, ServerInterceptor
from errconv.retry import RetryPolicy, VirtualClock

EXPORTER = InMemorySpanExporter()
READER = InMemoryMetricReader()
_PROVIDERS: list[Any] = []


@pytest.fixture(scope="module", autouse=True)
def providers() -> Iterator[None]:
    if not _PROVIDERS:
        tracer_provider = TracerProvider()
        tracer_provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(tracer_provider)
        metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))
        _PROVIDERS.append(tracer_provider)
    yield


@pytest.fixture(autouse=True)
def instrumented() -> Iterator[None]:
    EXPORTER.clear()
    errconv.otel.instrument()
    yield
    errconv.otel.uninstrument()


TRACER = trace.get_tracer("tests")


WHERE: dict[tuple[str, str, str], Any] = {}  # the route (server) or upstream (client) each key was last seen with


def counted() -> dict[tuple[str, str, str], int]:
    """The errconv.faults counter now, by (error.type, next_step, side)."""
    out: dict[tuple[str, str, str], int] = {}
    data = READER.get_metrics_data()
    for rm in data.resource_metrics if data else ():
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                if metric.name == errconv.otel.FAULTS:
                    assert metric.unit == "{fault}"
                    for point in metric.data.data_points:
                        a = point.attributes
                        key = (a["error.type"], a["errconv.next_step"], a["errconv.side"])
                        out[key] = out.get(key, 0) + point.value  # summed over the route or upstream
                        WHERE[key] = a.get("http.route") or a.get("server.address") or a.get("rpc.method")
    return out


def delays() -> dict[tuple[str, str], tuple[int, float]]:
    """The errconv.retry_delay histogram now: (count, sum) by (error.type, side)."""
    out: dict[tuple[str, str], tuple[int, float]] = {}
    data = READER.get_metrics_data()
    for rm in data.resource_metrics if data else ():
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                if metric.name == errconv.otel.RETRY_DELAY:
                    assert metric.unit == "s"
                    for point in metric.data.data_points:
                        out[(point.attributes["error.type"], point.attributes["errconv.side"])] = (point.count, point.sum)
    return out


def change(before: dict[Any, int], after: dict[Any, int]) -> dict[Any, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


def spans(kind: SpanKind | None = None, wanted: int = 0) -> list[ReadableSpan]:
    """The finished spans (of `kind`), waiting up to 10 s for `wanted` of them: a server
    span ends in the server's thread after the client has its response."""
    deadline = time.monotonic() + 10
    while True:
        found = [s for s in EXPORTER.get_finished_spans() if kind is None or s.kind == kind]
        if len(found) >= wanted or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


# --------------------------------------------------------------------------- FastAPI


def fastapi_app(**options: Any) -> FastAPI:
    app = FastAPI()

    @app.get("/limited")
    def limited() -> None:
        raise errconv.FaultError(errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30))

    @app.get("/bad")
    def bad() -> None:
        raise errconv.FaultError(errconv.Fault.build(status=400, code="amount_too_small", next_step="fix_request", param="amount"))

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("db password=hunter2 at 10.0.0.7")

    app.add_middleware(ProblemMiddleware, catch_all=True, **options)
    FastAPIInstrumentor.instrument_app(app)
    return app


def test_fastapi_server_spans_carry_the_move_with_status_as_the_conventions_say() -> None:
    before, waits_before = counted(), delays()
    with serve_asgi(fastapi_app()) as base:
        with httpx.Client(base_url=base) as client:
            assert client.get("/limited").status_code == 429
            assert client.get("/bad").status_code == 400
            assert client.get("/boom").status_code == 500
    found = {s.attributes["http.route"] if "http.route" in s.attributes else s.name: s for s in spans(SpanKind.SERVER, 3)}
    by_status = {s.attributes.get("http.status_code", s.attributes.get("http.response.status_code")): s for s in found.values()}
    assert set(by_status) == {429, 400, 500}

    wait = by_status[429]
    assert wait.attributes["error.type"] == "rate_limited"
    assert wait.attributes["errconv.next_step"] == "wait"
    assert wait.attributes["errconv.retry_after_seconds"] == 30
    assert wait.attributes["errconv.side"] == "server"
    assert wait.attributes["errconv.dialect"] == "problem"
    assert wait.attributes["errconv.next_step.basis"] == "stated"
    assert "errconv.param" not in wait.attributes
    assert wait.status.status_code == StatusCode.UNSET  # a 4xx is the client's error, not the server's

    fix = by_status[400]
    assert fix.attributes["error.type"] == "amount_too_small"
    assert fix.attributes["errconv.next_step"] == "fix_request"
    assert fix.attributes["errconv.param"] == "amount"
    assert "errconv.retry_after_seconds" not in fix.attributes
    assert fix.status.status_code == StatusCode.UNSET

    internal = by_status[500]
    assert internal.attributes["error.type"] == "INTERNAL"  # errconv's INTERNAL has no code: the gRPC code name
    assert internal.attributes["errconv.next_step"] == "give_up"
    assert internal.status.status_code == StatusCode.ERROR
    assert internal.status.description is None  # the status code says it: no description

    assert change(before, counted()) == {
        ("rate_limited", "wait", "server"): 1,
        ("amount_too_small", "fix_request", "server"): 1,
        ("INTERNAL", "give_up", "server"): 1,
    }
    routes = {k[1]: where for k, where in WHERE.items() if k[2] == "server" and k[0] in ("rate_limited", "amount_too_small", "INTERNAL")}
    assert routes == {"wait": "/limited", "fix_request": "/bad", "give_up": "/boom"}  # http.route: fix_request per route
    count, total = delays()[("rate_limited", "server")]
    old = waits_before.get(("rate_limited", "server"), (0, 0.0))
    assert (count - old[0], total - old[1]) == (1, 30)


def test_telemetry_flag_records_for_one_app_without_instrument() -> None:
    errconv.otel.uninstrument()
    before = counted()
    with serve_asgi(fastapi_app(telemetry=True)) as base, httpx.Client(base_url=base) as client:
        assert client.get("/bad").status_code == 400
    (server,) = spans(SpanKind.SERVER, 1)
    assert server.attributes["errconv.param"] == "amount"
    assert change(before, counted()) == {("amount_too_small", "fix_request", "server"): 1}


def test_uninstrument_stops_recording() -> None:
    errconv.otel.uninstrument()
    assert not errconv.otel.instrumented()
    before = counted()
    with serve_asgi(fastapi_app()) as base, httpx.Client(base_url=base) as client:
        assert client.get("/limited").status_code == 429
    (server,) = spans(SpanKind.SERVER, 1)
    assert not any(k.startswith("errconv.") or k == "error.type" for k in server.attributes)
    assert change(before, counted()) == {}


# --------------------------------------------------------------------------- gRPC


@contextlib.contextmanager
def grpc_server(handlers: dict[str, Callable[[bytes, Any], bytes]]) -> Iterator[str]:
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4),
        interceptors=[server_interceptor(), ServerInterceptor()],  # OpenTelemetry's first: outermost, its span current in errconv's
    )
    generic = grpc.method_handlers_generic_handler("shop.Shop", {name: grpc.unary_unary_rpc_method_handler(fn) for name, fn in handlers.items()})
    server.add_generic_rpc_handlers((generic,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def test_grpc_server_and_client_under_opentelemetry_grpc_instrumentation() -> None:
    calls = {"Pay": 0}

    def pay(request: bytes, context: Any) -> bytes:
        calls["Pay"] += 1
        if calls["Pay"] == 1:
            raise errconv.FaultError(errconv.Fault.build(grpc_code=errconv.Code.UNAVAILABLE, code="overloaded", next_step="wait", retry_after_seconds=2))
        return b"paid"

    def refund(request: bytes, context: Any) -> bytes:
        raise errconv.FaultError(errconv.Fault.build(grpc_code=errconv.Code.INVALID_ARGUMENT, code="bad_amount", next_step="fix_request", param="amount"))

    before = counted()
    clock = VirtualClock()
    with grpc_server({"Pay": pay, "Refund": refund}) as target:
        with grpc.insecure_channel(target) as plain:
            # errconv's interceptor outside OpenTelemetry's: each attempt is its own client span.
            channel = grpc.intercept_channel(grpcext.intercept_channel(plain, client_interceptor()), ClientInterceptor(retry=RetryPolicy(clock=clock)))
            with TRACER.start_as_current_span("checkout") as checkout:
                assert channel.unary_unary("/shop.Shop/Pay")(b"x", timeout=10) == b"paid"
            with TRACER.start_as_current_span("refund"):
                with pytest.raises(FaultRpcError):
                    channel.unary_unary("/shop.Shop/Refund")(b"x", timeout=10)
    assert clock.sleeps == [2]

    servers = spans(SpanKind.SERVER, 3)
    failed = [s for s in servers if "error.type" in s.attributes]
    assert sorted(s.attributes["error.type"] for s in failed) == ["bad_amount", "overloaded"]
    unavailable = next(s for s in failed if s.attributes["error.type"] == "overloaded")
    assert unavailable.attributes["errconv.next_step"] == "wait"
    assert unavailable.attributes["errconv.retry_after_seconds"] == 2
    assert unavailable.attributes["errconv.dialect"] == "grpc"
    assert unavailable.attributes["rpc.grpc.status_code"] == 14
    assert unavailable.status.status_code == StatusCode.ERROR  # UNAVAILABLE is a server error by the RPC conventions
    invalid = next(s for s in failed if s.attributes["error.type"] == "bad_amount")
    assert invalid.attributes["errconv.param"] == "amount"

    clients = [s for s in spans() if s.kind == SpanKind.CLIENT]
    assert len(clients) == 3  # Pay twice (one resend), Refund once
    parents = {s.name: s for s in spans(SpanKind.INTERNAL)}
    pay_span = parents["checkout"]
    # The retried fault is an event on the caller's span; the call succeeded: no status, no error.type.
    (event,) = [e for e in pay_span.events if e.name == "errconv.fault"]
    assert event.attributes["error.type"] == "overloaded" and event.attributes["errconv.sleep_seconds"] == 2
    assert "error.type" not in pay_span.attributes and pay_span.status.status_code == StatusCode.UNSET
    refund_span = parents["refund"]
    assert refund_span.attributes["error.type"] == "bad_amount"
    assert refund_span.attributes["errconv.side"] == "client"
    assert refund_span.status.status_code == StatusCode.ERROR  # a client's call failed: error, whatever the code
    assert checkout.get_span_context().trace_id == pay_span.context.trace_id
    assert change(before, counted()) == {
        ("overloaded", "wait", "server"): 1,
        ("overloaded", "wait", "client"): 1,
        ("bad_amount", "fix_request", "server"): 1,
        ("bad_amount", "fix_request", "client"): 1,
    }
    # Counted by method on both sides, by the RPC conventions' fully-qualified name.
    assert WHERE[("overloaded", "wait", "server")] == WHERE[("overloaded", "wait", "client")] == "shop.Shop/Pay"
    assert WHERE[("bad_amount", "fix_request", "server")] == WHERE[("bad_amount", "fix_request", "client")] == "shop.Shop/Refund"


# --------------------------------------------------------------------------- httpx


@contextlib.contextmanager
def flaky_upstream(answers: list[tuple[int, dict[str, str], bytes]]) -> Iterator[str]:
    """An upstream on loopback that answers each request with the next of `answers` (the last repeats)."""
    served = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            status, headers, body = answers[min(len(served), len(answers) - 1)]
            served.append(self.path)
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


UNAVAILABLE = (503, {"Retry-After": "2", "Content-Type": "application/json"}, b'{"error": {"code": "upstream_busy", "message": "try later"}}')
OK = (200, {"Content-Type": "application/json"}, b"{}")


def test_httpx_resend_is_its_own_client_span_with_resend_count() -> None:
    before = counted()
    clock = VirtualClock()
    HTTPXClientInstrumentor().instrument()
    try:
        with flaky_upstream([UNAVAILABLE, OK]) as base:
            # The instrumentation wraps httpx.HTTPTransport, the transport errconv's Transport wraps.
            with httpx.Client(transport=Transport(retry=RetryPolicy(clock=clock))) as client, TRACER.start_as_current_span("sync-orders") as outer:
                assert client.get(f"{base}/orders").status_code == 200
    finally:
        HTTPXClientInstrumentor().uninstrument()
    assert clock.sleeps == [2]
    first, second = sorted(spans(SpanKind.CLIENT, 2), key=lambda s: s.start_time or 0)
    assert "http.request.resend_count" not in first.attributes
    assert second.attributes["http.request.resend_count"] == 1
    assert second.attributes["errconv.resend_delay_seconds"] == 2
    assert first.parent is not None and second.parent is not None
    assert first.parent.span_id == second.parent.span_id == outer.get_span_context().span_id
    (parent,) = spans(SpanKind.INTERNAL)
    (event,) = [e for e in parent.events if e.name == "errconv.fault"]
    assert event.attributes["errconv.next_step"] == "wait" and event.attributes["errconv.retry_after_seconds"] == 2
    # The upstream's body states no move: errconv's wait rests on its 503 and Retry-After.
    assert event.attributes["errconv.next_step.basis"] == "inferred"
    assert parent.status.status_code == StatusCode.UNSET  # the request succeeded in the end
    (key,) = change(before, counted())
    assert key[1:] == ("wait", "client") and change(before, counted())[key] == 1
    assert WHERE[key] == "127.0.0.1"  # server.address: waits per upstream


def test_httpx_async_resend_is_its_own_client_span_too() -> None:
    import asyncio

    from errconv.clients.httpx import AsyncTransport

    clock = VirtualClock()
    seen: list[str] = []

    async def mine(name: str, info: Any) -> None:  # a trace callback of the caller's own: still called
        seen.append(name)

    async def run(base: str) -> int:
        async with httpx.AsyncClient(transport=AsyncTransport(retry=RetryPolicy(clock=clock))) as client:
            response = await client.get(f"{base}/orders", extensions={"trace": mine})
            return response.status_code

    HTTPXClientInstrumentor().instrument()
    try:
        with flaky_upstream([UNAVAILABLE, OK]) as base:
            assert asyncio.run(run(base)) == 200
    finally:
        HTTPXClientInstrumentor().uninstrument()
    first, second = sorted(spans(SpanKind.CLIENT, 2), key=lambda s: s.start_time or 0)
    assert "http.request.resend_count" not in first.attributes
    assert second.attributes["http.request.resend_count"] == 1 and second.attributes["errconv.resend_delay_seconds"] == 2
    assert seen.count("http11.send_request_headers.started") == 2  # both attempts: errconv's callback chains to the caller's


def test_httpx2_resend_under_opentelemetry_transport_inside_errconvs() -> None:
    httpx2 = pytest.importorskip("httpx2")
    from opentelemetry.instrumentation.httpx import SyncOpenTelemetryTransportHttpx2

    from errconv.clients.httpx2 import Transport as Transport2

    clock = VirtualClock()
    with flaky_upstream([UNAVAILABLE, OK]) as base:
        inner = SyncOpenTelemetryTransportHttpx2(httpx2.HTTPTransport())
        with httpx2.Client(transport=Transport2(inner, retry=RetryPolicy(clock=clock))) as client:
            assert client.get(f"{base}/orders").status_code == 200
    first, second = sorted(spans(SpanKind.CLIENT, 2), key=lambda s: s.start_time or 0)
    assert "http.request.resend_count" not in first.attributes
    assert second.attributes["http.request.resend_count"] == 1


def test_httpx_instrumentation_outside_errconv_gives_one_span_and_resend_events() -> None:
    """The wrong order (OpenTelemetry's transport around errconv's): one span for all
    attempts; the resend is then an event on it, never a lost attribute."""
    clock = VirtualClock()
    with flaky_upstream([UNAVAILABLE, OK]) as base:
        transport = SyncOpenTelemetryTransport(Transport(retry=RetryPolicy(clock=clock)))
        with httpx.Client(transport=transport) as client:
            assert client.get(f"{base}/orders").status_code == 200
    (only,) = spans(SpanKind.CLIENT, 1)
    assert "http.request.resend_count" not in only.attributes
    (resend,) = [e for e in only.events if e.name == "errconv.resend"]
    assert resend.attributes["http.request.resend_count"] == 1


def test_a_wait_given_up_past_max_sleep_and_a_guard_refusal_are_span_events() -> None:
    from errconv.retry import TerminalGuard

    long_wait = (429, {"Retry-After": "3600"}, b"")
    gone = (410, {}, b"")
    with flaky_upstream([long_wait]) as base:
        with httpx.Client(transport=Transport(retry=RetryPolicy(clock=VirtualClock(), max_sleep=60))) as client:
            with TRACER.start_as_current_span("too-long"):
                with pytest.raises(httpx.HTTPStatusError):
                    client.get(f"{base}/x")
    with flaky_upstream([gone]) as base:
        with httpx.Client(transport=Transport(guard=TerminalGuard(), raise_for_status=True)) as client:
            with TRACER.start_as_current_span("refused"):
                with pytest.raises(httpx.HTTPStatusError):
                    client.get(f"{base}/gone")
                with pytest.raises(errconv.retry.GuardRefused):
                    client.get(f"{base}/gone")
    found = {s.name: s for s in spans(SpanKind.INTERNAL, 2)}
    (too_long,) = [e for e in found["too-long"].events if e.name == "errconv.wait_too_long"]
    assert too_long.attributes["errconv.retry_after_seconds"] == 3600 and "max_sleep" in too_long.attributes["errconv.reason"]
    assert found["too-long"].attributes["errconv.next_step"] == "wait"
    assert found["too-long"].status.status_code == StatusCode.ERROR
    (refused,) = [e for e in found["refused"].events if e.name == "errconv.guard_refused"]
    assert refused.attributes["errconv.reason"] and refused.attributes["error.type"]


# --------------------------------------------------------------------------- agents


def test_an_agent_tool_failure_is_recorded_on_the_tool_span() -> None:
    @wrap
    def transfer(amount: int) -> str:
        raise errconv.FaultError(errconv.Fault.build(status=403, code="account_frozen", next_step="give_up"))

    before = counted()
    with TRACER.start_as_current_span("execute_tool transfer"):
        first = transfer(amount=5)
    with TRACER.start_as_current_span("execute_tool transfer again"):
        second = transfer(amount=5)  # refused by the harness guard, never sent
    assert first.is_error and second.is_error
    found = {s.name: s for s in spans(SpanKind.INTERNAL, 2)}
    tool = found["execute_tool transfer"]
    assert tool.attributes["error.type"] == "account_frozen"
    assert tool.attributes["errconv.side"] == "tool"
    assert tool.attributes["errconv.next_step"] == "give_up"
    assert tool.status.status_code == StatusCode.ERROR
    (refused,) = [e for e in found["execute_tool transfer again"].events if e.name == "errconv.guard_refused"]
    assert refused.attributes["error.type"] == "account_frozen"
    assert change(before, counted()) == {("account_frozen", "give_up", "tool"): 1}


def _adapters() -> dict[str, Callable[..., Any]]:
    """Each agent adapter's wrap, as a function of (tool, **options) returning a callable
    that runs the tool once and swallows what the framework raises for a failure."""
    import errconv.agents
    import errconv.agents.langchain
    import errconv.agents.llama_index
    import errconv.agents.mcp
    import errconv.agents.openai_agents
    import errconv.agents.pydantic_ai

    def raising(wrap: Callable[..., Any]) -> Callable[..., Any]:
        def make(tool: Callable[..., Any], **options: Any) -> Callable[..., Any]:
            wrapped = wrap(**options)(tool)

            def run(**kwargs: Any) -> None:
                with contextlib.suppress(Exception):
                    wrapped(**kwargs)

            return run

        return make

    def llama(tool: Callable[..., Any], **options: Any) -> Callable[..., Any]:
        function_tool = errconv.agents.llama_index.wrap(tool, **options)
        return lambda **kwargs: function_tool.call(**kwargs)

    return {
        "plain": raising(errconv.agents.wrap),
        "mcp": raising(errconv.agents.mcp.wrap),
        "langchain": raising(errconv.agents.langchain.wrap),
        "openai_agents": raising(errconv.agents.openai_agents.wrap),
        "pydantic_ai": raising(errconv.agents.pydantic_ai.wrap),
        "llama_index": llama,
    }


@pytest.mark.parametrize("adapter", ["plain", "mcp", "langchain", "openai_agents", "pydantic_ai", "llama_index"])
def test_every_agent_adapter_records_with_its_own_telemetry_flag(adapter: str) -> None:
    errconv.otel.uninstrument()  # the flag alone

    def transfer(amount: int) -> str:
        raise errconv.FaultError(errconv.Fault.build(status=403, code="account_frozen", next_step="give_up"))

    make = _adapters()[adapter]
    before = counted()
    with TRACER.start_as_current_span("silent"):
        make(transfer)(amount=5)  # telemetry off, nothing instrumented: nothing recorded
    with TRACER.start_as_current_span("recorded"):
        make(transfer, telemetry=True)(amount=5)
    found = {s.name: s for s in spans(SpanKind.INTERNAL, 2)}
    assert "error.type" not in found["silent"].attributes
    tool = found["recorded"]
    assert (tool.attributes["error.type"], tool.attributes["errconv.side"], tool.attributes["errconv.next_step"]) == ("account_frozen", "tool", "give_up")
    assert change(before, counted()) == {("account_frozen", "give_up", "tool"): 1}


def test_langchain_middleware_records_with_its_flag() -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from errconv.agents.langchain import middleware

    class ToolCalling(FakeMessagesListChatModel):  # LangChain's fake model, told it can call tools
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    @tool
    def transfer(amount: int) -> str:
        """Move money."""
        raise errconv.FaultError(errconv.Fault.build(status=403, code="account_frozen", next_step="give_up"))

    def call(i: int) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": "transfer", "args": {"amount": 5}, "id": f"call_{i}", "type": "tool_call"}])

    errconv.otel.uninstrument()  # the flag alone
    before = counted()
    model = ToolCalling(responses=[call(0), call(1), AIMessage(content="done")])
    with TRACER.start_as_current_span("agent run") as run:
        create_agent(model, tools=[transfer], middleware=[middleware(telemetry=True)]).invoke({"messages": [{"role": "user", "content": "send 5"}]})
    (span,) = [s for s in spans(SpanKind.INTERNAL, 1) if s.context.span_id == run.get_span_context().span_id]
    assert (span.attributes["error.type"], span.attributes["errconv.side"]) == ("account_frozen", "tool")
    assert [e.name for e in span.events] == ["errconv.guard_refused"]  # the second, identical call
    assert change(before, counted()) == {("account_frozen", "give_up", "tool"): 1}


# --------------------------------------------------------------------------- no secret, no free text

SECRET = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
BODY = json.dumps(
    {
        "error": {
            "code": f"bad key {SECRET}",
            "message": f"Invalid API key provided: {SECRET}; Authorization: Bearer {TOKEN}",
            "param": f"api_key={SECRET}",
            "type": "invalid_request_error",
        }
    }
).encode()
LEAKY = (401, {"Content-Type": "application/json", "WWW-Authenticate": f'Bearer error="{TOKEN}"', "X-Api-Key": SECRET}, BODY)
# What an attribute value may be: a number, a bool, or a short identifier.
_IDENT = re.compile(r"[A-Za-z0-9_.\-:/\[\]]{1,64}")


def _values(span: ReadableSpan) -> Iterator[tuple[str, Any]]:
    yield from span.attributes.items()
    for event in span.events:
        yield from event.attributes.items()


@pytest.mark.parametrize("include_text", [False, True], ids=["default", "include_text"])
def test_no_secret_and_no_free_text_in_any_attribute(include_text: bool) -> None:
    errconv.otel.instrument(include_text=include_text)
    with flaky_upstream([LEAKY]) as base:
        with httpx.Client(transport=Transport()) as client, TRACER.start_as_current_span("leaky"):
            assert client.get(f"{base}/v1/charges?api_key={SECRET}").status_code == 401
    app = FastAPI()

    @app.get("/leak")
    def leak() -> None:
        raise errconv.FaultError(errconv.Fault.build(status=400, code=SECRET, title=f"token {TOKEN}", detail=f"key {SECRET}", next_step="fix_request", param=f"{SECRET}"))

    app.add_middleware(ProblemMiddleware)
    FastAPIInstrumentor.instrument_app(app)
    with serve_asgi(app) as base, httpx.Client(base_url=base) as client:
        assert client.get("/leak", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 400
    recorded = spans(None, 2)
    ours = [s for s in recorded if "error.type" in s.attributes]
    assert len(ours) == 2
    texts = 0
    for span in recorded:
        for key, value in _values(span):
            assert SECRET not in str(value) and TOKEN not in str(value), (span.name, key)
            if key.startswith("errconv.") or key == "error.type":
                if key in ("errconv.title", "errconv.detail", "errconv.reason"):
                    texts += 1
                    assert include_text or key == "errconv.reason"
                elif isinstance(value, str):
                    assert _IDENT.fullmatch(value), (key, value)
    assert (texts > 0) == include_text
    for key in counted():
        assert SECRET not in " ".join(key) and all(_IDENT.fullmatch(part) for part in key)
    # The code that held a key gives way to the gRPC code name; the param that held one is left out.
    server = next(s for s in ours if s.kind == SpanKind.SERVER)
    assert server.attributes["error.type"] == "INVALID_ARGUMENT"
    assert "errconv.param" not in server.attributes


def test_record_puts_a_fault_on_a_given_span() -> None:
    fault = errconv.Fault.build(status=503, code="maintenance", next_step="wait", retry_after_seconds=120)
    with TRACER.start_as_current_span("manual") as span:
        errconv.otel.record(fault, span, side="server")
    (done,) = spans(SpanKind.INTERNAL, 1)
    assert done.attributes["error.type"] == "maintenance" and done.attributes["errconv.retry_after_seconds"] == 120
    assert done.status.status_code == StatusCode.ERROR  # a 503 on the server side
    with pytest.raises(TypeError):
        errconv.otel.record("not a fault")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        errconv.otel.record(fault, side="proxy")


# --------------------------------------------------------------------------- grpc.aio


def test_grpc_aio_server_and_client_under_opentelemetry_aio_instrumentation() -> None:
    import asyncio

    import errconv.aio
    from opentelemetry.instrumentation.grpc import aio_client_interceptors, aio_server_interceptor

    calls = {"n": 0}

    async def pay(request: bytes, context: Any) -> bytes:
        calls["n"] += 1
        if calls["n"] == 1:
            raise errconv.FaultError(errconv.Fault.build(grpc_code=errconv.Code.RESOURCE_EXHAUSTED, code="quota", next_step="wait", retry_after_seconds=3))
        raise errconv.FaultError(errconv.Fault.build(grpc_code=errconv.Code.INTERNAL, code="ledger_broken", next_step="give_up"))

    clock = VirtualClock()

    async def run() -> None:
        server = grpc.aio.server(interceptors=[aio_server_interceptor(), errconv.aio.ServerInterceptor(telemetry=True)])
        generic = grpc.method_handlers_generic_handler("shop.Shop", {"Pay": grpc.unary_unary_rpc_method_handler(pay)})
        server.add_generic_rpc_handlers((generic,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            # grpc.aio runs client interceptors in list order: errconv's first, outside OpenTelemetry's.
            interceptors = [errconv.aio.UnaryUnaryClientInterceptor(retry=RetryPolicy(clock=clock), telemetry=True), *aio_client_interceptors()]
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", interceptors=interceptors) as channel:
                with TRACER.start_as_current_span("aio-pay"):
                    with pytest.raises(grpc.aio.AioRpcError):
                        await channel.unary_unary("/shop.Shop/Pay")(b"x", timeout=10)
        finally:
            await server.stop(None)

    errconv.otel.uninstrument()  # the flags alone
    before = counted()
    asyncio.run(run())
    assert clock.sleeps == [3]
    servers = sorted(spans(SpanKind.SERVER, 2), key=lambda s: s.start_time or 0)
    assert [s.attributes["error.type"] for s in servers] == ["quota", "ledger_broken"]
    assert [s.status.status_code for s in servers] == [StatusCode.UNSET, StatusCode.ERROR]  # RESOURCE_EXHAUSTED is the caller's; INTERNAL the server's
    assert len(spans(SpanKind.CLIENT, 2)) == 2  # one client span per attempt
    (caller,) = [s for s in spans(SpanKind.INTERNAL) if s.name == "aio-pay"]
    assert [e.attributes["error.type"] for e in caller.events if e.name == "errconv.fault"] == ["quota"]
    assert caller.attributes["error.type"] == "ledger_broken" and caller.status.status_code == StatusCode.ERROR
    assert change(before, counted()) == {
        ("quota", "wait", "server"): 1,
        ("quota", "wait", "client"): 1,
        ("ledger_broken", "give_up", "server"): 1,
        ("ledger_broken", "give_up", "client"): 1,
    }
    assert {WHERE[key] for key in (("quota", "wait", "server"), ("quota", "wait", "client"), ("ledger_broken", "give_up", "client"))} == {"shop.Shop/Pay"}


# --------------------------------------------------------------------------- the import


def test_import_errconv_never_imports_opentelemetry_and_the_flag_names_the_extra() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import errconv, errconv.gateway, errconv.interceptors, errconv.aio, errconv.clients.httpx, errconv.agents\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry')], 'OpenTelemetry imported'\n"
        "sys.modules['opentelemetry'] = None  # as if opentelemetry-api were not installed\n"
        "from errconv.gateway import ProblemMiddleware\n"
        "ProblemMiddleware(lambda *a: None)  # no flag: fine\n"
        "try:\n"
        "    ProblemMiddleware(lambda *a: None, telemetry=True)\n"
        "except ImportError as exc:\n"
        "    assert \"errconv[otel]\" in str(exc), exc\n"
        "else:\n"
        "    raise AssertionError('no ImportError')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert result.returncode == 0, result.stderr[-2000:]
