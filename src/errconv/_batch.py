"""The path every bulk reader shares: `errconv.batch` and `errconv convert --lines`.

A log repeats a few shapes of error, and many errors verbatim. `Core` reads each
distinct input once and reuses what it read; what the target cannot carry is not
measured again for every input either. `losses()` measures by writing the fault and
reading it back, a second decode per input, which costs more than the first, so
`LossCache` measures each shape once: `shape()` keeps every value losses can turn on
exactly (status, codes, names, numbers outside the usual range, text that is empty or
holds controls) and reduces free text to which other string it equals.
`tests/test_lines.py` holds a cached answer to the measured one on every golden case and
the fuzz corpus, with the free text of each fault swapped for hostile text of the same
shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec

from ._pipeline.api import _encode, _measured
from ._model.fault import Fault, Violation
from ._model.limits import DEFAULT_LIMITS, Limits
from .codes import code_name, reason_phrase
from .details import ErrorInfo, FieldViolation, LocalizedMessage, PreconditionViolation, QuotaViolation, RawDetail, ResourceInfo
from .dialects import Dialect, get

__all__ = ["Core", "LossCache", "Reader", "shape"]

# --------------------------------------------------------------------------- the shape of a fault

# Ints and floats in extension and alternative members are kept by class, not value,
# within the range every dialect carries exactly (a google.protobuf.Struct holds doubles).
_INT_RANGE = 2**31

# Members of Structs that name rather than say: kept exactly. A RawDetail's type URL
# names a lost detail in losses() (`details.Foo`); a violation's field is a path whose
# syntax a dialect may convert.
_EXACT_MEMBERS: dict[type, frozenset[str]] = {
    Violation: frozenset(("field", "reason")),
    RawDetail: frozenset(("type_url",)),
    ErrorInfo: frozenset(("reason", "domain")),
    QuotaViolation: frozenset(("api_service", "quota_metric", "quota_id")),
    PreconditionViolation: frozenset(("type",)),
    ResourceInfo: frozenset(("resource_type",)),
    LocalizedMessage: frozenset(("locale",)),
    FieldViolation: frozenset(("field", "reason")),
}
_MEMBERS: dict[type, tuple[tuple[str, bool], ...]] = {}  # Struct -> (member, exact?), in order


def _members(kind: type) -> tuple[tuple[str, bool], ...]:
    exact = _EXACT_MEMBERS.get(kind, frozenset())
    found = _MEMBERS[kind] = tuple((f, f in exact) for f in kind.__struct_fields__)  # type: ignore[attr-defined]
    return found


def _walk(value: Any, add: Callable[[Any], None], seen: dict[str, int], exact_numbers: bool) -> None:
    """Append the tokens of `value` to a key. Each node's tokens say where it ends (a
    container's count, a Struct's class), so equal keys are equal shapes: a string is
    one token (its index in `seen`, or the text itself when empty or not printable, as a
    codec may treat controls and lone surrogates apart); anything else starts with its
    type. Member names and exact members are kept (and entered in `seen`)."""
    kind = type(value)
    if kind is str:
        add(seen.setdefault(value, len(seen)) if value and value.isprintable() else value)
    elif kind is dict:
        add(dict)
        add(len(value))
        for k, v in value.items():
            if k not in seen:
                seen[k] = len(seen)
            add(k)
            _walk(v, add, seen, exact_numbers)
    elif kind is list or kind is tuple:  # (a tuple is no list to ==)
        add(kind)
        add(len(value))
        for v in value:
            _walk(v, add, seen, exact_numbers)
    elif isinstance(value, msgspec.Struct):
        add(kind)
        for f, exact in _MEMBERS.get(kind) or _members(kind):
            v = getattr(value, f)
            if exact:
                if type(v) is str and v not in seen:
                    seen[v] = len(seen)
                add(v)
            else:
                _walk(v, add, seen, exact_numbers)
    elif exact_numbers or value is None or value is True or value is False:
        add(kind)
        add(value)
    elif kind is int:
        add(int)
        add(None if -_INT_RANGE < value < _INT_RANGE else value)
    elif kind is float:
        add(float)
        add(None if math.isfinite(value) else value)
    else:  # what only a caller's own Fault holds: as it is
        add(kind)
        add(value)


def shape(fault: Fault) -> tuple[Any, ...]:
    """What `losses(fault, dialect)` can depend on, as a hashable key.

    Kept exactly: status, gRPC code, next step and delay; code, domain, title, type,
    param, blocked_by and unblock_with (a code's case, a param's path syntax, a title
    that is the reason phrase all matter somewhere); every member name and metadata
    key, a violation's field and reason, the names in details (a type URL, a quota
    metric, a locale); every number in a detail, and the extension numbers no double
    holds; text that is empty or not printable; `origin.inferred` (losses skips those
    fields). Free text (detail, instance, descriptions, metadata values, the other
    strings of details, extension and alternative values) is kept only as which
    string before it it equals.
    """
    status = fault.status
    # The texts a decoder makes up when a dialect does not carry one (the status's
    # reason phrase, the gRPC code's name) come first, so text equal to them stays so.
    seen = {reason_phrase(status): 0, code_name(fault.grpc_code): 1}
    named = (fault.code, fault.domain, fault.title, fault.type, fault.param, fault.blocked_by, fault.unblock_with)
    for name in named:
        if name is not None and name not in seen:
            seen[name] = len(seen)
    detail: str | int | None = fault.detail
    if detail and detail.isprintable():  # type: ignore[union-attr]
        detail = seen.setdefault(detail, len(seen))  # type: ignore[arg-type]
    instance: str | int | None = fault.instance
    if instance and instance.isprintable():  # type: ignore[union-attr]
        instance = seen.setdefault(instance, len(seen))  # type: ignore[arg-type]
    origin = fault.origin
    key = [
        status,
        fault.grpc_code,
        named,
        fault.next_step,
        fault.retry_after_seconds,
        fault.alternatives_truncated,
        detail,
        instance,
        origin.inferred if origin is not None else None,
    ]
    if fault.violations or fault.alternatives or fault.metadata or fault.details or fault.extensions:
        add = key.append
        _walk(fault.violations, add, seen, True)
        _walk(fault.alternatives, add, seen, False)
        metadata = fault.metadata
        add(len(metadata))
        for k, text in metadata.items():
            if k not in seen:
                seen[k] = len(seen)
            add(k)
            add(seen.setdefault(text, len(seen)) if type(text) is str and text and text.isprintable() else text)
        _walk(fault.details, add, seen, True)
        _walk(fault.extensions, add, seen, False)
    return tuple(key)


class LossCache:
    """`losses(fault, dialect)`, measured once per shape of fault (bounded in size)."""

    __slots__ = ("codec", "known", "size")

    def __init__(self, codec: Dialect, size: int = 4096) -> None:
        self.codec = codec
        self.known: dict[tuple[Any, ...], tuple[str, ...]] = {}
        self.size = size

    def losses(self, fault: Fault, encoded: bytes) -> tuple[str, ...]:
        """What `encoded` (`fault` written by the codec) lost of it."""
        try:
            key = shape(fault)
            found = self.known.get(key)
        except TypeError:  # an unhashable value only a caller's own Fault holds: measured
            return _measured(fault, self.codec, encoded)
        if found is None:
            found = _measured(fault, self.codec, encoded)
            if len(self.known) >= self.size:
                self.known.clear()  # bounded, whatever shapes a stream holds
            self.known[key] = found
        return found


# Distinct inputs remembered: past either bound the memory is cleared and refilled, so a
# batch of any length holds at most this many inputs and bytes of them, whatever it
# repeats (an input may be a megabyte; a log of them must not become gigabytes here).
MEMO_SIZE = 1 << 16
MEMO_BYTES = 1 << 26

# (input, the status it came with, where it is) -> (fault, what it was read as); raises ErrconvError.
Reader = Callable[[bytes, int | None, str], tuple[Fault, str]]


class Core:
    """Reads and writes inputs, each distinct one once (the batch API's and `--lines`' shared path).

    `read` is the caller's reading of one input (the CLI names the line in its
    messages); `to` the dialect to write, or None to classify only. `one()` returns the
    fault, the dialect it was read as, the body written and what the body lost; a read
    that fails raises, and is not remembered (its message may name where it was).
    """

    __slots__ = ("codec", "held", "limits", "losses", "memo", "read")

    def __init__(self, read: Reader, to: str | None, limits: Limits = DEFAULT_LIMITS) -> None:
        self.read = read
        self.limits = limits
        self.codec = get(to) if to is not None else None
        self.losses = LossCache(self.codec) if self.codec is not None else None
        self.memo: dict[tuple[bytes, int | None], tuple[Fault, str, bytes | None, tuple[str, ...]]] = {}
        self.held = 0  # bytes of input (and output) the memo holds

    def one(self, data: bytes, status: int | None, where: str = "") -> tuple[Fault, str, bytes | None, tuple[str, ...]]:
        key = (data, status)
        found = self.memo.get(key)
        if found is not None:
            return found
        fault, dialect = self.read(data, status, where)
        body: bytes | None = None
        lost: tuple[str, ...] = ()
        codec, losses = self.codec, self.losses
        if codec is not None and losses is not None:
            body = _encode(codec, fault, self.limits)
            lost = losses.losses(fault, body)
        found = (fault, dialect, body, lost)
        size = len(data) + (len(body) if body is not None else 0)
        if size > MEMO_BYTES:
            return found  # alone past the bound: not remembered at all
        if len(self.memo) >= MEMO_SIZE or self.held + size > MEMO_BYTES:
            self.memo.clear()
            self.held = 0
        self.memo[key] = found
        self.held += size
        return found


