"""The public verbs: decode, encode, convert, losses, detect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dialects as _registry
from .._model.errors import DecodeError, LossError, UnknownDialectError, shorten
from .._model.fault import Fault, scrubbed
from ..dialects._responses import read_body
from .._model.limits import DEFAULT_LIMITS, Limits
from ..details import TYPE_NAMES, RawDetail
from ..dialects import Dialect, HttpInfo, get, no_dialect, strongest
from ..dialects._base import decode_json, reads_other_bytes
from ..dialects._depth import shallow
from ..dialects._common import Headers, Reading, Writing, read_json

__all__ = ["convert", "decode", "detect", "encode", "losses"]

# What losses() reads back with: a measurement, not a gate.
_UNLIMITED = Limits(
    max_bytes=1 << 62, max_depth=1 << 20, max_details=1 << 62, max_violations=1 << 62, max_string=1 << 62, max_header=1 << 62
)
_SAFETY_NET = True
_NO_JSON = object()


class _Input:
    """The input of one decode, read once: as bytes (or trailer pairs), and parsed as JSON
    the first time a JSON dialect asks for it."""

    __slots__ = ("raw", "json", "limits")

    def __init__(self, data: Any, limits: Limits) -> None:
        self.limits = limits
        self.json: Any = _NO_JSON
        if type(data) is bytes:  # the usual case, first
            if len(data) > limits.max_bytes:
                raise DecodeError(f"the input is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
            self.raw: Any = data
            return
        if isinstance(data, (dict, list)) and not (isinstance(data, list) and data and isinstance(data[0], tuple)):
            self.raw = None  # a JSON value parsed already (an HTTP client's response.json())
            self.json = data
            return
        if isinstance(data, tuple) or isinstance(data, list):
            self.raw = data  # trailer pairs
            return
        descriptor = getattr(data, "DESCRIPTOR", None)
        if descriptor is not None and hasattr(data, "SerializeToString"):  # a protobuf message
            if getattr(descriptor, "full_name", None) != "google.rpc.Status":
                raise DecodeError(f"a protobuf message is read as a google.rpc.Status, got {shorten(getattr(descriptor, 'full_name', data))}")
            data = data.SerializeToString()
        if isinstance(data, str):
            try:
                data = data.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raise DecodeError("the input text holds a lone surrogate; give bytes or valid Unicode text") from None
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise DecodeError(f"cannot read a {type(data).__name__}; give bytes, text, a parsed JSON value or trailer pairs")
        data = bytes(data)
        if len(data) > limits.max_bytes:
            raise DecodeError(f"the input is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
        self.raw = data

    @property
    def size(self) -> int:
        raw = self.raw
        if isinstance(raw, bytes):
            return len(raw)
        if raw is None:
            return self.limits.max_string + 1  # a parsed value: look at every string
        try:
            return sum(len(k) + len(v) for k, v in raw)
        except (TypeError, ValueError):
            return 0  # not pairs: the dialect says so

    def json_value(self) -> Any:
        """The input parsed as JSON; _NO_JSON when it does not look like JSON."""
        raw = self.raw
        if self.json is _NO_JSON and type(raw) is bytes:
            start = raw[:1]
            if start == b"{" or start == b"[" or raw.lstrip()[:1] in (b"{", b"["):
                self.json = read_json(raw, self.limits, "the input")  # msgspec takes the white space
        return self.json

    def value_for(self, dialect: Dialect) -> Any:
        """The input in the form `dialect` decodes."""
        if dialect.form == "json":
            value = self.json_value()
            if value is _NO_JSON:
                if isinstance(self.raw, bytes) and reads_other_bytes(dialect) and dialect.non_json(self.raw, None) is not None:
                    return self.raw  # it reads bytes that are not JSON too
                if isinstance(self.raw, bytes):
                    return read_json(self.raw, self.limits, f"the {dialect.name} body")  # says why it is not JSON
                raise DecodeError(f"{dialect.name} takes a JSON body, got {type(self.raw).__name__}")
            return value
        if self.raw is None:
            raise DecodeError(f"{dialect.name} takes bytes, not a parsed JSON value")
        return self.raw


def json_like(raw: bytes) -> bool:
    """Whether bytes look like a JSON object or array (the test `json_value` makes)."""
    start = raw[:1]
    return start == b"{" or start == b"[" or raw.lstrip()[:1] in (b"{", b"[")


def _detected(inp: _Input) -> Dialect:
    """The dialect the input is written in, the strongest claim winning."""
    if isinstance(inp.raw, (list, tuple)):
        found = strongest(inp.raw, None, _registry.by_form("pairs"))
        if found is None:
            raise DecodeError("no dialect reads a list of pairs")
        return found
    value = inp.json_value()
    if value is not _NO_JSON:
        found = strongest(value, None, _registry.by_form("json"))
        if found is None:
            raise no_dialect(value)
        return found
    raw = inp.raw
    if not raw.strip():
        raise DecodeError("the input is empty; give an error body, an HTTP response or gRPC trailers")
    found = strongest(raw, None, _byte_readers())
    if found is None:
        # Every dialect that reads bytes other than JSON has looked: naming one would not help,
        # but the status the body came with does (a proxy's HTML page, a log line).
        raise DecodeError(
            f"cannot tell the dialect of {shorten(raw)}: no dialect reads it (it is not JSON, protobuf, gRPC trailers,"
            " XML or an HTTP response);"
            " give the HTTP status it came with (status=) and errconv reads it from the status"
        )
    return found


def _byte_readers() -> tuple[Dialect, ...]:
    """The dialects that may read bytes that are no JSON, in precedence order: built
    once per registry state, not per call."""
    every = _registry.ranked()
    hit = _BYTE_READERS.get(id(every))
    if hit is not None and hit[0] is every:  # (an id is only unique while its tuple lives)
        return hit[1]
    found = tuple(d for d in every if d.form != "json" or reads_other_bytes(d))
    _BYTE_READERS.clear()
    _BYTE_READERS[id(every)] = (every, found)
    return found


_BYTE_READERS: dict[int, tuple[tuple[Dialect, ...], tuple[Dialect, ...]]] = {}


def decode(
    data: Any,
    dialect: Any = None,  # a name or None; Any, so that a compiled build checks it in get(), not at the call
    *,
    status: int | None = None,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
    trace: bool = False,
) -> Fault:
    """Read an error in any dialect into a Fault; the dialect is detected when not named.

    `data` is bytes, text, a JSON value already parsed, gRPC trailer pairs, or a
    `google.rpc.status_pb2.Status` message (read as its serialized bytes). `status`
    is the HTTP status a bare body came with, when the caller knows it (from a log
    line): the status line of a response, so a body no dialect recognises is read
    from it. `now` (epoch seconds, or a callable giving them) is the clock an HTTP-date
    Retry-After is measured against when the response has no Date header. With
    `trace`, `fault.origin.trace` records what was read where.

    A named `dialect` is trusted, not checked: the input is read as that dialect even
    when it does not recognise the shape (what it cannot find is inferred from the
    status), because naming it is the fast path a gateway takes for every response.
    When unsure, leave it out, or compare with `detect(data)`; the command line warns
    when `--from` does not recognise its input (and refuses it under `--strict`).

    >>> decode(b'{"type": "about:blank", "status": 503, "retry_after_seconds": 30}').next_step
    <NextStep.WAIT: 'wait'>
    >>> decode(b"upstream overloaded", status=503).next_step
    <NextStep.WAIT: 'wait'>
    """
    if dialect is not None and type(dialect) is not str:
        raise UnknownDialectError(f"a dialect is named by a string, not {shorten(dialect, 40)}; errconv.dialect_names() lists them")
    try:
        if type(data) is bytes and dialect is not None and status is None:
            # The usual call, bytes in a named dialect: straight there.
            codec = get(dialect)
            if codec.form == "json" and now is None and not trace and data[:1] == b"{" and len(data) <= limits.max_bytes:
                # The commonest of all, a JSON object in a named JSON dialect: the state of
                # the decode made here (as _reading makes it), the body straight to the codec.
                reading = Reading(limits, len(data))
                if shallow(data, limits.max_depth):
                    reading.deep = False
                reading.dialect = codec.name
                return decode_json(codec, reading, raw=data)
            return _read_as(codec, data, _reading(limits, data, now, trace, codec.name))
        return _decode(data, dialect, status, limits, now, trace)
    except (DecodeError, UnknownDialectError):  # a bad name is the caller's mistake, not the input's
        raise
    except Exception as exc:
        raise _caught(exc, dialect or "detected") from None


def _caught(exc: Exception, name: str) -> DecodeError:
    """The DecodeError for an exception no codec path anticipated, reading as `name`.

    Decoding must answer with DecodeError, never another type: at a public edge a bug
    fails closed. The fuzz tests switch this net off to see such bugs (and fix them)
    instead."""
    if not _SAFETY_NET:
        raise exc
    if isinstance(exc, (RecursionError, MemoryError)):
        return DecodeError(f"the {name} input is too deeply nested or too large to read")
    return DecodeError(f"cannot read the input as {name}: {type(exc).__name__}: {shorten(str(exc), 80)}")


def decode_detected(data: Any, *, limits: Limits = DEFAULT_LIMITS) -> tuple[Fault | DecodeError, str]:
    """`decode(data, detect(data))` and the dialect's name, the input parsed once (the
    command line reads every input so, a log of them under --lines).

    A DecodeError in telling the dialect is raised, as `detect` raises it; one in
    reading the input as that dialect is returned in the Fault's place, as `decode`
    would raise it, for the caller to say which dialect it was read as."""
    inp = _Input(data, limits)
    codec = _detected(inp)
    try:
        try:
            return _read_as(codec, inp.raw, _reading(limits, inp.raw, None, False, codec.name, inp), inp.json), codec.name
        except DecodeError:
            raise
        except Exception as exc:
            raise _caught(exc, codec.name) from None
    except DecodeError as exc:
        return exc, codec.name


def _decode(
    data: Any,
    dialect: str | None,
    status: int | None,
    limits: Limits,
    now: float | Callable[[], float] | None,
    trace: bool,
    lenient: bool = False,
) -> Fault:
    named = None if dialect is None else get(dialect)
    inp = _Input(data, limits)
    reading = _reading(limits, inp.raw, now, trace, "", inp)
    if lenient:
        reading.lenient = True
    if status is not None:
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599:
            raise DecodeError(f"status must be an HTTP status from 100 to 599, got {shorten(status)}")
        if named is None or named.form == "json":
            return _bare_body(inp, named, status, reading)
        reading.status = status
    codec = named if named is not None else _detected(inp)
    reading.dialect = codec.name
    return _read_as(codec, inp.raw, reading, inp.json)


def _reading(
    limits: Limits, raw: Any, now: float | Callable[[], float] | None, trace: bool, name: str, inp: _Input | None = None
) -> Reading:
    """The per-decode state for input `raw` (bytes, or what _Input made of the input),
    read as the dialect `name` ("" while it is not known)."""
    if type(raw) is bytes:
        if len(raw) > limits.max_bytes:
            raise DecodeError(f"the input is {len(raw)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
        size = len(raw)
    else:
        size = inp.size if inp is not None else 0
    reading = Reading(limits, size) if now is None and not trace else Reading(limits, size, now=now, trace=trace)
    if type(raw) is bytes and shallow(raw, limits.max_depth):
        reading.deep = False  # checked in C: no nesting past the limit, so no decoder walks it
    reading.dialect = name
    return reading


def _read_as(codec: Dialect, raw: Any, reading: Reading, parsed: Any = _NO_JSON) -> Fault:
    """The one ending of every decode: the input read as `codec`. `raw` is bytes, trailer
    pairs, or None for a JSON value given parsed; `parsed` the JSON value when it has
    been parsed already (to detect the dialect, or by the caller)."""
    if codec.form == "json":
        if parsed is not _NO_JSON:
            return decode_json(codec, reading, value=parsed)
        if type(raw) is not bytes:
            raise DecodeError(f"{codec.name} takes a JSON body, got {type(raw).__name__}")
        if not json_like(raw) and reads_other_bytes(codec):
            other = codec.non_json(raw, None)
            if other is not None and not json_like(other):
                return codec.decode(other, reading)  # not JSON: the bytes themselves (AWS's XML)
            if other is not None:
                raw = other  # the JSON inside a framing
        return decode_json(codec, reading, raw=raw)
    if raw is None:
        raise DecodeError(f"{codec.name} takes bytes, not a parsed JSON value")
    return codec.decode(raw, reading)


def decode_for_lint(data: bytes, dialect: str | None, limits: Limits, now: float | None) -> Fault:
    """`decode` with a trace, reading a 2xx body as an error too (lint says it should not be one)."""
    return _decode(data, dialect, None, limits, now, True, lenient=True)


def _bare_body(inp: _Input, codec: Dialect | None, status: int, reading: Reading) -> Fault:
    """A body without its response, but with the status it came with."""
    reading.status = status
    http = HttpInfo(status, Headers(()), "")
    if codec is not None:
        reading.dialect = codec.name
        if status < 400 and not codec.errors_on_success:
            raise DecodeError(f"not an error response: {status}")
        return _read_as(codec, inp.raw, reading, inp.json)
    if inp.raw is None:  # a parsed JSON value
        return read_body(None, http, reading, bare=True, parsed=inp.json)
    return read_body(inp.raw, http, reading, bare=True)


def encode(fault: Fault, dialect: str, *, limits: Limits = DEFAULT_LIMITS, keep_debug: bool | None = None) -> bytes:
    """Write a Fault in a dialect, as bytes (the text form for `grpc`).

    `limits` bounds what goes into headers and trailers: `max_trailer_bytes` for
    `grpc`, `max_header` for the Request-Id that `http+stripe` copies. DebugInfo is
    kept by the service-to-service dialects and dropped by the `http` forms, unless
    `keep_debug` says otherwise.

    >>> encode(Fault.build(status=404, code="not_found"), "stripe")
    b'{"error":{"type":"invalid_request_error","code":"not_found","next_step":"give_up"}}'
    """
    return _encode(get(dialect), fault, limits, keep_debug)


def _encode(codec: Dialect, fault: Fault, limits: Limits, keep_debug: bool | None = None) -> bytes:
    if not codec.encodes:
        writers = ", ".join(name for name in _registry.names() if get(name).encodes)
        raise UnknownDialectError(f"{codec.name} is read, not written; errconv writes: {writers}")
    in_http = codec.form == "http"
    keep = not in_http if keep_debug is None else keep_debug
    # A Writing is read, never changed: the usual two are shared.
    writing = _WRITINGS[keep, in_http] if limits is DEFAULT_LIMITS else Writing(limits, keep_debug=keep, in_http=in_http)
    try:
        return codec.encode(fault, writing)
    except UnicodeEncodeError:  # a lone surrogate (see scrubbed): written as U+FFFD instead
        return codec.encode(scrubbed(fault), writing)


_WRITINGS = {(keep, in_http): Writing(DEFAULT_LIMITS, keep_debug=keep, in_http=in_http) for keep in (True, False) for in_http in (True, False)}


def convert(
    data: Any,
    to: str,
    source: str | None = None,
    *,
    status: int | None = None,
    strict: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
) -> bytes:
    """Decode `data` (from `source`, or detected) and encode it as `to`.

    With `strict=True`, raises LossError instead of dropping what `to` cannot carry.
    """
    target = get(to)
    fault = decode(data, source, status=status, limits=limits, now=now)
    out = _encode(target, fault, limits)
    if strict:
        lost = _measured(fault, target, out)
        if lost:
            raise LossError(to, lost)
    return out


def losses(fault: Fault, dialect: str, *, limits: Limits = DEFAULT_LIMITS) -> tuple[str, ...]:
    """The fields of `fault` that `dialect` cannot carry, by name.

    Measured, not declared: the fault is written in the dialect and read back, and
    every field that did not come back equal is named. A lost detail is named by
    its type (`details.DebugInfo`). A field errconv inferred itself while decoding
    (a gRPC code from the status: `fault.origin.inferred`) is not counted: it was
    never in the input to lose.

    >>> losses(Fault.build(status=429, code="rate_limit", domain="example.com",
    ...                    next_step="wait", retry_after_seconds=30), "stripe")
    ('domain', 'retry_after_seconds')
    """
    codec = get(dialect)
    return _measured(fault, codec, _encode(codec, fault, limits))


_FIELDS = tuple(name for name in Fault.__struct_fields__ if name != "origin")


def _measured(fault: Fault, codec: Dialect, encoded: bytes) -> tuple[str, ...]:
    """The fields of `fault` that did not come back from `encoded`, its encoding by `codec`."""
    inp = _Input(encoded, _UNLIMITED)
    back = codec.decode(inp.value_for(codec), Reading(_UNLIMITED, dialect=codec.name))
    inferred = fault.origin.inferred if fault.origin is not None else ()
    lost: list[str] = []
    for name in _FIELDS:
        mine, theirs = getattr(fault, name), getattr(back, name)
        if mine == theirs or name in inferred or mine is None:
            # None: the target added what the fault never had (JSON-RPC's -32000 and
            # Twirp's code name read back as a code); nothing was there to lose.
            continue
        if name == "details":
            left, missing = list(theirs), []
            for d in mine:  # counted: of two equal details, one may be lost
                if d in left:
                    left.remove(d)
                else:
                    missing.append(d)
            lost.extend(f"details.{detail_name(d)}" for d in missing)
            if not missing:
                lost.append("details")
        else:
            lost.append(name)
    return tuple(dict.fromkeys(lost))


def detail_name(detail: Any) -> str:
    """A detail's type name, as losses() names a lost one."""
    if isinstance(detail, RawDetail):
        return detail.type_url.rsplit("/", 1)[-1]
    return TYPE_NAMES[type(detail)].rsplit(".", 1)[-1]


def detect(data: Any, *, limits: Limits = DEFAULT_LIMITS) -> str:
    """The name of the dialect `data` is written in (a whole HTTP response is `http`).

    >>> detect(b'{"error": {"code": 404, "message": "no", "status": "NOT_FOUND"}}')
    'google'
    """
    return _detected(_Input(data, limits)).name
