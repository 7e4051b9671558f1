"""Content negotiation for error responses: which dialect answers a given `Accept`.

The offers, in the server's order of preference:

- `application/problem+json`: the problem dialect;
- `application/json`: the configured JSON dialect (`json_dialect`: problem, google,
  stripe, ...), so a client that wants plain JSON gets the envelope it knows;
- the media type of every other registered body dialect with one of its own
  (`application/vnd.tiny+json`).

Each offer's quality is the q of the most specific range that covers it (RFC 9110
12.5.1: an exact type beats `type/*`, which beats `*/*`; `q=0` excludes). The best
quality wins; among equals, an offer the client named exactly beats one it reached
through a wildcard, and a wildcard answers with the default dialect. No Accept (or one
of which nothing parses) is the default dialect; an Accept that nothing satisfies is
answered with problem+json anyway, never a 406 (RFC 9457 section 3 practice: an error
is better sent in a format the client did not ask for than not at all).

The label follows the negotiation: a problem body reached through `application/json`
goes out as `application/json`, for clients that refuse the `+json` type.
"""

from __future__ import annotations

import functools
import re

from .._model.errors import DecodeError, UnknownDialectError
from ..dialects import Dialect, body_dialects, get

__all__ = ["Choice", "body_dialect", "negotiate", "parse_accept"]

PROBLEM_JSON = "application/problem+json"
JSON = "application/json"
# An Accept value is read up to this many characters and this many ranges: the rest
# cannot change the answer in any real request, and an unbounded one is a denial of
# service on every failing request.
_MAX_ACCEPT = 8192
_MAX_RANGES = 64
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_RANGE = re.compile(rf"\s*({_TOKEN})/({_TOKEN})\s*((?:;[^;]*)*)")
_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_QVALUE = re.compile(r"(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)")

Range = tuple[str, str, float]  # type, subtype (lower case), q


class Choice:
    """What negotiation settled: the dialect to write and the Content-Type to label it with."""

    __slots__ = ("dialect", "content_type")

    def __init__(self, dialect: Dialect, content_type: str) -> None:
        self.dialect = dialect
        # A plugin's media type is text it chose: checked once here, not on every answer.
        self.content_type = _UNSAFE.sub(" ", content_type).strip()

    def __repr__(self) -> str:
        return f"Choice({self.dialect.name!r}, {self.content_type!r})"


def parse_accept(accept: str) -> list[Range] | None:
    """The media ranges of an Accept value as (type, subtype, q); None when nothing in
    it parses (which is read as no Accept at all). A range whose q is no qvalue is left
    out: guessing a quality for it could pick what the client refused."""
    ranges: list[Range] = []
    seen_any = False
    for item in accept[:_MAX_ACCEPT].split(",")[:_MAX_RANGES]:
        if not item.strip():
            continue
        m = _RANGE.fullmatch(item)
        if m is None:
            continue
        seen_any = True
        kind, sub, params = m.group(1).lower(), m.group(2).lower(), m.group(3)
        if kind == "*" and sub != "*":
            continue  # `*/json` is no media range
        q = 1.0
        for param in params.split(";")[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                text = value.strip()
                if not _QVALUE.fullmatch(text):
                    q = -1.0
                else:
                    q = float(text)
                break  # parameters after q are accept-extensions
        if q >= 0:
            ranges.append((kind, sub, q))
    return ranges if seen_any else None


def _quality(media_type: str, ranges: list[Range]) -> tuple[float, int]:
    """The q of the most specific range covering `media_type`, and that specificity
    (2 exact, 1 `type/*`, 0 `*/*`, -1 none covers it). Equally specific ranges: the
    highest q."""
    kind, _, sub = media_type.partition("/")
    best_q, best_spec = 0.0, -1
    for r_kind, r_sub, q in ranges:
        if r_kind == kind and r_sub == sub:
            spec = 2
        elif r_kind == kind and r_sub == "*":
            spec = 1
        elif r_kind == "*":
            spec = 0
        else:
            continue
        if spec > best_spec or (spec == best_spec and q > best_q):
            best_q, best_spec = q, spec
    return best_q, best_spec


def _own_type(dialect: Dialect) -> str:
    return dialect.content_type or dialect.media_type or JSON


# Both caches hold for one state of the registry: body_dialects() returns the same
# tuple until a dialect is registered or removed, and a new tuple empties them.
_registry: tuple[Dialect, ...] | None = None
_checked: dict[str, Dialect] = {}


def _current() -> None:
    global _registry
    registry = body_dialects()
    if registry is not _registry:
        _checked.clear()
        _negotiate.cache_clear()
        _registry = registry


def body_dialect(name: str) -> Dialect:
    """The registered dialect `name`, which must be able to be an HTTP body (a media
    type, encodes, not a whole response); DecodeError naming the ones that can."""
    _current()
    return _checked.get(name) or _check(name)


def _check(name: str) -> Dialect:
    found = get(name)
    if found.media_type is None or not found.encodes or found.form == "http":
        bodies = ", ".join(d.name for d in body_dialects() if d.encodes)
        raise UnknownDialectError(f"{name} is not an HTTP body dialect; one of: {bodies}")
    _checked[name] = found
    return found


def negotiate(accept: str | None, default: str, json_dialect: str | None = None) -> Choice:
    """The dialect and label for an error answering a request with this `accept`
    (None: no negotiation, the default). `json_dialect` answers `application/json`;
    None is the default when that is a JSON dialect, else problem. Both names are
    checked to be body dialects."""
    if accept is not None and len(accept) > _MAX_ACCEPT:
        accept = accept[:_MAX_ACCEPT]  # also bounds what the cache below holds
    _current()
    return _negotiate(accept, default, json_dialect)


@functools.lru_cache(maxsize=512)
def _negotiate(accept: str | None, default: str, json_dialect: str | None) -> Choice:
    registry = body_dialects()
    own = _checked.get(default) or _check(default)
    if json_dialect is None:
        json_dialect = default if own.form == "json" else "problem"
    elif json_dialect not in _checked:
        _check(json_dialect)
    fallback = Choice(own, _own_type(own))
    ranges = parse_accept(accept) if accept is not None else None
    if ranges is None:
        return fallback
    offers: dict[str, str] = {PROBLEM_JSON: "problem", JSON: json_dialect}
    for dialect in registry:
        if dialect.encodes and dialect.form != "http" and dialect.media_type:
            offers.setdefault(dialect.media_type.lower(), dialect.name)
    default_type = (own.media_type or JSON).lower()
    best: tuple[float, int, int] | None = None
    chosen = ""
    for media_type in offers:
        q, spec = _quality(media_type, ranges)
        if q <= 0:
            continue
        # Exact beats wildcard at equal q; then the default's own type; then our order.
        key = (q, 2 if spec == 2 else 0, 1 if media_type == default_type else 0)
        if best is None or key > best:
            best, chosen = key, media_type
    if best is None:
        problem = get("problem")
        return Choice(problem, _own_type(problem))
    if best[1] == 0 and best[2] == 1:
        return fallback  # a wildcard reached the default's own type: the default answers
    dialect = get(offers[chosen])
    its_type = (dialect.media_type or "").lower()
    return Choice(dialect, _own_type(dialect) if its_type == chosen else chosen)
