"""Every golden case through every dialect: byte identity, decoding, losses, pairs."""

from __future__ import annotations

import itertools

import pytest

import errconv
import golden_corpus as gc
from helpers import assert_same_except

CASES = gc.cases()
IDS = [c.name for c in CASES]


def _decode_dialect(dialect: str) -> str:
    return "http" if dialect.startswith("http+") else dialect


def test_corpus_has_the_required_cases() -> None:
    names = set(IDS)
    assert len(names) >= 20
    required = {
        "missing_parameter", "rate_limited", "maintenance", "account_suspended", "insufficient_funds",
        "slot_unavailable", "validation_failed", "quota_failure", "not_found", "precondition_failed",
        "internal_error", "unauthenticated", "permission_denied", "card_declined", "idempotency_conflict",
        "deadline_exceeded", "non_ascii", "extensions_all_types", "unknown_detail", "fractional_retry",
        "vague_502_html",
    }  # fmt: skip
    assert required <= names, required - names


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_no_missing_or_orphaned_files(case) -> None:
    present = {p.name for p in case.iterdir()}
    expected = gc.allowed_files(case)
    assert not expected - present, f"missing golden files: {sorted(expected - present)} (run pytest --update-goldens)"
    assert not present - expected, f"orphaned golden files: {sorted(present - expected)}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fault_json_is_canonical(case) -> None:
    fault = gc.load_fault(case)
    assert fault.to_json() == (case / "fault.json").read_bytes()


@pytest.mark.parametrize("dialect", list(gc.FILES))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_encode_is_byte_exact(case, dialect) -> None:
    fault = gc.load_fault(case)
    assert gc.render(fault, dialect) == (case / gc.FILES[dialect]).read_bytes()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_readable_status_matches(case) -> None:
    assert gc.readable_status(gc.load_fault(case)) == (case / gc.READABLE).read_bytes()


@pytest.mark.parametrize("dialect", list(gc.FILES))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_decode_gives_the_fault_minus_listed_losses(case, dialect) -> None:
    fault = gc.load_fault(case)
    lost = gc.load_meta(case)["losses"][dialect]
    data = gc.parse((case / gc.FILES[dialect]).read_bytes(), dialect)
    got = errconv.decode(data, _decode_dialect(dialect))
    assert_same_except(got, fault, lost)
    if not lost:  # what the dialect added to a field the fault left empty (JSON-RPC's -32000) is no loss
        assert got == fault.replace(**{k: getattr(got, k) for k in errconv.Fault.__struct_fields__ if getattr(fault, k) is None})
    # Detection agrees with the file's dialect.
    assert errconv.detect(data) == _decode_dialect(dialect)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_listed_losses_are_the_measured_ones(case) -> None:
    assert gc.load_meta(case)["losses"] == gc.computed_losses(gc.load_fault(case))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_sources_decode_to_the_fault(case) -> None:
    fault = gc.load_fault(case)
    for name, dialect in gc.load_meta(case).get("sources", {}).items():
        data = gc.parse((case / name).read_bytes(), dialect)
        assert errconv.detect(data) == dialect
        got = errconv.decode(data, dialect, now=0.0)
        assert got == fault, name
        assert got.origin is not None


PAIRS = [(a, b) for a, b in itertools.product(gc.FILES, repeat=2) if a != b]


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_every_pair_round_trips_minus_the_losses_of_the_middle(pair) -> None:
    a, b = pair
    for case in CASES:
        fault = gc.load_fault(case)
        lost = gc.load_meta(case)["losses"]
        start = errconv.decode(gc.parse((case / gc.FILES[a]).read_bytes(), a), _decode_dialect(a))
        middle = errconv.convert(gc.render(start, a) if a != "grpc" else errconv.encode(start, a), b, _decode_dialect(a))
        back = errconv.decode(middle, _decode_dialect(b))
        final = errconv.decode(errconv.encode(back, a), _decode_dialect(a))
        assert_same_except(final, fault, {*lost[a], *lost[b]})
