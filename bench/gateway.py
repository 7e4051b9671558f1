#!/usr/bin/env python
"""What ProblemMiddleware costs a request, on success and on failure.

    python bench/gateway.py                 # 10 to 30 s on two cores
    python bench/gateway.py -n 500 -r 3     # a quick look
    python bench/gateway.py --json          # the figures as JSON

Every app runs under one in-process ASGI driver (a prepared scope, a `receive` that
hands over an empty body, a `send` that keeps the messages), so what is measured is the
app and the middleware, not a server or a socket. Each figure is the median of
`--rounds` rounds; in every round each app serves `--iterations` requests in turn (the
order shuffled), timed in process CPU time with garbage collection off, and each ratio
is taken within a round.

- success: a bare ASGI app answering 200, alone and wrapped in ProblemMiddleware; the
  same for a Starlette app with the middleware added by `add_middleware` (target:
  within 1.05x);
- failure: an app that raises FaultError behind ProblemMiddleware, against the same app
  writing its JSON error by hand (json.dumps of a dict, Content-Type, Retry-After); the
  same for a Starlette app with `install(app)` against a hand-written exception handler
  returning a JSONResponse, and with the middleware added by `add_middleware` instead
  (target: within 1.5x).

With `--otel` (needs the test extra's opentelemetry-sdk), errconv.otel's cost too. Both
apps of each pair run inside a server span (as OpenTelemetry's ASGI instrumentation opens
one) under the real SDK (a TracerProvider, a MeterProvider with an in-memory reader); the
one under test is `ProblemMiddleware(..., telemetry=True)`:

- success, telemetry on: the success path with recording on against it off (target:
  within 1.05x: recording touches only faults);
- failure, telemetry on: the per-fault cost of recording (attributes, status, counter,
  histogram), printed as microseconds next to what the fault itself costs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import errconv
from errconv.gateway import ProblemMiddleware, install

FAULT = errconv.Fault.build(
    status=429, code="rate_limited", next_step="wait", retry_after_seconds=30, detail="60 requests per minute per key"
)
HAND_BODY = {"error": {"code": "rate_limited", "message": "60 requests per minute per key", "retry_after": 30}}
SUCCESS, FAILURE = 1.05, 1.5
# Issue 18: the success path within this many microseconds of a minimal correct middleware.
DELTA_US = 0.2


class RateLimited(Exception):
    pass


# --------------------------------------------------------------------------- the apps


async def ok_app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain"), (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


class MinimalMiddleware:
    """The least a correct error middleware does on success: a started flag and a send
    wrapper, the exception path untaken (issue 18's baseline for the success path)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        started = False

        async def wrapped(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, wrapped)
        except Exception:
            if started:
                raise
            raise


async def fault_app(scope: Any, receive: Any, send: Any) -> None:
    raise errconv.FaultError(FAULT)


async def hand_app(scope: Any, receive: Any, send: Any) -> None:
    try:
        raise RateLimited()
    except RateLimited:
        body = json.dumps(HAND_BODY).encode()
        headers = [(b"content-type", b"application/json"), (b"retry-after", b"30"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def starlette_apps() -> dict[str, Any]:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route

    async def ok(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    async def fails(request: Request) -> None:
        raise errconv.FaultError(FAULT)

    async def fails_by_hand(request: Request) -> None:
        raise RateLimited()

    async def by_hand(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(HAND_BODY, status_code=429, headers={"Retry-After": "30"})

    routes = [Route("/ok", ok), Route("/fail", fails), Route("/fail-by-hand", fails_by_hand)]
    bare = Starlette(routes=routes)
    wrapped = Starlette(routes=routes)
    wrapped.add_middleware(ProblemMiddleware)
    hooked = Starlette(routes=routes)
    install(hooked)
    hand = Starlette(routes=routes, exception_handlers={RateLimited: by_hand})
    return {"bare": bare, "wrapped": wrapped, "hooked": hooked, "hand": hand}


# --------------------------------------------------------------------------- the driver


def scope_for(path: str) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
        "headers": [(b"host", b"bench.local"), (b"user-agent", b"bench"), (b"accept", b"*/*")],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {},
    }  # fmt: skip


def driver(app: Any, path: str, expect: int) -> Callable[[int], Any]:
    """A coroutine function serving `n` requests to `app` one after the other."""
    template = scope_for(path)
    request = {"type": "http.request", "body": b"", "more_body": False}

    async def serve(n: int) -> None:
        status = 0
        for _ in range(n):
            sent: list[Any] = []

            async def receive() -> dict[str, Any]:
                return request

            async def send(message: Any) -> None:
                sent.append(message)

            await app(dict(template), receive, send)
            status = sent[0]["status"]
        if status != expect:
            raise AssertionError(f"{path}: expected {expect}, got {status}")

    return serve


OTEL_PAIRS = (
    ("success, telemetry on", "success"),
    ("failure, telemetry on", "record"),
)

PAIRS = (
    # the comparison, and which target it is held to
    ("success, bare ASGI", "success"),
    ("success, beside a minimal middleware", "delta"),
    ("success, Starlette", "success"),
    ("failure, bare ASGI", "failure"),
    ("failure, Starlette", "failure"),
    ("failure, Starlette middleware", "failure"),
)


def spanned(app: Any) -> Any:
    """`app` inside a server span, as OpenTelemetry's ASGI instrumentation runs it."""
    from opentelemetry import trace

    tracer = trace.get_tracer("bench")

    async def within(scope: Any, receive: Any, send: Any) -> None:
        with tracer.start_as_current_span("GET", kind=trace.SpanKind.SERVER):
            await app(scope, receive, send)

    return within


def otel_contenders() -> dict[str, tuple[tuple[Any, str, int], tuple[Any, str, int]]]:
    """The --otel comparisons, under the real SDK (set up here, once)."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider

    trace.set_tracer_provider(TracerProvider())  # spans record; no exporter, which is the application's cost
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    return {
        "success, telemetry on": ((spanned(ProblemMiddleware(ok_app, telemetry=True)), "/ok", 200), (spanned(ProblemMiddleware(ok_app)), "/ok", 200)),
        "failure, telemetry on": ((spanned(ProblemMiddleware(fault_app, telemetry=True)), "/fail", 429), (spanned(ProblemMiddleware(fault_app)), "/fail", 429)),
    }


def contenders(otel: bool = False) -> dict[str, tuple[tuple[Any, str, int], tuple[Any, str, int]]]:
    """For each comparison: (the app under test, path, status), (its baseline, path, status)."""
    star = starlette_apps()
    extra = otel_contenders() if otel else {}
    return {
        **extra,
        "success, bare ASGI": ((ProblemMiddleware(ok_app), "/ok", 200), (ok_app, "/ok", 200)),
        "success, beside a minimal middleware": ((ProblemMiddleware(ok_app), "/ok", 200), (MinimalMiddleware(ok_app), "/ok", 200)),
        "success, Starlette": ((star["wrapped"], "/ok", 200), (star["bare"], "/ok", 200)),
        "failure, bare ASGI": ((ProblemMiddleware(fault_app), "/fail", 429), (hand_app, "/fail", 429)),
        "failure, Starlette": ((star["hooked"], "/fail", 429), (star["hand"], "/fail-by-hand", 429)),
        "failure, Starlette middleware": ((star["wrapped"], "/fail", 429), (star["hand"], "/fail-by-hand", 429)),
    }


def measure(iterations: int, rounds: int, seed: int = 0, otel: bool = False) -> dict[str, Any]:
    loop = asyncio.new_event_loop()
    runs: dict[tuple[str, int], Callable[[int], Any]] = {}
    for name, pair in contenders(otel).items():
        for side, (app, path, status) in enumerate(pair):
            runs[(name, side)] = driver(app, path, status)
    for serve in runs.values():  # warm up: imports, caches, the first negotiation
        loop.run_until_complete(serve(max(10, iterations // 10)))
    times: dict[tuple[str, int], list[float]] = {key: [] for key in runs}
    rng = random.Random(seed)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            order = list(runs)
            rng.shuffle(order)
            for key in order:
                start = time.process_time()
                loop.run_until_complete(runs[key](iterations))
                times[key].append((time.process_time() - start) / iterations)
    finally:
        if enabled:
            gc.enable()
        loop.close()
    out: dict[str, Any] = {}
    for name, kind in (*OTEL_PAIRS, *PAIRS) if otel else PAIRS:
        ours, base = times[(name, 0)], times[(name, 1)]
        ratios = [a / b for a, b in zip(ours, base)]
        ratio = statistics.median(ratios)
        if kind == "record":  # what recording adds to a fault, beside what the fault costs
            fault_cost = statistics.median(base) - statistics.median(times[("success, telemetry on", 1)])
            out[name] = {
                "us": statistics.median(ours) * 1e6,
                "baseline_us": statistics.median(base) * 1e6,
                "ratio": ratio,
                "record_us": statistics.median((a - b) * 1e6 for a, b in zip(ours, base)),
                "fault_us": fault_cost * 1e6,
                "holds": True,
            }
            continue
        if kind == "delta":  # held to microseconds over the baseline, not to a ratio
            delta = statistics.median((a - b) * 1e6 for a, b in zip(ours, base))
            out[name] = {
                "us": statistics.median(ours) * 1e6,
                "baseline_us": statistics.median(base) * 1e6,
                "ratio": ratio,
                "delta_us": delta,
                "target": DELTA_US,
                "holds": delta <= DELTA_US,
            }
            continue
        target = SUCCESS if kind == "success" else FAILURE
        out[name] = {
            "us": statistics.median(ours) * 1e6,
            "baseline_us": statistics.median(base) * 1e6,
            "ratio": ratio,
            "target": target,
            "holds": ratio <= target,
        }
    return out


def machine() -> dict[str, Any]:
    import starlette

    return {
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(),
        "starlette": starlette.__version__,
    }


def report(results: dict[str, Any], iterations: int, rounds: int, elapsed: float) -> str:
    m = machine()
    lines = [
        f"Machine: {m['cores']} cores ({m['cpu']}), CPython {m['python']}, Starlette {m['starlette']}.",
        f"Median of {rounds} rounds of {iterations} requests each; the run took {elapsed:.1f} s.",
        "",
        "| request | with errconv | baseline | ratio | target | status |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    baselines = {
        "success, bare ASGI": "the bare app",
        "success, beside a minimal middleware": "a started flag and a send wrapper",
        "success, Starlette": "Starlette without it",
        "failure, bare ASGI": "hand-written JSON error",
        "failure, Starlette": "hand-written JSONResponse handler",
        "failure, Starlette middleware": "hand-written JSONResponse handler",
        "success, telemetry on": "telemetry off, same span",
        "failure, telemetry on": "telemetry off, same span",
    }
    for name, r in results.items():
        status = "holds" if r["holds"] else "**MISSED**"
        if "record_us" in r:
            lines.append(
                f"| {name} | {r['us']:.1f} µs | {r['baseline_us']:.1f} µs ({baselines[name]}) | {r['ratio']:.2f}x "
                f"| recording {r['record_us']:+.1f} µs a fault; the fault itself {r['fault_us']:.1f} µs over a success | — |"
            )
            continue
        if "delta_us" in r:
            lines.append(
                f"| {name} | {r['us']:.1f} µs | {r['baseline_us']:.1f} µs ({baselines[name]}) | {r['delta_us']:+.2f} µs "
                f"| <= +{r['target']:.2f} µs | {status} |"
            )
            continue
        lines.append(
            f"| {name} | {r['us']:.1f} µs | {r['baseline_us']:.1f} µs ({baselines[name]}) | {r['ratio']:.2f}x "
            f"| <= {r['target']:.2f}x | {status} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--iterations", type=int, default=5000, help="requests per app per round")
    parser.add_argument("-r", "--rounds", type=int, default=11)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--otel", action="store_true", help="also errconv.otel's cost (needs opentelemetry-sdk)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = measure(args.iterations, args.rounds, otel=args.otel)
    elapsed = time.perf_counter() - start
    if args.json:
        print(json.dumps({"machine": machine(), "results": results}, indent=2))
    else:
        print(report(results, args.iterations, args.rounds, elapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
