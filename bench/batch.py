#!/usr/bin/env python
"""`errconv.batch` on mixed real-world bodies: rows per second against a loop of `convert`.

    python bench/batch.py                     # 1,000,000 rows to problem, a minute or two
    python bench/batch.py --rows 20000 --to google
    python bench/batch.py --json

The rows are drawn (seeded) from every capture in tests/realworld/ (266 real error
responses of 26 services, whole HTTP responses and bare bodies with the status they came
with), plus three inputs no dialect reads, so error rows run too. Three figures, measured
in this one process on the same rows, in turns:

- the floor: msgspec decodes each row's body (a whole HTTP response counted as its bytes
  copied) and encodes the parsed value again, the least any converter does per row;
- the loop: `errconv.convert(body, to, status=...)` once per row, catching errors;
- the batch: `errconv.batch.rows(bodies, to=..., status=...)`, and `batch.table` over an
  Arrow column when pyarrow is installed.

A sample drawn from 269 distinct inputs repeats each of them thousands of times, as a log
does, and the batch reads each distinct input once: that is most of its gain, and the
last figure says so: one pass over the distinct inputs alone, batch against loop, where
nothing repeats.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import msgspec

import errconv
from errconv import batch

ROOT = pathlib.Path(__file__).resolve().parent.parent


def corpus() -> list[tuple[bytes, int | None]]:
    out: list[tuple[bytes, int | None]] = []
    for facts in sorted((ROOT / "tests/realworld").glob("*/facts.json")):
        for name, entry in json.loads(facts.read_text()).items():
            path = facts.parent / name
            out.append((path.read_bytes(), None if path.suffix == ".http" else entry["facts"]["status"]))
    return out + [(b"nonsense", None), (b'{"error": ', None), (b"upstream connect error", 503)]


def floor(bodies: list[bytes], statuses: list[int | None]) -> int:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    n = 0
    for body in bodies:
        try:
            encode(decode(body))
        except msgspec.DecodeError:
            bytes(body)  # a whole HTTP response, or text: what no JSON parser reads
        n += 1
    return n


def loop(to: str) -> Callable[[list[bytes], list[int | None]], int]:
    def run(bodies: list[bytes], statuses: list[int | None]) -> int:
        convert, error = errconv.convert, errconv.ErrconvError
        n = 0
        for body, status in zip(bodies, statuses):
            try:
                convert(body, to, status=status)
            except error:
                pass
            n += 1
        return n

    return run


def loop_with_losses(to: str) -> Callable[[list[bytes], list[int | None]], int]:
    def run(bodies: list[bytes], statuses: list[int | None]) -> int:
        decode, encode, losses, error = errconv.decode, errconv.encode, errconv.losses, errconv.ErrconvError
        n = 0
        for body, status in zip(bodies, statuses):
            try:
                fault = decode(body, status=status)
                encode(fault, to)
                losses(fault, to)
            except error:
                pass
            n += 1
        return n

    return run


def rows(to: str) -> Callable[[list[bytes], list[int | None]], int]:
    def run(bodies: list[bytes], statuses: list[int | None]) -> int:
        n = 0
        for _ in batch.rows(bodies, to=to, status=statuses):
            n += 1
        return n

    return run


def arrow(to: str) -> Callable[[list[bytes], list[int | None]], int] | None:
    try:
        import pyarrow as pa
    except ImportError:
        return None

    built: dict[int, tuple[Any, Any]] = {}

    def run(bodies: list[bytes], statuses: list[int | None]) -> int:
        column, status = built[id(bodies)]  # the engine's column, built before the clock starts
        return int(batch.table(column, to=to, status=status).num_rows)

    def prepare(bodies: list[bytes], statuses: list[int | None]) -> None:
        built[id(bodies)] = (pa.array(bodies, pa.binary()), pa.array(statuses, pa.int32()))

    run.prepare = prepare  # type: ignore[attr-defined]

    return run


def timed(fn: Callable[[list[bytes], list[int | None]], int], bodies: list[bytes], statuses: list[int | None]) -> float:
    prepare = getattr(fn, "prepare", None)
    if prepare is not None:
        prepare(bodies, statuses)
    start = time.perf_counter()
    n = fn(bodies, statuses)
    assert n == len(bodies)
    return n / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--to", default="problem")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    pool = corpus()
    rng = random.Random(args.seed)
    picked = [rng.choice(pool) for _ in range(args.rows)]
    bodies = [b for b, _ in picked]
    statuses = [s for _, s in picked]
    figures: dict[str, Any] = {"rows": args.rows, "distinct": len(pool), "to": args.to}
    runs: dict[str, Callable[[list[bytes], list[int | None]], int] | None] = {
        "floor": floor,
        "loop": loop(args.to),
        "batch.rows": rows(args.to),
        "batch.table": arrow(args.to),
    }
    for name, fn in runs.items():
        if fn is not None:
            figures[name] = timed(fn, bodies, statuses)
    # Nothing repeated: each distinct input once, a few passes so the figure is not one blip.
    distinct_bodies = [b for b, _ in pool] * 5
    distinct_statuses = [s for _, s in pool] * 5
    distinct_loop = timed(loop(args.to), distinct_bodies, distinct_statuses)
    distinct_measured = timed(loop_with_losses(args.to), distinct_bodies, distinct_statuses)
    distinct_batch = distinct_rows(args.to, pool)
    figures["distinct: loop"] = distinct_loop
    figures["distinct: batch.rows"] = distinct_batch
    figures["distinct: loop + losses"] = distinct_measured
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{args.rows:,} rows from {len(pool)} distinct real-world inputs, to {args.to}")
    for name in ("floor", "loop", "batch.rows", "batch.table"):
        if name in figures:
            print(f"  {name:<12} {figures[name]:>12,.0f} rows/s   {figures[name] / figures['loop']:5.2f}x the loop   {figures['floor'] / figures[name]:6.1f}x the floor's cost")
    print(f"nothing repeated ({len(pool)} distinct inputs, each read once per pass):")
    print(f"  loop         {distinct_loop:>12,.0f} rows/s")
    print(f"  loop+losses  {distinct_measured:>12,.0f} rows/s   (convert and losses(): the row's `lost` column too)")
    print(f"  batch.rows   {distinct_batch:>12,.0f} rows/s   {distinct_batch / distinct_loop:5.2f}x the loop, {distinct_batch / distinct_measured:5.2f}x loop+losses")
    return 0


def distinct_rows(to: str, pool: list[tuple[bytes, int | None]]) -> float:
    """batch.rows over the distinct inputs, a fresh batch per pass (so nothing is remembered across passes)."""
    start = time.perf_counter()
    n = 0
    for _ in range(5):
        for _ in batch.rows([b for b, _ in pool], to=to, status=[s for _, s in pool]):
            n += 1
    return n / (time.perf_counter() - start)


if __name__ == "__main__":
    sys.exit(main())
