"""The gRPC interceptors against hostile peers (issue 13).

Client side: a raw HTTP/2 peer on 127.0.0.1:0, written with h2 (no grpcio on that
side, so nothing tidies what it sends), answers every call with trailers errconv never
writes: a grpc-status that is no number, or 99, or missing; a grpc-message of broken
percent-escapes and raw bytes; a grpc-status-details-bin that is no base64, or base64
of something that is no google.rpc.Status, or a Status that disagrees with the
status; hostile pushback; metadata past grpcio's size limit. Through a real grpcio
channel and `ClientInterceptor`, the contract: every failed call raises a
`FaultRpcError` that is the `grpc.RpcError` grpcio raised (same code, same details),
with a sane `.fault` (a real status and code, the code grpcio reports, a capped whole
delay or none); a retry policy never sleeps on a delay the trailers did not state
validly, nor longer than its cap.

Server side: a server-streaming handler that raises a FaultError after yielding some
messages is translated (the messages arrive, then the rich status); one that sets
oversized trailing metadata before raising still ends its call with a status the
client reads.
"""

from __future__ import annotations

import base64
import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest
from google.rpc import error_details_pb2, status_pb2

import errconv
from errconv._model.limits import MAX_RETRY_AFTER_SECONDS
from errconv.interceptors import ClientInterceptor, FaultRpcError, ServerInterceptor
from errconv.retry import RetryPolicy, VirtualClock

CODES = {c.value[0]: c for c in grpc.StatusCode}


def _status(code: int, message: str = "", delay: int | None = None) -> bytes:
    status = status_pb2.Status(code=code, message=message)
    if delay is not None:
        info = error_details_pb2.RetryInfo()
        info.retry_delay.seconds = delay
        status.details.add().Pack(info)
    return status.SerializeToString()


def _b64(raw: bytes) -> bytes:
    return base64.b64encode(raw).rstrip(b"=")


# Scenario (the method name) -> trailers, as raw bytes on the wire.
TRAILERS: dict[str, list[tuple[bytes, bytes]]] = {
    "status-letters": [(b"grpc-status", b"abc"), (b"grpc-message", b"m")],
    "status-99": [(b"grpc-status", b"99"), (b"grpc-message", b"m")],
    "status-negative": [(b"grpc-status", b"-1")],
    "status-huge": [(b"grpc-status", b"99999999999999999999")],
    "status-unicode-digit": [(b"grpc-status", "\u0661\u0664".encode())],
    "status-empty": [(b"grpc-status", b"")],
    "status-missing": [(b"grpc-message", b"no status at all")],
    "status-twice": [(b"grpc-status", b"14"), (b"grpc-status", b"3")],
    "message-bad-percent": [(b"grpc-status", b"14"), (b"grpc-message", b"%%%ZZ%C3%28%ED%A0%80%")],
    "message-raw-bytes": [(b"grpc-status", b"3"), (b"grpc-message", b"\xff\xfe\x00\r\n\x7f")],
    "message-huge": [(b"grpc-status", b"8"), (b"grpc-message", b"%41" * 2_000)],
    "details-not-base64": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", b"!!!not base64@@@")],
    "details-not-a-status": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(b"\xff\xff\xff\xff\x0f\x08"))],
    "details-garbage-varint": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(b"\x08" + b"\xff" * 11))],
    "details-empty": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", b"")],
    "details-disagree": [(b"grpc-status", b"5"), (b"grpc-status-details-bin", _b64(_status(14, "other", delay=30)))],
    "details-huge-delay": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(_status(14, "m", delay=10**12)))],
    "details-long-delay": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(_status(14, "m", delay=10**9)))],
    "details-negative-delay": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(_status(14, "m", delay=-50)))],
    "details-code-99": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(_status(99, "m")))],
    "pushback-garbage": [(b"grpc-status", b"14"), (b"grpc-retry-pushback-ms", b"soon")],
    "pushback-huge": [(b"grpc-status", b"14"), (b"grpc-retry-pushback-ms", b"99999999999999")],
    "pushback-negative": [(b"grpc-status", b"14"), (b"grpc-retry-pushback-ms", b"-5")],
    "metadata-oversized": [(b"grpc-status", b"14"), (b"x-big", b"v" * 100_000)],
    "metadata-oversized-details": [(b"grpc-status", b"14"), (b"grpc-status-details-bin", _b64(_status(14, "m" * 60_000)))],
    "metadata-many": [(b"grpc-status", b"14"), *((f"x-m{i}".encode(), b"v") for i in range(2_000))],
    "ok-with-details": [(b"grpc-status", b"0"), (b"grpc-status-details-bin", _b64(_status(14, "m", delay=5)))],
}
# Trailers-only: the status in the response headers, no DATA, no second HEADERS frame.
TRAILERS_ONLY = {"trailers-only-hostile": [(b"grpc-status", b"x1"), (b"grpc-message", b"%zz")]}
ALL = {**TRAILERS, **TRAILERS_ONLY}


@contextlib.contextmanager
def raw_h2_peer() -> Iterator[int]:
    """An HTTP/2 server (h2, prior knowledge, no TLS) that answers `/hostile/<scenario>`
    with a response header, one empty gRPC message and that scenario's trailers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()
    config = h2.config.H2Configuration(
        client_side=False, header_encoding=None, validate_outbound_headers=False, normalize_outbound_headers=False
    )

    def serve(sock: socket.socket) -> None:
        conn = h2.connection.H2Connection(config=config)
        conn.local_settings = h2.settings.Settings(client=False, initial_values={h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 1 << 24})
        conn.initiate_connection()
        sock.sendall(conn.data_to_send())
        paths: dict[int, bytes] = {}
        with sock:
            sock.settimeout(10)
            while not stop.is_set():
                try:
                    data = sock.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        paths[event.stream_id] = dict(event.headers).get(b":path", b"")
                    elif isinstance(event, h2.events.StreamEnded):
                        answer(conn, event.stream_id, paths.pop(event.stream_id, b"").rpartition(b"/")[2].decode())
                    elif isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                sock.sendall(conn.data_to_send())

    def answer(conn: h2.connection.H2Connection, stream: int, scenario: str) -> None:
        head = [(b":status", b"200"), (b"content-type", b"application/grpc")]
        if scenario in TRAILERS_ONLY:
            conn.send_headers(stream, head + TRAILERS_ONLY[scenario], end_stream=True)
            return
        conn.send_headers(stream, head)
        conn.send_data(stream, b"\x00\x00\x00\x00\x00")  # one empty, uncompressed message
        conn.send_headers(stream, TRAILERS.get(scenario, [(b"grpc-status", b"12")]), end_stream=True)

    def accept() -> None:
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=serve, args=(sock,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(2)
        listener.close()


@pytest.fixture(scope="module")
def peer() -> Iterator[int]:
    with raw_h2_peer() as port:
        yield port


# A connection of its own for every channel: grpcio shares subchannels between channels
# to one target, and a peer whose trailers grpcio's HPACK parser refused may leave that
# connection unusable for the calls after it, which would then test nothing of theirs.
OWN = [("grpc.use_local_subchannel_pool", 1)]


def connect(port: int) -> grpc.Channel:
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=OWN)


@pytest.fixture
def bare(peer: int) -> Iterator[grpc.Channel]:
    with connect(peer) as ch:
        yield ch


def check_fault(fault: errconv.Fault, code: grpc.StatusCode) -> None:
    assert isinstance(fault, errconv.Fault)
    assert 100 <= fault.status <= 599 and 0 <= fault.grpc_code <= 16
    assert fault.grpc_code == code.value[0], (fault.grpc_code, code)
    assert fault.next_step in errconv.NextStep
    if fault.retry_after_seconds is not None:
        assert type(fault.retry_after_seconds) is int and 0 <= fault.retry_after_seconds <= MAX_RETRY_AFTER_SECONDS
    for text in (fault.detail, fault.title, fault.code):
        if text is not None:
            text.encode("utf-8")  # no lone surrogate out of broken escapes


S = grpc.StatusCode
PINNED = {
    "status-letters": (S.INTERNAL, "give_up"),  # grpcio refuses the stream: a bug of the peer's
    "status-99": (S.UNKNOWN, "give_up"),
    "status-missing": (S.UNKNOWN, "give_up"),
    "details-not-a-status": (S.UNAVAILABLE, "wait"),
    "details-code-99": (S.UNAVAILABLE, "wait"),
    "details-disagree": (S.NOT_FOUND, "wait"),  # NOT_FOUND wins as the code; the Status's RetryInfo still says wait
    "pushback-negative": (S.UNAVAILABLE, "give_up"),  # gRPC's rule: a negative pushback means do not retry
    "pushback-huge": (S.UNAVAILABLE, "give_up"),  # past ten digits errconv reads no pushback: do not retry
    "metadata-oversized": (S.RESOURCE_EXHAUSTED, "wait"),  # grpcio's own limit on what it receives
    "metadata-many": (S.RESOURCE_EXHAUSTED, "wait"),
}


@pytest.mark.parametrize("scenario", sorted(ALL))
def test_hostile_trailers_give_a_fault_rpc_error_with_a_sane_fault(peer: int, bare: grpc.Channel, scenario: str) -> None:
    method = f"/hostile/{scenario}"
    if scenario == "ok-with-details":  # status 0 is a success whatever else the trailers hold: no error made up
        assert bare.unary_unary(method)(b"", timeout=10) == b""
        with grpc.intercept_channel(connect(peer), ClientInterceptor()) as ch:
            assert ch.unary_unary(method)(b"", timeout=10) == b""
            assert list(ch.unary_stream(method)(b"", timeout=10)) == [b""]
        return
    # What grpcio makes of the trailers by itself: the reference the interceptor must keep.
    with pytest.raises(grpc.RpcError) as plain:
        bare.unary_unary(method)(b"", timeout=10)
    expected = plain.value
    with grpc.intercept_channel(connect(peer), ClientInterceptor()) as ch:
        for call in (
            lambda: ch.unary_unary(method)(b"", timeout=10),
            lambda: ch.unary_unary(method).with_call(b"", timeout=10),
            lambda: ch.unary_unary(method).future(b"", timeout=10).result(),
            lambda: list(ch.unary_stream(method)(b"", timeout=10)),
        ):
            with pytest.raises(FaultRpcError) as info:
                call()
            exc = info.value
            assert isinstance(exc, grpc.RpcError)
            assert exc.code() is expected.code()  # type: ignore[attr-defined]
            assert exc.details() == expected.details()  # type: ignore[attr-defined]
            check_fault(exc.fault, exc.code())
    if scenario in PINNED:  # what grpcio and errconv make of it together, written out
        assert (exc.code(), exc.fault.next_step) == PINNED[scenario]
    if scenario in ("details-not-a-status", "details-garbage-varint"):  # the code and message stand; the blob is noted
        assert any("ignored" in n for n in exc.fault.origin.notes)  # type: ignore[union-attr]
    if scenario == "details-long-delay":  # 31 years: capped at a day
        assert exc.fault.retry_after_seconds == MAX_RETRY_AFTER_SECONDS
    if scenario == "details-huge-delay":  # past google.protobuf.Duration's range: kept raw, no delay read from it
        assert exc.fault.retry_after_seconds is None and exc.fault.next_step == "wait"
    if scenario == "details-disagree":  # the call's code wins over the Status inside
        assert exc.fault.grpc_code == 5 and any("differs" in n for n in exc.fault.origin.notes)  # type: ignore[union-attr]


@pytest.mark.parametrize("scenario", ["pushback-garbage", "pushback-huge", "pushback-negative", "details-long-delay", "details-huge-delay", "details-negative-delay", "status-letters"])
def test_a_retry_never_sleeps_on_a_hostile_delay_past_its_cap(peer: int, scenario: str) -> None:
    clock = VirtualClock()
    policy = RetryPolicy(budget=3, max_sleep=60, clock=clock)
    with grpc.intercept_channel(connect(peer), ClientInterceptor(retry=policy)) as ch:
        with pytest.raises(FaultRpcError) as info:
            ch.unary_unary(f"/hostile/{scenario}")(b"", timeout=10)
    assert all(0 <= s <= 60 for s in clock.sleeps), clock.sleeps
    check_fault(info.value.fault, info.value.code())
    if scenario in ("pushback-huge", "details-long-delay"):
        assert clock.sleeps == []  # a stated day is past max_sleep: stop with the fault, do not sleep it


# --------------------------------------------------------------------------- the server side

WAIT = errconv.Fault.build(status=503, code="overloaded", next_step="wait", retry_after_seconds=2, detail="busy")


def _stream_then_fault(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
    yield b"one"
    yield b"two"
    if request == b"big-metadata":
        context.set_trailing_metadata([("x-big", "v" * 100_000)])
    raise errconv.FaultError(WAIT)


@contextlib.contextmanager
def streaming_server() -> Iterator[int]:
    with futures.ThreadPoolExecutor(max_workers=4) as pool:
        server = grpc.server(pool, interceptors=[ServerInterceptor()])
        handler = grpc.unary_stream_rpc_method_handler(_stream_then_fault)
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("hostile.Stream", {"Run": handler}),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            yield port
        finally:
            server.stop(grace=None).wait(5)


def _drain(call: Callable[[], Any]) -> tuple[list[bytes], FaultRpcError]:
    received: list[bytes] = []
    with pytest.raises(FaultRpcError) as info:
        for message in call():
            received.append(message)
    return received, info.value


def test_a_fault_raised_mid_stream_is_translated_after_the_messages() -> None:
    with streaming_server() as port, grpc.intercept_channel(grpc.insecure_channel(f"127.0.0.1:{port}"), ClientInterceptor()) as ch:
        received, exc = _drain(lambda: ch.unary_stream("/hostile.Stream/Run")(b"x", timeout=10))
    assert received == [b"one", b"two"]
    assert exc.code() is grpc.StatusCode.UNAVAILABLE and exc.details() == "busy"
    assert (exc.fault.next_step, exc.fault.retry_after_seconds, exc.fault.code) == ("wait", 2, "overloaded")
    assert dict(exc.trailing_metadata())["grpc-retry-pushback-ms"] == "2000"


def test_oversized_handler_metadata_still_ends_the_stream_with_a_status_the_client_reads() -> None:
    with streaming_server() as port, grpc.intercept_channel(grpc.insecure_channel(f"127.0.0.1:{port}"), ClientInterceptor()) as ch:
        received, exc = _drain(lambda: ch.unary_stream("/hostile.Stream/Run")(b"big-metadata", timeout=10))
        # The server lives on: the next call is answered as the first was.
        again, second = _drain(lambda: ch.unary_stream("/hostile.Stream/Run")(b"x", timeout=10))
    assert received == [b"one", b"two"]
    check_fault(exc.fault, exc.code())
    assert (again, second.fault.next_step) == ([b"one", b"two"], "wait")
