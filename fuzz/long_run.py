"""A long hypothesis run of the fuzz suite that counts what it finds.

    .venv/bin/python fuzz/long_run.py --minutes 10

Runs the checks of tests/test_fuzz.py (decode contract on every dialect and detection,
the time budget, sanity of every Fault, output safety of every encoder, round trips)
on mutated golden files and on random bytes until the time is up. It does not stop at
a failure: failures are grouped by signature (exception type and the errconv or test
line that raised it), the first input of each is saved to fuzz/findings/, and at the
end it prints the figures: inputs tried, decodes, distinct failures, slowest decode.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time
import traceback
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_fuzz as tf  # noqa: E402
from errconv import _api  # noqa: E402
from fuzz_inputs import inputs  # noqa: E402


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
    args = parser.parse_args()
    _api._SAFETY_NET = False
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

    start = time.time()
    deadline = start + args.minutes * 60
    batches = 0
    while time.time() < deadline:
        mutated()
        if batches % 4 == 3:
            random_bytes()
        batches += 1
    elapsed, size, name, data = tf.STATS["slowest"]
    print(f"ran {time.time() - start:.0f} s: {tf.STATS['inputs']} inputs, {tf.STATS['decodes']} decodes, {tf.STATS['faults']} faults")
    print(f"slowest decode: {elapsed * 1000:.1f} ms, {size} bytes as {name}: {data[:100]!r}")
    print(f"distinct failures: {len(found)}")
    for key, (dialect, sample, message) in found.items():
        print(f"- {key}\n    from {dialect}: {sample[:160]!r}\n    {message}")


if __name__ == "__main__":
    main()
