"""Redaction costs linear time on hostile text (issue 27).

`scrub` (errconv._redact, the engine behind agent_message and the structured output)
reads a megabyte of text built against each of its rules: runs of a credential word,
names with separators and no value, brackets and quotes that never close, escapes of
every kind, zero-width and fullwidth characters, PEM armour lines, URLs, JWT-like dots,
random base64, pieces split by separators, XML tags. Its CPU time is measured against a
simple baseline in the same process, on the same text: one regular-expression
substitution of every non-space character (`re.sub(r"\\S", "x", text)`), which is linear
by construction. A pattern that backtracks, or a rule that re-reads what another
consumed, costs quadratic time: at a megabyte, thousands of times the baseline.
Measured when this was written: 1.2 to 21 times; the bound is RATIO.

CPU time of the process, the best of a few tries (as tests/hostile/test_hostile_numbers.py):
another suite's turn on the CPU is not redaction's cost.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from errconv._agent_text import redact
from errconv._redact import _scrub

MB = 1 << 20
RATIO = 40.0
TRIES = 2

_rng = random.Random(27)
_B64 = "".join(_rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(MB))

HOSTILE: dict[str, str] = {
    "one letter": "a" * MB,
    "a credential word, over and over": "key" * (MB // 3),
    "names and separators, no value": "password=" * (MB // 9),
    "a name, a colon, thirty spaces": ("password:" + " " * 30) * (MB // 39),
    "brackets that never close": "pin:[" * (MB // 5),
    "quotes that never close": 'token: "' * (MB // 8),
    "backslashes": "\\" * MB,
    "\\u escapes": "\\u0041" * (MB // 6),
    "zero-width between letters": "a\u200b" * (MB // 2),
    "fullwidth letters": "\uff41" * (MB // 2),
    "PEM armour lines": "-----BEGIN PRIVATE KEY-----" * (MB // 27),
    "URLs with user info and queries": "https://u:p@x/?a=b " * (MB // 19),
    "JWT-like dots": "eyJhbGciOiJIUzI1NiJ9." * (MB // 21),
    "random base64": _B64,
    "pieces split by separators": "aB3-" * (MB // 4),
    "XML tags named like credentials": "<password>" * (MB // 10),
    "cookie names on one line": "Cookie: " + "session=ab; " * (MB // 12),
}

_BASELINE = re.compile(r"\S")


def _best(call: Callable[[], Any], tries: int = TRIES) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("label", list(HOSTILE))
def test_scrub_of_a_megabyte_of_hostile_text_costs_a_few_regex_passes(label: str) -> None:
    text = HOSTILE[label]
    assert len(text) >= MB // 2
    ratio = float("inf")
    for _ in range(TRIES):
        base = max(_best(lambda: _BASELINE.sub("x", text)), 1e-3)
        ratio = min(ratio, _best(lambda: _scrub(text), 1) / base)
        if ratio <= RATIO:
            break
    assert ratio <= RATIO, f"{label}: {ratio:.1f} times the baseline"


def test_redact_reads_a_bounded_prefix_of_a_megabyte() -> None:
    # agent_message's pieces go through redact with a limit: a megabyte costs what its
    # first 4 x limit characters cost, and nothing of a token the bound cuts is shown.
    text = "x " * 100 + "sk_live_" + "a1B2c3D4" * (MB // 8)
    assert _best(lambda: redact(text, 200)) < max(_best(lambda: _BASELINE.sub("x", text[:4096])), 1e-3) * RATIO
    out = redact(text, 200)
    assert "a1B2c3D4" not in out and len(out) <= 200
