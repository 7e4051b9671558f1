"""gRPC as a seam: `from_grpc(code, details, trailing_metadata)` and `to_grpc(fault)`.

What grpcio really hands over and takes: a `grpc.StatusCode` (or the int), the
message as text (grpcio percent-encodes grpc-message itself), and trailing metadata
as (key, value) pairs, `-bin` values as raw bytes:

    grpc-status-details-bin: <google.rpc.Status>
    grpc-retry-pushback-ms: 30000        (the delay for a wait, -1 otherwise; gRFC A6)

gRPC's built-in retry reads only the pushback, never RetryInfo, so a wait says its
delay in both. The trailers stay within `Limits.max_trailer_bytes` (see
`trailers_for`). Decoding never imports grpcio; `to_grpc` gives a `grpc.StatusCode`
when grpcio is installed, importing it then and only then.

Also here: grpc-message's percent-encoding (gRPC's PROTOCOL-HTTP2.md), and the text
form of trailers (`key: value` lines, `-bin` values in unpadded base64).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec
from google.rpc import status_pb2

from .._model.errors import DecodeError, shorten
from .._model.fault import _SURROGATE, METADATA_RESERVED, Fault, Origin, scrubbed
from .._model.limits import DEFAULT_LIMITS, MAX_RETRY_AFTER_SECONDS, Limits
from ..codes import Code, NextStep
from ..details import TYPE_NAMES, BadRequest, DebugInfo, ErrorInfo, RawDetail, RetryInfo
from ._common import Reading
from .._model.schema import TYPE_PREFIX, ProblemInfo, pack_item, type_name
from ._status import pack, status_bytes, status_items
from .status import from_message, parse

__all__ = [
    "DETAILS_KEY",
    "DROPPED_KEY",
    "GrpcStatus",
    "PUSHBACK_KEY",
    "from_grpc",
    "from_text",
    "percent_decode",
    "percent_encode",
    "to_grpc",
    "to_text",
    "trailers_for",
]

DETAILS_KEY = "grpc-status-details-bin"
PUSHBACK_KEY = "grpc-retry-pushback-ms"
# Where trailers_for records what it dropped to fit the budget: a key of ErrorInfo's
# metadata, which every Google client exposes; from_grpc moves it into origin.notes.
DROPPED_KEY = "errconv_dropped"
# The metadata the minimal Status keeps: the agent fields and that record.
_KEPT_METADATA = frozenset((*METADATA_RESERVED, DROPPED_KEY))
Pairs = list[tuple[str, str | bytes]]

# Percent-Byte-Unencoded: space and VCHAR except "%".
_UNENCODED = frozenset(range(0x20, 0x7F)) - {ord("%")}
_PERCENT = re.compile(rb"%([0-9A-Fa-f]{2})")
_DIGITS = re.compile(r"[0-9]{1,5}")  # ASCII only: "²".isdigit() is true and int("²") fails
_PUSHBACK_MS = re.compile(r"[0-9]{1,10}")
_BASE64_TEXT = re.compile(rb"[A-Za-z0-9+/=,\s]*")


def percent_encode(text: str) -> str:
    """grpc-message encoding: UTF-8, then %XX for every byte outside space..~ and for "%".

    A space at either end is encoded too: an HTTP/2 field value must not start or
    end with whitespace (RFC 9113 8.2.1), and the text form strips it.

    >>> percent_encode("naïve 100% ✓")
    'na%C3%AFve 100%25 %E2%9C%93'
    >>> percent_encode(" padded ")
    '%20padded%20'
    """
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: U+FFFD, as the encoders write it
        text = _SURROGATE.sub("\ufffd", text)
        raw = text.encode("utf-8")
    # Nothing to encode when deleting every unencoded byte leaves nothing (at C speed).
    if not raw.translate(None, _UNENCODED_BYTES) and raw[:1] != b" " and raw[-1:] != b" ":
        return text
    out = [chr(b) if b in _UNENCODED else f"%{b:02X}" for b in raw]
    for end in (0, -1):
        if out and out[end] == " ":
            out[end] = "%20"
    return "".join(out)


def percent_decode(value: str | bytes) -> str:
    """Decode grpc-message leniently: a broken %-sequence stays as it is, never an error."""
    if isinstance(value, str):
        try:
            raw = value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate that is no smuggled byte
            raw = value.encode("utf-8", "replace")
    else:
        raw = bytes(value)
    return _PERCENT.sub(lambda m: bytes([int(m.group(1), 16)]), raw).decode("utf-8", "replace")


def _b64(value: str | bytes) -> bytes:
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    out = []
    # Repeated -bin headers may arrive joined by ","; each part is its own base64 value.
    for part in text.split(","):
        part = part.strip()
        try:
            out.append(base64.b64decode(part + "=" * (-len(part) % 4), validate=True))
        except (binascii.Error, ValueError):
            raise DecodeError(f"{DETAILS_KEY} is not base64: {shorten(part)}") from None
    return b"".join(out)  # joined once: += in the loop is quadratic in the number of parts


# --------------------------------------------------------------------------- Fault -> trailers


class GrpcStatus:
    """What a gRPC server sends for a fault: `code` (a `grpc.StatusCode` when grpcio is
    installed, else the int), `details` (the message, as grpcio wants it: text, which
    grpcio percent-encodes) and `trailing_metadata` (pairs: grpc-status-details-bin as
    bytes, grpc-retry-pushback-ms). It has the attributes of `grpc.Status`, so a
    handler can pass it to `context.abort_with_status` as it is."""

    __slots__ = ("code", "details", "trailing_metadata")

    def __init__(self, code: Any, details: str, trailing_metadata: tuple[tuple[str, str | bytes], ...]) -> None:
        self.code = code
        self.details = details
        self.trailing_metadata = trailing_metadata

    def __repr__(self) -> str:
        return f"GrpcStatus(code={self.code!r}, details={shorten(self.details, 60)}, trailing_metadata=...)"


def to_grpc(fault: Fault, *, keep_debug: bool = False, limits: Limits = DEFAULT_LIMITS) -> GrpcStatus:
    """The status, message and trailing metadata a gRPC server should send for `fault`.

    An outer boundary by default: DebugInfo is dropped unless `keep_debug`. The
    trailers stay within `limits.max_trailer_bytes` (see `trailers_for`).

    >>> import errconv
    >>> out = errconv.to_grpc(errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=2))
    >>> int(out.code.value[0] if hasattr(out.code, "value") else out.code), out.details
    (14, '')
    >>> [key for key, _ in out.trailing_metadata]
    ['grpc-status-details-bin', 'grpc-retry-pushback-ms']
    """
    code, message, metadata = trailers_for(fault, limits=limits, keep_debug=keep_debug)
    return GrpcStatus(status_code(code), message, tuple(metadata))


def status_code(code: int) -> Any:
    """`grpc.StatusCode` for a number when grpcio is installed (UNKNOWN for a number gRPC
    has no name for), else the number."""
    codes = _status_codes()
    if codes is None:
        return code
    found = codes.get(code)
    return found if found is not None else codes[2]  # UNKNOWN


_STATUS_CODES: list[dict[int, Any] | None] = []


def _status_codes() -> dict[int, Any] | None:
    if not _STATUS_CODES:
        try:
            import grpc  # only here: nothing else errconv does needs grpcio
        except ImportError:
            _STATUS_CODES.append(None)
        else:
            _STATUS_CODES.append({member.value[0]: member for member in grpc.StatusCode})
    return _STATUS_CODES[0]


def trailers_for(
    fault: Fault, *, limits: Limits = DEFAULT_LIMITS, keep_debug: bool = True, dropped: Sequence[str] = ()
) -> tuple[int, str, Pairs]:
    """The gRPC code, the message and the trailing metadata for a fault: the pure
    translation under `to_grpc`, the `grpc` dialect and the interceptors.

    The whole trailer block (grpc-status, grpc-message percent-encoded, the metadata)
    stays within `limits.max_trailer_bytes`, counted as HPACK and gRPC's metadata limit
    count it (name, value as sent with `-bin` values in unpadded base64, 32 bytes an
    entry). A fault that does not fit loses, in this order and only until it fits:

    1. DebugInfo;
    2. its other details, last first;
    3. the bulky parts of errconv.v1.Problem (type, title, instance, alternatives,
       extensions);
    4. the violations (BadRequest);
    5. the end of the message (cut, with "…");
    6. the rest of errconv.v1.Problem (an HTTP status other than the code's, an exact
       code the reason cannot spell);
    7. ErrorInfo's domain, and its metadata other than next_step, param, blocked_by and
       unblock_with (and those when longer than 256 characters);
    8. the rest of the message. What is left is the minimal Status: ErrorInfo with the
       reason and the agent fields, and RetryInfo for a wait;
    9. only for a budget too small even for that (a few hundred bytes): the record of
       what was dropped, then the agent fields but next_step, then the Status itself.

    The code and grpc-retry-pushback-ms always go out. What was dropped is recorded in
    the ErrorInfo's metadata under `errconv_dropped` (names as `errconv.losses` gives
    them, comma-separated), which `from_grpc` reads back into `fault.origin.notes`;
    `dropped` names what the caller dropped already (the handler's own trailers, in
    the interceptors), recorded with the rest. `errconv.losses(fault, "grpc")` names
    what was dropped.
    """
    try:
        return _trailers(fault, limits, keep_debug, dropped)
    except UnicodeEncodeError:  # a lone surrogate (see scrubbed): written as U+FFFD instead
        return _trailers(scrubbed(fault), limits, keep_debug, dropped)


def _trailers(fault: Fault, limits: Limits, keep_debug: bool, dropped: Sequence[str]) -> tuple[int, str, Pairs]:
    message, items = status_items(fault, keep_debug=keep_debug)
    pushback: Pairs = []
    if fault.next_step == NextStep.WAIT:
        if fault.retry_after_seconds is not None:
            pushback.append((PUSHBACK_KEY, str(max(0, min(fault.retry_after_seconds, MAX_RETRY_AFTER_SECONDS)) * 1000)))
    elif fault.next_step is not None:
        pushback.append((PUSHBACK_KEY, "-1"))
    packed = [pack(i) for i in items]
    # Most faults fit: write them whole and measure what was written (grpc-status and
    # grpc-message by their lengths alone: the gRPC library writes those two itself).
    # _Fit, which counts what each cut would save without writing anything, is for the rest.
    code = fault.grpc_code
    metadata: Pairs = [(DETAILS_KEY, status_bytes(code, message, packed)), *pushback]
    head = _STATUS_ENTRY + len(str(code))
    if message:
        head += _MESSAGE_ENTRY + _percent_len(message.encode("utf-8", "replace"))
    if dropped or head + _size(metadata) > limits.max_trailer_bytes:
        field = "detail" if fault.detail else "title"
        fit = _Fit(code, message, packed, items, limits.max_trailer_bytes - _size(pushback), field, dropped)
        fit.shrink()
        message = fit.message
        metadata = _pairs(code, message, fit.packed, pushback)[2 if message else 1 :]
    return code, message, metadata


def _pairs(code: int, message: str, packed: list[tuple[str, bytes]] | None, pushback: Pairs) -> Pairs:
    pairs: Pairs = [("grpc-status", str(code))]
    if message:
        pairs.append(("grpc-message", percent_encode(message)))
    if packed is not None:
        pairs.append((DETAILS_KEY, status_bytes(code, message, packed)))
    pairs.extend(pushback)
    return pairs


_ENTRY_OVERHEAD = 32  # RFC 7541 4.1: an entry's size is its name, its value and 32
_UNENCODED_BYTES = bytes(sorted(_UNENCODED))


def _percent_len(raw: bytes) -> int:
    """len(percent_encode(text)) for text's UTF-8 bytes, counted at C speed."""
    if not raw:
        return 0
    escaped = len(raw.translate(None, _UNENCODED_BYTES))
    ends = (raw[:1] == b" ") + (len(raw) > 1 and raw[-1:] == b" ")
    return len(raw) + 2 * (escaped + ends)


def _size(pairs: Iterable[tuple[str, str | bytes]]) -> int:
    total = 0
    for key, value in pairs:  # a plain loop: this runs on every fault written
        total += len(key) + _wire_len(key, value) + _ENTRY_OVERHEAD
    return total


_STATUS_ENTRY = len("grpc-status") + _ENTRY_OVERHEAD
_MESSAGE_ENTRY = len("grpc-message") + _ENTRY_OVERHEAD


def _wire_len(key: str, value: str | bytes) -> int:
    return -(-len(value) * 4 // 3) if key.endswith("-bin") else len(value)


def _varint_len(n: int) -> int:
    return max(1, (n.bit_length() + 6) // 7)


def _field_len(n: int) -> int:
    """Bytes of a length-delimited field of `n` bytes with a one-byte tag."""
    return 1 + _varint_len(n) + n


def _any_len(type_url: str, value: bytes) -> int:
    """Bytes of the serialized Any for a packed detail (proto3 leaves out an empty field)."""
    url_len = len(type_url.encode())
    return (_field_len(url_len) if url_len else 0) + (_field_len(len(value)) if value else 0)


class _Fit:
    """The Status of a fault cut down, step by step, to fit a trailer budget."""

    def __init__(
        self,
        code: int,
        message: str,
        packed: list[tuple[str, bytes]],
        items: list[Any],
        budget: int,
        field: str,
        dropped: Sequence[str],
    ) -> None:
        self.code = code
        self.packed: list[tuple[str, bytes]] | None = packed  # pack_item's pairs; None: no Status at all
        self.items = items
        self.budget = budget
        self.field = field  # the fault's field the message is: detail, or title
        self.sizes = [_any_len(type_url, value) for type_url, value in packed]
        self.dropped: list[str] = []
        # status_items puts the fault's own ErrorInfo first: the record goes into it.
        self.info = 0 if items and type(items[0]) is ErrorInfo else None
        # The first ErrorInfo, RetryInfo and BadRequest, and the Problem, hold the fault's
        # own fields; the rest are its details. By identity: replace() carries it over.
        self.own: set[int] = set()
        seen: set[type] = set()
        for item in items:
            if isinstance(item, (ErrorInfo, RetryInfo, BadRequest, ProblemInfo)) and type(item) not in seen:
                seen.add(type(item))
                self.own.add(id(item))
        self.set_message(message)
        self.note(*dropped)

    def set_message(self, message: str) -> None:
        self.message = message
        raw = message.encode("utf-8", "replace")
        self.raw_len = len(raw)  # its size in Status.message
        self.sent_len = _percent_len(raw)  # and in grpc-message

    def total(self) -> int:
        size = len("grpc-status") + len(str(self.code)) + _ENTRY_OVERHEAD
        if self.message:
            size += len("grpc-message") + self.sent_len + _ENTRY_OVERHEAD
        if self.packed is not None:
            status = (1 + _varint_len(self.code) if self.code else 0) + (_field_len(self.raw_len) if self.message else 0)
            status += sum(_field_len(n) for n in self.sizes)
            size += len(DETAILS_KEY) + -(-status * 4 // 3) + _ENTRY_OVERHEAD
        return size

    def fits(self) -> bool:
        return self.total() <= self.budget

    def drop(self, keep: Callable[[int, Any], bool]) -> None:
        kept = [i for i, item in enumerate(self.items) if keep(i, item)]
        keep_set = set(kept)
        gone = [name for i, item in enumerate(self.items) if i not in keep_set for name in labels(item)]
        if self.info is not None:
            self.info = kept.index(self.info) if self.info in kept else None
        self.items = [self.items[i] for i in kept]
        self.packed = [self.packed[i] for i in kept]  # type: ignore[index]
        self.sizes = [self.sizes[i] for i in kept]
        self.note(*gone)

    def replace(self, index: int, item: Any) -> None:
        if id(self.items[index]) in self.own:
            self.own.discard(id(self.items[index]))
            self.own.add(id(item))
        self.items[index] = item
        self.packed[index] = pack(item)  # type: ignore[index]
        self.sizes[index] = _any_len(*self.packed[index])  # type: ignore[index]

    def note(self, *names: str) -> None:
        """Record `names` as dropped, in the ErrorInfo (which then costs what the record does)."""
        fresh = [n for n in names if n and n not in self.dropped]
        if not fresh:
            return
        self.dropped.extend(fresh)
        if self.info is not None:
            e = self.items[self.info]
            self.replace(self.info, ErrorInfo(reason=e.reason, domain=e.domain, metadata={**e.metadata, DROPPED_KEY: ",".join(self.dropped)}))

    def shrink(self) -> None:
        if self.fits():
            return
        # 1. DebugInfo; 2. the other details, last first.
        self.drop(lambda i, item: id(item) in self.own or not _is_debug(item))
        while not self.fits():
            details = [i for i, item in enumerate(self.items) if id(item) not in self.own]
            if not details:
                break
            last = details[-1]
            self.drop(lambda i, item: i != last)
        if self.fits():
            return
        # 3. The bulky parts of errconv.v1.Problem.
        problem = next((i for i, item in enumerate(self.items) if isinstance(item, ProblemInfo)), None)
        if problem is not None:
            p = self.items[problem]
            bulky = {"type": p.type, "title": p.title, "instance": p.instance, "alternatives": p.alternatives, "extensions": p.extensions}
            self.replace(problem, msgspec.structs.replace(p, type="", title="", instance="", alternatives=(), alternatives_truncated=False, extensions={}))
            self.note(*(name for name, value in bulky.items() if value))
            if self.fits():
                return
        # 4. The violations.
        self.drop(lambda i, item: not isinstance(item, BadRequest))
        if self.fits():
            return
        # 5. The end of the message.
        self._shorten_message()
        if self.fits():
            return
        # 6. The rest of errconv.v1.Problem, but an exact code (the code as its service
        # spells it, which the reason cannot): that is part of the minimal Status.
        problem = next((i for i, item in enumerate(self.items) if isinstance(item, ProblemInfo)), None)
        if problem is not None and self.items[problem].code:
            p = self.items[problem]
            self.replace(problem, ProblemInfo(code=p.code, message_is_title=p.message_is_title))
            self.note(*labels(msgspec.structs.replace(p, code="", message_is_title=False)))
        else:
            self.drop(lambda i, item: not isinstance(item, ProblemInfo))
        if self.fits():
            return
        # 7. ErrorInfo's domain and its metadata but the agent fields.
        if self.info is not None:
            e = self.items[self.info]
            kept = {k: v for k, v in e.metadata.items() if k in _KEPT_METADATA and len(v) <= 256}
            lost = [k if k in METADATA_RESERVED else "metadata" for k in e.metadata if k not in kept]
            self.replace(self.info, ErrorInfo(reason=e.reason, metadata=kept))
            self.note(*(["domain"] if e.domain else []), *lost)
            if self.fits():
                return
        # 8. The rest of the message: the minimal Status is what is left.
        if self.message:
            self.note(self.field)
            self.set_message("")
            if self.fits():
                return
        # 9. A budget too small for the minimal Status: the record, the exact code, the
        # agent fields but next_step, and last the Status itself.
        if self.info is not None:
            e = self.items[self.info]
            self.replace(self.info, ErrorInfo(reason=e.reason, metadata={k: v for k, v in e.metadata.items() if k != DROPPED_KEY}))
            if self.fits():
                return
            self.drop(lambda i, item: not isinstance(item, ProblemInfo))
            if self.fits():
                return
            step = {k: v for k, v in e.metadata.items() if k == "next_step"}
            self.replace(self.info, ErrorInfo(reason=e.reason, metadata=step))
            if self.fits():
                return
        self.packed = None
        self.sizes = []

    def _shorten_message(self) -> None:
        """The longest start of the message (with "…") that fits, found by halving."""
        if not self.message:
            return
        self.note(self.field)
        text = self.message[: self.budget]  # a character costs a byte at least: no longer start fits
        low, high = 0, len(text)
        while low < high:
            mid = (low + high + 1) // 2
            self.set_message(text[:mid] + "…")
            if self.fits():
                low = mid
            else:
                high = mid - 1
        self.set_message(text[:low] + "…" if low else "")


def labels(item: Any) -> list[str]:
    """What dropping `item` from a Status loses, named as `errconv.losses` names it."""
    if isinstance(item, ProblemInfo):
        return [n for n, v in (("status", item.http_status), ("code", item.code or item.reason_synthesized), ("title", item.message_is_title)) if v]
    if isinstance(item, BadRequest):
        return ["violations"]
    if isinstance(item, RawDetail):
        return ["details." + item.type_url.rsplit("/", 1)[-1]]
    return ["details." + TYPE_NAMES[type(item)].rsplit(".", 1)[-1]]


def _is_debug(item: Any) -> bool:
    if isinstance(item, RawDetail):
        return type_name(item.type_url) == "google.rpc.DebugInfo"
    return isinstance(item, DebugInfo)


def to_text(pairs: Iterable[tuple[str, str | bytes]]) -> bytes:
    """The text form: `key: value` lines, `-bin` values as unpadded base64."""
    lines = []
    for key, value in pairs:
        if key.endswith("-bin"):
            raw = value if isinstance(value, bytes) else value.encode()
            value = base64.b64encode(raw).decode().rstrip("=")
        elif isinstance(value, bytes):
            value = value.decode("ascii", "replace")
        lines.append(f"{key}: {value}\n")
    return "".join(lines).encode()


def from_text(data: bytes | str) -> Pairs:
    """Pairs from the text form (blank lines and `#` comments skipped)."""
    text = data.decode("utf-8", "replace") if isinstance(data, (bytes, bytearray)) else data
    pairs: Pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            raise DecodeError(f"line {number} of the trailers is not `key: value`: {shorten(line)}")
        pairs.append((key.strip().lower(), value.strip()))
    return pairs


# --------------------------------------------------------------------------- trailers -> Fault


def _code_number(code: Any) -> int | None:
    """The number of a gRPC code as grpcio gives it (`grpc.StatusCode`, whose value is
    `(number, name)`), an int, or its text."""
    value = getattr(code, "value", code)
    if isinstance(value, tuple) and value:
        value = value[0]
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    if isinstance(value, str):
        return int(value) if _DIGITS.fullmatch(value.strip()) else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def from_grpc(
    code: Any,
    details: Any = None,  # text, bytes or None; Any, so that a compiled build checks it inside
    trailing_metadata: Any = (),
    *,
    limits: Limits = DEFAULT_LIMITS,
    trace: bool = False,
) -> Fault:
    """The Fault of a failed gRPC call, from what a `grpc.RpcError` gives: `code()` (a
    `grpc.StatusCode`, an `errconv.Code`, an int, its digits, or its name in any case:
    "UNAVAILABLE"), `details()` (the message, as text) and `trailing_metadata()` (pairs,
    or a mapping; grpc-status-details-bin as bytes or base64).

    A code that is none of those, or outside 1 to 16, is a DecodeError; so is OK (0),
    which is no failure (as `from_http` refuses a 2xx). None means the peer sent no
    grpc-status: UNKNOWN, noted.

    A Status in the metadata gives the rich fault; without one the fault is made from
    the code and message. When the code and the Status disagree, the code wins and
    the mismatch is noted in `Fault.origin.notes`.

    >>> import errconv
    >>> errconv.from_grpc(14, "overloaded", [("grpc-retry-pushback-ms", "2000")]).retry_after_seconds
    2
    """
    if code is not None:
        code = _api_code(code)
    if isinstance(trailing_metadata, Mapping):
        trailing_metadata = tuple(trailing_metadata.items())
    reading = Reading(limits, dialect="grpc", trace=trace, size=0)  # read() counts what it reads
    return read(code, details, trailing_metadata, reading, strict=False)


def _api_code(code: Any) -> int:
    """The number of a code a caller hands `from_grpc`; DecodeError for anything that is no
    failure's code (the wire's grpc-status is read more leniently, by `read`)."""
    value = getattr(code, "value", code)  # grpc.StatusCode's value is (number, name)
    if isinstance(value, tuple) and value:
        value = value[0]
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    number: int | None = None
    if isinstance(value, str):
        text = value.strip()
        if _DIGITS.fullmatch(text):
            number = int(text)
        else:
            name = text.upper().replace(" ", "_").removeprefix("STATUSCODE.").removeprefix("CODE.")
            member = Code.__members__.get(name)
            number = None if member is None or not name.isascii() else int(member)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    if number is None:
        raise DecodeError(
            f"a gRPC code is a grpc.StatusCode, a number or a name such as UNAVAILABLE, got {shorten(code)}"
        )
    if number == 0:
        raise DecodeError("not an error: gRPC code OK (0)")
    if not 1 <= number <= 16:
        raise DecodeError(f"a gRPC code is from 1 to 16, got {shorten(code)}")
    return number


def read(code: Any, details: Any, trailing_metadata: Any, reading: Reading, *, strict: bool = True) -> Fault:
    """from_grpc's work, with a Reading in hand. Not `strict` (a call that ended, whose
    code and message grpcio has read already): details that do not parse are noted in
    the origin, and the fault is made from the code and message."""
    limits = reading.limits
    values: dict[str, str | bytes] = {}
    total = 0
    if details is not None and not isinstance(details, (str, bytes)):
        raise DecodeError(f"the gRPC message is text or bytes, got {shorten(details)}")
    try:
        pairs = iter(trailing_metadata or ())
    except TypeError:  # an int, an object: no form of metadata at all
        raise DecodeError(f"trailers are (key, value) pairs, got {shorten(trailing_metadata)}") from None
    for pair in pairs:
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise DecodeError(f"trailers are (key, value) pairs, got {shorten(pair)}") from None
        if isinstance(key, bytes):
            key = key.decode("ascii", "replace")
        if not isinstance(key, str) or not isinstance(value, (str, bytes)):
            raise DecodeError(f"trailers are (key, value) pairs of text, got {shorten(pair)}")
        total += len(key) + len(value)
        if total > limits.max_bytes:
            raise DecodeError(f"the trailers are over the limit of {limits.max_bytes} bytes (Limits.max_bytes)")
        values.setdefault(key.lower(), value)
    total += len(details) if details else 0
    if total > limits.max_bytes:
        raise DecodeError(f"the trailers are over the limit of {limits.max_bytes} bytes (Limits.max_bytes)")
    reading.size = max(reading.size, total)

    number = _code_number(code)
    if code is None:
        reading.notes += ("no grpc-status; UNKNOWN assumed",)
        grpc_code = 2
    else:
        grpc_code = number if number is not None and 0 <= number <= 16 else 2
    if isinstance(details, bytes):
        details = details.decode("utf-8", "replace")
    elif details and not details.isascii():
        details = _SURROGATE.sub("\ufffd", details)  # a lone surrogate no Status can hold: U+FFFD, as percent_decode reads it
    message = details or None

    pushback = values.get(PUSHBACK_KEY)
    if pushback is not None:
        text = pushback.decode("ascii", "replace") if isinstance(pushback, bytes) else pushback
        reading.saw(f"delay:{PUSHBACK_KEY}", f"/{PUSHBACK_KEY}", text)
        if _PUSHBACK_MS.fullmatch(text.strip()):
            reading.wait = PUSHBACK_KEY
            reading.delay = min(math.ceil(int(text) / 1000), MAX_RETRY_AFTER_SECONDS)
        else:
            reading.no_retry = f"{PUSHBACK_KEY}: {shorten(text, 20)}"

    blob = values.get(DETAILS_KEY)
    if blob is None:
        status = status_pb2.Status(code=grpc_code, message=message or "")
    if blob is None:
        if reading.seen is not None:
            reading.saw("body", "", "trailers")
            if message:
                reading.saw("text", "/grpc-message", message)
    else:
        try:
            raw = blob if isinstance(blob, bytes) and not _looks_base64(blob) else _b64(blob)
            status = parse(raw, reading)
        except DecodeError as exc:
            if strict:
                raise
            reading.notes += (f"{DETAILS_KEY} ignored: {exc}",)
            status, blob = status_pb2.Status(code=grpc_code, message=message or ""), None
        if status.code != grpc_code:
            reading.notes += (f"grpc-status {grpc_code} differs from the Status code {status.code}; grpc-status wins",)
            reading.saw("status", "/grpc-status", grpc_code)
        if message is not None and message != status.message:
            reading.notes += ("grpc-message differs from the Status message; grpc-message wins",)
    fault = from_message(status, reading, grpc_code=grpc_code, message=message, at=f"/{DETAILS_KEY}", traced=blob is not None)
    if fault.metadata and DROPPED_KEY in fault.metadata:
        fault = _dropped_to_notes(fault)
    return fault


def _dropped_to_notes(fault: Fault) -> Fault:
    """The sender's record of what it dropped (trailers_for) is about the trailers, not
    the failure: it goes into the origin's notes, not the fault's metadata."""
    metadata = dict(fault.metadata)
    names = metadata.pop(DROPPED_KEY)
    names = names if len(names) <= 300 else names[:300] + "…"
    note = f"the sender dropped {names.replace(',', ', ')} to fit its trailer budget ({DROPPED_KEY})"
    origin = fault.origin or Origin(dialect="grpc")
    return fault.replace(metadata=metadata, origin=msgspec.structs.replace(origin, notes=(*origin.notes, note)))


def _looks_base64(value: bytes) -> bool:
    # Raw Status bytes almost always hold bytes outside the base64 alphabet; text
    # that is entirely base64 is read as base64 (a serialized Status starts with a
    # tag byte, 0x08 or 0x12, which is never in the alphabet).
    return bool(value) and _BASE64_TEXT.fullmatch(value) is not None


def read_trailers(data: Any, reading: Reading) -> Fault:
    """The Fault in whole trailers: pairs (grpc-status and grpc-message among them) or
    their text form."""
    limits = reading.limits
    if isinstance(data, (bytes, bytearray, str)):
        if len(data) > limits.max_bytes:
            raise DecodeError(f"the trailers are {len(data)} bytes, over the limit of {limits.max_bytes}")
        pairs: Sequence[Any] = from_text(bytes(data) if isinstance(data, bytearray) else data)
    else:
        pairs = data
    code: Any = None
    message: str | None = None
    rest = []
    seen_status = seen_message = False
    for pair in pairs:
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise DecodeError(f"trailers are (key, value) pairs, got {shorten(pair)}") from None
        name = key.decode("ascii", "replace").lower() if isinstance(key, bytes) else key.lower() if isinstance(key, str) else key
        if name == "grpc-status" and not seen_status:
            seen_status = True
            text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
            code = int(text) if isinstance(text, str) and _DIGITS.fullmatch(text.strip()) else -1
        elif name == "grpc-message" and not seen_message:
            seen_message = True
            if isinstance(value, (str, bytes)):
                message = percent_decode(value)
        else:
            rest.append(pair)
    if not seen_status:
        code = None
    return read(code, message, rest, reading)
