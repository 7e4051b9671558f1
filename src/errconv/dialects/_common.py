"""What every decoder and encoder shares: JSON under limits, the numbers of delays,
and `Reading`, the state of one decode, whose `finish` settles the next step and
builds the Fault, bound by the same `Limits` whichever entry point was used.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import msgspec

from .._model.errors import DecodeError, shorten
from .._model.fault import ASSUMED, Basis, Fault, Origin
from .._model.limits import DEFAULT_LIMITS, MAX_RETRY_AFTER_SECONDS, Limits
from .._model.schema import beyond_double, check_depth
from ..codes import Code, NextStep, infer_next_step
from ._costly_numbers import costly_numbers, std_decode
from ._strings import within

__all__ = [
    "CodeValue",
    "Headers",
    "Reading",
    "STEP_ALIASES",
    "Writing",
    "beyond_double",
    "capped_delay",
    "has_long_digit_run",
    "read_json",
    "seconds_from_nanos",
    "valid_code",
    "whole_seconds",
    "write_json",
]

_json_decoder = msgspec.json.Decoder()
_json_encoder = msgspec.json.Encoder()

# Seed 000's vocabulary, accepted wherever a next step may be stated.
STEP_ALIASES = {
    "fix_request": NextStep.FIX_REQUEST,
    "wait": NextStep.WAIT,
    "give_up": NextStep.GIVE_UP,
    "invalid_request": NextStep.FIX_REQUEST,
    "transient": NextStep.WAIT,
    "terminal": NextStep.GIVE_UP,
}


# --------------------------------------------------------------------------- JSON


def read_json(data: bytes | str, limits: Limits, what: str) -> Any:
    """Parse JSON under the size limit, turning every failure into one DecodeError."""
    if len(data) > limits.max_bytes:
        raise DecodeError(f"{what} is {len(data)} bytes, over the limit of {limits.max_bytes} (Limits.max_bytes)")
    try:
        if costly_numbers(data):  # numbers msgspec reads slowly (1e+308): the standard library reads them fast
            obj = std_decode(data)  # type: ignore[arg-type]
        else:
            obj = _json_decoder.decode(data)
    except (msgspec.DecodeError, ValueError) as exc:  # ValueError: the standard library's
        raise DecodeError(f"{what} is not valid JSON: {str(exc)[:80]}") from None
    except RecursionError:
        raise DecodeError(f"{what} nests too deeply to read (the limit is Limits.max_depth)") from None
    except UnicodeError:  # text with a lone surrogate, which no UTF-8 can hold
        raise DecodeError(f"{what} is not valid Unicode text (a lone surrogate)") from None
    # msgspec reads a 4000-digit integer exactly, but no double holds one (it refuses
    # 1e999 as out of range already); a google.rpc.Status could not carry it.
    if len(data) > 308 and has_long_digit_run(data):
        number = beyond_double(obj)
        if number is not None:
            raise DecodeError(f"{what} holds a {len(str(abs(number)))}-digit number, out of range of a JSON double")
    return obj


# Digits as "0", everything else as " ": a run of 309 digits is then a substring search, in C.
_DIGIT_MAP = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 309


def has_long_digit_run(data: bytes | str) -> bool:
    """Whether `data` holds a run of 309 ASCII digits (a number no double holds)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    # Such a run covers two bytes 154 apart at positions 153, 307, 461, ...: looking at
    # those alone (a 154th of the input) rules out almost every input at once.
    if b"00" not in raw[153::154].translate(_DIGIT_MAP):
        return False
    return _LONG_RUN in raw.translate(_DIGIT_MAP)


def write_json(value: Any) -> bytes:
    """Compact JSON, members in the order given."""
    return _json_encoder.encode(value)


# --------------------------------------------------------------------------- numbers


def seconds_from_nanos(nanos: int) -> int:
    """Whole seconds for a delay, rounded up: waiting 2.4 s means waiting 3; a negative
    delay (a Duration may be one) means no wait at all, 0."""
    return max(0, min(math.ceil(nanos / 1_000_000_000), MAX_RETRY_AFTER_SECONDS))


def capped_delay(seconds: int) -> int:
    """A delay as errconv writes it: whole, not negative, at most MAX_RETRY_AFTER_SECONDS
    (a Fault made by hand may hold 10**30; no encoder may overflow or stall a client)."""
    return max(0, min(int(seconds), MAX_RETRY_AFTER_SECONDS))


def whole_seconds(value: Any) -> int | None:
    """A body's delay as whole seconds (fractions round up), or None if it is not a number."""
    if type(value) is int and 0 <= value <= MAX_RETRY_AFTER_SECONDS:  # the usual case, as written
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return max(0, min(math.ceil(value), MAX_RETRY_AFTER_SECONDS))


# A gRPC code as errconv hands it on: a Code member, or the number the wire gave. Typed
# Any, not int, wherever one is passed along: in the compiled build (mypyc) a value typed
# int (or `Code | int`, which mypy simplifies to int) is a C integer, and a Code member
# would come out of it a plain int.
CodeValue = Any


def valid_code(value: Any) -> CodeValue:
    """A gRPC code from the wire; a number outside google.rpc.Code is UNKNOWN, as gRPC says."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 16:
        return value
    return Code.UNKNOWN


# --------------------------------------------------------------------------- headers


class Headers:
    """HTTP header fields: lower-case names, in order, repeats kept; `get` gives the first."""

    __slots__ = ("items", "_first")

    def __init__(self, items: Iterable[tuple[str, str]]) -> None:
        self.items = list(items)
        self._first = dict(reversed(self.items))

    def get(self, name: str) -> str | None:
        return self._first.get(name)

    def has_any(self, names: frozenset[str]) -> bool:
        """Whether any of `names` (lower case) is among the fields, at C speed."""
        return not self._first.keys().isdisjoint(names)

    def __contains__(self, name: object) -> bool:
        return name in self._first

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Headers) and self.items == other.items

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Headers({self.items!r})"


# --------------------------------------------------------------------------- one decode

_OPTIONAL_TEXT = ("code", "domain", "title", "detail", "type", "instance", "param", "blocked_by", "unblock_with")


class Reading:
    """The state of one decode: its limits and clock, what the wire around the body said
    (an HTTP status and headers, gRPC trailers), and what the decoder noted.

    A dialect's `decode` gets one and ends with `reading.finish(fields, stated)`, which
    settles the next step (stated, else from the wire signals, else the ladder) and
    builds the Fault. With `trace`, decoders record in `seen` what they read where
    (a JSON Pointer into the input, the raw value): lint reads it from the Fault's origin.
    """

    __slots__ = (
        "limits", "dialect", "size", "now", "status", "headers", "body", "at", "wait", "delay", "no_retry", "seen",
        "notes", "inferred", "lenient", "deep", "bases",
    )  # fmt: skip

    def __init__(
        self,
        limits: Limits = DEFAULT_LIMITS,
        size: int | None = None,
        *,
        now: float | Callable[[], float] | None = None,
        status: int | None = None,
        headers: Headers | None = None,
        dialect: str = "",
        trace: bool = False,
    ) -> None:
        self.limits = limits
        self.dialect = dialect  # what Origin.dialect says: the outermost dialect read
        # The input's length, when known: no string read from it is longer, so the strings
        # of a short input need no check. Unknown (None): every string is checked.
        self.size = sys.maxsize if size is None else size
        self.now = now
        self.status = status  # the status the wire gives (an HTTP status line, the caller's status=)
        self.headers = headers
        self.body: str | None = None  # inside HTTP: the dialect the body was read as
        self.at = ""  # the pointer of the body inside the input
        self.wait: str | None = None  # the name of a wire signal that says wait
        self.delay: int | None = None  # its delay in whole seconds, if it gave one
        self.no_retry: str | None = None  # the name of a wire signal that forbids retrying
        self.seen: list[tuple[str, str, Any]] | None = [] if trace else None
        # Added to with +=: a tuple until something is added, so most decodes make none.
        self.notes: tuple[str, ...] = ()
        self.inferred: tuple[str, ...] = ()  # fields errconv derived rather than read
        self.lenient = False  # lint reads a 2xx body as an error too, to say it should not be one
        # Whether a JSON value read may nest past Limits.max_depth: not when the input holds
        # fewer brackets than that (counted once, in C), which spares walking every value.
        self.deep = True
        # A dialect that knows a fact's basis better than the ending does (the general
        # reader's evidence) sets it here, as (fact, Basis) pairs; finish fills the rest.
        self.bases: tuple[tuple[str, Basis], ...] = ()

    def saw(self, what: str, pointer: str, raw: Any) -> None:
        """Record (when tracing) that `what` was read at `pointer` as `raw`."""
        if self.seen is not None:
            self.seen.append((what, self.at + pointer, raw))

    def keep_extensions(self, fields: dict[str, Any], extensions: dict[str, Any]) -> None:
        """The decoder's tail for the members it did not read: kept as `extensions` in
        `fields` when there are any, refused past `Limits.max_depth`."""
        if extensions:
            if self.deep:
                check_depth(extensions, self.limits.max_depth)
            fields["extensions"] = extensions

    def http_status_wins(self, body_status: int | None) -> int | None:
        """The status a decoded body gets: the wire's when there is one (generic HTTP
        software uses the status line, RFC 9457 section 3.1.2), noting a body that said
        otherwise."""
        if self.status is None:
            return body_status
        if body_status is not None and body_status != self.status:
            self.notes += (f"body status {body_status} differs from HTTP status {self.status}; HTTP wins",)
        return self.status

    def finish(
        self,
        fields: dict[str, Any],
        stated: NextStep | str | None,
        body_wait: str | None = None,
        by_code: tuple[NextStep, str] | None = None,
    ) -> Fault:
        """Settle the next step and build the decoded Fault.

        `fields` holds the Fault's fields (status and grpc_code at least); `body_wait`
        names a signal in the body that says wait (RetryInfo); `by_code` is what the
        dialect's own code table says of the service's code, and why (`"openai code
        'insufficient_quota'"`). The strongest signal present decides, in this order:
        a next step the body states; a wire signal that forbids retrying
        (`x-should-retry: false`) turning any wait into give_up; the code table, which
        knows what the status cannot (a throttle sent as 400, a 429 whose quota is gone
        for days); a wire signal that says wait (a header, a trailer); the body's own;
        the ladder of `codes.infer_next_step`.
        """
        # An empty string is no value, as in Fault.build: proto3 strings cannot tell them apart.
        if "" in fields.values():  # rare: one scan at C speed spares nine lookups
            for name in _OPTIONAL_TEXT:
                if fields.get(name) == "":
                    fields[name] = None
        if "type" in fields and fields["type"] == "about:blank":
            del fields["type"]  # RFC 9457 4.2.1: what an absent type means, whatever carried it
        ladder = False
        if stated is not None:
            # A NextStep, or its word (hashing an Enum member runs Python code: asked only for a word).
            step = stated if type(stated) is NextStep else STEP_ALIASES.get(stated, NextStep.GIVE_UP)
            source = "stated"
        elif by_code is not None:
            step, why = by_code
            if step is _WAIT and self.no_retry is not None:
                step, why = NextStep.GIVE_UP, self.no_retry
            source = f"inferred from {why}"
            self.inferred += ("next_step",)
        else:
            if "param" not in fields and "violations" in fields:
                for v in fields["violations"]:
                    if v.field:
                        fields["param"] = v.field
                        self.inferred += ("param",)
                        break
            wait_hint = self.wait or body_wait
            if wait_hint is None and fields.get("retry_after_seconds") is not None:
                wait_hint = "a delay in the body"
            if self.no_retry is not None:
                wait_hint = None  # the server's own "do not retry" outranks any delay it also sent
            step, source = infer_next_step(
                fields["grpc_code"],
                fields["status"],
                param=fields.get("param"),
                wait_hint=wait_hint,
                no_retry_hint=self.no_retry,
            )
            ladder = wait_hint is None and self.no_retry is None
            if ladder and self.dialect != "general" and type(fields.get("detail")) is str:
                # Where only the status's ladder spoke, an instruction the message gives
                # outright ("Try again later", OpenFEC's rate limit in an OData-shaped body)
                # decides, as it does in the general reader; a description does not.
                said = _instructed(fields["detail"])
                if said is not None and said[0] is not step:
                    step, source, ladder = said[0], f"inferred from prose {said[1]!r}, over {source[len('inferred from '):]}", False
            self.inferred += ("next_step",)
        if self.delay is not None and step is _WAIT and fields.get("retry_after_seconds") is None:
            fields["retry_after_seconds"] = self.delay
        fields["next_step"] = step
        # In the dict, not beside it: Fault(origin=..., **fields) would copy the dict to merge them.
        inferred = self.inferred
        fields["origin"] = Origin(
            dialect=self.dialect,
            next_step=source,
            notes=self.notes,
            body=self.body,
            inferred=inferred if len(inferred) < 2 else tuple(dict.fromkeys(inferred)),
            trace=() if self.seen is None else tuple(self.seen),
            bases=self._bases(fields, source, ladder),
        )
        grpc_code = fields["grpc_code"]
        if type(grpc_code) is int and 0 <= grpc_code <= 16:
            # A code that passed through a compiled int (a table row, a typed return) comes
            # out a plain int: the Fault holds the Code member, in either build.
            fields["grpc_code"] = _CODES[grpc_code]
        try:
            fault = Fault(**fields)
        except TypeError as exc:  # a field of the wrong type slipped through: a bug, but never a crash
            raise DecodeError(f"cannot build a fault from {self.dialect}: {shorten(str(exc), 80)}") from None
        limits = self.limits
        if self.size > limits.max_string or (fault.details and len(fault.details) > limits.max_details):
            return self.checked(fault)
        return fault

    def _bases(self, fields: dict[str, Any], source: str, ladder: bool) -> tuple[tuple[str, Basis], ...]:
        """The basis of status, code, next_step and retry_after_seconds (Origin.basis),
        for every dialect at once: what the dialect set in `bases` first, then what the
        reading knows (the wire, the inferred fields, the notes of an assumed default)."""
        given = dict(self.bases) if self.bases else _NOTHING_GIVEN
        # The Basis values that name the body, made once per body name (a Basis is frozen:
        # one shared is the same value as one made here).
        said = _said(self.body or self.dialect)
        inferred = self.inferred
        status = given.get("status")
        if status is None:
            if "status" in inferred:
                assumed = any(note.endswith(" assumed") and "status" in note for note in self.notes)
                status = ASSUMED if assumed else said.code
            elif self.status is not None:
                status = _LINE if self.dialect == "http" else _GIVEN
            else:
                status = self._stated("status", said)
        code = given.get("code")
        if code is None:
            if fields.get("code") is None:
                code = ASSUMED
            elif "code" in inferred:
                code = said.protocol_code
            else:
                code = self._stated("code", said)
        step = given.get("next_step")
        if step is None:
            if source == "stated":
                step = self._stated("next_step", said)
            elif source.startswith("inferred from "):
                # The ladder of an assumed status says nothing the input said.
                why = source[len("inferred from ") :]
                step = Basis(kind="assumed", source=why) if ladder and status.kind == "assumed" else _inferred(why)
            else:
                step = Basis(kind="assumed", source=source)
        delay = given.get("retry_after_seconds")
        if delay is None or fields.get("retry_after_seconds") is None:
            after = fields.get("retry_after_seconds")
            if after is None:
                delay = ASSUMED
            elif self.delay is not None and after == self.delay and self.wait is not None:
                delay = Basis(kind="stated", source=self.wait)
            else:
                delay = said.stated
        return (("status", status), ("code", code), ("next_step", step), ("retry_after_seconds", delay))

    def _stated(self, what: str, said: _Said) -> Basis:
        """The basis of a field the body stated: where the trace saw it, when tracing, else the body."""
        pointer = self._pointer(what)
        return said.stated if pointer is None else Basis(kind="stated", source=pointer)

    def _pointer(self, what: str) -> str | None:
        """Where the trace saw `what`, when tracing."""
        if self.seen is not None:
            for name, pointer, _ in self.seen:
                if name == what:
                    return pointer or "/"
        return None

    def origin(self, source: str) -> Origin:
        """The Origin of the fault this reading makes, its next step `source`."""
        inferred = self.inferred
        return Origin(
            dialect=self.dialect,
            next_step=source,
            notes=self.notes,
            body=self.body,
            inferred=inferred if len(inferred) < 2 else tuple(dict.fromkeys(inferred)),
            trace=() if self.seen is None else tuple(self.seen),
        )

    def checked(self, fault: Fault) -> Fault:
        """`fault`, once it is within the limits (DecodeError otherwise)."""
        if fault.details and len(fault.details) > self.limits.max_details:
            # Whatever the dialect: a Status's container may hold four more (the codecs check
            # that before parsing), but no fault holds more details than any dialect reads back.
            raise DecodeError(
                f"{len(fault.details)} details, over the limit of {self.limits.max_details} (Limits.max_details)"
            )
        if self.size > self.limits.max_string:  # no decoded string is longer than its input
            check_strings(fault, self.limits.max_string)
        return fault


_WAIT = NextStep.WAIT
_LINE = Basis(kind="stated", source="the HTTP status line")
_NOTHING_GIVEN: dict[str, Basis] = {}  # read, never written


class _Said(NamedTuple):
    """The Basis values that name one body: stated by it, inferred from its code, inferred
    from its protocol code."""

    stated: Basis
    code: Basis
    protocol_code: Basis


# Per body name (a dialect's, or the body's inside HTTP). Bounded: names are the dialects',
# but a caller may set any.
@functools.lru_cache(maxsize=256)
def _said(name: str) -> _Said:
    body = f"the {name} body"
    return _Said(
        Basis(kind="stated", source=body),
        Basis(kind="inferred", source=f"{body}'s code"),
        Basis(kind="inferred", source=f"{body}'s protocol code"),
    )


# Basis(kind="inferred", source=why) per why: a code table's or the ladder's words (bounded,
# whatever words a stream's codes bring).
@functools.lru_cache(maxsize=1024)
def _inferred(why: str) -> Basis:
    return Basis(kind="inferred", source=why)


_GIVEN = Basis(kind="stated", source="the status given with the body")
_CODES = tuple(Code(n) for n in range(17))


def check_strings(fault: Fault, limit: int) -> None:
    """DecodeError when any string in `fault` (a field, a key, a value in extensions or
    details) is longer than `limit` characters."""
    stack: list[Any] = [getattr(fault, f) for f in Fault.__struct_fields__ if f != "origin"]
    if within(stack, limit):  # told in C (written as JSON): no walk
        return
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


class Writing:
    """How one encode goes: its limits, whether DebugInfo stays, and whether the body goes
    out inside an HTTP response (whose status line carries the status)."""

    __slots__ = ("limits", "keep_debug", "in_http")

    def __init__(self, limits: Limits = DEFAULT_LIMITS, *, keep_debug: bool = True, in_http: bool = False) -> None:
        self.limits = limits
        self.keep_debug = keep_debug
        self.in_http = in_http


def _instructed(detail: str) -> tuple[NextStep, str] | None:
    """The next step a message states outright (vocabulary.step_stated), or None. A
    sentence under a condition says nothing of this call (Azure OpenAI's "If you created the
    deployment within the last 5 minutes, please wait a moment and try again.")."""
    from .. import _vocabulary as vocab

    sentences = [s for s in detail[:1024].split(". ") if not s.lstrip().lower().startswith(("if ", "when ", "unless "))]
    return vocab.step_stated(vocab.words(". ".join(sentences))) if sentences else None
