#!/usr/bin/env python
"""What errconv's gRPC interceptors cost per call, as ratios measured in one process.

    python bench/grpc_overhead.py                  # about 25 s
    python bench/grpc_overhead.py --calls 500 --rounds 3
    python bench/grpc_overhead.py --json

Two targets (from the interceptor issue):

- server: a failing unary call through `errconv.interceptors.ServerInterceptor` (the
  handler raises `FaultError(Fault.build(...))`) against the same server with no
  interceptor, whose handler builds the same google.rpc.Status by hand (ErrorInfo with
  reason, domain and next_step; RetryInfo; grpc-retry-pushback-ms) and calls
  `context.abort_with_status`: within 1.10x;
- client: a successful unary call through `errconv.interceptors.ClientInterceptor()`
  against the same call on the bare channel: within 1.05x.

Beside them, for the record (no target): the server against a hand-built Status made
once and reused (the floor: no per-call building at all); the client with a
RetryPolicy and a TerminalGuard configured (which a successful call does not use
beyond keying the request); and the client through an interceptor that does nothing,
which is what `grpc.intercept_channel` costs by itself; and the server's own CPU time
per failing call, in the handler's thread (the handler and errconv's wrapper), which
load from elsewhere on the machine hardly moves, where it moves the wall clock a lot.

Every call is a real call over 127.0.0.1 (server and client in this process, so the
figure is the whole cost of a call, both sides). Each round times `--calls` calls of
every variant in turn, wall clock, garbage collection off; the rounds are short and
many, so that a change in the machine's load falls on every variant alike; a ratio is
taken within a round, and the median over rounds is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2

import errconv
from errconv.interceptors import ClientInterceptor, ServerInterceptor
from errconv.retry import RetryPolicy, TerminalGuard

SERVICE = "errconv.bench.Overhead"
TARGETS = {"server": 1.10, "client": 1.05}


class _Status:
    """What a handler passes to abort_with_status (grpc.Status's attributes)."""

    __slots__ = ("code", "details", "trailing_metadata")

    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: tuple[tuple[str, Any], ...]) -> None:
        self.code, self.details, self.trailing_metadata = code, details, trailing_metadata


def _pack(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def hand_status() -> _Status:
    """The rich status for an overloaded service, written with the protobuf classes."""
    info = error_details_pb2.ErrorInfo(reason="OVERLOADED", domain="example.com", metadata={"next_step": "wait"})
    retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=2))
    status = status_pb2.Status(code=14, message="try again", details=[_pack(info), _pack(retry)])
    return _Status(
        grpc.StatusCode.UNAVAILABLE,
        "try again",
        (("grpc-status-details-bin", status.SerializeToString()), ("grpc-retry-pushback-ms", "2000")),
    )


PREBUILT = hand_status()


def by_hand(request: bytes, context: grpc.ServicerContext) -> bytes:
    context.abort_with_status(hand_status())
    raise AssertionError("unreachable")


def by_hand_prebuilt(request: bytes, context: grpc.ServicerContext) -> bytes:
    context.abort_with_status(PREBUILT)
    raise AssertionError("unreachable")


def with_errconv(request: bytes, context: grpc.ServicerContext) -> bytes:
    raise errconv.FaultError(
        errconv.Fault.build(status=503, code="overloaded", domain="example.com", detail="try again", next_step="wait", retry_after_seconds=2)
    )


def succeed(request: bytes, context: grpc.ServicerContext) -> bytes:
    return b"ok"


class HandlerTime(grpc.ServerInterceptor):
    """Outermost on a server: the CPU time the handler's thread spends in each call's
    handler (errconv's wrapper included), which other load on the machine hardly moves."""

    def __init__(self) -> None:
        self.spent: dict[str, list[float]] = {}

    def intercept_service(self, continuation: Any, handler_call_details: Any) -> Any:
        handler = continuation(handler_call_details)
        inner, spent = handler.unary_unary, self.spent.setdefault(handler_call_details.method.rsplit("/", 1)[-1], [])

        def timed(request: bytes, context: grpc.ServicerContext) -> Any:
            start = time.thread_time()
            try:
                return inner(request, context)
            finally:
                spent.append(time.thread_time() - start)

        return handler._replace(unary_unary=timed)


class NoOp(grpc.UnaryUnaryClientInterceptor):
    """An interceptor that does nothing: what grpc.intercept_channel costs by itself."""

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return continuation(client_call_details, request)


@contextlib.contextmanager
def server(interceptors: list[Any]) -> Iterator[int]:
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(fn)
        for name, fn in (("hand", by_hand), ("prebuilt", by_hand_prebuilt), ("errconv", with_errconv), ("ok", succeed))
    }
    with futures.ThreadPoolExecutor(max_workers=4) as pool:
        srv = grpc.server(pool, interceptors=interceptors)
        srv.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        port = srv.add_insecure_port("127.0.0.1:0")
        srv.start()
        try:
            yield port
        finally:
            srv.stop(grace=None).wait(5)


# The wall clock: a call's cost is the time its caller waits. (Process CPU time, tried
# first, counts grpcio's polling threads too, which spin for as long as a call is in
# flight: it multiplies latency rather than measuring work.)
clock = time.perf_counter


def failing_calls(method: Callable[..., Any], n: int) -> float:
    start = clock()
    for _ in range(n):
        try:
            method(b"x", timeout=10)
        except grpc.RpcError:
            pass
    return clock() - start


def calls(method: Callable[..., Any], n: int) -> float:
    start = clock()
    for _ in range(n):
        method(b"x", timeout=10)
    return clock() - start


def measure(variants: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    for run in variants.values():  # warm up every path
        run()
    times: dict[str, list[float]] = {name: [] for name in variants}
    gc.disable()
    try:
        for r in range(rounds):
            # Alternate the order between rounds so that neither goes first every time.
            order = list(variants) if r % 2 == 0 else list(reversed(variants))
            for name in order:
                times[name].append(variants[name]())
    finally:
        gc.enable()
    return times


def ratios(times: dict[str, list[float]], of: str, against: str) -> list[float]:
    return [a / b for a, b in zip(times[of], times[against])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=400, help="calls per variant per round (default 400)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds (default 15); the median ratio is printed")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    load = os.getloadavg()[0]
    n = args.calls
    options = [("grpc.enable_http_proxy", 0)]

    # Server: two servers, one bare (by hand) and one with the interceptor, one client.
    with server([]) as bare_port, server([ServerInterceptor()]) as errconv_port:
        bare = grpc.insecure_channel(f"127.0.0.1:{bare_port}", options=options)
        ours = grpc.insecure_channel(f"127.0.0.1:{errconv_port}", options=options)
        hand = bare.unary_unary(f"/{SERVICE}/hand")
        prebuilt = bare.unary_unary(f"/{SERVICE}/prebuilt")
        raised = ours.unary_unary(f"/{SERVICE}/errconv")
        server_times = measure(
            {
                "hand-built Status": lambda: failing_calls(hand, n),
                "prebuilt Status": lambda: failing_calls(prebuilt, n),
                "errconv ServerInterceptor": lambda: failing_calls(raised, n),
            },
            args.rounds,
        )
        # Client: the same server and method, bare and intercepted channels.
        raw = grpc.insecure_channel(f"127.0.0.1:{bare_port}", options=options)
        plain = raw.unary_unary(f"/{SERVICE}/ok")
        intercepted = grpc.intercept_channel(raw, ClientInterceptor()).unary_unary(f"/{SERVICE}/ok")
        guarded = grpc.intercept_channel(raw, ClientInterceptor(retry=RetryPolicy(), guard=TerminalGuard())).unary_unary(f"/{SERVICE}/ok")
        noop = grpc.intercept_channel(raw, NoOp()).unary_unary(f"/{SERVICE}/ok")
        client_times = measure(
            {
                "bare channel": lambda: calls(plain, n),
                "no-op interceptor": lambda: calls(noop, n),
                "errconv ClientInterceptor": lambda: calls(intercepted, n),
                "with retry and guard": lambda: calls(guarded, n),
            },
            args.rounds,
        )
        for ch in (bare, ours, raw):
            ch.close()

    def best(times: dict[str, list[float]], of: str, against: str) -> float:
        # The least disturbed round of each: the estimate other load on the machine moves least.
        return min(times[of]) / min(times[against])

    # The server's own work per failing call, in thread CPU time.
    bare_timer, errconv_timer = HandlerTime(), HandlerTime()
    with server([bare_timer]) as bare_port, server([errconv_timer, ServerInterceptor()]) as errconv_port:
        with grpc.insecure_channel(f"127.0.0.1:{bare_port}", options=options) as a, grpc.insecure_channel(f"127.0.0.1:{errconv_port}", options=options) as b:
            measure({"hand": lambda: failing_calls(a.unary_unary(f"/{SERVICE}/hand"), n), "errconv": lambda: failing_calls(b.unary_unary(f"/{SERVICE}/errconv"), n)}, 3)
    handler_cpu = {
        "hand-built Status": statistics.median(bare_timer.spent["hand"]) * 1e6,
        "errconv ServerInterceptor": statistics.median(errconv_timer.spent["errconv"]) * 1e6,
    }

    server_ratio = statistics.median(ratios(server_times, "errconv ServerInterceptor", "hand-built Status"))
    floor_ratio = statistics.median(ratios(server_times, "errconv ServerInterceptor", "prebuilt Status"))
    client_ratio = statistics.median(ratios(client_times, "errconv ClientInterceptor", "bare channel"))
    guarded_ratio = statistics.median(ratios(client_times, "with retry and guard", "bare channel"))
    noop_ratio = statistics.median(ratios(client_times, "no-op interceptor", "bare channel"))

    def per_call(times: dict[str, list[float]], name: str) -> float:
        return statistics.median(times[name]) / n * 1e6

    figures = {
        "machine": f"{os.cpu_count()} cores, CPython {platform.python_version()}, grpcio {grpc.__version__}, load average {load:.2f} at the start",
        "calls_per_round": n,
        "rounds": args.rounds,
        "server": {
            "per_call_us": {name: round(per_call(server_times, name), 1) for name in server_times},
            "ratio": round(server_ratio, 3),
            "ratio_of_best_rounds": round(best(server_times, "errconv ServerInterceptor", "hand-built Status"), 3),
            "target": TARGETS["server"],
            "holds": server_ratio <= TARGETS["server"],
            "ratio_vs_prebuilt": round(floor_ratio, 3),
            "handler_cpu_us": {name: round(us, 1) for name, us in handler_cpu.items()},
        },
        "client": {
            "per_call_us": {name: round(per_call(client_times, name), 1) for name in client_times},
            "ratio": round(client_ratio, 3),
            "ratio_of_best_rounds": round(best(client_times, "errconv ClientInterceptor", "bare channel"), 3),
            "target": TARGETS["client"],
            "holds": client_ratio <= TARGETS["client"],
            "ratio_with_retry_and_guard": round(guarded_ratio, 3),
            "ratio_of_a_no_op_interceptor": round(noop_ratio, 3),
        },
        "seconds": round(time.perf_counter() - began, 1),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"Machine: {figures['machine']}; median of {args.rounds} rounds of {n} calls each; the run took {figures['seconds']} s.")
    print()
    print("| target | ratio (median of rounds) | ratio of the best rounds | status (median) |")
    print("|---|---:|---:|---:|")
    for side, what in (("server", "server interceptor on a failing unary call vs abort_with_status with a Status built by hand"),
                       ("client", "client interceptor on a successful unary call vs the bare channel")):  # fmt: skip
        f = figures[side]
        status = "holds" if f["holds"] else "**MISSED**"
        print(f"| {what}: within {f['target']:.2f}x | {f['ratio']:.3f}x | {f['ratio_of_best_rounds']:.3f}x | {status} |")
    print()
    print("Per call (µs, the median round; a whole round trip on loopback, both sides in this process):")
    for side in ("server", "client"):
        for name, us in figures[side]["per_call_us"].items():
            print(f"  {side:6}  {name:28} {us:8.1f}")
    print()
    cpu = figures["server"]["handler_cpu_us"]
    print(
        f"server-side CPU of a failing call's handler (thread time, median): {cpu['hand-built Status']:.1f} µs building the "
        f"Status by hand, {cpu['errconv ServerInterceptor']:.1f} µs raising FaultError through the interceptor"
    )
    print(f"server interceptor vs a Status prebuilt once (the floor, no target): {floor_ratio:.3f}x")
    print(f"client interceptor with RetryPolicy and TerminalGuard on a successful call (no target): {guarded_ratio:.3f}x")
    print(f"grpc.intercept_channel with an interceptor that does nothing (no target): {noop_ratio:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
