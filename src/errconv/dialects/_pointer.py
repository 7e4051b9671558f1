"""Field paths <-> JSON Pointers (RFC 6901, URI-fragment form as in RFC 9457's example).

A field path is what BadRequest and Stripe use: `items[0].price`, `email`. The
pointer of `items[0].price` is `#/items/0/price`.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

__all__ = ["pointer_of", "pointer_to_field"]

_SEGMENT = re.compile(r"\[([^\[\]]+)\]|\.?([^.\[\]]+)")
_SAFE = "!$&'()*+,;=:@-._~"
_NEEDS_QUOTING = re.compile(r"[^A-Za-z0-9_.~!$&'()*+,;=:@-]")
# Most paths: identifiers joined by dots, with [n] indexes. Their pointer is the path
# with "/" for "." and "[" (nothing to escape or quote), and it gives the path back.
_SIMPLE_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*")
# Stripe's form also names keys in brackets (`line_items[0][price]`). The pointer is made
# the same way, but reads back with `.price` for `[price]`, so it never gives the path back.
_BRACKETED_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[A-Za-z0-9_]+\])*")


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


def _plain_pointer(field: str) -> str:
    # For a path of identifiers, indexes and bracketed names: nothing to escape or quote.
    return "#/" + field.replace(".", "/").replace("[", "/").replace("]", "")


def _escaped_pointer(field: str) -> str | None:
    segments = _segments(field)
    if not segments:
        return None
    escaped = (_quote(s.replace("~", "~0").replace("/", "~1")) for s in segments)
    return "#/" + "/".join(escaped)


def pointer_of(field: str) -> tuple[str | None, bool]:
    """The pointer of `field` (None when it has no segments), and whether the pointer
    gives `field` back through pointer_to_field (a simple path always does)."""
    found = _POINTERS.get(field)
    if found is None:
        found = _pointer_of(field)
        if len(_POINTERS) < _CACHED:  # an API names the same few fields again and again
            _POINTERS[field] = found
    return found


def _pointer_of(field: str) -> tuple[str | None, bool]:
    if field.isascii() and field.isidentifier():  # most fields are one plain name
        return "#/" + field, True
    if _SIMPLE_FIELD.fullmatch(field):
        return _plain_pointer(field), True
    if _BRACKETED_FIELD.fullmatch(field):
        # Known without the round trip: a bracketed name reads back as `.name`.
        return _plain_pointer(field), False
    pointer = _escaped_pointer(field)
    return pointer, pointer is not None and pointer_to_field(pointer) == field


def _quote(segment: str) -> str:
    # quote() returns a segment of safe characters unchanged; skip the call for those.
    return quote(segment, safe=_SAFE) if _NEEDS_QUOTING.search(segment) else segment


def pointer_to_field(pointer: str) -> str:
    """`#/items/0/price` or `/items/0/price` -> `items[0].price`."""
    found = _FIELDS.get(pointer)
    if found is None:
        found = _pointer_to_field(pointer)
        if len(_FIELDS) < _CACHED:
            _FIELDS[pointer] = found
    return found


# Both directions, remembered: bounded, as the names come from input.
_CACHED = 4096
_POINTERS: dict[str, tuple[str | None, bool]] = {}
_FIELDS: dict[str, str] = {}


def _pointer_to_field(pointer: str) -> str:
    if pointer[:2] == "#/":
        # A path of plain names and indexes (most pointers): nothing to unquote or
        # unescape, so the segments join as they are. Anything else, the general way.
        path = pointer[2:]
        if path.isascii() and path.isidentifier():  # one plain name
            return path
        plain = path.isascii() and path.replace("/", "_").isidentifier()  # word characters, not a digit first
        if plain and "//" not in path and path[0] != "/" and path[-1] != "/":  # and no empty segment
            first, *rest = path.split("/")
            return first + "".join([f"[{part}]" if part.isdigit() else "." + part for part in rest])
    return _pointer_to_field_any(pointer)


def _pointer_to_field_any(pointer: str) -> str:
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
