"""Whether every string in a Fault is within the limit, told without walking it in Python.

`check_strings` walks every value of a Fault in Python; for a body of 100,000 small
objects kept as extensions that walk cost ten times the parse (issue 23). msgspec writes
the Fault as JSON in C instead, and the longest run between two quotes bounds every
string and key in it from above (escapes only lengthen a string as written), so a walk
is needed only when some run is over the limit.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["within"]

_encoder = msgspec.json.Encoder()


def within(values: list[Any], limit: int) -> bool:
    """True when surely no string (value or key) anywhere in `values` is longer than
    `limit` characters; False when one may be (the caller then looks precisely)."""
    try:
        text = _encoder.encode(values)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return False
    if len(text) <= limit:
        return True
    # An escaped quote or backslash is two bytes for one character: kept as two bytes
    # that are no quote, the quotes left delimit the strings, every other piece one.
    if b"\\" in text:
        text = text.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    return max(map(len, text.split(b'"')[1::2]), default=0) <= limit
