"""`fastapi`: FastAPI's (Starlette's, Pydantic's) error bodies. Decode only.

    {"detail": [{"type": "missing", "loc": ["body", "name"], "msg": "Field required", "input": ..., "ctx": ..., "url": ...}]}
    {"detail": "Not Found"}

A request that fails validation answers 422 with one item per error: Pydantic v2's
`type`, `loc`, `msg`, `input`, `ctx`, `url`, or Pydantic v1's `loc`, `msg`, `type`
(`value_error.missing`). Every item is a violation: its field is the `loc` without
the leading location word FastAPI adds (`body`, `query`, `path`, `header`, `cookie`),
joined with dots as Pydantic prints it (`["body", 0, "age"]` is `0.age`, `["query",
"q", 0]` is `q.0`); a `loc` that is only the location word (the whole body missing)
keeps it (`body`). Its `type` is the violation's reason, and the first item's `type`
is the code; the first field named is the param. A JSON syntax error's `loc` holds a
character position, not a field (`["body", 1]` for `json_invalid`, v1's
`value_error.jsondecode`): no field.

`HTTPException` answers `{"detail": "<text>"}`: the text is the detail. A bare body
has no status; a validation list is 422 (FastAPI's only status for it), and a text
that is exactly an HTTP reason phrase is the status Starlette wrote it for
(`HTTPException(404)` says "Not Found"); else 500 is assumed, and noted.

Kept as extensions: top-level members beside `detail` (custom handlers add `body`).
Not kept: an item's `input` (the caller's own input echoed back, which may hold
secrets no other format should copy), `ctx` and `url` (the constraint and the
documentation page of the `type`, which the `msg` and `type` already say).

Detection: a `detail` list of objects with `loc` and `msg` is FastAPI's alone; a lone
`{"detail": "<text>"}` is shared with Django REST framework, whose messages are
sentences ending in a full stop (Starlette's reason phrases and FastAPI's own
messages are not): those are left to `drf`.
"""

from __future__ import annotations

import http as _http_status
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import REASON_PHRASES
from ._base import LIKELY, STRONG, WEAK, Dialect, HttpInfo
from ._common import Reading
from ._vendor import extensions_of, grpc_code_of, status_of

__all__ = ["FastApi", "is_sentence"]

_LOCATIONS = frozenset(("body", "query", "path", "header", "cookie"))
# Pydantic's types whose `loc` ends in a character position of the JSON text, not a field.
_NO_FIELD_TYPES = frozenset(("json_invalid", "value_error.jsondecode"))
_DETAIL = frozenset(("detail",))


def _phrases() -> dict[str, int]:
    """Reason phrase -> 4xx/5xx status, as Starlette's HTTPException words a detail
    (`http.HTTPStatus(code).phrase`): this Python's phrases, RFC 9110's, and the older
    ones Python used before 3.13."""
    out = {s.phrase: s.value for s in _http_status.HTTPStatus if 400 <= s.value <= 599}
    out.update({phrase: status for status, phrase in REASON_PHRASES.items() if 400 <= status <= 599})
    for status, phrase in (
        (413, "Request Entity Too Large"),
        (414, "Request-URI Too Long"),
        (416, "Requested Range Not Satisfiable"),
        (422, "Unprocessable Entity"),
    ):
        out.setdefault(phrase, status)
    return out


_STATUS_FOR_PHRASE = _phrases()


def is_sentence(text: str) -> bool:
    """Whether a `detail` text is a sentence ending in a full stop, as Django REST
    framework's messages are ("Not found.", "Method \"DELETE\" not allowed.")."""
    return text.rstrip().endswith(".")


def _is_item(item: Any) -> bool:
    return type(item) is dict and type(item.get("loc")) is list and type(item.get("msg")) is str


def field_of(loc: list[Any], type_: Any) -> str:
    """The field a Pydantic `loc` names, as Pydantic prints it: the location word FastAPI
    puts first dropped, the rest joined with dots (`0.age`, `q.0`)."""
    if type(type_) is str and type_ in _NO_FIELD_TYPES:  # a `type` of another JSON type is no Pydantic type (and may not hash)
        return ""
    parts = [p for p in loc if (type(p) is str or type(p) is int)]
    if len(parts) != len(loc) or not parts:
        return ""
    if len(parts) > 1 and parts[0] in _LOCATIONS:
        parts = parts[1:]
    return ".".join(str(p) for p in parts)


class FastApi(Dialect):
    """FastAPI's `{"detail": ...}` error bodies (decode only)."""

    name = "fastapi"
    precedence = 220
    listed = 170
    keys = frozenset(("detail",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A `detail` list of Pydantic errors (`loc` and `msg`); or `detail` text alone,
        unless it is a full sentence (Django REST framework's)."""
        if type(value) is not dict:
            return 0.0
        detail = value.get("detail")
        if type(detail) is list:
            if detail and all(_is_item(item) for item in detail):
                return STRONG if len(value) == 1 else LIKELY
            return 0.0
        if type(detail) is str and len(value) == 1:
            # Ahead of problem's lone `detail` (WEAK, later in the precedence) either way.
            return WEAK if is_sentence(detail) else LIKELY
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict or "detail" not in value:
            raise DecodeError(f"a fastapi error is {{\"detail\": ...}}, got {shorten(value)}")
        detail = value["detail"]
        fields: dict[str, Any] = {}
        read: frozenset[str] = _DETAIL
        derived: int | None = None
        if type(detail) is str:
            fields["detail"] = detail
            derived = _STATUS_FOR_PHRASE.get(detail)
            if reading.seen is not None:
                reading.saw("text", "/detail", detail)
        elif type(detail) is list and any(_is_item(item) for item in detail):
            items = [item for item in detail if _is_item(item)]
            limit = reading.limits.max_violations
            if len(items) > limit:
                raise DecodeError(f"{len(items)} violations, over the limit of {limit} (Limits.max_violations)")
            violations = []
            for item in items:
                type_ = item.get("type")
                reason = type_ if type(type_) is str and type_ else None
                violations.append(Violation(field=field_of(item["loc"], type_), description=item["msg"], reason=reason))
            fields["violations"] = tuple(violations)
            first = violations[0].reason
            if first is not None:
                fields["code"] = first
            param = next((v.field for v in violations if v.field), None)
            if param is not None:
                fields["param"] = param  # the loc names it: stated, not inferred
            if len(items) < len(detail):
                read = frozenset()  # items of another shape: the list is kept whole, verbatim
            derived = 422  # RequestValidationError's only status
            if reading.seen is not None:
                reading.saw("violations", "/detail", detail)
        else:
            read = frozenset()  # a detail of another kind: kept verbatim, for no meaning
        if reading.seen is not None:
            reading.saw("body", "", "fastapi")
        fields["status"] = status = status_of(reading, None, derived, 500, "fastapi")
        fields["grpc_code"] = grpc_code_of(status, reading)
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None)
