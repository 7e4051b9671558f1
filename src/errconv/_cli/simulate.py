"""The agent loop of seed 004, on a virtual clock.

Seed 004 is the published guide *How to design error responses an autonomous agent can
act on* (voxgig.com/howto/error-responses-an-agent-can-act-on): its scripted agent loop
and the three tables it prints, which this reproduces.

A scripted service fails with one of four failures; its two temporary ones
(`rate_limited`, `maintenance`) clear 30 s after the first call. A loop calls it, decodes
each response with errconv, asks a policy what to do, and sleeps on a `VirtualClock`,
so a thirty second wait costs nothing and the counts are exact. Eight calls is the
budget. Three policies get the same responses:

- `contract` reads the body: it is `errconv.retry.RetryPolicy`, unchanged;
- `header-only` is what most HTTP retry middleware does: retry a 429 or a 5xx,
  honour `Retry-After`, read no body;
- `hammer` retries anything that looks temporary, at once.

Two sets of renderings: `seed`, the seed's own four (problem, google, stripe and the
vague sentence most APIs send), and `errconv`, each failure encoded by errconv as
`http+problem`, `http+google` and `http+stripe`, which says every wait twice.

>>> print(simulate("errconv").render().splitlines()[9])
  rate_limited      ok 2c 30s             ok 2c 30s             ok 2c 30s
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._pipeline.api import decode, encode
from ..codes import NextStep, reason_phrase
from ..dialects._responses import parse_response
from .._model.fault import Fault
from ..retry import Decision, RetryPolicy, VirtualClock
from .._model.retry_after import parse_retry_after

__all__ = [
    "FAILURES",
    "FAULTS",
    "POLICIES",
    "RENDERINGS",
    "Outcome",
    "Reply",
    "Simulation",
    "renderings",
    "run_loop",
    "simulate",
]

FAILURES = ("missing_parameter", "rate_limited", "maintenance", "account_suspended")
TEMPORARY = ("rate_limited", "maintenance")
BUDGET = 8
CLEARS_AT = 30.0

# The four failures of seed 004, as errconv models them (the same as golden/<case>/fault.json).
FAULTS: dict[str, Fault] = {
    "missing_parameter": Fault.build(
        status=400,
        code="missing_parameter",
        domain="api.example.com",
        title="Missing parameter",
        detail="currency is required for a transfer",
        type="https://api.example.com/problems/missing_parameter",
        next_step="fix_request",
        param="currency",
        violations=[{"field": "currency", "description": "is required", "reason": "REQUIRED"}],
    ),
    "rate_limited": Fault.build(
        status=429,
        code="rate_limited",
        domain="api.example.com",
        title="Too many requests",
        detail="60 requests per minute per key",
        type="https://api.example.com/problems/rate_limited",
        next_step="wait",
        retry_after_seconds=30,
        metadata={"quotaLimit": "RequestsPerMinute", "quotaValue": "60"},
    ),
    "maintenance": Fault.build(
        status=503,
        code="maintenance",
        domain="api.example.com",
        title="Down for maintenance",
        detail="Scheduled maintenance ends in 30 seconds",
        type="https://api.example.com/problems/maintenance",
        next_step="wait",
        retry_after_seconds=30,
    ),
    "account_suspended": Fault.build(
        status=403,
        code="account_suspended",
        domain="api.example.com",
        title="Account suspended",
        detail="This account was suspended on 2026-09-01 for unpaid invoices",
        type="https://api.example.com/problems/account_suspended",
        next_step="give_up",
    ),
}


# --------------------------------------------------------------------------- renderings


def _response(status: int, body: Any, **headers: str) -> bytes:
    head = f"HTTP/1.1 {status} {reason_phrase(status)}\r\n"
    head += "".join(f"{name.replace('_', '-')}: {value}\r\n" for name, value in headers.items())
    return (head + "\r\n" + json.dumps(body, separators=(",", ":"))).encode()


_BASE = "https://api.example.com"


def _problem(status: int, code: str, title: str, detail: str, next_step: str, **extra: Any) -> bytes:
    # The body contract.mjs builds: the RFC members, then code and next_step, then what is set.
    body = {"type": f"{_BASE}/problems/{code}", "title": title, "status": status, "detail": detail, "code": code, "next_step": next_step}
    body.update(extra)
    headers = {"content_type": "application/problem+json"}
    if "retry_after_seconds" in extra:
        headers["retry_after"] = str(extra["retry_after_seconds"])
    return _response(status, body, **headers)


def _google(status: int, name: str, message: str, details: list[dict[str, Any]]) -> bytes:
    body = {"error": {"code": status, "message": message, "status": name, "details": details}}
    return _response(status, body, content_type="application/json")


def _info(reason: str, **metadata: str) -> dict[str, Any]:
    return {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "api.example.com", "metadata": metadata}


_RETRY_30S = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"}


def _stripe(status: int, type_: str, code: str, message: str, **extra: str) -> bytes:
    body = {"error": {"type": type_, "code": code, "message": message, **extra, "doc_url": f"https://docs.example.com/errors/{code}"}}
    return _response(status, body, content_type="application/json")


def _vague(status: int, sentence: str) -> bytes:
    return _response(status, {"error": sentence}, content_type="application/json")


def _seed() -> dict[str, dict[str, bytes]]:
    """Seed 004's renderings. It prints rate_limited in full; the other three failures
    are rebuilt from its description: three dialects name `currency`, the vague one
    does not; only the problem rendering sends Retry-After."""
    return {
        "missing_parameter": {
            "problem": _problem(400, "missing_parameter", "Missing parameter", "currency is required for a transfer", "fix_request", param="currency"),
            "google": _google(400, "INVALID_ARGUMENT", "currency is required for a transfer", [
                _info("MISSING_PARAMETER"),
                {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field": "currency", "description": "is required"}]},
            ]),
            "stripe": _stripe(400, "invalid_request_error", "parameter_missing", "Missing required param: currency.", param="currency"),
            "vague": _vague(400, "Invalid request"),
        },
        "rate_limited": {
            "problem": _problem(429, "rate_limited", "Too many requests", "60 requests per minute per key", "wait", retry_after_seconds=30),
            "google": _google(429, "RESOURCE_EXHAUSTED", "Quota exceeded for requests per minute", [
                _info("RATE_LIMIT_EXCEEDED", quotaLimit="RequestsPerMinute", quotaValue="60"),
                _RETRY_30S,
            ]),
            "stripe": _stripe(429, "rate_limit_error", "rate_limit", "Too many requests. Use an exponential backoff."),
            "vague": _vague(429, "Too many requests, try again later"),
        },
        "maintenance": {
            "problem": _problem(503, "maintenance", "Down for maintenance", "Scheduled maintenance ends in 30 seconds", "wait", retry_after_seconds=30),
            "google": _google(503, "UNAVAILABLE", "The service is down for scheduled maintenance", [_info("MAINTENANCE"), _RETRY_30S]),
            "stripe": _stripe(503, "api_error", "maintenance", "The service is down for maintenance. Try again later."),
            "vague": _vague(503, "Service unavailable, try again later"),
        },
        "account_suspended": {
            "problem": _problem(403, "account_suspended", "Account suspended", "This account is suspended", "give_up"),
            "google": _google(403, "PERMISSION_DENIED", "This account is suspended", [_info("ACCOUNT_SUSPENDED")]),
            "stripe": _stripe(403, "invalid_request_error", "account_suspended", "This account is suspended."),
            "vague": _vague(403, "Forbidden"),
        },
    }


def _errconv() -> dict[str, dict[str, bytes]]:
    dialects = ("http+problem", "http+google", "http+stripe")
    return {name: {d: encode(FAULTS[name], d) for d in dialects} for name in FAILURES}


RENDERINGS: dict[str, Callable[[], dict[str, dict[str, bytes]]]] = {"errconv": _errconv, "seed": _seed}


def renderings(name: str) -> dict[str, dict[str, bytes]]:
    """The HTTP responses of a set of renderings: failure -> column -> bytes."""
    try:
        return RENDERINGS[name]()
    except KeyError:
        raise ValueError(f"unknown renderings {name!r}; one of: {', '.join(RENDERINGS)}") from None


# --------------------------------------------------------------------------- policies


@dataclass(frozen=True)
class Reply:
    """One failed call as a policy sees it: the response, and errconv's reading of it."""

    status: int
    headers: dict[str, str]
    fault: Fault


Policy = Callable[[Reply, int], Decision]


def _hammer(clock: VirtualClock, budget: int) -> Policy:
    def decide(reply: Reply, attempt: int) -> Decision:
        if reply.fault.next_step == NextStep.WAIT:
            return Decision(True, 0.0, "looks temporary: retry at once")
        return Decision(False, 0.0, f"{reply.fault.next_step}: not temporary")

    return decide


def _header_only(clock: VirtualClock, budget: int) -> Policy:
    def decide(reply: Reply, attempt: int) -> Decision:
        if reply.status == 429 or reply.status >= 500:
            value = reply.headers.get("retry-after")
            seconds = parse_retry_after(value) if value is not None else None
            return Decision(True, float(seconds or 0), f"HTTP {reply.status}: Retry-After {value or 'absent'}")
        return Decision(False, 0.0, f"HTTP {reply.status}: not retried")

    return decide


def _contract(clock: VirtualClock, budget: int) -> Policy:
    policy = RetryPolicy(budget=budget, clock=clock)
    return lambda reply, attempt: policy.decide(reply.fault, attempt)


# name -> (factory, the rows its table shows, the table's heading)
POLICIES: dict[str, tuple[Callable[[VirtualClock, int], Policy], tuple[str, ...], str]] = {
    "contract": (_contract, FAILURES, "a loop that reads the body, calls made and seconds slept"),
    "header-only": (_header_only, TEMPORARY, "a loop that reads only the Retry-After header"),
    "hammer": (_hammer, TEMPORARY, "a loop that retries at once"),
}


# --------------------------------------------------------------------------- the loop


@dataclass(frozen=True)
class Outcome:
    """How one loop ended: `ok`, `fix_request`, `give_up`, `budget_spent` or `stopped`."""

    result: str
    calls: int
    seconds: float
    param: str | None = None

    @property
    def cell(self) -> str:
        """The seed's table cell: `ok 2c 30s`, `fix currency 1c 0s`, `budget spent 8c 0s`."""
        if self.result == "fix_request":
            what = f"fix {self.param}" if self.param else "fix (no param)"
        else:
            what = self.result.replace("_spent", " spent")
        return f"{what} {self.calls}c {self.seconds:g}s"


def run_loop(response: bytes, policy: Policy, clock: VirtualClock, *, clears_at: float | None, budget: int = BUDGET) -> Outcome:
    """Call a scripted service that answers `response` until `clears_at` seconds
    after the first call (never, for None), under `policy`, at most `budget` times."""
    start = clock.now()
    # The service answers the same bytes every time, so they are read once.
    parsed = parse_response(response)
    reply = Reply(parsed.status, dict(reversed(parsed.headers.items)), decode(response, "http"))
    fault = reply.fault
    calls = 0
    while True:
        calls += 1
        elapsed = clock.now() - start
        if clears_at is not None and elapsed >= clears_at:
            return Outcome("ok", calls, elapsed)
        decision = policy(reply, calls)
        if not decision.retry and fault.next_step in (NextStep.FIX_REQUEST, NextStep.GIVE_UP):
            return Outcome(str(fault.next_step), calls, elapsed, fault.param)
        if calls >= budget:  # whether the policy counts calls itself (RetryPolicy does) or not
            return Outcome("budget_spent", calls, elapsed)
        if not decision.retry:
            return Outcome("stopped", calls, elapsed)
        clock.sleep(decision.sleep)


@dataclass
class Simulation:
    """Every loop of one run: policy -> failure -> column -> Outcome."""

    renderings: str
    budget: int
    clears_at: float
    columns: tuple[str, ...]
    results: dict[str, dict[str, dict[str, Outcome]]] = field(default_factory=dict)

    def render(self) -> str:
        """The seed's three tables, one per policy, as text."""
        blocks = []
        for name, (_, rows, heading) in POLICIES.items():
            lines = [heading, _row("failure", self.columns)]
            for failure in rows:
                lines.append(_row(failure, [self.results[name][failure][c].cell for c in self.columns]))
            blocks.append("\n".join(lines) + "\n")
        return "\n".join(blocks)

    def to_dict(self) -> dict[str, Any]:
        """The same results for machines: one row per loop."""
        rows = [
            {
                "policy": name,
                "failure": failure,
                "rendering": column,
                "result": outcome.result,
                "calls": outcome.calls,
                "seconds": outcome.seconds,
                "param": outcome.param,
            }
            for name, by_failure in self.results.items()
            for failure, by_column in by_failure.items()
            for column, outcome in by_column.items()
        ]
        return {"renderings": self.renderings, "budget": self.budget, "clears_at": self.clears_at, "loops": rows}


def _row(first: str, cells: Any) -> str:
    return ("  " + first.ljust(18) + "".join(c.ljust(22) for c in cells)).rstrip()


def simulate(renderings_name: str = "errconv", *, budget: int = BUDGET, clears_at: float = CLEARS_AT) -> Simulation:
    """Run every policy against every rendering of every failure its table shows."""
    if budget < 1:
        raise ValueError(f"budget counts calls and must be at least 1, got {budget}")
    if clears_at < 0:
        raise ValueError(f"clears_at is seconds after the first call and must not be negative, got {clears_at}")
    table = renderings(renderings_name)
    columns = tuple(table[FAILURES[0]])
    sim = Simulation(renderings_name, budget, clears_at, columns)
    for name, (factory, rows, _) in POLICIES.items():
        sim.results[name] = {}
        for failure in rows:
            sim.results[name][failure] = {}
            for column in columns:
                clock = VirtualClock()
                sim.results[name][failure][column] = run_loop(
                    table[failure][column],
                    factory(clock, budget),
                    clock,
                    clears_at=clears_at if failure in TEMPORARY else None,
                    budget=budget,
                )
    return sim
