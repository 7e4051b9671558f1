"""JSON numbers that are cheap to write and dear to read, and a parser that reads them cheaply.

msgspec (0.23) reads a number with a large positive exponent (`1e+308`) on a slow path:
about 8 us each, twenty to forty times the standard library's json, so a 1 MB body of
them took a second to refuse (issue 23). Bodies holding many such numbers are parsed
with the standard library instead, held to what msgspec accepts: UTF-8 only, no NaN or
Infinity, no number beyond a double's range. Everything else keeps msgspec's speed.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["costly_numbers", "std_decode"]

# Digits as "0", e and E as "e", "+" as "+", everything else as " ": a number with an
# exponent of two digits or more is then "0e00" or "0e+00", a substring search in C.
_NUMBER_MAP = bytes(
    0x30 if 0x30 <= b <= 0x39 else 0x65 if b in (0x45, 0x65) else 0x2B if b == 0x2B else 0x20 for b in range(256)
)
# Below this many, msgspec's slow path costs at most a millisecond or so: not worth a look.
_FEW = 128
_SMALL = _FEW * 6  # "1e+99," is six bytes: a body this short cannot hold more


def costly_numbers(raw: bytes | str) -> bool:
    """Whether `raw` holds so many numbers with a large exponent that msgspec would be slow."""
    if len(raw) <= _SMALL or not isinstance(raw, bytes):
        return False
    if raw.count(b"e") + raw.count(b"E") <= _FEW:  # memchr-fast; most bodies stop here
        return False
    mapped = raw.translate(_NUMBER_MAP)
    return mapped.count(b"0e00") + mapped.count(b"0e+00") > _FEW


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError("Number out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"JSON is malformed: {name} is not JSON")


def std_decode(raw: bytes) -> Any:
    """`raw` parsed by the standard library's json, as msgspec would parse it.

    Raises ValueError (UnicodeDecodeError, json.JSONDecodeError among them) or
    RecursionError for what msgspec refuses."""
    text = raw.decode("utf-8")  # strictly UTF-8, as msgspec reads (json.loads would guess UTF-16)
    return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
