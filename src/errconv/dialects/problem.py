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

Decoding is liberal: a member of the wrong JSON type is ignored for meaning, as
section 3.1 requires, and kept verbatim with the unknown members; seed 000's
vocabulary (`error`, `message`, `class`, `retryable`, `retry_after`) and the common
validation shapes (`errors` with `pointer`, `invalid-params`, `violations`, a map of
field to messages) are understood; an empty string is no value.

Lossless for every fault `Fault.build()` makes (it refuses extension names errconv
reads or writes). A decoded fault keeps a member of the wrong type verbatim; when
that sits on a member errconv writes, the field goes out under an alias instead
(`error`, `message`, `class`, `retryable`, `retry_after`, `invalid-params`), or for
`status` is left to the status line or the gRPC code, so both come back. Where no
alias is free, `errconv.losses()` reports the clash.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import UNSET

from .._errors import DecodeError, shorten
from ..codes import CODE_BY_NAME, Code, NextStep, code_for_http, http_for_code, infer_next_step
from ..details import LocalizedMessage, RetryInfo
from ..fault import METADATA_RESERVED, Fault, Violation
from ..limits import DEFAULT_LIMITS, Limits
from ._common import (
    STEP_ALIASES,
    Hints,
    capped_delay,
    finish,
    http_status_wins,
    read_json,
    seconds_from_nanos,
    whole_seconds,
    write_json,
)
from ._details import ProblemInfo, check_depth, item_from_json, item_to_json
from ._pointer import pointer_of, pointer_to_field
from ._typed import ErrorEntry, ProblemBody, read_problem, typed_items

__all__ = ["MEDIA_TYPE", "NAME", "decode", "encode", "from_object", "to_object"]

NAME = "problem"
MEDIA_TYPE = "application/problem+json"

_CODE_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,62}")
_STR_MEMBERS = ("type", "title", "detail", "instance", "code", "domain", "param", "blocked_by", "unblock_with")
# Everything this module writes; an extension member of the same name cannot be written beside it.
OWN_MEMBERS = frozenset(
    (*_STR_MEMBERS, "status", "grpc_code", "next_step", "retry_after_seconds", "errors", "alternatives",
     "alternatives_truncated", "metadata", "details")
)  # fmt: skip


# --------------------------------------------------------------------------- violations


_LOCATIONS = frozenset({"field", "pointer", "source", "loc", "name", "parameter"})


def _violation(entry: Any) -> Violation | None:
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


def _violations(value: Any, limits: Limits) -> tuple[Violation, ...] | None:
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
    if len(out) > limits.max_violations:
        raise DecodeError(f"{len(out)} violations, over the limit of {limits.max_violations} (Limits.max_violations)")
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


def from_object(
    obj: Any,
    limits: Limits = DEFAULT_LIMITS,
    *,
    dialect: str = NAME,
    hints: Hints | None = None,
    http_status: int | None = None,
) -> Fault:
    """A Fault from a parsed problem details object."""
    if not isinstance(obj, dict):
        raise DecodeError(f"a problem details body is a JSON object, got {shorten(obj)}")
    hints = hints or Hints()
    fields: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    taken: set[str] = set()

    def keep(name: str) -> None:
        extensions[name] = obj[name]

    # An empty string says nothing (as in Fault.build, and proto3): it is read as no value.
    for name in _STR_MEMBERS:
        value = obj.get(name)
        if isinstance(value, str):
            if value:
                fields[name] = value
            taken.add(name)
    for name in ("error", "message"):
        if obj.get(name) == "":
            taken.add(name)
    # Seed 000 and many vague bodies: {"error": "insufficient_funds", "message": "..."} or
    # {"error": "Too many requests, try again later"}. A code-shaped `error` is the code;
    # a sentence is the detail.
    error = obj.get("error")
    if isinstance(error, str) and error and "code" not in fields:
        target = "code" if _CODE_SHAPE.fullmatch(error) else "detail"
        if target not in fields:
            fields[target] = error
            taken.add("error")
    if "detail" not in fields and isinstance(obj.get("message"), str) and obj["message"]:
        fields["detail"] = obj["message"]
        taken.add("message")

    status = obj.get("status")
    if isinstance(status, float) and status.is_integer():
        status = int(status)
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        taken.add("status")
    else:
        status = None
    grpc_name = obj.get("grpc_code")
    if isinstance(grpc_name, str) and grpc_name in CODE_BY_NAME:
        taken.add("grpc_code")
    else:
        grpc_name = None
    fields["status"], fields["grpc_code"] = _codes(status, grpc_name, http_status, hints)

    stated: NextStep | None = None
    for name in ("next_step", "class"):
        value = obj.get(name)
        if isinstance(value, str) and value in STEP_ALIASES and stated is None:
            stated = STEP_ALIASES[value]
            taken.add(name)
    if stated is None and isinstance(obj.get("retryable"), bool):
        taken.add("retryable")
        if obj["retryable"]:
            stated = NextStep.WAIT
        else:
            stated = NextStep.FIX_REQUEST if fields.get("param") else NextStep.GIVE_UP

    for name in ("retry_after_seconds", "retry_after"):
        if name in obj and "retry_after_seconds" not in fields:
            seconds = whole_seconds(obj[name])
            if seconds is not None:
                fields["retry_after_seconds"] = seconds
                taken.add(name)

    for name in ("errors", "invalid-params", "violations"):
        if name in obj and "violations" not in fields:
            found = _violations(obj[name], limits)
            if found is not None:
                fields["violations"] = found
                taken.add(name)

    alternatives = obj.get("alternatives")
    if isinstance(alternatives, list):
        check_depth(alternatives, limits.max_depth)
        fields["alternatives"] = tuple(alternatives)
        taken.add("alternatives")
    if isinstance(obj.get("alternatives_truncated"), bool):
        fields["alternatives_truncated"] = obj["alternatives_truncated"]
        taken.add("alternatives_truncated")
    metadata = obj.get("metadata")
    # A metadata key of a field's name (next_step, param, ...) would be overwritten by that
    # field in an ErrorInfo: such a member is kept, verbatim, as an extension.
    if (
        isinstance(metadata, dict)
        and all(isinstance(v, str) for v in metadata.values())
        and metadata.keys().isdisjoint(METADATA_RESERVED)
    ):
        fields["metadata"] = metadata
        taken.add("metadata")

    details = obj.get("details")
    # An entry without "@type" is an untyped detail, as in the google dialects (and as it is written).
    if isinstance(details, list) and all(isinstance(d, dict) and isinstance(d.get("@type", ""), str) for d in details):
        if len(details) > limits.max_details:
            raise DecodeError(f"{len(details)} details, over the limit of {limits.max_details} (Limits.max_details)")
        fields["details"] = _own_details([item_from_json(d, limits) for d in details], fields)
        taken.add("details")

    for name in obj:
        if name not in taken:
            keep(name)
    check_depth(extensions, limits.max_depth)
    fields["extensions"] = extensions
    return finish(fields, stated, hints, dialect)


def _codes(status: int | None, grpc_name: str | None, http_status: int | None, hints: Hints) -> tuple[int, int]:
    """The HTTP status and gRPC code of a body with a valid `status` and a known `grpc_code` name, or neither."""
    status = http_status_wins(status, http_status, hints)
    if grpc_name is not None:
        grpc_code = CODE_BY_NAME[grpc_name]
    elif status is not None:
        grpc_code = code_for_http(status)
    else:
        grpc_code = int(Code.UNKNOWN)
    if status is None:
        status = http_for_code(grpc_code)
        hints.notes.append(f"no status in the body; {status} assumed")
    return status, grpc_code


def from_typed(
    body: ProblemBody,
    limits: Limits = DEFAULT_LIMITS,
    *,
    dialect: str = NAME,
    hints: Hints | None = None,
    http_status: int | None = None,
) -> Fault | None:
    """A Fault from a body `_typed.read_problem` read: what `from_object` gives for it,
    without the lookups for aliases and other shapes, which such a body cannot hold.
    None when a member is not what from_object would take (it keeps those verbatim)."""
    status, grpc_name, step_name = body.status, body.grpc_code, body.next_step
    stated: NextStep | None = None
    if (
        (status is not UNSET and not 100 <= status <= 599)  # type: ignore[operator]
        or (grpc_name is not UNSET and grpc_name not in CODE_BY_NAME)
        or (step_name is not UNSET and (stated := STEP_ALIASES.get(step_name)) is None)  # type: ignore[arg-type]
        or (body.metadata and not body.metadata.keys().isdisjoint(METADATA_RESERVED))
    ):
        return None
    violations: tuple[Violation, ...] | None = None
    if body.errors is not UNSET:
        violations = _typed_violations(body.errors, limits)
        if violations is None:
            return None
    details = body.details
    items = None
    if details is not UNSET:
        if len(details) > limits.max_details:
            return None  # from_object says so
        items = typed_items(details, limits)
        if items is None:
            return None

    hints = hints or Hints()
    fields: dict[str, Any] = {
        name: value for name in _STR_MEMBERS if (value := getattr(body, name))  # not UNSET, not ""
    }
    fields["status"], fields["grpc_code"] = _codes(
        None if status is UNSET else status,  # type: ignore[arg-type]
        None if grpc_name is UNSET else grpc_name,  # type: ignore[arg-type]
        http_status,
        hints,
    )
    if body.retry_after_seconds is not UNSET:
        fields["retry_after_seconds"] = whole_seconds(body.retry_after_seconds)
    if violations is not None:
        fields["violations"] = violations
    if body.alternatives is not UNSET:
        check_depth(body.alternatives, limits.max_depth)
        fields["alternatives"] = tuple(body.alternatives)
    if body.alternatives_truncated is not UNSET:
        fields["alternatives_truncated"] = body.alternatives_truncated
    if body.metadata is not UNSET:
        fields["metadata"] = body.metadata
    if items is not None:
        fields["details"] = _own_details(items, fields)
    fields["extensions"] = {}
    return finish(fields, stated, hints, dialect)


def _typed_violations(entries: list[ErrorEntry], limits: Limits) -> tuple[Violation, ...] | None:
    """`errors` entries as `_violations` reads them; None where it would not take them."""
    if len(entries) > limits.max_violations:
        return None  # from_object names the limit
    out = []
    named = False  # an entry with a field or a description, or an explicit `field`
    for e in entries:
        field, pointer = e.field, e.pointer
        if field is UNSET and pointer is UNSET and e.detail is UNSET:
            return None  # an object of some other kind, not a violation
        if field is not UNSET:
            named = True
        elif pointer is UNSET:
            field = ""
        else:
            field = pointer_to_field(pointer) if pointer.startswith(("#", "/")) else pointer  # type: ignore[union-attr]
        description = e.detail or ""  # UNSET is falsy, as "" is
        named = named or bool(field or description)
        lm = e.localized_message
        out.append(
            Violation(
                field=field,  # type: ignore[arg-type]
                description=description,  # type: ignore[arg-type]
                reason=e.code or None,  # type: ignore[arg-type]
                localized_message=None if lm is UNSET else LocalizedMessage(locale=lm.locale, message=lm.message),  # type: ignore[union-attr]
            )
        )
    return tuple(out) if named or not out else None


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


def decode(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from RFC 9457 JSON (or seed 000's vocabulary)."""
    body = read_problem(data, limits)  # errconv's own members, decoded typed; None for any other body
    fault = None if body is None else from_typed(body, limits)
    return fault or from_object(read_json(data, limits, "the problem body"), limits)


# --------------------------------------------------------------------------- encode


# errconv's member for a field, and the aliases the decoder also reads it from, in the
# order it reads them.
_ALIASES = {
    "code": ("error",),
    "detail": ("message", "error"),
    "next_step": ("class", "retryable"),
    "retry_after_seconds": ("retry_after",),
    "errors": ("invalid-params", "violations"),
}
_ALIASED = frozenset((*_ALIASES, *(a for names in _ALIASES.values() for a in names)))


def _inferred(fault: Fault) -> NextStep:
    """The next step the decoder infers for this fault's body when it states none."""
    param = fault.param or next((v.field for v in fault.violations if v.field), None)
    wait = "a delay in the body" if fault.retry_after_seconds is not None else None
    return infer_next_step(fault.grpc_code, fault.status, param=param, wait_hint=wait)[0]


def _make_room(out: dict[str, Any], fault: Fault, extensions: dict[str, Any]) -> None:
    """Keep every extension writable beside errconv's members.

    A decoded fault keeps a member of the wrong JSON type verbatim, as an extension
    (`"code": 404` beside `"error": "not_found"`). When it sits on errconv's own member,
    the field goes out under an alias the decoder reads instead, so both come back.
    """
    used: set[str] = set()
    for member, aliases in _ALIASES.items():
        if member not in out or member not in extensions:
            continue
        for alias in aliases:
            if alias in extensions or alias in out or alias in used:
                continue
            value = out[member]
            if alias == "error":
                # `error` is read as the code when code-shaped, else as the detail when there is no code.
                shaped = bool(_CODE_SHAPE.fullmatch(value))
                if shaped != (member == "code") or (member == "detail" and "code" in out):
                    continue
            elif alias == "retryable":
                # true is a wait; false a fix_request when a param is named, else a give_up.
                if value == NextStep.WAIT:
                    value = True
                elif (value == NextStep.FIX_REQUEST) == ("param" in out):
                    value = False
                else:
                    continue
            del out[member]
            out[alias] = value
            used.add(alias)
            break
        else:
            if member == "next_step" and _inferred(fault) == fault.next_step:
                del out[member]  # read back as it was: inferred
    if not fault.violations:
        # No violations: say so under the first free name, or the decoder would read a later one as violations.
        names = _ALIASES["errors"]
        for i, name in enumerate(("errors", *names)):
            if name not in extensions:
                if extensions.keys() & set(names[i:]):
                    out[name] = []
                break


def _status_members(fault: Fault, ext: dict[str, Any], status_line: bool) -> tuple[bool, bool]:
    """Whether to write `status` and `grpc_code`.

    Normally `status` always, and `grpc_code` when it is not the default for the status.
    A decoded fault may keep a `status` or `grpc_code` member of the wrong type or value
    verbatim, as an extension; then the status is left out when it can be had without
    it: from the status line, or (with no status in the body) as the gRPC code's default.
    """
    need_code = fault.grpc_code != code_for_http(fault.status)
    if not ext:  # the usual case, and no clash to weigh
        return True, need_code
    if status_line:
        return "status" not in ext, need_code
    if "status" not in ext and not (need_code and "grpc_code" in ext):
        return True, need_code
    if fault.status == http_for_code(fault.grpc_code) and (fault.grpc_code == Code.UNKNOWN or "grpc_code" not in ext):
        return False, "grpc_code" not in ext  # read back: the named code, else UNKNOWN; the status its default
    return True, need_code  # a clash either way: the extension is lost, and losses() names it


def to_object(fault: Fault, *, keep_debug: bool = True, status_line: bool = False) -> dict[str, Any]:
    """The problem details object for a fault, members in errconv's fixed order.

    `status_line`: the body goes out in an HTTP response, whose status line carries the status.
    """
    out: dict[str, Any] = {}
    ext = fault.extensions
    write_status, write_grpc_code = _status_members(fault, ext, status_line)
    if fault.type is not None:
        out["type"] = fault.type
    if fault.title is not None:
        out["title"] = fault.title
    if write_status:
        out["status"] = fault.status
    if fault.detail is not None:
        out["detail"] = fault.detail
    if fault.instance is not None:
        out["instance"] = fault.instance
    if fault.code is not None:
        out["code"] = fault.code
    if fault.domain is not None:
        out["domain"] = fault.domain
    if write_grpc_code:
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
    if fault.alternatives_truncated or (len(fault.alternatives) >= 3 and "alternatives_truncated" not in ext):
        # A full list of three says whether it was cut, so a caller never has to guess.
        out["alternatives_truncated"] = fault.alternatives_truncated
    if fault.blocked_by is not None:
        out["blocked_by"] = fault.blocked_by
    if fault.unblock_with is not None:
        out["unblock_with"] = fault.unblock_with
    if fault.metadata:
        out["metadata"] = fault.metadata
    if fault.details:
        details = [item_to_json(d) for d in fault.details if keep_debug or d.__struct_config__.tag != "google.rpc.DebugInfo"]
        if details:
            out["details"] = details
    if ext:
        if not ext.keys().isdisjoint(_ALIASED):
            _make_room(out, fault, ext)
        for name, value in ext.items():
            if name not in out:
                out[name] = value
    return out


def encode(fault: Fault) -> bytes:
    """Compact RFC 9457 JSON."""
    return write_json(to_object(fault))
