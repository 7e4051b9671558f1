"""The benchmark harness runs end to end on a tiny iteration count, so it cannot rot.

Not a timing test: nothing here asserts a speed, only that every figure the
README's table is made of is measured, reported and written.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "run.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("errconv_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_the_harness_runs_and_writes_every_figure(bench, tmp_path, capsys) -> None:
    out = tmp_path / "results.json"
    assert bench.main(["--iterations", "2", "--repeats", "1", "--case", "rate_limited", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    results = json.loads(out.read_text())

    case = results["cases"]["rate_limited"]
    pairs = {f"{a}->{b}" for a in bench.DIALECTS for b in bench.DIALECTS}
    assert set(case["convert"]) == pairs
    assert set(case["decode"]) == set(case["encode"]) == set(bench.DIALECTS)
    assert set(case["floor"]["ratio"]) == {f"{a}->{b}" for a in bench.JSON_DIALECTS for b in bench.JSON_DIALECTS}
    assert all(v > 0 for v in case["convert"].values())
    assert case["api_core"]["speedup"] > 0 and case["json_format"] and case["status_path"]
    assert all(v > 0 for v in case["memory"].values())
    assert set(results["targets"]) == {"floor", "json_format", "api_core"}
    assert results["machine"]["cores"] and results["machine"]["protobuf_backend"]
    for heading in ("**Targets**", "multiple of the floor", "json_format", "from_http_response", "Memory"):
        assert heading in printed


def test_compare_reads_an_earlier_run(bench, tmp_path, capsys) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    args = ["-n", "1", "-r", "1", "--case", "quota_failure"]
    bench.main([*args, "-o", str(first)])
    bench.main([*args, "-o", str(second), "--compare", str(first)])
    assert "Against the earlier run" in capsys.readouterr().out


def test_the_alternatives_do_the_same_work(bench) -> None:
    for case in bench.CASES:
        bench.check(case)  # raises when a json_format or api_core conversion lost meaning


def test_the_grpc_overhead_harness_runs(capsys) -> None:
    path = BENCH.parent / "grpc_overhead.py"
    spec = importlib.util.spec_from_file_location("errconv_grpc_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--calls", "5", "--rounds", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    for side in ("server", "client"):
        assert figures[side]["ratio"] > 0 and figures[side]["target"] in (1.10, 1.05)
        assert all(us > 0 for us in figures[side]["per_call_us"].values())


def test_the_protobuf_path_harness_runs(capsys) -> None:
    path = BENCH.parent / "proto.py"
    spec = importlib.util.spec_from_file_location("errconv_proto_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # functions() checks, on every case, that both encodes give the golden bytes and
    # that errconv's status -> problem is the golden problem.
    assert module.main(["--iterations", "2", "--repeats", "1"]) == 0
    printed = capsys.readouterr().out
    for case in ("rate_limited", "extensions_all_types", "unknown_detail"):
        assert case in printed
    assert "status -> problem / hand read " in printed and "status encode / hand encode" in printed
    # The hand-written read reads what errconv reads.
    data = (BENCH.parent.parent / "golden" / "quota_failure" / "status.binpb").read_bytes()
    read = module.hand_read(data)
    assert read["code"] == 8 and [url.rsplit(".", 1)[-1] for url, _ in read["details"]] == [
        "ErrorInfo", "RetryInfo", "QuotaFailure", "Help",
    ]
    assert read["details"][2][1]["violations"][0]["quota_dimensions"] == {"location": "global", "model": "gemini-2.5-flash"}


def _structure(report: str) -> list[str]:
    # The tables' titles and header rows, and the first cell of every row: what was measured,
    # without the figures (a tiny run prints one case; the recorded run prints three).
    out = []
    for line in report.splitlines():
        if line.startswith("**"):
            out.append(line.split("**")[1])
        elif line.startswith("| ") and not line.startswith("|---"):
            out.append(line.split("|")[1].strip())
    return out


def test_the_recorded_run_in_the_docs_has_every_table_the_harness_prints(bench, tmp_path, capsys) -> None:
    # docs/figures/bench-run.md is `bench/run.py`'s output as printed, which docs/performance.md
    # includes when the site is built (issue 30: figures come from a file the harness wrote, not
    # typed in). A table or row the harness prints today must be in it.
    # The harness runs in the recorded run's mode: a compiled build (CI's second run) prints its
    # own tables beside the pure build's, which a pure-only recording has no place for.
    recorded = (BENCH.parents[1] / "docs" / "figures" / "bench-run.md").read_text()
    assert recorded.startswith("Machine: ")
    args = ["--iterations", "2", "--repeats", "1", "--output", str(tmp_path / "r.json")]
    if "\nBuild: pure Python only" in recorded:
        args.append("--pure-only")
    for case in ("rate_limited", "validation_failed", "quota_failure"):
        args += ["--case", case]
    assert bench.main(args) == 0
    printed = capsys.readouterr().out
    start = printed.index("Machine: ")
    assert _structure(recorded) == _structure(printed[start:])
    assert "<!-- generated: bench-run -->" in (BENCH.parents[1] / "docs" / "performance.md").read_text()
