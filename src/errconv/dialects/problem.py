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
from typing import Any

from .._errors import DecodeError, shorten
from .._fault import METADATA_RESERVED, Fault, Violation
from ..codes import CODE_BY_NAME, Code, NextStep, code_for_http, http_for_code
from ..details import DebugInfo, LocalizedMessage, RetryInfo
from ._base import CERTAIN, LIKELY, WEAK, Dialect, HttpInfo
from ._common import STEP_ALIASES, Reading, Writing, capped_delay, seconds_from_nanos, whole_seconds, write_json
from ._pointer import pointer_of, pointer_to_field
from ._schema import ProblemInfo, check_depth, item_from_json, item_to_json
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
        reading.inferred.append("grpc_code")
    else:
        grpc_code = int(Code.UNKNOWN)
        reading.inferred.append("grpc_code")
    if status is None:
        status = http_for_code(grpc_code)
        reading.notes.append(f"no status in the body; {status} assumed")
        reading.inferred.append("status")
    return status, grpc_code


def from_object(obj: dict[str, Any], reading: Reading) -> Fault:
    """A Fault from a parsed problem details object (also the vague `{"error": ...}` bodies)."""
    fields: dict[str, Any] = {}
    taken: set[str] = set()

    # An empty string says nothing (as in Fault.build, and proto3): it is read as no value.
    for name in _STR_MEMBERS:
        value = obj.get(name)
        if isinstance(value, str):
            if value:
                fields[name] = value
            taken.add(name)
    if fields.get("type") == "about:blank":
        del fields["type"]  # RFC 9457 4.2.1: what an absent type means, and nothing more
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
    fields["status"], fields["grpc_code"] = _codes(status, grpc_name, reading)

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
            found = violations(obj[name], reading)
            if found is not None:
                fields["violations"] = found
                taken.add(name)

    alternatives = obj.get("alternatives")
    if isinstance(alternatives, list):
        check_depth(alternatives, reading.limits.max_depth)
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
        if len(details) > reading.limits.max_details:
            raise DecodeError(f"{len(details)} details, over the limit of {reading.limits.max_details} (Limits.max_details)")
        fields["details"] = _own_details([item_from_json(d, reading.limits) for d in details], fields)
        taken.add("details")

    if len(taken) < len(obj):
        extensions = {name: value for name, value in obj.items() if name not in taken}
        check_depth(extensions, reading.limits.max_depth)
        fields["extensions"] = extensions
    if reading.seen is not None:
        _trace(obj, taken, reading)
    return reading.finish(fields, stated)


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
    media_type = "application/problem+json"
    reserved = _RESERVED

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
        if rfc or not value.keys().isdisjoint(OWN_MEMBERS) or not value.keys().isdisjoint(ALIASES):
            return WEAK
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a problem details body is a JSON object, got {shorten(value)}")
        return from_object(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return write_json(to_object(fault, keep_debug=writing.keep_debug))
