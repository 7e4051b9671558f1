#!/usr/bin/env python
"""`errconv convert --lines` on a generated file of error bodies: lines per second and peak memory.

    python bench/lines.py                          # 1,000,000 lines to google, a minute or so
    python bench/lines.py --lines 2000 --to stripe
    python bench/lines.py --json                   # the figures as JSON

The file cycles through the JSON bodies of golden/ (problem, google, status-json and
stripe, every case) with one malformed line in every 10,000 (--bad-every), so the
error path runs too. The command runs as a child process (`python -m errconv convert --lines`), its
stdout read and counted by this process as it streams, so neither side holds the
output. Peak memory is the child's peak resident set (`ru_maxrss`).

Constant memory is shown, not assumed: the same command runs first on a baseline of
1% of the lines (at least 1,000), and both peaks are printed. A streaming converter
has the same peak at 1% and at 100%; one that holds its input or output grows ~100x.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
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


def run(path: pathlib.Path, to: str) -> dict[str, Any]:
    """Convert `path` in a child process; its output lines, error lines, time and peak memory."""
    cmd = [sys.executable, "-m", "errconv", "convert", "--lines", "--to", to, str(path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
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
        "peak_mib": usage.ru_maxrss / 1024,  # kilobytes on Linux
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="bodies in the generated file (default: 1,000,000)")
    parser.add_argument("--to", default="google", help="the output dialect (default: google)")
    parser.add_argument("--bad-every", type=int, default=10_000, help="one malformed line in this many (default: 10,000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    baseline_lines = min(args.lines, max(args.lines // 100, 1_000))
    with tempfile.TemporaryDirectory(prefix="errconv-lines-") as tmp:
        results = {}
        for label, count in (("baseline", baseline_lines), ("full", args.lines)):
            path = pathlib.Path(tmp) / f"{label}.jsonl"
            bad = generate(path, count, args.bad_every)
            result = run(path, args.to)
            path.unlink()
            result.update(lines=count, bad_lines=bad, lines_per_second=count / result["seconds"])
            results[label] = result

    full, base = results["full"], results["baseline"]
    ok = full["output_lines"] == full["lines"] - full["bad_lines"] and full["exit"] == (1 if full["bad_lines"] else 0)
    if args.json:
        print(json.dumps({"to": args.to, **results, "consistent": ok}, indent=2))
    else:
        print(f"errconv convert --lines --to {args.to}: {full['lines']:,} lines ({full['bad_lines']:,} malformed) in {full['seconds']:.1f} s")
        print(f"  lines per second  {full['lines_per_second']:,.0f}")
        print(f"  peak memory       {full['peak_mib']:.1f} MiB ({base['lines']:,} lines: {base['peak_mib']:.1f} MiB)")
        print(f"  output            {full['output_lines']:,} lines, {full['stderr_lines']:,} lines on stderr, exit {full['exit']}")
    if not ok:
        print("unexpected output: the counts above do not add up", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
