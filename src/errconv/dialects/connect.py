"""`connect`: the Connect protocol's error (connectrpc.com, `docs/protocol.md`).

A unary error, sent with a non-200 status and `Content-Type: application/json`:

    {"code": "unavailable", "message": "...",
     "details": [{"type": "google.rpc.RetryInfo", "value": "CgIIPA", "debug": {...}}]}

and the end-of-stream message of a streaming response (HTTP 200, `application/connect+json`
or `+proto`, the last envelope, flag 0x02), whose `error` is the same object:

    {"error": {"code": "unavailable", "message": "overloaded"}, "metadata": {"key": ["v"]}}

`code` is one of the 16 snake-case names of google.rpc.Code (`canceled` with one l), or
`code_N` for a number outside them, as connect-go writes it. Each detail is a protobuf
message: `type` its full name (no `type.googleapis.com/` prefix), `value` its bytes in
base64, standard alphabet, unpadded (padded is read too), `debug` an optional JSON
rendering for people, which clients must not rely on: the bytes are read, and a
`debug` that disagrees with them is noted (the spec's own RetryInfo example pairs
60 s bytes with a "30s" debug). The details are read with the google.rpc machinery
(`_status.py`), so a Connect error carries exactly what a google.rpc.Status does:
ErrorInfo (code, domain, metadata and errconv's next_step/param), RetryInfo,
BadRequest, the other typed details, errconv.v1.Problem for the rest. Lossless.

Decoding is liberal: a detail that is not an object with a string `type` and a base64
`value` (the connect-python guide prints the placeholder `"base64-encoded-protobuf"`)
is kept as it came, in the extension member `details`; members the Error object does
not define, and the end-of-stream `metadata` (trailers), are kept as extensions; an
unknown code string is kept as the code, the gRPC code then coming from the HTTP
status by Connect's table (gRPC's, since RFC 003). The HTTP status is the one the
response has; a bare body gets the spec's status for its code (marked inferred).
Servers built before RFC 003 sent 408, 412 and 404 for four codes: those statuses are
accepted without a note.

Encoding writes the unary form: `code`, `message` when there is one, and `details`
(errconv's own first, as `status` writes them), each with its `debug` rendering.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from google.protobuf import message as _message

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from .._model.limits import Limits
from .._proto.errconv.v1 import problem_pb2 as _problem_pb2
from ..codes import Code, transport_code_for_http
from ..details import ErrorInfo, RawDetail
from ._base import CERTAIN, LIKELY, STRONG, Dialect, HttpInfo
from ._common import CodeValue, Reading, Writing, write_json
from .._model.schema import (
    OPAQUE_TYPE,
    TYPE_PREFIX,
    Item,
    ProblemInfo,
    check_depth,
    item_from_any,
    item_from_json,
    item_to_json,
    pack_item,
    python_to_struct,
    struct_to_python,
)
from ._status import check_details_count, fields_from_status, status_items

__all__ = ["CODE_FOR_WORD", "Connect", "HTTP_FOR_WORD", "PRE_RFC_003_HTTP", "WORD_FOR_CODE"]

# The Connect codes and their google.rpc.Code numbers (protocol.md, "Error Codes").
CODE_FOR_WORD: dict[str, int] = {
    "canceled": Code.CANCELLED,  # American spelling, one l, where gRPC's name has two
    "unknown": Code.UNKNOWN,
    "invalid_argument": Code.INVALID_ARGUMENT,
    "deadline_exceeded": Code.DEADLINE_EXCEEDED,
    "not_found": Code.NOT_FOUND,
    "already_exists": Code.ALREADY_EXISTS,
    "permission_denied": Code.PERMISSION_DENIED,
    "resource_exhausted": Code.RESOURCE_EXHAUSTED,
    "failed_precondition": Code.FAILED_PRECONDITION,
    "aborted": Code.ABORTED,
    "out_of_range": Code.OUT_OF_RANGE,
    "unimplemented": Code.UNIMPLEMENTED,
    "internal": Code.INTERNAL,
    "unavailable": Code.UNAVAILABLE,
    "data_loss": Code.DATA_LOSS,
    "unauthenticated": Code.UNAUTHENTICATED,
}
WORD_FOR_CODE: dict[int, str] = {number: word for word, number in CODE_FOR_WORD.items()}

# The HTTP status a Connect server sends with each code (protocol.md since RFC 003,
# connect-go connectCodeToHTTP): the same as google/rpc/code.proto's, codes.HTTP_FOR_CODE.
HTTP_FOR_WORD: dict[str, int] = {
    "canceled": 499,  # nginx's Client Closed Request; 408 before RFC 003
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,  # 408 before RFC 003, which invited proxies to retry non-idempotent calls
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,  # 412 before RFC 003; code.proto says 400
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,  # 404 before RFC 003
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}
# What servers built before RFC 003 (connectrpc.com PR 130, 2024-03) sent instead: read
# without a note, since the code in the body is what a Connect client goes by.
PRE_RFC_003_HTTP: dict[str, int] = {
    "canceled": 408,
    "deadline_exceeded": 408,
    "failed_precondition": 412,
    "unimplemented": 404,
}
_ACCEPTED: dict[int, frozenset[int]] = {
    CODE_FOR_WORD[word]: frozenset((status, PRE_RFC_003_HTTP.get(word, status))) for word, status in HTTP_FOR_WORD.items()
}

# A number outside the 16 names, as connect-go writes one (Code.String: "code_%d").
_CODE_N = re.compile(r"code_([0-9]{1,10})")
_ERROR_KEYS = frozenset(("code", "message", "details"))
_END_KEYS = frozenset(("error", "metadata"))
_DETAIL_KEYS = frozenset(("type", "value", "debug"))
_STREAM_MEDIA = ("application/connect+json", "application/connect+proto")
_OPAQUE_URL = TYPE_PREFIX + OPAQUE_TYPE
# Reading back what errconv wrote, to render its `debug`: a measurement, not a gate.
_READ_BACK = Limits(max_bytes=1 << 62, max_depth=1 << 20, max_details=1 << 62, max_violations=1 << 62, max_string=1 << 62)


def _is_code(value: Any) -> bool:
    return type(value) is str and (value in CODE_FOR_WORD or _CODE_N.fullmatch(value) is not None)


def _grpc_code(word: str) -> CodeValue | None:
    """The google.rpc.Code of a Connect code string, None for a string that is none."""
    number = CODE_FOR_WORD.get(word)
    if number is not None:
        return number
    m = _CODE_N.fullmatch(word)
    if m is None:
        return None
    n = int(m.group(1))
    return Code(n) if 0 <= n <= 16 else Code.UNKNOWN  # connect-go: a code past the enum is unknown


def _word(grpc_code: int) -> str:
    return WORD_FOR_CODE.get(grpc_code) or f"code_{grpc_code}"  # code_0 for OK, as connect-go writes it


def _wire_detail(entry: Any) -> bool:
    return type(entry) is dict and type(entry.get("type")) is str and type(entry.get("value")) is str and "@type" not in entry


def _error_claim(obj: Any) -> float:
    """How strongly `obj` is a Connect Error object: its code one of Connect's, no member
    it does not define, details (if any) of Connect's shape."""
    if type(obj) is not dict or not _is_code(obj.get("code")) or not obj.keys() <= _ERROR_KEYS:
        return 0.0
    message = obj.get("message")
    if message is not None and type(message) is not str:
        return 0.0
    details = obj.get("details")
    if details is None:
        return LIKELY
    if type(details) is not list or not all(_wire_detail(d) for d in details):
        return 0.0
    return STRONG if details else LIKELY


def _metadata_ok(value: Any) -> bool:
    return type(value) is dict and all(type(v) is list and all(type(x) is str for x in v) for v in value.values())


def unbase64(text: str) -> bytes | None:
    """The bytes of a base64 value, standard alphabet, padded or not; None if it is not one."""
    if len(text) % 4:
        text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _detail_url(name: str) -> str:
    # connect-go and connect-python add the prefix to a bare name and keep a URL as it is.
    return name if "/" in name else TYPE_PREFIX + name


def _debug_of(url: str, packed: bytes) -> Any:
    """The JSON rendering of a packed detail, as read back from its bytes (so that the
    same detail always renders alike, maps sorted as protobuf writes them); None for
    bytes of a type errconv does not know."""
    if url == _OPAQUE_URL:
        try:
            msg = _problem_pb2.OpaqueDetail.FromString(packed)
        except _message.DecodeError:  # JSON nested past protobuf's depth limit: it travels without a debug rendering
            return None
        out: dict[str, Any] = {}
        if msg.type_url:
            out["typeUrl"] = msg.type_url
        out["fields"] = struct_to_python(msg.fields)
        return out
    try:
        item = item_from_any(url, packed, _READ_BACK)
    except DecodeError:
        return None
    if type(item) is RawDetail:
        return None
    rendered = item_to_json(item)
    del rendered["@type"]
    return rendered


# The debug rendering is a function of the packed bytes alone (read back through the
# fixed detail codecs): kept per (type URL, bytes), so a detail seen before (the same
# ErrorInfo, RetryInfo or ProblemInfo, as most errors of a service carry) is not
# unpacked again. Bounded; a large detail is not kept. The renderings are shared:
# nothing writes into them (encode only serializes them).
_DEBUG_KEPT: dict[tuple[str, bytes], Any] = {}
_UNSEEN = object()


def _debug_kept(url: str, packed: bytes) -> Any:
    """`_debug_of(url, packed)`, remembered."""
    key = (url, packed)
    found = _DEBUG_KEPT.get(key, _UNSEEN)
    if found is _UNSEEN:
        found = _debug_of(url, packed)
        if len(packed) <= 4096:
            if len(_DEBUG_KEPT) >= 1024:
                _DEBUG_KEPT.clear()  # bounded, whatever details a stream holds
            _DEBUG_KEPT[key] = found
    return found


def _opaque_bytes(type_url: str, value: bytes) -> bytes:
    # {"@bytes": base64} is how the JSON dialects keep packed bytes; _schema reads it back
    # from an OpaqueDetail as the same RawDetail.
    msg = _problem_pb2.OpaqueDetail(type_url=type_url, fields=python_to_struct({"@bytes": base64.b64encode(value).decode("ascii")}))
    return bytes(msg.SerializeToString(deterministic=True))


class Connect(Dialect):
    """The Connect protocol's error: the unary JSON body, and the end-of-stream message."""

    lossless = True
    name = "connect"
    precedence = 70
    listed = 240
    media_type = "application/json"  # a unary error is JSON whatever the RPC's codec
    media_types = _STREAM_MEDIA  # the streaming media types, whose last envelope holds the error
    errors_on_success = True  # a stream fails inside a 200 response
    reserved = _ERROR_KEYS
    # Every object it recognises has a code (unary) or an error (end of stream): detection
    # need not ask it about others (Dialect.keys, where the registry has it).
    keys = frozenset(("code", "error"))
    ceiling = STRONG

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A Connect Error object, or an end-of-stream message holding one; CERTAIN for an
        end-of-stream message under Connect's streaming media type. A 2xx response holds
        an error only in a stream: a unary error is never sent with one."""
        if type(value) is not dict:
            return 0.0
        media = http.media_type if http is not None else ""
        streaming = media in _STREAM_MEDIA
        if "error" in value and "code" not in value:
            if not value.keys() <= _END_KEYS or ("metadata" in value and not _metadata_ok(value["metadata"])):
                return 0.0
            if streaming:
                return CERTAIN
            if http is not None and http.status is not None and http.status < 400 and media:
                return 0.0  # a 200 of another media type is no Connect stream
            claim = _error_claim(value["error"])
            return STRONG if claim and "metadata" in value else claim
        if http is not None and http.status is not None and http.status < 400:
            return 0.0
        return _error_claim(value)

    def non_json(self, body: bytes, http: HttpInfo | None) -> bytes | None:
        """The end-of-stream message of a streaming response: the JSON of the last
        envelope (1 flag byte, 4 bytes of big-endian length) whose flags have 0x02."""
        if http is None or http.media_type not in _STREAM_MEDIA:
            return None
        at, end = 0, None
        while at + 5 <= len(body):
            flags, size = body[at], int.from_bytes(body[at + 1 : at + 5], "big")
            start, at = at + 5, at + 5 + size
            if at > len(body):
                return None  # cut short
            if flags & 0x02:
                if flags & 0x01:
                    return None  # compressed: errconv reads no compression
                end = body[start:at]
        return end if at == len(body) else None

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a Connect error is a JSON object, got {shorten(value)}")
        unknown: dict[str, Any] = {}
        at = ""
        # An end-of-stream message holds `error` and `metadata` only (`{}` is a stream that
        # succeeded); inside an error response, the same members without a code are a unary
        # error that lacks one.
        status = reading.status
        stream = "code" not in value and value.keys() <= _END_KEYS and ("error" in value or status is None or status < 400)
        if stream:
            error = value.get("error")
            at = "/error"
            unknown = {k: v for k, v in value.items() if k != "error"}  # the trailers (metadata), kept verbatim
            if error is None or error == {}:
                raise DecodeError("this Connect end-of-stream message holds no error: the stream succeeded")
        else:
            error = value
        if type(error) is not dict:
            raise DecodeError(f"a Connect error is an object with a string code, got {shorten(error)}")
        for key, item in error.items():
            if key not in _ERROR_KEYS:
                unknown[key] = item
        word, message, details = error.get("code"), error.get("message"), error.get("details")

        grpc_code = _grpc_code(word) if type(word) is str else None
        if grpc_code is None:
            # connect-go: a code it cannot read is left unset and taken from the HTTP status.
            if word is not None and type(word) is not str:
                unknown["code"] = word
            grpc_code = int(transport_code_for_http(status)) if status is not None else int(Code.UNKNOWN)
            reading.inferred += ("grpc_code",)
            reading.notes += (f"no Connect code in the body ({shorten(word)}); the gRPC code comes from the HTTP status",)
        if type(message) is not str:
            if message is not None:
                unknown["message"] = message
            message = ""

        items: list[Item] = []
        if type(details) is list:
            check_details_count(len(details), reading.limits)
            bad = []
            for index, entry in enumerate(details):
                item = self._detail(entry, index, reading)
                if item is None:
                    bad.append(entry)
                else:
                    items.append(item)
            if bad:
                unknown["details"] = bad
                reading.notes += (f"{len(bad)} Connect detail(s) without a readable type and base64 value, kept as they came",)
        elif details is not None:
            unknown["details"] = details

        fields, stated, wait = fields_from_status(grpc_code, message, items)
        if "code" not in fields and not any(type(item) is ErrorInfo for item in items):
            if type(word) is str and word:
                fields["code"] = word
                if _grpc_code(word) is not None:
                    reading.inferred += ("code",)  # the protocol's code word: lint still asks for one of the service's own
        self._status(fields, grpc_code, items, stream, reading)
        if unknown:
            if reading.deep:
                check_depth(unknown, reading.limits.max_depth)
            fields["extensions"] = {**unknown, **fields["extensions"]} if "extensions" in fields else unknown
        if reading.seen is not None:
            reading.saw("body", at, "connect")
            if message:
                reading.saw("text", f"{at}/message", message)
            reading.saw("details", f"{at}/details", [item_to_json(item) for item in items])  # as a Status's, in proto3 JSON
        return reading.finish(fields, stated, wait)

    @staticmethod
    def _detail(entry: Any, index: int, reading: Reading) -> Item | None:
        """One entry of `details` as a typed detail (or RawDetail for a type errconv does not
        know); None for an entry that is not a Connect detail (kept by the caller)."""
        if not _wire_detail(entry):
            return None
        raw = unbase64(entry["value"])
        if raw is None or not entry["type"]:
            return None
        url = _detail_url(entry["type"])
        item = item_from_any(url, raw, reading.limits)
        debug = entry.get("debug")
        if type(debug) is dict and type(item) is not RawDetail:
            try:
                shown = item_from_json({**debug, "@type": url}, reading.limits)
            except DecodeError:
                shown = None
            if shown is not None and type(shown) is type(item) and shown != item:
                reading.notes += (f"detail {index} ({entry['type']}): its debug disagrees with its value; the value is read",)
        extra = entry.keys() - _DETAIL_KEYS
        if extra:
            reading.notes += (f"detail {index}: members {', '.join(sorted(extra))} ignored, as the Connect spec says",)
        return item

    @staticmethod
    def _status(fields: dict[str, Any], grpc_code: int, items: list[Item], stream: bool, reading: Reading) -> None:
        """The fault's status: the response's; for a bare body, Problem's or the code's."""
        stated = any(type(item) is ProblemInfo and item.http_status for item in items)
        http = reading.status
        if http is None:
            if not stated:
                reading.inferred += ("status",)
            return
        if stated:
            fields["status"] = reading.http_status_wins(fields["status"])
            return
        if http != fields["status"] and http not in _ACCEPTED.get(grpc_code, ()) and not (stream and http < 400):
            reading.notes += (f"HTTP status {http} is not the one Connect sends for {_word(grpc_code)} ({fields['status']}); HTTP wins",)
        fields["status"] = http

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        """The unary error: `code`, `message`, `details` (unpadded base64, with `debug`)."""
        message, items = status_items(fault, keep_debug=writing.keep_debug)
        out: dict[str, Any] = {"code": _word(fault.grpc_code)}
        if message:
            out["message"] = message
        details = []
        for item in items:
            url, packed = pack_item(item)
            if "/" not in url:
                # A type URL without a "/" (no valid Any has one) would read back with the
                # prefix added: it travels inside errconv.v1.OpaqueDetail, as JSON bytes do.
                url, packed = _OPAQUE_URL, _opaque_bytes(url, packed)
            name = url[len(TYPE_PREFIX) :]
            entry: dict[str, Any] = {
                # The bare name, as Connect writes it, where it reads back as the same URL.
                "type": name if url.startswith(TYPE_PREFIX) and name and "/" not in name else url,
                "value": base64.b64encode(packed).decode("ascii").rstrip("="),
            }
            debug = _debug_kept(url, packed)
            if debug is not None:
                entry["debug"] = debug
            details.append(entry)
        if details:
            out["details"] = details
        return write_json(out)

