"""A long hypothesis run of the fuzz suite that counts what it finds.

    nice -n 10 .venv/bin/python fuzz/long_run.py --minutes 10 --round-trip-every 8 --large-every 10

Runs the checks of tests/hostile/test_fuzz.py (decode contract on every registered dialect
and detection, the time budget, sanity of every Fault, output safety of every
encoder, round trips, and the seams from_http/to_http/from_grpc/to_grpc) on mutated
golden files and real-world captures and on random bytes until the time is up. Every
input is decoded as every dialect; with `--round-trip-every N` only one input in N
sends its faults through every writer (the costly part), so the decoders see more
inputs in the time; with `--large-every N` one batch in N draws the enormous values
(megabyte strings, 200,000-deep nesting, 100,000-fold repeats) and the others keep
each hostile value under 4 KB. It does not stop at a failure: failures are grouped by signature
(exception type and the errconv or test line that raised it), the first input of each
is saved to fuzz/findings/, and at the end it prints the figures: inputs, decodes per
dialect, inputs per seed dialect, calls per seam, distinct failures, slowest decode.

With `--surfaces all` (or a comma list of SURFACES) each batch also drives one of the
surfaces around the decoders, in turn, with the checks of tests/hostile/test_fuzz_surfaces.py
(exception readers, the agents core and the MCP adapter, the clients' core and httpx
transport, the catalog loader and catalog.fault), and the figures count inputs per
surface; `--only-surfaces` leaves the decoders out:

    nice -n 10 .venv/bin/python fuzz/long_run.py --minutes 10 --jobs 2 --surfaces all --only-surfaces
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "tests" / "hostile"))  # test_fuzz and test_fuzz_surfaces: the checks

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_fuzz as tf  # noqa: E402
import test_fuzz_surfaces as tsf  # noqa: E402
from errconv._pipeline import api as _api  # noqa: E402
import fuzz_inputs  # noqa: E402
from fuzz_inputs import inputs  # noqa: E402


# Each surface: its strategy (hypothesis) and its check, from tests/hostile/test_fuzz_surfaces.py.
SURFACES: dict[str, tuple[Any, Any]] = {
    "from_exception": (st.tuples(tsf.hostile_exceptions()), tsf.check_from_exception),
    "agents": (st.tuples(tsf.hostile_exceptions(), tsf.tool_arguments(), st.sampled_from((0.0, 1.0, 29.0, 86_400.0))), tsf.check_agents),
    "call_key": (st.tuples(tsf.tool_arguments()), tsf.check_call_key),
    "call_key_meaning": (st.tuples(tsf._MEANING_VALUES, tsf._MEANING_VALUES), tsf.check_call_key_meaning),
    "mcp": (st.tuples(tsf.hostile_exceptions(), tsf.tool_arguments()), tsf.check_mcp_wrap),
    "model_text": (tsf.model_faults(), tsf.check_model_faults),
    "clients_core": (st.tuples(st.lists(tsf.client_responses(), min_size=1, max_size=4), tsf.policies()), tsf.check_client_core),
    "clients_transport": (
        st.tuples(st.lists(tsf.client_responses(), min_size=1, max_size=4), tsf.policies(), st.booleans()),
        tsf.check_transport,
    ),
    "clients_exceptions": (st.tuples(tsf.hostile_exceptions()), tsf.check_client_exceptions),
    "catalog_load": (st.tuples(tsf.catalog_texts()), tsf.check_catalog_load),
    "catalog_fault": (tsf.fault_calls(), tsf.check_catalog_fault),
    "redaction": (tsf.redaction_texts(), tsf.check_redaction),
}


def safe_repr(value: Any) -> bytes:
    """What a finding's file holds: the input's repr, or its type where repr raises."""
    try:
        return repr(value)[:100_000].encode("utf-8", "backslashreplace")
    except Exception:  # a hostile __repr__, an int past the digit limit
        return f"<{type(value).__name__}: no repr>".encode()


def signature(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/errconv/" in f.filename or "test_fuzz" in f.filename]
    last = (ours or frames)[-1]
    return f"{type(exc).__name__} at {os.path.basename(last.filename)}:{last.lineno}: {(last.line or '').strip()[:80]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--batch", type=int, default=200, help="examples per hypothesis run")
    parser.add_argument("--findings", type=pathlib.Path, default=ROOT / "fuzz" / "findings")
    parser.add_argument("--round-trip-every", type=int, default=1, help="send one input's faults in N through every writer")
    parser.add_argument("--large-every", type=int, default=1, help="one batch in N with the enormous values; the others under 4 KB each")
    parser.add_argument("--jobs", type=int, default=1, help="runs side by side (processes), their figures added up")
    parser.add_argument("--surfaces", default="", help=f"'all' or a comma list of: {', '.join(SURFACES)}")
    parser.add_argument("--only-surfaces", action="store_true", help="drive the surfaces only, not the decoders")
    parser.add_argument("--report", type=pathlib.Path, help=argparse.SUPPRESS)  # a job's figures, as JSON, for --jobs
    args = parser.parse_args()
    surfaces = list(SURFACES) if args.surfaces == "all" else [n for n in args.surfaces.split(",") if n]
    unknown = [n for n in surfaces if n not in SURFACES]
    if unknown:
        parser.error(f"unknown surfaces: {', '.join(unknown)} (known: {', '.join(SURFACES)})")
    if args.only_surfaces and not surfaces:
        parser.error("--only-surfaces needs --surfaces")
    if args.jobs > 1:
        run_jobs(args)
        return
    _api._SAFETY_NET = False
    tf.ROUND_TRIP_EVERY = max(1, args.round_trip_every)
    tsf.SMALL_DRAWS = False  # the batch's size (--large-every) holds for the surfaces too
    slowest: dict[str, float] = {}
    found: dict[str, tuple[str, bytes, str]] = {}

    def record(dialect: str, data: bytes, run: Any) -> None:
        try:
            run()
        except Exception as exc:  # every failure is a finding; none stops the run
            key = signature(exc)
            if key not in found:
                found[key] = (dialect, data, str(exc).splitlines()[0][:300] if str(exc) else "")
                args.findings.mkdir(parents=True, exist_ok=True)
                (args.findings / f"finding-{len(found)}-{dialect}.bin").write_bytes(data)

    run_settings = settings(
        max_examples=args.batch,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )

    @run_settings
    @given(inputs())
    def mutated(sample: tuple[str, bytes]) -> None:
        record(sample[0], sample[1], lambda: tf.test_mutated_golden_files_decode_or_raise_decode_error.hypothesis.inner_test(sample))

    @run_settings
    @given(st.binary(max_size=2048))
    def random_bytes(data: bytes) -> None:
        record("random", data, lambda: tf.test_random_bytes_decode_or_raise_decode_error.hypothesis.inner_test(data))

    def surface(name: str) -> Any:
        strategy, check = SURFACES[name]

        @run_settings
        @given(strategy)
        def run(parts: Any) -> None:
            started = time.perf_counter()
            record(name, safe_repr(parts), lambda: check(*parts))
            slowest[name] = max(slowest.get(name, 0.0), time.perf_counter() - started)

        return run

    surface_runs = [surface(name) for name in surfaces]

    def seam(name: str, strategy: Any, test: Any, spread: bool = False) -> Any:
        @run_settings
        @given(strategy)
        def run(parts: Any) -> None:
            inner = test.hypothesis.inner_test
            record(name, repr(parts)[:100_000].encode(), (lambda: inner(*parts)) if spread else (lambda: inner(parts)))

        return run

    paths = st.sampled_from((None, "/a b", "\ud800", "x\r\ny"))
    budgets = st.sampled_from((0, 1, 64, 300, 1000, 8192, 1 << 20))
    seams = [
        seam("from_http", tf.http_parts(), tf.test_from_http_gives_a_fault_or_a_decode_error),
        seam("from_grpc", tf.grpc_parts(), tf.test_from_grpc_gives_a_fault_or_a_decode_error),
        seam(
            "to_http",
            st.tuples(tf.errors_for_to_http(), st.sampled_from(tf.DIALECT_NAMES), st.sampled_from(tf.ACCEPTS), paths, st.booleans()),
            tf.test_to_http_gives_a_well_formed_response_or_an_errconv_error,
            spread=True,
        ),
        seam("to_grpc", st.tuples(inputs(), budgets, st.booleans()), tf.test_to_grpc_writes_safe_trailers_within_the_budget, spread=True),
    ]

    start = time.time()
    deadline = start + args.minutes * 60
    batches = 0
    while time.time() < deadline:
        fuzz_inputs.set_large(batches % max(1, args.large_every) == 0)
        if not args.only_surfaces:
            mutated()
            if batches % 4 == 3:
                random_bytes()
            if batches % 8 == 7:
                seams[(batches // 8) % len(seams)]()
        if surface_runs:
            which = batches % len(surface_runs)
            try:
                surface_runs[which]()
            except Exception as exc:  # hypothesis itself refused a run (a flaky strategy): a finding, not the end
                record(surfaces[which], b"<hypothesis>", lambda: (_ for _ in ()).throw(exc))
        batches += 1
    elapsed, size, name, data = tf.STATS["slowest"]
    stats = tf.STATS
    report = {
        "seconds": time.time() - start,
        "jobs": 1,
        **{k: stats[k] for k in ("inputs", "decodes", "faults", "round_trips")},
        **{k: {str(n): v for n, v in stats[k].items()} for k in ("by_name", "seams", "by_seed")},
        "slowest": [elapsed, size, str(name), repr(data[:100])],
        "surfaces": dict(tsf.STATS),
        "surface_slowest": slowest,
        "failures": {key: [dialect, repr(sample[:160]), message] for key, (dialect, sample, message) in found.items()},
    }
    if args.report is not None:
        args.report.write_text(json.dumps(report))
    else:
        show(report)


def run_jobs(args: argparse.Namespace) -> None:
    """`args.jobs` runs side by side, each in its own interpreter (its own random seed),
    their figures added up."""
    with tempfile.TemporaryDirectory() as tmp:
        reports = [pathlib.Path(tmp) / f"job-{i}.json" for i in range(args.jobs)]
        command = [sys.executable, __file__, "--minutes", str(args.minutes), "--batch", str(args.batch),
                   "--findings", str(args.findings), "--round-trip-every", str(args.round_trip_every),
                   "--large-every", str(args.large_every), "--surfaces", args.surfaces,
                   *(["--only-surfaces"] if args.only_surfaces else [])]  # fmt: skip
        jobs = [subprocess.Popen([*command, "--report", str(path)]) for path in reports]
        for job in jobs:
            job.wait()
        parts = [json.loads(path.read_text()) for path in reports if path.exists()]
        if len(parts) < len(reports):
            print(f"{len(reports) - len(parts)} job(s) stopped without figures (see their output above)")
        if not parts:
            raise SystemExit(1)
    total: dict[str, Any] = {"seconds": max(p["seconds"] for p in parts), "jobs": len(parts), "failures": {}}
    for key in ("inputs", "decodes", "faults", "round_trips"):
        total[key] = sum(p[key] for p in parts)
    total["surface_slowest"] = {}
    for p in parts:
        for key, value in p["surface_slowest"].items():
            total["surface_slowest"][key] = max(value, total["surface_slowest"].get(key, 0.0))
    for key in ("by_name", "seams", "by_seed", "surfaces"):
        merged: collections.Counter[str] = collections.Counter()
        for p in parts:
            merged.update(p[key])
        total[key] = dict(merged)
    total["slowest"] = max((p["slowest"] for p in parts), key=lambda s: s[0])
    for p in parts:
        for key, value in p["failures"].items():
            total["failures"].setdefault(key, value)
    show(total)


def show(report: dict[str, Any]) -> None:
    if not report["inputs"]:  # --only-surfaces
        print(f"ran {report['seconds']:.0f} s in {report['jobs']} job(s): {sum(report['surfaces'].values())} inputs to the surfaces")
    else:
        show_decoders(report)
    if report["surfaces"]:
        slow = report["surface_slowest"]
        print("inputs per surface: " + ", ".join(f"{k} {v}" for k, v in sorted(report["surfaces"].items())))
        print("slowest input per surface: " + ", ".join(f"{k} {slow[k] * 1000:.0f} ms" for k in sorted(slow)))
    print(f"distinct failures: {len(report['failures'])}")
    for key, (dialect, sample, message) in report["failures"].items():
        print(f"- {key}\n    from {dialect}: {sample}\n    {message}")


def show_decoders(report: dict[str, Any]) -> None:
    by_name = report["by_name"]
    print(f"ran {report['seconds']:.0f} s in {report['jobs']} job(s): {report['inputs']} inputs, {report['decodes']} decodes,"
          f" {report['faults']} faults, {report['round_trips']} inputs' faults through every writer ({len(tf.TARGETS)} writers)")
    print("decodes per dialect: " + ", ".join(f"{'detected' if k == 'None' else k} {v}" for k, v in sorted(by_name.items())))
    print(f"fewest decodes of one dialect: {min(by_name.values()) if by_name else 0}")
    print("mutated inputs per seed dialect: " + ", ".join(f"{k} {v}" for k, v in sorted(report["by_seed"].items())))
    print("seam calls: " + ", ".join(f"{k} {v}" for k, v in sorted(report["seams"].items())))
    elapsed, size, name, data = report["slowest"]
    print(f"slowest decode: {elapsed * 1000:.1f} ms, {size} bytes as {name}: {data}")


if __name__ == "__main__":
    main()
