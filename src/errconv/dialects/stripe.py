"""`stripe`: Stripe's error object, `{"error": {"type", "code", "message", "param", "doc_url", ...}}`.

Written members, absent ones omitted (never null): `type` (from the status: 402
`card_error`, 5xx `api_error`, an idempotency code `idempotency_error`, everything
else `invalid_request_error`), `code`, `message` (the detail, else the title),
`param`, `doc_url` (the problem `type` when it is an http(s) URL: both are the URL
that documents the error; `about:blank` documents nothing), `next_step`, then the
extension members in order (`decline_code`, `advice_code`, `charge`, ... travel there).

A bare Stripe body has no status, so decoding derives one from `type` and `code`
(card_error 402, api_error 500, rate_limit 429, resource_missing 404, a card-details
code 402, ...). A body with no `code` has its `type` as the code (`api_error`,
`idempotency_error`: the only identifier it states), unless it carries errconv's
`next_step` (errconv writes a code in `code`, and a type chosen from the status, so a
fault without a code comes back without one). `STEP_FOR_CODE` is Stripe's code
table: the codes (and v2 types) whose next step is not what their status says. Stripe
has no home for a delay, a domain, metadata, alternatives, violations,
blocked_by/unblock_with or typed details; `errconv.losses()` names them. Inside
HTTP, `Stripe-Should-Retry` and `Request-Id` go out as headers.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import NextStep, code_for_http
from ..details import RequestInfo
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import STEP_ALIASES, Reading, Writing, write_json
from .._model.schema import check_depth

__all__ = ["STEP_FOR_CODE", "Stripe", "error_type", "header_copy", "status_for"]

_WAIT, _GIVE_UP, _FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST

# --------------------------------------------------------------------------- the code table

# Stripe's codes (and the v2 types that dispatch like codes) whose next step is not what
# their status says, and why (research/stripe.md, sections 2 and 7). The status ladder
# decides the rest: card_declined at 402 gives up (the issuer decided), a 400
# parameter_* naming its param is fix_request, a 5xx api_error gives up unless
# Stripe-Should-Retry says true.
STEP_FOR_CODE: dict[str, tuple[NextStep, str]] = {
    # Rate limits, whatever the status: a 400 before API version 2015-09-08 (stripe-python
    # still maps a 400 with this code to RateLimitError), a 429 since.
    "rate_limit": (_WAIT, "a rate limit (sent as 400 by API versions before 2015-09-08)"),
    "rate_limit_error": (_WAIT, "a rate limit (the legacy type)"),
    # v2 APIs: `type: rate_limit` (stripe-python's RateLimitError whatever the status).
    "account_rate_limit_exceeded": (_WAIT, "a v2 concurrency limit on updates to the account"),
    "payment_intent_rate_limit_exceeded": (_WAIT, "too many updates to one PaymentIntent within the hour"),
    # An object lock held by a concurrent request: the SDKs retry it (stripe-go by code).
    "lock_timeout": (_WAIT, "another request holds the object's lock"),
    # Card and provider errors Stripe says to try again later (402, which would give up).
    "processing_error": (_WAIT, "an error while processing the card: Stripe says to try again later"),
    "payment_method_provider_timeout": (_WAIT, "the payment method's provider timed out"),
    "forwarding_api_retryable_upstream_error": (_WAIT, "the forwarding upstream failed transiently"),
    "terminal_reader_busy": (_WAIT, "the reader is busy with another request"),
    "terminal_reader_timeout": (_WAIT, "the reader did not answer in time"),
    # Card errors a corrected card detail fixes (402 without a param would give up): the
    # caller asks the customer again, then repeats the call with the new details.
    "invalid_expiry_year": (_FIX, "the card's expiry year is invalid: corrected card details pass"),
    "invalid_expiry_month": (_FIX, "the card's expiry month is invalid: corrected card details pass"),
    "invalid_number": (_FIX, "the card number is invalid: corrected card details pass"),
    "invalid_cvc": (_FIX, "the card's security code is invalid: corrected card details pass"),
    "incorrect_number": (_FIX, "the card number is incorrect: corrected card details pass"),
    "incorrect_cvc": (_FIX, "the card's security code is incorrect: corrected card details pass"),
    "incorrect_zip": (_FIX, "the card's postal code is incorrect: corrected card details pass"),
    "incorrect_address": (_FIX, "the card's address is incorrect: corrected card details pass"),
    "expired_card": (_FIX, "the card has expired: another card passes"),
}
# Card-details codes: a bare body with one of them was a 402 (CardError).
_CARD_CODES = frozenset(code for code, (step, _) in STEP_FOR_CODE.items() if step is _FIX) | {"card_declined"}

_OWN = ("type", "code", "message", "param", "doc_url", "next_step")
# Stripe's members and the fields they give.
_READ = (("code", "code"), ("message", "detail"), ("param", "param"), ("doc_url", "type"))
_MISSING: Any = object()
_STATUS_FOR_CODE = {
    "rate_limit": 429,
    "lock_timeout": 429,
    "resource_missing": 404,
    "idempotency_key_in_use": 409,
}
_STATUS_FOR_TYPE = {
    "card_error": 402,
    "api_error": 500,
    "rate_limit": 429,
    "rate_limit_error": 429,
    "authentication_error": 401,
    "permission_error": 403,
}
# Members only Stripe sends (research/dialects.md, "Telling OpenAI from Stripe").
_STRIPE_ONLY = frozenset(
    ("doc_url", "request_log_url", "decline_code", "advice_code", "network_decline_code", "charge",
     "payment_intent", "setup_intent", "payment_method", "source")
)  # fmt: skip


def error_type(status: int, code: str | None) -> str:
    """The Stripe `type` for a status and code, as Stripe's API sends it."""
    if status == 402:
        return "card_error"
    if status >= 500:
        return "api_error"
    if code is not None and code.startswith("idempotency"):
        return "idempotency_error"
    return "invalid_request_error"


def status_for(type_: str | None, code: str | None) -> int:
    """The HTTP status a bare Stripe body implies."""
    if code in _STATUS_FOR_CODE:
        return _STATUS_FOR_CODE[code]
    if code in _CARD_CODES:
        return 402
    if type_ in _STATUS_FOR_TYPE:
        return _STATUS_FOR_TYPE[type_]
    return 400


# v2 types that say what to do whatever the code (stripe-python dispatches v2 errors on type).
_STEP_FOR_TYPE: dict[str, tuple[NextStep, str]] = {
    "rate_limit": (_WAIT, "a v2 rate limit (stripe-python raises RateLimitError whatever the status)"),
    "rate_limit_error": (_WAIT, "a rate limit (the legacy type)"),
}
# The members of a body that states only a code (and perhaps its message and param).
_CODE_ONLY = frozenset(("code", "message", "param"))

_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def header_copy(value: str, limit: int) -> str | None:
    """`value` fit to copy into a header (controls as spaces; printable ASCII within
    `limit`), else None."""
    value = _CONTROLS.sub(" ", value).strip()
    # isprintable() also refuses the HTAB that RFC 9110 allows: a copied value is one plain token.
    if value and value.isascii() and value.isprintable() and len(value) <= limit:
        return value
    return None


def _was_read(name: str, item: Any, fields: dict[str, Any], stated: NextStep | None) -> bool:
    if name == "type":
        return type(item) is str
    if name == "next_step":
        return stated is not None
    target = _TARGET.get(name)
    return target is not None and fields.get(target) is item


_TARGET = dict(_READ)


class Stripe(Dialect):
    """Stripe's error object."""

    name = "stripe"
    precedence = 110
    listed = 70
    media_type = "application/json"
    reserved = frozenset(_OWN)
    keys = frozenset(("error",))
    ceiling = STRONG

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`{"error": {...}}` with a string `type`, or with Stripe's own members."""
        if type(value) is not dict or type(value.get("error")) is not dict:
            return 0.0
        inner = value["error"]
        if "root_cause" in inner or ("reason" in inner and "message" not in inner and type(value.get("status")) is int):
            return 0.0  # Elasticsearch's {"error": {"type", "reason", "root_cause"}, "status": 404}
        if not inner.keys().isdisjoint(_STRIPE_ONLY) and "status" not in inner and "details" not in inner:
            return STRONG
        if type(inner.get("type")) is str and type(inner.get("code")) is not int:
            # Stripe's code is a string: an integer there (GoCardless's 422 beside its
            # invalid_state, the Graph API's 190 beside OAuthException) is another
            # service's envelope, left to the general reader.
            return LIKELY
        if http is not None and "stripe-version" in http.headers:
            return LIKELY
        code = inner.get("code")
        if type(code) is str and (code in STEP_FOR_CODE or code in _STATUS_FOR_CODE) and inner.keys() <= _CODE_ONLY:
            return LIKELY  # stripe-python's own fixtures: {"error": {"code": "invalid_expiry_year"}}
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        inner = value.get("error", _MISSING) if type(value) is dict else _MISSING
        if inner is _MISSING:
            raise DecodeError(f"a stripe error is {{\"error\": {{...}}}}, got {shorten(value)}")
        fields: dict[str, Any] = {}
        if type(inner) is str:  # OAuth: {"error": "invalid_grant", "error_description": "..."}
            fields["code"] = inner
            if isinstance(value.get("error_description"), str):
                fields["detail"] = value["error_description"]
            inner = {}
        elif type(inner) is not dict:
            raise DecodeError(f"\"error\" must be an object, got {shorten(inner)}")
        get = inner.get
        type_ = get("type")
        if type(type_) is not str:
            type_ = None
        read = 0 if type_ is None else 1  # members read for meaning; the rest are kept
        for name, target in _READ:
            item = get(name)
            # (A doc_url that links nowhere is kept, as a member of the wrong type is, for no meaning.)
            if type(item) is str and (target != "type" or item.startswith(("https://", "http://"))):
                fields[target] = item
                read += 1
        code = fields.get("code")
        if type_ is not None and code is None and ("next_step" not in inner or type_ == "idempotency_error"):
            # The type is the only stable identifier the body has (api_error,
            # idempotency_error). Not in a body with errconv's next_step: errconv writes a
            # code in `code` when there is one, and its type is the category of the status.
            fields["code"] = code = type_
        status = reading.status
        if status is None:
            status = status_for(type_, code)
            # Say where the status came from: a bare Stripe body states none.
            if code in _STATUS_FOR_CODE or code in _CARD_CODES:
                reading.notes += (f"no status given: {status} is what Stripe answers for code {code!r}",)
            elif type_ in _STATUS_FOR_TYPE:
                reading.notes += (f"no status given: {status} is what Stripe answers for type {type_!r}",)
            else:
                reading.inferred += ("status",)  # nothing said it: the default
                reading.notes += (f"no status given, and neither its code nor its type implies one: {status}, the default",)
        if type_ is not None and type_ != error_type(status, code):
            reading.notes += (f"Stripe type {type_!r} does not match status {status}",)
        fields["status"] = status
        fields["grpc_code"] = code_for_http(status)
        reading.inferred += ("grpc_code",)
        stated: NextStep | None = None
        step = get("next_step")
        if type(step) is str and step in STEP_ALIASES:
            stated = STEP_ALIASES[step]
        if stated is not None:
            read += 1
        # Everything else is kept verbatim, in order: unknown members, and Stripe's own of
        # the wrong type (a numeric code, a next_step errconv does not know).
        if read < len(inner):
            extensions = {name: item for name, item in inner.items() if not _was_read(name, item, fields, stated)}
            if reading.deep:
                check_depth(extensions, reading.limits.max_depth)
            fields["extensions"] = extensions
        if reading.seen is not None:
            reading.saw("body", "", "stripe")
            if stated is not None:
                reading.saw("next_step", "/error/next_step", step)
            if isinstance(get("message"), str):
                reading.saw("text", "/error/message", inner["message"])
        by_code = None
        if code is not None and code in STEP_FOR_CODE:
            step_, why = STEP_FOR_CODE[code]
            by_code = (step_, f"the stripe code table: {code!r} ({why})")
        elif type_ is not None and type_ in _STEP_FOR_TYPE:
            step_, why = _STEP_FOR_TYPE[type_]
            by_code = (step_, f"the stripe code table: type {type_!r} ({why})")
        return reading.finish(fields, stated, by_code=by_code)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        inner: dict[str, Any] = {"type": error_type(fault.status, fault.code)}
        if fault.code is not None:
            inner["code"] = fault.code
        message = fault.detail or fault.title
        if message is not None:
            inner["message"] = message
        if fault.param is not None:
            inner["param"] = fault.param
        if fault.type is not None and fault.type.startswith(("https://", "http://")):
            inner["doc_url"] = fault.type
        if fault.next_step is not None:
            inner["next_step"] = str(fault.next_step)
        if fault.extensions:
            for name, item in fault.extensions.items():
                # Never over one of Stripe's own members, and never `root_cause`: an error
                # object holding one is Elasticsearch's (recognise yields it), so the body
                # would read back as another dialect. Left out, it is a measured loss.
                if name not in _OWN and name != "root_cause":
                    inner[name] = item
        return write_json({"error": inner})

    def http_headers(self, fault: Fault, writing: Writing) -> list[tuple[str, str]]:
        headers = [("Stripe-Should-Retry", "true" if fault.next_step == NextStep.WAIT else "false")]
        # Sanitised first: a Request-Id that is all spaces and controls is no header at all.
        request_id = next(
            (
                v
                for d in fault.details
                if isinstance(d, RequestInfo) and (v := header_copy(d.request_id, writing.limits.max_header))
            ),
            None,
        )
        if request_id:
            headers.append(("Request-Id", request_id))
        return headers
