"""Coverage-guided fuzzing of `errconv.decode` on every registered dialect, with atheris.

    pip install -e '.[test]'        # atheris is in the test extra (and the fuzz extra)
    python fuzz/fuzz_decode.py --seed fuzz/corpus        # golden files and real-world captures, as seeds
    nice -n 10 python fuzz/fuzz_decode.py fuzz/corpus -max_total_time=600 -timeout=10 -rss_limit_mb=4096

An input's first byte picks the dialect (its value modulo the number of registered
dialects plus one, in registry order, the last being detection); the rest is what
`decode` gets. For `grpc`, an odd second choice (first byte // that number) gives the
trailers as (key, value) pairs rather than their text form. The contract is the fuzz
suite's (tests/hostile/test_fuzz.py), checked for every input:

- `decode` returns a Fault or raises DecodeError (a one-line message), nothing else:
  the safety net that turns stray exceptions into DecodeError is off, so bugs surface;
- it returns within 0.5 s plus 3 µs a byte, and the Fault is sane (a real status and
  code, a whole capped delay, no string past Limits.max_string);
- that Fault encodes in every writer, what each writes is safe (headers and trailers
  printable ASCII, no CR, LF or NUL; trailers within 8 KiB; no DebugInfo past http+),
  and its decoder reads it back as the same Fault minus what `errconv.losses` names.

A failure raises, and libFuzzer saves the input as `crash-<sha1>` for a regression test.
"""

from __future__ import annotations

import pathlib
import sys

import atheris

ROOT = pathlib.Path(__file__).resolve().parent.parent

with atheris.instrument_imports(include=["errconv"]):
    import errconv
    from errconv import dialects
    from errconv._pipeline import api as _api

    dialects.names()  # the registry loads every dialect module now, inside the block, so they are instrumented too
    import errconv.gateway  # noqa: F401  (to_http's error kinds, imported lazily otherwise)

sys.path.insert(0, str(ROOT / "tests" / "support"))
sys.path.insert(0, str(ROOT / "tests" / "hostile"))  # test_fuzz: the checks
import test_fuzz as tf  # noqa: E402  (the checks; errconv is instrumented already)
from fuzz_inputs import as_pairs  # noqa: E402

NAMES: tuple[str | None, ...] = (*(d.name for d in dialects.registered()), None)


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    name = NAMES[data[0] % len(NAMES)]
    body: object = data[1:]
    if name == "grpc" and (data[0] // len(NAMES)) % 2:
        body = as_pairs(data[1:]) or []
    for fault in tf.decode_all(body, (name,)):
        tf.check_round_trip(fault)


def write_seeds(directory: pathlib.Path) -> None:
    """Each seed of the fuzz suite (golden files, sources, real-world captures) with the
    byte of its dialect in front."""
    from fuzz_inputs import SEEDS

    directory.mkdir(parents=True, exist_ok=True)
    for i, (label, data) in enumerate(SEEDS):
        name = tf._decode_name(label)
        (directory / f"seed-{i:04d}-{label.replace('+', '-')}").write_bytes(bytes([NAMES.index(name)]) + data)
    print(f"wrote {len(SEEDS)} seeds to {directory}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--seed":
        write_seeds(pathlib.Path(sys.argv[2]))
        return
    _api._SAFETY_NET = False
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
