"""Bodies built to cost a decoder the most per byte (issue 23, hostile round three).

Each is a real body of one dialect (a golden file or a tests/realworld/ capture) with one
payload put where the dialect's decoder looks: a new top-level member, in place of a list
(`details`, `errors`, ...), a string, or an object. The payloads are what parsers and
decoders pay most for per byte: numbers with a large exponent (msgspec's slow path),
300-digit integers and mantissas, many keys, the same key again and again, escapes,
surrogate pairs, deep and wide nesting, many small objects and strings, and a list of
copies of the list's own first item (so a decoder walks what it knows)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from typing import Any

import fuzz_inputs as fi

SIZE = 1_000_000  # under Limits.max_bytes (1 MiB), so the body is read, not refused at the door


def _items(item: bytes, budget: int) -> bytes:
    count = max(1, budget // (len(item) + 1))
    return b",".join([item] * count)


def _payloads(budget: int) -> dict[str, Callable[[Any], bytes]]:
    """Name -> a function of the replaced value giving the payload's JSON text."""

    def listing(item: bytes) -> Callable[[Any], bytes]:
        return lambda _old: b"[" + _items(item, budget) + b"]"

    def keys(_old: Any) -> bytes:
        count = budget // 14
        return b"{" + b",".join(b'"k%07d":0' % i for i in range(count)) + b"}"

    def dup_keys(_old: Any) -> bytes:
        return b"{" + _items(b'"code":1', budget) + b"}"

    def text(escape: bytes) -> Callable[[Any], bytes]:
        return lambda _old: b'"' + escape * max(1, budget // len(escape)) + b'"'

    def deep(_old: Any) -> bytes:
        depth = budget // 2
        return b"[" * depth + b"]" * depth

    def deep_wide(_old: Any) -> bytes:
        unit = b"[" * 30 + b"1" + b"]" * 30
        return b"[" + _items(unit, budget) + b"]"

    def copies(old: Any) -> bytes:
        if isinstance(old, list) and old:
            return b"[" + _items(json.dumps(old[0], separators=(",", ":")).encode(), budget) + b"]"
        return b"[" + _items(b"{}", budget) + b"]"

    return {
        "big-exponents": listing(b"1e+308"),
        "mid-exponents": listing(b"1.5e+99"),
        "long-integers": listing(b"9" * 300),
        "long-mantissas": listing(b"1." + b"7" * 300),
        "many-keys": keys,
        "same-key": dup_keys,
        "unicode-escapes": text(b"\\u00e9"),
        "surrogate-pairs": text(b"\\ud83d\\ude00"),
        "quote-escapes": text(b'\\"\\\\'),
        "deep": deep,
        "deep-and-wide": deep_wide,
        "small-objects": listing(b'{"a":[]}'),
        "short-strings": listing(b'"a"'),
        "copies": copies,
    }


def _places(obj: Any, limit: int = 8) -> list[tuple[Any, Any]]:
    """(container, key) pairs where a payload goes: the top level (a new member) first,
    then lists, strings and objects inside, shallow ones first."""
    found: list[tuple[Any, Any]] = []
    if isinstance(obj, dict):
        found.append((obj, "zz_payload"))
    queue: list[Any] = [obj]
    while queue and len(found) < limit:
        node = queue.pop(0)
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(pairs)[:20]:
            if isinstance(value, (list, dict, str)):
                found.append((node, key))
            if isinstance(value, (list, dict)):
                queue.append(value)
    return found[:limit]


_HOLE = "\x00payload\x00"


def bodies(size: int = SIZE, only: Collection[str] | None = None) -> Iterator[tuple[str, str, bytes]]:
    """(dialect, label, body) for one seed of every JSON dialect, every place, every payload;
    with `only`, just those labels (the others are not made: at 1 MB, all of them are 2 GB)."""
    seen: set[str] = set()
    for label, data in fi.SEEDS:
        dialect = fi.seed_dialect(label)
        if label.startswith("http+") or dialect in seen:
            continue
        try:
            obj = json.loads(data)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        seen.add(dialect)
        for where, (container, key) in enumerate(_places(obj)):
            old = container[key] if not (isinstance(container, dict) and key not in container) else None
            shell = json.dumps(obj, separators=(",", ":"))
            container[key] = _HOLE
            template = json.dumps(obj, separators=(",", ":")).encode()
            if isinstance(container, dict) and old is None and key == "zz_payload":
                del container[key]
            else:
                container[key] = old
            assert json.dumps(obj, separators=(",", ":")) == shell
            hole = json.dumps(_HOLE).encode()
            budget = size - len(template) + len(hole)
            for name, make in _payloads(budget).items():
                label = f"{dialect}:{where}:{key}:{name}"
                if only is None or label in only:
                    yield dialect, label, template.replace(hole, make(old))
