"""Real error responses from public sources (tests/realworld/), read as they state them.

Each service directory holds captures and a facts.json saying where each came from and
what it states: the HTTP status, the service's own code (spelled as it spells it), the
next step a careful engineer reads in it, the delay a header or a field gives, and the
parameter a field names. Every stated fact must be read right; the score (facts right /
facts stated) is printed at the end of the run.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv

ROOT = pathlib.Path(__file__).resolve().parents[1] / "realworld"
FACTS = ("status", "code", "next_step", "retry_after_seconds", "param")
# Every capture's clock: a Retry-After date or an epoch reset is measured against a
# response's Date when it has one; the rest of the corpus states delays in seconds.
NOW = 1_800_000_000.0

SCORE: dict[str, Any] = {"right": 0, "stated": 0, "wrong": [], "services": set()}


def captures() -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    out = []
    for facts_file in sorted(ROOT.glob("*/facts.json")):
        for name, entry in json.loads(facts_file.read_text()).items():
            out.append((f"{facts_file.parent.name}/{name}", facts_file.parent / name, entry))
    return out


CAPTURES = captures()


def _param(key: str, path: pathlib.Path, entry: dict[str, Any]) -> Any:
    return pytest.param(key, path, entry, id=key)


def read(path: pathlib.Path, entry: dict[str, Any]) -> errconv.Fault:
    data = path.read_bytes()
    status = entry["facts"]["status"]
    if path.suffix == ".http" or status is None:
        return errconv.decode(data, now=NOW)
    return errconv.decode(data, status=status, now=NOW)


def stated(entry: dict[str, Any]) -> dict[str, Any]:
    """The facts the source states (next_step always: it is what a careful reader concludes)."""
    facts = entry["facts"]
    return {name: facts[name] for name in FACTS if facts[name] is not None or name == "next_step"}


def got(fault: errconv.Fault, name: str) -> Any:
    value = getattr(fault, name)
    return str(value) if name == "next_step" and value is not None else value


def test_the_corpus_is_large_and_wide() -> None:
    services = {key.split("/")[0] for key, _, _ in CAPTURES}
    assert len(CAPTURES) >= 80 and len(services) >= 20, (len(CAPTURES), len(services))
    for key, path, entry in CAPTURES:
        assert path.exists(), key
        assert entry["source"] and entry["note"], key
        assert set(entry["facts"]) == set(FACTS), key


@pytest.mark.parametrize("key, path, entry", [_param(*c) for c in CAPTURES])
def test_each_capture_is_read_as_it_states(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    SCORE["services"].add(key.split("/")[0])
    want = stated(entry)
    try:
        fault = read(path, entry)
    except errconv.DecodeError as exc:
        SCORE["stated"] += len(want)
        SCORE["wrong"].append(f"{key}: unreadable: {exc}")
        raise AssertionError(f"{key}: {exc}") from None
    wrong = {name: (got(fault, name), value) for name, value in want.items() if got(fault, name) != value}
    SCORE["stated"] += len(want)
    SCORE["right"] += len(want) - len(wrong)
    if wrong:
        SCORE["wrong"].append(f"{key}: " + ", ".join(f"{n} {g!r} (stated {w!r})" for n, (g, w) in wrong.items()))
    assert not wrong, f"{key} ({entry['source']}): " + "; ".join(f"{n}: read {g!r}, stated {w!r}" for n, (g, w) in wrong.items())


# Captures whose body holds nothing of the service named: read right, but as the shape
# they share, which is what each must be detected as (with why); every other capture is
# detected as the dialect its facts name.
SHAPE_ONLY = {
    "drf/authentication-failed-bad-credentials-403.json": ("fastapi", "{\"detail\": \"Bad credentials\"} is FastAPI's shape as much as DRF's"),
    "github/secondary-rate-limit-retry-after-60-403.http": ("unknown", "a bare `message`; the headers carry the rate limit"),
    "google_cloud/v1-errors-as-strings.json": ("unknown", "no status word, no @type detail, no integer code: nothing Google's alone"),
}


def detected(fault: errconv.Fault) -> str:
    name = fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect
    # An ad-hoc body no dialect claims is read by the general reader (research/dialects.md
    # section 10, rule 18; problem's liberal reader before it): what the corpus calls `unknown`.
    return "unknown" if name in (None, "", "unrecognised", "vague", "problem", "general") else name


@pytest.mark.parametrize("key, path, entry", [_param(*c) for c in CAPTURES])
def test_each_capture_is_detected_as_the_dialect_it_is_in(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    expected = SHAPE_ONLY[key][0] if key in SHAPE_ONLY else entry["expected_dialect"]
    assert detected(read(path, entry)) == expected, key
