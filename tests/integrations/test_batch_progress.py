"""`batch.rows`/`batch.table` keep their rows aligned and report progress: a callback, or a tqdm bar."""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Iterator

import pyarrow as pa
import pytest

from errconv import batch

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOOD = (ROOT / "golden/rate_limited/problem.json").read_bytes()
# The inputs a --lines file cannot read either: blank, truncated, binary, bad JSON, None.
BAD = [b"", b'{"status": 5', b"\x00\xff\xfe\x89PNG", b"{not json}", None, b"   "]


def test_row_n_is_input_n_whatever_the_input() -> None:
    inputs = [GOOD, *BAD, GOOD]
    got = list(batch.rows(inputs, to="problem"))
    assert len(got) == len(inputs)
    assert got[0].next_step == got[-1].next_step == "wait" and got[0].error is None
    assert all(row.error and row.next_step is None for row in got[1:-1])


def test_a_callback_hears_every_1024_rows_and_the_end() -> None:
    heard: list[tuple[int, int | None]] = []
    inputs = [GOOD, b"nonsense"] * 1500
    rows = list(batch.rows(inputs, progress=lambda done, total: heard.append((done, total))))
    assert len(rows) == 3000
    assert heard == [(1024, 3000), (2048, 3000), (3000, 3000)]


def test_an_iterator_has_no_total() -> None:
    heard: list[tuple[int, int | None]] = []

    def endless() -> Iterator[bytes]:
        yield from [GOOD] * 1100

    assert len(list(batch.rows(endless(), progress=lambda done, total: heard.append((done, total))))) == 1100
    assert heard == [(1024, None), (1100, None)]


def test_table_counts_the_distinct_inputs_it_reads() -> None:
    heard: list[tuple[int, int | None]] = []
    column = pa.array([GOOD, b"nonsense", GOOD] * 1000, pa.binary())
    table = batch.table(column, progress=lambda done, total: heard.append((done, total)))
    assert table.num_rows == 3000
    assert heard == [(2, 2)]


def test_progress_true_draws_a_tqdm_bar(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(list(batch.rows([GOOD] * 2000, progress=True))) == 2000
    err = capsys.readouterr().err
    assert "errconv" in err and "2.00k/2.00k" in err, err


def test_without_tqdm_progress_true_names_the_extra_at_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match=r"progress=True needs tqdm, which is not installed: pip install 'errconv\[progress\]'"):
        batch.rows([GOOD], progress=True)  # raised here, before any row is asked for
    assert len(list(batch.rows([GOOD]))) == 1  # without progress nothing needs it


def test_a_bad_progress_is_refused() -> None:
    with pytest.raises(TypeError, match="progress"):
        batch.rows([GOOD], progress="yes")  # type: ignore[arg-type]
