"""`errconv convert --lines`: JSON Lines in, one converted body per line out.

Exactly one output line per input line, always: output line N is input line N's body or,
for a line that cannot be converted (blank, truncated, not JSON, binary, over the size
limit, or losing fields under --strict), an error line, one compact JSON object

    {"errconv_error":"line 3: the input is not valid JSON: Input data was truncated","line":3}

whose `errconv_error` is the message stderr shows for it (no dialect writes that key, and
base64 has no `{`, so an error line is never a body). The failures are still counted:
stderr names each, and the exit status is 1.

Each line goes through the batch API's core (`_batch.Core`): a line seen before is not
read again, and what the target cannot carry is measured once per shape of fault.

`--jobs N` hands chunks of lines to N processes, in order, each chunk converted as one
process would and written back in the order read.
"""

from __future__ import annotations

import base64
import json
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import BinaryIO

from .._batch import Core
from .._model.errors import ErrconvError
from .._model.fault import Fault
from .._model.limits import DEFAULT_LIMITS

__all__ = ["Converter", "convert_lines", "error_line", "numbered"]

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
        self.core = Core(lambda data, given, where: read(data, source, where, given), to)
        self.to = to
        self.status = status
        self.strict = strict
        self.failed = 0
        self.dropped: dict[str, list[int]] = {}

    def run(self, first: int, lines: list[bytes | None]) -> Result:
        """Convert lines numbered from `first` (None: a line over the size limit); what
        they came to, the failures and drops counted in this converter's totals too."""
        to, status, strict, one = self.to, self.status, self.strict, self.core.one
        codec = self.core.codec
        binary = codec is not None and codec.binary
        out: list[bytes] = []
        said: list[str] = []
        failed = 0
        mine: dict[str, list[int]] = {}
        for number, line in enumerate(lines, first):
            # Every failure writes its error line, so output line N stays input line N.
            if line is None:
                message = f"line {number}: over {DEFAULT_LIMITS.max_bytes} bytes, the most errconv reads as one error"
                said.append(message)
                out.append(error_line(number, message))
                failed += 1
                continue
            line = line.rstrip(b"\r\n")
            if not line.strip():
                message = f"line {number}: a blank line, no error body"
                said.append(message)
                out.append(error_line(number, message))
                failed += 1
                continue
            try:
                _, _, body, lost = one(line, status, f"line {number}")
                if lost and strict:
                    message = f"line {number}: {to} cannot carry: {', '.join(lost)}"
                    said.append(message)
                    out.append(error_line(number, message))
                    failed += 1
                    continue
            except ErrconvError as exc:
                said.append(str(exc))
                out.append(error_line(number, str(exc)))
                failed += 1
                continue
            for name in lost:
                seen = mine.get(name)
                if seen is None:
                    mine[name] = [1, number]
                else:
                    seen[0] += 1
            assert body is not None, "a Core with a target writes every body"
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


def error_line(number: int, message: str) -> bytes:
    """The output line of input line `number` that could not be converted: one compact JSON
    object, ASCII only (the message may quote hostile input; JSON escapes its controls)."""
    # Worded as stderr words it: the library's messages name its keyword, the command its option.
    message = message.replace("(status=)", "(--status N)")
    return json.dumps({"errconv_error": message, "line": number}, separators=(",", ":")).encode()


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
    progress: Callable[[int], object] | None = None,
) -> int:
    """Convert every line of `stream`; returns how many lines failed.

    `progress(lines)` is called with the number of lines done after each block written.

    With `jobs` above 1 the lines go in shares to that many processes; the output, the
    errors and the summary are the same, in the same order, as one process writes."""
    converter = Converter(to, source, status, strict, read)
    done = 0

    def written(result: Result, lines: int) -> None:
        nonlocal done
        out, said, _, _ = result
        for message in said:
            say(message)
        if out:
            write(out)
        done += lines
        if progress is not None:
            progress(done)

    if jobs <= 1:
        for first, lines in numbered(stream, before=flush):
            written(converter.run(first, lines), len(lines))
    else:
        pool = ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(to, source, status, strict, read))
        try:
            waiting: deque[tuple[Future[Result], int]] = deque()
            for first, lines in _shares(numbered(stream, 1 << 20)):
                waiting.append((pool.submit(_work, first, lines), len(lines)))
                while waiting and (len(waiting) >= 2 * jobs or waiting[0][0].done()):
                    future, count = waiting.popleft()
                    result = future.result()
                    written(result, count)
                    converter.merge(result)
                flush()
            while waiting:
                future, count = waiting.popleft()
                result = future.result()
                written(result, count)
                converter.merge(result)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    for line in converter.summary():
        say(line)
    return converter.failed
