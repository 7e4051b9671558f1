"""`errconv convert --lines`: JSON Lines in, one converted body per line out.

What a line costs is its decode and its encode; what the target cannot carry is not
measured again for every line. `losses()` measures by writing the fault and reading
it back, a second decode per line, which cost more than the first. A log repeats a
few shapes of error, so `LossCache` measures each shape once: `shape()` keeps every
value losses can turn on exactly (status, codes, names, numbers outside the usual
range, text that is empty or holds controls) and reduces free text to which other
string it equals. `tests/test_lines.py` holds a cached answer to the measured one on
every golden case and the fuzz corpus, with the free text of each fault swapped for
hostile text of the same shape.

`--jobs N` hands chunks of lines to N processes, in order, each chunk converted as one
process would and written back in the order read.
"""

from __future__ import annotations

import base64
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, BinaryIO

import msgspec

from .._pipeline.api import _encode, _measured
from .._model.errors import ErrconvError
from .._model.fault import Fault, Violation
from .._model.limits import DEFAULT_LIMITS
from ..codes import code_name, reason_phrase
from ..details import ErrorInfo, FieldViolation, LocalizedMessage, PreconditionViolation, QuotaViolation, RawDetail, ResourceInfo
from ..dialects import Dialect, get

__all__ = ["Converter", "LossCache", "convert_lines", "numbered", "shape"]

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


# --------------------------------------------------------------------------- the loop

# The command's reading of one input: (line, --from, where, --status) -> (fault, dialect).
Reader = Callable[[bytes, str | None, str, int | None], tuple[Fault, str]]
# What a share of the file came to: its output, its errors, how many lines failed, what was dropped.
Result = tuple[bytes, list[str], int, dict[str, list[int]]]


class Converter:
    """Converts lines as `errconv convert --lines` does.

    `read(line, source, where, status)` is the command's own reading of one input (it
    names the line in its errors). What the lines lost is summed up in `dropped`:
    field -> [lines, first line], in the order first seen (bounded by the fields)."""

    def __init__(self, to: str, source: str | None, status: int | None, strict: bool, read: Reader) -> None:
        self.codec = get(to)
        self.to = to
        self.source = source
        self.status = status
        self.strict = strict
        self.read = read
        self.cache = LossCache(self.codec)
        self.failed = 0
        self.dropped: dict[str, list[int]] = {}

    def run(self, first: int, lines: list[bytes | None]) -> Result:
        """Convert lines numbered from `first` (None: a line over the size limit); what
        they came to, the failures and drops counted in this converter's totals too."""
        codec, to, source, status, strict, read = self.codec, self.to, self.source, self.status, self.strict, self.read
        losses = self.cache.losses
        binary = codec.binary
        out: list[bytes] = []
        said: list[str] = []
        failed = 0
        mine: dict[str, list[int]] = {}
        for number, line in enumerate(lines, first):
            if line is None:
                said.append(f"line {number}: over {DEFAULT_LIMITS.max_bytes} bytes, the most errconv reads as one error")
                failed += 1
                continue
            line = line.rstrip(b"\r\n")
            if not line.strip():
                continue  # blank lines separate nothing in JSON Lines; pass over them
            try:
                fault, _ = read(line, source, f"line {number}", status)
                body = _encode(codec, fault, DEFAULT_LIMITS)
                lost = losses(fault, body)
                if lost and strict:
                    said.append(f"line {number}: {to} cannot carry: {', '.join(lost)}")
                    failed += 1
                    continue
            except ErrconvError as exc:
                said.append(str(exc))
                failed += 1
                continue
            for name in lost:
                seen = mine.get(name)
                if seen is None:
                    mine[name] = [1, number]
                else:
                    seen[0] += 1
            out.append(base64.b64encode(body) if binary else body)
        if out:
            out.append(b"")  # a newline after the last body too
        result = (b"\n".join(out), said, failed, mine)
        self.merge(result)
        return result

    def merge(self, result: Result) -> None:
        """Count a share's failures and drops (converted here or by another process) in the totals."""
        _, _, failed, dropped = result
        self.failed += failed
        for name, (count, first) in dropped.items():
            seen = self.dropped.get(name)
            if seen is None:
                self.dropped[name] = [count, first]
            else:
                seen[0] += count

    def summary(self) -> list[str]:
        """The lines that end the run: what the target could not carry, field by field."""
        return [
            f"{self.to} cannot carry {name}; dropped on {count} line{'s' if count > 1 else ''} (first: line {first})"
            for name, (count, first) in self.dropped.items()
        ]


def numbered(stream: BinaryIO, size: int = 1 << 16, before: Callable[[], object] | None = None) -> Iterator[tuple[int, list[bytes | None]]]:
    """The lines of `stream` as (number of the first, lines), a block read at a time:
    each line without its newline, None for a line over the size limit.

    `before` runs before each read, which may wait for input: the command flushes what
    it wrote there, so a line piped in comes out at once. Memory stays flat whatever the
    input: a line over the limit is skipped as it is read, never held.
    """
    limit = DEFAULT_LIMITS.max_bytes
    read = getattr(stream, "read1", None) or stream.read
    number = 1
    # The start of a line the last blocks cut, in pieces (joined once: a line trickling
    # in a byte a read must not cost its length squared) and their length.
    carry: list[bytes] = []
    carried = 0
    skipping = False  # inside a line over the limit: read to its end, keep none of it
    while True:
        if before is not None:
            before()
        block = read(size)
        if not block:
            break
        parts = block.split(b"\n")
        tail = parts.pop()  # after the last newline: the start of a line
        if parts:
            if carry and not skipping:
                carry.append(parts[0])
                parts[0] = b"".join(carry)
            lines: list[bytes | None] = list(parts)
            if skipping:
                lines[0], skipping = None, False  # the end of the line over the limit
            elif len(parts[0]) > limit:
                lines[0] = None
            # Every other line lies in this block: over the limit only if the block is.
            if len(block) > limit:
                lines = [None if line is None or len(line) > limit else line for line in lines]
            yield number, lines
            number += len(lines)
            carry, carried = [], 0
        if not skipping and tail:
            carry.append(tail)
            carried += len(tail)
            if carried > limit:
                carry, carried, skipping = [], 0, True
    if skipping:
        yield number, [None]
    elif carry:
        yield number, [b"".join(carry)]


# A share of the file for one process: so many lines, or so many bytes, whichever comes
# first (a line may be a megabyte). Each process has at most two shares waiting, so
# memory stays flat whatever the file's length.
CHUNK_LINES = 500
CHUNK_BYTES = 1 << 22


def _shares(blocks: Iterator[tuple[int, list[bytes | None]]]) -> Iterator[tuple[int, list[bytes | None]]]:
    first, size = 1, 0
    share: list[bytes | None] = []
    for number, lines in blocks:
        if not share:
            first = number
        share.extend(lines)
        size += sum(len(line) for line in lines if line is not None)
        if len(share) >= CHUNK_LINES or size >= CHUNK_BYTES:
            yield first, share
            share, size = [], 0
    if share:
        yield first, share


_worker: Converter | None = None


def _start_worker(to: str, source: str | None, status: int | None, strict: bool, read: Reader) -> None:
    global _worker
    _worker = Converter(to, source, status, strict, read)


def _work(first: int, lines: list[bytes | None]) -> Result:
    """One share, converted in a worker process."""
    converter = _worker
    assert converter is not None, "the pool starts each worker with _start_worker"
    return converter.run(first, lines)


def convert_lines(
    stream: BinaryIO,
    write: Callable[[bytes], object],
    flush: Callable[[], object],
    say: Callable[[str], object],
    *,
    to: str,
    source: str | None,
    status: int | None,
    strict: bool,
    read: Reader,
    jobs: int = 1,
) -> int:
    """Convert every line of `stream`; returns how many lines failed.

    With `jobs` above 1 the lines go in shares to that many processes; the output, the
    errors and the summary are the same, in the same order, as one process writes."""
    converter = Converter(to, source, status, strict, read)

    def written(result: Result) -> None:
        out, said, _, _ = result
        for message in said:
            say(message)
        if out:
            write(out)

    if jobs <= 1:
        for first, lines in numbered(stream, before=flush):
            written(converter.run(first, lines))
    else:
        pool = ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(to, source, status, strict, read))
        try:
            waiting: deque[Future[Result]] = deque()
            for first, lines in _shares(numbered(stream, 1 << 20)):
                waiting.append(pool.submit(_work, first, lines))
                while waiting and (len(waiting) >= 2 * jobs or waiting[0].done()):
                    result = waiting.popleft().result()
                    written(result)
                    converter.merge(result)
                flush()
            while waiting:
                result = waiting.popleft().result()
                written(result)
                converter.merge(result)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    for line in converter.summary():
        say(line)
    return converter.failed
