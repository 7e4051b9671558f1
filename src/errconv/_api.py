"""The public verbs: decode, encode, convert, losses, detect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._errors import DecodeError, LossError
from .details import TYPE_NAMES, RawDetail
from .dialects import detect as _detect
from .dialects import get
from .fault import Fault
from .limits import DEFAULT_LIMITS, Limits

__all__ = ["convert", "decode", "detect", "encode", "losses"]


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
    name = _detect(data, limits=limits) if dialect is None else dialect
    codec = get(name)
    try:
        return codec.decode(data, limits=limits, now=now)
    except DecodeError:
        raise
    except (RecursionError, MemoryError):
        raise DecodeError(f"the {name} input is too deeply nested or too large to read") from None
    except (TypeError, ValueError, UnicodeError) as exc:
        # A shape no codec path anticipated. Decoding must answer with DecodeError, never another type.
        raise DecodeError(f"cannot read the input as {name}: {str(exc)[:80]}") from None


def encode(fault: Fault, dialect: str) -> Any:
    """Write a Fault in a dialect: bytes, or for `grpc` a list of (key, value) trailer pairs.

    >>> encode(Fault.build(status=404, code="not_found"), "stripe")
    b'{"error":{"type":"invalid_request_error","code":"not_found","next_step":"give_up"}}'
    """
    return get(dialect).encode(fault)


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
    if strict:
        lost = losses(fault, to)
        if lost:
            raise LossError(to, lost)
    return target.encode(fault)


def losses(fault: Fault, dialect: str) -> tuple[str, ...]:
    """The fields of `fault` that `dialect` cannot carry, by name.

    Measured, not declared: the fault is written in the dialect and read back, and
    every field that did not come back equal is named. A lost detail is named by
    its type (`details.DebugInfo`).

    >>> losses(Fault.build(status=429, code="rate_limit", domain="example.com",
    ...                    next_step="wait", retry_after_seconds=30), "stripe")
    ('domain', 'retry_after_seconds')
    """
    codec = get(dialect)
    back = codec.decode(codec.encode(fault), limits=Limits(max_bytes=1 << 62))
    lost: list[str] = []
    for name in Fault.__struct_fields__:
        if name == "origin":
            continue
        mine, theirs = getattr(fault, name), getattr(back, name)
        if mine == theirs:
            continue
        if name == "details":
            missing = [d for d in mine if d not in theirs]
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
