"""Typed decoding for the usual shape of `google`, `status-json` and `problem` bodies.

A body errconv wrote, or one written to the same schema, is camelCase proto3 JSON
whose details are known types under `type.googleapis.com/` (a problem body: only
the members errconv writes, each of the JSON type it writes, and such details in
`details`). msgspec decodes such a body straight into the Structs below, and each
becomes its detail without a walk over dicts: the details cost about a third of
what the general readers take.

Anything else makes the typed read give up (it returns None) and the body goes the
general way (`_details.item_from_json` and the dialect's `from_object`), which
reads every shape and says what is wrong: a member that is unknown, null or of
another JSON type, a snake_case name, another type-URL prefix, an unknown detail
type, a value the general readers keep raw, anything past a limit. The Structs
accept only what the general readers read the same way, and the rest of decoding
(`fields_from_status`, `finish`; for problem, `problem.from_typed` beside
`from_object`) is shared or mirrored, so both ways give the same Fault;
tests/test_typed.py holds them to it.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from .._errors import DecodeError
from ..details import (
    BadRequest,
    DebugInfo,
    ErrorInfo,
    FieldViolation,
    Help,
    Link,
    LocalizedMessage,
    PreconditionFailure,
    PreconditionViolation,
    QuotaFailure,
    QuotaViolation,
    RequestInfo,
    ResourceInfo,
    RetryInfo,
)
from ..limits import Limits
from ._common import OWN_DETAILS, beyond_double
from ._details import (
    PROBLEM_TYPE,
    TYPE_PREFIX,
    Item,
    ProblemInfo,
    _Mismatch,
    _valid_http_status,
    check_depth,
    int64_value,
    parse_duration,
)

__all__ = ["ProblemBody", "read_google", "read_problem", "read_status_json", "typed_items"]

# Every member must be known: an unknown one (or a snake_case spelling) sends the body the general way.
_PLAIN: dict[str, Any] = {"forbid_unknown_fields": True, "rename": "camel"}


def _tagged(name: str) -> dict[str, Any]:
    return {**_PLAIN, "tag_field": "@type", "tag": TYPE_PREFIX + name}


class _LocalizedMessage(msgspec.Struct, **_PLAIN):
    locale: str = ""
    message: str = ""

    def item(self, limits: Limits) -> LocalizedMessage:
        return LocalizedMessage(locale=self.locale, message=self.message)


class _FieldViolation(msgspec.Struct, **_PLAIN):
    field: str = ""
    description: str = ""
    reason: str = ""
    localized_message: _LocalizedMessage | None = None

    def item(self) -> FieldViolation:
        lm = self.localized_message
        return FieldViolation(
            field=self.field,
            description=self.description,
            reason=self.reason,
            localized_message=None if lm is None else LocalizedMessage(locale=lm.locale, message=lm.message),
        )


class _QuotaViolation(msgspec.Struct, **_PLAIN):
    subject: str = ""
    description: str = ""
    api_service: str = ""
    quota_metric: str = ""
    quota_id: str = ""
    quota_dimensions: dict[str, str] = {}
    quota_value: int | float | str | None = None  # int64: a JSON string, or a number
    future_quota_value: int | float | str | None = None

    def item(self) -> QuotaViolation:
        future = self.future_quota_value
        return QuotaViolation(
            subject=self.subject,
            description=self.description,
            api_service=self.api_service,
            quota_metric=self.quota_metric,
            quota_id=self.quota_id,
            quota_dimensions=self.quota_dimensions,
            quota_value=0 if self.quota_value is None else int64_value(self.quota_value, "quotaValue"),
            future_quota_value=None if future is None else int64_value(future, "futureQuotaValue"),
        )


class _PreconditionViolation(msgspec.Struct, **_PLAIN):
    type: str = ""
    subject: str = ""
    description: str = ""


class _Link(msgspec.Struct, **_PLAIN):
    description: str = ""
    url: str = ""


def _counted(items: list[Any], limits: Limits) -> list[Any]:
    if len(items) > limits.max_violations:
        raise _Mismatch("violations")  # the general way names the limit
    return items


class _ErrorInfoDetail(msgspec.Struct, **_tagged("google.rpc.ErrorInfo")):
    reason: str = ""
    domain: str = ""
    metadata: dict[str, str] = {}

    def item(self, limits: Limits) -> ErrorInfo:
        return ErrorInfo(reason=self.reason, domain=self.domain, metadata=self.metadata)


class _RetryInfoDetail(msgspec.Struct, **_tagged("google.rpc.RetryInfo")):
    retry_delay: str | None = None

    def item(self, limits: Limits) -> RetryInfo:
        delay = self.retry_delay
        return RetryInfo(retry_delay_nanos=0 if delay is None else parse_duration(delay))


class _BadRequestDetail(msgspec.Struct, **_tagged("google.rpc.BadRequest")):
    field_violations: list[_FieldViolation] = []

    def item(self, limits: Limits) -> BadRequest:
        return BadRequest(field_violations=tuple(v.item() for v in _counted(self.field_violations, limits)))


class _QuotaFailureDetail(msgspec.Struct, **_tagged("google.rpc.QuotaFailure")):
    violations: list[_QuotaViolation] = []

    def item(self, limits: Limits) -> QuotaFailure:
        return QuotaFailure(violations=tuple(v.item() for v in _counted(self.violations, limits)))


class _PreconditionFailureDetail(msgspec.Struct, **_tagged("google.rpc.PreconditionFailure")):
    violations: list[_PreconditionViolation] = []

    def item(self, limits: Limits) -> PreconditionFailure:
        return PreconditionFailure(
            violations=tuple(
                PreconditionViolation(type=v.type, subject=v.subject, description=v.description)
                for v in _counted(self.violations, limits)
            )
        )


class _ResourceInfoDetail(msgspec.Struct, **_tagged("google.rpc.ResourceInfo")):
    resource_type: str = ""
    resource_name: str = ""
    owner: str = ""
    description: str = ""

    def item(self, limits: Limits) -> ResourceInfo:
        return ResourceInfo(
            resource_type=self.resource_type,
            resource_name=self.resource_name,
            owner=self.owner,
            description=self.description,
        )


class _RequestInfoDetail(msgspec.Struct, **_tagged("google.rpc.RequestInfo")):
    request_id: str = ""
    serving_data: str = ""

    def item(self, limits: Limits) -> RequestInfo:
        return RequestInfo(request_id=self.request_id, serving_data=self.serving_data)


class _HelpDetail(msgspec.Struct, **_tagged("google.rpc.Help")):
    links: list[_Link] = []

    def item(self, limits: Limits) -> Help:
        return Help(links=tuple(Link(description=v.description, url=v.url) for v in _counted(self.links, limits)))


class _LocalizedMessageDetail(_LocalizedMessage, **_tagged("google.rpc.LocalizedMessage")):
    pass


class _DebugInfoDetail(msgspec.Struct, **_tagged("google.rpc.DebugInfo")):
    stack_entries: list[str] = []
    detail: str = ""

    def item(self, limits: Limits) -> DebugInfo:
        return DebugInfo(stack_entries=tuple(self.stack_entries), detail=self.detail)


class _ProblemDetail(msgspec.Struct, **_tagged(PROBLEM_TYPE)):
    type: str = ""
    title: str = ""
    instance: str = ""
    http_status: int = 0
    code: str = ""
    reason_synthesized: bool = False
    message_is_title: bool = False
    alternatives: list[Any] = []
    alternatives_truncated: bool = False
    extensions: dict[str, Any] = {}

    def item(self, limits: Limits) -> ProblemInfo:
        if not _valid_http_status(self.http_status):
            raise _Mismatch("httpStatus")
        if self.alternatives or self.extensions:
            check_depth(self.alternatives, limits.max_depth)
            check_depth(self.extensions, limits.max_depth)
            if beyond_double(self.alternatives) is not None or beyond_double(self.extensions) is not None:
                raise _Mismatch("number")  # the general way names it
        return ProblemInfo(
            type=self.type,
            title=self.title,
            instance=self.instance,
            http_status=self.http_status,
            code=self.code,
            reason_synthesized=self.reason_synthesized,
            message_is_title=self.message_is_title,
            alternatives=tuple(self.alternatives),
            alternatives_truncated=self.alternatives_truncated,
            extensions=self.extensions,
        )


_Detail = (
    _ErrorInfoDetail
    | _RetryInfoDetail
    | _BadRequestDetail
    | _QuotaFailureDetail
    | _PreconditionFailureDetail
    | _ResourceInfoDetail
    | _RequestInfoDetail
    | _HelpDetail
    | _LocalizedMessageDetail
    | _DebugInfoDetail
    | _ProblemDetail
)


class _GoogleError(msgspec.Struct, forbid_unknown_fields=True):
    code: int | None = None
    message: str = ""
    status: str | None = None
    details: list[_Detail] = []


class _Google(msgspec.Struct, forbid_unknown_fields=True):
    error: _GoogleError


class _Status(msgspec.Struct, forbid_unknown_fields=True):
    code: int | None = None
    message: str = ""
    details: list[_Detail] = []


_GOOGLE = msgspec.json.Decoder(_Google)
_STATUS = msgspec.json.Decoder(_Status)


_DOUBLE_MAX = sys.float_info.max


def _decode(decoder: msgspec.json.Decoder, data: Any, limits: Limits) -> Any:
    # Integers beyond a double are looked for in the decoded values (the Status code,
    # and the Any-typed members of errconv.v1.Problem), not by scanning the text:
    # every other integer member is an int64 checked where it is read.
    if not isinstance(data, (bytes, str)) or len(data) > limits.max_bytes:
        return None
    try:
        body = decoder.decode(data)
    except (msgspec.MsgspecError, RecursionError, UnicodeError):
        return None  # another shape, or no JSON at all: the general way reads it, or says what is wrong
    code = body.error.code if isinstance(body, _Google) else body.code
    if code is not None and abs(code) > _DOUBLE_MAX:
        return None
    return body


def typed_items(details: list[Any], limits: Limits) -> list[Item] | None:
    """The details of a typed read as errconv's detail values; None where the general
    readers must have the say (a value they keep raw, a limit they name)."""
    if len(details) > limits.max_details + OWN_DETAILS:
        return None
    try:
        return [d.item(limits) for d in details]
    except (_Mismatch, DecodeError):  # kept raw, or past a limit, the general way
        return None


def read_google(data: Any, limits: Limits) -> tuple[int | None, str | None, str, list[Item]] | None:
    """`error.code`, `error.status`, `error.message` and the details of a google body
    in the usual shape; None for any other body."""
    body = _decode(_GOOGLE, data, limits)
    if body is None:
        return None
    error = body.error
    items = typed_items(error.details, limits)
    return None if items is None else (error.code, error.status, error.message, items)


def read_status_json(data: Any, limits: Limits) -> tuple[int | None, str, list[Item]] | None:
    """`code`, `message` and the details of a status-json body in the usual shape; None
    for any other body."""
    body = _decode(_STATUS, data, limits)
    if body is None:
        return None
    items = typed_items(body.details, limits)
    return None if items is None else (body.code, body.message, items)



# --------------------------------------------------------------------------- problem

# A problem member absent is UNSET; null, or a value of another JSON type, fails the
# typed read (the general reader keeps such a member verbatim, as an extension).
_Str = str | msgspec.UnsetType
_UNSET = msgspec.UNSET


class _LocalizedEntry(msgspec.Struct, forbid_unknown_fields=True):
    locale: str
    message: str


class ErrorEntry(msgspec.Struct, forbid_unknown_fields=True):
    """One `errors` entry as errconv writes it (RFC 9457's `detail` and `pointer`)."""

    detail: _Str = _UNSET
    pointer: _Str = _UNSET
    field: _Str = _UNSET
    code: _Str = _UNSET
    localized_message: _LocalizedEntry | msgspec.UnsetType = _UNSET


class ProblemBody(msgspec.Struct, forbid_unknown_fields=True):
    """A problem body holding only members errconv writes, each of the JSON type it writes."""

    type: _Str = _UNSET
    title: _Str = _UNSET
    status: int | msgspec.UnsetType = _UNSET
    detail: _Str = _UNSET
    instance: _Str = _UNSET
    code: _Str = _UNSET
    domain: _Str = _UNSET
    grpc_code: _Str = _UNSET
    next_step: _Str = _UNSET
    retry_after_seconds: int | float | msgspec.UnsetType = _UNSET
    param: _Str = _UNSET
    errors: list[ErrorEntry] | msgspec.UnsetType = _UNSET
    alternatives: list[Any] | msgspec.UnsetType = _UNSET
    alternatives_truncated: bool | msgspec.UnsetType = _UNSET
    blocked_by: _Str = _UNSET
    unblock_with: _Str = _UNSET
    metadata: dict[str, str] | msgspec.UnsetType = _UNSET
    details: list[_Detail] | msgspec.UnsetType = _UNSET  # known types in the usual shape, as in google


_PROBLEM = msgspec.json.Decoder(ProblemBody)


def read_problem(data: Any, limits: Limits) -> ProblemBody | None:
    """A problem body of errconv's own members, decoded typed; None for any other body
    (an extension member, a seed-000 alias, a null, a number too large for a double)."""
    if not isinstance(data, (bytes, str)) or len(data) > limits.max_bytes:
        return None
    try:
        body = _PROBLEM.decode(data)
    except (msgspec.MsgspecError, RecursionError, UnicodeError):
        return None
    for value in (body.status, body.retry_after_seconds):
        if type(value) is int and abs(value) > _DOUBLE_MAX:
            return None
    if body.alternatives and beyond_double(body.alternatives) is not None:
        return None  # (the details check their own numbers)
    return body
