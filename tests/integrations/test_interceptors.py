"""errconv.interceptors over a real grpcio server and real channels on 127.0.0.1.

Every handler kind (unary and streaming requests and responses; plain functions and
generators) raises through `ServerInterceptor`; the client side is grpcio's own
channel, read by grpcio-status (`rpc_status.from_call`, which raises when the Status
and the call's code or message disagree) and by `ClientInterceptor`. Retries run on
a VirtualClock; gRPC's own retry runs on the real one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

import errconv
from errconv.interceptors import ClientInterceptor, FaultCallError, FaultRpcError, RefusedRpcError, ServerInterceptor
from errconv.retry import GuardRefused, RetryPolicy, TerminalGuard, VirtualClock
from grpc_scenarios import (
    BIG,
    CASES,
    COUNTS,
    FAULTS,
    HANDLER_TRAILER,
    KINDS,
    SECRET,
    SERVICE,
    check_client_fault,
    check_rich_status,
    counted,
    expected_pushback,
    message_of,
    no_secret_in,
    pushback_of,
    scripted,
    sent_fault,
)

CODES = {c.value[0]: c for c in grpc.StatusCode}


class HandStatus:
    """A status built by hand, as a handler that aborts on its own would."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: tuple[tuple[str, Any], ...]) -> None:
        self.code, self.details, self.trailing_metadata = code, details, trailing_metadata


def act(request: bytes, context: grpc.ServicerContext) -> bytes:
    """The scenario a request names: raise, abort, or return the response."""
    name = request.decode()
    if name in FAULTS:
        context.set_trailing_metadata((HANDLER_TRAILER,))
        raise errconv.FaultError(FAULTS[name])
    if name == "secret":
        raise KeyError(SECRET)
    if name == "big":
        raise errconv.FaultError(BIG)
    if name == "abort":
        context.abort(grpc.StatusCode.PERMISSION_DENIED, "nope")
    if name == "abort-then-raise":
        try:
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "nope")
        except Exception:
            pass  # swallowed: the abort stands all the same
        raise KeyError(SECRET)
    if name == "abort-then-return":
        try:
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "nope")
        except Exception:
            pass
        return b"never sent"
    if name == "own-status":
        # A status of its own, with a details header that does not parse.
        context.abort_with_status(HandStatus(grpc.StatusCode.NOT_FOUND, "by hand", (("x-own", "1"), ("grpc-status-details-bin", b"\xff\xfe"))))
    if counted(request):
        fault = scripted(request)
        if fault is not None:
            raise errconv.FaultError(fault)
        return b"ok:" + request
    if name == "ok":
        return b"ok"
    raise AssertionError(f"no scenario {name!r}")


def unary_unary(request: bytes, context: grpc.ServicerContext) -> bytes:
    return act(request, context)


def unary_stream(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
    if request == b"midstream":
        yield b"one"
        yield b"two"
        raise KeyError(SECRET)
    if request.startswith(b"midwait:"):
        COUNTS.hit(request)
        yield b"one"
        raise errconv.FaultError(errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=2))
    yield act(request, context)


def stream_unary(requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
    first, *_ = list(requests)
    return act(first, context)


def stream_stream(requests: Iterator[bytes], context: grpc.ServicerContext) -> Iterator[bytes]:
    first, *_ = list(requests)
    if first == b"midstream":
        yield b"one"
        yield b"two"
        raise KeyError(SECRET)
    yield act(first, context)


HANDLERS = {
    "unary_unary": grpc.unary_unary_rpc_method_handler(unary_unary),
    "unary_stream": grpc.unary_stream_rpc_method_handler(unary_stream),
    "stream_unary": grpc.stream_unary_rpc_method_handler(stream_unary),
    "stream_stream": grpc.stream_stream_rpc_method_handler(stream_stream),
}


@contextlib.contextmanager
def serving(interceptors: list[Any], handlers: dict[str, Any] = HANDLERS, service: str = SERVICE) -> Iterator[int]:
    """A real grpcio server on 127.0.0.1, on a port of its own; yields the port."""
    with futures.ThreadPoolExecutor(max_workers=8) as pool:
        server = grpc.server(pool, interceptors=interceptors)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            yield port
        finally:
            server.stop(grace=None).wait(5)


@contextlib.contextmanager
def channel(port: int, *interceptors: Any, options: list[tuple[str, Any]] | None = None) -> Iterator[grpc.Channel]:
    raw = grpc.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.enable_http_proxy", 0), *(options or [])])
    try:
        yield grpc.intercept_channel(raw, *interceptors) if interceptors else raw
    finally:
        raw.close()


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with serving([ServerInterceptor()]) as port:
        yield port


@pytest.fixture()
def plain(port: int) -> Iterator[grpc.Channel]:
    """A channel with the client interceptor, retrying nothing."""
    with channel(port, ClientInterceptor()) as ch:
        yield ch


def invoke(ch: grpc.Channel, kind: str, request: bytes, *, requests: Any = None, timeout: float = 10) -> Any:
    """Call the method of `kind`; a response stream is read to its end."""
    method = f"/{SERVICE}/{kind}"
    stream = requests if requests is not None else iter([request])
    if kind == "unary_unary":
        return ch.unary_unary(method)(request, timeout=timeout)
    if kind == "unary_stream":
        return list(ch.unary_stream(method)(request, timeout=timeout))
    if kind == "stream_unary":
        return ch.stream_unary(method)(stream, timeout=timeout)
    return list(ch.stream_stream(method)(stream, timeout=timeout))


def failing(ch: grpc.Channel, kind: str, request: bytes, **kwargs: Any) -> FaultRpcError:
    with pytest.raises(FaultRpcError) as info:
        invoke(ch, kind, request, **kwargs)
    return info.value


# --------------------------------------------------------------------------- the rich status


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", CASES)
def test_a_fault_error_reaches_the_client_with_the_rich_status(plain: grpc.Channel, kind: str, case: str) -> None:
    fault = FAULTS[case]
    exc = failing(plain, kind, case.encode())

    # Still what grpcio raises: an RpcError that is the Call, and an errconv.FaultError.
    assert isinstance(exc, grpc.RpcError) and isinstance(exc, grpc.Call) and isinstance(exc, errconv.FaultError)
    assert exc.code() is CODES[fault.grpc_code]
    assert exc.details() == message_of(fault)
    # grpcio-status checks code and message against the Status, and raises on a mismatch.
    check_rich_status(rpc_status.from_call(exc), sent_fault(fault))
    trailers = dict(exc.trailing_metadata())
    assert trailers[HANDLER_TRAILER[0]] == HANDLER_TRAILER[1]  # the handler's own, merged in
    assert pushback_of(exc.trailing_metadata()) == expected_pushback(fault)
    check_client_fault(exc.fault, fault)


@pytest.mark.parametrize("kind", KINDS)
def test_an_unexpected_exception_is_internal_and_its_text_goes_nowhere(plain: grpc.Channel, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="errconv.interceptors"):
        exc = failing(plain, kind, b"secret")
    assert exc.code() is grpc.StatusCode.INTERNAL
    assert exc.details() == "Internal error"
    status = rpc_status.from_call(exc)
    assert status is not None and status.code == 13
    no_secret_in(exc.details(), exc.trailing_metadata(), status, repr(exc.fault), str(exc))
    assert (exc.fault.next_step, exc.fault.code) == ("give_up", "internal_error")
    # The server keeps what the client does not see: the exception, in its log.
    logged = [r for r in caplog.records if r.name == "errconv.interceptors"]
    assert logged and isinstance(logged[-1].exc_info[1], KeyError)  # type: ignore[index]


@pytest.mark.parametrize("kind", ["unary_stream", "stream_stream"])
def test_an_exception_after_two_messages_is_internal_and_its_text_goes_nowhere(plain: grpc.Channel, kind: str) -> None:
    method = f"/{SERVICE}/{kind}"
    call = plain.unary_stream(method)(b"midstream", timeout=10) if kind == "unary_stream" else plain.stream_stream(method)(iter([b"midstream"]), timeout=10)
    received = []
    with pytest.raises(FaultRpcError) as info:
        for message in call:
            received.append(message)
    exc = info.value
    assert received == [b"one", b"two"]
    assert exc.code() is grpc.StatusCode.INTERNAL and exc.details() == "Internal error"
    no_secret_in(exc.details(), exc.trailing_metadata(), rpc_status.from_call(exc), repr(exc.fault))
    # The call object itself says the same.
    assert call.code() is grpc.StatusCode.INTERNAL


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("scenario", ["abort", "abort-then-raise", "abort-then-return"])
def test_the_handlers_own_abort_passes_through(plain: grpc.Channel, kind: str, scenario: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="errconv.interceptors"):
        exc = failing(plain, kind, scenario.encode())
    # errconv claims no ending of its own for it (the exception raised after a swallowed
    # abort is the handler's, for grpcio to log, not errconv's to answer).
    assert not [r for r in caplog.records if r.name == "errconv.interceptors"]
    assert (exc.code(), exc.details()) == (grpc.StatusCode.PERMISSION_DENIED, "nope")
    assert rpc_status.from_call(exc) is None  # nothing of errconv's was added
    assert pushback_of(exc.trailing_metadata()) is None
    # With no details, the fault is made from the code and message.
    assert (exc.fault.grpc_code, exc.fault.detail, exc.fault.next_step) == (7, "nope", "give_up")


@pytest.mark.parametrize("kind", KINDS)
def test_a_status_the_handler_built_passes_through_and_a_corrupt_one_reads_as_code_and_message(plain: grpc.Channel, kind: str) -> None:
    exc = failing(plain, kind, b"own-status")
    assert (exc.code(), exc.details()) == (grpc.StatusCode.NOT_FOUND, "by hand")
    assert dict(exc.trailing_metadata()) == {"x-own": "1", "grpc-status-details-bin": b"\xff\xfe"}
    with pytest.raises(Exception):
        rpc_status.from_call(exc)  # grpcio-status cannot read it; the interceptor can
    assert (exc.fault.grpc_code, exc.fault.detail) == (5, "by hand")
    assert any("grpc-status-details-bin ignored" in note for note in exc.fault.origin.notes)  # type: ignore[union-attr]


def _hpack_size(exc: grpc.RpcError) -> int:
    from errconv.dialects._trailers import percent_encode

    pairs = [("grpc-status", str(exc.code().value[0])), ("grpc-message", percent_encode(exc.details() or ""))]
    pairs += list(exc.trailing_metadata())
    return sum(len(k) + (-(-len(v) * 4 // 3) if k.endswith("-bin") else len(v)) + 32 for k, v in pairs)


@pytest.mark.parametrize("keep_debug", [False, True])
def test_a_huge_fault_keeps_its_code_reason_and_delay_and_never_overflows(keep_debug: bool) -> None:
    # 50 KB of DebugInfo and a 20 KB message: whole, grpcio's client would refuse the
    # trailers (16 KiB hard limit) and report RESOURCE_EXHAUSTED, a wait, for what is
    # really UNAVAILABLE with its own delay.
    with serving([ServerInterceptor(keep_debug=keep_debug)]) as port, channel(port, ClientInterceptor()) as ch:
        for kind in KINDS:
            exc = failing(ch, kind, b"big")
            assert exc.code() is grpc.StatusCode.UNAVAILABLE
            assert _hpack_size(exc) <= 7 * 1024
            status = rpc_status.from_call(exc)  # code and message still agree with the Status
            assert status is not None
            fault = exc.fault
            assert (fault.code, fault.next_step, fault.retry_after_seconds) == ("overloaded", "wait", 3)
            assert pushback_of(exc.trailing_metadata()) == "3000"
            assert fault.detail is not None and fault.detail.endswith("…") and BIG.detail.startswith(fault.detail[:-1])  # type: ignore[union-attr]
            # What was dropped is said, in ErrorInfo's metadata, read back into the notes.
            notes = " ".join(fault.origin.notes)  # type: ignore[union-attr]
            assert "errconv_dropped" in notes and "detail" in notes
            assert ("details.DebugInfo" in notes) is keep_debug  # without keep_debug it never was in


def test_a_smaller_budget_is_kept() -> None:
    with serving([ServerInterceptor(max_trailer_bytes=2048)]) as port, channel(port, ClientInterceptor()) as ch:
        exc = failing(ch, "unary_unary", b"big")
        assert _hpack_size(exc) <= 2048
        assert (exc.fault.code, exc.fault.retry_after_seconds) == ("overloaded", 3)
    with pytest.raises(ValueError, match="at least 1024"):
        ServerInterceptor(max_trailer_bytes=512)


def test_the_fault_for_unexpected_exceptions_is_configurable() -> None:
    unknown = errconv.Fault.build(grpc_code=2, code="oops", detail="Something went wrong", next_step="give_up")
    with serving([ServerInterceptor(unexpected=unknown)]) as port, channel(port, ClientInterceptor()) as ch:
        exc = failing(ch, "unary_stream", b"secret")
    assert (exc.code(), exc.details(), exc.fault.code) == (grpc.StatusCode.UNKNOWN, "Something went wrong", "oops")
    no_secret_in(exc.trailing_metadata())


def test_exception_text_only_when_asked_for() -> None:
    with serving([ServerInterceptor(expose_exceptions=True, keep_debug=True)]) as port, channel(port, ClientInterceptor()) as ch:
        exc = failing(ch, "unary_unary", b"secret")
    assert exc.details() == "KeyError: 'secret'"
    assert any("KeyError" in line for d in exc.fault.details for line in getattr(d, "stack_entries", ()))


def test_a_server_without_the_interceptor_leaks_what_errconv_hides() -> None:
    # The reason the interceptor exists, measured: grpcio's own answer to a bug.
    with serving([]) as port, channel(port) as ch:
        with pytest.raises(grpc.RpcError) as info:
            invoke(ch, "unary_unary", b"secret")
    assert info.value.code() is grpc.StatusCode.UNKNOWN and SECRET in info.value.details()  # type: ignore[attr-defined]


def test_a_handler_is_wrapped_once_per_method() -> None:
    interceptor = ServerInterceptor()
    handler = grpc.unary_unary_rpc_method_handler(unary_unary)

    class Details:
        def __init__(self, method: str) -> None:
            self.method, self.invocation_metadata = method, ()

    first = interceptor.intercept_service(lambda d: handler, Details("/s/A"))
    assert interceptor.intercept_service(lambda d: handler, Details("/s/A")) is first
    assert interceptor.intercept_service(lambda d: handler, Details("/s/B")) is not first  # logs name its method
    other = grpc.unary_unary_rpc_method_handler(unary_unary)
    assert interceptor.intercept_service(lambda d: other, Details("/s/A")) is not first
    assert interceptor.intercept_service(lambda d: None, Details("/s/C")) is None  # unknown: UNIMPLEMENTED, as without


# --------------------------------------------------------------------------- the client keeps working


def test_calls_that_succeed_look_as_without_the_interceptor(plain: grpc.Channel) -> None:
    method = f"/{SERVICE}/unary_unary"
    assert plain.unary_unary(method)(b"ok") == b"ok"
    response, call = plain.unary_unary(method).with_call(b"ok")
    assert response == b"ok" and call.code() is grpc.StatusCode.OK
    future = plain.unary_unary(method).future(b"ok")
    done = threading.Event()
    future.add_done_callback(lambda f: done.set())
    assert future.result(timeout=10) == b"ok" and done.wait(10) and future.done()
    assert list(plain.unary_stream(f"/{SERVICE}/unary_stream")(b"ok")) == [b"ok"]
    assert plain.stream_unary(f"/{SERVICE}/stream_unary")(iter([b"ok"])) == b"ok"
    assert plain.stream_unary(f"/{SERVICE}/stream_unary")([b"ok"]) == b"ok"  # a list, too
    assert list(plain.stream_stream(f"/{SERVICE}/stream_stream")([b"ok", b"more"])) == [b"ok"]


def test_failures_through_with_call_and_future(plain: grpc.Channel) -> None:
    method = plain.unary_unary(f"/{SERVICE}/unary_unary")
    with pytest.raises(FaultCallError) as info:
        method.with_call(b"not_found")
    assert info.value.fault.code == FAULTS["not_found"].code
    future = method.future(b"not_found")
    exc = future.exception(timeout=10)
    assert isinstance(exc, FaultRpcError) and exc.fault.code == FAULTS["not_found"].code
    with pytest.raises(FaultRpcError):
        future.result()
    assert future.code() is grpc.StatusCode.NOT_FOUND and future.done()
    stream = plain.stream_unary(f"/{SERVICE}/stream_unary").future(iter([b"not_found"]))
    assert isinstance(stream.exception(timeout=10), FaultRpcError)


# --------------------------------------------------------------------------- retry, the three moves


def _retrying(port: int, clock: VirtualClock, **policy: Any) -> Any:
    return channel(port, ClientInterceptor(retry=RetryPolicy(clock=clock, **policy)))


def _requests(kind: str, request: bytes) -> Any:
    return [request] if kind.startswith("stream") else None  # a list: replayable


@pytest.mark.parametrize("kind", KINDS)
def test_a_wait_is_slept_and_the_call_repeated(port: int, kind: str) -> None:
    clock = VirtualClock()
    request = f"flaky:sync-{kind}".encode()
    with _retrying(port, clock) as ch:
        result = invoke(ch, kind, request, requests=_requests(kind, request))
    assert result in (b"ok:" + request, [b"ok:" + request])
    assert COUNTS[request] == 3
    assert clock.sleeps == [2.0, 2.0] and clock.slept == 4


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("step", ["giveup", "fix"])
def test_give_up_and_fix_request_are_called_once(port: int, kind: str, step: str) -> None:
    clock = VirtualClock()
    request = f"{step}:sync-{kind}".encode()
    with _retrying(port, clock) as ch:
        exc = failing(ch, kind, request, requests=_requests(kind, request))
    assert COUNTS[request] == 1 and clock.sleeps == [] and exc.attempts == 1
    assert exc.fault.next_step == ("give_up" if step == "giveup" else "fix_request")
    assert any("stopped after 1 call" in note for note in exc.__notes__)


def test_a_stated_delay_longer_than_max_sleep_gives_up_with_the_fault(port: int) -> None:
    clock = VirtualClock()
    with _retrying(port, clock, max_sleep=5) as ch:
        exc = failing(ch, "unary_unary", b"wait10:sync")
    assert COUNTS[b"wait10:sync"] == 1 and clock.sleeps == []
    assert (exc.fault.next_step, exc.fault.retry_after_seconds) == ("wait", 10)
    assert any("max_sleep" in note for note in exc.__notes__)


def test_a_wait_that_would_outlast_the_deadline_is_not_slept(port: int) -> None:
    clock = VirtualClock()
    with _retrying(port, clock) as ch:
        exc = failing(ch, "unary_unary", b"flaky:sync-deadline", timeout=1.5)
    assert COUNTS[b"flaky:sync-deadline"] == 1 and clock.sleeps == []
    assert any("deadline" in note for note in exc.__notes__)


def test_a_stream_is_never_retried_once_a_message_arrived(port: int) -> None:
    clock = VirtualClock()
    with _retrying(port, clock) as ch:
        received = []
        with pytest.raises(FaultRpcError) as info:
            for message in ch.unary_stream(f"/{SERVICE}/unary_stream")(b"midwait:sync"):
                received.append(message)
    assert received == [b"one"] and COUNTS[b"midwait:sync"] == 1 and clock.sleeps == []
    assert info.value.fault.next_step == "wait"  # the caller may repeat it; errconv did not


@pytest.mark.parametrize("kind", ["stream_unary", "stream_stream"])
def test_a_request_stream_that_cannot_be_replayed_is_not_retried(port: int, kind: str) -> None:
    clock = VirtualClock()
    request = f"flaky:sync-once-{kind}".encode()
    with _retrying(port, clock) as ch:
        exc = failing(ch, kind, request, requests=iter([request]))
    assert COUNTS[request] == 1 and clock.sleeps == [] and exc.fault.next_step == "wait"


def test_future_and_with_call_retry_too(port: int) -> None:
    clock = VirtualClock()
    with _retrying(port, clock) as ch:
        method = ch.unary_unary(f"/{SERVICE}/unary_unary")
        future = method.future(b"flaky:sync-future")
        called = []
        future.add_done_callback(called.append)
        assert future.result(timeout=10) == b"ok:flaky:sync-future"
        assert called == [future] and future.code() is grpc.StatusCode.OK
        response, call = method.with_call(b"flaky:sync-with-call")
        assert response == b"ok:flaky:sync-with-call" and call.code() is grpc.StatusCode.OK
        failed = method.future(b"giveup:sync-future")
        assert isinstance(failed.exception(timeout=10), FaultRpcError)
    assert COUNTS[b"flaky:sync-future"] == 3 and COUNTS[b"flaky:sync-with-call"] == 3
    assert clock.sleeps == [2.0] * 4


def test_a_future_cancelled_while_it_waits_to_retry_is_cancelled(port: int) -> None:
    slept = threading.Event()

    class SlowClock(VirtualClock):
        def sleep(self, seconds: float) -> None:
            slept.set()
            time.sleep(0.3)  # long enough to cancel in
            super().sleep(seconds)

    with channel(port, ClientInterceptor(retry=RetryPolicy(clock=SlowClock()))) as ch:
        future = ch.unary_unary(f"/{SERVICE}/unary_unary").future(b"flaky:sync-cancel")
        assert slept.wait(10) and future.running()
        assert future.cancel()
        with pytest.raises(grpc.FutureCancelledError):
            future.result(timeout=10)
        assert future.cancelled() and future.done()
    time.sleep(0.5)
    assert COUNTS[b"flaky:sync-cancel"] == 1  # no attempt after the cancel


@pytest.mark.parametrize("kind", KINDS)
def test_the_guard_refuses_an_identical_repeat_of_a_give_up_and_lets_another_through(port: int, kind: str) -> None:
    guard = TerminalGuard()
    first, other = f"giveup:sync-guard-{kind}".encode(), f"giveup:sync-guard-other-{kind}".encode()
    with channel(port, ClientInterceptor(guard=guard)) as ch:
        failing(ch, kind, first, requests=_requests(kind, first))
        with pytest.raises(RefusedRpcError) as info:
            invoke(ch, kind, first, requests=_requests(kind, first))
        failing(ch, kind, other, requests=_requests(kind, other))
    refused = info.value
    assert COUNTS[first] == 1 and COUNTS[other] == 1  # the repeat never left the client
    assert isinstance(refused, GuardRefused) and isinstance(refused, grpc.RpcError) and refused.refused
    assert refused.code() is grpc.StatusCode.PERMISSION_DENIED and refused.fault.code == "account_suspended"
    assert refused.key == (f"/{SERVICE}/{kind}", (first,) if kind.startswith("stream") else first)


def test_the_guard_does_not_remember_a_wait(port: int) -> None:
    guard = TerminalGuard()
    with channel(port, ClientInterceptor(guard=guard)) as ch:
        failing(ch, "unary_unary", b"flaky:sync-guard-wait")
        failing(ch, "unary_unary", b"flaky:sync-guard-wait")
        assert invoke(ch, "unary_unary", b"flaky:sync-guard-wait") == b"ok:flaky:sync-guard-wait"
    assert len(guard) == 0


# --------------------------------------------------------------------------- gRPC's own retry


class _Attempts:
    def __init__(self) -> None:
        self.times: dict[bytes, list[float]] = {}

    def handler(self, request: bytes, context: grpc.ServicerContext) -> bytes:
        times = self.times.setdefault(request, [])
        times.append(time.monotonic())
        if len(times) == 1:
            if request == b"errconv":
                raise errconv.FaultError(errconv.Fault.build(status=503, code="overloaded", next_step="wait", retry_after_seconds=1))
            context.abort(grpc.StatusCode.UNAVAILABLE, "by hand, no pushback")
        return b"ok"


def test_grpcs_own_retry_honours_the_pushback_the_server_interceptor_writes() -> None:
    attempts = _Attempts()
    config = {
        "methodConfig": [
            {
                "name": [{"service": "errconv.test.Retry"}],
                "retryPolicy": {
                    "maxAttempts": 2,
                    "initialBackoff": "0.01s",
                    "maxBackoff": "0.01s",
                    "backoffMultiplier": 1,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        ]
    }
    options = [("grpc.enable_retries", 1), ("grpc.service_config", json.dumps(config))]
    handlers = {"Call": grpc.unary_unary_rpc_method_handler(attempts.handler)}
    with serving([ServerInterceptor()], handlers, "errconv.test.Retry") as port, channel(port, options=options) as ch:
        method = ch.unary_unary("/errconv.test.Retry/Call")
        assert method(b"errconv", timeout=10) == b"ok"
        assert method(b"control", timeout=10) == b"ok"
    ours, control = attempts.times[b"errconv"], attempts.times[b"control"]
    assert len(ours) == 2 and len(control) == 2
    # gRFC A6: a valid pushback is used exactly; without one, initialBackoff (10 ms).
    assert ours[1] - ours[0] >= 1.0
    assert control[1] - control[0] < 0.9  # the 1 s above is the pushback's, not the machine's
