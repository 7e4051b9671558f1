"""Real error responses from services errconv has no dialect for (tests/realworld_open/), issue 19.

The corpus is split by service into halves (tests/realworld_open/README.md): `rules`, the
half the general reader's vocabulary was written from, and `heldout`, gathered and scored
without sight of the rules once they were frozen; round 2 (issue 28) adds `r2_rules` and the
blind `r2_heldout`. No service is in two halves. For each half that exists this prints:
the share of stated facts read right, the share of next steps right, the precision of the
moves errconv does not mark assumed (`Fault.basis("next_step").kind` stated or inferred:
of those, the share right), and the same for
the status-only rule of the issue (408/429/5xx wait except 500/501; 400/409/412/422
fix_request; other 4xx give_up), once from the status alone and once allowed the status
the body states. The score is reported, not asserted: a half below 90% does not fail.

What does fail: a response that states a fact (its status, a delay, a parameter, its
next step: `states` in facts.json) read as anything else. A confident wrong move where
the response says the right one is the one error a reader must never make.

An error stated inside a 2xx body (Vonage's SMS, Verify and Number Insight APIs, Etherscan's
rate limit, all sent as 200) is refused, and these tests assert the refusal, a DecodeError
"not an error response: 200", not an answer. That is errconv's choice (README, "the general
reader"): on a service it has no dialect for, nothing in a 2xx body tells a failure from a
success. The same member and value mean opposite things: Vonage's SMS API writes
`"status": "0"` for a message sent, Etherscan writes `"status": "0"` for a call refused. A
reader that took them as errors would make successes into failures. A refusal states no
fact, so it contradicts none. It is still scored as a miss on every fact (the score below
counts it as unreadable), so refusing costs the score and cannot raise it. Dialects whose
format puts errors inside 2xx bodies (Slack's `ok: false`, GraphQL's `errors`) still read
them; that is their format, not a guess.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import pytest

import errconv

ROOT = pathlib.Path(__file__).resolve().parents[1] / "realworld_open"
# Every half present, in the order they were gathered: round 1 (rules, heldout), round 2
# (r2_rules, r2_heldout; issue 28), round 3 (r3_rules, r3_heldout; folded in with r2_heldout).
# Round 4 (r4_heldout, gathered blind by two helpers) was scored once against the rules frozen
# at 7de9537 (FROZEN_R4_HELDOUT), then folded in (issue 28's round-4 fold-in): rules written
# from it, so it is scored in-sample with the others. Rounds 5 and 6 (r5_heldout, r6_heldout)
# likewise: FROZEN_R5_HELDOUT and FROZEN_R6_HELDOUT, then their fold-ins.
HALVES = tuple(h for h in ("rules", "heldout", "r2_rules", "r2_heldout", "r3_rules", "r3_heldout", "r4_heldout", "r5_heldout", "r6_heldout") if (ROOT / h).is_dir())
# Halves gathered and (for the held-out ones) scored blind once, whose fold-in, rules
# written from them so that none of their stated facts is contradicted, is still to do
# (issue 28): kept with their provenance and checked for form, not scored in-sample yet.
# (r2_heldout, r3_heldout, r3_rules, r4_heldout, r5_heldout and r6_heldout waited here until their fold-in.)
PENDING = ROOT / "pending"
PENDING_HALVES = tuple(sorted(p.name for p in PENDING.iterdir() if p.is_dir())) if PENDING.is_dir() else ()
FACTS = ("status", "code", "next_step", "retry_after_seconds", "param")
NOW = 1_800_000_000.0  # as tests/test_realworld.py: a Date header, when there is one, wins

SUMMARY: list[str] = []  # printed by conftest.py at the end of the run

# The generalisation figure: the held-out half scored against the rules as frozen at commit
# 664db14, before any rule had seen it (issue 19). It is recorded here and never recomputed;
# the per-half scores printed by test_the_score_is_reported are in-sample, because the
# held-out half has been folded in and the rules have been written from both halves since.
FROZEN_HELDOUT = (
    "generalisation figure (held-out half against the rules frozen at 664db14, scored blind): "
    "112 captures, 29 services: facts 207/298 (69.5%), next steps 70/112 (62.5%); "
    "status-only rule: facts 51.0%, next steps 58.9%"
)
# Round 2 (issue 28): r2_heldout scored once against the rules frozen at the commit whose
# message starts "FREEZE round 2 rules", before any rule saw it. The integrator fills this
# in with that one score (facts, next steps, and the precision of moves not assumed), and
# it is never recomputed.
# Round 3: no round-3 rules were written before it was scored, so r3_heldout (gathered
# blind, its services apart from every other half) was scored once against the same frozen
# round-2 rules (b547557): a second blind figure of them. Both held-out halves have been folded
# in since (rules written from them; tests/realworld_open/scored/ keeps what the scorer printed
# then): these two figures stay as recorded, and the in-sample rows below are not blind.
FROZEN_R3_HELDOUT = (
    "round 3 generalisation figure (r3_heldout against the rules frozen at b547557, scored blind once): "
    "163 captures, 60 services: facts 242/399 (60.7%), next steps 100/163 (61.3%), "
    "precision of moves not assumed 99/131 (75.6%); status-only rule: facts 43.1%, next steps 60.1%; "
    "with the body's stated status: facts 47.4%, next steps 62.6%"
)
# Round 4: r4_heldout (163 captures, 81 services none of the other halves has, gathered and
# labelled without sight of the rules) scored once against the rules frozen at 7de9537 (tag
# freeze-r4: the round-2 and round-3 fold-in), before any rule saw it;
# tests/realworld_open/scored/r4_heldout-scored-at-7de9537.txt is what the scorer printed.
FROZEN_R4_HELDOUT = (
    "round 4 generalisation figure (r4_heldout against the rules frozen at 7de9537, scored blind once): "
    "163 captures, 81 services: facts 306/411 (74.5%), next steps 118/163 (72.4%), "
    "precision of moves not assumed 112/140 (80.0%); status-only rule: facts 51.1%, next steps 65.6%; "
    "with the body's stated status: facts 54.5%, next steps 68.1%"
)
# Round 5: r5_heldout (167 captures, 104 services none of the other halves has, gathered and
# labelled by two helpers that read no rule and ran no errconv) scored once against the rules
# frozen at be949ff (tag freeze-r5 marks bf0bf28, which adds only the half), before any rule
# saw it; tests/realworld_open/scored/r5_heldout-scored-at-be949ff.txt is what the scorer
# printed. On this half the status-only rule picks more next steps right than errconv does.
FROZEN_R5_HELDOUT = (
    "round 5 generalisation figure (r5_heldout against the rules frozen at be949ff, scored blind once): "
    "167 captures, 104 services: facts 314/415 (75.7%), next steps 127/167 (76.0%), "
    "precision of moves not assumed 123/145 (84.8%); status-only rule: facts 59.8%, next steps 78.4%; "
    "with the body's stated status: facts 62.2%, next steps 78.4%"
)
# Round 6: r6_heldout (162 captures, 91 services none of the other halves has, gathered and
# labelled by two helpers that read no rule and ran no errconv, after round 5's fold-in) scored
# once against the rules frozen at 9a39013 (tag freeze-r6), set before the half was gathered;
# tests/realworld_open/scored/r6_heldout-scored-at-9a39013.txt is what the scorer printed.
FROZEN_R6_HELDOUT = (
    "round 6 generalisation figure (r6_heldout against the rules frozen at 9a39013, scored blind once): "
    "162 captures, 91 services: facts 312/409 (76.3%), next steps 127/162 (78.4%), "
    "precision of moves not assumed 121/135 (89.6%); status-only rule: facts 58.9%, next steps 74.1%; "
    "with the body's stated status: facts 61.4%, next steps 75.9%"
)
FROZEN_R2_HELDOUT: str | None = (
    "round 2 generalisation figure (r2_heldout against the rules frozen at b547557, scored blind once): "
    "157 captures, 51 services: facts 237/331 (71.6%), next steps 119/157 (75.8%), "
    "precision of moves not assumed 118/145 (81.4%); status-only rule: facts 42.3%, next steps 70.7%; "
    "with the body's stated status: facts 49.8%, next steps 75.2%"
)


def captures(half: str) -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    out = []
    for facts_file in sorted((ROOT / half).glob("*/facts.json")):
        for name, entry in json.loads(facts_file.read_text()).items():
            out.append((f"{half}/{facts_file.parent.name}/{name}", facts_file.parent / name, entry))
    return out


CAPTURES = [c for half in HALVES for c in captures(half)]


def read(path: pathlib.Path, entry: dict[str, Any]) -> errconv.Fault:
    """A capture as a gateway reads it: a whole response as it is; a bare body with the
    status the source shows it came with (none when it shows none)."""
    data = path.read_bytes()
    given = entry.get("given_status")
    if path.suffix == ".http" or given is None:
        return errconv.decode(data, now=NOW)
    return errconv.decode(data, status=given, now=NOW)


def is_2xx(path: pathlib.Path, entry: dict[str, Any]) -> bool:
    """Whether the response came with a success status: the error is stated inside a 2xx
    body, which errconv refuses (see the module docstring)."""
    wire = wire_status(path, entry)
    return wire is not None and 200 <= wire < 300


def refused(path: pathlib.Path, entry: dict[str, Any]) -> str:
    """The refusal of a 2xx capture: its DecodeError's message."""
    with pytest.raises(errconv.DecodeError) as caught:
        read(path, entry)
    message = str(caught.value)
    assert message.startswith("not an error response: 2"), message
    return message


def stated(entry: dict[str, Any]) -> dict[str, Any]:
    """The facts scored: every fact the source gives, and the next step always."""
    facts = entry["facts"]
    return {name: facts[name] for name in FACTS if facts[name] is not None or name == "next_step"}


def got(fault: errconv.Fault, name: str) -> Any:
    value = getattr(fault, name)
    return str(value) if name == "next_step" and value is not None else value


def baseline_step(status: int | None) -> str:
    """The issue's status-only rule."""
    if status is None:
        return "give_up"
    if status in (408, 429) or (status >= 500 and status not in (500, 501)):
        return "wait"
    if status in (400, 409, 412, 422):
        return "fix_request"
    return "give_up"


def wire_status(path: pathlib.Path, entry: dict[str, Any]) -> int | None:
    if path.suffix == ".http":
        return int(path.read_bytes().split(None, 2)[1])
    given = entry.get("given_status")
    return int(given) if given is not None else None


def score(half: str) -> dict[str, Any]:
    """Facts and next steps right, for errconv and for the status-only baselines."""
    out: dict[str, Any] = {"captures": 0, "facts": 0, "right": 0, "steps": 0, "steps_right": 0, "wrong": []}
    # Precision where errconv claims: of the moves whose basis is stated or inferred (not
    # assumed: errconv says it could not tell), how many are right (issue 28).
    out["claimed"] = out["claimed_right"] = 0
    for name in ("status_only", "status_stated"):
        out[name] = {"right": 0, "steps_right": 0}
    services = set()
    for key, path, entry in captures(half):
        services.add(key.split("/")[1])
        want = stated(entry)
        out["captures"] += 1
        out["facts"] += len(want)
        out["steps"] += 1
        try:
            fault = read(path, entry)
            right = {n for n, v in want.items() if got(fault, n) == v}
        except errconv.DecodeError as exc:
            right = set()
            out["wrong"].append(f"{key}: unreadable: {exc}")
        else:
            if len(right) < len(want):
                out["wrong"].append(
                    f"{key}: " + ", ".join(f"{n} {got(fault, n)!r} (stated {v!r})" for n, v in want.items() if n not in right)
                )
            if fault.basis("next_step").kind != "assumed":
                out["claimed"] += 1
                out["claimed_right"] += "next_step" in right
        out["right"] += len(right)
        out["steps_right"] += "next_step" in right
        # The baselines: the wire's status (and, in the second, the body's stated status when
        # the wire gives none), its step by the rule, and nothing else.
        wire = wire_status(path, entry)
        for name, status in (("status_only", wire), ("status_stated", wire if wire is not None else (want.get("status") if "status" in entry.get("states", ()) else None))):
            guess = {"status": status, "next_step": baseline_step(status)}
            hits = {n for n, v in want.items() if guess.get(n) == v}
            out[name]["right"] += len(hits)
            out[name]["steps_right"] += "next_step" in hits
    out["services"] = len(services)
    return out


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def test_the_corpus_is_there_and_well_formed() -> None:
    assert "rules" in HALVES
    for key, path, entry in CAPTURES:
        assert path.exists(), key
        assert entry["source"] and entry["note"], key
        assert set(entry["facts"]) == set(FACTS), key
        assert set(entry.get("states", ())) <= set(FACTS), key
        assert entry["facts"]["next_step"] in ("fix_request", "wait", "give_up"), key
    # No service in two halves: each half is another set of services (pending ones too).
    seen: dict[str, str] = {}
    for half in (*HALVES, *(f"pending/{h}" for h in PENDING_HALVES)):
        for p in (ROOT / half).iterdir():
            if p.is_dir():
                assert p.name not in seen, f"{p.name} is in both {seen[p.name]} and {half}"
                seen[p.name] = half


def test_the_generalisation_figure_is_reported_apart() -> None:
    """The frozen held-out figure, printed first and labelled as what it is, so no reader
    takes the in-sample scores below for it."""
    assert "heldout" in HALVES
    SUMMARY.insert(0, FROZEN_HELDOUT)
    rows = 1
    if FROZEN_R2_HELDOUT is not None:
        SUMMARY.insert(rows, FROZEN_R2_HELDOUT)
        rows += 1
    SUMMARY.insert(rows, FROZEN_R3_HELDOUT)
    rows += 1
    SUMMARY.insert(rows, FROZEN_R4_HELDOUT)
    rows += 1
    SUMMARY.insert(rows, FROZEN_R5_HELDOUT)
    rows += 1
    SUMMARY.insert(rows, FROZEN_R6_HELDOUT)
    rows += 1
    SUMMARY.insert(rows, "in-sample scores of the rules as they are now (not a generalisation figure):")


@pytest.mark.parametrize("half", HALVES)
def test_the_score_is_reported(half: str) -> None:
    s = score(half)
    assert s["captures"] > 0
    SUMMARY.append(
        f"in-sample realworld_open/{half}: {s['captures']} captures, {s['services']} services: "
        f"facts {s['right']}/{s['facts']} ({pct(s['right'], s['facts'])}), "
        f"next steps {s['steps_right']}/{s['steps']} ({pct(s['steps_right'], s['steps'])}); "
        f"precision of moves not assumed {s['claimed_right']}/{s['claimed']} ({pct(s['claimed_right'], s['claimed'])}); "
        f"status-only rule: facts {pct(s['status_only']['right'], s['facts'])}, next steps {pct(s['status_only']['steps_right'], s['steps'])}; "
        f"with the body's stated status: facts {pct(s['status_stated']['right'], s['facts'])}, "
        f"next steps {pct(s['status_stated']['steps_right'], s['steps'])}"
    )
    for line in s["wrong"]:
        SUMMARY.append(f"  {line}")
    for key, _, entry in captures(half):
        for why in (entry.get("refused"), *entry.get("differs", {}).values()):
            if why:
                SUMMARY.append(f"  {key}: by design: {why}")


STATING = [pytest.param(key, path, entry, id=key) for key, path, entry in CAPTURES if entry.get("states")]


def refused_as_malformed(path: pathlib.Path, entry: dict[str, Any]) -> bool:
    """A capture whose body is not well-formed (facts.json's `refused` says how): errconv
    refuses it with a DecodeError, as it does all malformed input, and states nothing, so
    nothing is contradicted. The score counts it unreadable, a miss."""
    if "refused" not in entry:
        return False
    with pytest.raises(errconv.DecodeError):
        read(path, entry)
    return True


@pytest.mark.parametrize("key, path, entry", STATING)
def test_what_a_response_states_is_never_contradicted(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    if is_2xx(path, entry):
        refused(path, entry)  # no answer, so nothing contradicted (module docstring)
        return
    if refused_as_malformed(path, entry):
        return
    fault = read(path, entry)
    # A fact errconv's model does not carry for this response (facts.json's `differs`, with
    # why): errconv must then say nothing of it, rather than another value.
    for name in entry.get("differs", {}):
        assert got(fault, name) is None, f"{key}: {name} read as {got(fault, name)!r}; errconv leaves it out by design"
    # A status, a delay or a next step the response states must be what errconv answers
    # (the test). A parameter or a code it states must not be read as another
    # one; not finding it is a miss the score counts, not a contradiction.
    wrong = {
        n: (got(fault, n), entry["facts"][n])
        for n in entry["states"]
        if n not in entry.get("differs", {})
        and got(fault, n) != entry["facts"][n]
        and (n not in ("param", "code") or got(fault, n) is not None)
    }
    assert not wrong, f"{key} ({entry['source']}): " + "; ".join(f"{n}: read {g!r}, the response states {w!r}" for n, (g, w) in wrong.items())


@pytest.mark.parametrize("key, path, entry", [pytest.param(*c, id=c[0]) for c in CAPTURES])
def test_each_capture_is_read_and_says_where_each_fact_came_from(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    if is_2xx(path, entry):
        refused(path, entry)  # an error inside a 2xx body is refused, by choice (module docstring)
        return
    if refused_as_malformed(path, entry):  # a malformed body gets a clear error, as all bad input
        return
    fault = read(path, entry)  # every well-formed real error body is readable
    body = fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect
    if body == "general":
        facts = {fact for fact, _ in fault.origin.evidence}
        assert "status" in facts, key
        assert "next_step" in facts, key
        if fault.code is not None:
            assert "code" in facts, key
        if fault.retry_after_seconds is not None:
            assert "retry_after_seconds" in facts, key


@pytest.mark.parametrize("half", PENDING_HALVES)
def test_a_pending_half_is_well_formed(half: str) -> None:
    """The halves not yet folded in keep the corpus's form: every capture named exists,
    has its source and a note, and labels every fact."""
    entries = captures(f"pending/{half}")
    assert entries, half
    named = {path for _, path, _ in entries}
    for key, path, entry in entries:
        assert path.exists(), key
        assert entry["source"] and entry["note"], key
        assert set(entry["facts"]) == set(FACTS), key
        assert set(entry.get("states", ())) <= set(FACTS) | {"code"}, key
        assert entry["facts"]["next_step"] in ("fix_request", "wait", "give_up"), key
    on_disk = {p for p in (PENDING / half).glob("*/*") if p.name != "facts.json"}
    assert on_disk == named, sorted(str(p) for p in on_disk ^ named)[:5]


def test_the_readme_and_the_guide_show_every_blind_figure_as_recorded() -> None:
    # Issue 30: a figure in the README or the docs is checked against the suite's own. Each
    # round's blind figure, as recorded above, is a row of the README's table and of the
    # convert guide's; nothing there is typed in apart from them.
    repo = ROOT.parents[1]
    readme = (repo / "README.md").read_text()
    guide = (repo / "docs" / "guide" / "convert.md").read_text()
    figures = {1: FROZEN_HELDOUT, 2: FROZEN_R2_HELDOUT, 3: FROZEN_R3_HELDOUT, 4: FROZEN_R4_HELDOUT, 5: FROZEN_R5_HELDOUT, 6: FROZEN_R6_HELDOUT}
    for number, line in figures.items():
        assert line is not None
        captures, services = re.search(r"(\d+) captures, (\d+) services", line).groups()  # type: ignore[union-attr]
        facts, steps = re.search(r"facts (\d+/\d+) \(([\d.]+%)\), next steps (\d+/\d+) \(([\d.]+%)\)", line).group(2, 4)  # type: ignore[union-attr]
        precision = re.search(r"precision of moves not assumed \d+/\d+ \(([\d.]+%)\)", line)
        status_only = re.search(r"status-only rule: facts [\d.]+%, next steps ([\d.]+%)", line).group(1)  # type: ignore[union-attr]
        row = f"| {number} | {captures} | {services} | {facts} | {steps} | {precision.group(1) if precision else '(not measured)'} | {status_only} |"
        assert row in readme, row
        whole = re.search(r"facts (\d+/\d+ \([\d.]+%\)), next steps (\d+/\d+ \([\d.]+%\))", line).groups()  # type: ignore[union-attr]
        assert re.search(rf"^\| {number} \| \S+ \| .* \| {captures} \| {services} \| {re.escape(whole[0])} \| {re.escape(whole[1])} \|", guide, re.M), number


@pytest.mark.parametrize("half", HALVES)
def test_the_guide_shows_each_half_s_in_sample_score_as_the_suite_scores_it(half: str) -> None:
    # The convert guide's in-sample table is the scorer's own figure for each half, so a rule
    # that moves a score moves the guide with it (it had gone stale once).
    guide = (ROOT.parents[1] / "docs" / "guide" / "convert.md").read_text()
    s = score(half)
    row = (
        f" | {s['captures']} | {s['services']} | {s['right']}/{s['facts']} ({pct(s['right'], s['facts'])}) | "
        f"{s['steps_right']}/{s['steps']} ({pct(s['steps_right'], s['steps'])}) | "
        f"{s['claimed_right']}/{s['claimed']} ({pct(s['claimed_right'], s['claimed'])}) |"
    )
    assert re.search(rf"^\| {re.escape(half)} (?:\([^)]*\) )?{re.escape(row.lstrip())}$", guide, re.M), f"{half}:{row}"
