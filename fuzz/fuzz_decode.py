"""Coverage-guided fuzzing of `errconv.decode` on every dialect, with atheris.

    pip install -e '.[fuzz]'
    python fuzz/fuzz_decode.py --seed fuzz/corpus        # the golden files, as seeds
    python fuzz/fuzz_decode.py fuzz/corpus -max_total_time=600 -timeout=10 -rss_limit_mb=4096

An input's first byte picks the dialect (its value modulo 8: problem, google,
status-json, status, grpc, stripe, http, or detection); the rest is what `decode`
gets. For `grpc`, an odd second choice (first byte // 8) gives the trailers as
(key, value) pairs rather than their text form. The contract, checked for every
input:

- `decode` returns a Fault or raises DecodeError, nothing else (the safety net that
  turns stray exceptions into DecodeError is off, so that bugs surface);
- it returns within 0.5 s plus 3 µs a byte;
- a decoded Fault encodes in every dialect, and every header an http+ encoder writes
  and every grpc trailer value is printable ASCII (no CR, LF or NUL).

A failure raises, and libFuzzer saves the input as `crash-<sha1>` for a regression test.
"""

from __future__ import annotations

import pathlib
import re
import sys
import time

import atheris

with atheris.instrument_imports():
    import errconv
    from errconv import _api

NAMES = ("problem", "google", "status-json", "status", "grpc", "stripe", "http", None)
TARGETS = tuple(errconv.DIALECTS)
NOW = 1_800_000_000.0
BASE_SECONDS, PER_BYTE_SECONDS = 0.5, 3e-6
_HEADER = re.compile(rb"[A-Za-z0-9-]+: [\x20-\x7e]*")
_VALUE = re.compile(r"[\x20-\x7e]*")

ROOT = pathlib.Path(__file__).resolve().parent.parent
FILES = {
    "problem.json": "problem",
    "google.json": "google",
    "status-json.json": "status-json",
    "status.binpb": "status",
    "grpc.txt": "grpc",
    "stripe.json": "stripe",
    "http-problem.http": "http",
    "http-google.http": "http",
    "http-stripe.http": "http",
}


def _pairs(text: bytes) -> list[tuple[str, str | bytes]]:
    pairs: list[tuple[str, str | bytes]] = []
    for line in text.split(b"\n"):
        key, sep, value = line.partition(b":")
        if sep:
            k = key.strip().decode("latin-1").lower()
            pairs.append((k, value.strip() if k.endswith("-bin") else value.strip().decode("latin-1")))
    return pairs


def check_output(out: object, target: str) -> None:
    if target.startswith("http"):
        assert isinstance(out, bytes)
        head = out.partition(b"\r\n\r\n")[0].split(b"\r\n")
        assert re.fullmatch(rb"HTTP/1\.1 [1-5][0-9][0-9] [\x20-\x7e]+", head[0]), head[0]
        for line in head[1:]:
            assert _HEADER.fullmatch(line), f"unsafe header {line[:80]!r}"
    elif target == "grpc":
        for key, value in out:  # type: ignore[attr-defined]
            if not key.endswith("-bin"):
                assert _VALUE.fullmatch(value), f"unsafe trailer {key}: {value[:80]!r}"


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    name = NAMES[data[0] % len(NAMES)]
    body: object = data[1:]
    if name == "grpc" and (data[0] // len(NAMES)) % 2:
        body = _pairs(data[1:])
    start = time.perf_counter()
    try:
        fault = errconv.decode(body, name, now=NOW)
    except errconv.DecodeError:
        fault = None
    elapsed = time.perf_counter() - start
    if elapsed > BASE_SECONDS + PER_BYTE_SECONDS * len(data):
        raise AssertionError(f"decoding {len(data)} bytes as {name} took {elapsed:.2f}s")
    if fault is None:
        return
    for target in TARGETS:
        check_output(errconv.encode(fault, target), target)


def write_seeds(directory: pathlib.Path) -> None:
    """Each golden file (and source) with the dialect byte in front."""
    directory.mkdir(parents=True, exist_ok=True)
    count = 0
    for case in sorted((ROOT / "golden").iterdir()):
        if not case.is_dir():
            continue
        for path in sorted(case.iterdir()):
            dialect = FILES.get(path.name)
            if dialect is None and path.name.startswith("source"):
                dialect = {".json": "google", ".http": "http", ".txt": "grpc"}.get(path.suffix)
            if dialect is None:
                continue
            (directory / f"{case.name}-{path.name}").write_bytes(bytes([NAMES.index(dialect)]) + path.read_bytes())
            count += 1
    print(f"wrote {count} seeds to {directory}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--seed":
        write_seeds(pathlib.Path(sys.argv[2]))
        return
    _api._SAFETY_NET = False
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
