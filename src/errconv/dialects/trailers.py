"""`grpc`: gRPC trailers, as grpcio takes them.

    grpc-status: 8
    grpc-message: Quota%20exceeded      (percent-encoded per gRPC's PROTOCOL-HTTP2.md)
    grpc-status-details-bin: <google.rpc.Status>
    grpc-retry-pushback-ms: 30000        (the delay for a wait, -1 otherwise; gRFC A6)

The Python form is a list of (key, value) pairs: raw bytes for `-bin` keys, str
otherwise. The text form has one `key: value` line each, `-bin` values in unpadded
base64. Decoding takes either, and raw, padded or unpadded base64 values. When
grpc-status and the Status inside disagree, grpc-status wins and the mismatch is
recorded in `Fault.origin.notes`. Lossless for every Fault.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterable, Sequence

from .._errors import DecodeError, shorten
from ..codes import NextStep
from ..fault import Fault
from ..limits import DEFAULT_LIMITS, MAX_RETRY_AFTER_SECONDS, Limits
from ._common import Hints, valid_code
from .rpc_status import from_message, parse, to_message

__all__ = [
    "MEDIA_TYPE",
    "NAME",
    "decode",
    "encode",
    "from_text",
    "percent_decode",
    "percent_encode",
    "to_text",
]

NAME = "grpc"
MEDIA_TYPE = "text/plain"
DETAILS_KEY = "grpc-status-details-bin"
PUSHBACK_KEY = "grpc-retry-pushback-ms"
Pairs = list[tuple[str, str | bytes]]

# Percent-Byte-Unencoded: space and VCHAR except "%".
_UNENCODED = frozenset(range(0x20, 0x7F)) - {ord("%")}
_PERCENT = re.compile(rb"%([0-9A-Fa-f]{2})")


def percent_encode(text: str) -> str:
    """grpc-message encoding: UTF-8, then %XX for every byte outside space..~ and for "%".

    >>> percent_encode("naïve 100% ✓")
    'na%C3%AFve 100%25 %E2%9C%93'
    """
    raw = text.encode("utf-8", "replace")
    if all(b in _UNENCODED for b in raw):
        return text
    return "".join(chr(b) if b in _UNENCODED else f"%{b:02X}" for b in raw)


def percent_decode(value: str | bytes) -> str:
    """Decode grpc-message leniently: a broken %-sequence stays as it is, never an error."""
    raw = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else bytes(value)
    return _PERCENT.sub(lambda m: bytes([int(m.group(1), 16)]), raw).decode("utf-8", "replace")


def _b64(value: str | bytes) -> bytes:
    text = value.decode("ascii", "replace") if isinstance(value, bytes) else value
    out = b""
    # Repeated -bin headers may arrive joined by ","; each part is its own base64 value.
    for part in text.split(","):
        part = part.strip()
        try:
            out += base64.b64decode(part + "=" * (-len(part) % 4), validate=True)
        except (binascii.Error, ValueError):
            raise DecodeError(f"{DETAILS_KEY} is not base64: {shorten(part)}") from None
    return out


def encode(fault: Fault) -> Pairs:
    """Trailers for a fault, in the form grpcio's abort and set_trailing_metadata take."""
    status = to_message(fault)
    pairs: Pairs = [("grpc-status", str(fault.grpc_code))]
    if status.message:
        pairs.append(("grpc-message", percent_encode(status.message)))
    pairs.append((DETAILS_KEY, status.SerializeToString(deterministic=True)))
    if fault.next_step == NextStep.WAIT:
        if fault.retry_after_seconds is not None:
            pairs.append((PUSHBACK_KEY, str(min(fault.retry_after_seconds, MAX_RETRY_AFTER_SECONDS) * 1000)))
    elif fault.next_step is not None:
        pairs.append((PUSHBACK_KEY, "-1"))
    return pairs


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


def decode(
    data: bytes | str | Sequence[tuple[str | bytes, str | bytes]],
    *,
    limits: Limits = DEFAULT_LIMITS,
    now: object = None,
) -> Fault:
    """A Fault from trailers: a list of pairs (raw or base64 `-bin`) or their text form."""
    if isinstance(data, (bytes, bytearray, str)):
        if len(data) > limits.max_bytes:
            raise DecodeError(f"the trailers are {len(data)} bytes, over the limit of {limits.max_bytes}")
        pairs: Sequence[tuple[str | bytes, str | bytes]] = from_text(data)
    else:
        pairs = data
    values: dict[str, str | bytes] = {}
    for pair in pairs:
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise DecodeError(f"trailers are (key, value) pairs, got {shorten(pair)}") from None
        if isinstance(key, bytes):
            key = key.decode("ascii", "replace")
        if not isinstance(key, str) or not isinstance(value, (str, bytes)):
            raise DecodeError(f"trailers are (key, value) pairs of text, got {shorten(pair)}")
        values.setdefault(key.lower(), value)

    hints = Hints()
    raw_status = values.get("grpc-status")
    grpc_code: int | None = None
    if raw_status is not None:
        text = raw_status.decode("ascii", "replace") if isinstance(raw_status, bytes) else raw_status
        grpc_code = valid_code(int(text)) if text.strip().isdigit() and len(text) < 6 else 2
    else:
        hints.notes.append("no grpc-status trailer; UNKNOWN assumed")
        grpc_code = 2
    message = percent_decode(values["grpc-message"]) if "grpc-message" in values else None

    pushback = values.get(PUSHBACK_KEY)
    if pushback is not None:
        text = pushback.decode("ascii", "replace") if isinstance(pushback, bytes) else pushback
        if re.fullmatch(r"\d{1,10}", text.strip()):
            hints.wait = PUSHBACK_KEY
            hints.delay = min(math.ceil(int(text) / 1000), MAX_RETRY_AFTER_SECONDS)
        else:
            hints.no_retry = f"{PUSHBACK_KEY}: {shorten(text, 20)}"

    blob = values.get(DETAILS_KEY)
    if blob is None:
        from google.rpc import status_pb2

        status = status_pb2.Status(code=grpc_code, message=message or "")
    else:
        raw = blob if isinstance(blob, bytes) and not _looks_base64(blob) else _b64(blob)
        status = parse(raw, limits)
        if status.code != grpc_code:
            hints.notes.append(f"grpc-status {grpc_code} differs from the Status code {status.code}; grpc-status wins")
        if message is not None and message != status.message:
            hints.notes.append("grpc-message differs from the Status message; grpc-message wins")
    return from_message(status, limits=limits, hints=hints, dialect=NAME, grpc_code=grpc_code, message=message)


def _looks_base64(value: bytes) -> bool:
    # Raw Status bytes almost always hold bytes outside the base64 alphabet; text
    # that is entirely base64 is read as base64 (a serialized Status starts with a
    # tag byte, 0x08 or 0x12, which is never in the alphabet).
    return bool(value) and re.fullmatch(rb"[A-Za-z0-9+/=,\s]*", value) is not None
