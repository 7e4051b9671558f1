"""What the gRPC interceptor tests send and expect, shared by the sync and aio suites.

A handler reads its scenario from the request (the first request of a stream): a
golden case name raises that case's fault, `secret` raises KeyError("secret"), and
so on. Expected values are written out from the Fault (reason, metadata keys, RetryInfo
seconds), and the Status is parsed by grpcio-status, not by errconv.
"""

from __future__ import annotations

import collections
import threading
from typing import Any

from google.rpc import error_details_pb2, status_pb2

import errconv
import golden_corpus as gc
from errconv.details import DebugInfo
from errconv.dialects._status import without_debug
from helpers import assert_same_except

SERVICE = "errconv.test.Scenarios"
# One method per handler kind; the aio server adds the read/write style and a sync handler.
KINDS = ("unary_unary", "unary_stream", "stream_unary", "stream_stream")
FAULTS = {c.name: gc.load_fault(c) for c in gc.cases()}
CASES = sorted(FAULTS)

# The handler's own trailing metadata, set before it raises: it must arrive.
HANDLER_TRAILER = ("x-handler", "kept")
AGENT_METADATA_KEYS = ("next_step", "param", "blocked_by", "unblock_with")
SECRET = "secret"

WAIT_2S = errconv.Fault.build(status=503, code="overloaded", detail="try again", next_step="wait", retry_after_seconds=2)
GIVE_UP = errconv.Fault.build(status=403, code="account_suspended", detail="suspended", next_step="give_up")
FIX = errconv.Fault.build(status=400, code="invalid_currency", detail="bad currency", param="currency")
BIG = errconv.Fault.build(
    status=503,
    code="overloaded",
    detail="m" * 20_000,
    next_step="wait",
    retry_after_seconds=3,
    details=[DebugInfo(stack_entries=("frame " + "s" * 1000,) * 50, detail="d" * 100)],
)


class Counter:
    """Calls per request, counted on the server (handlers run on other threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: collections.Counter[bytes] = collections.Counter()

    def hit(self, request: bytes) -> int:
        with self._lock:
            self._counts[request] += 1
            return self._counts[request]

    def __getitem__(self, request: bytes) -> int:
        with self._lock:
            return self._counts[request]


COUNTS = Counter()


def scripted(request: bytes) -> errconv.Fault | None:
    """The fault a counted scenario fails with on this call, None to succeed.

    `flaky:<id>` fails twice with a 2 s wait, then succeeds; `giveup:<id>` and `fix:<id>`
    always fail; `wait10:<id>` waits 10 s (longer than a small max_sleep).
    """
    kind = request.split(b":", 1)[0]
    n = COUNTS.hit(request)
    if kind == b"flaky":
        return WAIT_2S if n <= 2 else None
    if kind == b"giveup":
        return GIVE_UP
    if kind == b"fix":
        return FIX
    if kind == b"wait10":
        return errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=10)
    return None


def counted(request: bytes) -> bool:
    return request.split(b":", 1)[0] in (b"flaky", b"giveup", b"fix", b"wait10")


# --------------------------------------------------------------------------- expectations


def message_of(fault: errconv.Fault) -> str:
    return fault.detail or fault.title or ""


def expected_reason(fault: errconv.Fault) -> str:
    return fault.grpc_code_name if fault.code is None else fault.code.upper()


def expected_metadata(fault: errconv.Fault) -> dict[str, str]:
    meta = dict(fault.metadata)
    for key in AGENT_METADATA_KEYS:
        value = getattr(fault, key)
        if value is not None:
            meta[key] = str(value)
    return meta


def unpacked(status: status_pb2.Status, kind: type) -> list[Any]:
    out = []
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            out.append(message)
    return out


def check_rich_status(status: status_pb2.Status | None, fault: errconv.Fault) -> None:
    """The Status grpcio-status parsed says what `fault` says, in the standard homes."""
    assert status is not None, "no grpc-status-details-bin"
    assert status.code == fault.grpc_code
    assert status.message == message_of(fault)
    info = unpacked(status, error_details_pb2.ErrorInfo)[0]
    assert info.reason == expected_reason(fault)
    assert info.domain == (fault.domain or "")
    assert dict(info.metadata) == expected_metadata(fault)
    retry = unpacked(status, error_details_pb2.RetryInfo)
    if fault.retry_after_seconds is None:
        assert retry == []
    else:
        assert retry[0].retry_delay.seconds == fault.retry_after_seconds
    bad = unpacked(status, error_details_pb2.BadRequest)
    if fault.violations:
        got = [(v.field, v.description, v.reason) for v in bad[0].field_violations]
        assert got == [(v.field, v.description, v.reason or "") for v in fault.violations]
    assert not unpacked(status, error_details_pb2.DebugInfo), "DebugInfo left the server"


def sent_fault(fault: errconv.Fault) -> errconv.Fault:
    """What a server without keep_debug sends of `fault`."""
    return without_debug(fault)


def check_client_fault(got: errconv.Fault, fault: errconv.Fault) -> None:
    """The client's `.fault` is the raised one, minus what the status dialect cannot carry."""
    want = sent_fault(fault)
    assert_same_except(got, want, errconv.losses(want, "status"))


def pushback_of(trailers: Any) -> str | None:
    return dict(trailers or ()).get("grpc-retry-pushback-ms")


def expected_pushback(fault: errconv.Fault) -> str | None:
    if fault.next_step == errconv.NextStep.WAIT:
        return None if fault.retry_after_seconds is None else str(fault.retry_after_seconds * 1000)
    return "-1"


def no_secret_in(*values: Any) -> None:
    """`secret` appears in none of what the client can read."""
    for value in values:
        if isinstance(value, (bytes, bytearray)):
            assert SECRET.encode() not in value, value
        elif isinstance(value, status_pb2.Status):
            assert SECRET.encode() not in value.SerializeToString()
        elif isinstance(value, (list, tuple)) or type(value).__name__ == "Metadata":
            for item in value:
                no_secret_in(*(item if isinstance(item, tuple) else (item,)))
        else:
            assert SECRET not in str(value), value
