"""What every decoder and encoder shares: JSON reading under limits, the Status
mapping (Fault <-> code, message and details) and the last step of decoding, which
settles the next step and records where it came from.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .._errors import DecodeError, shorten
from ..codes import Code, NextStep, code_name, http_for_code, infer_next_step
from ..details import BadRequest, DebugInfo, ErrorInfo, FieldViolation, RetryInfo
from ..fault import METADATA_RESERVED, REASON_MAX, REASON_RE, Fault, Origin, Violation
from ..limits import MAX_RETRY_AFTER_SECONDS, Limits
from ._details import Item, ProblemInfo

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
        return _json_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise DecodeError(f"{what} is not valid JSON: {str(exc)[:80]}") from None
    except RecursionError:
        raise DecodeError(f"{what} nests too deeply to read (the limit is Limits.max_depth)") from None


def write_json(value: Any) -> bytes:
    return _json_encoder.encode(value)


def seconds_from_nanos(nanos: int) -> int:
    """Whole seconds for a delay, rounded up: waiting 2.4 s means waiting 3."""
    return min(math.ceil(nanos / 1_000_000_000), MAX_RETRY_AFTER_SECONDS)


def whole_seconds(value: Any) -> int | None:
    """A body's delay as whole seconds (fractions round up), or None if it is not a number."""
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
    metadata = dict(fault.metadata)
    for key in METADATA_RESERVED:
        value = getattr(fault, key)
        if value is not None:
            metadata[key] = str(value)
    items: list[Item] = [ErrorInfo(reason=reason, domain=fault.domain or "", metadata=metadata)]
    if fault.retry_after_seconds is not None:
        items.append(RetryInfo(retry_delay_nanos=fault.retry_after_seconds * 1_000_000_000))
    if fault.violations:
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


# --------------------------------------------------------------------------- Status -> Fault


@dataclass
class Hints:
    """What the wire says outside the body: headers, trailers, pushback."""

    wait: str | None = None  # the name of a signal that says wait
    delay: int | None = None  # its delay in whole seconds, if it gave one
    no_retry: str | None = None  # the name of a signal that forbids retrying
    notes: list[str] = field(default_factory=list)


def fields_from_status(
    grpc_code: int, message: str, items: list[Item], *, http_status: int | None = None
) -> tuple[dict[str, Any], NextStep | None, str | None]:
    """Fault fields from a Status's parts, the stated next step, and the RetryInfo hint."""
    error_info: ErrorInfo | None = None
    retry: RetryInfo | None = None
    bad_request: BadRequest | None = None
    problem = ProblemInfo()
    details = []
    for item in items:
        if isinstance(item, ErrorInfo) and error_info is None:
            error_info = item
        elif isinstance(item, RetryInfo) and retry is None:
            retry = item
        elif isinstance(item, BadRequest) and bad_request is None:
            bad_request = item
        elif isinstance(item, ProblemInfo):
            problem = item
        else:
            details.append(item)

    fields: dict[str, Any] = {"grpc_code": grpc_code}
    fields["status"] = problem.http_status or http_status or http_for_code(grpc_code)
    stated: NextStep | None = None
    if error_info is not None:
        metadata = dict(error_info.metadata)
        step = metadata.pop("next_step", None)
        if step is not None and step in STEP_ALIASES:
            stated = STEP_ALIASES[step]
        elif step is not None:
            metadata["next_step"] = step
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
    fields["type"] = problem.type or None
    fields["instance"] = problem.instance or None
    fields["alternatives"] = problem.alternatives
    fields["alternatives_truncated"] = problem.alternatives_truncated
    fields["extensions"] = problem.extensions
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
    fields["details"] = tuple(details)
    return fields, stated, wait_hint


def finish(
    fields: dict[str, Any],
    stated: NextStep | None,
    hints: Hints,
    dialect: str,
) -> Fault:
    """Settle the next step (stated, else the ladder) and build the decoded Fault."""
    if stated is not None:
        step, source = stated, "stated"
    else:
        if not fields.get("param"):
            for v in fields.get("violations", ()):
                if v.field:
                    fields["param"] = v.field
                    break
        wait_hint = hints.wait
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
    origin = Origin(dialect=dialect, next_step=source, notes=tuple(hints.notes))
    try:
        return Fault(origin=origin, **fields)
    except TypeError as exc:  # a field of the wrong type slipped through: a bug, but never a crash
        raise DecodeError(f"cannot build a fault from {dialect}: {shorten(str(exc), 80)}") from None
