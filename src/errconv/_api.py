"""The public verbs: decode, encode, convert, losses, detect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ._errors import DecodeError, LossError, shorten
from .details import TYPE_NAMES, RawDetail
from .dialects import detect as _detect
from .dialects import get
from .fault import Fault
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["convert", "decode", "detect", "encode", "losses"]

# What losses() reads back with: a measurement, not a gate.
_UNLIMITED = Limits(
    max_bytes=1 << 62, max_depth=1 << 20, max_details=1 << 62, max_violations=1 << 62, max_string=1 << 62, max_header=1 << 62
)


def decode(
    data: Any,
    dialect: str | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
) -> Fault:
    """Read an error in any dialect into a Fault; the dialect is detected when not named.

    `now` (epoch seconds, or a callable giving them) is the clock an HTTP-date
    Retry-After is measured against when the response has no Date header.

    >>> decode(b'{"type": "about:blank", "status": 503, "retry_after_seconds": 30}').next_step
    <NextStep.WAIT: 'wait'>
    """
    codec = None if dialect is None else get(dialect)
    name = dialect or "detected"
    try:
        if codec is None:
            name = _detect(data, limits=limits)
            codec = get(name)
        fault = codec.decode(data, limits=limits, now=now)
    except DecodeError:
        raise
    except Exception as exc:
        # A shape no codec path anticipated. Decoding must answer with DecodeError, never
        # another type: at a public edge a bug fails closed. The fuzz tests switch this
        # net off to see such bugs (and fix them) instead.
        if not _SAFETY_NET:
            raise
        if isinstance(exc, (RecursionError, MemoryError)):
            raise DecodeError(f"the {name} input is too deeply nested or too large to read") from None
        raise DecodeError(f"cannot read the input as {name}: {type(exc).__name__}: {shorten(str(exc), 80)}") from None
    if len(fault.details) > limits.max_details:
        # Whatever the dialect: a Status's container may hold four more (the codecs check
        # that before parsing), but no fault holds more details than any dialect reads back.
        raise DecodeError(f"{len(fault.details)} details, over the limit of {limits.max_details} (Limits.max_details)")
    if _input_size(data) > limits.max_string:  # no decoded string is longer than its input
        _check_strings(fault, limits.max_string)
    return fault


_SAFETY_NET = True


def _input_size(data: Any) -> int:
    if isinstance(data, (bytes, bytearray, str, memoryview)):
        return len(data)
    try:
        return sum(len(k) + len(v) for k, v in data)
    except (TypeError, ValueError):
        return 0  # the codec read it already; it was pairs


def _check_strings(fault: Fault, limit: int) -> None:
    """DecodeError when any string in `fault` (a field, a key, a value in extensions or
    details) is longer than `limit` characters."""
    stack: list[Any] = [getattr(fault, f) for f in Fault.__struct_fields__ if f != "origin"]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if len(value) > limit:
                raise DecodeError(
                    f"a string of {len(value)} characters ({shorten(value, 24)}), over the limit of {limit} (Limits.max_string)"
                )
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
        elif isinstance(value, msgspec.Struct):
            stack.extend(getattr(value, f) for f in value.__struct_fields__)


def encode(fault: Fault, dialect: str, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Write a Fault in a dialect: bytes, or for `grpc` a list of (key, value) trailer pairs.

    `limits` bounds what goes into headers and trailers: `max_trailer_bytes` for
    `grpc`, `max_header` for the Request-Id the `http+` forms copy.

    >>> encode(Fault.build(status=404, code="not_found"), "stripe")
    b'{"error":{"type":"invalid_request_error","code":"not_found","next_step":"give_up"}}'
    """
    return _encode(get(dialect), fault, limits)


def _encode(codec: Any, fault: Fault, limits: Limits) -> Any:
    if codec.name == "grpc" or codec.name.startswith("http"):
        return codec.encode(fault, limits=limits)
    return codec.encode(fault)


def convert(
    data: Any,
    to: str,
    source: str | None = None,
    *,
    strict: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
) -> Any:
    """Decode `data` (from `source`, or detected) and encode it as `to`.

    With `strict=True`, raises LossError instead of dropping what `to` cannot carry.
    """
    target = get(to)
    fault = decode(data, source, limits=limits, now=now)
    out = _encode(target, fault, limits)
    if strict:
        lost = _measured(fault, target, out)
        if lost:
            raise LossError(to, lost)
    return out


def encode_with_losses(fault: Fault, dialect: str, *, limits: Limits = DEFAULT_LIMITS) -> tuple[Any, tuple[str, ...]]:
    """`encode(fault, dialect)` and `losses(fault, dialect)` together, encoding once
    (the command line reports what each body lost as it converts)."""
    codec = get(dialect)
    out = _encode(codec, fault, limits)
    return out, _measured(fault, codec, out)


def losses(fault: Fault, dialect: str, *, limits: Limits = DEFAULT_LIMITS) -> tuple[str, ...]:
    """The fields of `fault` that `dialect` cannot carry, by name.

    Measured, not declared: the fault is written in the dialect and read back, and
    every field that did not come back equal is named. A lost detail is named by
    its type (`details.DebugInfo`).

    >>> losses(Fault.build(status=429, code="rate_limit", domain="example.com",
    ...                    next_step="wait", retry_after_seconds=30), "stripe")
    ('domain', 'retry_after_seconds')
    """
    codec = get(dialect)
    return _measured(fault, codec, _encode(codec, fault, limits))


def _measured(fault: Fault, codec: Any, encoded: Any) -> tuple[str, ...]:
    """The fields of `fault` that did not come back from `encoded`, its encoding by `codec`."""
    back = codec.decode(encoded, limits=_UNLIMITED)
    lost: list[str] = []
    for name in Fault.__struct_fields__:
        if name == "origin":
            continue
        mine, theirs = getattr(fault, name), getattr(back, name)
        if mine == theirs:
            continue
        if name == "details":
            left, missing = list(theirs), []
            for d in mine:  # counted: of two equal details, one may be lost
                if d in left:
                    left.remove(d)
                else:
                    missing.append(d)
            lost.extend(f"details.{_detail_name(d)}" for d in missing)
            if not missing:
                lost.append("details")
        else:
            lost.append(name)
    return tuple(dict.fromkeys(lost))


def _detail_name(detail: Any) -> str:
    if isinstance(detail, RawDetail):
        return detail.type_url.rsplit("/", 1)[-1]
    return TYPE_NAMES[type(detail)].rsplit(".", 1)[-1]


def detect(data: Any, *, limits: Limits = DEFAULT_LIMITS) -> str:
    """The name of the dialect `data` is written in (a whole HTTP response is `http`)."""
    return _detect(data, limits=limits)
