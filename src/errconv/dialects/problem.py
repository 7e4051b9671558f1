"""`problem`: RFC 9457 problem details (`application/problem+json`).

The five RFC members, then errconv's extension members at the top level, where a
model that learned the shape on one API finds them on the next:

    type, title, status, detail, instance,
    code, domain, grpc_code (only when not the default for status), next_step,
    retry_after_seconds, param, errors, alternatives, alternatives_truncated,
    blocked_by, unblock_with, metadata, details, <extension members in order>

`errors` follows RFC 9457's own example (`detail` and a JSON `pointer`), adding
`field` when a pointer cannot give the original path back and `code` for a
violation's reason. `details` holds the google.rpc details that have no member of
their own, in proto3 JSON.

Decoding is liberal, as section 3.1 requires: a member of the wrong JSON type is
ignored for meaning and kept verbatim with the unknown members (it is never allowed
to overwrite a member on the way out: `errconv.losses()` names it); seed 000's
vocabulary (`error`, `message`, `class`, `retryable`, `retry_after`) and the common
validation shapes (`errors` with `pointer`, `invalid-params`, `violations`, a map of
field to messages) are understood; an empty string is no value. Lossless for every
fault `Fault.build()` makes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from .._model.errors import DecodeError, shorten
from .._model.fault import METADATA_RESERVED, Fault, Violation
from .._model.limits import MAX_RETRY_AFTER_SECONDS
from ..codes import CODE_BY_NAME, Code, NextStep, code_for_http, http_for_code
from ..details import DebugInfo, LocalizedMessage, RetryInfo
from ._base import CERTAIN, LIKELY, WEAK, Dialect, HttpInfo, liberal
from ._common import STEP_ALIASES, Reading, Writing, capped_delay, seconds_from_nanos, whole_seconds, write_json
from ._pointer import pointer_of, pointer_to_field
from .._model.schema import Mismatch, ProblemInfo, WireDetail, check_depth, item_to_json, model_items
from ._status import check_details_count

__all__ = ["Problem"]

_CODE_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,62}")
_STR_MEMBERS = ("type", "title", "detail", "instance", "code", "domain", "param", "blocked_by", "unblock_with")
_RFC = ("type", "title", "status", "detail", "instance")
# Everything this module writes, and the aliases it reads fields from.
OWN_MEMBERS = frozenset(
    (*_STR_MEMBERS, "status", "grpc_code", "next_step", "retry_after_seconds", "errors", "alternatives",
     "alternatives_truncated", "metadata", "details")
)  # fmt: skip
ALIASES = frozenset(("error", "message", "class", "retryable", "retry_after", "invalid-params", "violations"))
# The members that mark a body as problem's when it has one RFC 9457 member or none.
_DISTINCT = frozenset(
    ("next_step", "retry_after_seconds", "grpc_code", "alternatives", "alternatives_truncated", "blocked_by",
     "unblock_with", "class", "retryable", "retry_after", "invalid-params", "violations")
)  # fmt: skip


# --------------------------------------------------------------------------- violations


_LOCATIONS = frozenset({"field", "pointer", "source", "loc", "name", "parameter"})


_OWN_ENTRY = frozenset(("detail", "pointer", "field", "code"))
_STR = {str}


def _violation(entry: Any) -> Violation | None:
    # The entries errconv writes ({"detail", "pointer", "field"?, "code"?}, text each): most.
    if type(entry) is dict and entry.keys() <= _OWN_ENTRY and set(map(type, entry.values())) == _STR:
        field = entry.get("field")
        if field is None:
            pointer = entry.get("pointer")
            field = "" if pointer is None else pointer_to_field(pointer) if pointer[:1] in ("#", "/") else pointer
        if field or "detail" in entry:
            return Violation(field=field, description=entry.get("detail", ""), reason=entry.get("code") or None)
    return _any_violation(entry)


def _any_violation(entry: Any) -> Violation | None:
    # An entry with no location and no RFC 9457 `detail` is some other kind of
    # object (Google's legacy errors[] has message/domain/reason): not a violation.
    if not isinstance(entry, dict) or not (entry.keys() & _LOCATIONS or "detail" in entry):
        return None
    field = entry.get("field")
    if not isinstance(field, str):
        pointer = entry.get("pointer")
        source = entry.get("source")
        if not isinstance(pointer, str) and isinstance(source, dict):  # JSON:API
            pointer = source.get("pointer", source.get("parameter"))
        loc = entry.get("loc")
        if isinstance(pointer, str):
            field = pointer_to_field(pointer) if pointer.startswith(("#", "/")) else pointer
        elif isinstance(entry.get("name"), str):  # RFC 7807's invalid-params
            field = entry["name"]
        elif isinstance(entry.get("parameter"), str):
            field = entry["parameter"]
        elif isinstance(loc, list) and all(isinstance(p, (str, int)) for p in loc):  # pydantic
            parts = [p for p in loc if p not in ("body", "query", "path", "header")] or loc
            field = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(parts))
        else:
            field = ""
    description = entry.get("detail")  # RFC 9457's member, as errconv writes it; else the first of the others
    if not isinstance(description, str):
        description = next((entry[k] for k in ("message", "reason", "msg", "description") if isinstance(entry.get(k), str)), "")
    # `reason` is prose in invalid-params; a machine reason comes from `code` (or `reason` beside a `detail`).
    reason = entry.get("code")
    if not isinstance(reason, str) and "detail" in entry and isinstance(entry.get("reason"), str):
        reason = entry["reason"]
    lm = entry.get("localized_message")
    localized = None
    if isinstance(lm, dict) and isinstance(lm.get("locale"), str) and isinstance(lm.get("message"), str):
        localized = LocalizedMessage(locale=lm["locale"], message=lm["message"])
    return Violation(
        field=field, description=description, reason=reason if isinstance(reason, str) and reason else None, localized_message=localized
    )


def violations(value: Any, reading: Reading) -> tuple[Violation, ...] | None:
    """Violations from any of the common shapes, or None when `value` fits none of them."""
    out: list[Violation] = []
    if isinstance(value, dict):  # ASP.NET: {"field": ["message", ...]}
        for key, messages in value.items():
            if isinstance(messages, str):
                messages = [messages]
            if not isinstance(messages, list) or not all(isinstance(m, str) for m in messages):
                return None
            out.extend(Violation(field=key, description=m) for m in messages)
    elif isinstance(value, list):
        for entry in value:
            v = _violation(entry)
            if v is None:
                return None
            out.append(v)
        if out and all(not v.field and not v.description and not isinstance(e.get("field"), str) for v, e in zip(out, value)):
            return None  # objects of some other shape, e.g. Google's legacy errors[] (an explicit "field" is a violation)
    else:
        return None
    limit = reading.limits.max_violations
    if len(out) > limit:
        raise DecodeError(f"{len(out)} violations, over the limit of {limit} (Limits.max_violations)")
    return tuple(out)


def _violation_to_json(v: Violation) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if v.description:
        entry["detail"] = v.description
    pointer, exact = pointer_of(v.field)
    if pointer is not None:
        entry["pointer"] = pointer
    if not exact:  # the pointer alone would not give the field back
        entry["field"] = v.field
    if v.reason is not None:
        entry["code"] = v.reason
    if v.localized_message is not None:
        entry["localized_message"] = {"locale": v.localized_message.locale, "message": v.localized_message.message}
    return entry


# --------------------------------------------------------------------------- decode


def _codes(status: int | None, grpc_name: str | None, reading: Reading) -> tuple[int, int]:
    """The HTTP status and gRPC code of a body with a valid `status` and a known `grpc_code` name, or neither."""
    status = reading.http_status_wins(status)
    if grpc_name is not None:
        grpc_code = CODE_BY_NAME[grpc_name]
    elif status is not None:
        grpc_code = code_for_http(status)
        reading.inferred += ("grpc_code",)
    else:
        grpc_code = int(Code.UNKNOWN)
        reading.inferred += ("grpc_code",)
    if status is None:
        status = http_for_code(grpc_code)
        reading.notes += (f"no status in the body; {status} assumed",)
        reading.inferred += ("status",)
    return status, grpc_code


_Text = str | UnsetType


class ProblemBody(msgspec.Struct, forbid_unknown_fields=True):
    """The members errconv reads in a problem body, each of its JSON type: the schema of the
    format. A body of these members only is decoded straight into it, in C; any other
    body is read into it member by member (`_base.liberal`), its aliases (seed 000's
    vocabulary, RFC 7807's invalid-params) first mapped onto these members."""

    type: _Text = UNSET
    title: _Text = UNSET
    status: int | float | UnsetType = UNSET
    detail: _Text = UNSET
    instance: _Text = UNSET
    code: _Text = UNSET
    domain: _Text = UNSET
    grpc_code: _Text = UNSET
    next_step: _Text = UNSET
    retry_after_seconds: int | float | UnsetType = UNSET
    param: _Text = UNSET
    errors: list[Any] | dict[str, Any] | UnsetType = UNSET  # a shape `violations()` reads, or not
    alternatives: list[Any] | UnsetType = UNSET
    alternatives_truncated: bool | UnsetType = UNSET
    blocked_by: _Text = UNSET
    unblock_with: _Text = UNSET
    metadata: dict[str, str] | UnsetType = UNSET
    details: list[WireDetail] | UnsetType = UNSET


def _fields(body: ProblemBody, reading: Reading) -> tuple[dict[str, Any], int | None, str | None, NextStep | None, list[str]]:
    """The Fault's fields from a problem body's members, with the status and gRPC code
    name it states, the next step it states, and the members of the right JSON type that
    still say nothing errconv can read (a status of 99, an unknown step word), which stay
    verbatim as extensions."""
    fields: dict[str, Any] = {}
    rejected: list[str] = []
    for name in _STR_MEMBERS:
        value = getattr(body, name)
        if value:  # neither UNSET nor "": an empty string says nothing, as in Fault.build and proto3
            fields[name] = value
    given: Any = body.status
    if type(given) is float and given.is_integer():
        given = int(given)
    status: int | None = given
    if type(given) is not int or not 100 <= given <= 599:
        if given is not UNSET:
            rejected.append("status")
        status = None
    grpc_name = body.grpc_code
    if grpc_name is not UNSET and grpc_name not in CODE_BY_NAME:
        rejected.append("grpc_code")
    stated: NextStep | None = None
    if body.next_step is not UNSET:
        stated = STEP_ALIASES.get(body.next_step)
        if stated is None:
            rejected.append("next_step")
    delay = body.retry_after_seconds
    if delay is not UNSET:
        fields["retry_after_seconds"] = delay if type(delay) is int and 0 <= delay <= MAX_RETRY_AFTER_SECONDS else whole_seconds(delay)
    if body.errors is not UNSET:
        found = violations(body.errors, reading)
        if found is None:
            rejected.append("errors")
        else:
            fields["violations"] = found
    if body.alternatives is not UNSET:
        if reading.deep:
            check_depth(body.alternatives, reading.limits.max_depth)
        fields["alternatives"] = tuple(body.alternatives)
    if body.alternatives_truncated is not UNSET:
        fields["alternatives_truncated"] = body.alternatives_truncated
    metadata = body.metadata
    if metadata is not UNSET:
        # A metadata key of a field's name (next_step, param, ...) would be overwritten by
        # that field in an ErrorInfo: such a member is kept, verbatim, as an extension.
        if metadata.keys().isdisjoint(METADATA_RESERVED):
            fields["metadata"] = metadata
        else:
            rejected.append("metadata")
    if body.details is not UNSET:
        limits = reading.limits
        if len(body.details) > limits.max_details:
            raise DecodeError(f"{len(body.details)} details, over the limit of {limits.max_details} (Limits.max_details)")
        items = model_items(body.details, limits)
        fields["details"] = _own_details(items, fields)
    return fields, status, None if grpc_name is UNSET or "grpc_code" in rejected else grpc_name, stated, rejected


def from_object(obj: dict[str, Any], reading: Reading) -> Fault:
    """A Fault from a parsed problem details object of any shape (also the vague
    `{"error": ...}` bodies): read into `ProblemBody` member by member, aliases first
    mapped onto its members, and every member left (unknown, of another type, or saying
    nothing errconv can read) kept verbatim, in order, as an extension."""
    source, used = (obj, {}) if ALIASES.isdisjoint(obj) else _unaliased(obj, reading)
    body, taken = liberal(source, ProblemBody, _HOOKS)
    fields, status, grpc_name, stated, rejected = _fields(body, reading)
    taken.difference_update(rejected)
    for alias, member in used.items():
        if member in taken:  # read from the alias: the member of that name, if any, stays as it came
            taken.discard(member)
            taken.add(alias)
    for name in ("error", "message"):
        if obj.get(name) == "":
            taken.add(name)  # says nothing, as an empty member does
    fields["status"], fields["grpc_code"] = _codes(status, grpc_name, reading)
    if len(taken) < len(obj):
        extensions = {name: value for name, value in obj.items() if name not in taken}
        if reading.deep:
            check_depth(extensions, reading.limits.max_depth)
        fields["extensions"] = extensions
    if reading.seen is not None:
        _trace(obj, taken, reading)
    return reading.finish(fields, stated)


def _details_hook(value: Any) -> Any:
    # An entry without "@type" is an untyped detail, as in the google dialects (and as it is written).
    if type(value) is list and all(type(d) is dict and type(d.get("@type", "")) is str for d in value):
        return value  # read, entry by entry, by model_items
    return UNSET


_HOOKS: dict[str, Callable[[Any], Any]] = {"details": _details_hook}


def _unaliased(obj: dict[str, Any], reading: Reading) -> tuple[dict[str, Any], dict[str, str]]:
    """`obj` with its aliases mapped onto ProblemBody's members, in their order of
    precedence (a member of its own, of the right type, wins over every alias), and which
    alias gave which member."""
    out = {name: value for name, value in obj.items() if name not in ALIASES}
    used: dict[str, str] = {}

    def fill(alias: str, member: str, value: Any) -> None:
        out[member] = value
        used[alias] = member

    text = {name for name in ("code", "detail") if type(obj.get(name)) is str and obj[name]}
    error = obj.get("error")
    # Seed 000 and many vague bodies: {"error": "insufficient_funds", "message": "..."} or
    # {"error": "Too many requests, try again later"}. A code-shaped `error` is the code;
    # a sentence is the detail.
    if type(error) is str and error and "code" not in text:
        target = "code" if _CODE_SHAPE.fullmatch(error) else "detail"
        if target not in text:
            fill("error", target, error)
            text.add(target)
    message = obj.get("message")
    if "detail" not in text and type(message) is str and message:
        fill("message", "detail", message)
    if not (type(obj.get("next_step")) is str and obj["next_step"] in STEP_ALIASES):
        word = obj.get("class")
        if type(word) is str and word in STEP_ALIASES:
            fill("class", "next_step", word)
        elif type(obj.get("retryable")) is bool:
            param = out.get("param")
            step = "wait" if obj["retryable"] else ("fix_request" if type(param) is str and param else "give_up")
            fill("retryable", "next_step", step)
    if whole_seconds(obj.get("retry_after_seconds")) is None and whole_seconds(obj.get("retry_after")) is not None:
        fill("retry_after", "retry_after_seconds", obj["retry_after"])
    if not ("errors" in obj and _reads_as_violations(obj["errors"], reading)):
        for alias in ("invalid-params", "violations"):
            if alias in obj and _reads_as_violations(obj[alias], reading):
                fill(alias, "errors", obj[alias])
                break
    return out, used


def _reads_as_violations(value: Any, reading: Reading) -> bool:
    try:
        return violations(value, reading) is not None
    except DecodeError:
        return True  # a shape it reads, past a limit: reading it says so


def _trace(obj: dict[str, Any], taken: set[str], reading: Reading) -> None:
    reading.saw("body", "", "problem")
    for name in obj:
        reading.saw("member", f"/{_escape(name)}", name)
    for name in ("next_step", "class", "retryable"):
        if name in taken:
            reading.saw("next_step", f"/{name}", obj[name])
    for name in ("retry_after_seconds", "retry_after"):
        if name in obj:
            reading.saw(f"delay:{name}", f"/{name}", obj[name])
    if isinstance(obj.get("status"), int):
        reading.saw("status", "/status", obj["status"])
    for name in ("alternatives", "alternatives_truncated"):
        if name in obj:
            reading.saw(name, f"/{name}", obj[name])
    for name in ("title", "detail", "message", "error"):
        if isinstance(obj.get(name), str):
            reading.saw("text", f"/{name}", obj[name])
    if isinstance(obj.get("details"), list):
        reading.saw("details", "/details", obj["details"])


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def _own_details(items: list[Any], fields: dict[str, Any]) -> tuple[Any, ...]:
    """The `details` member's entries, less what a problem body has members for: a second
    errconv.v1.Problem is dropped, a RetryInfo gives the delay when no member did."""
    kept = []
    for item in items:
        if isinstance(item, ProblemInfo):
            continue
        if isinstance(item, RetryInfo) and "retry_after_seconds" not in fields:
            fields["retry_after_seconds"] = seconds_from_nanos(item.retry_delay_nanos)  # capped
            continue
        kept.append(item)
    return tuple(kept)


# --------------------------------------------------------------------------- encode


def to_object(fault: Fault, *, keep_debug: bool = True) -> dict[str, Any]:
    """The problem details object for a fault, members in errconv's fixed order."""
    out: dict[str, Any] = {}
    if fault.type is not None:
        out["type"] = fault.type
    if fault.title is not None:
        out["title"] = fault.title
    out["status"] = fault.status
    if fault.detail is not None:
        out["detail"] = fault.detail
    if fault.instance is not None:
        out["instance"] = fault.instance
    if fault.code is not None:
        out["code"] = fault.code
    if fault.domain is not None:
        out["domain"] = fault.domain
    if fault.grpc_code != code_for_http(fault.status):
        out["grpc_code"] = fault.grpc_code_name
    if fault.next_step is not None:
        out["next_step"] = str(fault.next_step)
    if fault.retry_after_seconds is not None:
        out["retry_after_seconds"] = capped_delay(fault.retry_after_seconds)
    if fault.param is not None:
        out["param"] = fault.param
    if fault.violations:
        out["errors"] = [_violation_to_json(v) for v in fault.violations]
    if fault.alternatives:
        out["alternatives"] = list(fault.alternatives)
    if fault.alternatives_truncated or len(fault.alternatives) >= 3:
        # A full list of three says whether it was cut, so a caller never has to guess.
        out["alternatives_truncated"] = fault.alternatives_truncated
    if fault.blocked_by is not None:
        out["blocked_by"] = fault.blocked_by
    if fault.unblock_with is not None:
        out["unblock_with"] = fault.unblock_with
    if fault.metadata:
        out["metadata"] = fault.metadata
    if fault.details:
        details = [item_to_json(d) for d in fault.details if keep_debug or type(d) is not DebugInfo]
        if details:
            out["details"] = details
    if fault.extensions:
        for name, value in fault.extensions.items():
            # A member of the wrong type kept verbatim never overwrites one of ours, nor
            # goes out under a name this dialect reads as something else.
            if name not in _RESERVED:
                out[name] = value
    return out


_RESERVED = OWN_MEMBERS | ALIASES


class Problem(Dialect):
    """RFC 9457 problem details."""

    lossless = True
    name = "problem"
    precedence = 260
    listed = 20
    media_type = "application/problem+json"
    reserved = _RESERVED
    keys = frozenset(_RFC) | OWN_MEMBERS | ALIASES
    ceiling = LIKELY

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        if type(value) is not dict:
            return 0.0
        if http is not None and http.media_type == self.media_type:
            return CERTAIN
        rfc = sum(
            1
            for name in _RFC
            if name in value and (isinstance(value[name], int) if name == "status" else isinstance(value[name], str))
        )
        if rfc >= 2:
            return LIKELY
        # One member is a claim only when it is RFC 9457's own (a type URI, a title, a
        # detail, an instance) or errconv's: `code`, `message`, `error`, `errors` and a
        # lone `status` are every format's, and a body of only those is the general
        # reader's (research/dialects.md section 10, rule 18).
        if not value.keys().isdisjoint(_DISTINCT) or any(
            type(value.get(name)) is str for name in ("title", "detail", "instance")
        ) or (type(value.get("type")) is str and (":" in value["type"] or "/" in value["type"])):
            return WEAK
        return 0.0

    schema = ProblemBody

    def decode_typed(self, body: ProblemBody, reading: Reading) -> Fault | None:
        if reading.seen is not None:
            return None  # a trace: the general way records where each member was
        try:
            fields, status, grpc_name, stated, rejected = _fields(body, reading)
        except Mismatch:
            return None  # a detail out of its type's range: the general way keeps it raw
        if rejected:
            extensions: dict[str, Any] = {name: getattr(body, name) for name in rejected}
            if reading.deep:
                check_depth(extensions, reading.limits.max_depth)
            fields["extensions"] = extensions
        fields["status"], fields["grpc_code"] = _codes(status, grpc_name, reading)
        return reading.finish(fields, stated)

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a problem details body is a JSON object, got {shorten(value)}")
        return from_object(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return write_json(to_object(fault, keep_debug=writing.keep_debug))
