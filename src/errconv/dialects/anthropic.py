"""`anthropic`: Anthropic's error response.

    {"type": "error", "error": {"type": "rate_limit_error", "message": "..."}, "request_id": "req_..."}

`error.type` is Anthropic's broad category (`invalid_request_error` ... `overloaded_error`,
`_TYPES`); newer responses add `error.details`, whose `error_code` is "a stable code that
names the cause" (the SDK's words: branch on it, and treat an unknown one as the bare
type). So the fault's code is `details.error_code` when there is one, else `error.type`;
a type that is not the one errconv writes for the status is kept in `metadata["type"]`.
`details.field` names the setting at fault (the param); the other members of `details`
are kept, as the extension `details`. `request_id` (and the `request-id` header) is a
RequestInfo.

Status: the HTTP status, else the type's (`_TYPES`: 529 for overloaded_error, a status
no other API uses, 413 for request_too_large, which Cloudflare sends before the API).
Decoding also reads the older bodies without the top-level `"type": "error"` when their
`error` holds just a type (not one Stripe shares: `invalid_request_error` and `api_error`
alone are Stripe's too) and a message.

Writing (cheap: for Anthropic-compatible proxies): the type for the status, the code as
`details.error_code` when it is not that type (null when the fault has none: the type
alone would read as the code), errconv's agent fields inside `error`
(`next_step`, `param`, `retry_after_seconds` for a wait), then the extension members;
`request_id` from a RequestInfo. Inside HTTP, `x-should-retry` (the Anthropic SDK obeys
it over its status rules) and `request-id`.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import Code, NextStep, code_for_http
from ..details import RequestInfo
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, write_json
from .._model.schema import check_depth
from .openai import agent_fields, prose_wait, request_id, should_retry, write_agent_fields
from .stripe import header_copy

__all__ = ["Anthropic", "STEP_FOR_CODE", "error_type"]

_WAIT, _GIVE_UP, _FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST

# Anthropic's types (docs.claude.com/en/api/errors, the SDK's ErrorType) and their statuses.
_TYPES: dict[str, int] = {
    "invalid_request_error": 400,  # also sent for other 4xx statuses the list does not name
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "conflict_error": 409,
    "memory_path_conflict_error": 409,
    "memory_precondition_failed_error": 412,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
# The type errconv writes for a status (the inverse of _TYPES, and the nearest for the rest).
_TYPE_FOR_STATUS = {
    400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error",
    404: "not_found_error", 409: "conflict_error", 413: "request_too_large", 429: "rate_limit_error",
    500: "api_error", 503: "overloaded_error", 504: "timeout_error", 529: "overloaded_error",
}  # fmt: skip
# gRPC codes the status alone would get wrong.
_GRPC_FOR_STATUS = {
    413: Code.INVALID_ARGUMENT,  # the request is too large: it must change (4xx would say FAILED_PRECONDITION)
}
# Types Stripe's bodies have too: a body without the top-level `"type": "error"` whose
# type is one of these is left to Stripe (research/dialects.md, section 7).
_SHARED_TYPES = frozenset(("invalid_request_error", "api_error", "card_error", "idempotency_error"))
# Types of the OpenAI family (which always writes param and code beside them).
_OPENAI_TYPES = frozenset(("tokens", "requests", "insufficient_quota", "server_error", "throttling_error"))

# --------------------------------------------------------------------------- the code table

# Anthropic's codes (a details.error_code, else the type) whose next step is not what their
# status says, and why; the status ladder decides the rest. The error_code rows follow the
# SDK's own description of each code (anthropic 2.14, types/shared/*_error_details.py).
STEP_FOR_CODE: dict[str, tuple[NextStep, str]] = {
    # 529 is no standard status: the ladder knows it only as a 5xx, INTERNAL, a bug.
    "overloaded_error": (_WAIT, "Anthropic's servers are overloaded for the moment"),
    # 413, sent by Cloudflare before the API: only a smaller request passes.
    "request_too_large": (_FIX, "the request is over the size limit: send a smaller one"),
    # Spend and billing limits: no wait or change of the request lifts them; a person must.
    # (Sent as 400 or 429, which would say fix_request or wait.)
    "enforced_spend_limit_reached": (_GIVE_UP, "the organisation crossed its tier's monthly usage threshold"),
    "contract_spend_limit_reached": (_GIVE_UP, "the organisation reached its contract's spend limit"),
    "linked_organization_spend_limit_reached": (_GIVE_UP, "the linked organisation reached its spend limit or lacks credit"),
    "linked_organization_billing_unavailable": (_GIVE_UP, "the linked organisation cannot be billed"),
    "user_profile_not_billable": (_GIVE_UP, "the user profile cannot be billed"),
    "user_profile_billing_not_authorized": (_GIVE_UP, "the caller may not bill the user profile"),
    "organization_on_hold": (_GIVE_UP, "Anthropic disabled the organisation (it may appeal)"),
    "rbac_group_owner_access_unconfirmed": (_GIVE_UP, "the SDK's words: retrying the same request will not help"),
    "workspace_created_incomplete": (_GIVE_UP, "the workspace was created in part: do not send the create again"),
    "claude_code_version_too_old": (_GIVE_UP, "the client is older than required: update it, no change of the call helps"),
    # Transient by Anthropic's own description: retry the identical request.
    "ramp_limit_exceeded": (_WAIT, "usage grew too fast: retry after the retry-after delay"),
    "authorization_check_unavailable": (_WAIT, "an approval could not be read right now: retry after the delay"),
    "compaction_unavailable": (_WAIT, "a transient server reason: retry"),
    "concurrent_membership_change": (_WAIT, "another membership change is in progress: retry once it completes"),
    "cmek_context_unavailable": (_WAIT, "the encryption settings could not be read: retry in a few minutes"),
    "cmek_key_unreachable": (_WAIT, "the encryption key could not be reached: retry"),
    "external_key_changed": (_WAIT, "the key changed during validation: send the request again"),
    "external_key_validation_timed_out": (_WAIT, "validation did not finish in time: wait a moment, then send it again"),
    "change_outcome_unknown": (_WAIT, "some changes may be saved: send the same request again to finish it"),
    "scan_pending": (_WAIT, "the content scan is still running: retry once it finishes"),
    "thread_continue_in_flight": (_WAIT, "another request is continuing the thread: wait for it"),
    # The request itself must change.
    "request_body_too_large_after_decoding": (_FIX, "the decoded body is over the size limit"),
    "request_body_timeout": (_FIX, "the body did not arrive in time: send a smaller one"),
    "image_dimensions_too_large": (_FIX, "an image is over the size limit: scale or remove it"),
    "request_body_encoding_invalid": (_FIX, "the body does not match its Content-Encoding"),
    "request_body_encoding_unsupported": (_FIX, "the Content-Encoding is not supported"),
    "unsupported_charset": (_FIX, "the charset is not UTF-8, ISO-8859-1 or US-ASCII"),
}
# A status whose next step the ladder gets wrong whatever the type (a 413 typed
# invalid_request_error: "Request size exceeds model context window").
_STEP_FOR_STATUS: dict[int, tuple[NextStep, str]] = {
    413: (_FIX, "HTTP 413 from Anthropic: the request is too large, only a smaller one passes"),
    529: (_WAIT, "HTTP 529 from Anthropic: overloaded for the moment"),
}
# Spent usage, credit or spend caps that responses state only in a fixed sentence,
# typed invalid_request_error at 400 (which would say fix_request): no change of the
# request helps, and no short wait; a person must add credit or raise the cap (captures
# in tests/realworld/anthropic: openclaw/openclaw#61763, anthropics/claude-code#66314 and
# #38035). Newer responses carry an error_code instead (enforced_spend_limit_reached,
# ...). Matched at the start of the message only.
_BILLING_SENTENCES = (
    "You're out of extra usage",
    "Your credit balance is too low",
    "You have reached your specified API usage limits",
)


def error_type(status: int) -> str:
    """The Anthropic type errconv writes for a status."""
    found = _TYPE_FOR_STATUS.get(status)
    if found is not None:
        return found
    return "api_error" if status >= 500 else "invalid_request_error"


def _legacy(value: dict[str, Any], inner: dict[str, Any]) -> bool:
    """An older body without `"type": "error"`: `error` holds a type and a message only."""
    type_ = inner.get("type")
    return (
        value.keys() <= _LEGACY_TOP
        and inner.keys() <= _LEGACY_INNER
        and type(type_) is str
        and type(inner.get("message")) is str
        and type_ not in _SHARED_TYPES
        and type_ not in _OPENAI_TYPES
    )


_LEGACY_TOP = frozenset(("error", "request_id"))
_LEGACY_INNER = frozenset(("type", "message", "details"))
_OWN = ("type", "message", "details", "next_step", "param", "retry_after_seconds")
_OWN_SET = frozenset(_OWN)


class Anthropic(Dialect):
    """Anthropic's `{"type": "error", "error": {type, message}, "request_id"}`."""

    name = "anthropic"
    precedence = 60
    listed = 90
    media_type = "application/json"
    keys = frozenset(("error",))
    ceiling = STRONG
    reserved = _OWN_SET | {"request_id"}

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`"type": "error"` beside an `error` object with a string type (no other format
        has it); an older body without it, narrowly (see `_legacy`)."""
        if type(value) is not dict:
            return 0.0
        inner = value.get("error")
        if type(inner) is not dict or type(inner.get("type")) is not str:
            return 0.0
        if value.get("type") == "error":
            return STRONG
        if http is not None and "code" not in inner and any(name.startswith("anthropic-") for name, _ in http.headers):
            return STRONG  # (Anthropic's OpenAI-compatible endpoint answers in OpenAI's shape, with `code`)
        return LIKELY if _legacy(value, inner) else 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        inner = value.get("error") if type(value) is dict else None
        if type(inner) is not dict:
            raise DecodeError(f"an anthropic error is {{\"type\": \"error\", \"error\": {{...}}}}, got {shorten(value)}")
        get = inner.get
        fields: dict[str, Any] = {}
        taken = {"type", "message"}
        type_, message = get("type"), get("message")
        if type(type_) is not str:
            taken.discard("type")
            type_ = None
        if type(message) is str:
            fields["detail"] = message
            reading.saw("text", "/error/message", message)
        elif message is not None:
            taken.discard("message")
        # The type is the code unless details.error_code names a more specific one, or is
        # null: errconv's mark of a fault without a code (Anthropic's always have a type).
        code = type_
        details = get("details")
        if type(details) is dict:
            error_code, field = details.get("error_code"), details.get("field")
            rest = {k: v for k, v in details.items() if not (k == "error_code" and (error_code is None or type(v) is str)) and not (k == "field" and type(v) is str)}
            if type(error_code) is str and error_code:
                code = error_code  # the more specific: "branch on it rather than on message"
            elif error_code is None and "error_code" in details:
                code = None
            if type(field) is str and field:
                fields["param"] = field
            if rest:
                fields["extensions"] = {"details": rest}
            taken.add("details")
        elif details is None and "details" in inner:
            taken.add("details")  # "details": null, as some responses send: nothing to keep
        param = get("param")  # errconv's own member, beside what Anthropic defines
        if type(param) is str and param:
            fields["param"] = param
            taken.add("param")
        if code is not None:
            fields["code"] = code
        status = reading.status
        if status is None:
            status = _TYPES.get(type_) if type_ is not None else None
            if status is None:
                status = 400
                reading.inferred += ("status",)
                reading.notes += ("no status around the body and an unknown type; 400 assumed",)
        fields["status"] = status
        grpc_code = _GRPC_FOR_STATUS.get(status)
        fields["grpc_code"] = code_for_http(status) if grpc_code is None else int(grpc_code)
        reading.inferred += ("grpc_code",)
        if type_ is not None and code != type_ and type_ != error_type(status):
            fields["metadata"] = {"type": type_}  # written back by encode
        stated = agent_fields(inner, fields, reading, "/error")
        if stated is not None:
            taken.add("next_step")
        if "retry_after_seconds" in fields:
            taken.add("retry_after_seconds")
        extensions = {name: item for name, item in inner.items() if name not in taken}
        if extensions:
            fields["extensions"] = {**extensions, **fields.get("extensions", {})}
        if "extensions" in fields and reading.deep:
            check_depth(fields["extensions"], reading.limits.max_depth)
        rid = value.get("request_id")
        if type(rid) is str and rid:
            fields["details"] = (RequestInfo(request_id=rid),)
        if reading.seen is not None:
            reading.saw("body", "", "anthropic")
        by_code = None
        if code is not None and code in STEP_FOR_CODE:
            step, why = STEP_FOR_CODE[code]
            by_code = (step, f"the anthropic code table: {code!r} ({why})")
        elif type_ is not None and type_ in STEP_FOR_CODE:
            step, why = STEP_FOR_CODE[type_]
            by_code = (step, f"the anthropic code table: type {type_!r} ({why})")
        elif status in _STEP_FOR_STATUS:
            by_code = _STEP_FOR_STATUS[status]
        if code == type_ and (by_code is None or by_code[0] is _FIX) and type(message) is str:
            if message.startswith(_BILLING_SENTENCES):
                by_code = (_GIVE_UP, "Anthropic's fixed sentence for spent usage or credit (no change of the request helps)")
                reading.notes += ("the next step is read from the message: Anthropic states spent usage only in prose here",)
        body_wait = "retry_after_seconds in the body" if "retry_after_seconds" in fields else None
        prose_wait(message, fields, reading, stated, by_code)
        return reading.finish(fields, stated, body_wait=body_wait, by_code=by_code)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        # The code as the type when it is the type of this very status; else the status's
        # type, the code beside it as details.error_code.
        code = fault.code
        type_ = fault.metadata.get("type") or (code if code in _TYPES and _TYPES[code] == fault.status else error_type(fault.status))
        inner: dict[str, Any] = {"type": type_, "message": fault.detail or fault.title or ""}
        ext_details = fault.extensions.get("details")
        details: dict[str, Any] = {}
        if fault.code != type_:
            details["error_code"] = fault.code  # null for no code, which a bare type would not say
        if type(ext_details) is dict:
            details.update((k, v) for k, v in ext_details.items() if k not in ("error_code", "field"))
        if details:
            inner["details"] = details
        if fault.param is not None:
            inner["param"] = fault.param
        write_agent_fields(inner, fault)
        for name, item in fault.extensions.items():
            if name not in _OWN_SET:
                inner[name] = item
        out: dict[str, Any] = {"type": "error", "error": inner}
        rid = request_id(fault)
        if rid is not None:
            out["request_id"] = rid
        return write_json(out)

    def http_headers(self, fault: Fault, writing: Writing) -> list[tuple[str, str]]:
        headers = [("x-should-retry", should_retry(fault))]
        rid = request_id(fault)
        if rid is not None:
            safe = header_copy(rid, writing.limits.max_header)
            if safe:
                headers.append(("request-id", safe))
        return headers
