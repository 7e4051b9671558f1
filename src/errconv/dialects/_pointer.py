"""Field paths <-> JSON Pointers (RFC 6901, URI-fragment form as in RFC 9457's example).

A field path is what BadRequest and Stripe use: `items[0].price`, `email`. The
pointer of `items[0].price` is `#/items/0/price`.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

__all__ = ["field_to_pointer", "pointer_to_field"]

_SEGMENT = re.compile(r"\[([^\[\]]+)\]|\.?([^.\[\]]+)")
_SAFE = "!$&'()*+,;=:@-._~"


def _segments(field: str) -> list[str] | None:
    out: list[str] = []
    pos = 0
    while pos < len(field):
        m = _SEGMENT.match(field, pos)
        if m is None or (m.group(2) is not None and pos > 0 and field[pos] != "." and field[pos - 1] != "]"):
            return None
        out.append(m.group(1) if m.group(1) is not None else m.group(2))
        pos = m.end()
    return out


def field_to_pointer(field: str) -> str | None:
    """`items[0].price` -> `#/items/0/price`; None when the path has no segments."""
    segments = _segments(field)
    if not segments:
        return None
    escaped = (quote(s.replace("~", "~0").replace("/", "~1"), safe=_SAFE) for s in segments)
    return "#/" + "/".join(escaped)


def pointer_to_field(pointer: str) -> str:
    """`#/items/0/price` or `/items/0/price` -> `items[0].price`."""
    if pointer.startswith("#"):
        pointer = unquote(pointer[1:])
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    out = ""
    for part in parts:
        if part.isdigit() and out:
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out
