"""The google.rpc detail codec: typed details <-> proto3 JSON and <-> packed Any.

One table, keyed by the type name after the last "/" of the type URL, gives each
known detail type its JSON reader and writer and its protobuf class. This is the
hot path of every Google-flavoured dialect, so it never calls json_format: a
direct converter is about 4x faster and, unlike json_format, keeps a detail of an
unknown type as it is instead of failing on it.

errconv's own messages (errconv.v1.Problem, errconv.v1.OpaqueDetail) are read and
written here too; `ProblemInfo` is their in-memory form.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Callable
from typing import Any

import msgspec
from google.protobuf import any_pb2, struct_pb2
from google.protobuf.message import DecodeError as ProtoDecodeError
from google.rpc import error_details_pb2 as ed

from .._errors import DecodeError, shorten
from .._proto.errconv.v1 import problem_pb2
from ..details import (
    BadRequest,
    DebugInfo,
    Detail,
    ErrorInfo,
    FieldViolation,
    Help,
    Link,
    LocalizedMessage,
    PreconditionFailure,
    PreconditionViolation,
    QuotaFailure,
    QuotaViolation,
    RawDetail,
    RequestInfo,
    ResourceInfo,
    RetryInfo,
)
from ..fault import Violation
from ..limits import Limits

TYPE_PREFIX = "type.googleapis.com/"
PROBLEM_TYPE = "errconv.v1.Problem"
OPAQUE_TYPE = "errconv.v1.OpaqueDetail"
_NANOS = 1_000_000_000


class ProblemInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """errconv.v1.Problem in memory: what no standard detail carries."""

    type: str = ""
    title: str = ""
    instance: str = ""
    http_status: int = 0
    code: str = ""
    reason_synthesized: bool = False
    message_is_title: bool = False
    alternatives: tuple[Any, ...] = ()
    alternatives_truncated: bool = False
    extensions: dict[str, Any] = {}

    def __bool__(self) -> bool:
        return self != _EMPTY_PROBLEM


_EMPTY_PROBLEM = ProblemInfo()

# A decoded detail: a typed Detail, or our own Problem.
Item = Detail | ProblemInfo


class _Mismatch(Exception):
    """A known detail type whose JSON does not fit its schema; it is kept as RawDetail."""


def type_name(type_url: str) -> str:
    return type_url.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------- JSON values


def _str(obj: dict[str, Any], camel: str, snake: str | None = None) -> str:
    value = obj.get(camel)
    if value is None and snake is not None:
        value = obj.get(snake)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Mismatch(camel)
    return value


def _int64(obj: dict[str, Any], camel: str, snake: str) -> int | None:
    value = obj.get(camel, obj.get(snake))
    if value is None:
        return None
    return int64_value(value, camel)


def int64_value(value: Any, camel: str) -> int:
    """A proto3 JSON int64 (a number, or a string of digits); _Mismatch naming `camel` otherwise."""
    if isinstance(value, bool):
        raise _Mismatch(camel)
    if type(value) is str and len(value) <= 18 and value.isascii() and value.isdigit():  # the usual int64 text
        return int(value)
    if isinstance(value, str) and _INT64_TEXT.fullmatch(value):
        value = int(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and _INT64_MIN <= value <= _INT64_MAX:
        return value
    raise _Mismatch(camel)  # not an int64: kept whole rather than failing on encode


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT64_TEXT = re.compile(r"-?[0-9]{1,19}")  # ASCII digits: "²".isdigit() is true, int("²") fails


def _counted(items: list[Any], limits: Limits, what: str) -> list[Any]:
    if len(items) > limits.max_violations:
        raise DecodeError(f"{len(items)} {what}, over the limit of {limits.max_violations} (Limits.max_violations)")
    return items


def _list(obj: dict[str, Any], camel: str, snake: str | None = None) -> list[Any]:
    value = obj.get(camel)
    if value is None and snake is not None:
        value = obj.get(snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Mismatch(camel)
    return value


def _obj(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Mismatch("object")
    return value


def _str_map(obj: dict[str, Any], camel: str, snake: str) -> dict[str, str]:
    value = obj.get(camel, obj.get(snake))
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Mismatch(camel)
    for v in value.values():
        if not isinstance(v, str):
            raise _Mismatch(camel)
    return value


def parse_duration(text: Any) -> int:
    """Nanoseconds in a proto3 JSON Duration ("30s", "2.463586755s")."""
    if not isinstance(text, str) or not text.endswith("s") or len(text) > 32:
        raise _Mismatch("duration")
    whole, _, frac = text[:-1].partition(".")
    # [0-9]+ at C speed: among ASCII characters isdigit() is true for 0-9 alone.
    if not (whole.isascii() and whole.isdigit()) or (frac and not (frac.isascii() and frac.isdigit())):
        raise _Mismatch("duration")
    seconds = int(whole)
    if seconds > MAX_DURATION_SECONDS:  # past google.protobuf.Duration's range: not a Duration
        raise _Mismatch("duration")
    return seconds * _NANOS + (int((frac + "000000000")[:9]) if frac else 0)


def _ascii_digits(text: str) -> bool:
    """`[0-9]+`, at C speed: among ASCII characters isdigit() is true for 0-9 alone."""
    return text.isascii() and text.isdigit()


# google.protobuf.Duration's range: about 10,000 years.
MAX_DURATION_SECONDS = 315_576_000_000
_DIGITS = re.compile(r"[0-9]+")


def format_duration(nanos: int) -> str:
    """proto3 JSON Duration with 0, 3, 6 or 9 fractional digits."""
    seconds, rest = divmod(nanos, _NANOS)
    if rest == 0:
        return f"{seconds}s"
    frac = f"{rest:09d}"
    for digits in (3, 6):
        if frac[digits:] == "0" * (9 - digits):
            return f"{seconds}.{frac[:digits]}s"
    return f"{seconds}.{frac}s"


def _localized_from_json(value: Any) -> LocalizedMessage:
    obj = _obj(value)
    return LocalizedMessage(locale=_str(obj, "locale"), message=_str(obj, "message"))


def _localized_to_json(lm: LocalizedMessage) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if lm.locale:
        out["locale"] = lm.locale
    if lm.message:
        out["message"] = lm.message
    return out


def _field_violation_from_json(value: Any) -> FieldViolation:
    obj = _obj(value)
    lm = obj.get("localizedMessage", obj.get("localized_message"))
    return FieldViolation(
        field=_str(obj, "field"),
        description=_str(obj, "description"),
        reason=_str(obj, "reason"),
        localized_message=None if lm is None else _localized_from_json(lm),
    )


def field_violation_to_json(fv: FieldViolation | Violation) -> dict[str, Any]:
    """A BadRequest.FieldViolation in proto3 JSON. A Fault's Violation writes the same
    one (its reason None is proto3's empty reason), without a FieldViolation made for it."""
    out: dict[str, Any] = {}
    if fv.field:
        out["field"] = fv.field
    if fv.description:
        out["description"] = fv.description
    if fv.reason:
        out["reason"] = fv.reason
    if fv.localized_message is not None:
        out["localizedMessage"] = _localized_to_json(fv.localized_message)
    return out


def _quota_violation_from_json(value: Any) -> QuotaViolation:
    obj = _obj(value)
    return QuotaViolation(
        subject=_str(obj, "subject"),
        description=_str(obj, "description"),
        api_service=_str(obj, "apiService", "api_service"),
        quota_metric=_str(obj, "quotaMetric", "quota_metric"),
        quota_id=_str(obj, "quotaId", "quota_id"),
        quota_dimensions=_str_map(obj, "quotaDimensions", "quota_dimensions"),
        quota_value=_int64(obj, "quotaValue", "quota_value") or 0,
        future_quota_value=_int64(obj, "futureQuotaValue", "future_quota_value"),
    )


def _quota_violation_to_json(v: QuotaViolation) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if v.subject:
        out["subject"] = v.subject
    if v.description:
        out["description"] = v.description
    if v.api_service:
        out["apiService"] = v.api_service
    if v.quota_metric:
        out["quotaMetric"] = v.quota_metric
    if v.quota_id:
        out["quotaId"] = v.quota_id
    if v.quota_dimensions:
        out["quotaDimensions"] = v.quota_dimensions
    if v.quota_value:
        out["quotaValue"] = str(v.quota_value)  # int64 is a JSON string in proto3 JSON
    if v.future_quota_value is not None:
        out["futureQuotaValue"] = str(v.future_quota_value)
    return out


# One JSON reader per known type. A reader looks only at its own members (never at
# "@type") and raises _Mismatch when they do not fit the schema.


def _error_info_from_json(obj: dict[str, Any], limits: Limits) -> ErrorInfo:
    return ErrorInfo(
        reason=_str(obj, "reason"),
        domain=_str(obj, "domain"),
        metadata=_str_map(obj, "metadata", "metadata"),
    )


def _retry_info_from_json(obj: dict[str, Any], limits: Limits) -> RetryInfo:
    delay = obj.get("retryDelay", obj.get("retry_delay"))
    return RetryInfo(retry_delay_nanos=0 if delay is None else parse_duration(delay))


def _bad_request_from_json(obj: dict[str, Any], limits: Limits) -> BadRequest:
    fvs = _counted(_list(obj, "fieldViolations", "field_violations"), limits, "field violations")
    return BadRequest(field_violations=tuple(_field_violation_from_json(v) for v in fvs))


def _quota_failure_from_json(obj: dict[str, Any], limits: Limits) -> QuotaFailure:
    violations = _counted(_list(obj, "violations"), limits, "quota violations")
    return QuotaFailure(violations=tuple(_quota_violation_from_json(v) for v in violations))


def _precondition_failure_from_json(obj: dict[str, Any], limits: Limits) -> PreconditionFailure:
    return PreconditionFailure(
        violations=tuple(
            PreconditionViolation(type=_str(_obj(v), "type"), subject=_str(v, "subject"), description=_str(v, "description"))
            for v in _counted(_list(obj, "violations"), limits, "precondition violations")
        )
    )


def _resource_info_from_json(obj: dict[str, Any], limits: Limits) -> ResourceInfo:
    return ResourceInfo(
        resource_type=_str(obj, "resourceType", "resource_type"),
        resource_name=_str(obj, "resourceName", "resource_name"),
        owner=_str(obj, "owner"),
        description=_str(obj, "description"),
    )


def _request_info_from_json(obj: dict[str, Any], limits: Limits) -> RequestInfo:
    return RequestInfo(
        request_id=_str(obj, "requestId", "request_id"),
        serving_data=_str(obj, "servingData", "serving_data"),
    )


def _help_from_json(obj: dict[str, Any], limits: Limits) -> Help:
    links = _counted(_list(obj, "links"), limits, "help links")
    return Help(links=tuple(Link(description=_str(_obj(v), "description"), url=_str(v, "url")) for v in links))


def _localized_message_from_json(obj: dict[str, Any], limits: Limits) -> LocalizedMessage:
    return _localized_from_json(obj)


def _debug_info_from_json(obj: dict[str, Any], limits: Limits) -> DebugInfo:
    entries = _list(obj, "stackEntries", "stack_entries")
    if not all(isinstance(e, str) for e in entries):
        raise _Mismatch("stackEntries")
    return DebugInfo(stack_entries=tuple(entries), detail=_str(obj, "detail"))


# Full type name -> JSON reader, for every type item_from_json reads (errconv.v1.Problem
# included; its reader, _problem_from_json, is below).
_JSON_READERS: dict[str, Callable[[dict[str, Any], Limits], Item]] = {
    "google.rpc.ErrorInfo": _error_info_from_json,
    "google.rpc.RetryInfo": _retry_info_from_json,
    "google.rpc.BadRequest": _bad_request_from_json,
    "google.rpc.QuotaFailure": _quota_failure_from_json,
    "google.rpc.PreconditionFailure": _precondition_failure_from_json,
    "google.rpc.ResourceInfo": _resource_info_from_json,
    "google.rpc.RequestInfo": _request_info_from_json,
    "google.rpc.Help": _help_from_json,
    "google.rpc.LocalizedMessage": _localized_message_from_json,
    "google.rpc.DebugInfo": _debug_info_from_json,
}


def item_from_json(value: Any, limits: Limits) -> Item:
    """One entry of a JSON `details` array."""
    if not isinstance(value, dict):
        raise DecodeError(f"a details entry must be a JSON object with \"@type\", got {shorten(value)}")
    type_url = value.get("@type", "")  # a detail without "@type" is kept, untyped, as it came
    if not isinstance(type_url, str):
        raise DecodeError(f"a details entry needs a string \"@type\", got {shorten(value)}")
    # Packed bytes kept raw ("@bytes" is no proto3 JSON field name), whatever the type:
    # a known type whose bytes did not parse travels this way too.
    packed = value.get("@bytes")
    if isinstance(packed, str) and len(value) == (2 if "@type" in value else 1):
        try:
            return RawDetail(type_url=type_url, value=base64.b64decode(packed, validate=True))
        except (binascii.Error, ValueError):
            pass  # not base64: kept whole, as it came, like any member errconv cannot read
    read = _READER_FOR_URL.get(type_url) or _JSON_READERS.get(type_name(type_url))
    if read is not None:
        try:
            return read(value, limits)
        except _Mismatch:
            pass  # keep it whole, as it came
    fields = {k: v for k, v in value.items() if k != "@type"}
    check_depth(fields, limits.max_depth)
    return RawDetail(type_url=type_url, fields=fields)


def item_to_json(item: Item) -> dict[str, Any]:
    """One entry of a JSON `details` array, "@type" first."""
    writer = _JSON_WRITERS.get(type(item))
    if writer is not None:
        type_url, fill = writer
        out: dict[str, Any] = {"@type": type_url}
        fill(item, out)
        return out
    if isinstance(item, RawDetail):
        if item.fields is not None:
            return {"@type": item.type_url, **item.fields} if item.type_url else dict(item.fields)
        # Bytes of an unknown type have no proto3 JSON form; "@bytes" cannot clash
        # with a field name, so the detail comes back exactly.
        return {"@type": item.type_url, "@bytes": base64.b64encode(item.value or b"").decode()}
    if isinstance(item, ProblemInfo):
        return {"@type": TYPE_PREFIX + PROBLEM_TYPE, **_problem_to_json(item)}
    # A subclass of a detail type (the table is keyed by exact type, for one lookup).
    for cls, (type_url, fill) in _JSON_WRITERS.items():
        if isinstance(item, cls):
            out = {"@type": type_url}
            fill(item, out)
            return out
    raise TypeError(f"not a detail: {shorten(item)}")


# Each writer adds a known type's proto3 JSON members, in field order, to an entry that
# holds its "@type"; a member with the default value is left out, as proto3 JSON does.


def _error_info_members(item: ErrorInfo, out: dict[str, Any]) -> None:
    if item.reason:
        out["reason"] = item.reason
    if item.domain:
        out["domain"] = item.domain
    if item.metadata:
        out["metadata"] = item.metadata


def _retry_info_members(item: RetryInfo, out: dict[str, Any]) -> None:
    out["retryDelay"] = format_duration(item.retry_delay_nanos)


def _bad_request_members(item: BadRequest, out: dict[str, Any]) -> None:
    out["fieldViolations"] = [field_violation_to_json(v) for v in item.field_violations]


def _quota_failure_members(item: QuotaFailure, out: dict[str, Any]) -> None:
    out["violations"] = [_quota_violation_to_json(v) for v in item.violations]


def _nonempty(value: Any, names: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The (JSON name, attribute) pairs of `value` whose attribute is not empty."""
    return {camel: v for camel, attr in names if (v := getattr(value, attr))}


# The rarer types, by their members' names: unrolled writers are for the hot ones.
_RESOURCE_INFO = (("resourceType", "resource_type"), ("resourceName", "resource_name"), ("owner", "owner"),
                  ("description", "description"))  # fmt: skip
_PRECONDITION_VIOLATION = (("type", "type"), ("subject", "subject"), ("description", "description"))
_LINK = (("description", "description"), ("url", "url"))


def _precondition_failure_members(item: PreconditionFailure, out: dict[str, Any]) -> None:
    out["violations"] = [_nonempty(p, _PRECONDITION_VIOLATION) for p in item.violations]


def _resource_info_members(item: ResourceInfo, out: dict[str, Any]) -> None:
    out.update(_nonempty(item, _RESOURCE_INFO))


def _request_info_members(item: RequestInfo, out: dict[str, Any]) -> None:
    out.update(_nonempty(item, (("requestId", "request_id"), ("servingData", "serving_data"))))


def _help_members(item: Help, out: dict[str, Any]) -> None:
    out["links"] = [_nonempty(link, _LINK) for link in item.links]


def _localized_message_members(item: LocalizedMessage, out: dict[str, Any]) -> None:
    out.update(_localized_to_json(item))


def _debug_info_members(item: DebugInfo, out: dict[str, Any]) -> None:
    if item.stack_entries:
        out["stackEntries"] = list(item.stack_entries)
    if item.detail:
        out["detail"] = item.detail


# Detail type -> its "@type" and its member writer, for every known type.
_JSON_WRITERS: dict[type, tuple[str, Callable[[Any, dict[str, Any]], None]]] = {
    cls: (TYPE_PREFIX + cls.__struct_config__.tag, fill)  # type: ignore[operator]
    for cls, fill in (
        (ErrorInfo, _error_info_members),
        (RetryInfo, _retry_info_members),
        (BadRequest, _bad_request_members),
        (QuotaFailure, _quota_failure_members),
        (PreconditionFailure, _precondition_failure_members),
        (ResourceInfo, _resource_info_members),
        (RequestInfo, _request_info_members),
        (Help, _help_members),
        (LocalizedMessage, _localized_message_members),
        (DebugInfo, _debug_info_members),
    )
}


_PROBLEM_JSON = (
    ("type", "type", "type", str),
    ("title", "title", "title", str),
    ("instance", "instance", "instance", str),
    ("http_status", "httpStatus", "http_status", int),
    ("code", "code", "code", str),
    ("reason_synthesized", "reasonSynthesized", "reason_synthesized", bool),
    ("message_is_title", "messageIsTitle", "message_is_title", bool),
    ("alternatives_truncated", "alternativesTruncated", "alternatives_truncated", bool),
)


def _problem_from_json(obj: dict[str, Any], limits: Limits) -> ProblemInfo:
    values: dict[str, Any] = {}
    for attr, camel, snake, kind in _PROBLEM_JSON:
        value = obj[camel] if camel in obj else obj.get(snake)
        if value is None:
            continue
        if type(value) is not kind:
            raise _Mismatch(camel)
        values[attr] = value
    if not _valid_http_status(values.get("http_status", 0)):
        raise _Mismatch("httpStatus")
    alts = obj.get("alternatives", [])
    ext = obj.get("extensions", {})
    if not isinstance(alts, list) or not isinstance(ext, dict):
        raise _Mismatch("alternatives")
    check_depth(alts, limits.max_depth)
    check_depth(ext, limits.max_depth)
    return ProblemInfo(alternatives=tuple(alts), extensions=ext, **values)


_JSON_READERS[PROBLEM_TYPE] = _problem_from_json
# The usual type URLs, looked up whole; any other prefix goes by the name after its last "/".
_READER_FOR_URL = {TYPE_PREFIX + name: read for name, read in _JSON_READERS.items()}


def _problem_to_json(p: ProblemInfo) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr, camel, _, _ in _PROBLEM_JSON[:7]:
        value = getattr(p, attr)
        if value:
            out[camel] = value
    if p.alternatives:
        out["alternatives"] = list(p.alternatives)
    if p.alternatives_truncated:
        out["alternativesTruncated"] = True
    if p.extensions:
        out["extensions"] = p.extensions
    return out


def check_depth(value: Any, limit: int) -> None:
    """Raise DecodeError when `value` nests deeper than `limit` arrays and objects."""
    if not value and limit > 0:  # an empty container (or a falsy scalar) nests nothing
        return
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth >= limit:
            raise DecodeError(f"JSON nests deeper than {limit} levels (the limit is Limits.max_depth)")
        stack.extend((child, depth + 1) for child in children)


# --------------------------------------------------------------------------- protobuf


def _valid_http_status(status: int) -> bool:
    return status == 0 or 100 <= status <= 599


# One protobuf reader per known type, the counterpart of the JSON readers: it takes
# the parsed message, counts a repeated field before reading it (DecodeError past
# Limits.max_violations), and raises _Mismatch for a value out of its type's range
# (a Duration of 2**62 seconds, an HTTP status of 99999), which item_from_any then
# keeps untouched rather than read as something it cannot be.


def _sorted_map(pb_map: Any) -> dict[str, str]:
    # A protobuf map iterates in its hash table's order: sorted, as deterministic
    # serialisation writes it. Keys then lookups, because items() on a protobuf map
    # runs through the Python Mapping mixin and costs half again as much.
    return {key: pb_map[key] for key in sorted(pb_map)}


def _error_info_from_pb(msg: ed.ErrorInfo, limits: Limits) -> ErrorInfo:
    return ErrorInfo(reason=msg.reason, domain=msg.domain, metadata=_sorted_map(msg.metadata))


def _retry_info_from_pb(msg: ed.RetryInfo, limits: Limits) -> RetryInfo:
    seconds, nanos = msg.retry_delay.seconds, msg.retry_delay.nanos
    # A proto3 Duration: |seconds| within range, nanos of the same sign.
    if abs(seconds) > MAX_DURATION_SECONDS or abs(nanos) >= _NANOS or seconds * nanos < 0:
        raise _Mismatch("retryDelay")
    return RetryInfo(retry_delay_nanos=max(0, seconds * _NANOS + nanos))


def _bad_request_from_pb(msg: ed.BadRequest, limits: Limits) -> BadRequest:
    return BadRequest(
        field_violations=tuple(
            FieldViolation(
                field=v.field,
                description=v.description,
                reason=v.reason,
                localized_message=(
                    LocalizedMessage(locale=v.localized_message.locale, message=v.localized_message.message)
                    if v.HasField("localized_message")
                    else None
                ),
            )
            for v in _counted(msg.field_violations, limits, "field violations")
        )
    )


def _quota_failure_from_pb(msg: ed.QuotaFailure, limits: Limits) -> QuotaFailure:
    return QuotaFailure(
        violations=tuple(
            QuotaViolation(
                subject=v.subject,
                description=v.description,
                api_service=v.api_service,
                quota_metric=v.quota_metric,
                quota_id=v.quota_id,
                quota_dimensions=_sorted_map(v.quota_dimensions),
                quota_value=v.quota_value,
                future_quota_value=v.future_quota_value if v.HasField("future_quota_value") else None,
            )
            for v in _counted(msg.violations, limits, "quota violations")
        )
    )


def _precondition_failure_from_pb(msg: ed.PreconditionFailure, limits: Limits) -> PreconditionFailure:
    return PreconditionFailure(
        violations=tuple(
            PreconditionViolation(type=v.type, subject=v.subject, description=v.description)
            for v in _counted(msg.violations, limits, "precondition violations")
        )
    )


def _resource_info_from_pb(msg: ed.ResourceInfo, limits: Limits) -> ResourceInfo:
    return ResourceInfo(
        resource_type=msg.resource_type, resource_name=msg.resource_name, owner=msg.owner, description=msg.description
    )


def _request_info_from_pb(msg: ed.RequestInfo, limits: Limits) -> RequestInfo:
    return RequestInfo(request_id=msg.request_id, serving_data=msg.serving_data)


def _help_from_pb(msg: ed.Help, limits: Limits) -> Help:
    links = _counted(msg.links, limits, "help links")
    return Help(links=tuple(Link(description=link.description, url=link.url) for link in links))


def _localized_message_from_pb(msg: ed.LocalizedMessage, limits: Limits) -> LocalizedMessage:
    return LocalizedMessage(locale=msg.locale, message=msg.message)


def _debug_info_from_pb(msg: ed.DebugInfo, limits: Limits) -> DebugInfo:
    return DebugInfo(stack_entries=tuple(msg.stack_entries), detail=msg.detail)


def _problem_from_pb(msg: problem_pb2.Problem, limits: Limits) -> ProblemInfo:
    if not _valid_http_status(msg.http_status):
        raise _Mismatch("httpStatus")
    ext = struct_to_python(msg.extensions) if msg.HasField("extensions") else {}
    alts = tuple(value_to_python(v) for v in msg.alternatives)
    check_depth(ext, limits.max_depth)
    check_depth(list(alts), limits.max_depth)
    return ProblemInfo(
        type=msg.type,
        title=msg.title,
        instance=msg.instance,
        http_status=msg.http_status,
        code=msg.code,
        reason_synthesized=msg.reason_synthesized,
        message_is_title=msg.message_is_title,
        alternatives=alts,
        alternatives_truncated=msg.alternatives_truncated,
        extensions=ext,
    )


def _opaque_from_pb(msg: problem_pb2.OpaqueDetail, limits: Limits) -> Item:
    # A detail that came as JSON. Its members are read as the JSON dialects read them,
    # so that one that fits its type's schema (a hand-made OpaqueDetail naming
    # google.rpc.DebugInfo) is that type here too, not only there.
    fields = struct_to_python(msg.fields)
    check_depth(fields, limits.max_depth)
    if "@type" in fields:
        return RawDetail(type_url=msg.type_url, fields=fields)
    return item_from_json({"@type": msg.type_url, **fields} if msg.type_url else fields, limits)


# Full type name -> its protobuf class and reader.
_PB_READERS: dict[str, tuple[Any, Callable[[Any, Limits], Item]]] = {
    "google.rpc.ErrorInfo": (ed.ErrorInfo, _error_info_from_pb),
    "google.rpc.RetryInfo": (ed.RetryInfo, _retry_info_from_pb),
    "google.rpc.BadRequest": (ed.BadRequest, _bad_request_from_pb),
    "google.rpc.QuotaFailure": (ed.QuotaFailure, _quota_failure_from_pb),
    "google.rpc.PreconditionFailure": (ed.PreconditionFailure, _precondition_failure_from_pb),
    "google.rpc.ResourceInfo": (ed.ResourceInfo, _resource_info_from_pb),
    "google.rpc.RequestInfo": (ed.RequestInfo, _request_info_from_pb),
    "google.rpc.Help": (ed.Help, _help_from_pb),
    "google.rpc.LocalizedMessage": (ed.LocalizedMessage, _localized_message_from_pb),
    "google.rpc.DebugInfo": (ed.DebugInfo, _debug_info_from_pb),
    PROBLEM_TYPE: (problem_pb2.Problem, _problem_from_pb),
    OPAQUE_TYPE: (problem_pb2.OpaqueDetail, _opaque_from_pb),
}
# The usual type URLs, looked up whole; any other prefix goes by the name after its last "/".
_PB_READER_FOR_URL = {TYPE_PREFIX + name: entry for name, entry in _PB_READERS.items()}


def item_from_any(any_msg: any_pb2.Any, limits: Limits) -> Item:
    """One packed detail of a Status."""
    type_url, value = any_msg.type_url, any_msg.value
    known = _PB_READER_FOR_URL.get(type_url) or _PB_READERS.get(type_name(type_url))
    if known is None:
        return RawDetail(type_url=type_url, value=value)
    cls, read = known
    try:
        return read(cls.FromString(value), limits)
    except (ProtoDecodeError, _Mismatch):
        # A detail of a known type that does not parse, or does not fit its type's
        # range, still travels untouched.
        return RawDetail(type_url=type_url, value=value)


# One protobuf writer per detail Struct, giving the serialised message. Repeated
# and nested messages go in as plain dicts, which protobuf turns into messages in
# C: a Python message object each, or add() and attribute sets, costs about twice
# as much. Only a message with a map (a Struct is one) is serialised
# deterministically, which sorts the map's keys as the golden bytes have them;
# for the others it would change nothing and costs time.


def _error_info_pb(item: ErrorInfo) -> bytes:
    msg = ed.ErrorInfo(reason=item.reason, domain=item.domain, metadata=item.metadata)
    return msg.SerializeToString(deterministic=True)


def _retry_info_pb(item: RetryInfo) -> bytes:
    seconds, nanos = divmod(item.retry_delay_nanos, _NANOS)
    return ed.RetryInfo(retry_delay={"seconds": seconds, "nanos": nanos}).SerializeToString()


def _field_violation_pb(v: FieldViolation) -> dict[str, Any]:
    out: dict[str, Any] = {"field": v.field, "description": v.description, "reason": v.reason}
    if v.localized_message is not None:  # present even when empty
        out["localized_message"] = {"locale": v.localized_message.locale, "message": v.localized_message.message}
    return out


def _bad_request_pb(item: BadRequest) -> bytes:
    return ed.BadRequest(field_violations=[_field_violation_pb(v) for v in item.field_violations]).SerializeToString()


def _quota_violation_pb(q: QuotaViolation) -> dict[str, Any]:
    out: dict[str, Any] = {
        "subject": q.subject,
        "description": q.description,
        "api_service": q.api_service,
        "quota_metric": q.quota_metric,
        "quota_id": q.quota_id,
        "quota_dimensions": q.quota_dimensions,
        "quota_value": q.quota_value,
    }
    if q.future_quota_value is not None:  # proto3 optional: present even when 0
        out["future_quota_value"] = q.future_quota_value
    return out


def _quota_failure_pb(item: QuotaFailure) -> bytes:
    msg = ed.QuotaFailure(violations=[_quota_violation_pb(q) for q in item.violations])
    return msg.SerializeToString(deterministic=True)


def _precondition_failure_pb(item: PreconditionFailure) -> bytes:
    violations = [{"type": v.type, "subject": v.subject, "description": v.description} for v in item.violations]
    return ed.PreconditionFailure(violations=violations).SerializeToString()


def _resource_info_pb(item: ResourceInfo) -> bytes:
    return ed.ResourceInfo(
        resource_type=item.resource_type,
        resource_name=item.resource_name,
        owner=item.owner,
        description=item.description,
    ).SerializeToString()


def _request_info_pb(item: RequestInfo) -> bytes:
    return ed.RequestInfo(request_id=item.request_id, serving_data=item.serving_data).SerializeToString()


def _help_pb(item: Help) -> bytes:
    links = [{"description": link.description, "url": link.url} for link in item.links]
    return ed.Help(links=links).SerializeToString()


def _localized_message_pb(item: LocalizedMessage) -> bytes:
    return ed.LocalizedMessage(locale=item.locale, message=item.message).SerializeToString()


def _debug_info_pb(item: DebugInfo) -> bytes:
    return ed.DebugInfo(stack_entries=item.stack_entries, detail=item.detail).SerializeToString()


def _problem_pb(item: ProblemInfo) -> bytes:
    msg = problem_pb2.Problem(
        type=item.type,
        title=item.title,
        instance=item.instance,
        http_status=item.http_status,
        code=item.code,
        reason_synthesized=item.reason_synthesized,
        message_is_title=item.message_is_title,
        alternatives_truncated=item.alternatives_truncated,
    )
    for value in item.alternatives:
        _set_value(msg.alternatives.add(), value)
    if item.extensions:  # absent, not an empty Struct, when there are none
        _set_struct(msg.extensions, item.extensions)
    return msg.SerializeToString(deterministic=True)


def _opaque_pb(item: RawDetail) -> bytes:
    msg = problem_pb2.OpaqueDetail(type_url=item.type_url)
    _set_struct(msg.fields, item.fields or {})
    return msg.SerializeToString(deterministic=True)


# Detail Struct class -> its type URL and writer.
_PB_WRITERS: dict[type, tuple[str, Callable[[Any], bytes]]] = {
    ErrorInfo: (TYPE_PREFIX + "google.rpc.ErrorInfo", _error_info_pb),
    RetryInfo: (TYPE_PREFIX + "google.rpc.RetryInfo", _retry_info_pb),
    BadRequest: (TYPE_PREFIX + "google.rpc.BadRequest", _bad_request_pb),
    QuotaFailure: (TYPE_PREFIX + "google.rpc.QuotaFailure", _quota_failure_pb),
    PreconditionFailure: (TYPE_PREFIX + "google.rpc.PreconditionFailure", _precondition_failure_pb),
    ResourceInfo: (TYPE_PREFIX + "google.rpc.ResourceInfo", _resource_info_pb),
    RequestInfo: (TYPE_PREFIX + "google.rpc.RequestInfo", _request_info_pb),
    Help: (TYPE_PREFIX + "google.rpc.Help", _help_pb),
    LocalizedMessage: (TYPE_PREFIX + "google.rpc.LocalizedMessage", _localized_message_pb),
    DebugInfo: (TYPE_PREFIX + "google.rpc.DebugInfo", _debug_info_pb),
    ProblemInfo: (TYPE_PREFIX + PROBLEM_TYPE, _problem_pb),
}


def pack_item(item: Item) -> tuple[str, bytes]:
    """One detail for a Status, as its Any's type URL and value.

    A pair rather than an Any: the Status is built from these in one call, where an
    Any object would be built here only to be copied into it.
    """
    if isinstance(item, RawDetail):
        if item.value is not None:
            return item.type_url, item.value
        return TYPE_PREFIX + OPAQUE_TYPE, _opaque_pb(item)
    entry = _PB_WRITERS.get(type(item))
    if entry is None:  # a subclass of a detail Struct
        entry = next((e for cls, e in _PB_WRITERS.items() if isinstance(item, cls)), None)
        if entry is None:
            raise TypeError(f"not an error detail: {shorten(item)}")
    type_url, write = entry
    return type_url, write(item)


def item_to_any(item: Item) -> any_pb2.Any:
    """Pack one detail for a Status."""
    type_url, value = pack_item(item)
    return any_pb2.Any(type_url=type_url, value=value)


# JSON values <-> google.protobuf.Value. Struct numbers are doubles; a whole
# double comes back as an int so that `30` survives the trip as `30`.


def python_to_value(value: Any) -> struct_pb2.Value:
    out = struct_pb2.Value()
    _set_value(out, value)
    return out


def python_to_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    _set_struct(out, value)
    return out


# The writers fill the message in place, each nested Value where it will live:
# building one and copying it into its parent copies every level again.


def _set_value(out: struct_pb2.Value, value: Any) -> None:
    if value is None:
        out.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, (int, float)):
        out.number_value = float(value)
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, dict):
        _set_struct(out.struct_value, value)
    elif isinstance(value, (list, tuple)):
        values = out.list_value.values
        out.list_value.SetInParent()  # an empty list is still a list_value
        for item in value:
            _set_value(values.add(), item)
    else:
        raise TypeError(f"not a JSON value: {shorten(value)}")


def _set_struct(out: struct_pb2.Struct, value: dict[str, Any]) -> None:
    out.SetInParent()  # an empty object is still a Struct
    fields = out.fields
    for key, item in value.items():
        _set_value(fields[key], item)


def value_to_python(value: struct_pb2.Value) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        # -0.0 stays a float: it is a number JSON writes, and 0 would write it as 0.
        whole = number.is_integer() and abs(number) <= 2**53 and (number != 0 or str(number)[0] != "-")
        return int(number) if whole else number
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return struct_to_python(value.struct_value)
    if kind == "list_value":
        return [value_to_python(v) for v in value.list_value.values]
    return None


def struct_to_python(value: struct_pb2.Struct) -> dict[str, Any]:
    # Deterministic serialisation sorts map keys, so member order does not survive a
    # Status; the members and their values do. They are read back sorted too: a map's
    # own iteration order differs from one process to the next, and the JSON written
    # from a decoded Status must not. Keys then lookups: items() runs through the
    # Python Mapping mixin and is slower.
    fields = value.fields
    return {key: value_to_python(fields[key]) for key in sorted(fields)}
