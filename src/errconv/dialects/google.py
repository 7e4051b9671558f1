"""`google`: Google's HTTP JSON error envelope (AIP-193, "HTTP/1.1+JSON representation").

    {"error": {"code": <HTTP>, "message": ..., "status": "<CODE_NAME>", "details": [...]}}

`code` is the HTTP status and `status` the gRPC code name: written always, since it is
the only lossless carrier of the gRPC code over HTTP. Decoding also accepts the
list-wrapped form streaming endpoints send (`[{"error": ...}]`), and is liberal: a
member of the wrong type (a `details` that is a string, as google-api-python-client's
own tests send) is ignored for meaning and kept, with the members it does not know
(the legacy `errors` array among them), as an extension; an `errors` entry with
`"locationType": "parameter"` names the parameter at fault. `REASON_STEPS` is the code
table: googleapis.com ErrorInfo reasons whose step the status does not give (an invalid
API key comes as 400 INVALID_ARGUMENT, yet no change to the arguments fixes it).
Lossless for every Fault.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import CODE_BY_NAME, Code, NextStep, code_for_http, code_name
from ..details import ErrorInfo
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, write_json
from .._model.schema import Item, WireDetail, check_depth, item_from_json, typed_items
from ._status import OWN_DETAILS, check_details_count, fields_from_status, status_items_json

__all__ = ["Google", "REASON_STEPS"]

_KNOWN = ("code", "message", "status", "details")

# ErrorInfo reasons of the googleapis.com domain (google/api/error_reason.proto) whose next
# step is not what their status says. Each is a credential the caller sent (or did not):
# no change to the call's arguments and no wait makes it pass; the caller has to be given
# other credentials. Google sends several with 400 INVALID_ARGUMENT, which alone reads as
# fix_request (the Gemini API and Cloud Translation answer an invalid API key so).
_GIVE_UP = NextStep.GIVE_UP
REASON_STEPS: dict[str, NextStep] = {
    "API_KEY_INVALID": _GIVE_UP,  # 400 INVALID_ARGUMENT: "API key not valid. Please pass a valid API key."
    "API_KEY_SERVICE_BLOCKED": _GIVE_UP,  # the key's API restrictions exclude this service
    "API_KEY_HTTP_REFERRER_BLOCKED": _GIVE_UP,
    "API_KEY_IP_ADDRESS_BLOCKED": _GIVE_UP,
    "API_KEY_ANDROID_APP_BLOCKED": _GIVE_UP,
    "API_KEY_IOS_APP_BLOCKED": _GIVE_UP,
    "ACCESS_TOKEN_EXPIRED": _GIVE_UP,  # a new token, not a retry of this one
    "ACCESS_TOKEN_SCOPE_INSUFFICIENT": _GIVE_UP,
    "ACCESS_TOKEN_TYPE_UNSUPPORTED": _GIVE_UP,
    "ACCOUNT_STATE_INVALID": _GIVE_UP,  # the account behind the token is disabled or deleted
    "CREDENTIALS_MISSING": _GIVE_UP,
    "CREDENTIAL_TYPE_UNSUPPORTED": _GIVE_UP,
    "CREDENTIAL_ANDROID_APP_INVALID": _GIVE_UP,
    "SESSION_COOKIE_INVALID": _GIVE_UP,
    "JWT_TOKEN_INVALID": _GIVE_UP,
    "OVERLOADED_CREDENTIALS": _GIVE_UP,  # more than one credential type sent together: send one
}
_REASON_DOMAIN = "googleapis.com"  # the domain those reasons are defined for


def _legacy_param(errors: Any) -> str | None:
    """The parameter a legacy `errors[]` entry names (`"locationType": "parameter"`,
    `"location": "country"`, as the v1 JSON APIs send them), the first one."""
    if type(errors) is not list:
        return None
    for entry in errors:
        if type(entry) is dict and entry.get("locationType") == "parameter":
            location = entry.get("location")
            if type(location) is str and location:
                return location
    return None


def _unwrap(obj: Any) -> Any:
    if type(obj) is list:
        return next((x for x in obj if type(x) is dict), None)
    return obj


class _Error(msgspec.Struct, forbid_unknown_fields=True):
    code: int | None = None
    message: str = ""
    status: str | None = None
    details: list[WireDetail] = []


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    """The usual shape, for msgspec to read in C (the list-wrapped form goes the general way)."""

    error: _Error


def from_parts(
    http: Any, name: Any, message: str, items: list[Item], unknown: dict[str, Any] | None, reading: Reading
) -> Fault:
    """The Fault of an envelope's members, however they were read: `http` (error.code)
    and `name` (error.status) as they came, `unknown` the members kept for no meaning."""
    body_status = http if type(http) is int and 100 <= http <= 599 else None
    if http is not None and body_status is None:
        unknown = {**(unknown or {}), "code": http}
    grpc_code = CODE_BY_NAME.get(name) if type(name) is str else None
    named = grpc_code is not None
    if grpc_code is None:
        if name is not None:
            unknown = {**(unknown or {}), "status": name}
        status = body_status or reading.status
        grpc_code = code_for_http(status) if status is not None else int(Code.UNKNOWN)
        reading.inferred += ("grpc_code",)
    fields, stated, wait = fields_from_status(grpc_code, message, items, http_status=body_status)
    if named and "code" not in fields and not any(type(item) is ErrorInfo for item in items):
        # No ErrorInfo: the code word in `status` is the only code the service states
        # (errconv's own bodies always carry an ErrorInfo, so this is never a code it added).
        fields["code"] = name
        reading.inferred += ("code",)  # the gRPC code's name: lint still asks for a code of the service's own
    if reading.status is not None:
        fields["status"] = reading.http_status_wins(fields["status"])
    if unknown:
        if reading.deep:  # else the body is known to nest no deeper (_depth.shallow)
            check_depth(unknown, reading.limits.max_depth)
        fields["extensions"] = {**unknown, **fields["extensions"]} if "extensions" in fields else unknown
        if "param" not in fields and "errors" in unknown:
            param = _legacy_param(unknown["errors"])  # the legacy errors[] is kept whole, and names the parameter
            if param is not None:
                fields["param"] = param
    by_code = None
    if stated is None and fields.get("domain") == _REASON_DOMAIN:
        step = REASON_STEPS.get(fields.get("code"))  # type: ignore[arg-type]
        if step is not None:
            by_code = (step, f"googleapis.com reason {fields['code']!r}")
    return reading.finish(fields, stated, wait, by_code)


def decode_envelope(obj: Any, reading: Reading) -> Fault:
    """A Fault from a parsed `{"error": {...}}` envelope (or the list-wrapped form), read
    liberally: a member of the wrong type is kept, for no meaning, as an extension."""
    at = ""
    if type(obj) is list:
        index = next((i for i, x in enumerate(obj) if type(x) is dict), 0)
        at, obj = f"/{index}", _unwrap(obj)
    inner = obj.get("error") if type(obj) is dict else None
    if type(inner) is not dict:
        raise DecodeError(f"a google error is {{\"error\": {{...}}}}, got {shorten(obj)}")
    get = inner.get
    http, name, message, details = get("code"), get("status"), get("message"), get("details")
    unknown: dict[str, Any] | None = None if inner.keys() <= _KNOWN_SET else {k: v for k, v in inner.items() if k not in _KNOWN_SET}
    items: list[Item] = []
    if type(details) is list:
        check_details_count(len(details), reading.limits)
        limits = reading.limits
        items = [item_from_json(d, limits) for d in details]
    elif details is not None:
        unknown = {**(unknown or {}), "details": details}
    if type(message) is not str:
        if message is not None:
            unknown = {**(unknown or {}), "message": message}
        message = ""
    if reading.seen is not None:
        reading.saw("body", at, "google")
        if type(http) is int:
            reading.saw("status", f"{at}/error/code", http)
        if message:
            reading.saw("text", f"{at}/error/message", message)
        reading.saw("details", f"{at}/error/details", list(details) if type(details) is list else [])
    return from_parts(http, name, message, items, unknown, reading)


_KNOWN_SET = frozenset(_KNOWN)
# The members of an envelope Google's own, with its legacy `errors` list (v1 APIs).
_LOOK_ALIKE = _KNOWN_SET | {"errors"}
_DOUBLE_MAX = sys.float_info.max


class Google(Dialect):
    """Google's `{"error": {...}}` envelope."""

    lossless = True
    name = "google"
    precedence = 80
    listed = 30
    media_type = "application/json"
    content_type = "application/json; charset=UTF-8"  # as Google's front ends send it
    reserved = frozenset(_KNOWN)
    keys = frozenset(("error",))
    ceiling = STRONG

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`{"error": {...}}` whose inner object has a google.rpc.Code name in `status`,
        `@type` details, or an integer `code` beside a `message`; never a string `type`,
        which is Stripe's and OpenAI's mark."""
        value = _unwrap(value)
        if type(value) is not dict:
            return 0.0
        inner = value.get("error")
        if type(inner) is not dict or "type" in inner:
            return 0.0
        status, details, code = inner.get("status"), inner.get("details"), inner.get("code")
        if type(status) is str and status in CODE_BY_NAME:
            return STRONG
        if type(details) is list and details and all(type(d) is dict and "@type" in d for d in details):
            return STRONG
        if type(code) is int and (type(inner.get("message")) is str or type(status) is str):
            # Google's `code` is the HTTP status; an integer that is no status (Postmark's
            # 1101) beside a message alone is another service's code. A gRPC number there is
            # APISIX's look-alike only beside its `details`: alone, a small number is as
            # likely a service's own (AcoustID's 2 "missing required parameter", Netatmo's
            # 10 "Missing home_id"), which the general reader keeps as the code.
            grpc_like = 0 <= code <= 16 and type(details) is list
            if not (grpc_like or 100 <= code <= 599 or type(status) is str):
                return 0.0
            if type(status) is not str and not inner.keys() <= _LOOK_ALIKE:
                # An HTTP status in `code` beside members Google never writes (Keystone's
                # "title": "Conflict") and no `status` name: another service's envelope,
                # whose words the general reader reads ("Duplicate Entry" at 409).
                return 0.0
            return LIKELY
        return 0.0

    schema = _Body

    def decode_typed(self, body: _Body, reading: Reading) -> Fault | None:
        error = body.error
        if error.code is not None and abs(error.code) > _DOUBLE_MAX or reading.seen is not None:
            return None  # a number no double holds, or a trace asked for: the general way
        if len(error.details) > reading.limits.max_details + OWN_DETAILS:
            return None  # the general way names the limit
        items = typed_items(error.details, reading.limits)
        if items is None:
            return None
        return from_parts(error.code, error.status, error.message, items, None, reading)

    def decode(self, value: Any, reading: Reading) -> Fault:
        return decode_envelope(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        message, details = status_items_json(fault, keep_debug=writing.keep_debug)
        return write_json({"error": {"code": fault.status, "message": message, "status": code_name(fault.grpc_code), "details": details}})
