"""`convert --lines` measures losses once per shape of fault: the cache must answer what
`errconv.losses` measures, and `--jobs N` must write what one process writes.

The cache's claim is that two faults of one `shape()` lose the same fields in every
dialect. It is checked where it could fail: each golden fault and each fault the fuzz
corpus decodes, beside a twin of the same shape whose free text (and the extension
numbers kept by class) is replaced by other text, hostile text among it (the words
MCP reads a code from, OpenAI's "Limit: ..., Requested: ...", durations, numbers,
status words, paths, URLs, non-ASCII, long text); the losses of the two must be equal
for every dialect --lines writes.
"""

from __future__ import annotations

import base64
import io
import pathlib
import random
import subprocess
import sys
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings

import errconv
import golden_corpus as gc
from errconv import _cli as cli
from errconv import dialects
from errconv._model.fault import Fault, Violation
from errconv._batch import _EXACT_MEMBERS, LossCache, shape
from errconv.codes import code_name, reason_phrase
from errconv.details import LocalizedMessage
from fuzz_inputs import inputs

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Every dialect --lines writes (one line a body).
TARGETS = tuple(n for n in dialects.names() if dialects.get(n).one_line and dialects.get(n).encodes)

HOSTILE_TEXT = (
    "rate limited", "Too many requests", "not found", "does not exist", "permission denied", "unauthorized",
    "invalid api key", "timed out", "deadline exceeded", "temporarily unavailable", "try again later",
    "must be a number", "missing required field", "unknown tool", "forbidden",
    "Limit: 10, Requested: 20", "Rate limit reached. Limit 3, Used 3, Requested 1.",
    "Limit: 1,000, Used: 999, Requested: 2", "30s", "1.5s", "15m", "100ms", "30", "0", "-1", "429", "503", "8",
    "code_5", "RATE_LIMITED", "rate_limited", "NOT_FOUND", "wait", "give_up", "fix_request", "true", "null",
    "{}", "[]", "about:blank", "https://example.com/rate-limit", "https://docs.github.com/rest/ratelimit",
    "/a/b/0", "a.b[0]", "a[b]", "#/components", "ElasticsearchException[boom]", "ValidationException",
    "x", "naïve ✓ 東京", "é", "Ünïcödé 🙂", "a" * 300, "word " * 200, "Internal Server Error", "Bad Request",
)  # fmt: skip


ODD_TEXT = ("", " ", "\n", "tab\there", "nul\x00", "\x7f", "\u2028", "\ufeff", "lone \ud800", "\\", '"')
NUMBERS = (0, 1, -1, 2, 30, 429, 2**31 - 1, 2**31, -(2**31), 2**53, 2**53 + 1, 2**63, 10**30)
FLOATS = (0.0, 0.5, -1.5, 30.0, 1e300, 2.0**60, 2.0**53 + 2, 5e-324)


class _Twin:
    """A fault like another, some of its values replaced: any string by hostile, odd
    or the fault's own other text, any number by another (a delay, a detail's number,
    an extension's), sometimes a name dropped from or added to `origin.inferred`.

    Replacements pay no heed to what `shape()` keeps: a twin of the same shape is a
    claim of the cache's to check, whatever was replaced."""

    def __init__(self, fault: Fault, rng: random.Random, rate: float) -> None:
        self.rng = rng
        self.rate = rate  # the share of values replaced; 0: exactly one
        self.own: list[str] = []
        self._collect(msgspec.to_builtins(fault.replace(origin=None)))
        self.map: dict[str, str] = {}
        self.leaf, self.one = 0, -1
        if rate == 0:  # count the values, then pick one
            self.any(fault.replace(origin=None))
            self.leaf, self.one = 0, rng.randrange(max(1, self.leaf))

    def _hit(self) -> bool:
        if self.rate == 0:
            self.leaf += 1
            return self.leaf - 1 == self.one
        return self.rng.random() < self.rate

    def _collect(self, value: Any) -> None:
        if type(value) is str:
            self.own.append(value)
        elif type(value) is dict:
            for k, v in value.items():
                self.own.append(k)
                self._collect(v)
        elif type(value) is list:
            for v in value:
                self._collect(v)

    def text(self, value: str) -> str:
        if not self._hit():
            return value
        if value in self.map and self.rng.random() < 0.8:
            return self.map[value]  # mostly one replacement a text, so equal texts stay equal
        pick = self.rng.random()
        if pick < 0.55:
            found = self.rng.choice(HOSTILE_TEXT)
        elif pick < 0.7:
            found = self.rng.choice(self.own) if self.own else value
        elif pick < 0.8:
            found = self.rng.choice(ODD_TEXT)
        else:
            found = f"text {self.rng.randrange(10**9)}"
        self.map[value] = found
        return found

    def number(self, value: int | float) -> int | float:
        if not self._hit():
            return value
        if type(value) is float:
            return self.rng.choice(FLOATS)
        return self.rng.choice(NUMBERS) if self.rng.random() < 0.7 else self.rng.randrange(-(10**6), 10**6)

    def any(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return self.text(value)
        if kind is int or kind is float:
            return self.number(value)
        if kind is dict:
            return {k: self.any(v) for k, v in value.items()}
        if kind is list or kind is tuple:
            return kind(self.any(v) for v in value)
        if isinstance(value, msgspec.Struct):
            changes = {}
            for f in value.__struct_fields__:
                v = getattr(value, f)
                if type(v) is int and f in ("status", "grpc_code"):
                    continue  # typed codes: another value is another fault, no twin
                changes[f] = self.any(v) if type(v) is not int or v >= 0 else v
            return msgspec.structs.replace(value, **changes)
        return value  # None, bools, enums, bytes

    def of(self, fault: Fault) -> Fault:
        other = self.any(fault.replace(origin=None))
        delay = fault.retry_after_seconds
        if delay is not None:
            other = other.replace(retry_after_seconds=max(0, min(int(other.retry_after_seconds), 10**9)))
        origin = fault.origin or errconv.Origin()
        inferred = origin.inferred
        if self.rng.random() < max(self.rate, 0.1) / 3:
            inferred = inferred[1:] if inferred and self.rng.random() < 0.5 else (*inferred, self.rng.choice(("param", "code", "next_step")))
        return other.replace(origin=msgspec.structs.replace(origin, inferred=inferred))


def _losses(fault: Fault, target: str) -> tuple[str, ...] | str:
    try:
        return errconv.losses(fault, target)
    except errconv.ErrconvError as exc:
        return type(exc).__name__


def _same_losses(fault: Fault, seed: int, twins: int = 24) -> int:
    """Twins of `fault` of its shape lose what it loses in every target, and the cache
    answers for `fault` what it measured on such a twin. Returns how many such twins differed from it."""
    key = shape(fault)
    rng = random.Random(seed)
    alike = []
    for i in range(twins):
        other = _Twin(fault, rng, rate=(0, 0, 0, 0.15, 0, 0, 0.4, 1.0)[i % 8]).of(fault)
        if shape(other) == key:
            alike.append(other)
    for target in TARGETS:
        codec = dialects.get(target)
        expected = _losses(fault, target)
        for other in alike:
            assert _losses(other, target) == expected, (target, fault, other)
            if isinstance(expected, tuple):
                cache = LossCache(codec)
                cache.losses(other, errconv.encode(other, target))
                assert cache.losses(fault, errconv.encode(fault, target)) == expected
                assert len(cache.known) == 1
    return sum(other != fault or other.origin != fault.origin for other in alike)


def _golden_inputs() -> list[tuple[str, str, bytes]]:
    """Every golden file a line can hold: the JSON bodies, and Status bytes (as base64 with --from status)."""
    found = []
    for case in gc.cases():
        for dialect, name in gc.FILES.items():
            path = case / name
            if path.exists() and (name.endswith(".json") or dialect == "status") and dialect != "fault":
                found.append((case.name, dialect, path.read_bytes()))
    return found


GOLDEN = _golden_inputs()


CHECKED = {"golden": 0, "golden with twins": 0, "fuzzed": 0, "fuzzed twins": 0}


@pytest.mark.parametrize(("case", "dialect", "data"), GOLDEN, ids=[f"{c}-{d}" for c, d, _ in GOLDEN])
def test_cached_losses_equal_measured_on_golden(case: str, dialect: str, data: bytes) -> None:
    fault = errconv.decode(data, dialect)
    CHECKED["golden"] += 1
    CHECKED["golden with twins"] += _same_losses(fault, seed=len(data)) > 0


def test_most_golden_faults_had_twins_of_their_shape() -> None:
    # Runs after the test above (file order). A fault whose only text is its status's
    # reason phrase has no twin of its shape; most have several.
    assert CHECKED["golden"] == len(GOLDEN)
    assert CHECKED["golden with twins"] >= len(GOLDEN) * 3 // 4, CHECKED


def test_golden_faults_of_one_shape_lose_the_same() -> None:
    # Faults read from different files of the corpus may share a shape: each group is a check too.
    groups: dict[Any, list[Fault]] = {}
    for _, dialect, data in GOLDEN:
        fault = errconv.decode(data, dialect)
        groups.setdefault(shape(fault), []).append(fault)
    for faults in groups.values():
        for target in TARGETS:
            assert len({_losses(f, target) for f in faults}) == 1, (target, faults)


def test_golden_corpus_has_every_kind_of_member_a_shape_reduces() -> None:
    faults = [errconv.decode(data, dialect) for _, dialect, data in GOLDEN]
    assert any(f.detail for f in faults) and any(f.instance for f in faults)
    assert any(f.extensions for f in faults) and any(f.alternatives for f in faults)
    assert any(f.details for f in faults) and any(f.metadata for f in faults) and any(f.violations for f in faults)


@settings(max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(inputs())
def test_cached_losses_equal_measured_on_the_fuzz_corpus(case: tuple[str, bytes]) -> None:
    dialect, data = case
    name: str | None = "http" if dialect.startswith("http+") else dialect
    if name == "unknown":  # a capture of no dialect's (tests/realworld labels it so): detected
        name = None
    try:
        fault = errconv.decode(data, name)
    except errconv.DecodeError:
        return  # the corpus is hostile: many inputs decode to nothing, which has no losses
    CHECKED["fuzzed"] += 1
    CHECKED["fuzzed twins"] += _same_losses(fault, seed=len(data), twins=16)


def test_the_fuzz_corpus_gave_faults_and_twins() -> None:
    # Runs after the fuzz test (file order): it checked something. The floor is under what
    # runs give (52 faults and 274 twins alone, 44 and 128 in a whole CI run, where the
    # registry the inputs are drawn from can hold the suite's plugin dialect): it varies with
    # what the inputs decode to, not with the cache.
    assert CHECKED["fuzzed"] >= 30 and CHECKED["fuzzed twins"] >= 80, CHECKED


# --------------------------------------------------------------------------- --jobs


def _mixed_file(path: pathlib.Path, count: int) -> bytes:
    """JSON Lines of every golden JSON body, with bad, blank, CRLF-ended and oversized lines among them."""
    bodies = [msgspec.json.encode(msgspec.json.decode(p.read_bytes())) for p in sorted(ROOT.glob("golden/*/*.json"))]
    bad = [b"hello", b'{"status": 503, "detail": "cut short', b"[]", b"{}", b"", b"  ", b"\xff\xfe", b'{"error": 5}']
    rng = random.Random(7)
    lines = []
    for i in range(count):
        if i == count // 2:
            lines.append(b'{"detail": "' + b"x" * errconv.Limits().max_bytes + b'"}')  # over the limit: skipped
        elif rng.random() < 0.04:
            lines.append(rng.choice(bad))
        else:
            lines.append(rng.choice(bodies) + (b"\r" if rng.random() < 0.1 else b""))
    data = b"\n".join(lines)  # the last line without its newline
    path.write_bytes(data)
    return data


def _run(*args: str) -> tuple[int, bytes, bytes]:
    proc = subprocess.run([sys.executable, "-m", "errconv", "convert", "--lines", *args], capture_output=True, check=False, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("args", [("--to", "google"), ("--to", "stripe", "--strict"), ("--to", "status")])
def test_jobs_write_what_one_process_writes(tmp_path: pathlib.Path, args: tuple[str, ...]) -> None:
    from errconv._cli import lines as _lines

    path = tmp_path / "mixed.jsonl"
    count = 3 * _lines.CHUNK_LINES + 123  # several shares each for two processes
    _mixed_file(path, count)
    one = _run(*args, "--jobs", "1", str(path))
    assert one[0] == 1 and one[2].count(b"\n") > count // 50  # bad lines, reported
    assert one[1].count(b"\n") > count // 10  # and good ones converted (fewer under --strict)
    for jobs in ("2", "3"):
        assert _run(*args, "--jobs", jobs, str(path)) == one


def test_jobs_read_standard_input_and_keep_the_exit_status(tmp_path: pathlib.Path) -> None:
    good = (ROOT / "golden/not_found/problem.json").read_bytes().strip() + b"\n"
    proc = subprocess.run(
        [sys.executable, "-m", "errconv", "convert", "--lines", "--jobs", "2", "--to", "google"],
        input=good * 5000, capture_output=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout == (errconv.convert(good, "google") + b"\n") * 5000


def test_jobs_needs_lines() -> None:
    status, out, err = _main(["convert", "--jobs", "2", "--to", "google"], b"{}")
    assert (status, out) == (2, b"")
    assert err == "errconv convert: --jobs spreads the lines of --lines over processes; give --lines too\n"
    status, out, err = _main(["convert", "--lines", "--jobs", "0", "--to", "google"], b"{}")
    assert status == 2 and "expected a whole number of at least 1, got '0'" in err


def _main(argv: list[str], stdin: bytes = b"") -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- reading lines


def test_lines_are_read_as_readline_reads_them() -> None:
    # numbered() reads blocks, not lines: every split and the size limit land where a
    # readline loop puts them, whatever the block size and however the input trickles in.
    from errconv._cli.lines import numbered

    limit = errconv.Limits().max_bytes

    def by_readline(data: bytes) -> list[tuple[int, bytes | None]]:
        stream, found, number = io.BytesIO(data), [], 0
        while line := stream.readline(limit + 1):
            number += 1
            if len(line) > limit and not line.endswith(b"\n"):
                while (rest := stream.readline(limit)) and not rest.endswith(b"\n"):
                    pass
                found.append((number, None))
            else:
                found.append((number, line.rstrip(b"\n")))
        return found

    rng = random.Random(3)
    pieces = [b"", b"a", b"\r", b"\n", b"\r\n", b"x" * (limit - 1), b"x" * limit, b"x" * (limit + 1), b"y" * 100, b"\n\n"]
    for _ in range(120):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randrange(8)))
        expected = by_readline(data)
        for size in (4093, 1 << 16, limit, 3 * limit):
            got = [(n, line) for first, lines in numbered(io.BytesIO(data), size) for n, line in enumerate(lines, first)]
            assert got == expected, size
    small = b"a\nbb\r\n\nccc"  # and tiny reads, one byte at a time
    assert [(n, line) for first, lines in numbered(io.BytesIO(small), 1) for n, line in enumerate(lines, first)] == by_readline(small)
