"""Typed google.rpc error details, as plain values.

One Struct per message in google/rpc/error_details.proto, with the proto's own field
names, plus `RawDetail` for a detail whose type errconv does not know: it travels
through untouched. No protobuf objects live in a Fault, so a detail has the same
type whichever dialect it came from.

ErrorInfo, RetryInfo and BadRequest normally live in the Fault's own fields (code,
domain, metadata, retry_after_seconds, violations); they appear here only when a
Status carried more than one of them, so that nothing is dropped.
"""

from __future__ import annotations

from typing import Annotated, Any, Union

import msgspec

__all__ = [
    "BadRequest",
    "DebugInfo",
    "Detail",
    "ErrorInfo",
    "FieldViolation",
    "Help",
    "Link",
    "LocalizedMessage",
    "PreconditionFailure",
    "PreconditionViolation",
    "QuotaFailure",
    "QuotaViolation",
    "RawDetail",
    "RequestInfo",
    "ResourceInfo",
    "RetryInfo",
    "TYPE_NAMES",
    "Wire",
]

_OPTS: dict[str, Any] = {"frozen": True, "kw_only": True, "omit_defaults": True}


class Wire:
    """How a field is written on the wire where its Python type does not say it.

    Each field's proto name is its Python name unless `name` says otherwise; its
    proto3 JSON name is that name in lowerCamelCase, read in either spelling.
    `errconv.dialects` builds every detail codec (proto3 JSON and protobuf, both
    ways) from these Structs, so a field is written here once and nowhere else.
    """

    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str | None = None) -> None:
        self.kind = kind
        self.name = name


# int64 is a JSON string in proto3 JSON (a number is read too).
Int64 = Annotated[int, Wire("int64")]


class LocalizedMessage(msgspec.Struct, tag="google.rpc.LocalizedMessage", tag_field="@type", **_OPTS):
    """A message in a locale (BCP-47), safe to show an end user."""

    locale: str = ""
    message: str = ""


class Link(msgspec.Struct, **_OPTS):
    description: str = ""
    url: str = ""


class Help(msgspec.Struct, tag="google.rpc.Help", tag_field="@type", **_OPTS):
    """Links to documentation for the error."""

    links: tuple[Link, ...] = ()


class QuotaViolation(msgspec.Struct, **_OPTS):
    subject: str = ""
    description: str = ""
    api_service: str = ""
    quota_metric: str = ""
    quota_id: str = ""
    quota_dimensions: dict[str, str] = {}
    quota_value: Int64 = 0
    future_quota_value: Annotated[int | None, Wire("int64")] = None  # proto3 optional: 0 is not absent


class QuotaFailure(msgspec.Struct, tag="google.rpc.QuotaFailure", tag_field="@type", **_OPTS):
    """Which quota was exceeded."""

    violations: tuple[QuotaViolation, ...] = ()


class PreconditionViolation(msgspec.Struct, **_OPTS):
    type: str = ""
    subject: str = ""
    description: str = ""


class PreconditionFailure(msgspec.Struct, tag="google.rpc.PreconditionFailure", tag_field="@type", **_OPTS):
    """Which preconditions failed (terms of service, state of a resource, ...)."""

    violations: tuple[PreconditionViolation, ...] = ()


class ResourceInfo(msgspec.Struct, tag="google.rpc.ResourceInfo", tag_field="@type", **_OPTS):
    """The resource the error is about."""

    resource_type: str = ""
    resource_name: str = ""
    owner: str = ""
    description: str = ""


class RequestInfo(msgspec.Struct, tag="google.rpc.RequestInfo", tag_field="@type", **_OPTS):
    """The request's id in the service's logs (Stripe's Request-Id)."""

    request_id: str = ""
    serving_data: str = ""


class DebugInfo(msgspec.Struct, tag="google.rpc.DebugInfo", tag_field="@type", **_OPTS):
    """Stack entries and debug text. Dropped at outer boundaries unless asked for."""

    stack_entries: tuple[str, ...] = ()
    detail: str = ""


class ErrorInfo(msgspec.Struct, tag="google.rpc.ErrorInfo", tag_field="@type", **_OPTS):
    """A second ErrorInfo (the first one is the Fault's code, domain and metadata)."""

    reason: str = ""
    domain: str = ""
    metadata: dict[str, str] = {}


class RetryInfo(msgspec.Struct, tag="google.rpc.RetryInfo", tag_field="@type", **_OPTS):
    """A second RetryInfo (the first one is the Fault's retry_after_seconds), in nanoseconds."""

    # google.protobuf.Duration `retry_delay`, held in nanoseconds.
    retry_delay_nanos: Annotated[int, Wire("duration", "retry_delay")] = 0


class FieldViolation(msgspec.Struct, **_OPTS):
    field: str = ""
    description: str = ""
    reason: str = ""
    localized_message: LocalizedMessage | None = None


class BadRequest(msgspec.Struct, tag="google.rpc.BadRequest", tag_field="@type", **_OPTS):
    """A second BadRequest (the first one is the Fault's violations)."""

    field_violations: tuple[FieldViolation, ...] = ()


class RawDetail(msgspec.Struct, tag="raw", tag_field="@type", **_OPTS):
    """A detail of a type errconv does not know, kept exactly as it came.

    `value` holds the packed bytes when it came from protobuf; `fields` holds the
    JSON members (without "@type") when it came from JSON.
    """

    type_url: str
    value: bytes | None = None
    fields: dict[str, Any] | None = None


Detail = Union[
    QuotaFailure,
    PreconditionFailure,
    ResourceInfo,
    RequestInfo,
    Help,
    LocalizedMessage,
    DebugInfo,
    ErrorInfo,
    RetryInfo,
    BadRequest,
    RawDetail,
]

# Full proto names of the ten known detail types, by Struct class.
TYPE_NAMES: dict[type, str] = {
    cls: cls.__struct_config__.tag  # type: ignore[misc]
    for cls in (
        QuotaFailure,
        PreconditionFailure,
        ResourceInfo,
        RequestInfo,
        Help,
        LocalizedMessage,
        DebugInfo,
        ErrorInfo,
        RetryInfo,
        BadRequest,
    )
}


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
