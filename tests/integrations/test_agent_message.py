"""`errconv.agent_message`, `errconv.TOOL_CONTRACT` and `errconv.with_contract`: what a
model reads states the move and only what the fault holds, short and without secrets."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

import errconv
from errconv import Fault, NextStep

REALWORLD = pathlib.Path(__file__).resolve().parents[1] / "realworld"
RETRY_TALK = re.compile(r"(?i)try again|retry|retries|retrying")


def realworld_faults() -> list[tuple[str, Fault]]:
    """Every bare-body capture of tests/realworld, as errconv reads it."""
    out = []
    for facts_path in sorted(REALWORLD.glob("*/facts.json")):
        for name, entry in json.loads(facts_path.read_text()).items():
            path = facts_path.parent / name
            if path.suffix != ".json" or entry["facts"]["status"] is None:
                continue
            try:
                fault = errconv.from_http(entry["facts"]["status"], [("content-type", "application/json")], path.read_bytes())
            except errconv.DecodeError:
                continue
            out.append((f"{facts_path.parent.name}/{name}", fault))
    return out


REALWORLD_FAULTS = realworld_faults()


def test_a_wait_names_the_seconds_and_the_identical_call() -> None:
    text = errconv.agent_message(Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30))
    assert "Wait 30 seconds" in text and "identical call may be repeated" in text and "next_step: wait" in text
    one = errconv.agent_message(Fault.build(status=503, next_step="wait", retry_after_seconds=1))
    assert "Wait 1 second," in one
    vague = errconv.agent_message(errconv.from_http(503, [], b""))
    assert "No delay was stated" in vague and "identical call" in vague
    assert not re.search(r"\d+ seconds?", vague)  # no number the fault does not hold


def test_a_fix_request_names_the_parameter_and_the_violations() -> None:
    fault = Fault.build(
        status=400, code="invalid_amount", param="amount",
        violations=[{"field": "amount", "description": "must be at most 100.00"}, {"field": "currency", "description": "unknown: XYZ"}],
    )  # fmt: skip
    text = errconv.agent_message(fault)
    assert "next_step: fix_request" in text and "`amount`" in text
    assert "must be at most 100.00" in text and "`currency`: unknown: XYZ" in text


def test_a_give_up_says_not_to_repeat_and_gives_the_way_out() -> None:
    funds = Fault.build(
        status=402, code="insufficient_funds", next_step="give_up", detail="Balance 42.10 below requested 150.00",
        blocked_by="balance", unblock_with="request_deposit",
    )  # fmt: skip
    text = errconv.agent_message(funds)
    assert "Do not repeat this call" in text and "`request_deposit`" in text and "balance" in text
    assert "Balance 42.10 below requested 150.00" in text
    slot = Fault.build(
        status=409, code="slot_unavailable", next_step="give_up",
        alternatives=[{"start": "2026-03-12T14:45:00Z"}, {"start": "2026-03-12T16:00:00Z"}, {"practitioner_id": "dr_yilmaz"}],
        alternatives_truncated=True,
    )  # fmt: skip
    text = errconv.agent_message(slot)
    assert "2026-03-12T14:45:00Z" in text and "dr_yilmaz" in text and "there are more" in text
    for t in (errconv.agent_message(funds), text):
        assert not RETRY_TALK.search(t), t


def test_a_give_up_drops_the_servers_own_try_again() -> None:
    # The server's prose says to try again; the fault says give_up: the move wins.
    fault = Fault.build(status=500, code="api_error", next_step="give_up",
                        detail="Something went wrong. Please try again in a few minutes. Contact support if it persists.")  # fmt: skip
    text = errconv.agent_message(fault)
    assert not RETRY_TALK.search(text), text
    assert "Something went wrong" in text and "Contact support" in text


@pytest.mark.parametrize("name, fault", REALWORLD_FAULTS, ids=[n for n, _ in REALWORLD_FAULTS])
def test_every_real_world_fault_reads_as_its_move(name: str, fault: Fault) -> None:
    text = errconv.agent_message(fault)
    assert len(text) <= 600, (len(text), text)
    assert f"next_step: {fault.next_step}" in text
    if fault.next_step == NextStep.GIVE_UP:
        assert not RETRY_TALK.search(text), text
        assert "Do not repeat" in text
    elif fault.next_step == NextStep.WAIT and fault.retry_after_seconds is not None:
        assert f"Wait {fault.retry_after_seconds} second" in text
    elif fault.next_step == NextStep.FIX_REQUEST and fault.param:
        assert f"`{errconv_redacted(fault.param)}`" in text


def errconv_redacted(text: str) -> str:
    from errconv._agent_text import redact

    return redact(text, 64)


def test_the_real_world_corpus_covers_all_three_moves() -> None:
    moves = {f.next_step for _, f in REALWORLD_FAULTS}
    assert moves == {NextStep.FIX_REQUEST, NextStep.WAIT, NextStep.GIVE_UP}
    assert len(REALWORLD_FAULTS) >= 50


@pytest.mark.parametrize(
    "secret",
    [
        "https://api.example.com/v1/x?api_key=SECRETVALUE1&b=2",
        "https://admin:SECRETVALUE1@db.example.com/prod",
        "Authorization: Bearer SECRETVALUE1abc",
        "authorization=Basic SECRETVALUE1==",
        "{'X-Api-Key': 'SECRETVALUE1'}",
        '"password": "SECRETVALUE1"',
        "password=SECRETVALUE1",
        "client_secret=SECRETVALUE1",
        "api_key: SECRETVALUE1",
        "Cookie: session=SECRETVALUE1",
        "key sk-proj-SECRETVALUE1abcdef",
        "sk_live_SECRETVALUE1abcdef",
        "ghp_SECRETVALUE1abcdefghij",
        "xoxb-12345-SECRETVALUE1",
        "AKIASECRETVALUE1ABCD",
        "AIzaSECRETVALUE1abcdefghijklmnop",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTRUNSRVRWQUxVRTEifQ.SECRETVALUE1",
        "token SECRETVALUE1",
        "the key is 8f4SECRETVALUE1d9c0b1e2f3a4b5c6d7e8f9a0b1c2d",
    ],
)
def test_credentials_are_redacted_wherever_the_fault_carries_text(secret: str) -> None:
    fault = Fault.build(
        status=400, code="bad_input", param=f"field {secret}", detail=f"rejected: {secret}",
        violations=[{"field": "x", "description": f"bad {secret}"}],
    )  # fmt: skip
    for f in (fault, fault.replace(next_step=NextStep.GIVE_UP, param=None, violations=(), alternatives=(secret,), unblock_with=secret)):
        text = errconv.agent_message(f)
        assert "SECRETVALUE1" not in text, text
        assert "[redacted]" in text


def test_text_stays_short_however_long_the_fault() -> None:
    fault = Fault.build(
        status=400, code="c" * 60, param="p" * 5000, detail="word " * 100_000,
        violations=[{"field": f"f{i}", "description": "d" * 1000} for i in range(200)],
    )  # fmt: skip
    text = errconv.agent_message(fault)
    assert len(text) <= 600 and "and 197 more" in text
    assert text.startswith(f"The tool call failed: {'c' * 47}… (HTTP 400).") and text.endswith("then call again with the corrected arguments.")
    terminal = Fault.build(
        status=409, code="z" * 63, next_step="give_up", detail="word " * 1000, blocked_by="b" * 500, unblock_with="u" * 500,
        alternatives=[{"slot": "s" * 500}] * 3, alternatives_truncated=True,
    )  # fmt: skip
    text = errconv.agent_message(terminal)
    assert len(text) <= 600 and "(HTTP 409)" in text and text.endswith("Otherwise report the failure to the user."), text
    assert "\n" not in errconv.agent_message(Fault.build(status=500, next_step="give_up", detail="a\nb\r\n\x00c"))


def test_a_fault_without_a_next_step_gets_the_ladders() -> None:
    assert "next_step: wait" in errconv.agent_message(Fault(status=503, grpc_code=14))
    assert "next_step: give_up" in errconv.agent_message(Fault(status=400, grpc_code=3))  # no param to name


def test_the_contract_sentence_and_with_contract() -> None:
    contract = errconv.TOOL_CONTRACT
    for word in ("next_step", "fix_request", "param", "wait", "retry_after_seconds", "identical call", "give_up",
                 "will not succeed on repetition", "alternatives", "unblock_with", "report to the user"):  # fmt: skip
        assert word in contract, word
    described = errconv.with_contract("Transfer funds between two accounts.")
    assert described.startswith("Transfer funds between two accounts.") and described.endswith(contract)
    assert errconv.with_contract(described) == described
    assert errconv.with_contract("") == contract == errconv.with_contract(None)
