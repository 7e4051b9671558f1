"""`jsonapi`: JSON:API error documents (`application/vnd.api+json`).

    {"errors": [{"id", "links": {"about", "type"}, "status": "422", "code", "title", "detail",
                 "source": {"pointer": "/data/attributes/email"}, "meta": {...}}]}

The first error object is the fault: `status` (a string, as the spec writes it), `code`,
`title`, `detail`; `links.type` is the problem type, `links.about` the instance; the
param comes from `source`: a `pointer` into the request document spelled as a field
path (`/data/attributes/firstName` is `data.attributes.firstName`, as every errconv
dialect spells a field; `""`, the whole document, names none), a query `parameter` or a
request `header` by its name. Several error objects give one violation each (their
source, their detail or title, their code); the status of several is the most general
one, as the spec asks servers to choose (the same for all, else 400 for 4xx only, else
500), when no HTTP status line gives it. `meta` holds errconv's agent fields (as the
problem dialect names them: `next_step`, `retry_after_seconds`, `alternatives`, ...);
other members of `meta`, `id`, members the spec does not define and the document's own
`jsonapi`, `meta` and `links` are kept as extension members.

Written: one error object for the fault (with its `source.pointer`), one more for each
violation it has beyond the first that the primary one already says, `meta` with
errconv's fields and the extension members (and errconv's own `errors` list when the
error objects alone would not give the violations back exactly), the `jsonapi` member
when the fault kept one.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import CODE_BY_NAME, code_for_http
from ._base import CERTAIN, LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, write_json
from ._pointer import pointer_of, pointer_to_field
from ._slot import read_slot, write_slot

__all__ = ["JsonApi"]

_MEMBERS = frozenset(("id", "links", "status", "code", "title", "detail", "source", "meta"))
_TOP = frozenset(("errors", "meta", "jsonapi", "links"))
_SOURCES = ("pointer", "parameter", "header")
_NATIVE = frozenset(("status", "code", "title", "detail", "type", "instance"))  # in meta: the object's own win


def _text(value: Any) -> str | None:
    return value if type(value) is str and value else None


def _status(value: Any) -> int | None:
    """An error object's status: a string of digits, as the spec writes it (an integer is read too)."""
    if type(value) is str and value.isascii() and value.isdigit() and len(value) == 3:
        value = int(value)
    return value if type(value) is int and 100 <= value <= 599 else None


def _source(source: Any) -> tuple[str | None, bool]:
    """The param a `source` names (None for none, or the whole document), and whether
    the member says nothing more (so it need not be kept)."""
    if type(source) is not dict:
        return None, False
    for kind in _SOURCES:
        value = source.get(kind)
        if type(value) is str:
            field = (pointer_to_field(value) if value.startswith("/") else value) if kind == "pointer" else value
            return field or None, source.keys() == {kind}
    return None, False


def _link(value: Any) -> str | None:
    if type(value) is dict:
        value = value.get("href")
    return _text(value)


def _links(links: Any) -> tuple[dict[str, str], bool]:
    """The problem type and instance in `links`, and whether that is all it says."""
    if type(links) is not dict:
        return {}, False
    out = {}
    for member, field in (("type", "type"), ("about", "instance")):
        link = _link(links.get(member))
        if link is not None:
            out[field] = link
    whole = all(k in ("type", "about") and _link(v) is not None and type(v) is str for k, v in links.items())
    return out, whole


def _violation(error: dict[str, Any]) -> Violation:
    field, _ = _source(error.get("source"))
    code = error.get("code")
    return Violation(
        field=field or "",
        description=_text(error.get("detail")) or _text(error.get("title")) or "",
        reason=_text(code) or (str(code) if type(code) is int else None),
    )


def _derived(errors: list[Any]) -> tuple[Violation, ...]:
    """The violations error objects say: one each, when there are several."""
    objects = [e for e in errors if type(e) is dict]
    return tuple(_violation(e) for e in objects) if len(objects) > 1 else ()


def _general(statuses: list[int]) -> int:
    """The most generally applicable status of several (JSON:API: 400 for several 4xx, 500 otherwise)."""
    if len(set(statuses)) == 1:
        return statuses[0]
    return 400 if all(400 <= s < 500 for s in statuses) else 500


def plain_pointer(field: str) -> str | None:
    """The RFC 6901 pointer (no `#`, not percent-encoded) of a field path, when it gives the path back."""
    pointer, _ = pointer_of(field)
    if pointer is None:
        return None
    plain = unquote(pointer[1:])
    return plain if pointer_to_field(plain) == field else None


class JsonApi(Dialect):
    """A JSON:API error document."""

    name = "jsonapi"
    precedence = 170
    listed = 210
    keys = frozenset(("errors",))
    ceiling = STRONG
    media_type = "application/vnd.api+json"

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A top-level `errors` list of error objects (JSON:API's members only, never a
        `message`, `status` a string), beside nothing but `meta`, `jsonapi` and `links`."""
        if type(value) is not dict:
            return 0.0
        errors = value.get("errors")
        if type(errors) is not list or not errors:
            return 0.0
        if http is not None and http.media_type == self.media_type:
            return CERTAIN
        if not value.keys() <= _TOP:
            return 0.0
        if not all(type(e) is dict and e and e.keys() <= _MEMBERS and type(e.get("status", "")) is str for e in errors):
            return 0.0
        if any(not e.keys().isdisjoint(("title", "detail", "source", "status")) for e in errors):
            return STRONG
        return LIKELY

    def decode(self, value: Any, reading: Reading) -> Fault:
        errors = value.get("errors") if type(value) is dict else None
        if type(errors) is not list or not any(type(e) is dict for e in errors):
            raise DecodeError(f'a JSON:API error document is {{"errors": [{{"status": ..., "detail": ...}}]}}, got {shorten(value)}')
        index, first = next((i, e) for i, e in enumerate(errors) if type(e) is dict)
        fields: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        stated = None
        grpc_name = None
        meta = first.get("meta")
        if type(meta) is dict:
            slot = read_slot(meta, reading)
            fields, stated, grpc_name = slot.fields, slot.stated, slot.grpc_name
            for name in _NATIVE:
                if name in fields and name in first:
                    del fields[name]  # the error object's own member says it
            extensions.update(slot.rest)
        consumed = {"meta"} if type(meta) is dict else set()
        for member, field in (("code", "code"), ("title", "title"), ("detail", "detail")):
            item = first.get(member)
            if type(item) is str:
                fields[field] = item
                consumed.add(member)
            elif member == "code" and type(item) is int:
                fields["code"] = str(item)  # a numeric code, as the code's string
                consumed.add(member)
        if "status" in first and _status(first["status"]) is not None:
            consumed.add("status")
        links, whole = _links(first.get("links"))
        for field, link in links.items():
            fields.setdefault(field, link)
        if whole:
            consumed.add("links")
        param, whole = _source(first.get("source"))
        if param is not None and "param" not in fields:
            fields["param"] = param
        if whole:
            consumed.add("source")
        for name, item in first.items():
            if name not in consumed:
                extensions.setdefault(name, item)
        for name, item in value.items():
            if name != "errors":
                extensions.setdefault(name, item)
        if "violations" not in fields:
            derived = _derived(errors)
            if len(derived) > reading.limits.max_violations:
                raise DecodeError(f"{len(derived)} JSON:API errors, over the limit of {reading.limits.max_violations} (Limits.max_violations)")
            if derived:
                fields["violations"] = derived
        statuses = [s for s in (_status(e.get("status")) for e in errors if type(e) is dict) if s is not None]
        body_status = _status(first.get("status"))
        status: int
        if reading.status is not None:
            reading.http_status_wins(body_status)  # notes a body that says otherwise
            status = reading.status
        elif statuses:
            status = _general(statuses)
            if len(set(statuses)) > 1:
                reading.notes += (f"error objects of statuses {sorted(set(statuses))}; {status}, the most general, taken",)
                reading.inferred += ("status",)
        else:
            status = 400 if any(type(e) is dict and "source" in e for e in errors) else 500
            reading.notes += (f"no status in the document; {status} assumed",)
            reading.inferred += ("status",)
        if grpc_name is not None:
            grpc_code = CODE_BY_NAME[grpc_name]
        else:
            grpc_code = code_for_http(status)
            reading.inferred += ("grpc_code",)
        fields["status"], fields["grpc_code"] = status, grpc_code
        reading.keep_extensions(fields, extensions)
        if reading.seen is not None:
            reading.saw("body", "", "jsonapi")
            for name in ("title", "detail"):
                if type(first.get(name)) is str:
                    reading.saw("text", f"/errors/{index}/{name}", first[name])
            if stated is not None:
                reading.saw("next_step", f"/errors/{index}/meta/next_step", meta["next_step"])  # type: ignore[index]
        return reading.finish(fields, stated)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        status = str(fault.status)
        ext = fault.extensions
        primary: dict[str, Any] = {}
        if type(ext.get("id")) is str:
            primary["id"] = ext["id"]
        links = {}
        if fault.instance is not None:
            links["about"] = fault.instance
        if fault.type is not None:
            links["type"] = fault.type
        if links:
            primary["links"] = links
        primary["status"] = status
        if fault.code is not None:
            primary["code"] = fault.code
        if fault.title is not None:
            primary["title"] = fault.title
        if fault.detail is not None:
            primary["detail"] = fault.detail
        pointer = plain_pointer(fault.param) if fault.param is not None else None
        if pointer is not None:
            primary["source"] = {"pointer": pointer}
        drop = set(_NATIVE)
        if pointer is not None:
            drop.add("param")
        skip = {name for name in ("id", "jsonapi") if name in primary or (name == "jsonapi" and type(ext.get(name)) is dict)}
        meta = write_slot(fault, keep_debug=writing.keep_debug, drop=frozenset(drop), skip=frozenset(skip))
        errors: list[dict[str, Any]] = [primary]
        vs = fault.violations
        if vs:
            more = [_object(v, status) for v in vs[1:]]
            if _derived([primary, *more]) != vs:
                more = [_object(v, status) for v in vs]
            if _derived([primary, *more]) == vs:
                meta.pop("errors", None)  # the error objects say them
            errors.extend(more)
        else:
            meta.pop("errors", None)
        if meta:
            primary["meta"] = meta
        doc: dict[str, Any] = {}
        if "jsonapi" in skip:
            doc["jsonapi"] = ext["jsonapi"]
        doc["errors"] = errors
        return write_json(doc)


def _object(v: Violation, status: str) -> dict[str, Any]:
    """The error object of one violation."""
    out: dict[str, Any] = {"status": status}
    if v.reason is not None:
        out["code"] = v.reason
    if v.description:
        out["detail"] = v.description
    pointer = plain_pointer(v.field) if v.field else None
    if pointer is not None:
        out["source"] = {"pointer": pointer}
    return out
