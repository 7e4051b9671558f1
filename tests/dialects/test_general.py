"""general: the reader of bodies no dialect claims, held to what every dialect is held to
(hostile input gives a Fault or a DecodeError; what it reads converts to every writer),
and its rules half of tests/realworld_open read without a stray exception. Its rules are
tested in tests/test_general_reader.py, its score in tests/test_realworld_open.py."""

from __future__ import annotations

import json
import pathlib

import pytest

import errconv

from .adhoc import NOW, check_bad_input, check_converts

OPEN = pathlib.Path(__file__).resolve().parent.parent / "realworld_open" / "rules"


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("general")


def test_it_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="general is read, not written"):
        errconv.encode(errconv.Fault.build(status=404, code="not_found"), "general")


def test_named_it_reads_any_error_shape() -> None:
    # Named, it reads what another dialect would claim too: its structure is everyone's.
    fault = errconv.decode(b'{"error": {"code": 404, "message": "no such bucket"}}', "general")
    assert (fault.status, fault.code, fault.next_step) == (404, None, "give_up")
    # Named, bytes that are no JSON object are read as text, as a text body is.
    text = errconv.decode(b"Rate limited, retry after 4 seconds", "general")
    assert (text.status, text.next_step, text.retry_after_seconds) == (429, "wait", 4) and "status" in text.origin.inferred


@pytest.mark.parametrize("facts", sorted(OPEN.glob("*/facts.json")), ids=lambda p: p.parent.name)
def test_what_it_reads_converts_to_every_writer(facts: pathlib.Path) -> None:
    for name, entry in json.loads(facts.read_text()).items():
        data = (facts.parent / name).read_bytes()
        given = entry.get("given_status")
        fault = errconv.decode(data, now=NOW) if name.endswith(".http") or given is None else errconv.decode(data, status=given, now=NOW)
        check_converts(fault)
