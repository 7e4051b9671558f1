"""`general`: the reader of error bodies no dialect claims. Decode only, last in precedence.

An agent meets thousands of APIs; most answer errors in a shape of their own that still
says things in plain member names: a status (`statusCode`, `error_code`), a code
(`errorCode`, `error.code`, `errors[0].code`, `type`, `name`), a message (`msg`,
`description`, `error` as a sentence), a parameter (`field`, `loc`, `source.pointer`, a
map of field to messages), a delay (`retry_after`, `retryAfter`, `estimated_time`,
nested under `parameters` or `error`), or a next step (`retryable`). This reader finds
them by structure and by the tables of `errconv._vocabulary`, and reads text and HTML
bodies' prose for a delay and for words that decide the move.

Precedence of evidence, strongest first (DESIGN.md section 8):

1. a next step the body states (`next_step`, `retryable: true`; `retryable: false`
   forbids a wait, as `x-should-retry: false` does);
2. a code the vocabulary knows (`rate_limit_exceeded` is a wait at any status; a
   quota per month is give_up, even as a 429);
3. the wire's wait signals (Retry-After, a spent rate limit, read by the core);
4. the words of the message, when neither a code nor the wire decides (a 422
   "template not found" is give_up);
5. the status ladder.

A weaker signal never overrides a stronger one; when two disagree the note says which
lost. A delay comes from a member, else the headers (Retry-After, a rate limit reset in
any of its spellings, epoch or seconds to go), else the prose ("retry after 3", "try
again in 20s"). Each fact read records where it came from in `origin.evidence`. A
status the body does not give is the wire's, else one its code implies, else 500;
either is marked inferred.

Claims: it is asked only when no dialect claims a body (its claim, 0.5, is below every
other dialect's weakest), so a body a dialect reads never pays for it. A bare JSON body
without a status is claimed only when some member looks like an error's (a status, a
code, a message); a text body inside an HTTP response (or with a status) only when its
prose says something the status does not (a delay, or another move), and a bare one
without a status only when it is one short line of an error's prose ("429 Too Many
Requests", "Rate limit exceeded, retry after 30 seconds").
"""

from __future__ import annotations

import html
import re
from typing import Any

import msgspec

from .. import _vocabulary as vocab
from .._model.errors import DecodeError, shorten
from .._model.fault import Basis, Fault, Violation
from .._model.retry_after import parse_http_date, parse_timestamp, prose_delay, read_retry_after, whole
from ..codes import REASON_PHRASES, NextStep, code_for_http, infer_next_step
from ._base import Dialect, HttpInfo
from ._common import STEP_ALIASES, Reading
from ._pointer import pointer_to_field
from ._vendor import extensions_of, grpc_code_of

__all__ = ["FALLBACK", "General", "prose_param"]

FALLBACK = 0.5  # below WEAK: whatever any other dialect claims wins
_WAIT, _FIX, _GIVE_UP = NextStep.WAIT, NextStep.FIX_REQUEST, NextStep.GIVE_UP
_MAX_OBJECTS = 24  # objects searched for members: the body's own, its containers, the first errors
_MAX_DEPTH = 4
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}")
_NUMERIC = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,9})?")
_ID_LIKE = re.compile(r"[0-9a-fA-F]{8}-|[0-9a-fA-F]{16,}")
_ERROR_CLASS = re.compile(r"(?:error|exception|fault)$|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$", re.IGNORECASE)
# Values of a code member that name no error in particular.
_UPPER_CODE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# A dotted message key whose parts name an error: "api.err.Invalid", "api.context.permissions.app_error".
_I18N_KEY = re.compile(r"[a-z][a-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*){2,8}")


def _names_an_error_key(raw: str) -> bool:
    return any(part in ("err", "error", "errors") or part.endswith("_error") for part in raw.lower().split("."))


_RETURN_CODES = frozenset(("retCode", "ret_code", "returnCode", "return_code", "errcode", "errno"))
# Result codes, all zeros on success (Naver's "resultcode": "00").
_RESULT_CODES = ("resultcode", "resultCode", "result_code")
# The members holding a return or result code beside a message (Bybit's retCode).
_RETURN_CODE_NAMES = ("retCode", "ret_code", "returnCode", "return_code", *_RESULT_CODES)
# Members naming an HTTP status, beside which a nested `code` of three digits is that status.
_NESTED_STATUS = frozenset(("httpStatusCode", "http_status_code", "httpStatus", "http_status", "statusCode", "status_code"))
# A code written as the first of a list of messages: Kraken's ["EAPI:Invalid key"], a
# category, a colon and the error's words.
_PREFIXED_CODE = re.compile(r"[A-Z][A-Za-z]{1,15}:[A-Za-z][A-Za-z0-9 ._-]{0,60}")
_GENERIC_CODES = frozenset(("error", "errors", "err", "fail", "failed", "failure", "exception", "false", "true", "null", "none", "object", "problem", "invalid"))


def _looks_like_an_error(obj: dict[str, Any]) -> bool:
    """Whether a bare JSON object, with no status to go by, is an error body: a member
    only errors have, an error status, or a code beside a message (a file of settings
    with a `description` is not one)."""
    keys = obj.keys()
    if not keys.isdisjoint(_ERROR_ONLY):
        return True
    if any(_valid_status(obj.get(name)) is not None for name in _STATUS_ONLY if name in obj):
        return True
    for wrapper in ("meta", "error", "status", "response", "answer"):
        inner = obj.get(wrapper)
        # Giphy's {"data": [], "meta": {"status": 429, "msg": ...}}: a status one level down.
        if type(inner) is dict and any(_valid_status(inner.get(name)) is not None for name in _STATUS_ONLY if name in inner):
            return True
        # Beget's {"status": "success", "answer": {"status": "error", "errors": [...]}}: the
        # call went through and its answer failed, as the answer says of itself.
        if type(inner) is dict and type(inner.get("status")) is str and inner["status"].lower() in _FAILED and not inner.keys().isdisjoint(_ERROR_ONLY):
            return True
    # Musixmatch's {"message": {"header": {"status_code": 401, ...}}}: the status two levels down.
    for outer in ("message", "response"):
        holder = obj.get(outer)
        header = holder.get("header") if type(holder) is dict else None
        if type(header) is dict and any(_valid_status(header.get(name)) is not None for name in _STATUS_ONLY if name in header):
            return True
    # bitbank's {"success": 0, "data": {"code": 20003}}: a call that says it failed, and its code.
    if obj.get("success") in (0, False) and type(obj.get("success")) in (int, bool):
        data = obj.get("data")
        if type(data) is dict and not data.keys().isdisjoint(_CODE_NAMES):
            return True
    if len(obj) == 1:
        (inner,) = obj.values()  # {"detail": {...}}: the wrapper's content decides
        if type(inner) is str:
            # {"message": "401 Unauthorized"}, {"message": "Not Found"}: prose of an error
            return vocab.status_in_prose(inner) is not None or vocab.meaning_of(vocab.words(inner)) is not None
        if type(inner) is dict and inner is not obj:
            if next(iter(keys)) in ("status", "error", "fault") and not inner.keys().isdisjoint(_MESSAGE_NAMES):
                return True  # GeoNames' {"status": {"message": ..., "value": 18}}
            return _looks_like_an_error_inner(inner)
        # Zoho's {"data": [{"code": "INVALID_DATA", "message": ..., "status": "error"}]}: the
        # one member a list of entries, the first an error that says so.
        if type(inner) is list and inner and type(inner[0]) is dict:
            entry = inner[0]
            if not entry.keys().isdisjoint(_ERROR_ONLY) and any(_valid_status(entry.get(n)) is not None for n in ("code", "status")):
                return True  # Icinga 2's {"results": [{"code": 500, "errors": [...]}]}: an error member beside an error status
            return type(entry.get("status")) is str and entry["status"].lower() in _FAILED and _looks_like_an_error_inner(entry)
        return False
    # CryptoCompare's {"Response": "Error", "Message": ...}: a member that says error, beside
    # a message (OMDb's {"Response": "False", "Error": "..."}; UniFi's in its `meta`).
    for holder in (obj, obj.get("meta")):
        if type(holder) is not dict:
            continue
        for name in _FLAGS:
            if type(holder.get(name)) is str and holder[name].lower() in _FAILED and not holder.keys().isdisjoint(_MESSAGE_NAMES | {"Error", "error"}):
                return True
    # A value that names itself an error (2captcha's {"status": 0, "request": "ERROR_ZERO_BALANCE"}).
    if any(type(v) is str and _ERROR_TOKEN.fullmatch(v) for v in obj.values()):
        return True
    # A `status` in prose whose words the vocabulary knows (QuestDB's {"status": "not enough
    # lines [table=t]"}, Seniverse's "The API key is invalid."): the message of an error.
    said = obj.get("status")
    if type(said) is str and " " in said.strip() and _prose_status_message(said):
        return True
    # A message that names what went wrong outright beside an empty result (OSMNames'
    # {"count": 20, "message": "Invalid attribute value.", "results": []}).
    said = obj.get("message")
    if type(said) is str and obj.get("results") == [] and _prose_status_message(said) and vocab.is_strong(vocab.words(said)):
        return True
    # Bybit's and others' {"retCode": 10006, "retMsg": ...}: a nonzero return code beside a message.
    for name in _RETURN_CODE_NAMES:
        raw = obj.get(name)
        if raw is not None and not _success_code(raw) and not keys.isdisjoint(_RETURN_MESSAGES):
            return True
    return _looks_like_an_error_inner(obj)


def _success_code(raw: Any) -> bool:
    """A return code of zero (`0`, `"0"`, `"00"`): success."""
    return raw == 0 if type(raw) is int else type(raw) is str and raw.strip("0") == "" and raw != ""


def _prose_status_message(text: str) -> bool:
    """Whether a `status` holding prose is an error's message: its words mean something."""
    if text.strip().lower() in ("ok", "success", "succeeded"):
        return False
    meaning = vocab.meaning_of(vocab.words(text))
    return meaning is not None


_RETURN_MESSAGES = frozenset(("retMsg", "ret_msg", "returnMsg", "return_msg", "message", "msg"))


def _looks_like_an_error_inner(obj: dict[str, Any]) -> bool:
    keys = obj.keys()
    if not keys.isdisjoint(_ERROR_ONLY):
        return True
    named = type(obj.get("name")) is str and _ERROR_CLASS.search(obj["name"]) is not None  # PayPal's INSTRUMENT_DECLINED
    if (named or not keys.isdisjoint(_CODE_NAMES)) and not keys.isdisjoint(_MESSAGE_NAMES):
        return True
    # LINE's {"message": ..., "details": [{"message": ..., "property": "messages[0].text"}]}:
    # a message beside a list of entries that each name a field (0x's {"reason": "Validation
    # Failed", "validationErrors": [{"field": "buyToken", ...}]} says it in `reason`).
    if type(obj.get("message")) is str or type(obj.get("reason")) is str:
        for name in vocab.LIST_MEMBERS:
            entries = obj.get(name)
            if type(entries) is list and entries and type(entries[0]) is dict and not entries[0].keys().isdisjoint(_ENTRY_PARAMS_FIRST):
                return True
    return False


# The members that make a list entry a field's own (its code is the field's reason).
_ENTRY_PARAMS_NAMED = frozenset(("field", "param", "parameter", "property", "propertyName", "fieldName", "field_name", "argument_name", "argumentName", "loc", "pointer"))
_ENTRY_PARAMS_FIRST = frozenset(("field", "property", "param", "parameter", "path", "loc", "pointer", "propertyName", "fieldName", "field_name"))


_ERROR_ONLY = frozenset(
    ("error", "errors", "fault", "error_class", "Error", "error_code", "errorCode", "ErrorCode", "err_code", "errCode", "error_message",
     "errorMessage", "ErrorMessage", "error_description", "error_type", "errorType", "errorMessages", "exception",
     "err-code", "err-msg", "errcode", "errmsg", "errorNum",
     # camelCase and snake_case spellings of errmsg (Kotak Neo's {"stCode": ..., "errMsg": ...}).
     "errMsg", "err_msg",
     # Portainer's {"err": ..., "details": ...}; a SOAP-minded {"Fault": {"Error": [...]}}.
     "err", "Fault",
     *vocab.RETRYABLE_MEMBERS, *(name for name, _ in vocab.DELAY_MEMBERS if name not in ("wait", "backoff", "cooldown"))),
)  # fmt: skip
_CODE_NAMES = frozenset(("code", "status", "statusCode", "status_code", "reason", "type", "Code"))
_MESSAGE_NAMES = frozenset(("message", "msg", "description", "detail", "details", "Message", "status_message", "statusMessage", "desc", "Description", "full_message"))
# A value that names itself an error: 2captcha's `"request": "ERROR_ZERO_BALANCE"`.
_ERROR_TOKEN = re.compile(r"(?:ERR|ERROR)_[A-Z0-9]+(?:_[A-Z0-9]+)*")
# Members whose value says the call failed (CryptoCompare's `"Response": "Error"`, OMDb's
# `"Response": "False"`, UniFi's `"rc": "error"`), and the values that say so.
_FLAGS = ("Response", "response", "result", "Result", "status", "Status", "rc", "success", "stat")
# (`not_ok`: Kotak Neo's `"stat": "Not_Ok"`, the negation of its success value "Ok".)
_FAILED = frozenset(("error", "fail", "failed", "failure", "false", "not_ok", "notok"))
# The status members that only ever hold a status (not `code`, which may be the service's).
_STATUS_ONLY = tuple(name for name in vocab.STATUS_MEMBERS if name not in ("code", "error_code", "errorCode", "error"))
_TAGS = re.compile(r"<[^>]{0,2000}>")
_SCRIPT = re.compile(r"(?is)<(script|style|title)\b.*?</\1\s*>")  # the title leads the prose once, not twice
_SPACE = re.compile(r"\s+")
_TITLE = re.compile(r"(?is)<title[^>]*>(.{0,500}?)</title")
_MAX_TEXT = 4096
_MAX_BARE_TEXT = 512  # a bare text body read without a status: one line of prose


class General(Dialect):
    """Error bodies of any other shape, read by structure and vocabulary (decode only)."""

    name = "general"
    keys = None
    ceiling = FALLBACK
    media_type = "application/json"
    encodes = False
    # Last: every other dialect's claim wins over this one's (its ceiling is below them
    # all too), and it is listed after the rest.
    precedence = 900
    listed = 900

    def non_json(self, body: bytes, http: HttpInfo | None) -> bytes | None:
        """The body itself: text and HTML bodies are read for their prose."""
        return body

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """Any JSON error body inside an error response; a bare one with error members; a
        text body whose prose says more than its status."""
        status = None if http is None else http.status
        if type(value) is dict:
            if status is not None and status >= 400:
                return FALLBACK
            return FALLBACK if _looks_like_an_error(value) else 0.0
        if type(value) is list:
            if not value or len(value) > 1024:
                return 0.0
            if status is not None and status >= 400:
                return FALLBACK
            first = value[0]
            if _as_tuple(value) is not None:
                return FALLBACK  # ["error", 11010, "ratelimit: error"]
            return FALLBACK if type(first) is dict and _looks_like_an_error(first) else 0.0
        if isinstance(value, (bytes, bytearray)):
            if status is not None and status < 400:
                return 0.0
            if status is None and http is None and _html_status(bytes(value)) is not None:
                return FALLBACK  # an error page whose title states its status (nginx's "502 Bad Gateway")
            if status is None and http is None and _html_states_error(bytes(value)):
                return FALLBACK  # a page that says "Error: ..." in words with a move (Overpass's "server is too busy")
            if _xml_error(bytes(value)) is not None:
                return FALLBACK  # an XML error element: <err code="98" msg="..."/>, <error code="10">...</error>
            if status is None and _csv_error(bytes(value)) is not None:
                return FALLBACK  # a CSV error: "code,message" over one row
            if status is None and http is None and _first_line_status(bytes(value)) is not None:
                return FALLBACK  # text whose first line states an error status ("409: Conflict", "status code: 404")
            if status is None and (http is not None or len(value) > _MAX_BARE_TEXT):
                return 0.0  # bare text with no status: only a short error's prose
            if status is None and b"\n" in value.strip():
                # Several lines with no status: a numbered error whose words have a move
                # ("Error 11: Not enough input parameters.", however many lines its markup
                # takes), or a page that tells the caller outright what to do (nginx's
                # "currently unavailable. Please try again later." page).
                try:
                    lines = _prose_of(bytes(value))
                except UnicodeDecodeError:
                    return 0.0
                if _text_code(lines) is not None and _prose_is_an_error(lines):
                    return FALLBACK
                return FALLBACK if vocab.step_stated(vocab.words(lines)) is not None else 0.0
            try:
                text = _prose_of(bytes(value))
            except UnicodeDecodeError:
                return 0.0
            if status is None:
                return FALLBACK if _prose_is_an_error(text) else 0.0
            return FALLBACK if _prose_says(text, status) or _text_code(text) is not None else 0.0
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if isinstance(value, (bytes, bytearray)):
            return _decode_text(bytes(value), reading)
        if type(value) is not dict and type(value) is not list:
            raise DecodeError(f"a general error body is a JSON object or array, got {shorten(value)}")
        return _decode_json(value, reading)


# --------------------------------------------------------------------------- JSON


class _Found:
    """What the walk found, with where (a JSON Pointer) for each fact."""

    __slots__ = ("evidence", "read", "remap")

    def __init__(self) -> None:
        self.evidence: list[tuple[str, str]] = []
        self.read: set[str] = set()  # top-level members read
        self.remap: dict[str, str] | None = None  # pointers of a body read under other names

    def took(self, fact: str, pointer: str) -> None:
        if self.remap is not None:
            pointer = self.remap.get(pointer, pointer)
        self.evidence.append((fact, pointer))
        if pointer[:1] == "/":
            self.read.add(pointer.split("/", 2)[1])


def _objects(value: Any) -> list[tuple[str, dict[str, Any]]]:
    """The objects to look in, nearest first: the body, then what nests in its
    containers (`error`, the first of `errors`, `data`, `parameters`...), breadth first."""
    out: list[tuple[str, dict[str, Any]]] = []
    queue: list[tuple[str, Any, int]] = [("", value, 0)]
    while queue and len(out) < _MAX_OBJECTS:
        pointer, node, depth = queue.pop(0)
        if type(node) is list:
            for i, item in enumerate(node[:2]):
                if type(item) is dict:
                    queue.append((f"{pointer}/{i}", item, depth + 1))
            continue
        if type(node) is not dict:
            continue
        out.append((pointer, node))
        if depth >= _MAX_DEPTH:
            continue
        for name in vocab.CONTAINERS:
            child = node.get(name)
            if type(child) is str:
                child = _embedded(child)  # another service's error body as a string (a proxy's)
            if type(child) is dict or (type(child) is list and child):
                queue.append((f"{pointer}/{_escape(name)}", child, depth + 1))
        # The only member being an object ({"detail": {...}}) is a container too, and so is
        # the only member being a list of objects (Icinga 2's {"results": [{"code": 500,
        # "errors": [...]}]}).
        if len(node) == 1:
            (name, child), = node.items()
            if (type(child) is dict or (type(child) is list and child and type(child[0]) is dict)) and name not in vocab.CONTAINERS:
                queue.append((f"{pointer}/{_escape(name)}", child, depth + 1))
    return out


_EMBEDDED_MAX = 4096


def _embedded(text: str) -> dict[str, Any] | None:
    """A JSON object written as a string, as a proxy passes on another service's error
    (Synapse's {"errcode": "M_UNKNOWN", "error": "{\\"errcode\\": \\"M_LIMIT_EXCEEDED\\", ...}"}),
    or None."""
    text = text.strip()
    if not (text[:1] == "{" and text[-1:] == "}" and len(text) <= _EMBEDDED_MAX):
        return None
    try:
        value = msgspec.json.decode(text)
    except (msgspec.DecodeError, ValueError, RecursionError):
        return None
    return value if type(value) is dict else None


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _names_a_resource(obj: dict[str, Any]) -> bool:
    """Whether an object is a reference to a record (`{"type": "Entry", "id": "1zqu..."}`,
    JSON:API's resource identifiers, Contentful's links): an `id` that is a number or holds
    a digit is a record's, so the `type` beside it is the record's kind."""
    ident = obj.get("id")
    return type(ident) is int or (type(ident) is str and any(c.isdigit() for c in ident))


def _valid_status(value: Any) -> int | None:
    """An error status (400 to 599), as an integer or three digits; Zoom's `"code": 124`
    is no HTTP status but the service's code."""
    if type(value) is str and len(value) == 3 and value.isdigit() and value.isascii():
        value = int(value)
    elif type(value) is float and value.is_integer():
        value = int(value)  # a status written as a JSON double (Icinga 2's "code": 500.0); never NaN or inf
    if type(value) is int and 400 <= value <= 599:
        return value
    return None


def _token(value: Any) -> str | None:
    """A code as a string: a token without spaces, or an integer (`-1021`, `505`)."""
    if type(value) is int:
        return str(value)
    if type(value) is str and _TOKEN.fullmatch(value) and value.lower() not in _GENERIC_CODES:
        return value
    return None


def _first(objects: list[tuple[str, dict[str, Any]]], names: tuple[str, ...], accept: Any) -> tuple[Any, str] | None:
    for name in names:
        for pointer, obj in objects:
            if name in obj:
                got = accept(obj[name], name)
                if got is not None:
                    return got, f"{pointer}/{_escape(name)}"
    return None


def _as_tuple(value: list[Any]) -> dict[str, Any] | None:
    """A top-level array `["error", code, message]` (Bitfinex's) as the object it stands
    for, or None."""
    if 2 <= len(value) <= 4 and type(value[0]) is str and value[0].lower() in ("error", "err"):
        code = value[1]
        if code is None or type(code) is int or (type(code) is str and _TOKEN.fullmatch(code)):
            out: dict[str, Any] = {} if code is None else {"code": code}
            if len(value) > 2 and type(value[2]) is str:
                out["message"] = value[2]
            return out
    return None


def _decode_json(value: dict[str, Any] | list[Any], reading: Reading) -> Fault:
    found = _Found()
    if type(value) is list and (as_object := _as_tuple(value)) is not None:
        value = as_object
        found.remap = {"/code": "/1", "/message": "/2"}
    objects = _objects(value)
    wire_status = reading.status
    if reading.seen is not None:
        reading.saw("body", "", "general")

    # The status: a member that holds one; a `code` that mirrors the wire's status is that
    # status, not a code of the service's.
    body_status: int | None = None
    status_at = ""
    mirrors: set[str] = set()
    for name in vocab.STATUS_MEMBERS:
        for pointer, obj in objects:
            raw = obj.get(name, None)
            if raw is None:
                continue
            status = _valid_status(raw)
            if status is None:
                continue
            at = f"{pointer}/{_escape(name)}"
            if name in ("code", "error_code", "errorCode", "error") and wire_status is not None and status != wire_status:
                continue  # an integer code beside another status is the service's code (Postmark's 505 at 422)
            if body_status is None:
                body_status, status_at = status, at
            if status == body_status:
                mirrors.add(at)
        if body_status is not None and name in ("status", "statusCode", "status_code"):
            break

    # The code: the first token under a code name, not the status's mirror.
    code: str | None = None
    code_at = ""
    candidates: list[tuple[str, str]] = []
    for name in vocab.CODE_MEMBERS:
        for pointer, obj in objects:
            if name not in obj:
                continue
            at = f"{pointer}/{_escape(name)}"
            if at in mirrors:
                continue
            raw = obj[name]
            if name in ("type", "kind", "Type") and _names_a_resource(obj):
                continue  # {"type": "Entry", "id": "1zqu..."}: a reference to a record, not an error
            if name == "error_summary" and type(raw) is str:
                raw = raw.rstrip("/.") or raw  # Dropbox's "too_many_write_operations/.": the path's end marks
            if name == "Type" and type(raw) is not int and (type(raw) is not str or not _UPPER_CODE.fullmatch(raw)):
                continue  # CryptoCompare's numbered Type; a capitalised type word is a record's kind
            if name == "id" and type(raw) is str and _I18N_KEY.fullmatch(raw) and _names_an_error_key(raw):
                pass  # a message key naming an error (Mattermost's "api.context.permissions.app_error")
            elif name == "type" and type(raw) is int and pointer.endswith("/error"):
                pass  # an error object's numbered type is its code (Philips Hue's {"error": {"type": 1, ...}})
            elif name == "key" and (type(raw) is not str or not _names_an_error(raw)):
                continue  # a key is a code only when it names an error (Pi-hole's "rate_limiting"); else a field's
            elif name in ("type", "name", "kind", "id") and (type(raw) is not str or "://" in raw or (name == "id" and (_ID_LIKE.match(raw) or not raw.replace("_", "").isalpha()))):
                continue
            if name in ("error_id", "errorId") and type(raw) is str and _ID_LIKE.match(raw):
                continue  # an incident's id (Zenodo's 32 hex digits), not a code
            if name == "name" and type(raw) is str and not _ERROR_CLASS.search(raw) and not (_TOKEN.fullmatch(raw) and "_" in raw and vocab.meaning_of(vocab.words(raw)) is not None):
                continue  # a field's or a resource's name, unless it names an error class (or a known error: Mandrill's Invalid_Key)
            if name == "label" and (type(raw) is not str or not _UPPER_CODE.fullmatch(raw)):
                continue  # a label is a code only as one (Gate.io's INVALID_KEY)
            if name in _RETURN_CODES and raw in (0, "0"):
                continue  # a return code of 0 is success
            if name in _RESULT_CODES and _success_code(raw):
                continue  # Naver's "00"
            if name in ("code", "Code") and raw in (-1, "-1") and type(obj.get("name")) is str and _TOKEN.fullmatch(obj["name"]):
                continue  # a -1 beside a named error is only a failure flag (Mandrill's code -1, name Invalid_Key)
            if pointer and name in ("code", "Code") and _valid_status(raw) is not None and not obj.keys().isdisjoint(_NESTED_STATUS):
                continue  # a nested code beside an HTTP status member is that call's status (ViCare's extendedPayload)
            token = _token(raw)
            if token is None:
                continue
            if type(raw) is int and name in ("id",):
                continue
            candidates.append((token, at))
    # A status member that holds no status is the service's code (`"statusCode": "23505"`,
    # `"status": "quota_exceeded"`).
    for name in ("status", "statusCode", "status_code"):
        for pointer, obj in objects:
            raw = obj.get(name)
            # ("0" and "1" are a success flag: Etherscan's "status": "0" beside "NOTOK".)
            if raw is not None and _valid_status(raw) is None and type(raw) is str and raw.lower() not in ("error", "fail", "failed", "failure", "ko", "nok", "notok", "0", "1"):
                token = _token(raw)
                if token is not None:
                    candidates.append((token, f"{pointer}/{_escape(name)}"))
            elif name in ("status_code", "statusCode") and type(raw) is int and _valid_status(raw) is None and raw not in (0, 200):
                candidates.append((str(raw), f"{pointer}/{_escape(name)}"))  # TMDB's "status_code": 25, SwitchBot's "statusCode": 190
    for pointer, obj in objects:
        # A value that names itself an error, under any name (2captcha's "request": "ERROR_ZERO_BALANCE").
        if not pointer:
            for name, raw in obj.items():
                if type(raw) is str and _ERROR_TOKEN.fullmatch(raw) and name not in vocab.CODE_MEMBERS:
                    candidates.append((raw, f"/{_escape(name)}"))
                    break
    for pointer, obj in objects:
        # GeoNames' {"status": {"message": ..., "value": 18}}: the number beside the message
        # of a status object is the service's code.
        if pointer.endswith("/status") and type(obj.get("value")) is int and type(obj.get("message")) is str:
            candidates.append((str(obj["value"]), f"{pointer}/value"))
        for name in ("error", "errors"):
            raw = obj.get(name)
            if type(raw) is list and raw and type(raw[0]) is str and _PREFIXED_CODE.fullmatch(raw[0]):
                candidates.append((raw[0], f"{pointer}/{name}/0"))
    # A message that is itself a message key naming an error (UniFi's "msg": "api.err.Invalid"):
    # the key is the code. And a body whose one member wraps the error under its name
    # (OpenStack's {"itemNotFound": {"message": ..., "code": 404}}): the name is the code.
    for pointer, obj in objects[:4]:
        for name in ("msg", "message", "error"):
            raw = obj.get(name)
            if type(raw) is str and _I18N_KEY.fullmatch(raw) and _names_an_error_key(raw):
                candidates.append((raw, f"{pointer}/{_escape(name)}"))
    if type(value) is dict and len(value) == 1:
        (wrapper, inner), = value.items()
        if type(inner) is dict and wrapper not in vocab.CONTAINERS and _TOKEN.fullmatch(wrapper) and not inner.keys().isdisjoint(_MESSAGE_NAMES) and vocab.meaning_of(vocab.words(wrapper)) is not None:
            candidates.append((wrapper, "the member name /" + _escape(wrapper)))
    if len(candidates) > 1:
        # A code inside an entry that names a field is that field's reason (Scaleway's
        # details[].reason "required" under type "invalid_arguments"): the response's own
        # code, outside such entries, comes first.
        entries = {p for p, o in objects if p[-1:].isdigit() and not o.keys().isdisjoint(_ENTRY_PARAMS_NAMED)}
        candidates.sort(key=lambda c: any(c[1].startswith(e + "/") for e in entries))
    if candidates:
        code, code_at = candidates[0]
        found.took("code", code_at)

    # The message.
    message: str | None = None
    message_at = ""
    token_only: tuple[str, str] | None = None
    for name in (*vocab.MESSAGE_MEMBERS, "error", "Error", "err", "errors", "errorMessages", "error_messages", "result", "status"):
        for pointer, obj in objects:
            raw = obj.get(name)
            if type(raw) is list and raw and type(raw[0]) is str:
                raw, at = raw[0], f"{pointer}/{_escape(name)}/0"
            else:
                at = f"{pointer}/{_escape(name)}"
            if type(raw) is str and raw.strip() and (name != "error" or _token(raw) is None or " " in raw) and _embedded(raw) is None:
                if name in ("result", "status") and " " not in raw.strip():
                    continue  # a `result` or a `status` is a message only as prose (Etherscan's, QuestDB's), never a value
                if (" " not in raw.strip() and raw.strip().upper() == raw.strip()) or vocab.is_generic(raw):
                    # A shout with no words ("NOTOK", "ERROR") or a reason phrase ("Bad
                    # Request") says nothing the status does not: prose under another name
                    # (Etherscan's `result`, Reddit's `explanation`) is the message, if any.
                    token_only = token_only or (raw, at)
                    continue
                message, message_at = raw, at
                break
        if message is not None:
            break
    if message is None and token_only is not None:
        message, message_at = token_only
    if message is not None:
        found.took("detail", message_at)
        if reading.seen is not None:
            reading.saw("text", message_at, message)

    if body_status is None and message is not None and wire_status is None:
        prose_status = vocab.status_in_prose(message)
        if prose_status is not None:
            body_status, status_at = prose_status, f"prose {message_at}"
    if body_status is None and wire_status is None:
        # A status stated inside prose as a key and its value, in any member ("statusText":
        # "Responding with error, status code: 406 (Not Acceptable).", TeamCity's).
        for pointer, obj in objects[:8]:
            for name, raw in obj.items():
                if type(raw) is str and (said_status := vocab.status_stated(raw)) is not None:
                    body_status, status_at = said_status, f"prose {pointer}/{_escape(name)}"
                    break
            if body_status is not None:
                break

    # Violations and the parameter.
    violations, param, param_at = _violations(value, objects, reading)
    if param is None:
        got = _first(objects, vocab.PARAM_MEMBERS, _param_value)
        if got is not None:
            param, param_at = got
    if param is None and message is not None:
        named = prose_param(message)
        if named is not None:
            param, param_at = named, f"prose {message_at}"
    if param is None and type(value) is dict:
        # A member named for a field whose whole value is a verdict on it (Pushover's
        # {"user": "invalid", "errors": [...]}): that field is the one at fault.
        for name, raw in value.items():
            if type(raw) is str and raw.lower() in _FIELD_VERDICTS and _FIELD_NAME.fullmatch(name) and name not in _KNOWN_MEMBERS:
                param, param_at = name, f"/{_escape(name)}"
                break
    if param is not None:
        found.took("param", param_at)
    if violations and param_at[:1] == "/":
        found.read.add(param_at.split("/")[1])

    # A request clock's words name the argument to re-sign ("Invalid nonce", Binance's
    # "Timestamp for this request was 1000ms ahead of the server's time").
    if param is None and message is not None:
        clock = _CLOCK_PARAM.search(message[:512])
        if clock is not None and (m := vocab.meaning_of(vocab.words(message))) is not None and m.name == "request clock":
            param, param_at = clock.group(1).lower() if clock.group(1) != "recvWindow" else "recvWindow", f"prose {message_at}"
            found.took("param", param_at)

    # A stated next step.
    stated: NextStep | None = None
    for name in vocab.STEP_MEMBERS:
        got = _first(objects, (name,), lambda v, n: STEP_ALIASES.get(v) if type(v) is str else None)
        if got is not None:
            stated = got[0]
            found.took("next_step", got[1])
            break
    retryable = _first(objects, vocab.RETRYABLE_MEMBERS, lambda v, n: v if type(v) is bool else None)
    if stated is None and retryable is not None:
        if retryable[0]:
            stated = _WAIT
            found.took("next_step", retryable[1])
        else:
            reading.no_retry = f"{retryable[1].lstrip('/')}: false"
            found.took("next_step", retryable[1])

    # The delay in a member.
    delay: int | None = None
    delay_at = ""
    for name, unit in vocab.DELAY_MEMBERS:
        for pointer, obj in objects:
            if name in obj:
                seconds = _delay_value(obj[name], unit, reading)
                if seconds is not None:
                    delay, delay_at = seconds, f"{pointer}/{_escape(name)}"
                    break
        if delay is not None:
            break

    # What the code means.
    fields: dict[str, Any] = {}
    meaning, meaning_from = _meaning(candidates, message)
    prose_text = vocab.words(message) if message is not None else ""

    # The status: the wire's, else the body's, else the code's (inferred), else 500.
    status = reading.http_status_wins(body_status)
    if status is not None:
        if wire_status is None:
            found.took("status", status_at)
        else:
            found.evidence.append(("status", "the HTTP status line" if reading.dialect == "http" else "the status given with the body"))
            if body_status is not None:
                found.read.add(status_at.split("/")[1] if status_at.count("/") else "")
    else:
        reading.inferred += ("status",)
        if meaning is not None:
            status = meaning.status
            found.evidence.append(("status", f"inferred from {meaning_from}"))
        elif violations:
            # Field violations and nothing else: the request is to mend, whatever status
            # carried it (LINE's "The request body has 2 error(s)" with its details).
            status = 400
            found.evidence.append(("status", f"inferred from field violations at {param_at}"))
        else:
            status = 500
            reading.notes += ("no status in the general body; 500 assumed",)
            found.evidence.append(("status", "assumed: nothing states one"))
    fields["status"] = status
    fields["grpc_code"] = grpc_code_of(status, reading)
    if code is not None:
        fields["code"] = code
    if message is not None:
        fields["detail"] = message
    if param is not None:
        fields["param"] = param
    if violations:
        fields["violations"] = violations
    return _settle(fields, reading, found, stated, meaning, meaning_from, delay, delay_at, message, prose_text, value)


_CLOCK_PARAM = re.compile(r"(?i)\b(nonce|timestamp|recvWindow)\b")


def _meaning(candidates: list[tuple[str, str]], message: str | None) -> tuple[vocab.Meaning | None, str]:
    """What the first code the vocabulary knows means, and which code it was; else what
    the message's words mean (weaker: `message` in the name)."""
    generic: tuple[vocab.Meaning, str] | None = None
    for token, at in candidates:
        meaning = vocab.meaning_of(vocab.words(token))
        if meaning is not None:
            if vocab.is_generic(token):
                generic = generic or (meaning, f"code {token!r} at {at} ({meaning.name}), a status class only")
                continue
            if meaning.step is None or meaning.name == "invalid request":
                # A code that names only a family (Heroku's invalid_params over "you've
                # reached your app limit", the Graph API's OAuthException over "Session has
                # expired"): the first such code stands for the class, and a message that
                # says more outranks it, as it outranks a status class.
                generic = generic or (meaning, f"code {token!r} at {at} ({meaning.name}), a family only")
                continue
            return meaning, f"code {token!r} at {at} ({meaning.name})"
    if message is not None and generic is not None and not vocab.is_generic(message):
        # A code that names only a status class yields to a message that says more; not to
        # the catch-all "invalid request" words, which say no more than it does, nor to a
        # message that is a reason phrase ("Forbidden" beside INVALID_CSS).
        meaning = vocab.meaning_of(vocab.words(message))
        if meaning is not None and meaning.name != "invalid request":
            return meaning, f"message words ({meaning.name}), over {generic[1]}"
    if generic is not None:
        return generic
    if message is not None:
        meaning = vocab.meaning_of(vocab.words(message))
        if meaning is not None:
            return meaning, f"message words ({meaning.name})"
    return None, ""


# The meanings of a refused credential: no wait lets the same one through.
_CREDENTIALS = frozenset(("unauthorized", "expired credentials"))


def _settle(
    fields: dict[str, Any],
    reading: Reading,
    found: _Found,
    stated: NextStep | None,
    meaning: vocab.Meaning | None,
    meaning_from: str,
    delay: int | None,
    delay_at: str,
    prose: str | None,
    prose_words: str,
    value: Any,
) -> Fault:
    """The next step and the delay, by the precedence of evidence; then the Fault."""
    by_code: tuple[NextStep, str] | None = None
    step: NextStep | None = None
    from_message = meaning_from.startswith("message")
    if meaning is not None:
        step = meaning.step
        if meaning.name == "rate limit":
            # A rate limit per day or month is a quota in all but name: no wait within the cap ends it.
            text = " ".join((vocab.words(fields.get("code") or ""), prose_words))
            period = vocab.period_of(text)
            if period is not None and (period[0] == "long" or (period[0] == "plan" and vocab.names_long_period(text))):
                step = _GIVE_UP
                meaning_from += ", a long period"
        elif meaning.name == "invalid request" and not meaning_from.startswith("code") and fields["status"] in (401, 403, 404, 410) and "status" not in reading.inferred and not fields.get("param"):
            # The catch-all words of a message ("Invalid Merchant Account" at 403) say what was
            # refused, not that the request can be mended: the status decides.
            step = None
        elif meaning.name == "quota":
            period = vocab.period_of(" ".join((vocab.words(fields.get("code") or ""), prose_words)))
            if period is not None:
                step = period[1]
                meaning_from += f", a {period[0]} period"
            elif fields["status"] == 429 and "status" not in reading.inferred:
                step = None  # a quota of no stated period sent as 429: the status and the wire decide
            else:
                # A quota of no stated period, not sent as a rate limit: an allowance spent
                # (ElevenLabs' characters), which the clock does not give back.
                step = _GIVE_UP
                meaning_from += ", no period named"
    status = fields["status"]
    if (
        from_message
        and ", over code" not in meaning_from
        and step is not None
        and 400 <= status < 500
        and "status" not in reading.inferred
        and not fields.get("param")  # a message that names the field at fault is no stray word
        and not vocab.is_strong(prose_words)
    ):
        # One stray word of a message ("upstream said hi" at 400) does not move a stated
        # 4xx off its own move: only a phrase that names the meaning does (issue 27).
        reading.notes += (f"{meaning_from} is one word, too weak to move HTTP {status}; the status decides",)
        step = None
    instructed = vocab.step_stated(prose_words) if stated is None and prose_words else None
    if instructed is not None and instructed[0] is _WAIT and meaning is not None and meaning.name in _CREDENTIALS:
        # "Invalid login, please try again" (Moodle's) asks a person to type the password
        # again: the same call with the same credentials fails again.
        reading.notes += (f"the prose's {instructed[1]!r} follows a refused credential: a person's retry, not the same call",)
        instructed = None
    if instructed is not None and step is not instructed[0]:
        # An instruction in the prose ("please try again later", "retrying will not help")
        # outranks a code's words and the wire: it says what to do, not what went wrong.
        # (Where the words already say the same, they keep their account.)
        if step is not None:
            reading.notes += (f"{meaning_from} says {step}; the prose's {instructed[1]!r} says {instructed[0]} and wins",)
        step, meaning_from, from_message = instructed[0], f"prose {instructed[1]!r}", False
    if stated is not None:
        if step is not None and step != stated:
            reading.notes += (f"{meaning_from} says {step}; the stated {stated} wins",)
    elif step is not None and (not from_message or reading.wait is None):
        by_code = (step, meaning_from)
        if reading.wait is not None and step is not _WAIT:
            reading.notes += (f"{reading.wait} says wait; {meaning_from} says {step} and wins",)
    elif step is not None and from_message and reading.wait is not None and step is not _WAIT:
        reading.notes += (f"{meaning_from} says {step}; {reading.wait} says wait and wins",)

    # The delay: a member, else the headers (the core's, or a reset header of another
    # spelling), else the prose.
    if delay is not None:
        if reading.delay is not None and reading.delay != delay:
            reading.notes += (f"{reading.wait} gives {reading.delay} s; the body's {delay_at} gives {delay} s and wins",)
        fields["retry_after_seconds"] = delay
        found.took("retry_after_seconds", delay_at)
    elif reading.delay is None:
        if prose is not None:
            said = prose_delay(prose)
            if said is not None:
                fields["retry_after_seconds"] = said[0]
                found.evidence.append(("retry_after_seconds", f"prose {said[1]!r}"))
    else:
        found.evidence.append(("retry_after_seconds", f"header {reading.wait}"))

    # A delay beside a move that is no wait is dropped, and noted.
    final = stated or (by_code[0] if by_code is not None else None)
    if final is not None and final is not _WAIT and fields.get("retry_after_seconds") is not None:
        reading.notes += (f"a delay of {fields.pop('retry_after_seconds')} s dropped: the move is {final}",)
        found.evidence = [e for e in found.evidence if e[0] != "retry_after_seconds"]
    if type(value) is dict:
        extensions = extensions_of(value, found.read, reading)
        if extensions is not None:
            # A member under a name some dialect writes itself (`message`, `details`, `code`)
            # that held nothing this reader could use: kept, it would clash with that
            # dialect's own member on the way out. Dropped, and noted, unless empty.
            from . import reserved_names

            clash = extensions.keys() & reserved_names().keys()
            for name in sorted(clash):
                if extensions[name] not in ("", [], {}, None):
                    reading.notes += (f"member {name!r} ({shorten(extensions[name], 40)}) not kept: no fact in it, and its name is a dialect's own",)
                del extensions[name]
            if extensions:
                fields["extensions"] = extensions
    # (A wait from the code under `retryable: false`: finish makes it give_up, and says why.)
    return _with_evidence(reading.finish(fields, stated, by_code=by_code), found)


def _with_evidence(fault: Fault, found: _Found) -> Fault:
    """`fault` with the evidence of each fact in its origin; the next step's is the
    origin's own account when nothing in the body stated it."""
    evidence = list(found.evidence)
    origin = fault.origin
    if origin is None:
        return fault
    if not any(fact == "next_step" for fact, _ in evidence):
        evidence.append(("next_step", origin.next_step))
    if fault.retry_after_seconds is None:
        evidence = [e for e in evidence if e[0] != "retry_after_seconds"]
    order = {"status": 0, "code": 1, "next_step": 2, "retry_after_seconds": 3, "param": 4, "detail": 5}
    evidence.sort(key=lambda e: order.get(e[0], 9))
    # The basis of each fact, from its evidence (the ending's own for a next step the body
    # did not state: it knows the ladder of an assumed status from an inference).
    bases = dict(origin.bases)
    for fact, source in evidence:
        if fact in ("status", "code", "retry_after_seconds") or (fact == "next_step" and source[:1] == "/"):
            bases[fact] = _basis(source)
    return msgspec.structs.replace(
        fault, origin=msgspec.structs.replace(origin, evidence=tuple(evidence), bases=tuple(bases.items()))
    )


def _basis(source: str) -> Basis:
    """The basis an evidence source gives: a pointer, a header, the status line or the
    prose stated it; `inferred from ...`; `assumed: ...`."""
    if source.startswith("inferred from "):
        return Basis(kind="inferred", source=source[len("inferred from ") :])
    if source.startswith("assumed"):
        return Basis(kind="assumed")
    if source.startswith("header "):
        return Basis(kind="stated", source=source[len("header ") :])
    return Basis(kind="stated", source=source)


# A value that only judges the field it is under ("user": "invalid").
_FIELD_VERDICTS = frozenset(("invalid", "missing", "required", "not valid", "is invalid", "is required", "is missing"))
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# Members whose names say something of the error itself, never a field of the request.
_KNOWN_MEMBERS = frozenset(
    (*vocab.STATUS_MEMBERS, *vocab.CODE_MEMBERS, *vocab.MESSAGE_MEMBERS, *vocab.PARAM_MEMBERS, *vocab.CONTAINERS, *vocab.LIST_MEMBERS,
     *vocab.STEP_MEMBERS, *_FLAGS, "result", "request", "state", "errors")
)  # fmt: skip


def _names_an_error(value: str) -> bool:
    """Whether a token names an error rather than a field: its words have a meaning
    ("rate_limiting", "unauthorized") or are a status's reason ("bad_request")."""
    return _TOKEN.fullmatch(value) is not None and (vocab.meaning_of(vocab.words(value)) is not None or vocab.is_generic(value))


def _param_value(value: Any, name: str) -> str | None:
    if name == "key" and type(value) is str and _names_an_error(value):
        return None  # Pi-hole's {"error": {"key": "bad_request", ...}}: the error's key, read as its code
    if type(value) is str and value and len(value) <= 256 and " " not in value.strip():
        if name == "pointer" or value.startswith(("/", "#/")):
            if name in ("path", "location") and not value.startswith("#"):
                return None  # a URL path, not a field
            field = pointer_to_field(value if value.startswith("#") else "#" + value)
            return field or None
        if name in ("path", "location", "source") and ("/" in value or value.startswith("http")):
            return None
        return value
    if name in ("fields", "missing") and type(value) is list and value and type(value[0]) is str:
        return _param_value(value[0], "field")
    if type(value) is list and value and len(value) <= _MAX_PATH_PARTS and all(type(p) is str or type(p) is int for p in value):
        parts = [str(p) for p in value if p not in ("body", "query", "path", "header")]
        return ".".join(parts) or None
    if type(value) is dict and name == "source":
        for inner in ("pointer", "parameter", "field"):
            got = _param_value(value.get(inner), inner)
            if got is not None:
                return got
    return None


def _messages_of(value: Any) -> list[str] | None:
    """A field's messages: a string, a list of them, or a list of objects that each say
    what is wrong (Zendesk's `{"description": ..., "error": ...}`)."""
    if type(value) is str:
        return [value]
    if type(value) is list and value and all(type(m) is str for m in value):
        return value
    if type(value) is list and value and all(type(m) is dict for m in value):
        texts = [next((m[k] for k in ("description", "message", "msg", "detail") if type(m.get(k)) is str), "") for m in value]
        return texts if any(texts) else None
    return None


_ENTRY_PARAMS = frozenset(vocab.ENTRY_PARAM_MEMBERS)
# A field's path as a list of its parts (FastAPI's `loc`) is short; a list longer than
# this is data, not a path (a body of 500,000 "a" cost 10x json.loads to join and refuse).
_MAX_PATH_PARTS = 64


def _violations(
    value: Any, objects: list[tuple[str, dict[str, Any]]], reading: Reading
) -> tuple[tuple[Violation, ...], str | None, str]:
    """Field violations: a list of error objects that name fields, or a map keyed by
    field (`{"errors": {"name": ["has already been taken"]}}`); the first field named,
    and where."""
    limit = reading.limits.max_violations
    # A top-level array of errors (Salesforce's) is such a list itself.
    every = (*vocab.LIST_MEMBERS, "message", "error")
    places: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [("", {"": value}, ("",))] if type(value) is list else []
    for pointer, obj in objects:
        # JSend: a failure's `data` maps each field to what is wrong with it.
        places.append((pointer, obj, (*every, "data") if obj.get("status") == "fail" else every))
    for pointer, obj, names in places:
        for name in names:
            raw = obj.get(name)
            at = f"{pointer}/{_escape(name)}" if name else ""
            if type(raw) is list and raw and all(type(e) is dict for e in raw):
                out: list[Violation] = []
                first: tuple[str, str] | None = None
                for i, entry in enumerate(raw):
                    if entry.keys().isdisjoint(_ENTRY_PARAMS):
                        continue  # names no field: passed over without building its pointer (a list of 300,000 `{}` is cheap)
                    got = _first([(f"{at}/{i}", entry)], vocab.ENTRY_PARAM_MEMBERS, _param_value)
                    if got is None:
                        continue
                    if "attemptedValue" in entry and got[1].endswith("/propertyName"):
                        # FluentValidation's failure ({"propertyName": "Path", "attemptedValue": ...})
                        # names the .NET property; the request's JSON field is its camelCase ("path").
                        got = ".".join(part[:1].lower() + part[1:] for part in got[0].split(".")), got[1]
                    if len(out) >= limit:
                        raise DecodeError(f"more than {limit} violations (Limits.max_violations)")
                    text = next((entry[m] for m in ("message", "msg", "description", "detail") if type(entry.get(m)) is str), "")
                    reason = next((entry[m] for m in ("code", "reason", "type", "error", "issue") if type(entry.get(m)) is str), None)
                    out.append(Violation(field=got[0], description=text, reason=reason))
                    if first is None:
                        first = got
                if out and first is not None:
                    return tuple(out), first[0], first[1]
            elif type(raw) is dict and raw and name != "error" and not _names_a_resource(raw) and raw.keys().isdisjoint(vocab.PARAM_MEMBERS):
                # (A map with a member naming the field, Zoho's {"api_name": "Destination",
                # "expected_data_type": ...}, describes one violation: not fields to messages.)
                messages = [(k, _messages_of(v)) for k, v in raw.items()]
                if all(m is not None for _, m in messages) and all(_field_like(k) for k, _ in messages):
                    if len(messages) > limit:
                        raise DecodeError(f"{len(messages)} violations, over the limit of {limit} (Limits.max_violations)")
                    out = [Violation(field=k, description=d) for k, ms in messages for d in (ms or [""])[:1]]
                    # The first field that is the request's own (a dotted one names a nested model's).
                    chosen = next((k for k, _ in messages if "." not in k), messages[0][0])
                    return tuple(out[:limit]), chosen, f"{at}/{_escape(chosen)}"
    return (), None, ""


def _field_like(name: str) -> bool:
    # (Rackspace's {"validationErrors": {"messages": [...]}}: a list of messages under a name
    # of the lists' own, no field.)
    return 0 < len(name) <= 128 and " " not in name and name not in _NOT_FIELDS


_NOT_FIELDS = frozenset((*vocab.LIST_MEMBERS, "error", "errors", "message", "messages"))


def _delay_value(raw: Any, unit: float, reading: Reading) -> int | None:
    if type(raw) is bool:
        return None
    if type(raw) is str:
        text = raw.strip()
        if _NUMERIC.fullmatch(text):
            raw = float(text)
        else:
            said = prose_delay("retry in " + text) if len(text) <= 32 else None
            if said is not None:
                return said[0]
            current = _clock(reading)
            when = parse_timestamp(text, current)
            return None if when is None else whole(when - current)
    if type(raw) is int or type(raw) is float:
        seconds = float(raw) * unit
        if seconds >= 1e9:
            epoch = read_retry_after(str(int(seconds)), lambda: _clock(reading))  # an epoch, not a delay
            return None if epoch is None else epoch[0]
        if seconds < 0:
            return None
        return whole(seconds)
    return None


def _clock(reading: Reading) -> float:
    """The response's Date when it has one, else the reading's clock."""
    headers = reading.headers
    if headers is not None:
        date = headers.get("date")
        if date is not None:
            at = parse_http_date(date)
            if at is not None:
                return at
    now = reading.now
    if callable(now):
        return float(now())
    if now is not None:
        return float(now)
    import time

    return time.time()


# A parameter named in prose: in backticks or quotes beside a word that makes it a field
# ("Error in `inputs.context`: field required", "The 'TemplateId' associated with this
# request is not valid"), after "missing field" (serde), or leading a serde message
# ("inputs: invalid type: map, expected a string").
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*"
_PROSE_PARAMS = (
    re.compile(r"(?i)\b(?:in|field|parameter|param|property|argument|attribute|key)\s+`(" + _IDENT + r")`"),
    re.compile(r"(?i)`(" + _IDENT + r")`(?::| (?:is|are|must|should|field|parameter|param)\b)"),
    re.compile(r"(?i)\b(?:missing|unknown|invalid|required|duplicate)(?: required| mandatory)? (?:field|parameter|param|property|argument|attribute|key)s?:? [`'\"]?(" + _IDENT + r")"),
    re.compile(r"(?i)\b(?:field|parameter|param|property|argument|attribute),? [`'\"](" + _IDENT + r")[`'\"]"),
    re.compile(r"(?i)[`'\"](" + _IDENT + r")[`'\"] (?:associated|is (?:required|missing|invalid|not valid)|must|field|parameter|param|property|should)\b"),
    re.compile(r"(?:^|: )(" + _IDENT + r"): (?:invalid (?:type|value|length)|missing field|unknown variant|expected)\b"),
    # class-validator's messages (NestJS: "id must be a UUID", "name should not be empty"),
    # the field first and alone.
    re.compile(r"^([a-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*) (?:must|should) (?:be|not|contain|have|match|only)\b"),
    # A header the message names ("Shared secret is required in x-api-key header.", Etsy's 403);
    # an X- header by its full name first ("get its X-Transmission-Session-Id header", after
    # "an invalid session-id header", which only describes it), a quoted one ("'Accept' header").
    re.compile(r"\b(?:in|the|missing|invalid|its|your|an?|updated|correct) ([Xx]-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*) header\b"),
    re.compile(r"[`'\"]([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)[`'\"] header\b"),
    re.compile(r"\b(?:in|the|missing|invalid) ([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+) header\b"),
    # "Please add a username to each call" (GeoNames): what the request must carry.
    re.compile(r"(?i)\b(?:add|provide|specify|include|supply|pass) (?:a |an |the |your )?(" + _IDENT + r") (?:parameter|param|field|argument|to (?:each|every|the|your|this) (?:call|request)s?)\b"),
    # "limit param out of bounds (1-1000)" (Last.fm's): a bare name before the word param.
    re.compile(r"^([a-z_][A-Za-z0-9_]*) (?:param|parameter) (?:is |was )?(?:out of (?:bounds|range)|invalid|missing|required|not valid)\b"),
    # "Please specify a value for 'label'." (Matomo's): the field a value is asked for.
    re.compile(r"(?i)\b(?:specify|provide|supply|give|set) (?:a |an )?(?:valid )?value for [`'\"](" + _IDENT + r")[`'\"]"),
    # "content-type: must be multipart/form-data" (Stability's): a name, hyphens too, leading a rule.
    re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*): (?:must|should|is required|is invalid|cannot|can ?not)\b"),
    # "Bad Request - Invalid BusinessShortCode" (M-Pesa's): a CamelCase name the message ends on.
    re.compile(r"\b[Ii]nvalid ([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)\s*\.?\s*$"),
    # "invalid institution_id provided" (Plaid's): a snake_case name, a field's by its form.
    re.compile(r"(?i)\b(?:invalid|missing|unknown|unsupported) ([a-z][a-z0-9]*(?:_[a-z0-9]+)+) (?:provided|given|supplied|specified|passed|value)\b"),
    # "Missing home_id" (Netatmo's): a snake_case name after the word for its lack, and last.
    re.compile(r"(?i)\b(?:missing|required|no) ([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*[.!]?\s*$"),
    # "Please verify your key= parameter" (Steam's 401 page): a query parameter by its `name=`.
    re.compile(r"(?i)\b(?:verify|check|correct|fix) (?:the |your )?(" + _IDENT + r")= ?(?:parameter|param|argument)\b"),
)


def prose_param(text: str) -> str | None:
    """The request parameter a message names outright, or None.

    >>> prose_param("Error in `inputs.context`: field required")
    'inputs.context'
    >>> prose_param("The 'TemplateId' associated with this request is not valid or was not found.")
    'TemplateId'
    >>> prose_param("Could not find a field named NON_EXISTING") is None
    True
    >>> prose_param("Unknown model `llama3`") is None  # a value, not a field
    True
    """
    text = text[:1024]
    unquoted = None
    for pattern in _PROSE_PARAMS:
        for m in pattern.finditer(text):
            # A name in quotes is the field, whatever the word ("The property, 'to', ..."), and
            # outranks one without ("Invalid 'key' field: invalid key format" names `key`).
            quoted = m.end(1) < len(text) and text[m.end(1)] in "`'\""
            if quoted:
                if _ONE_OF_SEVERAL_AFTER.match(text, m.end(1) + 1) or _ONE_OF_SEVERAL_BEFORE.search(text, 0, max(0, m.start(1) - 1)):
                    return None  # "Parameter 'latitude' and 'longitude' must ...": several named, none alone at fault
                return m.group(1)
            if unquoted is None and m.group(1).lower() not in _NOT_NAMES:
                unquoted = m.group(1)
    return unquoted


# A quoted name joined to another quoted name ("'latitude' and 'longitude'", "'a', 'b'"):
# the message names several fields, and which one is at fault it does not say.
_ONE_OF_SEVERAL_AFTER = re.compile(r"\s*(?:,|and|or|&)\s*[`'\"]" + _IDENT + r"[`'\"]")
_ONE_OF_SEVERAL_BEFORE = re.compile(r"[`'\"]" + _IDENT + r"[`'\"]\s*(?:,|and|or|&)\s*\Z")


# Words a pattern may catch where a name should be ("unknown field name 'x'").
_NOT_NAMES = frozenset(("name", "named", "names", "value", "values", "type", "in", "for", "with", "of", "the", "a", "an", "is", "was", "and", "or", "to",
                        "this", "it", "that", "there", "which", "you", "request", "body", "input", "data", "payload", "each", "all", "one"))


# --------------------------------------------------------------------------- text and HTML


def _prose_of(body: bytes) -> str:
    text = body[: _MAX_TEXT * 4].decode("utf-8")
    if "<" in text[:200] or "<html" in text[:1000].lower():
        title = _TITLE.search(text)
        body_text = _TAGS.sub(" ", _SCRIPT.sub(" ", text))
        text = (title.group(1) + " " if title else "") + body_text
        text = html.unescape(text)
    return _SPACE.sub(" ", text).strip()[:_MAX_TEXT]


_H1 = re.compile(r"(?is)<h1[^>]*>(.{0,500}?)</h1")


def _html_status(body: bytes) -> int | None:
    """The error status an HTML page states in its title, else its first heading ("502
    Bad Gateway", as nginx, Apache and most proxies write their error pages); None for
    anything else, and for a page whose title and heading disagree."""
    head = body[:_MAX_TEXT * 4].lstrip()[:1024].lower()
    if not (head.startswith((b"<!doctype html", b"<html", b"<head")) or b"<html" in head):
        return None
    try:
        text = body[:_MAX_TEXT * 4].decode("utf-8")
    except UnicodeDecodeError:
        return None
    said = set()
    numbered: list[int | None] = []
    for pattern in (_TITLE, _H1):
        m = pattern.search(text)
        if m is not None:
            heading = _SPACE.sub(" ", html.unescape(_TAGS.sub(" ", m.group(1)))).strip()
            status = vocab.status_in_prose(heading) or _REASON_ONLY.get(vocab.words(heading))
            if status is not None:
                said.add(status)
            number = _NUMBER_LED.match(heading)
            numbered.append(int(number.group(1)) if number is not None else None)
    if not said and len(numbered) == 2 and numbered[0] is not None and numbered[0] == numbered[1]:
        # A status number with the server's own words, in the title and the heading alike
        # (Varnish's "503 Backend fetch failed" over "Error 503 Backend fetch failed").
        said.add(numbered[0])
    return said.pop() if len(said) == 1 else None


_ERROR_LABEL = re.compile(r"\bError\s*:")


def _html_states_error(body: bytes) -> bool:
    """Whether an HTML page with no status says it is an error, as a label ("Error: ...")
    beside words whose meaning has a move; a page that only mentions errors does not."""
    head = body[:_MAX_TEXT * 4].lstrip()[:1024].lower()
    if not (head.startswith((b"<!doctype html", b"<html", b"<head")) or b"<html" in head):
        return False
    try:
        text = _prose_of(body)
    except UnicodeDecodeError:
        return False
    m = _ERROR_LABEL.search(text)
    if m is None:
        return False
    meaning = vocab.meaning_of(vocab.words(text[m.start() :]))
    return meaning is not None and meaning.step is not None


# A page titled with a reason phrase alone ("Unauthorized", Steam's): that status.
_REASON_ONLY = {vocab.words(phrase): status for status, phrase in REASON_PHRASES.items() if status >= 400}
_NUMBER_LED = re.compile(r"(?i)(?:error\s+)?([45][0-9][0-9])\s+[A-Za-z]")


def _step_of(meaning: vocab.Meaning | None, words: str) -> NextStep | None:
    """The move a meaning of prose gives on its own: its row's, or for a quota the move
    of the period its words name."""
    if meaning is None:
        return None
    if meaning.step is None and meaning.name == "quota":
        period = vocab.period_of(words)
        return None if period is None else period[1]
    return meaning.step


def _prose_says(text: str, status: int) -> bool:
    """Whether prose says something its status does not: a delay, or another move."""
    if prose_delay(text) is not None or prose_param(text) is not None:
        return True
    words = vocab.words(text)
    said = vocab.step_stated(words)
    if said is not None:
        return said[0] != infer_next_step(code_for_http(status), status)[0]
    step = _step_of(vocab.meaning_of(words), words)
    if step is None:
        return False
    ladder, _ = infer_next_step(code_for_http(status), status)
    return step != ladder


# A code leading a text body: ClickHouse's "Code: 60, e.displayText() = ...", GeoNames'
# "ERR:10:...", Baidu's "[18] Open api qps request limit reached".
# (`oauth_problem=signature_invalid&...`: OAuth 1.0a's Problem Reporting extension, a form-encoded
# body whose first pair names the problem, as Flickr's 401 sends it.)
# ("Error 11: Not enough input parameters.", Paystation's page: a numbered error.)
_TEXT_CODE = re.compile(r"\s*(?:Code: ?([0-9]{1,9})[,.:]|ERR:([0-9]{1,9}):|\[([0-9]{1,9})\] |oauth_problem=([a-z_]{1,48})(?:&|\s*$)|Error ([0-9]{1,9}): )")


def _text_code(text: str) -> tuple[str, str] | None:
    """The code a text body opens with, and how it was written; None without one."""
    m = _TEXT_CODE.match(text[:64])
    if m is None:
        return None
    return next(g for g in m.groups() if g is not None), m.group(0).strip()


_XML_HEAD = re.compile(rb"\s*(?:<\?xml[^>]{0,200}\?>\s*)?<[A-Za-z]")
_XML_ERROR_TAG = re.compile(r"<(error|err|status|fault|exception)(?=[\s/>])", re.IGNORECASE)
_XML_ATTR = re.compile(r"([\w.:-]{1,40})\s*=\s*\"([^\"<]{0,1000})\"")
_XML_ERRORS = frozenset(("error", "err", "status", "fault", "exception"))


def _xml_error(body: bytes) -> tuple[str | None, str | None, str] | None:
    """An XML body's error element, by its attributes or its text: (code, message, where)
    for `<err code="98" msg="Invalid auth token"/>` (Flickr), `<error code="10">Invalid
    API key</error>` (Last.fm), `<status message="..." value="18"/>` (GeoNames); None for
    any other body (HTML pages are read for their prose instead)."""
    if not _XML_HEAD.match(body[:256]) or b"<html" in body[:1024].lower() or b"<!doctype html" in body[:256].lower():
        return None
    try:
        text = body[: _MAX_TEXT * 4].decode("utf-8")
    except UnicodeDecodeError:
        return None
    for i, m in enumerate(_XML_ERROR_TAG.finditer(text)):
        if i >= 32:
            break
        # The tag's attributes up to its '>', and the text up to the next '<': found with
        # str.find within bounds, so a hostile body costs one pass, not a backtracking regex.
        close = text.find(">", m.end(), m.end() + 4000)
        if close < 0:
            continue
        tag = text[m.end() : close]
        after = text.find("<", close + 1, close + 1001)
        inner = "" if tag.endswith("/") else html.unescape(text[close + 1 : after if after >= 0 else close + 1001]).strip()
        name = m.group(1).lower()
        attrs = dict(_XML_ATTR.findall(tag))
        message = attrs.get("message") or attrs.get("msg") or (inner if name != "status" and inner else None)
        for key in ("code", "errorCode", "error_code", "value", "id"):
            raw = attrs.get(key)
            if raw and _TOKEN.fullmatch(raw):
                code, where = raw, f"the <{m.group(1)}> element's {key} attribute"
                break
        else:
            code, where = None, f"the <{m.group(1)}> element"
        if message is not None and code is None and name == "status":
            continue
        if message is not None or code is not None:
            return code, (html.unescape(message) if message is not None else None), where
    return _xml_children(text)


_CDATA = re.compile(r"<!\[CDATA\[(.{0,4000}?)\]\]>", re.DOTALL)
# A leaf element with its text: `<code>13001</code>`, `<platformCore:code>X</platformCore:code>`.
_XML_LEAF = re.compile(r"<(?:[A-Za-z_][\w.-]{0,40}:)?([A-Za-z_][\w.-]{0,60})(?:\s[^<>]{0,2000})?>([^<]{0,2000})</")
_XML_OPEN = re.compile(r"<(?:[A-Za-z_][\w.-]{0,40}:)?([A-Za-z_][\w.-]{0,60})(?=[\s/>])([^<>]{0,2000})>")
# Elements that only an error has (local names, lower case), and attributes that say failure.
_XML_ERROR_ELEMENTS = frozenset(("error", "errors", "fault", "exception", "faultstring", "statusdetail"))
_XML_FAILED_ATTR = re.compile(r"(?i)\b(?:success|issuccess)\s*=\s*\"false\"|\btype\s*=\s*\"error\"")
# Leaf elements holding the code and the message, in order of trust (local names, lower
# case): pagseguro's and Wolfram|Alpha's <error><code>, Moodle's <ERRORCODE>, an OCS
# <meta><statuscode> (beside <status>failure</status>), SOAP's <faultstring> and NetSuite's
# <platformCore:code>, Recurly's <error><symbol>not_found</symbol>; `faultcode` last (SOAP's
# own class, "soapenv:Server").
# `number` after them: USPS Web Tools' <Error><Number>-2147219401</Number> (a COM error's Number).
_XML_CODES = ("errorcode", "error_code", "code", "symbol", "statuscode", "faultcode", "number")
# `reason` last: MercadoLibre's <Error><reason>An internal error ...</reason></Error>.
_XML_MESSAGES = ("message", "msg", "errormessage", "error_message", "description", "faultstring", "detail", "reason")


_SIGNED = re.compile(r"-[0-9]{1,19}")
_XML_TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]{0,100})[^<>]{0,2000}?(/?)>")
_XML_MAX_DEPTH = 32
_XML_UNDECLARED = re.compile(r"&(?!(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)")


def _well_formed_enough(text: str) -> bool:
    """Whether an XML document is one the child reader may read: no DTD, entity, comment
    or processing instruction past the declaration, its root closed at its end, and no
    deeper than _XML_MAX_DEPTH (a hostile or cut-short document is left to refuse)."""
    body = text[text.find("?>") + 2 :] if text.lstrip().startswith("<?xml") else text
    if "<!" in body.replace("<![CDATA[", "") or "<?" in body or _XML_UNDECLARED.search(body):
        return False  # a DTD, an entity, a comment or an instruction; an entity nothing declares
    root = _XML_TAG.search(body)
    if root is None or root.group(1) or not body.rstrip().endswith(f"</{root.group(2)}>"):
        return False
    depth = 0
    for m in _XML_TAG.finditer(body):
        if m.group(1):
            depth -= 1
        elif not m.group(3):
            depth += 1
            if depth > _XML_MAX_DEPTH:
                return False
    return True


def _xml_children(text: str) -> tuple[str | None, str | None, str] | None:
    """An XML error written as child elements: (code, message, where) when the document
    says it is an error (an error, fault or exception element, a failure attribute, or a
    <status> of failure) and has a code or a message leaf; None otherwise."""
    if not _well_formed_enough(text):
        return None
    text = _CDATA.sub(lambda m: html.escape(m.group(1).strip(), quote=False), text)
    failed = _XML_FAILED_ATTR.search(text) is not None
    if not failed:
        for i, m in enumerate(_XML_OPEN.finditer(text)):
            if i >= 64:
                break
            if m.group(1).lower() in _XML_ERROR_ELEMENTS:
                failed = True
                break
    leaves: dict[str, str] = {}
    for i, m in enumerate(_XML_LEAF.finditer(text)):
        if i >= 64:
            break
        name, inner = m.group(1).lower(), html.unescape(m.group(2)).strip()
        if inner and name not in leaves:
            leaves[name] = inner
    # A leaf named for the service's error code (Paystation's <PaystationErrorCode>5</...>
    # beside <PaystationErrorMessage>Insufficient Funds</...>): a nonzero one says it failed.
    prefixed = next((n for n in leaves if n.endswith("errorcode") and n not in _XML_CODES), None)
    if prefixed is not None and not _success_code(leaves[prefixed]):
        failed = True
    if not failed and leaves.get("status", "").lower() not in _FAILED:
        return None
    # (A negative number is a code too: USPS's -2147219401, as Binance's -1021 in JSON.)
    names = _XML_CODES if prefixed is None else (*_XML_CODES, prefixed)
    code = next(((leaves[n], n) for n in names if n in leaves and (_TOKEN.fullmatch(leaves[n]) or _SIGNED.fullmatch(leaves[n]))), None)
    message = next((leaves[n] for n in _XML_MESSAGES if n in leaves), None)
    if message is None and prefixed is not None:
        message = leaves.get(prefixed[: -len("code")] + "message")
    if code is None and message is None:
        return None
    return (code[0] if code else None), message, (f"the <{code[1]}> element" if code else "the message element")


def _first_line_status(body: bytes) -> int | None:
    """The error status the first line of a text body states ("409: Conflict", TeamCity's
    "Responding with error, status code: 404 (Not Found)."), else None."""
    line = body[:512].lstrip().split(b"\n", 1)[0]
    try:
        first = line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None
    return vocab.status_in_prose(first) or vocab.status_stated(first)


_CSV_CODES = ("code", "error_code", "errorcode", "error")
_CSV_MESSAGES = ("message", "error_message", "errormessage", "description", "detail")


def _csv_error(body: bytes) -> tuple[str | None, str | None] | None:
    """A CSV error body (Nasdaq Data Link's "code,message" over one row): (code, message),
    or None for anything else."""
    head = body[:2048].strip()
    if head[:1] in (b"{", b"[", b"<") or b"\n" not in head:
        return None
    try:
        lines = head.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    columns = [c.strip().strip('"').lower() for c in lines[0].split(",")]
    if not 2 <= len(columns) <= 8 or len(lines) < 2:
        return None
    code_col = next((columns.index(c) for c in _CSV_CODES if c in columns), None)
    message_col = next((columns.index(c) for c in _CSV_MESSAGES if c in columns), None)
    if code_col is None or message_col is None:
        return None
    row = [c.strip().strip('"') for c in lines[1].split(",", len(columns) - 1)]
    if len(row) != len(columns):
        return None
    code = row[code_col] if _TOKEN.fullmatch(row[code_col]) else None
    return code, row[message_col] or None


def _prose_is_an_error(text: str) -> bool:
    """Whether one line of text, with no status to go by, is an error's: it opens with
    an error status ("429 Too Many Requests"), states a delay, or its words have a move."""
    if vocab.status_in_prose(text) is not None or prose_delay(text) is not None:
        return True
    words = vocab.words(text)
    meaning = vocab.meaning_of(words)
    return meaning is not None and (meaning.step is not None or meaning.name == "quota")


def _decode_text(body: bytes, reading: Reading) -> Fault:
    try:
        text = _prose_of(body)
    except UnicodeDecodeError:
        raise DecodeError("the response body is not valid UTF-8") from None
    found = _Found()
    whole_text = text
    xml = _xml_error(body)
    code: tuple[str, str] | None = None
    if xml is not None:
        if xml[1]:
            text = _SPACE.sub(" ", xml[1]).strip()[:_MAX_TEXT]  # the element's message is the prose
        if xml[0] is not None:
            code = xml[0], xml[2]
    elif (csv := _csv_error(body)) is not None:
        if csv[1]:
            text = csv[1]
        if csv[0]:
            code = csv[0], "the CSV body's code column"
    elif (said_code := _text_code(text)) is not None:
        code = said_code[0], f"prose {said_code[1]!r}"
    meaning = vocab.meaning_of(vocab.words(text))
    status = reading.status
    if status is not None:
        found.evidence.append(("status", "the HTTP status line" if reading.dialect == "http" else "the status given with the body"))
    elif (said := _html_status(body)) is not None:
        status = said
        found.evidence.append(("status", "the HTML page's title"))
    elif (said := vocab.status_in_prose(text)) is not None:
        status = said
        found.evidence.append(("status", "prose of the body text"))
    elif (said := vocab.status_stated(whole_text)) is not None:
        status = said
        found.evidence.append(("status", "prose of the body text (status code: ...)"))
    else:
        reading.inferred += ("status",)
        if meaning is not None:
            status = meaning.status
            found.evidence.append(("status", f"inferred from message words ({meaning.name})"))
        else:
            status = 500
            reading.notes += ("no status for the text body; 500 assumed",)
            found.evidence.append(("status", "assumed: nothing states one"))
    if reading.seen is not None:
        reading.saw("body", "", "general")
        reading.saw("text", "", text)
    fields: dict[str, Any] = {"status": status, "grpc_code": grpc_code_of(status, reading)}
    if code is not None:
        fields["code"] = code[0]
        found.evidence.append(("code", code[1]))
    detail = text if len(text) <= 200 else text[:199] + "…"
    if detail:
        fields["detail"] = detail
        found.evidence.append(("detail", "body text"))
    named = prose_param(text)
    if named is not None:
        fields["param"] = named
        found.evidence.append(("param", "prose of the body text"))
    from_where = f"message words ({meaning.name})" if meaning is not None else ""
    return _settle(fields, reading, found, None, meaning, from_where, None, "", text, vocab.words(text), None)
