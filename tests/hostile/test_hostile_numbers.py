"""Hostile input round three (issue 23): a 1 MB body costs a few times the standard
library's json.loads of it, whatever it holds.

The bodies are built to cost the most per byte (tests/support/costly_bodies.py): numbers with a
large exponent (msgspec reads `1e+308` on a slow path, ~8 us each), 300-digit numbers,
many keys, escapes, deep and wide nesting, many small objects, in every JSON dialect's
own body, at each place its decoder looks. Times are ratios to json.loads of the same
body, measured in the same process, best of a few tries (a GC pause or a busy machine
takes time from both; the ratio is the claim).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costly_bodies as cb
import errconv
from errconv.dialects._costly_numbers import costly_numbers, std_decode
from errconv.dialects._depth import shallow
from errconv.dialects._strings import within

# "A few times": the decode (detect, parse, read, every check) against the bare parse.
RATIO = 6.0
# The worst constructions: bodies of 1-character strings and of escapes, which the
# standard library reads exceptionally fast (cached 1-character strings) and msgspec
# at its usual speed; the ratio is msgspec's parse more than errconv's work.
WORST_RATIO = 15.0
TRIES = 5


def _best(call: Callable[[], Any], tries: int = 3) -> float:
    # Process CPU time, not the wall clock: CI runs two suites side by side on two cores,
    # and another process's turn on the CPU is not this decode's cost.
    # The garbage collector off while timing, as timeit does: a megabyte of small objects
    # made the collector walk the worker's whole heap (9 s where the parse took 0.15 s),
    # on either side of the ratio.
    best = float("inf")
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(tries):
            start = time.process_time()
            try:
                call()
            except (errconv.DecodeError, ValueError, RecursionError):
                pass
            best = min(best, time.process_time() - start)
    finally:
        if collecting:
            gc.enable()
    return best


def _ratio(body: bytes, dialect: str | None, bound: float = RATIO) -> float:
    """The best ratio of a few tries: decode's time over json.loads's (at least 1 ms of it)."""
    ratio = float("inf")
    for _ in range(TRIES):
        base = max(_best(lambda: json.loads(body)), 1e-3)
        ratio = min(ratio, _best(lambda: errconv.decode(body, dialect)) / base)
        if ratio <= bound:
            break
    return ratio


# --------------------------------------------------------------------------- the issue's body


def test_the_issues_body_of_65535_big_exponents_is_refused_cheaply() -> None:
    body = b"[" + b",".join([b"1e+308"] * 65_535) + b"]"
    assert 450_000 < len(body) < 470_000
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body)
    assert _ratio(body, None) <= RATIO


@pytest.mark.parametrize("dialect", ["problem", "google", "status-json", "stripe", "openai", "fault", "jsonrpc", "graphql"])
def test_a_megabyte_of_big_exponents_inside_a_dialects_body(dialect: str) -> None:
    numbers = b",".join([b"1e+308"] * 140_000)
    body = b'{"type": "about:blank", "status": 503, "detail": "x", "error": {"code": 429, "message": "x", "x": [' + numbers + b"]}}"
    assert 900_000 < len(body) < errconv.Limits().max_bytes
    assert _ratio(body, dialect) <= RATIO, dialect
    assert _ratio(body, None) <= RATIO


# --------------------------------------------------------------------------- the worst body of each dialect

# The constructions that cost each dialect the most, found by measuring every one of
# tests/support/costly_bodies.py's at 200 KB (see issue 23's report); checked here at 1 MB.
WORST = sorted(
    {
        label
        for label in (
            "anthropic:2:error:quote-escapes",
            "anthropic:3:type:short-strings",
            "aws:2:message:short-strings",
            "aws:0:zz_payload:short-strings",
            "cloudflare:0:zz_payload:deep",
            "cloudflare:3:message:deep",
            "connect:2:message:surrogate-pairs",
            "connect:6:type:short-strings",
            "discord:0:zz_payload:short-strings",
            "discord:1:errors:short-strings",
            "drf:0:zz_payload:short-strings",
            "drf:1:detail:short-strings",
            "elasticsearch:5:0:short-strings",
            "elasticsearch:2:root_cause:short-strings",
            "fastapi:0:zz_payload:short-strings",
            "fastapi:1:detail:short-strings",
            "fault:0:zz_payload:deep",
            "fault:2:domain:deep",
            "general:1:error:copies",
            "general:1:error:small-objects",
            "github:0:zz_payload:surrogate-pairs",
            "github:2:documentation_url:surrogate-pairs",
            "google:3:status:short-strings",
            "google:2:message:short-strings",
            "graphql:7:title:short-strings",
            "graphql:6:type:surrogate-pairs",
            "jsonapi:2:0:deep",
            "jsonapi:0:zz_payload:short-strings",
            "jsonrpc:6:grpc_code:short-strings",
            "jsonrpc:3:message:quote-escapes",
            "kubernetes:3:metadata:deep",
            "kubernetes:2:apiVersion:deep",
            "mcp:1:content:short-strings",
            "mcp:3:0:deep",
            "oauth:1:error_description:short-strings",
            "oauth:2:error:short-strings",
            "odata:1:error:surrogate-pairs",
            "odata:6:domain:short-strings",
            "openai:3:type:short-strings",
            "openai:1:error:short-strings",
            "problem:6:next_step:deep",
            "problem:2:title:quote-escapes",
            "spring:3:path:short-strings",
            "spring:2:error:quote-escapes",
            "status-json:4:1:short-strings",
            "status-json:0:zz_payload:quote-escapes",
            "stripe:3:code:deep",
            "stripe:4:message:short-strings",
            "twilio:2:more_info:short-strings",
            "twilio:1:message:short-strings",
            "twirp:1:code:short-strings",
            "twirp:5:domain:short-strings",
            "vault:2:0:copies",
            "vault:1:errors:small-objects",
        )
    }
)


def _bodies_by_label() -> dict[str, tuple[str, bytes]]:
    return {label: (dialect, body) for dialect, label, body in cb.bodies(only=WORST)}


@pytest.fixture(scope="module")
def megabyte_bodies() -> dict[str, tuple[str, bytes]]:
    return _bodies_by_label()


@pytest.mark.parametrize("label", WORST)
def test_the_worst_bodies_cost_a_few_json_parses(label: str, megabyte_bodies: dict[str, tuple[str, bytes]]) -> None:
    dialect, body = megabyte_bodies[label]
    assert len(body) > 900_000
    ratio = max(_ratio(body, dialect, WORST_RATIO), _ratio(body, None, WORST_RATIO))
    print(f"{label}: {ratio:.1f}")
    assert ratio <= WORST_RATIO, f"{label}: decoding cost {ratio:.1f} times json.loads"


def test_every_json_dialect_has_constructions() -> None:
    dialects = {dialect for dialect, _, _ in cb.bodies(4096)}
    json_dialects = {d.name for d in errconv.dialects.registered() if d.form == "json"}
    assert len(dialects & json_dialects) >= 20
    assert {label.split(":")[0] for label in WORST} >= dialects & json_dialects


# --------------------------------------------------------------------------- the parts, exactly


@pytest.mark.parametrize(
    "body",
    [
        b"[1e+308, -1e+308, 1.7976931348623157e308, 1E+300, 1e+22, 0.5, 7, -0, 12345678901234567890]",
        b'{"a": "\\u00e9\\ud83d\\ude00", "b": [true, false, null], "a": 2}',
        b"[1e999]",
        b"[-1e999]",
        b"[NaN]",
        b"[Infinity]",
        b"[1e+308,]",
        b'["\\x"]',
        b"\xef\xbb\xbf[1]",
        b'["\xff"]',
        b"[1] x",
        b'["\x01"]',
    ],
)
def test_the_standard_librarys_reading_is_msgspecs(body: bytes) -> None:
    try:
        want: Any = msgspec.json.decode(body)
    except msgspec.DecodeError:
        want = "refused"
    try:
        got: Any = std_decode(body)
    except (ValueError, RecursionError):
        got = "refused"
    assert json.dumps(got) == json.dumps(want) and type(got) is type(want)


def test_only_bodies_with_many_big_exponents_take_the_other_parser() -> None:
    assert costly_numbers(b"[" + b",".join([b"1e+308"] * 1000) + b"]")
    assert not costly_numbers(b"[" + b",".join([b"1.5"] * 1000) + b"]")
    assert not costly_numbers(b"[" + b",".join([b"1e+308"] * 10) + b"]" + b" " * 10_000)
    assert not costly_numbers(b'"' + b"e" * 100_000 + b'"')
    assert not costly_numbers("1e+308," * 1000)  # text is not looked at: the bytes path is the one that counts


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\u00e9', max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='[]{}"\\ab', max_size=4), inner, max_size=4),
    max_leaves=40,
)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(_json, st.integers(0, 6))
def test_shallow_never_says_shallow_of_a_deeper_body(value: Any, limit: int) -> None:
    raw = json.dumps(value).encode() + b" " * 17_000  # past the size below which it does not look
    if shallow(raw, limit):
        assert _depth(value) <= limit


def test_shallow_tells_a_deep_body_at_the_limit() -> None:
    pad = b" " * 17_000
    for depth in (31, 32, 33, 40, 10_000):
        raw = b"[" * depth + b'"]]]\\"]]"' + b"]" * depth + pad
        assert shallow(raw, 32) == (depth <= 32), depth


@settings(max_examples=300, deadline=None)
@given(st.lists(_json, max_size=4), st.integers(0, 12))
def test_within_never_passes_a_long_string(values: list[Any], limit: int) -> None:
    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [*value, *(s for v in value.values() for s in strings(v))]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return []

    if within(values, limit):
        assert all(len(s) <= limit for s in strings(values))


def test_a_quote_outside_the_json_never_makes_a_deep_body_look_shallow() -> None:
    deep = b'{"type": "about:blank", "status": 500, "x": ' + b"[" * 40 + b"1" + b"]" * 40 + b', "pad": "' + b"y" * 20_000 + b'"}'
    response = b'HTTP/1.1 500 X\r\nX-Quote: "\r\nContent-Type: application/problem+json\r\n\r\n' + deep
    assert not shallow(response, 32)
    for call in (
        lambda: errconv.decode(response),
        lambda: errconv.decode(deep),
        lambda: errconv.from_http(500, [("Content-Type", "application/problem+json"), ("X-Quote", '"')], deep),
    ):
        with pytest.raises(errconv.DecodeError, match="nests deeper than 32"):
            call()
