"""`openai`: OpenAI's error object, the de facto shape of every "OpenAI-compatible" server.

    {"error": {"message": "...", "type": "...", "param": null, "code": "..."}}

Written as OpenAI sends it: the four members always, in OpenAI's order, absent ones as
explicit nulls; `message` is the detail (else the title, else empty), `type` a word
of OpenAI's vocabulary (see `error_type`; a type the fault came with is kept in
`metadata["type"]` and written back), then errconv's agent fields as extra members
inside `error` (`next_step`, `retry_after_seconds` for a wait), `metadata` (a string
map, where OpenRouter puts its own) and the extension members in order. Inside HTTP,
`x-should-retry` says whether to retry (the OpenAI SDK obeys it over its status rules,
so its retries agree with the next step) and `x-request-id` carries a RequestInfo.

Decoding is liberal, for the servers that speak it: OpenAI, Azure OpenAI (whose
content-filter bodies add an integer `status` and an `innererror`), vLLM and Ollama,
LiteLLM, Groq, OpenRouter (an integer `code` that is the HTTP status, and a string
`metadata`), Anthropic's OpenAI-compatible endpoint, and the flat form of FastChat and
older vLLM servers (`{"object": "error", "message", "type", "code": 400}`, no envelope).
The code is `code` as the service spells it (an integer as its digits), else `type`
when `code` is null, as OpenAI's own billing errors have it (but not in a body carrying
errconv's `next_step`, whose null code means no code). A bare body's status comes
from the body (Azure's `status`, an HTTP-status `code`) or from the code (`_STATUS_FOR`).

Telling it from Stripe, whose errors share the envelope and the `invalid_request_error`
type (research/dialects.md, "Telling OpenAI from Stripe"): OpenAI's headers; explicit
nulls, which Stripe never writes; a type of OpenAI's own (`tokens`, `insufficient_quota`,
`server_error`, ...); OpenAI's member order (message, type, param, code: Stripe's API
writes its members in alphabetical order, errconv's Stripe writer `type` first); an
integer `code` beside a `metadata` object. A body with any of Stripe's own members
(`doc_url`, `decline_code`, ...) or Stripe's headers is never claimed.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import METADATA_RESERVED, Fault
from .._model.retry_after import prose_delay
from ..codes import NextStep, code_for_http
from ..details import RequestInfo
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import STEP_ALIASES, Reading, Writing, capped_delay, whole_seconds, write_json
from .stripe import header_copy

__all__ = ["OpenAI", "STEP_FOR_CODE", "error_type", "status_for"]

_WAIT, _GIVE_UP, _FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST

# --------------------------------------------------------------------------- the code table

# OpenAI's codes (and the types that stand for the code when `code` is null) whose next
# step is not what their status says, and why. The status ladder decides the rest
# (invalid_api_key 401, model_not_found 404: give_up; a 400 naming its param: fix_request).
STEP_FOR_CODE: dict[str, tuple[NextStep, str]] = {
    # A 429 that no wait clears: the account is out of credit until someone pays
    # (gpt-pilot#340; older bodies have code null and only this type: big-AGI#104).
    # OpenAI's SDK retries it twice regardless; errconv says x-should-retry: false.
    "insufficient_quota": (_GIVE_UP, "the account is out of credit: no wait restores the quota, only billing does, though it comes as a 429"),
    "billing_hard_limit_reached": (_GIVE_UP, "the organisation's monthly spend limit is reached: a person must raise it"),
    # Per-minute request and token limits reset within the minute. Some gateways send
    # these as 400 or 500; the code says wait whatever the status.
    "rate_limit_exceeded": (_WAIT, "a per-minute request or token limit, which resets within the minute"),
    "tokens": (_WAIT, "a tokens-per-minute limit, which resets within the minute"),
    "requests": (_WAIT, "a requests-per-minute limit, which resets within the minute"),
    "slow_down": (_WAIT, "traffic grew too fast for the limits: retry at a lower rate"),
    "throttling_error": (_WAIT, "a throttle (LiteLLM's type for an upstream 429)"),
    # OpenAI's 500 body says "You can retry your request", and its SDK retries every 5xx:
    # a transient server fault, not the bug an INTERNAL usually is.
    "server_error": (_WAIT, "OpenAI's transient server error (its body says the request can be retried)"),
    "server_is_overloaded": (_WAIT, "OpenAI's servers are overloaded for the moment"),
    "service_unavailable_error": (_WAIT, "OpenAI's servers are unavailable for the moment"),
    # The prompt is over the model's context window: a shorter `messages` passes, the same
    # call never does. OpenAI sends it as 400; some gateways as 413 or 500.
    "context_length_exceeded": (_FIX, "the prompt is longer than the model's context window: shorten it"),
}

# The status a bare body (no HTTP status around it) implies, by its code or type.
_STATUS_FOR: dict[str, int] = {
    "insufficient_quota": 429, "billing_hard_limit_reached": 429, "rate_limit_exceeded": 429, "tokens": 429,
    "requests": 429, "slow_down": 429, "throttling_error": 429, "rate_limit_error": 429,
    "server_error": 500, "api_error": 500, "server_is_overloaded": 503, "service_unavailable_error": 503,
    "invalid_api_key": 401, "authentication_error": 401, "permission_error": 403,
    "model_not_found": 404, "not_found_error": 404,
    "invalid_request_error": 400, "context_length_exceeded": 400, "content_filter": 400,
}  # fmt: skip

# Types no Stripe body has: any of them marks the OpenAI family (the first four are
# OpenAI's own; then LiteLLM's, and the exception names FastChat and vLLM write).
_OWN_TYPES = frozenset(
    ("tokens", "requests", "insufficient_quota", "server_error", "service_unavailable_error", "rate_limit_exceeded",
     "throttling_error", "BadRequestError", "NotFoundError", "InternalServerError")
)  # fmt: skip
# Members only Stripe sends (research/dialects.md, "Telling OpenAI from Stripe").
_STRIPE_ONLY = frozenset(
    ("doc_url", "request_log_url", "decline_code", "advice_code", "network_decline_code", "network_advice_code",
     "charge", "payment_intent", "setup_intent", "payment_method", "source", "payment_method_type", "user_message")
)  # fmt: skip
# Headers only OpenAI sends (x-ratelimit-*-requests and -tokens are its spelling too).
_OWN_HEADERS = (
    "openai-version", "openai-organization", "openai-processing-ms", "openai-project",
    "x-ratelimit-limit-requests", "x-ratelimit-limit-tokens", "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens",
)  # fmt: skip
_STRIPE_HEADERS = ("stripe-version", "stripe-should-retry")
_OWN_HEADER_SET = frozenset(_OWN_HEADERS)
_STRIPE_HEADER_SET = frozenset(_STRIPE_HEADERS)
_FOUR = ("message", "type", "param", "code")
_ABSENT: Any = object()  # a member not there (None is a member written as null)
_ORDER = list(_FOUR)
_OWN = (*_FOUR, "next_step", "retry_after_seconds", "metadata", "status")
_OWN_SET = frozenset(_OWN)
# Category words, which say less of the status than any other code or type.
_CATEGORIES = frozenset(("invalid_request_error", "api_error"))
# The types `error_type` writes (insufficient_quota only beside the same code).
_WRITTEN_TYPES = frozenset(("invalid_request_error", "requests", "server_error"))
_NUMERIC = re.compile(r"[1-5][0-9]{2}")

# OpenAI's rate-limit message is a fixed sentence: "... (TPM): Limit 7000, Used 0,
# Requested ~12903. ..." (Groq's copy) or "Request too large for gpt-4 ... : Limit 10000,
# Requested 12000. The input or output tokens must be reduced ...". A request larger
# than the whole limit never passes, however long the caller waits.
_OVER_LIMIT = re.compile(r"Limit:? ([0-9][0-9,]{0,14}), (?:Used:? [0-9][0-9,]{0,14}, )?Requested:? ~?([0-9][0-9,]{0,14})")


def error_type(status: int, code: str | None) -> str:
    """The OpenAI `type` errconv writes for a status and code, from OpenAI's vocabulary."""
    if code == "insufficient_quota":
        return "insufficient_quota"  # as OpenAI writes it: the type and the code agree
    if status == 429:
        return "requests"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"


def status_for(code: str | None, type_: str | None) -> int | None:
    """The HTTP status a bare OpenAI body implies by its code or type, or None. A code
    that is only a category word (`invalid_request_error`, copied from a type) yields
    to a type that says more (`requests`: 429)."""
    if code is not None and _NUMERIC.fullmatch(code):  # LiteLLM's "429", OpenRouter's 429: the HTTP status itself
        return int(code)
    for word in (code, type_):
        if word is not None and word not in _CATEGORIES and word in _STATUS_FOR:
            return _STATUS_FOR[word]
    for word in (code, type_):
        if word is not None and word in _STATUS_FOR:
            return _STATUS_FOR[word]
    return None


def _over_limit(message: str) -> str | None:
    """What a rate-limit message says of a request bigger than the whole limit, or None."""
    m = _OVER_LIMIT.search(message)
    if m is None:
        return None
    limit, requested = (int(g.replace(",", "")) for g in m.groups())
    if requested <= limit:
        return None
    return f"the openai message: {requested} requested, over the whole limit of {limit} (no wait lets it through)"


# --------------------------------------------------------------------------- shared with anthropic


def agent_fields(inner: dict[str, Any], fields: dict[str, Any], reading: Reading, at: str) -> NextStep | None:
    """errconv's agent members inside an error object (`next_step`, `retry_after_seconds`)
    into `fields`; the stated next step, if any."""
    stated: NextStep | None = None
    step = inner.get("next_step")
    if type(step) is str and step in STEP_ALIASES:
        stated = STEP_ALIASES[step]
        reading.saw("next_step", f"{at}/next_step", step)
    delay = whole_seconds(inner.get("retry_after_seconds"))
    if delay is not None:
        fields["retry_after_seconds"] = delay
        reading.saw("delay:body", f"{at}/retry_after_seconds", inner["retry_after_seconds"])
    return stated


def prose_wait(message: Any, fields: dict[str, Any], reading: Reading, stated: NextStep | None, by_code: tuple[NextStep, str] | None) -> None:
    """The delay a wait's message states in prose ("Please try again in 17.359s", as OpenAI
    and the servers copying its envelope write a rate limit), into `fields`, when nothing
    else gives one: no delay member, no header, no move stated, and none by the code that
    is not a wait (with no code table row, the delay is the body's signal to wait)."""
    if stated is not None or (by_code is not None and by_code[0] is not _WAIT) or type(message) is not str:
        return
    if "retry_after_seconds" in fields or reading.delay is not None:
        return
    said = prose_delay(message)
    if said is not None:
        fields["retry_after_seconds"] = said[0]
        reading.notes += (f"the delay read from the message's prose {said[1]!r}",)


def request_id(fault: Fault) -> str | None:
    """The request id of a fault's RequestInfo, when it can be sent as it is."""
    for detail in fault.details:
        if isinstance(detail, RequestInfo) and detail.request_id:
            return detail.request_id
    return None


def write_agent_fields(inner: dict[str, Any], fault: Fault) -> None:
    """errconv's agent members, inside an error object."""
    if fault.next_step is not None:
        inner["next_step"] = str(fault.next_step)
    if fault.next_step == NextStep.WAIT and fault.retry_after_seconds is not None:
        inner["retry_after_seconds"] = capped_delay(fault.retry_after_seconds)


def should_retry(fault: Fault) -> str:
    """`x-should-retry`, as the OpenAI and Anthropic SDKs read it: whether retrying the
    identical call can succeed."""
    return "true" if fault.next_step == NextStep.WAIT else "false"


# --------------------------------------------------------------------------- the dialect


class OpenAI(Dialect):
    """OpenAI's `{"error": {message, type, param, code}}`, and the servers that copy it."""

    name = "openai"
    precedence = 100
    listed = 80
    media_type = "application/json"
    keys = frozenset(("error", "object"))  # object: the flat FastChat/vLLM form
    ceiling = STRONG
    reserved = _OWN_SET

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """The envelope with OpenAI's marks (see the module docstring), or the flat form
        with `"object": "error"`; never a body with Stripe's members or headers."""
        if type(value) is not dict:
            return 0.0
        inner = value.get("error")
        if type(inner) is not dict:
            # FastChat's and older vLLM's ErrorResponse: the object itself, marked as an error.
            if value.get("object") == "error" and type(value.get("message")) is str and "error" not in value:
                return STRONG
            return 0.0
        if "message" not in inner:
            return 0.0
        message, type_, code = inner["message"], inner.get("type"), inner.get("code")
        if (message is not None and type(message) is not str) or (type_ is not None and type(type_) is not str):
            return 0.0
        if http is not None:
            headers = http.headers
            if headers.has_any(_STRIPE_HEADER_SET):
                return 0.0
            if headers.has_any(_OWN_HEADER_SET):
                return STRONG
        names = list(inner)
        if names[:4] == _ORDER:
            # OpenAI's four members first, in its order: Stripe's API writes its members
            # in alphabetical order (code before message), errconv's Stripe writer type
            # first, so this holds even beside members only Stripe defines (a card error
            # converted to OpenAI's shape keeps its decline_code as an extension).
            return STRONG
        if not inner.keys().isdisjoint(_STRIPE_ONLY):
            return 0.0
        get = inner.get
        if None in (get("message", _ABSENT), get("type", _ABSENT), get("param", _ABSENT), get("code", _ABSENT)):
            return STRONG  # Stripe omits absent members; OpenAI writes null
        if type_ in _OWN_TYPES:
            return STRONG
        if type(code) is int and "status" not in inner and "details" not in inner and type(inner.get("metadata")) is dict:
            return STRONG  # OpenRouter: {"message", "code": 429, "metadata": {...}}, beside google's int code
        present = [name for name in names if name in _FOUR]
        if present[:2] == ["message", "type"] and present[-1] == "code" and type(code) is not int:
            # OpenAI's own order; Stripe's API writes members alphabetically. OpenAI's code
            # is a string or null: an integer there (GoCardless's 422, the Graph API's 190)
            # is another service's envelope, left to the general reader.
            return LIKELY
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"an openai error is {{\"error\": {{...}}}}, got {shorten(value)}")
        inner = value.get("error")
        at = "/error"
        if type(inner) is not dict:
            if inner is None and value.get("object") == "error":
                inner, at = {k: v for k, v in value.items() if k != "object"}, ""  # the flat form
            else:
                raise DecodeError(f"an openai error is {{\"error\": {{...}}}}, got {shorten(value)}")
        get = inner.get
        fields: dict[str, Any] = {}
        message, type_, param, code = get("message"), get("type"), get("param"), get("code")
        taken = {"message", "type", "param", "code", "next_step", "retry_after_seconds"}
        if type(message) is str:
            fields["detail"] = message
            reading.saw("text", f"{at}/message", message)
        elif message is not None:
            taken.discard("message")
        if type(type_) is not str:
            if type_ is not None:
                taken.discard("type")
            type_ = None
        if type(param) is str:
            fields["param"] = param
        elif param is not None:
            taken.discard("param")
        if type(code) is int:
            code = str(code)  # OpenRouter's and vLLM's integer codes, as their digits
        elif type(code) is not str:
            if code is not None:
                taken.discard("code")
            code = None
        stated_code = code  # the code member, before a type stands in for it
        if code is None and type_ is not None and "next_step" not in inner:
            # OpenAI's own convention: a null code leaves the type as the only identifier.
            # (Not in a body with errconv's next_step: errconv writes the code in `code`,
            # null for none, and a type chosen from the status.)
            code = type_
        if code is not None:
            fields["code"] = code
        body_status = None
        status_member = get("status")
        if type(status_member) is int and 100 <= status_member <= 599:
            body_status = status_member  # Azure OpenAI's content-filter bodies
            taken.add("status")
        elif stated_code is not None and _NUMERIC.fullmatch(stated_code):
            body_status = int(stated_code)  # OpenRouter's and LiteLLM's code is the HTTP status
        status = reading.http_status_wins(body_status)
        if status is None:
            status = status_for(code, type_)
            if status is None:
                status = 400
                reading.inferred += ("status",)
                reading.notes += ("no status in the body or around it; 400 assumed",)
        fields["status"] = status
        fields["grpc_code"] = code_for_http(status)
        reading.inferred += ("grpc_code",)
        metadata = get("metadata")
        # A type errconv would not write itself (`tokens` beside rate_limit_exceeded) is kept,
        # for encoding to give it back; one of its own words is written again from the status.
        keep_type = type_ is not None and code != type_ and type_ not in _WRITTEN_TYPES
        if type(metadata) is dict and metadata and all(type(k) is str and type(v) is str for k, v in metadata.items()):
            if metadata.keys().isdisjoint(METADATA_RESERVED) and not (keep_type and "type" in metadata):
                fields["metadata"] = dict(metadata)
                taken.add("metadata")
        if keep_type:
            fields["metadata"] = {**fields.get("metadata", {}), "type": type_}
        stated = agent_fields(inner, fields, reading, at)
        if stated is None and "next_step" in inner:
            taken.discard("next_step")
        if "retry_after_seconds" not in fields:
            taken.discard("retry_after_seconds")
        extensions = {name: item for name, item in inner.items() if name not in taken}
        reading.keep_extensions(fields, extensions)
        headers = reading.headers
        if headers is not None:
            rid = headers.get("x-request-id")
            if rid:
                fields["details"] = (RequestInfo(request_id=rid),)
        if reading.seen is not None:
            reading.saw("body", "", "openai")
        by_code = None
        if code is not None and code in STEP_FOR_CODE:
            step, why = STEP_FOR_CODE[code]
            by_code = (step, f"the openai code table: {code!r} ({why})")
        elif type_ is not None and type_ in STEP_FOR_CODE:
            step, why = STEP_FOR_CODE[type_]
            by_code = (step, f"the openai code table: type {type_!r} ({why})")
        if by_code is not None and by_code[0] is _WAIT and type(message) is str:
            over = _over_limit(message)
            if over is not None:
                by_code = (_FIX, over)
                reading.notes += (f"read from {over}",)
        body_wait = "retry_after_seconds in the body" if "retry_after_seconds" in fields else None
        prose_wait(message, fields, reading, stated, by_code)
        return reading.finish(fields, stated, body_wait=body_wait, by_code=by_code)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        metadata = dict(fault.metadata)
        type_ = metadata.pop("type", None) or error_type(fault.status, fault.code)
        inner: dict[str, Any] = {
            "message": fault.detail or fault.title or "",
            "type": type_,
            "param": fault.param,
            "code": fault.code,
        }
        write_agent_fields(inner, fault)
        if metadata:
            inner["metadata"] = metadata
        for name, item in fault.extensions.items():
            # Never over one of the members above, and never `root_cause`: an error object
            # holding one is Elasticsearch's, so the body would read back as that dialect.
            if name not in _OWN_SET and name != "root_cause":
                inner[name] = item
        return write_json({"error": inner})

    def http_headers(self, fault: Fault, writing: Writing) -> list[tuple[str, str]]:
        headers = [("x-should-retry", should_retry(fault))]
        rid = request_id(fault)
        if rid is not None:
            safe = header_copy(rid, writing.limits.max_header)
            if safe:
                headers.append(("x-request-id", safe))
        return headers
