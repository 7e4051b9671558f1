"""The dialects errconv reads and writes, in one registry.

Every dialect is one module implementing the `Dialect` protocol (`_base.py`); the
registry finds the built-in ones by the naming rule below, and is what `detect`,
HTTP body selection, `encode(..., "http+<name>")`, `losses`, lint, the command line
and the test suites iterate. `register_dialect(dialect)` adds one at run time;
installed packages add theirs through the entry-point group `errconv.dialects` (an
entry point names a Dialect subclass or instance), loaded the first time the
registry is used.

Ambiguous shapes are settled by each dialect's `precedence`: when two dialects
recognise a body equally strongly (see `_base.CERTAIN` and the rest), the lower
number wins (the narrower shape before the wider one it resembles, research/dialects.md
section 10); dialects that state none (plugins) come after, in the order they registered.

Naming rule: the dialect `name` lives in `errconv.dialects.<module>`, where `module`
is the name with `-` and `+` as `_`; its golden files are `golden/<case>/<name>.<suffix>`
(`+` as `-`), its tests `tests/dialects/test_<module>.py`. A module of this package
without a leading `_` is a dialect's.
"""

from __future__ import annotations

import importlib
import threading
import typing
from collections.abc import Iterator
from typing import Any

from .._model.errors import ContractError, DecodeError, ErrconvError, UnknownDialectError
from .._model.fault import set_extension_check
from ._base import CERTAIN, LIKELY, STRONG, WEAK, Dialect, HttpInfo
from ._common import Headers, Reading, Writing

__all__ = [
    "CERTAIN",
    "LIKELY",
    "STRONG",
    "WEAK",
    "Dialect",
    "Headers",
    "HttpInfo",
    "Reading",
    "Writing",
    "body_dialects",
    "get",
    "names",
    "register_dialect",
    "registered",
    "reserved_names",
    "unregister_dialect",
]

# The protocol's types are documented here, where callers reach them: they say so.
for _public in (Dialect, HttpInfo, Headers, Reading, Writing):
    try:
        if "__annotations__" in vars(_public):  # text (PEP 563), resolved where it was written
            _hints = typing.get_type_hints(_public)
            _public.__annotations__ = {key: _hints[key] for key in vars(_public)["__annotations__"]}
        _public.__module__ = __name__
    except (AttributeError, TypeError):  # a class compiled by mypyc keeps its own
        pass

ENTRY_POINTS = "errconv.dialects"

_lock = threading.RLock()
_dialects: dict[str, Dialect] = {}  # by name, in listing order
_http: dict[str, Dialect] = {}  # http+<name>, for every registered dialect with a media type that encodes
_reserved: dict[str, str] | None = None
_ranked: tuple[Dialect, ...] | None = None  # the registry in precedence order
_loaded = False


def _ensure() -> dict[str, Dialect]:
    if not _loaded:
        _load()
    return _dialects


def _load() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        for dialect in sorted(_built_in(), key=lambda d: d.listed):
            _add(dialect)
        _loaded = True  # before the plugins: a plugin may call register_dialect itself
        # Read here, not at import: importlib.metadata costs more to import than errconv's own modules.
        from importlib import metadata

        for entry in metadata.entry_points(group=ENTRY_POINTS):
            try:
                found = entry.load()
                register_dialect(found() if isinstance(found, type) else found)
            except ErrconvError:
                raise
            except Exception as exc:  # a broken plugin must say so, not break errconv silently
                raise ErrconvError(f"the dialect plugin {entry.name!r} ({entry.value}) failed to load: {exc}") from exc


def _built_in() -> list[Dialect]:
    """The dialect of every module of this package by the naming rule: a module whose name
    has no leading `_` holds the Dialect subclass whose `name` gives that module name
    (a subclass that keeps its parent's name, like `http+<name>`'s, is not another one)."""
    import pkgutil  # here, not at import: the scan runs once, when the registry is first used

    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Dialect)
                and value.__module__ == module.__name__
                and value.name
                and value.name != getattr(value.__mro__[1], "name", None)
                and value.name.replace("-", "_").replace("+", "_") == info.name
            ):
                found.append(value())
    return found


def _add(dialect: Dialect) -> None:
    global _reserved, _ranked
    _dialects[dialect.name] = dialect
    _http.clear()
    _reserved = _ranked = None
    _forms.clear()
    _media.clear()
    _claimants.clear()


def register_dialect(dialect: Dialect | type[Dialect], *, replace: bool = False) -> Dialect:
    """Add a dialect (an instance or a subclass of `Dialect`) to the registry.

    It takes part in everything from then on: `detect`, `decode`, `encode`, `convert`,
    `losses`, `http+<name>` when it has a media type, HTTP body selection, lint and the
    command line. A name already taken raises `ErrconvError` unless `replace`.

    >>> class Tiny(Dialect):
    ...     name = "tiny-doc-example"
    >>> register_dialect(Tiny).name
    'tiny-doc-example'
    >>> unregister_dialect("tiny-doc-example")
    """
    instance = dialect() if isinstance(dialect, type) else dialect
    if not isinstance(instance, Dialect):
        raise ErrconvError(f"a dialect is an errconv.Dialect, got {type(instance).__name__}")
    name = instance.name
    if not isinstance(name, str) or not name or name.startswith("http+") or any(c.isspace() for c in name):
        raise ErrconvError(f"a dialect needs a name without spaces that does not start with http+, got {name!r}")
    if instance.form not in ("json", "bytes", "pairs", "http"):
        raise ErrconvError(f"dialect {name}: form must be json, bytes, pairs or http, got {instance.form!r}")
    with _lock:
        _ensure()
        if name in _dialects and not replace:
            raise ErrconvError(f"a dialect named {name!r} is registered already (replace=True to replace it)")
        _add(instance)
    return instance


def unregister_dialect(name: str) -> None:
    """Take a dialect (and its `http+` form) out of the registry."""
    global _reserved, _ranked
    with _lock:
        _ensure()
        _dialects.pop(name, None)
        _http.clear()
        _reserved = _ranked = None
        _forms.clear()
        _media.clear()


def registered() -> tuple[Dialect, ...]:
    """Every registered dialect, in precedence order (without the `http+` forms)."""
    return tuple(_ensure().values())


def names() -> tuple[str, ...]:
    """Every dialect name `encode` and `decode` take: the registered dialects, then the
    `http+<name>` forms."""
    return (*_ensure(), *_http_forms())


def _http_forms() -> dict[str, Dialect]:
    """`http+<name>` for every registered dialect with a media type that encodes, made by
    the dialect of form `http` (its `body_form`); built when first asked for."""
    if not _http:
        with _lock:
            wrapper = next((d for d in _ensure().values() if d.form == "http"), None)
            if wrapper is not None:
                for dialect in tuple(_dialects.values()):
                    if dialect.media_type is not None and dialect.encodes and dialect is not wrapper:
                        form = wrapper.body_form(dialect)
                        _http[form.name] = form
    return _http


def ranked() -> tuple[Dialect, ...]:
    """The registered dialects in precedence order."""
    global _ranked
    found = _ranked
    if found is None:
        found = _ranked = tuple(sorted(_ensure().values(), key=lambda d: d.precedence))  # stable: then as registered
        _forms.clear()
        _media.clear()
    return found


def body_dialects() -> tuple[Dialect, ...]:
    """The dialects that can be the body of an HTTP response (they have a media type),
    in precedence order."""
    return by_form("body")


def get(name: str) -> Dialect:
    """The dialect called `name`; UnknownDialectError with the closest names otherwise."""
    if not _loaded:
        _load()
    try:
        return _dialects.get(name) or _http_forms()[name]
    except (KeyError, TypeError):
        pass
    known = names()
    import difflib  # only for a name that is not there

    close = difflib.get_close_matches(str(name), known, n=2)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise UnknownDialectError(f"unknown dialect {name!r}{hint}; one of: {', '.join(known)}")


def reserved_names() -> dict[str, str]:
    """Every member name some registered dialect reserves, with the first dialect that does."""
    global _reserved
    found = _reserved
    if found is None:
        found = {}
        for dialect in _ensure().values():
            for member in sorted(dialect.reserved):
                found.setdefault(member, dialect.name)
        _reserved = found
    return found


def check_extensions(extensions: dict[str, Any]) -> None:
    """Refuse an extension member named like a registered dialect's own member, where it
    would not come back as an extension (`Fault.build` asks this)."""
    reserved = reserved_names()
    for key in extensions:
        if key in reserved:
            raise ContractError(
                f"extension member {key!r} is a member name of the {reserved[key]} dialect, where it would not come "
                "back as an extension; set the field of that meaning or pick another name"
            )


set_extension_check(check_extensions)


def strongest(
    value: Any, http: HttpInfo | None, candidates: Iterator[Dialect] | tuple[Dialect, ...], raw: Any = None
) -> Dialect | None:
    """The candidate that recognises the input most strongly, the first among equals
    (candidates come in precedence order); None when none does. The one detection every
    path asks (decode, detect, lint, bare bodies, HTTP bodies): a `json` dialect is shown
    `value`, the input parsed, and any other the input as it came, `raw` (when it differs:
    an HTTP body; `value` is then the raw bytes too for a body that is no JSON)."""
    if raw is None:
        raw = value
    if type(value) is dict and type(candidates) is tuple:
        return best_claim(claimants(candidates, value, http), value, raw, http)
    best, score = None, 0.0
    for dialect in candidates:
        if score and dialect.ceiling <= score and (
            http is None or http.media_type in GENERIC_MEDIA or (http.media_type != dialect.media_type and http.media_type not in dialect.media_types)
        ):
            continue  # it cannot beat the claim found (the general reader, most often): not asked
        claim = dialect.recognise(value if dialect.form == "json" else raw, http)
        if claim > score:
            if claim >= CERTAIN:
                return dialect  # nothing claims more, and among equals the earlier wins
            best, score = dialect, claim
    return best


Claimant = tuple[Dialect, float, bool]  # a dialect, its ceiling here, whether it reads the JSON value


def best_claim(plan: tuple[Claimant, ...], value: Any, raw: Any, http: HttpInfo | None) -> Dialect | None:
    """The claimant of `plan` that recognises the body most strongly, the first among
    equals; a claimant whose ceiling cannot beat the best claim so far is not asked."""
    best, score = None, 0.0
    for dialect, ceiling, reads_value in plan:
        if ceiling <= score:
            continue
        claim = dialect.recognise(value if reads_value else raw, http)
        if claim > score:
            if claim >= CERTAIN:
                return dialect  # nothing claims more, and among equals the earlier wins
            best, score = dialect, claim
    return best


def claimants(candidates: tuple[Dialect, ...], value: dict[str, Any], http: HttpInfo | None) -> tuple[Claimant, ...]:
    """The candidates that may recognise the JSON object `value`: those whose `keys` it
    has one of (or with no keys, or whose own media type the response names), each with
    the strongest claim it can make here."""
    # A media type of the dialect's own (not application/json, which most share) names it
    # whatever the members, and lifts its ceiling.
    media = "" if http is None or http.media_type in GENERIC_MEDIA else http.media_type
    small = len(value) <= 16
    if small:
        key = (id(candidates), media, *value)
        hit = _claimants.get(key)
        if hit is not None and hit[0] is candidates:  # (an id is only unique while its tuple lives)
            return hit[1]
    found = []
    for d in candidates:
        named = bool(media) and (media == d.media_type or media in d.media_types)
        if named or d.keys is None or not value.keys().isdisjoint(d.keys):
            found.append((d, CERTAIN if named else d.ceiling, d.form == "json"))
    plan = tuple(found)
    if small:
        if len(_claimants) >= 1024:
            _claimants.clear()  # bounded, whatever shapes an input stream holds
        _claimants[key] = (candidates, plan)
    return plan


_claimants: dict[tuple[Any, ...], tuple[tuple[Dialect, ...], tuple[Claimant, ...]]] = {}


def by_form(form: str) -> tuple[Dialect, ...]:
    """The dialects that decode `form`, in precedence order."""
    found = _forms.get(form)
    if found is None:
        found = _forms[form] = tuple(
            d for d in ranked() if (d.media_type is not None if form == "body" else d.form == form)
        )
    return found


_forms: dict[str, tuple[Dialect, ...]] = {}
# Media types that many dialects share: they name none of them.
GENERIC_MEDIA = frozenset(("application/json", "text/plain", "text/html", ""))


def by_media(media: str) -> Dialect | None:
    """The body dialect a specific media type names (`application/problem+json`), the
    first in precedence order; None for a generic one (`application/json`), which many
    dialects share."""
    if media in GENERIC_MEDIA:
        return None
    if not _loaded:
        _load()
    index = _media
    if not index:
        for dialect in by_form("body"):
            for name in (dialect.media_type, *dialect.media_types):
                if name not in GENERIC_MEDIA:
                    index.setdefault(name, dialect)  # type: ignore[arg-type]
        index[""] = None  # built
    return index.get(media)


_media: dict[str, Dialect | None] = {}


def no_dialect(value: Any) -> DecodeError:
    """The error for JSON that no dialect recognises: it names the top-level members."""
    if isinstance(value, dict):
        members = ", ".join(repr(k) for k in list(value)[:8]) + (", ..." if len(value) > 8 else "")
        shape = f"an object with the members {members}" if value else "an empty object"
    elif isinstance(value, list):
        shape = "an array"
    else:
        shape = f"a JSON {type(value).__name__}"
    return DecodeError(
        f"no dialect recognises this JSON ({shape}); name the dialect, or give the HTTP status it came with (status=)"
    )


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
