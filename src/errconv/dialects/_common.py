"""What every decoder and encoder shares: JSON reading under limits, the Status
mapping (Fault <-> code, message and details) and the last step of decoding, which
settles the next step and records where it came from.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .._errors import DecodeError, shorten
from ..codes import Code, NextStep, code_name, http_for_code, infer_next_step
from ..details import BadRequest, DebugInfo, ErrorInfo, FieldViolation, RawDetail, RetryInfo
from ..fault import REASON_MAX, REASON_RE, Fault, Origin, Violation
from ..limits import MAX_RETRY_AFTER_SECONDS, Limits
from ._details import PROBLEM_TYPE, TYPE_PREFIX, Item, ProblemInfo, field_violation_to_json, item_to_json

_json_decoder = msgspec.json.Decoder()
_json_encoder = msgspec.json.Encoder()

# Seed 000's vocabulary, accepted wherever a next step may be stated.
STEP_ALIASES = {
    "fix_request": NextStep.FIX_REQUEST,
    "wait": NextStep.WAIT,
    "give_up": NextStep.GIVE_UP,
    "invalid_request": NextStep.FIX_REQUEST,
    "transient": NextStep.WAIT,
    "terminal": NextStep.GIVE_UP,
}


def read_json(data: bytes | str, limits: Limits, what: str) -> Any:
    """Parse JSON under the size limit, turning every failure into one DecodeError."""
    if len(data) > limits.max_bytes:
        raise DecodeError(f"{what} is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    try:
        obj = _json_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"{what} is not valid JSON: {str(exc)[:80]}") from None
    except RecursionError:
        raise DecodeError(f"{what} nests too deeply to read (the limit is Limits.max_depth)") from None
    except UnicodeError:  # text with a lone surrogate, which no UTF-8 can hold
        raise DecodeError(f"{what} is not valid Unicode text (a lone surrogate)") from None
    # msgspec reads a 4000-digit integer exactly, but no double holds one (it refuses
    # 1e999 as out of range already); a google.rpc.Status could not carry it.
    if len(data) > 308 and has_long_digit_run(data):
        _check_numbers(obj, what)
    return obj


_DIGITS = b"0123456789"
_LONG_DIGITS_B = re.compile(rb"[0-9]{309}")


def has_long_digit_run(data: bytes | str) -> bool:
    # The regular expression tries every position (20 ns a byte); counting the digits
    # first (C speed) leaves it only inputs that hold 309 digits at all.
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    return len(raw) - len(raw.translate(None, _DIGITS)) >= 309 and _LONG_DIGITS_B.search(raw) is not None


def _check_numbers(obj: Any, what: str) -> None:
    number = beyond_double(obj)
    if number is not None:
        raise DecodeError(f"{what} holds a {len(str(abs(number)))}-digit number, out of range of a JSON double")


def beyond_double(obj: Any) -> int | None:
    """An integer in `obj` (JSON arrays and objects) that no JSON double holds, or None."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, int) and abs(node) > sys.float_info.max:
            return node
    return None


# A Status holds a fault's own fields in up to four details of its own (ErrorInfo,
# RetryInfo, BadRequest, errconv.v1.Problem). Limits.max_details counts the others,
# so that errconv reads back every Status it writes from a fault it read.
OWN_DETAILS = 4


def details_over(count: int, limits: Limits) -> str:
    return (
        f"{count} details, over the limit of {limits.max_details + OWN_DETAILS}"
        f" (Limits.max_details, and {OWN_DETAILS} for the fault's own fields)"
    )


def write_json(value: Any) -> bytes:
    return _json_encoder.encode(value)


def seconds_from_nanos(nanos: int) -> int:
    """Whole seconds for a delay, rounded up: waiting 2.4 s means waiting 3."""
    return min(math.ceil(nanos / 1_000_000_000), MAX_RETRY_AFTER_SECONDS)


def capped_delay(seconds: int) -> int:
    """A delay as errconv writes it: whole, not negative, at most MAX_RETRY_AFTER_SECONDS
    (a Fault made by hand may hold 10**30; no encoder may overflow or stall a client)."""
    return max(0, min(int(seconds), MAX_RETRY_AFTER_SECONDS))


def whole_seconds(value: Any) -> int | None:
    """A body's delay as whole seconds (fractions round up), or None if it is not a number."""
    if type(value) is int and 0 <= value <= MAX_RETRY_AFTER_SECONDS:  # the usual case, as written
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return max(0, min(math.ceil(value), MAX_RETRY_AFTER_SECONDS))


# --------------------------------------------------------------------------- codes and reasons

_NOT_REASON = re.compile(r"[^A-Z0-9]+")


def reason_for(fault: Fault) -> tuple[str, str, bool]:
    """ErrorInfo.reason for a fault, the exact code when the reason cannot give it back,
    and whether the reason was made from the gRPC code name."""
    if fault.code is None:
        return code_name(fault.grpc_code), "", True
    upper = fault.code.upper()
    if len(upper) <= REASON_MAX and REASON_RE.fullmatch(upper) and upper.lower() == fault.code:
        return upper, "", False
    reason = _NOT_REASON.sub("_", upper).strip("_")[:REASON_MAX].rstrip("_")
    if not REASON_RE.fullmatch(reason) or not reason[0].isalpha():
        reason = code_name(fault.grpc_code)
    return reason, fault.code, False


def code_from_reason(reason: str) -> str | None:
    if not reason:
        return None
    return reason.lower() if reason.isupper() else reason


def valid_code(value: Any) -> int:
    """A gRPC code from the wire; a number outside google.rpc.Code is UNKNOWN, as gRPC says."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 16:
        return value
    return Code.UNKNOWN


# --------------------------------------------------------------------------- Fault -> Status


def status_items(fault: Fault, *, keep_debug: bool = True) -> tuple[str, list[Item]]:
    """Status.message and the details for a fault, standard homes first.

    ErrorInfo (always, as AIP-193 requires), then RetryInfo, BadRequest, the fault's
    other details in order, and last errconv.v1.Problem for what has no standard home.
    """
    reason, exact_code, synthesized = reason_for(fault)
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
    if fault.details:
        items.extend(d for d in fault.details if keep_debug or not isinstance(d, DebugInfo))
    message_is_title = fault.detail is None and fault.title is not None
    problem = ProblemInfo(
        type=fault.type or "",
        title="" if message_is_title else (fault.title or ""),
        instance=fault.instance or "",
        http_status=0 if fault.status == http_for_code(fault.grpc_code) else fault.status,
        code=exact_code,
        reason_synthesized=synthesized,
        message_is_title=message_is_title,
        alternatives=fault.alternatives,
        alternatives_truncated=fault.alternatives_truncated,
        extensions=fault.extensions,
    )
    if problem:
        items.append(problem)
    return fault.detail or fault.title or "", items


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
    return bool(fault.violations or (fault.details and any(isinstance(d, BadRequest) for d in fault.details)))


_ERROR_INFO_URL = TYPE_PREFIX + "google.rpc.ErrorInfo"
_RETRY_INFO_URL = TYPE_PREFIX + "google.rpc.RetryInfo"
_BAD_REQUEST_URL = TYPE_PREFIX + "google.rpc.BadRequest"
_PROBLEM_URL = TYPE_PREFIX + PROBLEM_TYPE


def status_items_json(fault: Fault, *, keep_debug: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """Status.message and the proto3 JSON `details` array for a fault.

    The same details as `status_items`, each as `item_to_json` writes it (a test holds
    the two equal), but written straight from the fault: the JSON dialects would
    otherwise make a detail Struct for each of the fault's own fields only to turn it
    into a dict.
    """
    reason, exact_code, synthesized = reason_for(fault)
    error_info: dict[str, Any] = {"@type": _ERROR_INFO_URL}
    if reason:
        error_info["reason"] = reason
    if fault.domain:
        error_info["domain"] = fault.domain
    metadata = _error_info_metadata(fault)
    if metadata:
        error_info["metadata"] = metadata
    details = [error_info]
    if fault.retry_after_seconds is not None:
        # Whole seconds, as format_duration writes them.
        details.append({"@type": _RETRY_INFO_URL, "retryDelay": f"{capped_delay(fault.retry_after_seconds)}s"})
    if _writes_bad_request(fault):
        details.append({"@type": _BAD_REQUEST_URL, "fieldViolations": [field_violation_to_json(v) for v in fault.violations]})
    for item in fault.details:
        if keep_debug or not isinstance(item, DebugInfo):
            details.append(item_to_json(item))
    # errconv.v1.Problem, with the members of the ProblemInfo that status_items makes.
    message_is_title = fault.detail is None and fault.title is not None
    problem: dict[str, Any] = {"@type": _PROBLEM_URL}
    if fault.type:
        problem["type"] = fault.type
    if fault.title and not message_is_title:
        problem["title"] = fault.title
    if fault.instance:
        problem["instance"] = fault.instance
    http_status = 0 if fault.status == http_for_code(fault.grpc_code) else fault.status  # 0: the code's own
    if http_status:
        problem["httpStatus"] = http_status
    if exact_code:
        problem["code"] = exact_code
    if synthesized:
        problem["reasonSynthesized"] = True
    if message_is_title:
        problem["messageIsTitle"] = True
    if fault.alternatives:
        problem["alternatives"] = list(fault.alternatives)
    if fault.alternatives_truncated:
        problem["alternativesTruncated"] = True
    if fault.extensions:
        problem["extensions"] = fault.extensions
    if len(problem) > 1:
        details.append(problem)
    return fault.detail or fault.title or "", details


# --------------------------------------------------------------------------- Status -> Fault


@dataclass
class Hints:
    """What the wire says outside the body: headers, trailers, pushback."""

    wait: str | None = None  # the name of a signal that says wait
    delay: int | None = None  # its delay in whole seconds, if it gave one
    no_retry: str | None = None  # the name of a signal that forbids retrying
    notes: list[str] = field(default_factory=list)


def http_status_wins(body_status: int | None, http_status: int | None, hints: Hints) -> int | None:
    """The status a decoded body gets: the HTTP status line's when there is one (generic
    HTTP software uses it, RFC 9457 section 3.1.2), noting a body that said otherwise."""
    if http_status is None:
        return body_status
    if body_status is not None and body_status != http_status:
        hints.notes.append(f"body status {body_status} differs from HTTP status {http_status}; HTTP wins")
    return http_status


def fields_from_status(
    grpc_code: int, message: str, items: list[Item], *, http_status: int | None = None
) -> tuple[dict[str, Any], NextStep | None, str | None]:
    """Fault fields from a Status's parts, the stated next step, and the RetryInfo hint."""
    error_info: ErrorInfo | None = None
    retry: RetryInfo | None = None
    bad_request: BadRequest | None = None
    problem = _NO_PROBLEM
    details = []
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

    fields: dict[str, Any] = {
        "grpc_code": grpc_code,
        "status": problem.http_status or http_status or http_for_code(grpc_code),
        "type": problem.type or None,
        "instance": problem.instance or None,
        "alternatives": problem.alternatives,
        "alternatives_truncated": problem.alternatives_truncated,
        "extensions": problem.extensions or {},  # a dict of its own: _NO_PROBLEM's is shared
        "details": tuple(details),
    }
    stated: NextStep | None = None
    if error_info is not None:
        metadata = dict(error_info.metadata)
        step = metadata.pop("next_step", None)
        if step is not None and step in STEP_ALIASES:
            stated = STEP_ALIASES[step]
        # An unreadable step is dropped, not kept in metadata: the encoder writes the
        # fault's own next_step under that key, so it could never come back.
        for key in ("param", "blocked_by", "unblock_with"):
            if key in metadata:
                fields[key] = metadata.pop(key)
        fields["metadata"] = metadata
        fields["domain"] = error_info.domain or None
        if problem.code:
            fields["code"] = problem.code
        elif not problem.reason_synthesized:
            fields["code"] = code_from_reason(error_info.reason)
    if message:
        fields["title" if problem.message_is_title else "detail"] = message
    if problem.title:
        fields["title"] = problem.title
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


_NO_PROBLEM = ProblemInfo()


_OPTIONAL_TEXT = ("code", "domain", "title", "detail", "type", "instance", "param", "blocked_by", "unblock_with")


def finish(
    fields: dict[str, Any],
    stated: NextStep | None,
    hints: Hints,
    dialect: str,
    body_wait: str | None = None,
) -> Fault:
    """Settle the next step (stated, else the ladder) and build the decoded Fault.

    `body_wait` names a signal in the body that says wait (RetryInfo); a wire signal
    in `hints` (a header, a trailer) comes first.
    """
    # An empty string is no value, as in Fault.build: proto3 strings cannot tell them apart.
    if "" in fields.values():  # rare: one scan at C speed spares nine lookups
        for name in _OPTIONAL_TEXT:
            if fields.get(name) == "":
                fields[name] = None
    if stated is not None:
        step, source = stated, "stated"
    else:
        if not fields.get("param"):
            for v in fields.get("violations", ()):
                if v.field:
                    fields["param"] = v.field
                    break
        wait_hint = hints.wait or body_wait
        if wait_hint is None and fields.get("retry_after_seconds") is not None:
            wait_hint = "a delay in the body"
        step, source = infer_next_step(
            fields["grpc_code"],
            fields["status"],
            param=fields.get("param"),
            wait_hint=wait_hint,
            no_retry_hint=hints.no_retry,
        )
    if step is NextStep.WAIT and fields.get("retry_after_seconds") is None and hints.delay is not None:
        fields["retry_after_seconds"] = hints.delay
    fields["next_step"] = step
    # In the dict, not beside it: Fault(origin=..., **fields) would copy the dict to merge them.
    fields["origin"] = Origin(dialect=dialect, next_step=source, notes=tuple(hints.notes))
    try:
        return Fault(**fields)
    except TypeError as exc:  # a field of the wrong type slipped through: a bug, but never a crash
        raise DecodeError(f"cannot build a fault from {dialect}: {shorten(str(exc), 80)}") from None


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
