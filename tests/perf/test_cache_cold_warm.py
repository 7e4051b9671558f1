"""The caches on the decode path (the detection plans of `errconv.dialects`, the byte
readers of `detect`, the body candidates of the HTTP codec) never change an answer: every
golden input and every real-world capture decodes the same with every cache emptied
first (cold) as after the whole corpus has gone through (warm, the caches full of
other shapes), and the caches stay bounded."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
from errconv import dialects
from errconv._pipeline import api as _api
from errconv.dialects import _responses, _status, connect

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "golden"
REALWORLD = ROOT / "tests" / "realworld"
REALWORLD_OPEN = ROOT / "tests" / "realworld_open"
NOW = 1_800_000_000.0


def _empty_caches() -> None:
    dialects._claimants.clear()
    _api._BYTE_READERS.clear()
    _responses._CANDIDATES.clear()
    _status._REASONS.clear()
    connect._DEBUG_KEPT.clear()


def _inputs() -> list[tuple[str, bytes, dict[str, Any]]]:
    """(label, bytes, decode keywords): each golden file read as its dialect and detected,
    each capture as tests/dialects/test_realworld.py reads it."""
    out: list[tuple[str, bytes, dict[str, Any]]] = []
    names = set(dialects.names())
    for case in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        for path in sorted(case.iterdir()):
            if path.name in ("fault.json", "case.json") or path.suffix == ".txtpb":
                continue
            name = path.name.rsplit(".", 1)[0].replace("http-", "http+", 1)
            data = path.read_bytes()
            if name in names:
                out.append((f"{case.name}/{path.name} as {name}", data, {"dialect": name}))
            out.append((f"{case.name}/{path.name} detected", data, {}))
    for facts in sorted(REALWORLD.glob("*/facts.json")):
        for file, entry in json.loads(facts.read_text()).items():
            data = (facts.parent / file).read_bytes()
            status = entry["facts"]["status"]
            keywords: dict[str, Any] = {"now": NOW}
            if not (file.endswith(".http") or status is None):
                keywords["status"] = status
            out.append((f"{facts.parent.name}/{file}", data, keywords))
    for facts in sorted(REALWORLD_OPEN.rglob("facts.json")):  # read as tests/dialects/test_realworld_open.py reads them
        for file, entry in json.loads(facts.read_text()).items():
            given = entry.get("given_status")
            keywords = {"now": NOW} if given is None else {"now": NOW, "status": given}
            out.append((f"{facts.parent.relative_to(REALWORLD_OPEN)}/{file}", (facts.parent / file).read_bytes(), keywords))
    return out


INPUTS = _inputs()


def _answer(data: bytes, keywords: dict[str, Any]) -> str:
    """Everything a decode answers, the origin included, or the error it raised."""
    try:
        fault = errconv.decode(data, **keywords)
    except errconv.DecodeError as exc:
        return f"DecodeError: {exc}"
    return f"{fault!r} {fault.origin!r}"


def test_the_corpus_is_there() -> None:
    assert len(INPUTS) > 900  # golden files twice, and every capture of tests/realworld and tests/realworld_open


def test_cold_and_warm_decodes_agree() -> None:
    cold = {}
    for label, data, keywords in INPUTS:
        _empty_caches()
        cold[label] = _answer(data, keywords)
    for label, data, keywords in INPUTS:  # the caches now hold every shape of the corpus
        _answer(data, keywords)
    warm = {label: _answer(data, keywords) for label, data, keywords in INPUTS}
    differ = [label for label in cold if cold[label] != warm[label]]
    assert not differ, f"{len(differ)} inputs decode otherwise with the caches warm: {differ[:5]}"


@pytest.mark.parametrize("via", ["detect", "decode"])
def test_detect_agrees_cold_and_warm(via: str) -> None:
    def run() -> dict[str, str]:
        out = {}
        for label, data, _ in INPUTS:
            try:
                out[label] = errconv.detect(data) if via == "detect" else _answer(data, {})
            except errconv.DecodeError as exc:
                out[label] = f"DecodeError: {exc}"
        return out

    _empty_caches()
    first = run()
    assert run() == first


def test_encodes_agree_cold_and_warm() -> None:
    """The ErrorInfo reason cache: every golden fault, and every decoded input, written
    in every dialect that writes gives the same bytes cold as warm."""
    faults = [errconv.Fault.from_json((case / "fault.json").read_bytes()) for case in sorted(GOLDEN.iterdir()) if case.is_dir()]
    for _, data, keywords in INPUTS:
        try:
            faults.append(errconv.decode(data, **keywords))
        except errconv.DecodeError:
            pass
    writers = [name for name in dialects.names() if dialects.get(name).encodes]

    def written(fault: errconv.Fault, name: str) -> bytes:
        try:
            return errconv.encode(fault, name)
        except errconv.ErrconvError as exc:
            return f"{type(exc).__name__}: {exc}".encode()

    cold = []
    for fault in faults:
        for name in writers:
            _empty_caches()
            cold.append(written(fault, name))
    warm = [written(fault, name) for fault in faults for name in writers]
    assert warm == cold


def test_caches_stay_bounded() -> None:
    for label, data, keywords in INPUTS:
        _answer(data, keywords)
    assert len(dialects._claimants) <= 1024
    assert len(_api._BYTE_READERS) <= 1
    assert len(_responses._CANDIDATES) <= 8
    assert len(_status._REASONS) <= 1024
    assert len(connect._DEBUG_KEPT) <= 1024


def test_a_poisoned_debug_cache_is_seen() -> None:
    """The cold-warm comparison can fail: a wrong rendering kept for a detail's bytes
    shows in what connect writes."""
    fault = errconv.Fault.from_json((GOLDEN / "rate_limited" / "fault.json").read_bytes())
    _empty_caches()
    cold = errconv.encode(fault, "connect")
    assert connect._DEBUG_KEPT
    for key in connect._DEBUG_KEPT:
        connect._DEBUG_KEPT[key] = {"poisoned": True}
    try:
        assert errconv.encode(fault, "connect") != cold
    finally:
        _empty_caches()
    assert errconv.encode(fault, "connect") == cold
