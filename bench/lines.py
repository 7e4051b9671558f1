#!/usr/bin/env python
"""`errconv convert --lines` on a generated file of error bodies: lines per second and peak memory.

    python bench/lines.py                          # 1,000,000 lines to google, a minute or so
    python bench/lines.py --lines 2000 --to stripe
    python bench/lines.py --json                   # the figures as JSON
    python bench/lines.py --jobs 2                 # convert --lines --jobs 2
    python bench/lines.py --repeat 5 --against ../main/src   # beside another checkout, in turns

The file cycles through the JSON bodies of golden/ (problem, google, status-json and
stripe, every case) with one malformed line in every 10,000 (--bad-every), so the
error path runs too. The command runs as a child process (`python -m errconv convert --lines`), its
stdout read and counted by this process as it streams, so neither side holds the
output. Peak memory is the child's peak resident set (`ru_maxrss`).

Constant memory is shown, not assumed: the same command runs first on a baseline of
1% of the lines (at least 1,000), and both peaks are printed. A streaming converter
has the same peak at 1% and at 100%; one that holds its input or output grows ~100x.

On a shared machine one run says little: `--repeat N` runs the full file N times and
prints the best and the median, and the CPU time the command took (its processes'
user and system time, which other load on the machine inflates far less than the
wall clock). `--against DIR` runs another checkout's `src` (main's, say) in turns with
this one, on the same file, and prints the ratios. The child runs without
PYTHONUNBUFFERED, which a harness may set: it would measure a write per line, not
errconv.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import msgspec

ROOT = pathlib.Path(__file__).resolve().parent.parent
BAD_LINE = b'{"status": 503, "detail": "cut short'


def bodies() -> list[bytes]:
    """Every JSON body in golden/, compact, one line each."""
    out = []
    for name in ("problem", "google", "status-json", "stripe"):
        for path in sorted(ROOT.glob(f"golden/*/{name}.json")):
            out.append(msgspec.json.encode(msgspec.json.decode(path.read_bytes())))
    return out


def generate(path: pathlib.Path, lines: int, bad_every: int) -> int:
    """Write `lines` bodies to `path`, every `bad_every`-th malformed; returns how many are."""
    pool = bodies()
    bad = 0
    with open(path, "wb") as fh:
        chunk = []
        for i in range(1, lines + 1):
            if i % bad_every == 0:
                chunk.append(BAD_LINE)
                bad += 1
            else:
                chunk.append(pool[i % len(pool)])
            if len(chunk) == 10_000:
                fh.write(b"\n".join(chunk) + b"\n")
                chunk.clear()
        if chunk:
            fh.write(b"\n".join(chunk) + b"\n")
    return bad


def _count(stream: Any, into: list[int]) -> None:
    lines = 0
    while block := stream.read(1 << 16):
        lines += block.count(b"\n")
    into.append(lines)


def run(path: pathlib.Path, to: str, src: pathlib.Path = ROOT / "src", jobs: int = 1) -> dict[str, Any]:
    """Convert `path` in a child process; its output lines, error lines, time and peak memory."""
    cmd = [sys.executable, "-m", "errconv", "convert", "--lines", "--to", to, str(path)]
    if jobs > 1:
        cmd[4:4] = ["--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(src) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONUNBUFFERED", None)
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out: list[int] = []
    err: list[int] = []
    readers = [threading.Thread(target=_count, args=(child.stdout, out)), threading.Thread(target=_count, args=(child.stderr, err))]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return {
        "exit": child.returncode,
        "output_lines": out[0],
        "stderr_lines": err[0],
        "seconds": seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,  # the child's, and its workers' (waited for)
        "peak_mib": usage.ru_maxrss / 1024,  # kilobytes on Linux; the largest one process reached
    }


def _figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    rates = [r["lines_per_second"] for r in runs]
    cpu = [r["lines_per_cpu_second"] for r in runs]
    return {
        "best": max(rates), "median": statistics.median(rates), "runs": rates,
        "cpu_best": max(cpu), "cpu_median": statistics.median(cpu),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="bodies in the generated file (default: 1,000,000)")
    parser.add_argument("--to", default="google", help="the output dialect (default: google)")
    parser.add_argument("--bad-every", type=int, default=10_000, help="one malformed line in this many (default: 10,000)")
    parser.add_argument("--jobs", type=int, default=1, help="convert --lines --jobs N (default: 1)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of the full file (default: 1)")
    parser.add_argument("--against", type=pathlib.Path, help="another checkout's src directory, run in turns with this one")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    trees = {"this": ROOT / "src"}
    if args.against is not None:
        trees["against"] = args.against.resolve()
    baseline_lines = min(args.lines, max(args.lines // 100, 1_000))
    baselines: dict[str, dict[str, Any]] = {}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="errconv-lines-") as tmp:
        files = {}
        for label, count in (("baseline", baseline_lines), ("full", args.lines)):
            path = pathlib.Path(tmp) / f"{label}.jsonl"
            files[label] = (path, count, generate(path, count, args.bad_every))
        for name, src in trees.items():
            path, count, bad = files["baseline"]
            result = run(path, args.to, src, args.jobs if name == "this" else 1)
            result.update(lines=count, bad_lines=bad, lines_per_second=count / result["seconds"])
            baselines[name] = result
        for _ in range(args.repeat):
            for name, src in trees.items():  # in turns, so both see the same load
                path, count, bad = files["full"]
                result = run(path, args.to, src, args.jobs if name == "this" else 1)
                result.update(
                    lines=count, bad_lines=bad, lines_per_second=count / result["seconds"],
                    lines_per_cpu_second=count / max(result["cpu_seconds"], 1e-9),
                )  # fmt: skip
                runs[name].append(result)

    mine = runs["this"]
    full = sorted(mine, key=lambda r: r["lines_per_second"])[len(mine) // 2]  # the median run
    base = baselines["this"]
    # One output line per input line, a malformed one's an error line (issue 30), and the
    # run exits 1 when any line failed.
    ok = all(r["output_lines"] == r["lines"] and r["exit"] == (1 if r["bad_lines"] else 0) for r in mine)
    figures = _figures(mine)
    report: dict[str, Any] = {"to": args.to, "jobs": args.jobs, "baseline": base, "full": full, **figures}
    if "against" in runs:
        theirs = _figures(runs["against"])
        pairs = [a["lines_per_second"] / b["lines_per_second"] for a, b in zip(mine, runs["against"])]
        cpu_pairs = [a["lines_per_cpu_second"] / b["lines_per_cpu_second"] for a, b in zip(mine, runs["against"])]
        report["against"] = {
            "src": str(trees["against"]), **theirs, "peak_mib": max(r["peak_mib"] for r in runs["against"]),
            "baseline_peak_mib": baselines["against"]["peak_mib"],
            "ratio_median": statistics.median(pairs), "ratio_best": figures["best"] / theirs["best"],
            "cpu_ratio_median": statistics.median(cpu_pairs),
        }  # fmt: skip
    if args.json:
        print(json.dumps({**report, "consistent": ok}, indent=2))
    else:
        jobs = f" --jobs {args.jobs}" if args.jobs > 1 else ""
        print(f"errconv convert --lines{jobs} --to {args.to}: {full['lines']:,} lines ({full['bad_lines']:,} malformed), {len(mine)} run(s)")
        print(f"  lines per second  {figures['median']:,.0f} median, {figures['best']:,.0f} best ({full['seconds']:.1f} s the median run)")
        print(f"  per CPU second    {figures['cpu_median']:,.0f} median, {figures['cpu_best']:,.0f} best")
        print(f"  peak memory       {full['peak_mib']:.1f} MiB ({base['lines']:,} lines: {base['peak_mib']:.1f} MiB)")
        print(f"  output            {full['output_lines']:,} lines, {full['stderr_lines']:,} lines on stderr, exit {full['exit']}")
        if "against" in report:
            a = report["against"]
            print(f"against {a['src']}: {a['median']:,.0f} median, {a['best']:,.0f} best lines per second; per CPU second {a['cpu_median']:,.0f} median")
            print(f"  peak memory       {a['peak_mib']:.1f} MiB ({base['lines']:,} lines: {a['baseline_peak_mib']:.1f} MiB)")
            print(f"  ratio             {a['ratio_median']:.2f}x (median of the runs in turns), {a['ratio_best']:.2f}x best to best, {a['cpu_ratio_median']:.2f}x per CPU second")
    if not ok:
        print("unexpected output: the counts above do not add up", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
