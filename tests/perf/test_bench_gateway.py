"""bench/gateway.py runs end to end on a tiny iteration count, so it cannot rot.

Not a timing test: nothing here asserts a speed, only that every comparison is
measured against its baseline and reported with its target.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "gateway.py"


def _load():
    spec = importlib.util.spec_from_file_location("errconv_bench_gateway", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_gateway_benchmark_measures_and_reports_every_comparison(capsys) -> None:
    bench = _load()
    try:
        assert bench.main(["-n", "20", "-r", "1"]) == 0
        table = capsys.readouterr().out
        assert bench.main(["-n", "20", "-r", "1", "--json"]) == 0
        figures = json.loads(capsys.readouterr().out)["results"]
    finally:
        sys.modules.pop("errconv_bench_gateway", None)
    names = [name for name, _ in bench.PAIRS]
    assert set(figures) == set(names)
    for name in names:
        assert name in table
        assert figures[name]["us"] > 0 and figures[name]["baseline_us"] > 0 and figures[name]["ratio"] > 0
        if "delta_us" in figures[name]:  # held to microseconds beside a minimal middleware
            assert figures[name]["target"] == bench.DELTA_US == 0.2
        else:
            assert figures[name]["target"] == (1.05 if name.startswith("success") else 1.5)


def test_the_gateway_benchmark_measures_errconv_otel_with_otel(capsys) -> None:
    """`--otel`: the success path with telemetry on beside it off, and what recording adds to a fault."""
    import pytest

    pytest.importorskip("opentelemetry.sdk")
    bench = _load()
    try:
        assert bench.main(["-n", "20", "-r", "1", "--otel", "--json"]) == 0
        figures = json.loads(capsys.readouterr().out)["results"]
    finally:
        sys.modules.pop("errconv_bench_gateway", None)
    assert set(figures) == {name for name, _ in (*bench.OTEL_PAIRS, *bench.PAIRS)}
    assert figures["success, telemetry on"]["target"] == 1.05
    recorded = figures["failure, telemetry on"]
    assert recorded["us"] > 0 and recorded["baseline_us"] > 0 and "record_us" in recorded and "fault_us" in recorded

def test_the_recorded_table_in_the_docs_has_every_comparison() -> None:
    # docs/figures/gateway-bench.md is `python bench/gateway.py`'s output as printed, which the
    # gateway guide includes when the site is built (issue 30: a row had gone missing when the
    # table was typed in). A comparison added to the benchmark fails here until it is re-run.
    bench = _load()
    try:
        names = [name for name, _ in bench.PAIRS]
    finally:
        sys.modules.pop("errconv_bench_gateway", None)
    recorded = (BENCH.parents[1] / "docs" / "figures" / "gateway-bench.md").read_text()
    rows = [line.split("|")[1].strip() for line in recorded.splitlines() if line.startswith("| ") and not line.startswith("| request ")]
    assert rows == names
    assert recorded.startswith("Machine: ") and "Median of " in recorded
    assert "<!-- generated: gateway-bench -->" in (BENCH.parents[1] / "docs" / "guide" / "gateway.md").read_text()
