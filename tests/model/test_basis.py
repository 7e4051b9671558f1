"""`errconv.Basis` and `Origin.basis`: every fact's basis, stated, inferred or assumed (issue 28)."""

from __future__ import annotations

import msgspec
import pytest

import errconv
from errconv import Basis, Fault, Origin


def test_a_built_fault_states_what_it_holds() -> None:
    fault = Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=3)
    assert fault.basis("status") == Basis(kind="stated")
    assert fault.basis("retry_after_seconds").kind == "stated"
    assert Fault.build(status=404, next_step="give_up").basis("code").kind == "assumed"


def test_a_dialect_body_states_its_members_and_the_wire_its_headers() -> None:
    raw = b'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\nContent-Type: application/problem+json\r\n\r\n{"type":"https://x.example/rate","title":"Slow","status":429,"code":"rate_limited","next_step":"wait"}'
    fault = errconv.decode(raw)
    assert fault.basis("status") == Basis(kind="stated", source="the HTTP status line")
    assert fault.basis("code").kind == "stated"
    assert fault.basis("next_step").kind == "stated"
    assert fault.basis("retry_after_seconds") == Basis(kind="stated", source="Retry-After")


def test_a_move_from_the_ladder_is_inferred_from_a_stated_status() -> None:
    fault = errconv.decode(b'{"type":"https://x.example/nf","title":"Not found","status":404}')
    assert fault.basis("status").kind == "stated"
    assert fault.basis("next_step").kind == "inferred"


def test_the_trace_gives_the_member_pointer() -> None:
    fault = errconv.decode(b'{"type":"https://x.example/nf","title":"Not found","status":404}', trace=True)
    assert fault.basis("status") == Basis(kind="stated", source="/status")


def test_the_general_reader_says_assumed_when_nothing_states_a_status() -> None:
    fault = errconv.decode(b'{"foo": 1, "error": "it went wrong somehow"}')
    assert fault.status == 500  # the documented placeholder, marked assumed
    assert fault.basis("status").kind == "assumed"
    assert fault.basis("next_step").kind == "assumed"
    words = errconv.decode(b'{"message": "Too many requests, slow down"}')
    assert words.status == 429
    assert words.basis("status").kind == "inferred" and "rate limit" in (words.basis("status").source or "")
    assert words.basis("next_step").kind == "inferred"


def test_one_stray_word_does_not_move_a_stated_4xx() -> None:
    # Issue 27 item 5: "upstream" alone is no overload at 400; a phrase is.
    stray = errconv.decode(b'{"message": "upstream said hi"}', status=400)
    assert stray.next_step != "wait"
    assert any("too weak" in n for n in stray.origin.notes)  # type: ignore[union-attr]
    phrase = errconv.decode(b'{"message": "upstream service unavailable, try again later"}', status=400)
    assert phrase.next_step == "wait" and phrase.basis("next_step").kind == "inferred"


def test_origin_basis_names_its_facts_and_reads_a_hand_made_origin() -> None:
    origin = Origin(dialect="exception", next_step="inferred from KeyError", inferred=("grpc_code", "next_step"))
    assert origin.basis("next_step") == Basis(kind="inferred", source="KeyError")
    assert origin.basis("status") == Basis(kind="stated")
    with pytest.raises(ValueError):
        origin.basis("param")


def test_equality_ignores_the_basis_and_basis_is_frozen() -> None:
    a = errconv.decode(b'{"message": "Not Found"}')
    b = errconv.decode(b'{"message": "Not Found"}', status=404)
    assert a.basis("status") != b.basis("status")
    assert a == b
    with pytest.raises(AttributeError):
        a.basis("status").kind = "stated"  # type: ignore[misc]
    assert msgspec.json.decode(msgspec.json.encode(Basis(kind="inferred", source="x")), type=Basis) == Basis(kind="inferred", source="x")
