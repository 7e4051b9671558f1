"""A Fault as a google.rpc.Status and back: the mapping every Google-flavoured dialect
(google, status-json, status, grpc, connect) shares.

Standard homes first: the code, domain, metadata and the scalar agent fields in
ErrorInfo (AIP-193 makes it mandatory), the delay in RetryInfo, the violations in
BadRequest, the fault's other details in order, and last errconv.v1.Problem for what
no standard detail carries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec
from google.rpc import status_pb2

from .._model.errors import DecodeError
from .._model.fault import REASON_MAX, REASON_RE, Fault, Violation
from .._model.limits import Limits
from ..codes import NextStep, code_name, http_for_code
from ..details import BadRequest, DebugInfo, ErrorInfo, FieldViolation, RawDetail, RetryInfo
from ._common import STEP_ALIASES, CodeValue, capped_delay, seconds_from_nanos
from .._model.schema import PROBLEM_TYPE, TYPE_PREFIX, Item, ProblemInfo, item_to_json, json_names, members_writer, pack_item

__all__ = [
    "OWN_DETAILS",
    "check_details_count",
    "code_from_reason",
    "fields_from_status",
    "pack",
    "reason_for",
    "status_bytes",
    "status_items",
    "status_items_json",
    "status_message",
    "without_debug",
]

# A Status holds a fault's own fields in up to four details of its own (ErrorInfo,
# RetryInfo, BadRequest, errconv.v1.Problem). Limits.max_details counts the others,
# so that errconv reads back every Status it writes from a fault it read.
OWN_DETAILS = 4


def check_details_count(count: int, limits: Limits, where: str = "") -> None:
    if count > limits.max_details + OWN_DETAILS:
        raise DecodeError(
            f"{where}{count} details, over the limit of {limits.max_details + OWN_DETAILS}"
            f" (Limits.max_details, and {OWN_DETAILS} for the fault's own fields)"
        )


# --------------------------------------------------------------------------- codes and reasons

_NOT_REASON = re.compile(r"[^A-Z0-9]+")


# Codes seen, and the reason each gives (when the code alone gives it): encoding the
# same code again skips the recasing and the pattern.
_REASONS: dict[str, tuple[str, str, bool]] = {}


def reason_for(fault: Fault) -> tuple[str, str, bool]:
    """ErrorInfo.reason for a fault, the exact code when the reason cannot give it back,
    and whether the reason was made from the gRPC code name."""
    if fault.code is None:
        return code_name(fault.grpc_code), "", True
    code = fault.code
    hit = _REASONS.get(code)
    if hit is not None:
        return hit
    upper = code.upper()
    if len(upper) <= REASON_MAX and REASON_RE.fullmatch(upper):
        # Another spelling ("rate_limited") rides beside its reason: a code is kept as its
        # service spells it, and decoding a reason does not recase it.
        found = upper, "" if upper == code else code, False
        if len(_REASONS) >= 1024:
            _REASONS.clear()  # bounded, whatever codes go through
        _REASONS[code] = found  # the code alone gives it: no gRPC code in it
        return found
    reason = _NOT_REASON.sub("_", upper).strip("_")[:REASON_MAX].rstrip("_")
    if not REASON_RE.fullmatch(reason) or not reason[0].isalpha():
        reason = code_name(fault.grpc_code)
    return reason, fault.code, False


def code_from_reason(reason: str) -> str | None:
    """The code an ErrorInfo.reason states: itself, spelled as the service spells it."""
    return reason or None


# --------------------------------------------------------------------------- Fault -> Status


def _error_info_metadata(fault: Fault) -> dict[str, str]:
    """ErrorInfo.metadata: the fault's, then the scalar agent fields (METADATA_RESERVED)."""
    metadata = dict(fault.metadata)
    if fault.next_step is not None:
        metadata["next_step"] = str(fault.next_step)
    if fault.param is not None:
        metadata["param"] = str(fault.param)
    if fault.blocked_by is not None:
        metadata["blocked_by"] = str(fault.blocked_by)
    if fault.unblock_with is not None:
        metadata["unblock_with"] = str(fault.unblock_with)
    return metadata


def _writes_bad_request(fault: Fault) -> bool:
    # The first BadRequest is the fault's violations: written, even empty, whenever a
    # second one rides in details, so that it reads back as the second.
    return bool(fault.violations or (fault.details and any(type(d) is BadRequest for d in fault.details)))


def _problem(fault: Fault, exact_code: str) -> dict[str, Any]:
    """errconv.v1.Problem's members for what no standard detail carries, by attribute,
    those with a value only (none at all for most faults)."""
    out: dict[str, Any] = {}
    message_is_title = fault.detail is None and fault.title is not None
    if fault.type:
        out["type"] = fault.type
    if fault.title and not message_is_title:
        out["title"] = fault.title
    if fault.instance:
        out["instance"] = fault.instance
    if fault.status != http_for_code(fault.grpc_code):  # else 0: the code's own status
        out["http_status"] = fault.status
    if exact_code:
        out["code"] = exact_code
    if fault.code is None:
        out["reason_synthesized"] = True
    if message_is_title:
        out["message_is_title"] = True
    if fault.alternatives:
        out["alternatives"] = fault.alternatives
    if fault.alternatives_truncated:
        out["alternatives_truncated"] = True
    if fault.extensions:
        out["extensions"] = fault.extensions
    return out


def _kept(fault: Fault, keep_debug: bool) -> tuple[Any, ...]:
    if keep_debug or not fault.details:
        return fault.details
    return tuple(d for d in fault.details if type(d) is not DebugInfo)


def status_items(fault: Fault, *, keep_debug: bool = True) -> tuple[str, list[Item]]:
    """Status.message and the details for a fault, standard homes first."""
    reason, exact_code, _ = reason_for(fault)
    items: list[Item] = [ErrorInfo(reason=reason, domain=fault.domain or "", metadata=_error_info_metadata(fault))]
    if fault.retry_after_seconds is not None:
        items.append(RetryInfo(retry_delay_nanos=capped_delay(fault.retry_after_seconds) * 1_000_000_000))
    if _writes_bad_request(fault):
        items.append(
            BadRequest(
                field_violations=tuple(
                    FieldViolation(
                        field=v.field,
                        description=v.description,
                        reason=v.reason or "",
                        localized_message=v.localized_message,
                    )
                    for v in fault.violations
                )
            )
        )
    items.extend(_kept(fault, keep_debug))
    problem = _problem(fault, exact_code)
    if problem:
        items.append(ProblemInfo(**problem))
    return fault.detail or fault.title or "", items


_ERROR_INFO_URL = TYPE_PREFIX + "google.rpc.ErrorInfo"
_RETRY_INFO_URL = TYPE_PREFIX + "google.rpc.RetryInfo"
_BAD_REQUEST_URL = TYPE_PREFIX + "google.rpc.BadRequest"
_PROBLEM_URL = TYPE_PREFIX + PROBLEM_TYPE
_violation_json = members_writer(FieldViolation)
# The members written straight from a fault, by their schema's names.
_EI = json_names(ErrorInfo)
_RI = json_names(RetryInfo)["retry_delay_nanos"]
_BR = json_names(BadRequest)["field_violations"]
_PI = json_names(ProblemInfo)


def status_items_json(fault: Fault, *, keep_debug: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """Status.message and the proto3 JSON `details` array for a fault.

    The same details as `status_items`, each as `item_to_json` writes it, but the
    ErrorInfo, RetryInfo and BadRequest straight from the fault: the JSON dialects
    would otherwise make a detail Struct for each only to turn it into a dict.
    """
    reason, exact_code, _ = reason_for(fault)
    error_info: dict[str, Any] = {"@type": _ERROR_INFO_URL}
    if reason:
        error_info[_EI["reason"]] = reason
    if fault.domain:
        error_info[_EI["domain"]] = fault.domain
    metadata = _error_info_metadata(fault)
    if metadata:
        error_info[_EI["metadata"]] = metadata
    details = [error_info]
    if fault.retry_after_seconds is not None:
        # Whole seconds, as format_duration writes them.
        details.append({"@type": _RETRY_INFO_URL, _RI: f"{capped_delay(fault.retry_after_seconds)}s"})
    if fault.violations or fault.details and _writes_bad_request(fault):
        entry: dict[str, Any] = {"@type": _BAD_REQUEST_URL}
        if fault.violations:  # a Violation has FieldViolation's attributes (reason None is proto3's "")
            entry[_BR] = [_violation_json(v) for v in fault.violations]
        details.append(entry)
    if fault.details:
        details.extend(item_to_json(item) for item in _kept(fault, keep_debug))
    problem = _problem(fault, exact_code)
    if problem:
        entry = {"@type": _PROBLEM_URL}
        for attr, value in problem.items():
            entry[_PI[attr]] = list(value) if attr == "alternatives" else value
        details.append(entry)
    return fault.detail or fault.title or "", details


# --------------------------------------------------------------------------- protobuf, written out
#
# Every failed call of a server with the interceptors, and every Status the status
# dialect writes, comes through here, so the Status and the two details every fault has (ErrorInfo; RetryInfo for a wait) are written as
# bytes directly: the same bytes protobuf writes (tests/test_hostile.py holds them to
# it), without building three messages to serialise them.

_VARINTS = [bytes([n]) for n in range(128)]
_INT32_MAX = 2**31 - 1


def _varint(n: int) -> bytes:
    if n < 128:
        return _VARINTS[n]
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag: bytes, raw: bytes) -> bytes:
    """A length-delimited field."""
    return tag + _varint(len(raw)) + raw


def _map_order(key: str) -> list[int]:
    # upb's deterministic order for string keys: bytewise, but of two keys one of which
    # starts the other, the longer first ("ab" before "a", "" last).
    return [*key.encode(), 256]


def pack(item: Any) -> tuple[str, bytes]:
    """`pack_item`, with RetryInfo and a small ErrorInfo written out (map entries carry key and
    value even when empty, and a RetryInfo its Duration even when zero, as protobuf
    writes them; the map in the order deterministic serialisation writes it)."""
    kind = type(item)
    # Up to two metadata entries: past that, sorting and writing each entry here costs
    # more than protobuf's constructor and deterministic serialisation (bench/proto.py).
    if kind is ErrorInfo and len(item.metadata) <= 2:
        out = []
        if item.reason:
            out.append(_field(b"\n", item.reason.encode()))
        if item.domain:
            out.append(_field(b"\x12", item.domain.encode()))
        metadata = item.metadata
        for key in sorted(metadata, key=_map_order) if len(metadata) > 1 else metadata:
            out.append(_field(b"\x1a", _field(b"\n", key.encode()) + _field(b"\x12", metadata[key].encode())))
        return _ERROR_INFO_URL, b"".join(out)
    if kind is RetryInfo and 0 <= item.retry_delay_nanos:
        seconds, nanos = divmod(item.retry_delay_nanos, 1_000_000_000)
        duration = (b"\x08" + _varint(seconds) if seconds else b"") + (b"\x10" + _varint(nanos) if nanos else b"")
        return _RETRY_INFO_URL, _field(b"\n", duration)
    return pack_item(item)


def status_bytes(code: int, message: str, packed: Iterable[tuple[str, bytes]]) -> bytes:
    """The serialized google.rpc.Status of a code, a message and packed details."""
    if not 0 <= code <= _INT32_MAX:  # a negative int32 is ten bytes: protobuf's business
        return bytes(status_message(code, message, packed).SerializeToString())
    out = [b"\x08" + _varint(code)] if code else []
    if message:
        out.append(_field(b"\x12", message.encode()))
    for type_url, value in packed:
        body = (_field(b"\n", type_url.encode()) if type_url else b"") + (_field(b"\x12", value) if value else b"")
        out.append(_field(b"\x1a", body))
    return b"".join(out)


def status_message(code: int, message: str, packed: Iterable[tuple[str, bytes]]) -> status_pb2.Status:
    """A google.rpc.Status from its code, message and packed details (pack_item's pairs)."""
    # Plain dicts: protobuf builds each Any in place, in C, where an Any object
    # would be built first and then copied into the Status.
    details = [{"type_url": type_url, "value": value} for type_url, value in packed]
    return status_pb2.Status(code=code, message=message, details=details)


# --------------------------------------------------------------------------- Status -> Fault

def fields_from_status(
    grpc_code: CodeValue, message: str, items: list[Item], *, http_status: int | None = None
) -> tuple[dict[str, Any], NextStep | None, str | None]:
    """Fault fields from a Status's parts, the stated next step, and the RetryInfo hint.

    Only the fields the Status says anything about are in the dict (the Fault's
    defaults are the rest).
    """
    error_info: ErrorInfo | None = None
    retry: RetryInfo | None = None
    bad_request: BadRequest | None = None
    problem: ProblemInfo | None = None
    details: list[Item] = []
    for item in items:
        # The detail classes are final, so the class itself says which home an item has.
        kind = type(item)
        if kind is ErrorInfo and error_info is None:
            error_info = item  # type: ignore[assignment]
        elif kind is RetryInfo and retry is None:
            retry = item  # type: ignore[assignment]
        elif kind is BadRequest and bad_request is None:
            bad_request = item  # type: ignore[assignment]
        elif kind is ProblemInfo:
            problem = item  # type: ignore[assignment]
        else:
            details.append(item)

    fields: dict[str, Any] = {"grpc_code": grpc_code}
    if details:
        fields["details"] = tuple(details)
    if problem is not None:
        fields["status"] = problem.http_status or http_status or http_for_code(grpc_code)
        if problem.type:
            fields["type"] = problem.type
        if problem.instance:
            fields["instance"] = problem.instance
        if problem.alternatives:
            fields["alternatives"] = problem.alternatives
        if problem.alternatives_truncated:
            fields["alternatives_truncated"] = True
        if problem.extensions:
            fields["extensions"] = problem.extensions
        if problem.title:
            fields["title"] = problem.title
        message_is_title = problem.message_is_title
    else:
        fields["status"] = http_status or http_for_code(grpc_code)
        message_is_title = False
    stated: NextStep | None = None
    if error_info is not None:
        metadata = error_info.metadata
        if metadata and not _RESERVED_KEYS.isdisjoint(metadata):
            metadata = dict(metadata)
            step = metadata.pop("next_step", None)
            if step is not None and step in STEP_ALIASES:
                stated = STEP_ALIASES[step]
            # An unreadable step is dropped, not kept in metadata: the encoder writes the
            # fault's own next_step under that key, so it could never come back.
            for key in ("param", "blocked_by", "unblock_with"):
                if key in metadata:
                    fields[key] = metadata.pop(key)
        if metadata:
            fields["metadata"] = metadata
        if error_info.domain:
            fields["domain"] = error_info.domain
        if problem is not None and problem.code:
            fields["code"] = problem.code
        elif problem is None or not problem.reason_synthesized:
            code = code_from_reason(error_info.reason)
            if code is not None:
                fields["code"] = code
    if message:
        if message_is_title and "title" not in fields:
            fields["title"] = message
        elif not message_is_title:
            fields["detail"] = message
    wait_hint = None
    if retry is not None:
        fields["retry_after_seconds"] = seconds_from_nanos(retry.retry_delay_nanos)
        wait_hint = "RetryInfo"
    if bad_request is not None:
        fields["violations"] = tuple(
            Violation(
                field=v.field,
                description=v.description,
                reason=v.reason or None,
                localized_message=v.localized_message,
            )
            for v in bad_request.field_violations
        )
    return fields, stated, wait_hint


_RESERVED_KEYS = frozenset(("next_step", "param", "blocked_by", "unblock_with"))


# --------------------------------------------------------------------------- outer boundaries

_DEBUG_INFO = "google.rpc.DebugInfo"


def _is_debug(value: Any) -> bool:
    # By the end of the type URL, not its last segment: a malformed URL
    # ("type.googleapis.com{google.rpc.DebugInfo") may still read as one to a lenient client.
    if isinstance(value, RawDetail):
        return value.type_url.endswith(_DEBUG_INFO)
    if isinstance(value, dict):
        kind = value.get("@type")
        return isinstance(kind, str) and kind.endswith(_DEBUG_INFO)
    return isinstance(value, DebugInfo)


def _holds_debug(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if _is_debug(node):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if not _is_debug(v)}
    if isinstance(value, list):
        return [_scrub(v) for v in value if not _is_debug(v)]
    return value


def without_debug(fault: Fault) -> Fault:
    """`fault` fit for an outer boundary: no DebugInfo, whether typed, kept raw (a DebugInfo
    that did not parse), or a JSON DebugInfo object inside an extension member, an
    alternative or an unknown detail, or extension members that are one themselves.
    The same fault when there is none."""
    changes: dict[str, Any] = {}
    # Each container is looked into only when it holds anything: most faults have empty ones.
    if fault.details and any(
        _is_debug(d) or (isinstance(d, RawDetail) and d.fields and _holds_debug(d.fields)) for d in fault.details
    ):
        changes["details"] = tuple(
            msgspec.structs.replace(d, fields=_scrub(d.fields)) if isinstance(d, RawDetail) and d.fields else d
            for d in fault.details
            if not _is_debug(d)
        )
    if fault.extensions and _is_debug(fault.extensions):
        # The members themselves are a DebugInfo (an upstream error object that says it is one).
        changes["extensions"] = {}
    elif fault.extensions and _holds_debug(list(fault.extensions.values())):
        changes["extensions"] = {k: _scrub(v) for k, v in fault.extensions.items() if not _is_debug(v)}
    if fault.alternatives and _holds_debug(list(fault.alternatives)):
        changes["alternatives"] = tuple(_scrub(v) for v in fault.alternatives if not _is_debug(v))
    return fault.replace(**changes) if changes else fault
