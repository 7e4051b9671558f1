"""errconv._interceptor_core on its own: the decisions the interceptors stand on, with no
grpcio, as another gRPC stack (grpclib, connectrpc) would use them."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from google.rpc import error_details_pb2, status_pb2

import errconv
from errconv import _interceptor_core as core
from errconv.dialects._trailers import DETAILS_KEY, PUSHBACK_KEY, _size, percent_encode, trailers_for
from errconv.details import DebugInfo
from errconv.retry import GuardRefused, RetryPolicy, TerminalGuard, VirtualClock
from helpers import assert_same_except

WAIT = errconv.Fault.build(status=503, code="overloaded", domain="example.com", detail="busy", next_step="wait", retry_after_seconds=2)
GIVE_UP = errconv.Fault.build(status=403, code="account_suspended", detail="suspended", next_step="give_up")
FIX = errconv.Fault.build(status=400, code="bad_currency", param="currency")


def whole(outcome: core.Outcome) -> list[tuple[str, Any]]:
    """The trailer block a stack would send for an outcome."""
    head: list[tuple[str, Any]] = [("grpc-status", str(outcome.code))]
    if outcome.message:
        head.append(("grpc-message", percent_encode(outcome.message)))
    return [*head, *outcome.trailing_metadata]


def test_the_core_imports_no_grpcio() -> None:
    code = "import sys, errconv._interceptor_core; assert 'grpc' not in sys.modules, 'grpcio was imported'"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).returncode == 0


def test_another_stack_can_stand_on_it() -> None:
    # A stack of its own: it catches what its handler raised, sends what outcome() says,
    # and its client reads the trailers with call_fault(). Nothing of grpcio in between.
    side = core.ServerSide()

    def handler() -> None:
        raise errconv.FaultError(WAIT)

    try:
        handler()
    except Exception as exc:
        outcome = side.outcome(exc)
    sent = whole(outcome)
    assert dict(sent)[PUSHBACK_KEY] == "2000"
    back = core.call_fault(outcome.code, outcome.message, outcome.trailing_metadata)
    assert_same_except(back, WAIT)
    assert errconv.decode(sent, "grpc") == WAIT


def test_a_fault_error_is_what_to_grpc_sends_within_the_budget() -> None:
    outcome = core.ServerSide().outcome(errconv.FaultError(WAIT))
    code, message, pairs = trailers_for(WAIT, limits=errconv.Limits(max_trailer_bytes=7 * 1024), keep_debug=False)
    assert (outcome.code, outcome.message, list(outcome.trailing_metadata), outcome.unexpected) == (code, message, pairs, False)
    assert outcome.fault is WAIT


def test_the_handlers_trailers_come_first_and_errconvs_win_their_own_keys() -> None:
    handler = [("x-request-id", "r1"), (DETAILS_KEY, b"theirs"), (PUSHBACK_KEY, "5"), ("grpc-status", "0")]
    outcome = core.ServerSide().outcome(errconv.FaultError(WAIT), handler)
    keys = [k for k, _ in outcome.trailing_metadata]
    assert keys[0] == "x-request-id" and keys.count(DETAILS_KEY) == 1 and keys.count(PUSHBACK_KEY) == 1
    assert "grpc-status" not in keys
    assert dict(outcome.trailing_metadata)[PUSHBACK_KEY] == "2000"
    assert dict(outcome.trailing_metadata)[DETAILS_KEY] != b"theirs"


def test_handler_trailers_that_leave_the_fault_too_little_are_dropped_and_said() -> None:
    handler = [("x-small", "s"), ("x-big", "v" * 7000)]
    outcome = core.ServerSide().outcome(errconv.FaultError(WAIT), handler)
    sent = whole(outcome)
    assert _size(sent) <= 7 * 1024
    assert [k for k, _ in outcome.trailing_metadata][0] == "x-small" and "x-big" not in dict(outcome.trailing_metadata)
    status = status_pb2.Status.FromString(dict(outcome.trailing_metadata)[DETAILS_KEY])
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert info.metadata["errconv_dropped"] == "trailing_metadata.x-big"
    back = core.call_fault(outcome.code, outcome.message, outcome.trailing_metadata)
    assert any("trailing_metadata.x-big" in note for note in back.origin.notes)  # type: ignore[union-attr]
    assert_same_except(back, WAIT)  # the fault itself lost nothing


def test_an_unexpected_exception_says_nothing_of_itself() -> None:
    outcome = core.ServerSide().outcome(KeyError("secret"))
    assert (outcome.code, outcome.message, outcome.unexpected) == (13, "Internal error", True)
    assert (outcome.fault.next_step, outcome.fault.code) == ("give_up", "internal_error")
    assert b"secret" not in repr(whole(outcome)).encode()


def test_a_fault_error_that_says_ok_is_a_bug_too() -> None:
    ok = errconv.Fault(status=200, grpc_code=0)
    assert core.ServerSide().outcome(errconv.FaultError(ok)).code == 13


def test_exposing_exceptions_is_opt_in_and_the_traceback_needs_keep_debug() -> None:
    exposed = core.ServerSide(expose_exceptions=True).outcome(KeyError("secret"))
    assert exposed.message == "KeyError: 'secret'"
    assert not errconv.decode(whole(exposed), "grpc").details  # DebugInfo stays home
    debug = core.ServerSide(expose_exceptions=True, keep_debug=True).outcome(KeyError("secret"))
    details = errconv.decode(whole(debug), "grpc").details
    assert isinstance(details[0], DebugInfo) and "KeyError: 'secret'" in details[0].stack_entries[-1]


def test_debug_info_is_stripped_unless_kept() -> None:
    fault = WAIT.replace(details=(DebugInfo(detail="stack"),))
    assert errconv.decode(whole(core.ServerSide().outcome(errconv.FaultError(fault))), "grpc").details == ()
    kept = core.ServerSide(keep_debug=True).outcome(errconv.FaultError(fault))
    assert errconv.decode(whole(kept), "grpc").details == (DebugInfo(detail="stack"),)


def test_the_configuration_is_checked() -> None:
    with pytest.raises(ValueError, match="at least 1024"):
        core.ServerSide(max_trailer_bytes=1023)
    with pytest.raises(ValueError, match="OK"):
        core.ServerSide(unexpected=errconv.Fault(status=200, grpc_code=0))
    with pytest.raises(TypeError):
        core.ServerSide(unexpected="internal")  # type: ignore[arg-type]
    custom = errconv.Fault.build(grpc_code=2, code="oops", detail="Something went wrong", next_step="give_up")
    assert core.ServerSide(unexpected=custom).outcome(ValueError("x")).code == 2


def test_the_outcome_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in errconv")

    monkeypatch.setattr(core, "trailers_for", broken)
    outcome = core.ServerSide().outcome(errconv.FaultError(WAIT))
    assert (outcome.code, outcome.message, outcome.trailing_metadata, outcome.unexpected) == (13, "Internal error", (), True)


# --------------------------------------------------------------------------- client side


@pytest.mark.parametrize(
    "trailers, note",
    [
        ([(DETAILS_KEY, b"\xff\xfe")], "grpc-status-details-bin ignored"),
        ([1, 2, 3], "trailers ignored"),
        ([("x-big", "v" * (2 << 20))], "trailers ignored"),
        (None, None),
    ],
)
def test_call_fault_never_raises(trailers: Any, note: str | None) -> None:
    fault = core.call_fault(14, "busy", trailers)
    assert (fault.grpc_code, fault.detail, fault.next_step) == (14, "busy", "wait")
    if note is not None:
        assert any(note in n for n in fault.origin.notes)  # type: ignore[union-attr]
    huge = core.call_fault(13, "x" * (2 << 20), ())
    assert huge.grpc_code == 13 and huge.origin is not None and huge.origin.notes
    assert core.call_fault(None, None, ()).grpc_code == 2


def test_request_keys() -> None:
    message = status_pb2.Status(code=3, message="m")
    assert core.request_key(message) == core.request_key(status_pb2.Status(code=3, message="m")) == message.SerializeToString(deterministic=True)
    assert core.request_key(b"raw") == b"raw" and core.request_key(bytearray(b"raw")) == b"raw"
    assert core.request_key(("a", 1)) == ("a", 1)
    assert core.request_key(["unhashable"]) is None
    assert core.requests_key([b"a", b"b"], core.request_key) == (b"a", b"b")
    assert core.requests_key([b"a", ["x"]], core.request_key) is None


def test_only_a_sequence_of_requests_can_be_sent_again() -> None:
    assert core.replayable([b"a"]) and core.replayable((b"a",))
    assert not core.replayable(iter([b"a"])) and not core.replayable(x for x in [b"a"])
    assert not core.replayable(b"ab") and not core.replayable("ab")


def test_attempts_follow_the_three_moves() -> None:
    clock = VirtualClock()
    attempts = core.Attempts(RetryPolicy(clock=clock), None, None, None)
    attempts.start()
    assert attempts.failed(WAIT) == 2.0
    attempts.start()
    assert attempts.failed(GIVE_UP) is None and "give_up" in attempts.reason
    assert attempts.note() == f"errconv.retry: stopped after 2 calls: {attempts.reason}"
    fix = core.Attempts(RetryPolicy(clock=clock), None, None, None)
    fix.start()
    assert fix.failed(FIX) is None and "fix_request" in fix.reason
    committed = core.Attempts(RetryPolicy(clock=clock), None, None, None)
    committed.start()
    assert committed.failed(WAIT, retryable=False) is None and "committed" in committed.reason
    assert core.Attempts(None, None, None, None).failed(WAIT) is None  # no policy, no retry


def test_the_deadline_spans_every_attempt() -> None:
    clock = VirtualClock()
    attempts = core.Attempts(RetryPolicy(clock=clock), None, None, timeout=5)
    attempts.start()
    assert attempts.failed(WAIT) == 2.0
    clock.sleep(2)
    assert attempts.timeout() == 3
    attempts.start()
    clock.advance(1.5)  # the second attempt took 1.5 s
    assert attempts.failed(WAIT) is None and "deadline" in attempts.reason


def test_the_guard_is_asked_before_the_first_attempt_and_told_after_a_give_up() -> None:
    guard = TerminalGuard()
    first = core.Attempts(None, guard, ("/S/M", b"req"), None)
    first.start()
    first.failed(GIVE_UP)
    repeat = core.Attempts(None, guard, ("/S/M", b"req"), None)
    with pytest.raises(GuardRefused) as info:
        repeat.start()
    assert info.value.fault == GIVE_UP
    other = core.Attempts(None, guard, ("/S/M", b"other"), None)
    other.start()
    unguarded = core.Attempts(None, guard, None, None)  # a request with no key
    unguarded.start()
    unguarded.failed(GIVE_UP)
    assert len(guard) == 1
    cancelled = core.Attempts(None, guard, ("/S/M", b"cancelled"), None)
    cancelled.start()
    cancelled.failed(core.call_fault(1, "Locally cancelled by application!", ()))  # give_up by the ladder
    assert len(guard) == 1  # but the caller's own cancellation is no answer about the request


def test_the_sync_and_aio_client_sides_key_the_guard_alike() -> None:
    # One core for both: grpc.aio hands the method name over as bytes, grpcio as text, and
    # the guard remembers either as text (the sync side once kept the bytes).
    import types

    from errconv.aio import UnaryUnaryClientInterceptor
    from errconv.interceptors import ClientInterceptor
    from errconv.retry import TerminalGuard

    guard = TerminalGuard()
    for side in (ClientInterceptor(guard=guard), UnaryUnaryClientInterceptor(guard=guard)):
        for method in (b"/pkg.Svc/Do", "/pkg.Svc/Do"):
            attempts = side._attempts(types.SimpleNamespace(method=method, timeout=None), lambda: b"request")
            assert attempts.key == ("/pkg.Svc/Do", b"request")
    assert repr(ClientInterceptor()).startswith("errconv.interceptors.ClientInterceptor(retry=None")
    assert repr(UnaryUnaryClientInterceptor()).startswith("errconv.aio.UnaryUnaryClientInterceptor(retry=None")
