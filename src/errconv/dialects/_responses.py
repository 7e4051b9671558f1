"""HTTP responses read into a Fault and written from one: the codec of the `http` dialect,
under the seams `errconv.from_http` and `errconv.to_http`.

Reading: the status and headers give the wire signals (`Retry-After` in both forms,
measured against `Date` when the response has one, else the injected clock;
`X-RateLimit-Remaining: 0` with `X-RateLimit-Reset`; the IETF `RateLimit` field's
`r=0;t=`; `Stripe-Should-Retry`; a `grpc-status` header, which Envoy's HTTP/1 bridge
copies there), the body dialect comes from the registry (media type first, then the
strongest shape), and a body no dialect recognises (plain text, HTML, JSON of
another shape, nothing) is read from the status and headers alone, marked so in
`Origin.body`. A 2xx or 3xx response is no error.

Writing: the status, `Content-Type`, `Retry-After` for every wait (the same number as
the body), `x-should-retry` (`true` for a wait, else `false`), the body dialect's own headers; DebugInfo dropped unless asked for; every
header value a number, a fixed string, or text checked to hold no control character.

Also here: the parser of a whole HTTP/1.x response, which takes what people paste
(`curl -i` and `curl -v` output, HTTP/2 status lines, interim 1xx and proxy
`Connection established` blocks, LF line ends, obs-fold, a body that follows the
headers without a blank line).
"""

from __future__ import annotations

import calendar
import math
import re
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

import msgspec

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, scrubbed
from .._model.limits import DEFAULT_LIMITS, MAX_RETRY_AFTER_SECONDS, Limits
from .._model.retry_after import format_retry_after, parse_http_date, parse_retry_after, read_retry_after, reset_of_429
from ..codes import NextStep, code_for_http, reason_phrase
from ..details import RequestInfo
from . import GENERIC_MEDIA, Dialect, HttpInfo, body_dialects, by_media, get, strongest
from ._base import decode_json, reads_other_bytes
from ._depth import shallow
from ._common import CodeValue, Headers, Reading, Writing, read_json, valid_code, write_json
from ._status import without_debug

__all__ = ["HttpResponse", "parse_response", "read_response", "safe_header_value"]

_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_TAGS = re.compile(r"<[^<>]{0,2000}>")  # no "<" inside: a run of "<" cannot make it rescan
_SPACE = re.compile(r"\s+")
_DIGITS = re.compile(r"[0-9]+")  # ASCII only: "²".isdigit() is true and int("²") fails
_GRPC_STATUS = re.compile(r"[0-9]{1,3}")
_TITLE = re.compile(r"<title[^>]{0,200}>(.{0,2000}?)</title>", re.IGNORECASE | re.DOTALL)
_MAX_VAGUE_DETAIL = 1000
_MAX_INTERIM = 8  # 1xx and proxy `Connection established` blocks before the final response


def safe_header_value(value: str) -> str:
    """A header value with CR, LF, NUL and other controls replaced by spaces (RFC 9110 5.5)."""
    return _UNSAFE.sub(" ", value).strip()


# --------------------------------------------------------------------------- the response as written


class HttpResponse:
    """An HTTP error response to send: `status`, `headers` (name, value pairs) and `body`.

    `headers` holds `Content-Type`, `Retry-After` for a wait, `x-should-retry` and the
    body dialect's own; not `Content-Length`, which whoever sends the body sets. `bytes(response)`
    is the whole HTTP/1.1 message.
    """

    __slots__ = ("status", "headers", "body")

    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def reason(self) -> str:
        """The RFC 9110 reason phrase of the status."""
        return reason_phrase(self.status)

    @property
    def content_type(self) -> str:
        return next((v for k, v in self.headers if k.lower() == "content-type"), "")

    def __bytes__(self) -> bytes:
        lines = [f"HTTP/1.1 {self.status} {self.reason}", *(f"{k}: {v}" for k, v in self.headers)]
        lines.append(f"Content-Length: {len(self.body)}\r\n\r\n")
        return "\r\n".join(lines).encode("latin-1", "replace") + self.body

    def __repr__(self) -> str:
        return f"HttpResponse(status={self.status}, headers={self.headers!r}, body={shorten(self.body, 60)})"


def respond(fault: Fault, body_dialect: Dialect, writing: Writing) -> HttpResponse:
    """to_http's work, for a dialect and a Writing in hand."""
    try:
        return _respond(fault, body_dialect, writing)
    except UnicodeEncodeError:  # a lone surrogate (see scrubbed): written as U+FFFD instead
        return _respond(scrubbed(fault), body_dialect, writing)


def _respond(fault: Fault, body_dialect: Dialect, writing: Writing) -> HttpResponse:
    if not writing.keep_debug:
        fault = without_debug(fault)
    body = body_dialect.encode(fault, writing)
    content_type = body_dialect.content_type or body_dialect.media_type or "application/json"
    headers = [("Content-Type", content_type)]
    if fault.next_step == NextStep.WAIT and fault.retry_after_seconds is not None:
        headers.append(("Retry-After", format_retry_after(min(fault.retry_after_seconds, MAX_RETRY_AFTER_SECONDS))))
    own = body_dialect.http_headers(fault, writing)
    if not any(name.lower() == "x-should-retry" for name, _ in own):
        # The OpenAI, Anthropic and other generated SDKs obey this before the status:
        # without it they retry a give_up 500 and a 409 fix_request (clients/README).
        # retry-after-ms is not written: a Fault's delay is whole seconds, which
        # Retry-After states exactly, so it would add no precision, only a third
        # number to keep in step.
        headers.append(("x-should-retry", "true" if fault.next_step == NextStep.WAIT else "false"))
    for name, value in own:
        headers.append((name, safe_header_value(value)))  # a dialect's own values are checked too
    # An error response has an error status: a fault that has none (a Status with code
    # OK) goes out as 500, its own status in the body, and losses() names the status.
    status = fault.status if 400 <= fault.status <= 599 else 500
    return HttpResponse(status, headers, body)


# --------------------------------------------------------------------------- reading


def _headers(headers: Any, limits: Limits) -> Headers:
    """Header pairs in any usual form (pairs, a mapping, httpx's or requests' headers),
    names in lower case, values with controls replaced, each within max_header."""
    if headers is None:
        return Headers(())
    items: Iterable[Any]
    kind = type(headers)
    if kind is list or kind is tuple:  # the usual forms first: no ABC check for them
        items = headers
    elif kind is dict:
        items = headers.items()
    elif hasattr(headers, "multi_items"):  # httpx.Headers, starlette Headers: every value of a repeated name
        items = headers.multi_items()
    elif isinstance(headers, Mapping):
        # requests' CaseInsensitiveDict by its own store, in order, not the Mapping ABC's
        # key-by-key lookups (names come lower-cased, as they are made below anyway).
        lower_items = getattr(headers, "lower_items", None)
        items = lower_items() if callable(lower_items) else headers.items()
    else:
        items = headers
    # Any, declared: mypy would infer the mapping branch's pairs, and a compiled build would
    # check every item as a tuple (TypeError) before the checks below could say DecodeError.
    every: Any
    try:
        every = iter(items)
    except TypeError:  # an int, an object: no form of headers at all
        raise DecodeError(f"headers are (name, value) pairs or a mapping, got {shorten(headers)}") from None
    out = []
    max_header = limits.max_header
    for pair in every:
        if type(pair) is tuple and len(pair) == 2:
            name, value = pair[0], pair[1]
            # Text without controls (isprintable is False for every character _UNSAFE
            # replaces): safe_header_value would only strip it.
            if type(name) is str and type(value) is str and value.isprintable():
                value = value.strip()
                if len(value) <= max_header:
                    out.append((name.strip().lower(), value))
                    continue
        out.append(_header_pair(pair, limits))
    return Headers(out)


def _header_pair(pair: Any, limits: Limits) -> tuple[str, str]:
    """One header pair in any form, checked: (lower-case name, safe value)."""
    # Checked, then indexed: compiled, unpacking a value that is no tuple raises TypeError
    # (and a two-letter string is no pair either way).
    if type(pair) is not tuple and type(pair) is not list or len(pair) != 2:
        raise DecodeError(f"headers are (name, value) pairs, got {shorten(pair)}")
    name, value = pair[0], pair[1]
    if isinstance(name, bytes):
        name = name.decode("latin-1")
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(name, str) or not isinstance(value, str):
        raise DecodeError(f"headers are (name, value) pairs of text, got {shorten(pair)}")
    value = safe_header_value(value)
    if len(value) > limits.max_header:
        raise _header_too_long(name, value, limits)
    return (name.strip().lower(), value)


def _header_too_long(name: str, value: str, limits: Limits) -> DecodeError:
    return DecodeError(
        f"the {shorten(name.lower())} header is {len(value)} characters, over the limit of {limits.max_header} (Limits.max_header)"
    )


def _clock(headers: Headers, now: float | Callable[[], float] | None) -> float:
    """What time it is for this response: its Date (the server's clock, which a Retry-After
    date was written against) when it has one, else the injected clock."""
    date = headers.get("date")
    if date is not None:
        server_now = parse_http_date(date)
        if server_now is not None:
            return server_now
    return now() if callable(now) else (time.time() if now is None else now)


# Delays in milliseconds, as the SDKs that send them read them: azure-core and the
# OpenAI/Anthropic SDKs (retry-after-ms, x-ms-retry-after-ms), botocore (x-amz-retry-after).
_MS_DELAYS = ("retry-after-ms", "x-ms-retry-after-ms", "x-amz-retry-after")
# A spent limit and when it resets, as each vendor spells them: (remaining, reset, how
# the reset is written). Read only when the matching `remaining` is 0.
_SPENT = (
    ("x-ratelimit-remaining", "x-ratelimit-reset-after", "seconds"),  # Discord: seconds from now, fractional
    ("x-ratelimit-remaining", "x-ratelimit-reset", "epoch"),  # GitHub and most: epoch seconds (or ms, or seconds from now)
    ("x-ratelimit-remaining-requests", "x-ratelimit-reset-requests", "duration"),  # OpenAI: Go durations, "6m0s"
    ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens", "duration"),
    ("anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset", "rfc3339"),
    ("anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset", "rfc3339"),
    ("anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset", "rfc3339"),
    ("anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset", "rfc3339"),
)
_MS_NAMES = frozenset(_MS_DELAYS)
_REMAINING_NAMES = frozenset(remaining for remaining, _, _ in _SPENT)
# Every header _signals reads but for a 429's reset headers (reset_of_429 asks those).
_SIGNAL_NAMES = frozenset(
    ("retry-after", "ratelimit", "stripe-should-retry", "x-should-retry", *_MS_DELAYS, *(n for row in _SPENT for n in row[:2]))
)
_DECIMAL = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?")
_DURATION_PART = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,9})?)(h|ms|m|s|us|µs|ns)")
_DURATION = re.compile(r"(?:[0-9]{1,12}(?:\.[0-9]{1,9})?(?:h|ms|m|s|us|µs|ns)){1,6}")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(\.\d{1,9})?(Z|z|[+-]\d\d:\d\d)")


def _whole(seconds: float) -> int:
    """Seconds to wait, whole (rounded up, as everywhere), within the cap; a past reset is 0."""
    return max(0, min(math.ceil(seconds), MAX_RETRY_AFTER_SECONDS))


def _rfc3339(value: str) -> float | None:
    m = _RFC3339.fullmatch(value)
    if m is None:
        return None
    year, month, day, hh, mm, ss = (int(g) for g in m.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hh <= 23 and mm <= 59 and ss <= 60 and year >= 1):
        return None
    at = float(calendar.timegm((year, month, day, hh, mm, min(ss, 59), 0, 0, 0))) + float(m.group(7) or 0)
    zone = m.group(8)
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        at -= sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return at


def _reset_in(value: str, how: str, current: Callable[[], float]) -> int | None:
    """Whole seconds until a rate limit resets, from a reset header written `how`."""
    value = value.strip()
    if how == "seconds" or how == "epoch":
        if not _DECIMAL.fullmatch(value):
            return None
        seconds = float(value)
        if how == "epoch":
            if seconds > 1e12:  # epoch milliseconds
                seconds = seconds / 1000 - current()
            elif seconds > 1e9:  # epoch seconds
                seconds -= current()
        return _whole(seconds)
    if how == "duration":
        if not _DURATION.fullmatch(value):
            return None
        return _whole(sum(float(n) * _UNIT[u] for n, u in _DURATION_PART.findall(value)))
    at = _rfc3339(value)
    return None if at is None else _whole(at - current())


def _signals(headers: Headers, reading: Reading) -> None:
    """The wire signals in the headers, into `reading` (wait, delay, no_retry, notes).

    The delay: `Retry-After` (delay-seconds, an HTTP-date, or seconds with a fraction,
    which some servers send), and the millisecond headers; when two disagree by more
    than a second the larger is taken, as the safer, and the disagreement noted. Else
    a spent rate limit (`remaining` 0) with its reset, in each vendor's spelling, or
    the IETF `RateLimit` field. `Stripe-Should-Retry` and `x-should-retry` (OpenAI,
    Anthropic) say whether to retry at all: false outranks any delay.
    """
    # The clock is read only for a date to measure (an HTTP-date Retry-After, an epoch
    # X-RateLimit-Reset): most signals are plain seconds.
    current = partial(_clock, headers, reading.now)
    if not headers.has_any(_SIGNAL_NAMES) and reading.status != 429:
        return  # most responses: none of the names below, asked in one set operation
    retry_after = headers.get("retry-after")
    if retry_after is not None:
        if retry_after.isdigit() and retry_after.isascii() and len(retry_after) <= 9:  # delay-seconds, as most say
            seconds: int | None = min(int(retry_after), MAX_RETRY_AFTER_SECONDS)
        elif len(retry_after) <= 64 and (found := read_retry_after(retry_after, current)) is not None:
            # A fraction ("1.5", which azure-core and the SDKs read), an HTTP-date, or a Unix timestamp.
            seconds = found[0]
            if found[1] == "epoch":
                clock = "its Date header" if headers.get("date") is not None else "the clock"
                reading.notes += (f"Retry-After {retry_after.strip()} read as a Unix timestamp, measured against {clock}",)
        elif retry_after.strip().isdigit() and retry_after.isascii():
            seconds = MAX_RETRY_AFTER_SECONDS  # a number past any timestamp: the longest wait
        else:
            seconds = parse_retry_after(retry_after, now=current)  # calls current() for a date only
        reading.saw("delay:Retry-After", "/headers/retry-after", (retry_after, seconds))
        if seconds is not None:
            reading.wait, reading.delay = "Retry-After", seconds
        else:
            reading.notes += (f"unreadable Retry-After {shorten(retry_after)} ignored",)
    for name in _MS_DELAYS if headers.has_any(_MS_NAMES) else ():
        value = headers.get(name)
        if value is None:
            continue
        if not _DECIMAL.fullmatch(value.strip()):
            reading.notes += (f"unreadable {name} {shorten(value)} ignored",)
            continue
        seconds = _whole(float(value) / 1000)
        reading.saw(f"delay:{name}", f"/headers/{name}", (value, seconds))
        if reading.delay is None or abs(seconds - reading.delay) <= 1:
            # Agreeing within a second (or alone): the millisecond value is the more precise one.
            reading.wait, reading.delay = name, seconds
        else:
            reading.notes += (f"{name} ({seconds} s) and {reading.wait} ({reading.delay} s) disagree; the longer is taken",)
            if seconds > reading.delay:
                reading.wait, reading.delay = name, seconds
    if reading.wait is None and headers.has_any(_REMAINING_NAMES):
        for remaining_name, reset_name, how in _SPENT:
            remaining = headers.get(remaining_name)
            if remaining is None or remaining.strip() != "0":
                continue
            reset = headers.get(reset_name)
            if reset is None:
                continue
            seconds = _reset_in(reset, how, current)
            if seconds is None:
                continue
            if reading.delay is None or seconds > reading.delay:  # every spent limit must have reset
                reading.wait, reading.delay = reset_name, seconds
            if how == "seconds":
                break  # Discord's relative reset is its epoch one, measured without a clock
    if reading.wait is None:
        field = headers.get("ratelimit")
        if field is not None:
            for item in field.split(","):
                params = dict(p.strip().partition("=")[::2] for p in item.split(";")[1:])
                if params.get("r", "").strip() == "0" and _DIGITS.fullmatch(params.get("t", "").strip()):
                    reading.wait = "RateLimit"
                    reading.delay = min(int(params["t"].strip()[:12]), MAX_RETRY_AFTER_SECONDS)
                    break
    if reading.wait is None and reading.status == 429:
        # A 429 names its limit spent: a reset in any spelling says when, with no `remaining: 0` beside it.
        found_reset = reset_of_429(headers.get, current)
        if found_reset is not None:
            reading.wait, reading.delay = found_reset[2], found_reset[0]
            reading.notes += (f"{found_reset[2]} {shorten(headers.get(found_reset[2]) or '')} read as {found_reset[1]}",)
    for name, label in (("stripe-should-retry", "Stripe-Should-Retry"), ("x-should-retry", "x-should-retry")):
        should_retry = headers.get(name)
        if should_retry is None:
            continue
        should_retry = should_retry.strip().lower()
        if should_retry == "true" and reading.wait is None:
            reading.wait = f"{label}: true"
        elif should_retry == "false":
            reading.no_retry = f"{label}: false"


def _vague(status: int, body: bytes, media_type: str, reading: Reading, what: str) -> Fault:
    text = body.decode("utf-8")
    detail: str | None
    if "html" in media_type or text.lstrip()[:1] == "<":
        # One try at the first <title>: searching would rescan 2000 characters after every one.
        at = text.lower().find("<title")
        m = _TITLE.match(text, at) if at != -1 else None
        source = m.group(1) if m else _TAGS.sub(" ", text)
        import html  # here: only a vague HTML body needs it, and importing it costs

        detail = _SPACE.sub(" ", html.unescape(source)).strip()
    else:
        detail = _SPACE.sub(" ", text).strip()
    if len(detail) > _MAX_VAGUE_DETAIL:
        detail = detail[: _MAX_VAGUE_DETAIL - 1] + "…"
    reading.body = what
    reading.inferred += ("grpc_code",)
    if what == "unrecognised":
        reading.notes += ("no dialect recognises the body; classified from the status and headers",)
    else:
        reading.notes += ("the body states nothing machine-readable; classified from the status and headers",)
    reading.saw("body", "/body" if reading.dialect == "http" else "", "vague")
    if detail:
        reading.saw("text", "/body" if reading.dialect == "http" else "", detail)
    fields: dict[str, Any] = {"status": status, "grpc_code": code_for_http(status), "detail": detail or None}
    return reading.finish(fields, None)


_UNPARSED: Any = object()
_FORM = "application/x-www-form-urlencoded"
_MAX_FORM_FIELDS = 256


def _form_fields(body: bytes) -> Any:
    """A form-encoded body (OAuth token endpoints answer so: GitHub's device flow) as the
    JSON object of its fields, each a string, the first of a repeated name kept, for the
    JSON dialects to recognise; _UNPARSED when it is no form."""
    try:
        from urllib.parse import parse_qsl  # here: only a form-encoded body needs it

        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=_MAX_FORM_FIELDS)
    except ValueError:
        return _UNPARSED
    fields: dict[str, str] = {}
    for name, value in pairs:
        fields.setdefault(name, value)
    return fields if fields else _UNPARSED


def read_body(
    body: bytes | None, http: HttpInfo, reading: Reading, *, bare: bool = False, parsed: Any = _UNPARSED
) -> Fault:
    """The fault of a response body (bytes, or a JSON value `parsed` already), read as
    the dialect the registry picks; `bare`: a body without its response, whose status
    the caller gave."""
    media = http.media_type
    value = parsed
    if body is not None and media not in GENERIC_MEDIA:
        named = by_media(media)
        if named is not None and named.form == "json" and (http.status is None or http.status >= 400 or named.errors_on_success):
            stripped = body.strip()
            if stripped[:1] != b"{":
                framed = named.non_json(body, http)  # a stream of envelopes: the message holding the error
                if framed is not None:
                    stripped = framed.strip()
            if stripped[:1] == b"{":
                # The media type names the dialect: read straight into its schema (the
                # body is parsed as JSON values only if its shape is not the usual one).
                if bare:
                    reading.dialect = named.name
                else:
                    reading.body = named.name
                    reading.at = "/body"
                try:
                    return decode_json(named, reading, raw=stripped)
                except DecodeError:
                    try:
                        body.decode("utf-8")
                    except UnicodeDecodeError:
                        pass  # not UTF-8: read below as text with U+FFFD, noted
                    else:
                        raise
    original = body  # what a binary dialect (protobuf) reads
    if body is not None:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            # Read as text all the same, as a browser would: to_http answers such a
            # response from its status and headers, and so does this, with what the text says.
            body = body.decode("utf-8", "replace").encode("utf-8")
        stripped = body.strip()
        json_like = media.endswith("json") or not media or media == "text/plain"
        if stripped[:1] in (b"{", b"[") and json_like and not _bracketed_text(stripped):
            value = read_json(stripped, reading.limits, "the response body")
        elif media == _FORM and stripped:
            value = _form_fields(stripped)
    is_json = value is not _UNPARSED
    ok = http.status is not None and http.status < 400 and not reading.lenient
    candidates = _candidates(is_json, body is not None, ok)
    dialect = strongest(value if is_json else original or b"", http, candidates, raw=original or b"")
    if body is not original and (dialect is None or dialect.form != "bytes"):
        reading.notes += ("the body is not valid UTF-8; read with U+FFFD in place of the bytes that are not",)
    if dialect is None:
        if ok:
            raise DecodeError(f"not an error response: {http.status}")
        if bare:
            reading.dialect = ""
        text = body if body is not None else write_json(value) if is_json else b""
        return _vague(http.status or 500, text, media, reading, "unrecognised" if is_json else "vague")
    if bare:
        reading.dialect = dialect.name
    else:
        reading.body = dialect.name
        reading.at = "/body"
    if dialect.form == "json" and is_json:
        return decode_json(dialect, reading, value=value)
    return dialect.decode(original if dialect.form == "bytes" else body, reading)  # a bytes dialect, or a json one that reads other bytes too


_BRACKET_WORD = re.compile(rb"\[\s*([A-Za-z]{1,16})")


def _bracketed_text(body: bytes) -> bool:
    """Whether a body that opens with `[` is text no JSON could be ("[ERROR 400] Invalid
    API key", Pixabay's): a word other than true, false or null right after the bracket."""
    m = _BRACKET_WORD.match(body)
    return m is not None and m.group(1) not in (b"true", b"false", b"null")


def _candidates(is_json: bool, has_body: bool, ok: bool) -> tuple[Dialect, ...]:
    """The body dialects that may read a body: JSON ones for JSON, bytes ones for any
    body, only those that report errors inside a 2xx for a success (cached per registry)."""
    every = body_dialects()
    key = (is_json, has_body, ok)
    hit = _CANDIDATES.get(key)
    if hit is not None and hit[0] is every:
        return hit[1]
    found = tuple(
        d
        for d in every
        if ((d.form == "json" and (is_json or (has_body and reads_other_bytes(d)))) or (d.form == "bytes" and has_body))
        and (d.errors_on_success or not ok)
    )
    _CANDIDATES[key] = (every, found)
    return found


_CANDIDATES: dict[tuple[bool, bool, bool], tuple[tuple[Dialect, ...], tuple[Dialect, ...]]] = {}


def read(status: Any, headers: Headers, body: bytes, reading: Reading) -> Fault:
    """from_http's work, once the headers and body are in hand."""
    if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
        raise DecodeError(f"not an HTTP status: {shorten(status)} (100 to 599)")
    reading.status = status
    reading.headers = headers
    _signals(headers, reading)
    media = (headers.get("content-type") or "").split(";")[0].strip().lower()
    fault = read_body(body, HttpInfo(status, headers, media), reading)
    return _with_headers(fault, headers)


# RFC 6750 3 (and RFC 9449's DPoP scheme): `Bearer realm="x", error="invalid_token", ...`.
_CHALLENGE_ERROR = re.compile(
    r'(?i)\b(?:bearer|dpop)\b(?:[^,]{0,200},)*?[ \t,]*error[ \t]*=[ \t]*(?:"([A-Za-z][A-Za-z0-9_.-]{0,62})"|([A-Za-z][A-Za-z0-9_.-]{0,62})(?![^ \t,]))'
)


def _with_headers(fault: Fault, headers: Headers) -> Fault:
    changes: dict[str, Any] = {}
    if fault.code is None:
        # A 401 or 403 whose body states no code (often it has no body): the bearer
        # challenge's `error` is the code the server states.
        challenge = headers.get("www-authenticate")
        if challenge is not None and len(challenge) <= 4096:
            m = _CHALLENGE_ERROR.search(challenge)
            if m is not None:
                changes["code"] = m.group(1) or m.group(2)
                origin = fault.origin
                if origin is not None and origin.evidence:
                    # A body reader that says where each fact came from (general's) is told this one's source too.
                    changes["origin"] = msgspec.structs.replace(origin, evidence=(*origin.evidence, ("code", "header WWW-Authenticate")))
    grpc_status = headers.get("grpc-status")
    if grpc_status is not None and _GRPC_STATUS.fullmatch(grpc_status.strip()):
        code: CodeValue = valid_code(int(grpc_status))
        if code != fault.grpc_code:
            changes["grpc_code"] = code
    request_id = headers.get("request-id")
    if request_id and not any(isinstance(d, RequestInfo) for d in fault.details):
        changes["details"] = (*fault.details, RequestInfo(request_id=request_id))
    return fault.replace(**changes) if changes else fault


# --------------------------------------------------------------------------- parsing a whole response


class ParsedResponse:
    """A parsed HTTP response: status, reason, headers (lower-case names, in order) and body."""

    __slots__ = ("status", "reason", "headers", "body", "notes")

    def __init__(self, status: int, reason: str, headers: Headers, body: bytes, notes: tuple[str, ...] = ()) -> None:
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.notes = notes  # what framing the body took leniency over

    def get(self, name: str) -> str | None:
        return self.headers.get(name)


_STATUS_LINE = re.compile(r"HTTP/(\d(?:\.\d)?) +(\d{3})(?: +(.*))?")
# The usual head, as servers and errconv write it: a final status line, then header
# lines of a token, a colon and printable ASCII, each ended by CRLF. Such a head reads
# in two regex calls; anything else (interim responses, LF line ends, obs-fold, obs-text,
# controls, a header past max_header, curl -v) goes to _parse_any, which reads every form.
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_USUAL_HEAD = re.compile(
    rb"HTTP/[0-9](?:\.[0-9])? +([0-9]{3})(?: +([^\r\n]*))?\r\n((?:" + _TOKEN + rb":[\t\x20-\x7e]*\r\n)*)\r\n"
)
_HEADER_LINE = re.compile(_TOKEN.decode() + ":")
_CURL_V = re.compile(rb"(?m)^[<>*] ?")


def parse_response(data: bytes, limits: Limits = DEFAULT_LIMITS) -> ParsedResponse:
    """Parse an HTTP/1.x response, `curl -i` or `curl -v` output, its body framed as
    RFC 9112 section 6 says (see `_framed`)."""
    if len(data) > limits.max_bytes:
        raise DecodeError(f"the response is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    resp = _parse_usual(data, limits) or _parse_any(_uncurl(data), limits)
    headers = resp.headers
    if "transfer-encoding" in headers or "content-encoding" in headers:
        return _framed(resp, limits)
    length = headers.get("content-length")
    if length is None or (length == str(len(resp.body)) and len(headers.items) == len(headers._first)):
        return resp  # the usual: no length, or one that is the body's own
    return _framed(resp, limits)


# --------------------------------------------------------------------------- message framing

_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
_TEXTUAL = re.compile(rb"[\t\n\r\x20-\x7e]*")
_CODINGS = {"gzip": 31, "x-gzip": 31, "deflate": 15}  # zlib wbits: gzip's header, zlib's (deflate)
# Character sets, not content codings: a server that writes its charset in Content-Encoding
# (Jetty 6's `Content-Encoding: UTF-8`) has applied no coding; the body is read as given.
_CHARSETS = frozenset(("utf-8", "utf8", "utf-16", "iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii"))


def _framed(resp: ParsedResponse, limits: Limits) -> ParsedResponse:
    """The response with its message body as RFC 9112 section 6.3 delimits it and its
    content codings undone.

    - `Transfer-Encoding: chunked` (last) is de-chunked, extensions and trailers
      skipped, when the body is valid chunked framing; a body that is not (`curl -i`
      shows it de-chunked, the header kept) is read as given, and noted. Content-Length
      is then ignored, as the RFC says.
    - Content-Length: several values that differ, or one that is not digits, make the
      message unreadable (DecodeError); bytes past it belong to another message and are
      dropped; a body shorter than it is read as given, and noted.
    - gzip and deflate, as a transfer or a content coding, are decompressed within
      `Limits.max_bytes` (a bomb is a DecodeError); a body that is plainly not
      compressed (`curl --compressed` shows it decoded) is read as given, and noted.
    """
    headers, body, notes = resp.headers, resp.body, list(resp.notes)
    transfer = _coding_list(headers, "transfer-encoding")
    content = _coding_list(headers, "content-encoding")
    if transfer:
        if transfer[-1] == "chunked":
            transfer = transfer[:-1]
            unchunked = _dechunk(body, limits)
            if unchunked is None:
                notes.append("Transfer-Encoding: chunked, but the body is not chunked (as curl -i shows it): read as given")
                transfer = []  # curl undid every coding it shows the body without
            else:
                body = unchunked
        # (A response whose last coding is not chunked runs to the connection's close: all of it.)
    else:
        lengths = [v.strip() for name, value in headers.items if name == "content-length" for v in value.split(",")]
        if lengths:
            if not all(_DIGITS.fullmatch(v) for v in lengths) or len(set(v.lstrip("0") for v in lengths)) > 1:
                raise DecodeError(f"invalid Content-Length {shorten(', '.join(lengths))} (RFC 9112 section 6.3)")
            length = int(lengths[0][-15:]) if len(lengths[0].lstrip("0")) <= 15 else limits.max_bytes + 1
            if content and content[-1] in _CODINGS and not _compressed(body, content[-1]):
                pass  # shown decoded (curl --compressed): the length is the coded body's, not this one's
            elif len(body) > length:
                if body[length:].strip():
                    notes.append(f"{len(body) - length} bytes after the Content-Length of {length} ignored")
                body = body[:length]
            elif len(body) < length:
                notes.append(f"the body is {len(body)} bytes, shorter than its Content-Length of {length}: read as given")
    for coding in reversed(transfer + content):
        if coding == "identity":
            continue
        if coding in _CHARSETS:
            notes.append(f"Content-Encoding {coding!r} names a character set, not a coding: read as given")
            continue
        if coding not in _CODINGS:
            raise DecodeError(f"the body is in the {shorten(coding)} coding, which errconv does not decode")
        if not _compressed(body, coding):
            notes.append(f"{coding}-coded by its headers, but the body is not (as curl --compressed shows it): read as given")
            break
        body = _decompress(body, coding, limits)
    return ParsedResponse(resp.status, resp.reason, headers, body, tuple(notes))


def _coding_list(headers: Headers, name: str) -> list[str]:
    return [c.strip().lower() for n, v in headers.items if n == name for c in v.split(",") if c.strip()]


def _dechunk(body: bytes, limits: Limits) -> bytes | None:
    """The data of a chunked body, or None when `body` is not chunked framing."""
    parts: list[bytes] = []
    at = total = 0
    while True:
        m = _CHUNK_LINE.match(body, at)
        if m is None:
            return None
        size = int(m.group(1), 16)
        at = m.end()
        if size == 0:
            return b"".join(parts)  # the trailer section after it is no part of the body
        if at + size > len(body):
            return None
        total += size
        if total > limits.max_bytes:
            raise DecodeError(f"the chunked body is over the limit of {limits.max_bytes} bytes (Limits.max_bytes)")
        parts.append(body[at : at + size])
        at += size
        if body.startswith(b"\r\n", at):
            at += 2
        elif body.startswith(b"\n", at):
            at += 1
        else:
            return None


def _compressed(body: bytes, coding: str) -> bool:
    """Whether `body` starts as `coding` does (gzip's magic, a zlib or raw deflate stream)."""
    if coding in ("gzip", "x-gzip"):
        return body[:2] == b"\x1f\x8b"
    if coding == "deflate":
        if len(body) >= 2 and body[0] & 0x0F == 8 and (body[0] << 8 | body[1]) % 31 == 0:
            return True
        return bool(body) and _TEXTUAL.fullmatch(body) is None  # raw deflate is anything but plain text
    return True


def _decompress(body: bytes, coding: str, limits: Limits) -> bytes:
    wbits = _CODINGS[coding]
    if coding == "deflate" and not (len(body) >= 2 and body[0] & 0x0F == 8 and (body[0] << 8 | body[1]) % 31 == 0):
        wbits = -15  # raw deflate, as some servers send "deflate"
    out: list[bytes] = []
    size = 0
    data = body
    try:
        while data:
            engine = zlib.decompressobj(wbits)
            chunk = engine.decompress(data, limits.max_bytes + 1 - size)
            size += len(chunk)
            out.append(chunk)
            if size > limits.max_bytes or engine.unconsumed_tail:
                raise DecodeError(
                    f"the {coding} body decompresses to over {limits.max_bytes} bytes (Limits.max_bytes)"
                )
            if not engine.eof:
                raise DecodeError(f"the {coding} body is truncated")
            data = engine.unused_data if wbits == 31 else b""  # gzip members may follow each other
    except zlib.error as exc:
        raise DecodeError(f"the {coding} body does not decompress: {shorten(str(exc), 60)}") from None
    return b"".join(out)


def _parse_usual(data: bytes, limits: Limits) -> ParsedResponse | None:
    m = _USUAL_HEAD.match(data)
    if m is None:
        return None
    code, reason, fields = m.groups(b"")
    status = int(code)
    if not 201 <= status <= 599:  # 1xx and 200 may be interim (a proxy's `Connection established`)
        return None
    headers = []
    for line in fields.decode("ascii").split("\r\n")[:-1]:  # each `token:value`, as matched
        name, _, value = line.partition(":")
        value = value.strip(" \t")
        if len(value) > limits.max_header:
            return None  # _parse_any names the header
        headers.append((name.lower(), value))
    return ParsedResponse(status, reason.decode("latin-1").strip(), Headers(headers), data[m.end() :])


def _uncurl(data: bytes) -> bytes:
    """`curl -v` output as the response it shows: the `< ` lines are the head, `* ` and
    `> ` lines (the connection and the request) are dropped, the rest is the body."""
    start = data.lstrip()[:2]
    if start[:1] not in (b"*", b"<", b">") or not (start[1:2] in (b" ", b"\r", b"\n", b"") or start == b"<\n"):
        return data
    head: list[bytes] = []
    body: list[bytes] = []
    in_body = False
    for line in data.splitlines(keepends=True):
        marker = line[:1]
        if not in_body and marker in (b"*", b">") and line[1:2] in (b" ", b"\r", b"\n", b""):
            continue
        if not in_body and marker == b"<" and line[1:2] in (b" ", b"\r", b"\n", b""):
            text = line[2:] if line[1:2] == b" " else b""
            if not text.strip():
                if head:
                    in_body = True
                continue
            head.append(text.rstrip(b"\r\n"))
            continue
        if in_body and marker == b"*" and line[1:2] == b" ":
            continue  # curl's own notes after the body (`* Connection #0 to host ... left intact`)
        in_body = True
        body.append(line)
    text = b"".join(body)
    # curl writes its closing note straight after a body without a final newline.
    cut = text.rfind(b"* Connection #")
    if cut != -1 and b"\n" not in text[cut:].rstrip(b"\r\n"):
        text = text[:cut]
    if not head:
        return data
    return b"\r\n".join(head) + b"\r\n\r\n" + text


_BLANK_LINE = re.compile(rb"\r?\n\r?\n")  # RFC 9112 2.2: a bare LF may end any line of the head


def _split(data: bytes) -> tuple[bytes, bytes]:
    m = _BLANK_LINE.search(data)
    if m is None:
        return data, b""
    return data[: m.start()], data[m.end() :]


def _parse_any(data: bytes, limits: Limits) -> ParsedResponse:
    rest = data.lstrip(b"\r\n")
    for _ in range(_MAX_INTERIM + 1):
        head, body = _split(rest)
        lines = head.decode("latin-1").replace("\r\n", "\n").split("\n")
        m = _STATUS_LINE.fullmatch(lines[0].strip())
        if m is None:
            raise DecodeError(f"not an HTTP response: the first line is {shorten(lines[0])}, expected `HTTP/1.1 429 ...`")
        _, code, reason = m.groups("")
        status, reason = int(code), reason.strip()
        if not 100 <= status <= 599:  # RFC 9110 15: a status outside 100..599 is invalid
            raise DecodeError(f"not an HTTP response: status {status} is outside 100..599")
        interim = 100 <= status < 200 or (status == 200 and reason.lower() == "connection established")
        if interim and body.lstrip(b"\r\n").startswith(b"HTTP/"):
            rest = body.lstrip(b"\r\n")
            continue
        break
    else:
        raise DecodeError(f"more than {_MAX_INTERIM} interim responses before the final one")
    # Each header as a name and the parts of its value (obs-fold lines add parts), joined once.
    fields: list[tuple[str, list[str]]] = []
    for index, line in enumerate(lines[1:], 1):
        if line[:1] in (" ", "\t") and fields:  # obs-fold: replace with a space
            fields[-1][1].append(line.strip())
            continue
        if not _HEADER_LINE.match(line) and line.lstrip()[:1] in ("{", "[", "<"):
            # A body straight after the headers, with no blank line (as many API docs print them).
            rest_of_head = "\n".join(lines[index:]).encode("latin-1")
            body = rest_of_head + (b"\n\n" + body if body else b"")
            break
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or name != name.strip():
            raise DecodeError(f"not an HTTP header line: {shorten(line)}")
        fields.append((name.lower(), [value]))
    headers: list[tuple[str, str]] = []
    for name, parts in fields:
        value = safe_header_value(" ".join(parts))
        if len(value) > limits.max_header:
            raise _header_too_long(name, value, limits)
        headers.append((name, value))
    return ParsedResponse(status, reason, Headers(headers), body)


def decode_message(data: Any, reading: Reading) -> Fault:
    """The Fault of a whole HTTP response, as bytes (or text holding bytes)."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8", "surrogateescape")  # bytes smuggled in text come back as bytes
        except UnicodeEncodeError:
            raise DecodeError("the response text holds a lone surrogate; give the response as bytes") from None
    if not isinstance(data, (bytes, bytearray)):
        raise DecodeError(f"http takes the response as bytes, got {type(data).__name__}")
    resp = parse_response(data if type(data) is bytes else bytes(data), reading.limits)
    if resp.notes:
        reading.notes += resp.notes
    return read(resp.status, resp.headers, resp.body, reading)


def looks_like_http(data: bytes) -> bool:
    """A whole response: a status line, or `curl -v` output."""
    head = data.lstrip()
    if head.startswith(b"HTTP/"):
        return True
    return head[:1] in (b"*", b"<", b">") and head[1:2] in (b" ", b"\r", b"\n") and b"HTTP/" in head[:4096]


def read_response(
    status: Any,
    headers: Any,
    body: Any,
    *,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
    trace: bool = False,
) -> Fault:
    """The Fault of an HTTP response given as its status, headers (in any usual form)
    and body (bytes or text): `errconv.from_http` once the error kinds are unwrapped."""
    fields, raw = _headers(headers, limits), _bytes(body, limits)
    size = len(raw) + sum(len(name) + len(value) for name, value in fields.items)
    reading = Reading(limits, now=now, dialect="http", trace=trace, size=size)
    if shallow(raw, limits.max_depth):
        reading.deep = False  # the decoders need not walk the body for its depth
    return read(status, fields, raw, reading)


def _bytes(body: Any, limits: Limits) -> bytes:
    if isinstance(body, str):
        try:
            body = body.encode("utf-8")
        except UnicodeEncodeError:
            raise DecodeError("the body text holds a lone surrogate; give the body as bytes") from None
    if not isinstance(body, (bytes, bytearray, memoryview)):
        raise DecodeError(f"the body is bytes or text, got {type(body).__name__}")
    data = bytes(body)
    if len(data) > limits.max_bytes:
        raise DecodeError(f"the body is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    return data
