"""The batch API (`errconv.batch`): row by row what `decode` and `convert` say of each input.

Every golden input and every real-world capture, classified and converted, and compared
field by field with the single-input verbs, error rows included; the same through the
Arrow table; the memory that makes repeats cheap stays bounded and never changes an
answer.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import errconv
from errconv import _batch, batch
from fuzz_inputs import inputs

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOW = 1_800_000_000.0  # the clock tests/dialects/test_realworld.py reads the captures against


def _inputs() -> list[tuple[str, bytes, int | None]]:
    """(name, bytes, the status a bare body came with) for every golden file and capture."""
    out = []
    for path in sorted((ROOT / "golden").glob("*/*")):
        out.append((f"golden/{path.parent.name}/{path.name}", path.read_bytes(), None))
    for facts in sorted((ROOT / "tests/realworld").glob("*/facts.json")):
        for name, entry in json.loads(facts.read_text()).items():
            path = facts.parent / name
            status = None if path.suffix == ".http" else entry["facts"]["status"]
            out.append((f"realworld/{facts.parent.name}/{name}", path.read_bytes(), status))
    return out


INPUTS = _inputs()
# Inputs no dialect reads, beside the corpus: each must be an error row, never an exception.
JUNK: list[tuple[str, bytes, int | None]] = [
    ("empty", b"", None),
    ("nonsense", b"nonsense", None),
    ("malformed-json", b'{"error": ', None),
    ("not-an-error", b'{"ok": true}', 200),
    ("binary", bytes(range(256)), None),
]


def _expected(data: bytes, status: int | None, to: str | None) -> tuple[Any, ...]:
    """What the single-input verbs say: the row `batch.rows` must give."""
    try:
        fault = errconv.decode(data, status=status, now=NOW)
    except errconv.ErrconvError as exc:
        return (None,) * 9 + (str(exc),)
    origin = fault.origin
    body = lost = None
    if to is not None:
        try:
            body = errconv.convert(data, to, status=status, now=NOW)
        except errconv.ErrconvError as exc:
            return (None,) * 9 + (str(exc),)
        lost = errconv.losses(fault, to)
    return (
        origin.dialect if origin is not None and origin.dialect else "unrecognised",
        fault.status,
        None if fault.grpc_code is None else int(fault.grpc_code),
        fault.code,
        None if fault.next_step is None else str(fault.next_step),
        fault.retry_after_seconds,
        fault.param,
        body,
        lost,
        None,
    )


def test_the_corpus_is_all_there() -> None:
    assert len(INPUTS) > 450, len(INPUTS)


@pytest.mark.parametrize("to", [None, "problem", "google", "stripe", "status"])
def test_rows_say_what_decode_and_convert_say(to: str | None) -> None:
    cases = INPUTS + JUNK
    got = list(batch.rows([data for _, data, _ in cases], to=to, status=[s for _, _, s in cases], now=NOW))
    assert len(got) == len(cases)
    errors = 0
    for (name, data, status), row in zip(cases, got):
        assert tuple(row) == _expected(data, status, to), name
        errors += row.error is not None
    assert errors >= len(JUNK)  # error rows are in the comparison, not only good ones


def test_repeated_inputs_read_once_and_answer_the_same() -> None:
    cases = INPUTS[:60] * 5
    reads: list[tuple[bytes, int | None]] = []

    def read(data: bytes, status: int | None, where: str) -> tuple[errconv.Fault, str]:
        reads.append((data, status))
        return errconv.decode(data, status=status, now=NOW), "x"

    core = _batch.Core(read, "google")
    failed = 0
    for _, data, status in cases:
        try:
            core.one(data, status)
        except errconv.ErrconvError:
            failed += 1  # a failed read is not remembered: its message may name where it was
    distinct = {(d, s) for _, d, s in cases}
    assert len(reads) == len(distinct) + failed * 4 // 5
    # and a batch (which remembers) answers as the single-input verbs, repeat after repeat
    got = [tuple(r) for r in batch.rows([d for _, d, _ in cases], to="google", status=[s for _, _, s in cases], now=NOW)]
    assert got == [_expected(d, s, "google") for _, d, s in cases]


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_batch, "MEMO_SIZE", 8)
    monkeypatch.setattr(_batch, "MEMO_BYTES", 4000)
    core = _batch.Core(lambda data, status, where: (errconv.decode(data, status=status), "x"), "problem")
    for i in range(100):
        core.one(b"upstream failure %d" % i, 503)
        assert len(core.memo) <= 8 and core.held <= 4000
    held = dict(core.memo)
    core.one(b"x" * 5000, 503)  # alone past the bound: answered, not remembered
    assert core.memo == held and core.held <= 4000


def test_strict_rows_are_errors_where_convert_refuses() -> None:
    cases = INPUTS[:80]
    rows = list(batch.rows([d for _, d, _ in cases], to="stripe", status=[s for _, _, s in cases], strict=True, now=NOW))
    refused = 0
    for (name, data, status), row in zip(cases, rows):
        try:
            body = errconv.convert(data, "stripe", status=status, strict=True, now=NOW)
        except errconv.ErrconvError as exc:
            assert (row.error, row.body) == (str(exc), None), name
            refused += isinstance(exc, errconv.LossError)
        else:
            assert (row.error, row.body, row.lost) == (None, body, ()), name
    assert refused > 10


def test_bad_items_are_error_rows_and_bad_names_raise() -> None:
    got = list(batch.rows([None, 7, "x", bytearray(b'{"type":"about:blank","status":404}'), "\ud800"]))  # type: ignore[list-item]
    assert [r.error is not None for r in got] == [True, True, True, False, True]
    with pytest.raises(errconv.DecodeError) as lone:
        errconv.decode("\ud800")
    assert got[4].error == str(lone.value)  # a lone surrogate: the row says what decode says
    assert got[1].error == "a batch input is bytes or text, not int"
    assert got[3].status == 404
    with pytest.raises(errconv.UnknownDialectError):
        next(batch.rows([b"{}"], to="nope"))
    # a dialect errconv reads but does not write: every row says so, as convert would
    row = next(batch.rows([b'{"type":"about:blank","status":404}'], to="aws"))
    with pytest.raises(errconv.ErrconvError) as raised:
        errconv.convert(b'{"type":"about:blank","status":404}', "aws")
    assert row.error == str(raised.value)


def test_statuses_and_inputs_must_pair_up() -> None:
    with pytest.raises(errconv.ErrconvError, match="status ran out"):
        list(batch.rows([b"a", b"b"], status=[503]))
    with pytest.raises(errconv.ErrconvError, match="more values"):
        list(batch.rows([b"a"], status=[503, 502]))
    assert [r.status for r in batch.rows([b"a", b"b"], status=(s for s in (503, 502)))] == [503, 502]


def test_the_arrow_table_holds_the_rows() -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is in the test extra; this guards a bare install")
    cases = INPUTS + JUNK
    column = pa.array([d for _, d, _ in cases], type=pa.binary())
    statuses = pa.array([s for _, _, s in cases], type=pa.int32())
    table = batch.table(column, to="problem", status=statuses, now=NOW)
    assert table.schema == batch.schema()
    want = [_expected(d, s, "problem") for _, d, s in cases]
    got = [tuple(r[c] if c != "lost" or r[c] is None else tuple(r[c]) for c in batch.COLUMNS) for r in table.to_pylist()]
    assert got == want
    # text columns and chunked arrays read the same
    text = pa.chunked_array([pa.array([d.decode("utf-8", "replace") for _, d, _ in INPUTS[:40]]), pa.array(["nonsense"])])
    assert batch.table(text).num_rows == 41


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(inputs(), min_size=1, max_size=6), st.lists(st.sampled_from([None, 400, 429, 503, 200, 0, 99999]), min_size=6, max_size=6))
def test_hostile_batches_never_raise_and_still_say_what_decode_says(drawn: list[tuple[str, bytes]], statuses: list[int | None]) -> None:
    # The fuzz suite's hostile inputs (every dialect's seeds, mutated), twice over so the
    # second of each is answered from the batch's memory: each row still equals decode's.
    data = [d for _, d in drawn] * 2
    given_statuses = (statuses[: len(drawn)]) * 2
    got = list(batch.rows(data, to="problem", status=given_statuses, now=NOW))
    assert [tuple(r) for r in got] == [_expected(d, s, "problem") for d, s in zip(data, given_statuses)]
