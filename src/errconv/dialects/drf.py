"""`drf`: Django REST framework's error bodies. Decode only.

    {"detail": "Method \"DELETE\" not allowed."}
    {"amount": ["A valid integer is required."], "items": [{}, {"qty": ["Ensure this value is greater than 0."]}]}
    ["This field is required."]

An `APIException` answers `{"detail": "<text>"}` with the status of its class; a
`ValidationError` answers the serializer's errors: a map of field to messages, nested
for nested serializers (`a.b`) and lists of them for `many=True` (`items.1.qty`),
`non_field_errors` for the object as a whole (no field), or a list of messages when
raised with one. Every message is a violation; the first field named is the param.
DRF writes no machine code in the body (its `ErrorDetail.code` stays on the server),
so there is none.

The status: the wire's. A bare body has none; a field map or a list is a validation
error (400), and `detail` texts in DRF's fixed English wording name their exception
class and so its status (`Request was throttled.` 429, `Not found.` 404, `Method
"X" not allowed.` 405, ...); else 500 is assumed, and noted. Nothing else in a text is
read: Throttled's appended "Expected available in N seconds." is recognised as
Throttled's, but its number is not taken as the delay (the corpus's rule is that a
delay comes from a header or a field, never from prose; inside HTTP, DRF sends the
same number as `Retry-After`, which is read). The wording is DRF's default English;
a translated or custom text is just the detail.

Next step: the status ladder, except for the three exceptions whose request must
change although their status reads as "not served here" (405 MethodNotAllowed, 406
NotAcceptable, 415 UnsupportedMediaType): fix_request.

Detection is heuristic and comes last: `{"detail": "<text>"}` alone is DRF's when the
text is in DRF's wording (STRONG) or is a sentence ending in a full stop as Django's
messages are (LIKELY; otherwise it is left to `fastapi`, whose shape it also is); a
field map or a list of messages only at HTTP 400.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import NextStep
from ._base import LIKELY, STRONG, WEAK, Dialect, HttpInfo
from ._common import Reading
from .fastapi import is_sentence
from ._vendor import extensions_of, grpc_code_of, status_of

__all__ = ["Drf"]

# DRF's fixed English texts (rest_framework/exceptions.py, authentication.py,
# pagination.py; old releases quoted with ' where new ones use "), each with the status
# of its exception class, or None where the class answers 401 or 403 depending on the
# authentication scheme (a WWW-Authenticate challenge or not).
_WORDING: tuple[tuple[re.Pattern[str], int | None], ...] = tuple(
    (re.compile(pattern), status)
    for pattern, status in (
        (r"Request was throttled\.(?: ?Expected available in [0-9]{1,12} seconds?\.)?", 429),
        # Throttled appends its sentence to a custom detail too.
        (r".{1,1000} Expected available in [0-9]{1,12} seconds?\.", 429),
        (r"Malformed request\.", 400),
        (r"JSON parse error - .{0,1000}", 400),
        (r"Not found\.", 404),
        (r"Invalid page\.", 404),
        (r"No .{1,200} matches the given query\.", 404),  # Django's Http404, as DRF relays it
        (r"You do not have permission to perform this action\.", 403),
        (r"Method [\"'][^\"']{1,40}[\"'] not allowed\.", 405),
        (r"Could not satisfy the request(?:'s)? Accept header\.?", 406),
        (r"Unsupported media type [\"'][^\"']{0,200}[\"'] in request\.", 415),
        (r"A server error occurred\.", 500),
        (r"Authentication credentials were not provided\.", None),
        (r"Incorrect authentication credentials\.", None),
        (r"Invalid token\.", None),
        (r"Invalid token header\..{0,200}", None),
        (r"Invalid username/password\.", None),
        (r"User inactive or deleted\.", None),
    )
)
# The exceptions whose request must change, though their status reads as "not served
# here" or "no such thing" to the ladder (UNIMPLEMENTED, FAILED_PRECONDITION): a retry of
# the same call can never succeed, a call with another method, Accept or Content-Type can.
_FIX_BY_STATUS = {
    405: (NextStep.FIX_REQUEST, "DRF MethodNotAllowed (HTTP 405)"),
    406: (NextStep.FIX_REQUEST, "DRF NotAcceptable (HTTP 406)"),
    415: (NextStep.FIX_REQUEST, "DRF UnsupportedMediaType (HTTP 415)"),
}
_NON_FIELD = "non_field_errors"  # DRF's default NON_FIELD_ERRORS_KEY
_DETAIL = frozenset(("detail",))
_MISSING = object()
_BUDGET = 10_000  # entries the field-map check looks at, at most: bounded work per body


def _wording(text: str) -> tuple[bool, int | None]:
    """Whether `text` is one of DRF's fixed texts, and the status it implies."""
    if len(text) > 1200:
        return False, None
    for pattern, status in _WORDING:
        if pattern.fullmatch(text):
            return True, status
    return False, None


def _messages(value: Any) -> bool:
    return type(value) is list and bool(value) and all(type(m) is str for m in value)


# Member names that wrap an error (GitLab's {"message": {...}}, Hugging Face's {"error": [...]}).
_ENVELOPES = frozenset(("message", "error", "errors", "detail"))


def _is_field_map(value: Any, budget: list[int]) -> bool:
    """A serializer's errors: every value a list of messages, a nested map, or a list of
    nested maps (`{}` for the items that passed); `budget` bounds the walk."""
    if type(value) is not dict or not value:
        return False
    stack = [value]
    while stack:
        node = stack.pop()
        for entry in node.values():
            budget[0] -= 1
            if budget[0] < 0:
                return False
            if _messages(entry):
                continue
            if type(entry) is dict and entry:
                stack.append(entry)
            elif type(entry) is list and entry and all(type(e) is dict for e in entry):
                stack.extend(e for e in entry if e)
            else:
                return False
    return True


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _violations(value: dict[str, Any], reading: Reading) -> tuple[tuple[Violation, ...], dict[str, Any]]:
    """Every message of a field map as a violation, in the body's order, and the
    top-level members of a shape no serializer writes (kept verbatim)."""
    out: list[Violation] = []
    kept: dict[str, Any] = {}
    limit = reading.limits.max_violations
    # Depth first, in order: one iterator per open map (or list of maps), with its path.
    stack: list[tuple[str, Iterator[tuple[str, Any]]]] = [("", iter(value.items()))]
    while stack:
        prefix, members = stack[-1]
        member = next(members, None)
        if member is None:
            stack.pop()
            continue
        key, entry = member
        field = prefix if key == _NON_FIELD else _join(prefix, str(key))
        if type(entry) is str:
            entry = [entry]
        if type(entry) is list and entry and all(type(m) is str for m in entry):
            if len(out) + len(entry) > limit:  # counted before they are built (issue 23)
                raise DecodeError(f"over {limit} violations (Limits.max_violations)")
            out.extend(Violation(field=field, description=m) for m in entry)
        elif type(entry) is dict:
            if entry:  # an empty map holds no message: not walked (100,000 of them cost, issue 23)
                stack.append((field, iter(entry.items())))
        elif type(entry) is list and all(type(e) is dict for e in entry):
            if any(entry):  # told in C: only the maps that hold something are walked
                stack.append((field, ((str(i), e) for i, e in enumerate(entry) if e)))
        elif len(stack) == 1:
            kept[key] = entry
    return tuple(out), kept


class Drf(Dialect):
    """Django REST framework's error bodies (decode only)."""

    name = "drf"
    precedence = 230
    listed = 180
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`{"detail": "<text>"}` in DRF's wording or as a full sentence; a field map or a
        list of messages at HTTP 400 only."""
        if type(value) is dict:
            detail = value.get("detail", _MISSING)
            if type(detail) is str and len(value) == 1:
                if _wording(detail)[0]:
                    return STRONG
                return LIKELY if is_sentence(detail) else 0.0
            if len(value) == 1 and not value.keys().isdisjoint(_ENVELOPES):
                return 0.0  # {"message": {field: [...]}}, {"error": [...]}: an envelope member, not a serializer's field
            if http is not None and http.status == 400 and _is_field_map(value, [_BUDGET]):
                return WEAK
            return 0.0
        if type(value) is list and http is not None and http.status == 400 and _messages(value):
            return WEAK
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        fields: dict[str, Any] = {}
        derived: int | None = None
        by_code = None
        if type(value) is list:
            if not value or not all(type(m) is str for m in value):
                raise DecodeError(f"a drf error is an object, or a list of messages; got {shorten(value)}")
            fields["detail"] = value[0]
            fields["violations"] = tuple(Violation(field="", description=m) for m in value[: reading.limits.max_violations + 1])
            if len(fields["violations"]) > reading.limits.max_violations:
                raise DecodeError(f"over {reading.limits.max_violations} violations (Limits.max_violations)")
            derived = 400
            read: frozenset[str] | set[str] = frozenset()
            obj: dict[str, Any] = {}
        elif type(value) is dict:
            obj = value
            detail = value.get("detail", _MISSING)
            if type(detail) is str and len(value) == 1:
                fields["detail"] = detail
                derived = _wording(detail)[1]
                read = _DETAIL
                if reading.seen is not None:
                    reading.saw("text", "/detail", detail)
            else:
                violations, kept = _violations(value, reading)
                if violations:
                    fields["violations"] = violations
                    param = next((v.field for v in violations if v.field), None)
                    if param is not None:
                        fields["param"] = param  # the key names it
                    derived = 400
                read = set(value) - set(kept)
        else:
            raise DecodeError(f"a drf error is an object, or a list of messages; got {shorten(value)}")
        if reading.seen is not None:
            reading.saw("body", "", "drf")
        fields["status"] = status = status_of(reading, None, derived, 500, "drf")
        fields["grpc_code"] = grpc_code_of(status, reading)
        by_code = _FIX_BY_STATUS.get(status)
        extensions = extensions_of(obj, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, by_code=by_code)

