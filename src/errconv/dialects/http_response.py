"""`http`: a whole HTTP response: status line, headers and a body in any dialect.

Encoders `http+problem`, `http+google` and `http+stripe` write an HTTP/1.1 response:
the status line, `Content-Type`, `Retry-After` for every wait (the same number as
the body), for Stripe `Stripe-Should-Retry` and `Request-Id`, `Content-Length`, then
the body. DebugInfo is dropped: this is an outer boundary.

Decoding takes HTTP/1.x and `curl -i` output (HTTP/2 status lines, interim 1xx and
proxy `Connection established` blocks skipped), picks the body codec from the
content type and the body's shape, and reads vague bodies (plain text, HTML,
`{"error": "..."}`, empty) using only the status and headers. The ladder's wire
signals come from here: `Retry-After` (both forms, measured against `Date` when the
response has one, else the injected clock), `X-RateLimit-Remaining: 0` with
`X-RateLimit-Reset`, the IETF `RateLimit` field's `r=0;t=`, `Stripe-Should-Retry`,
and a `grpc-status` header (Envoy's HTTP/1 bridge copies it there).
"""

from __future__ import annotations

import html
import math
import re
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from .._errors import DecodeError, shorten
from ..codes import NextStep, code_for_http, reason_phrase
from ..details import RequestInfo
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, MAX_RETRY_AFTER_SECONDS, Limits
from ..retry_after import format_retry_after, parse_http_date, parse_retry_after
from . import google_error, problem, status_json, stripe_error
from ._common import Hints, finish, read_json, valid_code, without_debug, write_json
from ._typed import read_google, read_problem

__all__ = ["BODY_DIALECTS", "MEDIA_TYPE", "NAME", "decode", "encode_with", "parse_response", "safe_header_value"]

NAME = "http"
MEDIA_TYPE = "message/http"
BODY_DIALECTS = ("problem", "google", "stripe")
_STATUS_LINE = re.compile(r"HTTP/(\d(?:\.\d)?) +(\d{3})(?: +(.*))?")
_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_TAGS = re.compile(r"<[^<>]{0,2000}>")  # no "<" inside: a run of "<" cannot make it rescan
_SPACE = re.compile(r"\s+")
_RESET = re.compile(r"[0-9]{1,16}(\.[0-9]+)?")  # X-RateLimit-Reset: seconds, epoch seconds or epoch ms
_DIGITS = re.compile(r"[0-9]+")  # ASCII only: "²".isdigit() is true and int("²") fails
_GRPC_STATUS = re.compile(r"[0-9]{1,3}")
_TITLE = re.compile(r"<title[^>]{0,200}>(.{0,2000}?)</title>", re.IGNORECASE | re.DOTALL)
_MAX_VAGUE_DETAIL = 1000
_MAX_INTERIM = 8  # 1xx and proxy `Connection established` blocks before the final response


def safe_header_value(value: str) -> str:
    """A header value with CR, LF, NUL and other controls replaced by spaces (RFC 9110 5.5)."""
    return _UNSAFE.sub(" ", value).strip()


# --------------------------------------------------------------------------- parsing


class Response:
    """A parsed HTTP response: status, reason, headers (lower-case names, in order) and body."""

    __slots__ = ("status", "reason", "headers", "body", "_first")

    def __init__(self, status: int, reason: str, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self._first = dict(reversed(headers))  # the first of a repeated header wins

    def get(self, name: str) -> str | None:
        return self._first.get(name)


def _split(data: bytes) -> tuple[bytes, bytes]:
    crlf = data.find(b"\r\n\r\n")
    lf = data.find(b"\n\n", 0, len(data) if crlf == -1 else crlf)  # not through the body
    if crlf != -1 and (lf == -1 or crlf < lf):
        return data[:crlf], data[crlf + 4 :]
    if lf != -1:
        return data[:lf], data[lf + 2 :]
    return data, b""


def parse_response(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Response:
    """Parse an HTTP/1.x response or `curl -i` output."""
    if len(data) > limits.max_bytes:
        raise DecodeError(f"the response is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    return _parse_usual(data, limits) or _parse_any(data, limits)


# The usual head, as servers and errconv write it: a final status line, then header
# lines of a token, a colon and printable ASCII, each ended by CRLF. Such a head reads
# in two regex calls; anything else (interim responses, LF line ends, obs-fold, obs-text,
# controls, a header past max_header) goes to _parse_any, which reads every form.
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_USUAL_HEAD = re.compile(
    rb"HTTP/[0-9](?:\.[0-9])? +([0-9]{3})(?: +([^\r\n]*))?\r\n((?:" + _TOKEN + rb":[\t\x20-\x7e]*\r\n)*)\r\n"
)


def _parse_usual(data: bytes, limits: Limits) -> Response | None:
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
    return Response(status, reason.decode("latin-1").strip(), headers, data[m.end() :])


def _parse_any(data: bytes, limits: Limits) -> Response:
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
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and fields:  # obs-fold: replace with a space
            fields[-1][1].append(line.strip())
            continue
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
    return Response(status, reason, headers, body)


def _header_too_long(name: str, value: str, limits: Limits) -> DecodeError:
    return DecodeError(
        f"the {shorten(name.lower())} header is {len(value)} characters, over the limit of {limits.max_header} (Limits.max_header)"
    )


# --------------------------------------------------------------------------- hints from headers


def _clock(resp: Response, now: float | Callable[[], float] | None) -> float:
    """What time it is for this response: its Date (the server's clock, which a Retry-After
    date was written against) when it has one, else the injected clock."""
    date = resp.get("date")
    if date is not None:
        server_now = parse_http_date(date)
        if server_now is not None:
            return server_now
    return now() if callable(now) else (time.time() if now is None else now)


def _hints(resp: Response, now: float | Callable[[], float] | None) -> Hints:
    hints = Hints()
    # The clock is read only for a date to measure (an HTTP-date Retry-After, an epoch
    # X-RateLimit-Reset): most signals are plain seconds.
    current = partial(_clock, resp, now)
    should_retry = (resp.get("stripe-should-retry") or "").strip().lower()
    retry_after = resp.get("retry-after")
    if retry_after is not None:
        seconds = parse_retry_after(retry_after, now=current)  # calls current() for a date only
        if seconds is not None:
            hints.wait, hints.delay = "Retry-After", seconds
        else:
            hints.notes.append(f"unreadable Retry-After {shorten(retry_after)} ignored")
    if hints.wait is None:
        remaining = resp.get("x-ratelimit-remaining")
        reset = resp.get("x-ratelimit-reset")
        if remaining is not None and remaining.strip() == "0" and reset is not None and _RESET.fullmatch(reset.strip()):
            value = float(reset)
            if value > 1e12:  # epoch milliseconds
                value = value / 1000 - current()
            elif value > 1e9:  # epoch seconds
                value -= current()
            hints.wait = "X-RateLimit-Reset"
            hints.delay = max(0, min(math.ceil(value), MAX_RETRY_AFTER_SECONDS))
    if hints.wait is None:
        field = resp.get("ratelimit")
        if field is not None:
            for item in field.split(","):
                params = dict(p.strip().partition("=")[::2] for p in item.split(";")[1:])
                if params.get("r", "").strip() == "0" and _DIGITS.fullmatch(params.get("t", "").strip()):
                    hints.wait = "RateLimit"
                    hints.delay = min(int(params["t"].strip()[:12]), MAX_RETRY_AFTER_SECONDS)
                    break
    if should_retry == "true" and hints.wait is None:
        hints.wait = "Stripe-Should-Retry: true"
    elif should_retry == "false":
        hints.no_retry = "Stripe-Should-Retry: false"
    return hints


# --------------------------------------------------------------------------- decoding


def _vague(resp: Response, hints: Hints, text: str, content_type: str) -> Fault:
    detail: str | None
    if "html" in content_type or text.lstrip()[:1] == "<":
        # One try at the first <title>: searching would rescan 2000 characters after every one.
        at = text.lower().find("<title")
        m = _TITLE.match(text, at) if at != -1 else None
        source = m.group(1) if m else _TAGS.sub(" ", text)
        detail = _SPACE.sub(" ", html.unescape(source)).strip()
    else:
        detail = _SPACE.sub(" ", text).strip()
    if len(detail) > _MAX_VAGUE_DETAIL:
        detail = detail[: _MAX_VAGUE_DETAIL - 1] + "…"
    fields: dict[str, Any] = {"status": resp.status, "grpc_code": code_for_http(resp.status), "detail": detail or None}
    hints.notes.append("the body states nothing machine-readable; classified from the status and headers")
    return finish(fields, None, hints, NAME)


def decode(
    data: bytes,
    *,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
) -> Fault:
    """A Fault from a whole HTTP response, whatever its body."""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8", "surrogateescape")  # bytes smuggled in text come back as bytes
        except UnicodeEncodeError:
            raise DecodeError("the response text holds a lone surrogate; give the response as bytes") from None
    if not isinstance(data, (bytes, bytearray)):
        raise DecodeError(f"http takes the response as bytes, got {type(data).__name__}")
    resp = parse_response(bytes(data), limits)
    hints = _hints(resp, now)
    content_type = (resp.get("content-type") or "").split(";")[0].strip().lower()
    json_like = content_type.endswith("json") or not content_type or content_type == "text/plain"
    if json_like and content_type != "application/problem+json":
        # A google body in the usual shape, decoded typed from the bytes (msgspec checks
        # the UTF-8); any other body comes back None and goes the general way below.
        typed = read_google(resp.body, limits)
        if typed is not None and (typed[0] is not None or typed[1] is not None):  # as google_error.looks_like sees it
            return _with_headers(google_error.from_typed(typed, dialect=NAME, hints=hints, http_status=resp.status), resp)
    elif content_type == "application/problem+json":
        body = read_problem(resp.body, limits)  # errconv's own members, decoded typed
        if body is not None:
            # from_typed notes nothing on `hints` before it answers None, so the general way starts clean.
            fast = problem.from_typed(body, limits, dialect=NAME, hints=hints, http_status=resp.status)
            if fast is not None:
                return _with_headers(fast, resp)
    try:
        text = resp.body.decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError("the response body is not valid UTF-8") from None
    stripped = text.strip()
    fault: Fault
    if stripped[:1] in ("{", "[") and json_like:
        obj = read_json(stripped, limits, "the response body")
        if content_type == "application/problem+json" and isinstance(obj, dict):
            fault = problem.from_object(obj, limits, dialect=NAME, hints=hints, http_status=resp.status)
        elif google_error.looks_like(obj):
            fault = google_error.from_object(obj, limits, dialect=NAME, hints=hints, http_status=resp.status)
        elif stripe_error.looks_like(obj):
            fault = stripe_error.from_object(obj, limits, dialect=NAME, hints=hints, http_status=resp.status)
        elif status_json.looks_like(obj):
            fault = status_json.from_object(obj, limits, dialect=NAME, hints=hints, http_status=resp.status)
        elif isinstance(obj, dict):
            fault = problem.from_object(obj, limits, dialect=NAME, hints=hints, http_status=resp.status)
        else:
            fault = _vague(resp, hints, stripped, content_type)
    else:
        fault = _vague(resp, hints, text, content_type)
    return _with_headers(fault, resp)


def _with_headers(fault: Fault, resp: Response) -> Fault:
    changes: dict[str, Any] = {}
    grpc_status = resp.get("grpc-status")
    if grpc_status is not None and _GRPC_STATUS.fullmatch(grpc_status.strip()):
        code = valid_code(int(grpc_status))
        if code != fault.grpc_code:
            changes["grpc_code"] = code
    request_id = resp.get("request-id")
    if request_id and not any(isinstance(d, RequestInfo) for d in fault.details):
        changes["details"] = (*fault.details, RequestInfo(request_id=request_id))
    return fault.replace(**changes) if changes else fault


# --------------------------------------------------------------------------- encoding


def _header_copy(value: str, limits: Limits) -> str | None:
    """`value` fit to copy into a header (printable ASCII, within max_header), else None."""
    value = safe_header_value(value)
    # isprintable() also refuses the HTAB that RFC 9110 allows: a copied value is one plain token.
    if value and value.isascii() and value.isprintable() and len(value) <= limits.max_header:
        return value
    return None


def encode_with(body_dialect: str, fault: Fault, *, keep_debug: bool = False, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """An HTTP/1.1 response for `fault` with a `body_dialect` body (problem, google or stripe).

    An outer boundary: DebugInfo is dropped (typed, kept raw, or nested in extension
    members) unless `keep_debug`. Every header value is a number, a fixed string, or
    a Request-Id copied only when it is printable ASCII within `limits.max_header`.
    """
    if not keep_debug:
        fault = without_debug(fault)
    if body_dialect == "problem":
        body = write_json(problem.to_object(fault, keep_debug=keep_debug, status_line=True))
        content_type = problem.MEDIA_TYPE
    elif body_dialect == "google":
        body = write_json(google_error.to_object(fault, keep_debug=keep_debug))
        content_type = "application/json; charset=UTF-8"
    elif body_dialect == "stripe":
        body = write_json(stripe_error.to_object(fault))
        content_type = "application/json"
    else:
        raise ValueError(f"http+ takes a body dialect of {', '.join(BODY_DIALECTS)}, got {body_dialect!r}")
    # No value below needs safe_header_value: each is a fixed string, a number, or the
    # Request-Id, which _header_copy has made safe already.
    lines = [f"HTTP/1.1 {fault.status} {reason_phrase(fault.status)}", f"Content-Type: {content_type}"]
    wait = fault.next_step == NextStep.WAIT
    if wait and fault.retry_after_seconds is not None:
        lines.append(f"Retry-After: {format_retry_after(min(fault.retry_after_seconds, MAX_RETRY_AFTER_SECONDS))}")
    if body_dialect == "stripe":
        lines.append("Stripe-Should-Retry: true" if wait else "Stripe-Should-Retry: false")
        # Sanitised first: a Request-Id that is all spaces and controls is no header at all.
        request_id = next(
            (v for d in fault.details if isinstance(d, RequestInfo) and (v := _header_copy(d.request_id, limits))),
            None,
        )
        if request_id:
            lines.append(f"Request-Id: {request_id}")
    lines.append(f"Content-Length: {len(body)}\r\n\r\n")
    return "\r\n".join(lines).encode("latin-1", "replace") + body
