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
field to messages) are understood. Lossless for every Fault.
"""

from __future__ import annotations

import re
from typing import Any

from .._errors import DecodeError, shorten
from ..codes import Code, NextStep, code_for_http, http_for_code
from ..details import LocalizedMessage, RetryInfo
from ..fault import Fault, Violation
from ..limits import DEFAULT_LIMITS, Limits
from ._common import STEP_ALIASES, Hints, finish, read_json, whole_seconds, write_json
from ._details import ProblemInfo, check_depth, item_from_json, item_to_json
from ._pointer import field_to_pointer, pointer_to_field

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
    description = next(
        (entry[k] for k in ("detail", "message", "reason", "msg", "description") if isinstance(entry.get(k), str)),
        "",
    )
    # `reason` is prose in invalid-params; a machine reason comes from `code` (or `reason` beside a `detail`).
    reason = entry.get("code")
    if not isinstance(reason, str) and "detail" in entry and isinstance(entry.get("reason"), str):
        reason = entry["reason"]
    lm = entry.get("localized_message")
    localized = None
    if isinstance(lm, dict) and isinstance(lm.get("locale"), str) and isinstance(lm.get("message"), str):
        localized = LocalizedMessage(locale=lm["locale"], message=lm["message"])
    return Violation(
        field=field, description=description, reason=reason if isinstance(reason, str) else None, localized_message=localized
    )


def _violations(value: Any, limits: Limits) -> tuple[Violation, ...] | None:
    """Violations from any of the common shapes, or None when `value` fits none of them."""
    if isinstance(value, dict):  # ASP.NET: {"field": ["message", ...]}
        out = []
        for key, messages in value.items():
            if isinstance(messages, str):
                messages = [messages]
            if not isinstance(messages, list) or not all(isinstance(m, str) for m in messages):
                return None
            out.extend(Violation(field=key, description=m) for m in messages)
    elif isinstance(value, list):
        out = []
        for entry in value:
            v = _violation(entry)
            if v is None:
                return None
            out.append(v)
        if out and all(not v.field and not v.description for v in out):
            return None  # objects of some other shape, e.g. Google's legacy errors[]
    else:
        return None
    if len(out) > limits.max_violations:
        raise DecodeError(f"{len(out)} violations, over the limit of {limits.max_violations} (Limits.max_violations)")
    return tuple(out)


def _violation_to_json(v: Violation) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if v.description:
        entry["detail"] = v.description
    pointer = field_to_pointer(v.field)
    if pointer is not None:
        entry["pointer"] = pointer
    if pointer is None or pointer_to_field(pointer) != v.field:
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

    for name in _STR_MEMBERS:
        if name in obj:
            if isinstance(obj[name], str):
                fields[name] = obj[name]
                taken.add(name)
    # Seed 000 and many vague bodies: {"error": "insufficient_funds", "message": "..."} or
    # {"error": "Too many requests, try again later"}. A code-shaped `error` is the code;
    # a sentence is the detail.
    error = obj.get("error")
    if isinstance(error, str) and "code" not in fields:
        target = "code" if _CODE_SHAPE.fullmatch(error) else "detail"
        if target not in fields:
            fields[target] = error
            taken.add("error")
    if "detail" not in fields and isinstance(obj.get("message"), str):
        fields["detail"] = obj["message"]
        taken.add("message")

    status = obj.get("status")
    if isinstance(status, float) and status.is_integer():
        status = int(status)
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        taken.add("status")
    else:
        status = None
    if http_status is not None:
        if status is not None and status != http_status:
            hints.notes.append(f"body status {status} differs from HTTP status {http_status}; HTTP wins")
        status = http_status

    grpc_name = obj.get("grpc_code")
    if isinstance(grpc_name, str) and grpc_name in Code.__members__:
        grpc_code = int(Code[grpc_name])
        taken.add("grpc_code")
    elif status is not None:
        grpc_code = code_for_http(status)
    else:
        grpc_code = int(Code.UNKNOWN)
    if status is None:
        status = http_for_code(grpc_code)
        hints.notes.append(f"no status in the body; {status} assumed")
    fields["status"] = status
    fields["grpc_code"] = grpc_code

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
    if isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values()):
        fields["metadata"] = metadata
        taken.add("metadata")

    details = obj.get("details")
    if isinstance(details, list) and all(isinstance(d, dict) and isinstance(d.get("@type"), str) for d in details):
        if len(details) > limits.max_details:
            raise DecodeError(f"{len(details)} details, over the limit of {limits.max_details} (Limits.max_details)")
        items = [item_from_json(d, limits) for d in details]
        kept = []
        for item in items:
            # A problem body has members for these; a second copy in details is kept as it is.
            if isinstance(item, ProblemInfo):
                continue
            if isinstance(item, RetryInfo) and "retry_after_seconds" not in fields:
                fields["retry_after_seconds"] = -(-item.retry_delay_nanos // 1_000_000_000)
                continue
            kept.append(item)
        fields["details"] = tuple(kept)
        taken.add("details")

    for name in obj:
        if name not in taken:
            keep(name)
    check_depth(extensions, limits.max_depth)
    fields["extensions"] = extensions
    return finish(fields, stated, hints, dialect)


def decode(data: bytes | str, *, limits: Limits = DEFAULT_LIMITS, now: object = None) -> Fault:
    """A Fault from RFC 9457 JSON (or seed 000's vocabulary)."""
    return from_object(read_json(data, limits, "the problem body"), limits)


# --------------------------------------------------------------------------- encode


def to_object(fault: Fault, *, keep_debug: bool = True) -> dict[str, Any]:
    """The problem details object for a fault, members in errconv's fixed order."""
    out: dict[str, Any] = {}
    if fault.type is not None:
        out["type"] = fault.type
    if fault.title is not None:
        out["title"] = fault.title
    out["status"] = fault.status
    for name in ("detail", "instance", "code", "domain"):
        value = getattr(fault, name)
        if value is not None:
            out[name] = value
    if fault.grpc_code != code_for_http(fault.status):
        out["grpc_code"] = fault.grpc_code_name
    if fault.next_step is not None:
        out["next_step"] = str(fault.next_step)
    if fault.retry_after_seconds is not None:
        out["retry_after_seconds"] = fault.retry_after_seconds
    if fault.param is not None:
        out["param"] = fault.param
    if fault.violations:
        out["errors"] = [_violation_to_json(v) for v in fault.violations]
    if fault.alternatives:
        out["alternatives"] = list(fault.alternatives)
    if fault.alternatives_truncated:
        out["alternatives_truncated"] = True
    for name in ("blocked_by", "unblock_with"):
        value = getattr(fault, name)
        if value is not None:
            out[name] = value
    if fault.metadata:
        out["metadata"] = fault.metadata
    details = [item_to_json(d) for d in fault.details if keep_debug or d.__struct_config__.tag != "google.rpc.DebugInfo"]
    if details:
        out["details"] = details
    for name, value in fault.extensions.items():
        if name not in out:
            out[name] = value
    return out


def encode(fault: Fault) -> bytes:
    """Compact RFC 9457 JSON."""
    return write_json(to_object(fault))
