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
    body = text[:-1]
    whole, _, frac = body.partition(".")
    if not _ascii_digits(whole) or (frac and not _ascii_digits(frac)):
        raise _Mismatch("duration")
    if int(whole) > MAX_DURATION_SECONDS:  # past google.protobuf.Duration's range: not a Duration
        raise _Mismatch("duration")
    return int(whole) * _NANOS + int((frac + "000000000")[:9] or 0)


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


def field_violation_to_json(fv: FieldViolation) -> dict[str, Any]:
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
    for key, value in (
        ("subject", v.subject),
        ("description", v.description),
        ("apiService", v.api_service),
        ("quotaMetric", v.quota_metric),
        ("quotaId", v.quota_id),
    ):
        if value:
            out[key] = value
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
    if isinstance(item, RawDetail):
        if item.fields is not None:
            return {"@type": item.type_url, **item.fields} if item.type_url else dict(item.fields)
        # Bytes of an unknown type have no proto3 JSON form; "@bytes" cannot clash
        # with a field name, so the detail comes back exactly.
        return {"@type": item.type_url, "@bytes": base64.b64encode(item.value or b"").decode()}
    if isinstance(item, ProblemInfo):
        return {"@type": TYPE_PREFIX + PROBLEM_TYPE, **_problem_to_json(item)}
    out: dict[str, Any] = {"@type": TYPE_PREFIX + item.__struct_config__.tag}  # type: ignore[operator]
    if isinstance(item, ErrorInfo):
        if item.reason:
            out["reason"] = item.reason
        if item.domain:
            out["domain"] = item.domain
        if item.metadata:
            out["metadata"] = item.metadata
    elif isinstance(item, RetryInfo):
        out["retryDelay"] = format_duration(item.retry_delay_nanos)
    elif isinstance(item, BadRequest):
        out["fieldViolations"] = [field_violation_to_json(v) for v in item.field_violations]
    elif isinstance(item, QuotaFailure):
        out["violations"] = [_quota_violation_to_json(v) for v in item.violations]
    elif isinstance(item, PreconditionFailure):
        out["violations"] = [
            {k: v for k, v in (("type", p.type), ("subject", p.subject), ("description", p.description)) if v}
            for p in item.violations
        ]
    elif isinstance(item, ResourceInfo):
        for key, value in (
            ("resourceType", item.resource_type),
            ("resourceName", item.resource_name),
            ("owner", item.owner),
            ("description", item.description),
        ):
            if value:
                out[key] = value
    elif isinstance(item, RequestInfo):
        if item.request_id:
            out["requestId"] = item.request_id
        if item.serving_data:
            out["servingData"] = item.serving_data
    elif isinstance(item, Help):
        out["links"] = [
            {k: v for k, v in (("description", link.description), ("url", link.url)) if v} for link in item.links
        ]
    elif isinstance(item, LocalizedMessage):
        out.update(_localized_to_json(item))
    elif isinstance(item, DebugInfo):
        if item.stack_entries:
            out["stackEntries"] = list(item.stack_entries)
        if item.detail:
            out["detail"] = item.detail
    return out


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

_PB_CLASSES: dict[str, Any] = {
    "google.rpc.ErrorInfo": ed.ErrorInfo,
    "google.rpc.RetryInfo": ed.RetryInfo,
    "google.rpc.BadRequest": ed.BadRequest,
    "google.rpc.QuotaFailure": ed.QuotaFailure,
    "google.rpc.PreconditionFailure": ed.PreconditionFailure,
    "google.rpc.ResourceInfo": ed.ResourceInfo,
    "google.rpc.RequestInfo": ed.RequestInfo,
    "google.rpc.Help": ed.Help,
    "google.rpc.LocalizedMessage": ed.LocalizedMessage,
    "google.rpc.DebugInfo": ed.DebugInfo,
    PROBLEM_TYPE: problem_pb2.Problem,
    OPAQUE_TYPE: problem_pb2.OpaqueDetail,
}


def _valid_http_status(status: int) -> bool:
    return status == 0 or 100 <= status <= 599


_REPEATED = {
    "google.rpc.BadRequest": ("field_violations", "field violations"),
    "google.rpc.QuotaFailure": ("violations", "quota violations"),
    "google.rpc.PreconditionFailure": ("violations", "precondition violations"),
    "google.rpc.Help": ("links", "help links"),
}


def _invalid_any(name: str, msg: Any, limits: Limits) -> bool:
    """Whether a parsed detail is out of its type's range; DecodeError past max_violations."""
    if name in _REPEATED:
        attr, what = _REPEATED[name]
        _counted(getattr(msg, attr), limits, what)
    if name == "google.rpc.RetryInfo":
        d = msg.retry_delay  # proto3 Duration: |seconds| within range, nanos of the same sign
        return not (
            abs(d.seconds) <= MAX_DURATION_SECONDS and abs(d.nanos) < _NANOS and (d.seconds * d.nanos >= 0)
        )
    if name == PROBLEM_TYPE:
        return not _valid_http_status(msg.http_status)
    return False


def item_from_any(any_msg: any_pb2.Any, limits: Limits) -> Item:
    """One packed detail of a Status."""
    type_url = any_msg.type_url
    name = type_name(type_url)
    cls = _PB_CLASSES.get(name)
    if cls is None:
        return RawDetail(type_url=type_url, value=any_msg.value)
    try:
        msg = cls.FromString(any_msg.value)
    except ProtoDecodeError:
        # A detail we know the name of but cannot parse still travels untouched.
        return RawDetail(type_url=type_url, value=any_msg.value)
    if _invalid_any(name, msg, limits):
        # Out of its type's range (a Duration of 2**62 seconds, an HTTP status of 99999):
        # kept untouched rather than read as something it cannot be.
        return RawDetail(type_url=type_url, value=any_msg.value)
    if name == "google.rpc.ErrorInfo":
        return ErrorInfo(reason=msg.reason, domain=msg.domain, metadata=dict(sorted(msg.metadata.items())))  # map order is the hash table's: sort, as deterministic serialisation does
    if name == "google.rpc.RetryInfo":
        d = msg.retry_delay
        return RetryInfo(retry_delay_nanos=max(0, d.seconds * _NANOS + d.nanos))
    if name == "google.rpc.BadRequest":
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
                for v in msg.field_violations
            )
        )
    if name == "google.rpc.QuotaFailure":
        return QuotaFailure(
            violations=tuple(
                QuotaViolation(
                    subject=v.subject,
                    description=v.description,
                    api_service=v.api_service,
                    quota_metric=v.quota_metric,
                    quota_id=v.quota_id,
                    quota_dimensions=dict(sorted(v.quota_dimensions.items())),
                    quota_value=v.quota_value,
                    future_quota_value=v.future_quota_value if v.HasField("future_quota_value") else None,
                )
                for v in msg.violations
            )
        )
    if name == "google.rpc.PreconditionFailure":
        return PreconditionFailure(
            violations=tuple(
                PreconditionViolation(type=v.type, subject=v.subject, description=v.description) for v in msg.violations
            )
        )
    if name == "google.rpc.ResourceInfo":
        return ResourceInfo(
            resource_type=msg.resource_type, resource_name=msg.resource_name, owner=msg.owner, description=msg.description
        )
    if name == "google.rpc.RequestInfo":
        return RequestInfo(request_id=msg.request_id, serving_data=msg.serving_data)
    if name == "google.rpc.Help":
        return Help(links=tuple(Link(description=link.description, url=link.url) for link in msg.links))
    if name == "google.rpc.LocalizedMessage":
        return LocalizedMessage(locale=msg.locale, message=msg.message)
    if name == "google.rpc.DebugInfo":
        return DebugInfo(stack_entries=tuple(msg.stack_entries), detail=msg.detail)
    if name == PROBLEM_TYPE:
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
    # errconv.v1.OpaqueDetail: a detail that came as JSON. Its members are read as the
    # JSON dialects read them, so that one that fits its type's schema (a hand-made
    # OpaqueDetail naming google.rpc.DebugInfo) is that type here too, not only there.
    fields = struct_to_python(msg.fields)
    check_depth(fields, limits.max_depth)
    if "@type" in fields:
        return RawDetail(type_url=msg.type_url, fields=fields)
    return item_from_json({"@type": msg.type_url, **fields} if msg.type_url else fields, limits)


def item_to_any(item: Item) -> any_pb2.Any:
    """Pack one detail for a Status."""
    if isinstance(item, RawDetail):
        if item.value is not None:
            return any_pb2.Any(type_url=item.type_url, value=item.value)
        opaque = problem_pb2.OpaqueDetail(type_url=item.type_url, fields=python_to_struct(item.fields or {}))
        return _pack(OPAQUE_TYPE, opaque)
    if isinstance(item, ProblemInfo):
        msg = problem_pb2.Problem(
            type=item.type,
            title=item.title,
            instance=item.instance,
            http_status=item.http_status,
            code=item.code,
            reason_synthesized=item.reason_synthesized,
            message_is_title=item.message_is_title,
            alternatives=[python_to_value(v) for v in item.alternatives],
            alternatives_truncated=item.alternatives_truncated,
        )
        if item.extensions:
            msg.extensions.CopyFrom(python_to_struct(item.extensions))
        return _pack(PROBLEM_TYPE, msg)
    name: str = item.__struct_config__.tag  # type: ignore[assignment]
    if isinstance(item, ErrorInfo):
        pb: Any = ed.ErrorInfo(reason=item.reason, domain=item.domain, metadata=item.metadata)
    elif isinstance(item, RetryInfo):
        pb = ed.RetryInfo()
        pb.retry_delay.seconds, pb.retry_delay.nanos = divmod(item.retry_delay_nanos, _NANOS)
    elif isinstance(item, BadRequest):
        pb = ed.BadRequest()
        for v in item.field_violations:
            fv = pb.field_violations.add(field=v.field, description=v.description, reason=v.reason)
            if v.localized_message is not None:
                fv.localized_message.locale = v.localized_message.locale
                fv.localized_message.message = v.localized_message.message
    elif isinstance(item, QuotaFailure):
        pb = ed.QuotaFailure()
        for q in item.violations:
            qv = pb.violations.add(
                subject=q.subject,
                description=q.description,
                api_service=q.api_service,
                quota_metric=q.quota_metric,
                quota_id=q.quota_id,
                quota_dimensions=q.quota_dimensions,
                quota_value=q.quota_value,
            )
            if q.future_quota_value is not None:
                qv.future_quota_value = q.future_quota_value
    elif isinstance(item, PreconditionFailure):
        pb = ed.PreconditionFailure(
            violations=[
                ed.PreconditionFailure.Violation(type=v.type, subject=v.subject, description=v.description)
                for v in item.violations
            ]
        )
    elif isinstance(item, ResourceInfo):
        pb = ed.ResourceInfo(
            resource_type=item.resource_type,
            resource_name=item.resource_name,
            owner=item.owner,
            description=item.description,
        )
    elif isinstance(item, RequestInfo):
        pb = ed.RequestInfo(request_id=item.request_id, serving_data=item.serving_data)
    elif isinstance(item, Help):
        pb = ed.Help(links=[ed.Help.Link(description=link.description, url=link.url) for link in item.links])
    elif isinstance(item, LocalizedMessage):
        pb = ed.LocalizedMessage(locale=item.locale, message=item.message)
    else:
        pb = ed.DebugInfo(stack_entries=item.stack_entries, detail=item.detail)
    return _pack(name, pb)


def _pack(name: str, msg: Any) -> any_pb2.Any:
    return any_pb2.Any(type_url=TYPE_PREFIX + name, value=msg.SerializeToString(deterministic=True))


# JSON values <-> google.protobuf.Value. Struct numbers are doubles; a whole
# double comes back as an int so that `30` survives the trip as `30`.


def python_to_value(value: Any) -> struct_pb2.Value:
    out = struct_pb2.Value()
    if value is None:
        out.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, (int, float)):
        out.number_value = float(value)
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, dict):
        out.struct_value.CopyFrom(python_to_struct(value))
    elif isinstance(value, (list, tuple)):
        out.list_value.values.extend(python_to_value(v) for v in value)
    else:
        raise TypeError(f"not a JSON value: {shorten(value)}")
    return out


def python_to_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    for key, item in value.items():
        out.fields[key].CopyFrom(python_to_value(item))
    return out


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
    # Status; the members and their values do.
    return {key: value_to_python(item) for key, item in value.fields.items()}
