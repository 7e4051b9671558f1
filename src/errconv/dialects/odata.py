"""`odata`: the error body of the Microsoft REST API guidelines, Azure and OData.

    {"error": {"code": "<service code>", "message": "...", "target": "<param>",
               "details": [{"code", "message", "target"}, ...],
               "innererror": {"code": "<more specific>", "innererror": {...}, ...}}}

What every Azure data-plane and ARM service, Microsoft Graph, Dynamics, SAP Gateway and
any OData server sends (microsoft/api-guidelines `azure/Guidelines.md` "Handling
Errors", `graph/articles/errorResponses.md`; OData JSON Format 4.0 section 21).

Reading: `code` is the code, spelled as sent (`ResourceNotFound`, Graph's
`badRequest`, Azure OpenAI's `"429"`); `message` the detail (OData v2/v3's
`{"lang", "value"}` form too, its language kept as a LocalizedMessage); `target` the
param, else the first detail's target (or, for SAP Gateway, the first non-empty target
in `innererror.errordetails`); `details` the violations (target, message, code) when
every entry has that shape, else kept whole as an extension; the `x-ms-error-code`
header is the code when the body has none (a note says so when they differ). Also
read: OData v3's `{"odata.error": ...}` envelope and a bare error object without the
envelope (as SAP's SDK logs it), recognised by its `innererror` or `{"lang", "value"}`
message. The body carries no status: it comes from HTTP; a bare body's status is
derived from its code where the code names one (a numeric code, Graph's camelCased
status description, the few codes in `_STATUS_FOR_CODE`), else it is 400 with
FAILED_PRECONDITION, both marked inferred (a target says what to fix; without one,
nothing says the request is at fault, so the next step is give_up). The guidelines
tell clients to take the deepest `innererror` code they understand: the code table
(`_STEP_FOR_CODE`) is consulted from the deepest code of the chain up. Every member
errconv does not read (Graph's `innerError` with its request-id and date, ARM's
`additionalInfo`, a service's `innererror` and its chain) is kept verbatim, in order.

Writing: the guidelines' shape, `code` (when the fault has one), `message` (the detail,
else the title), `target` (the param), `details` (the violations) and `innererror`,
then the extension members (additional properties, which the guidelines allow on the
error object); an extension named like one of those members, or like another format's
mark (`type`, `param`, `status`, Stripe's `decline_code`, ...), travels in
`innererror.extensions` instead, so that what errconv writes is never read as Stripe's
or OpenAI's body, nor one of its members as the guidelines' own. errconv's own fields go into `innererror`, which the guidelines leave to
the service ("the contents of this object are service-defined") and which every client
keeps as an open object (azure-core's `ODataV4Format.innererror`): `status`,
`grpc_code` (only when not the default for the status), `next_step`,
`retry_after_seconds`, `domain`, `title`, `detail` (only when it equals the title, which
`message` alone could not tell apart), `type`, `instance`, `alternatives`,
`alternatives_truncated`, `blocked_by`, `unblock_with`, `metadata`, `details` (the
google.rpc details in proto3 JSON), `extensions` (above), after the members of a
service's own `innererror` kept from a decoded body (one holding any of errconv's names
travels whole in `extensions`). An `innererror` is read as errconv's only when it states a
`next_step` (errconv always writes one): any other is the service's and stays verbatim.
Inside HTTP, `x-ms-error-code` repeats the code, as the Azure guidelines require.
Lossless for every Fault `Fault.build` makes.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import METADATA_RESERVED, Fault, Violation
from .._model.limits import MAX_RETRY_AFTER_SECONDS
from ..codes import CODE_BY_NAME, REASON_PHRASES, Code, NextStep, code_for_http, http_for_code
from ..details import DebugInfo, LocalizedMessage, RetryInfo
from ._base import CERTAIN, LIKELY, STRONG, WEAK, Dialect, HttpInfo
from ._common import STEP_ALIASES, Reading, Writing, capped_delay, seconds_from_nanos, whole_seconds, write_json
from .._model.schema import Item, ProblemInfo, check_depth, counted, item_from_json, item_to_json
from ._status import check_details_count
from .stripe import header_copy

__all__ = ["OData", "status_for_code", "step_for_codes"]

# The guidelines' members of an error object, in the order written.
_MEMBERS = ("code", "message", "target", "details", "innererror")
_MEMBER_SET = frozenset(_MEMBERS)
# errconv's members inside `innererror`, in the order written.
_AGENT = (
    "status", "grpc_code", "next_step", "retry_after_seconds", "domain", "title", "detail", "type", "instance",
    "alternatives", "alternatives_truncated", "blocked_by", "unblock_with", "metadata", "details", "extensions",
)  # fmt: skip
_AGENT_SET = frozenset(_AGENT)
_AGENT_TEXT = ("domain", "title", "detail", "type", "instance", "blocked_by", "unblock_with")
_ENTRY = frozenset(("code", "message", "target", "localized_message"))  # a `details` entry errconv reads
_MISSING: Any = object()

# --------------------------------------------------------------------------- the code tables

_WAIT, _GIVE_UP = NextStep.WAIT, NextStep.GIVE_UP
# Service codes whose next step is not what their status says. Looked up from the deepest
# code of the innererror chain up, as the guidelines tell clients to, then the header's.
_STEP_FOR_CODE: dict[str, NextStep] = {
    # Throttling: a wait whatever status carries it (a bare body has none; a gateway may
    # turn the 429 into a 400 or a 503 into a 500).
    "TooManyRequests": _WAIT,  # ARM's and Graph's throttle (429 with Retry-After)
    "ResourceRequestsThrottled": _WAIT,  # ARM's per-operation limit ("try again after '372' seconds")
    "activityLimitReached": _WAIT,  # Graph: "the app or user has been throttled" (429)
    "throttledRequest": _WAIT,  # Graph's inner code under activityLimitReached
    "ServerBusy": _WAIT,  # Azure Storage: 503, and also 500 "operations per second is over the account limit"
    "OperationTimedOut": _WAIT,  # Azure Storage 500 "could not be completed within the permitted time": 500 reads give_up
    # Conflicts: 409 reads ABORTED, which waits; these do not clear by repeating the call.
    "Conflict": _GIVE_UP,  # ARM/App Service: a state or plan-limit conflict; azure-core never retries a 409 either
}
# (And every code ending in "AlreadyExists": Azure Storage's ContainerAlreadyExists,
# BlobAlreadyExists, ..., Graph's nameAlreadyExists: creating it again cannot succeed.)
_ALREADY_EXISTS = "alreadyexists"

# The status a bare body's code implies, where no phrase or number says it.
_STATUS_FOR_CODE: dict[str, int] = {
    "Authorization_RequestDenied": 403,  # Azure AD / Microsoft Graph directory: "Insufficient privileges"
    "DeploymentNotFound": 404,  # Azure OpenAI: no deployment of that name
    "ResourceRequestsThrottled": 429,  # ARM
    "activityLimitReached": 429,  # Graph
}
# Graph's top-level code is the status description in camelCase ("notFound",
# "tooManyRequests"); Azure services often use the same words in PascalCase.
_STATUS_FOR_PHRASE: dict[str, int] = {
    phrase.replace(" ", "").replace("-", "").lower(): status for status, phrase in REASON_PHRASES.items() if status >= 400
}
_STATUS_FOR_PHRASE.update(
    {"requestentitytoolarge": 413, "payloadtoolarge": 413, "unprocessableentity": 422, "requestedrangenotsatisfiable": 416}
)  # the older names (RFC 7231, 4918) that Graph's table still uses


def status_for_code(code: str | None) -> int | None:
    """The HTTP status a service code names, if it names one: a number from 400 to 599
    (Azure OpenAI's "429", SAP CAP's "403"), a status description in camelCase or
    PascalCase (Graph's "badRequest", ARM's "TooManyRequests"), or a code of the table."""
    if code is None:
        return None
    if len(code) == 3 and code.isdigit() and code.isascii():
        number = int(code)
        return number if 400 <= number <= 599 else None
    found = _STATUS_FOR_CODE.get(code)
    if found is None and code.isascii() and code.isalpha():
        found = _STATUS_FOR_PHRASE.get(code.lower())
    return found


def step_for_codes(codes: list[str]) -> tuple[NextStep, str] | None:
    """What the code table says of a chain of codes (outermost first), reading from the
    deepest up, and why; None when it knows none of them."""
    for code in reversed(codes):
        step = _STEP_FOR_CODE.get(code)
        if step is None and code.lower().endswith(_ALREADY_EXISTS):
            step = _GIVE_UP
        if step is not None:
            return step, f"odata code {code!r}"
    return None


# --------------------------------------------------------------------------- reading


def _lang_value(message: Any) -> bool:
    """OData v2/v3's message object, `{"lang": "en", "value": "..."}`."""
    return (
        type(message) is dict
        and type(message.get("value")) is str
        and type(message.get("lang", "")) is str
        and message.keys() <= {"lang", "value"}
    )


def _entry_ok(entry: Any) -> bool:
    if type(entry) is not dict or not entry or not entry.keys() <= _ENTRY:
        return False
    for name, value in entry.items():
        if name == "localized_message":
            if not (type(value) is dict and value.keys() == {"locale", "message"} and all(type(v) is str for v in value.values())):
                return False
        elif type(value) is not str:
            return False
    return True


def _violations(details: Any, reading: Reading) -> tuple[Violation, ...] | None:
    """The violations of a `details` list whose every entry is a plain {code, message,
    target}; None for any other list (kept whole, as it came)."""
    if type(details) is not list or not all(_entry_ok(e) for e in details):
        return None
    counted(details, reading.limits, "details entries")
    out = []
    for entry in details:
        lm = entry.get("localized_message")
        out.append(
            Violation(
                field=entry.get("target", ""),
                description=entry.get("message", ""),
                reason=entry.get("code") or None,
                localized_message=None if lm is None else LocalizedMessage(locale=lm["locale"], message=lm["message"]),
            )
        )
    return tuple(out)


def _chain(inner: dict[str, Any]) -> list[str]:
    """The codes of the innererror chain below an error object, outermost first (either
    spelling: Graph writes `innerError`)."""
    codes: list[str] = []
    node: Any = inner
    for _ in range(32):  # Limits.max_depth bounds what was read; a chain is never deeper
        nxt = node.get("innererror", _MISSING)
        if type(nxt) is not dict:
            nxt = node.get("innerError", _MISSING)
        if type(nxt) is not dict:
            break
        if type(nxt.get("code")) is str and nxt["code"]:
            codes.append(nxt["code"])
        node = nxt
    return codes


def _sap_target(inner: Any) -> str | None:
    """SAP Gateway's first non-empty `innererror.errordetails[].target`."""
    if type(inner) is not dict or type(inner.get("errordetails")) is not list:
        return None
    return next(
        (e["target"] for e in inner["errordetails"] if type(e) is dict and type(e.get("target")) is str and e["target"]), None
    )


def _own(innererror: Any) -> bool:
    """Whether an innererror holds errconv's members: it states a next step."""
    if type(innererror) is not dict:
        return False
    step = innererror.get("next_step")
    return type(step) is str and step in STEP_ALIASES


def _read_agent(
    ie: dict[str, Any], fields: dict[str, Any], reading: Reading
) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
    """errconv's members of an innererror into `fields`; returns the members left (the
    service's own, and ours of a type errconv cannot read), the status and gRPC code name
    it states (or _MISSING), the explicit detail, and the extension members it carries."""
    left: dict[str, Any] = {}
    spilled: dict[str, Any] = {}
    status: Any = _MISSING
    grpc: Any = _MISSING
    detail: Any = _MISSING
    for name, value in ie.items():
        if name not in _AGENT_SET:
            left[name] = value
            continue
        t = type(value)
        if name == "status" and t is int and 100 <= value <= 599:
            status = value
        elif name == "grpc_code" and t is str and value in CODE_BY_NAME:
            grpc = value
        elif name == "next_step" and t is str and value in STEP_ALIASES:
            pass  # read by the caller
        elif name == "retry_after_seconds" and whole_seconds(value) is not None:
            fields["retry_after_seconds"] = whole_seconds(value)
        elif name == "detail" and t is str:
            detail = value
        elif name in _AGENT_TEXT and t is str:
            if value:
                fields[name] = value
        elif name == "alternatives" and t is list:
            if reading.deep:
                check_depth(value, reading.limits.max_depth)
            fields["alternatives"] = tuple(value)
        elif name == "alternatives_truncated" and (value is True or value is False):
            fields["alternatives_truncated"] = value
        elif (
            name == "metadata"
            and t is dict
            and all(type(v) is str for v in value.values())
            and value.keys().isdisjoint(METADATA_RESERVED)
        ):
            fields["metadata"] = value
        elif name == "extensions" and t is dict:
            spilled = value  # extension members named like the error object's own
        elif name == "details" and t is list and all(type(d) is dict for d in value):
            check_details_count(len(value), reading.limits, "innererror: ")
            items: list[Item] = [item_from_json(d, reading.limits) for d in value]
            kept = []
            for item in items:
                if isinstance(item, ProblemInfo):
                    continue  # errconv.v1.Problem carries what the members here carry: never a detail of the fault
                if isinstance(item, RetryInfo) and "retry_after_seconds" not in fields:
                    fields["retry_after_seconds"] = seconds_from_nanos(item.retry_delay_nanos)
                    continue
                kept.append(item)
            fields["details"] = tuple(kept)
        else:
            left[name] = value  # ours by name, but nothing errconv can read: kept as it came
    return left, status, grpc, detail, spilled


def _envelope(value: Any) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """The error object, where it sits (a JSON Pointer), and the members beside it."""
    if type(value) is not dict:
        raise DecodeError(f"an odata error is {{\"error\": {{...}}}}, got {shorten(value)}")
    for key in ("error", "odata.error"):
        inner = value.get(key)
        if type(inner) is dict:
            return inner, f"/{key}", {k: v for k, v in value.items() if k != key}
    if "error" in value or "odata.error" in value:
        raise DecodeError(f"\"error\" must be an object, got {shorten(value.get('error', value.get('odata.error')))}")
    if type(value.get("code")) is str or "innererror" in value or _lang_value(value.get("message")):
        return value, "", {}  # a bare error object, as SAP's SDK logs it
    raise DecodeError(f"an odata error is {{\"error\": {{\"code\", \"message\", ...}}}}, got {shorten(value)}")


def _decode(value: Any, reading: Reading) -> Fault:
    inner, at, beside = _envelope(value)
    fields: dict[str, Any] = {}
    extensions: dict[str, Any] = {}
    code = message = None
    lang: str | None = None
    stated: NextStep | None = None
    body_status: Any = _MISSING
    grpc_name: Any = _MISSING
    explicit_detail: Any = _MISSING
    foreign: Any = None  # the service's own innererror (or Graph's innerError), for the chain and SAP's targets
    spilled: dict[str, Any] = {}
    for name, item in inner.items():
        t = type(item)
        if name == "code" and t is str:
            code = item
        elif name == "message" and t is str:
            message = item
        elif name == "message" and _lang_value(item):
            message = item["value"]
            if type(item.get("lang")) is str and item["lang"]:
                lang = item["lang"]
        elif name == "target" and t is str:
            if item:
                fields["param"] = item
        elif name == "details" and (found := _violations(item, reading)) is not None:
            if found:
                fields["violations"] = found
        elif name == "innererror" and _own(item):
            stated = STEP_ALIASES[item["next_step"]]
            left, body_status, grpc_name, explicit_detail, spilled = _read_agent(item, fields, reading)
            if left:
                extensions["innererror"] = left
                foreign = left
        else:
            if name in ("innererror", "innerError") and t is dict and foreign is None:
                foreign = item
            extensions[name] = item
    for name, item in spilled.items():  # errconv's: extension members named like the error object's
        if name in extensions:
            reading.notes += (f"innererror.extensions.{shorten(name)} is not kept: the error object has one of that name",)
        else:
            extensions[name] = item
    for name, item in beside.items():  # members beside the error object (rare): kept too
        if name in extensions or name in inner:
            reading.notes += (f"the member {shorten(name)} beside the error object is not kept: the error object has one of that name",)
        else:
            extensions[name] = item

    # The code, and the header that should repeat it.
    header = reading.headers.get("x-ms-error-code") if reading.headers is not None else None
    if header is not None and header:
        if not code:
            code = header
            reading.saw("code", "/headers/x-ms-error-code", header)
        elif header != code:
            reading.notes += (f"x-ms-error-code {shorten(header)} differs from error.code {shorten(code)}; the body's is kept",)
    if code:
        fields["code"] = code

    # The prose: the message, unless errconv wrote it as the title.
    title = fields.get("title")
    if explicit_detail is not _MISSING:
        fields["detail"] = explicit_detail
    elif message and message != title:
        fields["detail"] = message
    if lang is not None and message:
        fields["details"] = (LocalizedMessage(locale=lang, message=message), *fields.get("details", ()))

    # The param: the target, else the first detail's, else SAP's (errconv writes a target
    # whenever the fault has a param: its own bodies are read as they are).
    if "param" not in fields and stated is None:
        param = next((v.field for v in fields.get("violations", ()) if v.field), None) or _sap_target(foreign)
        if param:
            fields["param"] = param
            reading.inferred += ("param",)

    # The status: HTTP's; else what errconv wrote; else what the code names; else a guess.
    named = status_for_code(code)
    if reading.status is not None:
        status = reading.http_status_wins(None if body_status is _MISSING else body_status)
        if named is not None and named != status and code is not None and code.isdigit():
            reading.notes += (f"error.code {code!r} reads as HTTP {named}; the response is {status}",)
    elif body_status is not _MISSING:
        status = body_status
    elif named is not None:
        status = named
    else:
        status = None
    if grpc_name is not _MISSING:
        grpc_code = CODE_BY_NAME[grpc_name]
        if status is None:  # a gRPC code errconv wrote, beside no status it could read: the status it implies
            status = http_for_code(grpc_code)
            reading.inferred += ("status",)
    elif status is not None:
        grpc_code = code_for_http(status)
        reading.inferred += ("grpc_code",)
    else:
        # Nothing says the status: a client error by the shape, but nothing says the request
        # is at fault either. FAILED_PRECONDITION fixes the request when a target names what
        # to fix, and gives up otherwise.
        status, grpc_code = 400, int(Code.FAILED_PRECONDITION)
        reading.inferred += ("status", "grpc_code")
        reading.notes += ("no status: the body carries none and its code names none; 400 assumed",)
    fields["status"] = status
    fields["grpc_code"] = grpc_code

    reading.keep_extensions(fields, extensions)
    by_code = None
    if stated is None:
        by_code = step_for_codes([c for c in (code, *_chain(inner)) if c])
    if reading.seen is not None:
        reading.saw("body", at, "odata")
        if message:
            reading.saw("text", f"{at}/message", message)
        if stated is not None:
            reading.saw("next_step", f"{at}/innererror/next_step", inner["innererror"]["next_step"])
        if body_status is not _MISSING:
            reading.saw("status", f"{at}/innererror/status", body_status)
    return reading.finish(fields, stated, by_code=by_code)


# --------------------------------------------------------------------------- writing


def _agent(fault: Fault, keep_debug: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"status": fault.status}
    if fault.grpc_code != code_for_http(fault.status):
        out["grpc_code"] = fault.grpc_code_name
    if fault.next_step is not None:
        out["next_step"] = str(fault.next_step)
    if fault.retry_after_seconds is not None:
        out["retry_after_seconds"] = min(capped_delay(fault.retry_after_seconds), MAX_RETRY_AFTER_SECONDS)
    if fault.domain is not None:
        out["domain"] = fault.domain
    if fault.title is not None:
        out["title"] = fault.title
        if fault.detail == fault.title:
            out["detail"] = fault.detail  # `message` alone would read back as the title only
    for name in ("type", "instance"):
        if getattr(fault, name) is not None:
            out[name] = getattr(fault, name)
    if fault.alternatives:
        out["alternatives"] = list(fault.alternatives)
    if fault.alternatives_truncated or len(fault.alternatives) >= 3:
        out["alternatives_truncated"] = fault.alternatives_truncated
    for name in ("blocked_by", "unblock_with"):
        if getattr(fault, name) is not None:
            out[name] = getattr(fault, name)
    if fault.metadata:
        out["metadata"] = fault.metadata
    details = [item_to_json(d) for d in fault.details if keep_debug or type(d) is not DebugInfo]
    if details:
        out["details"] = details
    return out


def _entry(v: Violation) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if v.reason is not None:
        entry["code"] = v.reason
    entry["message"] = v.description
    if v.field:
        entry["target"] = v.field
    if v.localized_message is not None:
        entry["localized_message"] = {"locale": v.localized_message.locale, "message": v.localized_message.message}
    return entry


def _clean_details(value: Any) -> bool:
    """Whether a `details` value reads as violations (so cannot go back as it came)."""
    return type(value) is list and all(_entry_ok(e) for e in value)


def to_object(fault: Fault, *, keep_debug: bool = True) -> dict[str, Any]:
    """The `{"error": {...}}` object for a fault, members in the guidelines' order.

    Extension members go beside them, as additional properties. One kept under a name
    of the guidelines' members (a `details` list of another shape, a `target` of null,
    a service's innererror) goes back in its place when errconv writes nothing there
    and it would read back as it came; else it travels in `innererror.extensions`, as
    does one named like another format's mark (`type`, `param`, `status`, Stripe's
    own), so that errconv's body never looks like Stripe's or OpenAI's."""
    ext = fault.extensions
    error: dict[str, Any] = {}
    spilled: dict[str, Any] = {}  # extension members with no place of their own
    if fault.code is not None:
        error["code"] = fault.code
    message = fault.detail or fault.title
    error["message"] = message if message is not None else ""
    if fault.param is not None:
        error["target"] = fault.param
    elif "target" in ext and type(ext["target"]) is not str:
        error["target"] = ext["target"]
    if fault.violations:
        error["details"] = [_entry(v) for v in fault.violations]
    elif "details" in ext and not _clean_details(ext["details"]):
        error["details"] = ext["details"]
    kept = ext.get("innererror", _MISSING)
    # The service's own innererror members first (its `code`, its chain), then errconv's;
    # an innererror holding one of errconv's names travels whole in `extensions` instead.
    inner: dict[str, Any] = {}
    if type(kept) is dict and kept.keys().isdisjoint(_AGENT_SET):
        inner.update(kept)
    elif kept is not _MISSING:
        spilled["innererror"] = kept
    for name, value in ext.items():
        if name not in _SPILLED:
            continue
        if name == "innererror" or error.get(name, _MISSING) is value:
            continue  # placed above
        spilled[name] = value
    inner.update(_agent(fault, keep_debug))
    if spilled:
        inner["extensions"] = spilled
    error["innererror"] = inner
    for name, value in ext.items():
        if name not in _SPILLED:
            error[name] = value
    return {"error": error}


# --------------------------------------------------------------------------- the dialect

# Connect's code words: a bare {"error": {"code": "unavailable", "message"}} is Connect's
# end of stream as much as an OData body, and Connect comes first.
_CONNECT_CODES = frozenset(
    ("canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found", "already_exists",
     "permission_denied", "resource_exhausted", "failed_precondition", "aborted", "out_of_range",
     "unimplemented", "internal", "unavailable", "data_loss", "unauthenticated")
)  # fmt: skip
# Members of another format's error object: Stripe's and OpenAI's `type`/`param` (and the
# members only Stripe sends), Google's `status`, Elasticsearch's `reason`/`root_cause`.
_OTHERS = frozenset(
    ("type", "param", "status", "reason", "root_cause", "doc_url", "request_log_url", "decline_code", "advice_code",
     "network_decline_code", "charge", "payment_intent", "setup_intent", "payment_method")
)  # fmt: skip
_SPILLED = _MEMBER_SET | _OTHERS  # extension names the error object does not carry beside its members
_MARKS = frozenset(("target", "innererror", "innerError", "additionalInfo"))
_BARE = frozenset(("code", "message", "target", "details", "innererror", "innerError"))


def _marked(inner: dict[str, Any]) -> bool:
    """OData's own marks: a target, an innererror, ARM's additionalInfo, OData v2's
    message object, or details entries of code and message without `@type`."""
    if not inner.keys().isdisjoint(_MARKS) or _lang_value(inner.get("message")):
        return True
    details = inner.get("details")
    return (
        type(details) is list
        and bool(details)
        and all(type(d) is dict and "@type" not in d and ("code" in d or "message" in d) for d in details)
    )


def _odata_headers(http: HttpInfo | None) -> bool:
    if http is None:
        return False
    headers = http.headers
    if "x-ms-error-code" in headers or "odata-version" in headers or "dataserviceversion" in headers:
        return True
    return "odata." in (headers.get("content-type") or "")


class OData(Dialect):
    """The Microsoft REST API guidelines' (Azure, Graph, OData) error object."""

    name = "odata"
    precedence = 120
    listed = 260
    keys = frozenset(("error", "odata.error", "code"))  # the envelope, OData v3's, or a bare error object
    media_type = "application/json"
    lossless = True
    reserved = _MEMBER_SET

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`{"error": {"code": "<string>", "message", ...}}` without Stripe's, OpenAI's,
        Google's or Elasticsearch's members and with nothing beside it but annotations;
        STRONG with OData's marks or Azure's headers, CERTAIN with errconv's innererror."""
        if type(value) is not dict:
            return 0.0
        inner = value.get("error")
        if type(inner) is not dict:
            inner = value.get("odata.error")
            if type(inner) is dict and type(inner.get("code")) is str:
                return STRONG  # OData v3's envelope, which nothing else uses
            # A bare error object (SAP's SDK logs it so): only with its own marks.
            if type(value.get("code")) is str and value.keys() <= _BARE and (
                type(value.get("innererror", value.get("innerError"))) is dict or _lang_value(value.get("message"))
            ):
                return LIKELY
            return 0.0
        if len(value) > 1 and any(k != "error" and k[:1] != "@" for k in value):
            return 0.0  # Connect's metadata, JSON-RPC's id, Elasticsearch's status, Anthropic's type
        code = inner.get("code")
        if _own(inner.get("innererror")) and inner.keys().isdisjoint(_OTHERS):
            # errconv's own agent fields; its encoder never writes another format's marks
            # beside them (and a Stripe body carrying such an innererror has its `type`).
            return CERTAIN
        if not inner.keys().isdisjoint(_OTHERS) or (code is not None and type(code) is not str):
            return 0.0
        if "message" not in inner and not (_marked(inner) or _odata_headers(http)):
            return 0.0  # OData's error requires a message: a code beside other members is another service's
        message = inner.get("message", "")
        if code is None:
            # No code (guidelines require one; azure-core reads a message alone): only with OData's marks.
            return LIKELY if type(message) is str and (_marked(inner) or _odata_headers(http)) else 0.0
        if type(message) is not str and not _lang_value(message):
            return WEAK
        if _marked(inner) or _odata_headers(http):
            return STRONG
        if inner["code"] in _CONNECT_CODES:
            return WEAK
        return LIKELY

    def decode(self, value: Any, reading: Reading) -> Fault:
        return _decode(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return write_json(to_object(fault, keep_debug=writing.keep_debug))

    def http_headers(self, fault: Fault, writing: Writing) -> list[tuple[str, str]]:
        if fault.code is None:
            return []
        copy = header_copy(fault.code, writing.limits.max_header)
        return [] if copy is None else [("x-ms-error-code", copy)]
