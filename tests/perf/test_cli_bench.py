"""bench/lines.py on 2,000 lines: it runs, the counts add up, and memory does not grow with the input."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_lines_benchmark_on_2000_lines() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "lines.py"), "--lines", "2000", "--bad-every", "500", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    full, baseline = result["full"], result["baseline"]
    assert result["consistent"]
    assert (full["lines"], full["bad_lines"], baseline["lines"]) == (2_000, 4, 1_000)
    assert full["output_lines"] == 2_000  # one per input line: the 4 malformed give error lines
    assert full["stderr_lines"] == 4  # one line per malformed body; google loses nothing
    assert full["exit"] == 1  # some lines failed
    assert full["lines_per_second"] > 0
    # Twice the input, the same memory (the 1,000,000-line run is the real proof).
    assert full["peak_mib"] - baseline["peak_mib"] < 2, (full["peak_mib"], baseline["peak_mib"])


def _labels(report: str) -> list[str]:
    # What a line of the report says, without its figures.
    return [line.split(":")[0] if line.startswith("errconv ") else line.strip().split("  ")[0] for line in report.splitlines()]


def test_the_recorded_run_in_the_docs_is_the_benchmark_s_output() -> None:
    # docs/figures/lines-bench.txt is `python bench/lines.py`'s output as printed, which the
    # command-line guide includes when the site is built (issue 30: a typed-in figure had gone
    # stale). It must read as the benchmark prints today, and say what it measured.
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "lines.py"), "--lines", "2000", "--bad-every", "500"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    recorded = (ROOT / "docs" / "figures" / "lines-bench.txt").read_text()
    assert _labels(recorded) == _labels(proc.stdout)
    assert recorded.startswith("errconv convert --lines --to google: ") and "lines per second" in recorded
    assert "<!-- generated: lines-bench -->" in (ROOT / "docs" / "guide" / "cli.md").read_text()
