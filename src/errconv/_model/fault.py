"""`Fault`: one failure, in no dialect.

Every dialect decodes into a Fault and encodes out of one. A Fault is an immutable
msgspec Struct: typed, fast, and serialisable to the canonical JSON kept in
`golden/<case>/fault.json`.

Two ways in:

- decoding is liberal: any real-world body decodes, carrying what it had, and
  `origin` records where its next step came from;
- `Fault.build()` is strict: it refuses a fault that breaks the agent contract.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from .errors import ContractError, install_build, shorten
from ..codes import Code, NextStep, code_for_http, http_for_code, infer_next_step
from ..details import TYPE_NAMES, Detail, LocalizedMessage, RawDetail, RetryInfo

__all__ = ["Basis", "Fault", "Origin", "Violation", "MAX_ALTERNATIVES", "REASON_RE", "METADATA_RESERVED"]

MAX_ALTERNATIVES = 3
# AIP-193: ErrorInfo.reason is UPPER_SNAKE_CASE, at most 63 characters.
REASON_RE = re.compile(r"[A-Z][A-Z0-9_]+[A-Z0-9]")
REASON_MAX = 63
# Keys errconv writes into ErrorInfo.metadata for the scalar agent fields.
METADATA_RESERVED = ("next_step", "param", "blocked_by", "unblock_with")
# JSON numbers every dialect carries exactly: a Status holds them as doubles (I-JSON, RFC 7493).
_JSON_INT_MAX = 2**53
_JSON_DEPTH_MAX = 32  # Limits.max_depth: errconv reads no deeper


class Violation(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One field violation: which field, what is wrong, and an optional machine reason."""

    field: str
    description: str = ""
    reason: str | None = None
    localized_message: LocalizedMessage | None = None


BASIS_FACTS = ("status", "code", "next_step", "retry_after_seconds")


class Basis(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Why errconv holds one fact of a Fault: `Origin.basis(fact)`.

    - `kind`: `stated` (the input says it: a member, a header, the status line, a
      sentence of the body), `inferred` (errconv derived it from something the input
      says: a code's words, a message's words, the status), or `assumed` (nothing in
      the input says it; errconv's default, or the fact is absent);
    - `source`: what it was stated by or inferred from: a JSON Pointer into the body
      (`/error/code`), a header name (`Retry-After`), `the HTTP status line`, the words
      or code it came from; None when nothing said it.

    >>> Basis(kind="stated", source="Retry-After")
    Basis(kind='stated', source='Retry-After')
    """

    kind: Literal["stated", "inferred", "assumed"]
    source: str | None = None


STATED = Basis(kind="stated")
ASSUMED = Basis(kind="assumed")


class Origin(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """How a decoded Fault came to be; not part of Fault equality.

    - `dialect`: what the input was read as (`http` for a whole response);
    - `body`: inside HTTP, the dialect the body was read as, or `unrecognised` for a
      body no dialect recognised (the fault then comes from the status and headers);
    - `next_step`: `stated` in the body, or `inferred from ...` and from what;
    - `notes`: disagreements the decoder resolved (a body status that is not the HTTP
      status, a grpc-status that is not the Status inside, ...);
    - `inferred`: the fields errconv derived rather than read (a gRPC code from the
      status, a next step from the ladder, a code that is only the name of the gRPC
      code in a status word); `losses()` does not count them;
    - `trace`: with `decode(..., trace=True)`, what the decoder read and where, as
      `(what, JSON Pointer into the input, raw value)`; lint works from it;
    - `evidence`: for a body the general reader read, each fact with where it came
      from, as `(fact, source)`: a JSON Pointer into the body, a header, the prose, or
      what it was inferred from;
    - `bases`: the `Basis` of each of status, code, next_step and retry_after_seconds,
      as `(fact, Basis)`; read it with `basis(fact)`.
    """

    dialect: str | None = None
    next_step: str = "stated"
    notes: tuple[str, ...] = ()
    body: str | None = None
    inferred: tuple[str, ...] = ()
    trace: tuple[tuple[str, str, Any], ...] = ()
    evidence: tuple[tuple[str, str], ...] = ()
    bases: tuple[tuple[str, Basis], ...] = ()

    @property
    def stated(self) -> bool:
        return self.next_step == "stated"

    def basis(self, fact: str) -> Basis:
        """The basis of `fact`, one of status, code, next_step, retry_after_seconds:
        stated, inferred or assumed, and by or from what.

        Every decoder fills `bases` through its one ending (`Reading.finish`); an Origin
        made by hand without them is read from `inferred` and `next_step`.
        """
        if fact not in BASIS_FACTS:
            raise ValueError(f"basis of one of {', '.join(BASIS_FACTS)}, not {fact!r}")
        for name, basis in self.bases:
            if name == fact:
                return basis
        if fact == "next_step":
            if self.next_step == "stated":
                return STATED
            if self.next_step.startswith("inferred from "):
                return Basis(kind="inferred", source=self.next_step[len("inferred from "):])
            return ASSUMED
        return Basis(kind="inferred") if fact in self.inferred else STATED


class Fault(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, eq=False):
    """One failure, independent of any wire format.

    Fields (all optional but `status` and `grpc_code`):

    - `status`: HTTP status; `grpc_code`: google.rpc.Code number (both are kept
      because the mapping between them is not one-to-one);
    - `code`: the stable identifier a client switches on (`rate_limited`);
      `domain`: who owns it (ErrorInfo.domain);
    - `title`, `detail`: summary and prose (never parsed for meaning);
      `type`, `instance`: RFC 9457 URI references;
    - `next_step`: `fix_request`, `wait` or `give_up`; `retry_after_seconds`:
      whole seconds, only with `wait`;
    - `param`, `violations`: the parameter at fault and every field violation;
    - `alternatives` (at most three), `alternatives_truncated`;
    - `blocked_by`, `unblock_with`: what blocks the call and the tool that changes it;
    - `metadata`: ErrorInfo.metadata; `details`: every other typed detail;
    - `extensions`: members errconv does not interpret, verbatim.

    Equality ignores `origin`, so `decode(encode(decode(x))) == decode(x)`.
    """

    status: int
    grpc_code: int
    code: str | None = None
    domain: str | None = None
    title: str | None = None
    detail: str | None = None
    type: str | None = None
    instance: str | None = None
    next_step: NextStep | None = None
    retry_after_seconds: int | None = None
    param: str | None = None
    violations: tuple[Violation, ...] = ()
    alternatives: tuple[Any, ...] = ()
    alternatives_truncated: bool = False
    blocked_by: str | None = None
    unblock_with: str | None = None
    metadata: dict[str, str] = {}
    details: tuple[Detail, ...] = ()
    extensions: dict[str, Any] = {}
    origin: Origin | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fault):
            return NotImplemented
        return _compared(self) == _compared(other)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # type: ignore[assignment]

    def basis(self, fact: str) -> Basis:
        """The basis of one of status, code, next_step, retry_after_seconds (see
        `Basis`): the decoder's, in `origin`; a Fault an application built (no origin)
        states every fact it holds.

        >>> Fault.build(status=404, code="no_such_user").basis("status")
        Basis(kind='stated')
        """
        if self.origin is not None:
            return self.origin.basis(fact)
        if fact not in BASIS_FACTS:
            raise ValueError(f"basis of one of {', '.join(BASIS_FACTS)}, not {fact!r}")
        return STATED if getattr(self, fact) is not None else ASSUMED

    @property
    def grpc_code_name(self) -> str:
        """The google.rpc.Code name (`RESOURCE_EXHAUSTED`)."""
        try:
            return Code(self.grpc_code).name
        except ValueError:
            return str(self.grpc_code)

    def replace(self, **changes: Any) -> Fault:
        """A copy with some fields changed (no contract check; a `grpc_code` in range
        becomes a `Code` member, as every Fault holds it)."""
        code = changes.get("grpc_code")
        if code is not None and type(code) is not Code and type(code) is int and 0 <= code <= 16:
            changes["grpc_code"] = Code(code)
        return msgspec.structs.replace(self, **changes)

    def to_json(self) -> bytes:
        """Canonical JSON of the model (indented, fixed member order, no `origin`)."""
        plain = msgspec.structs.replace(self, origin=None) if self.origin is not None else self
        return msgspec.json.format(msgspec.json.encode(plain), indent=2) + b"\n"

    @classmethod
    def from_json(cls, data: bytes | str) -> Fault:
        """Read the canonical JSON written by `to_json`."""
        fault = msgspec.json.decode(data, type=cls)
        if type(fault.grpc_code) is int and 0 <= fault.grpc_code <= 16:
            fault = msgspec.structs.replace(fault, grpc_code=Code(fault.grpc_code))  # one type, as decoders give it
        return fault

    @classmethod
    def build(
        cls,
        *,
        status: int | None = None,
        grpc_code: int | None = None,
        code: str | None = None,
        next_step: str | None = None,
        retry_after_seconds: int | float | None = None,
        alternatives: Any = (),
        violations: Any = (),
        details: Any = (),
        metadata: dict[str, str] | None = None,
        extensions: dict[str, Any] | None = None,
        **fields: Any,
    ) -> Fault:
        """Build a Fault for a producer, enforcing the agent contract.

        Give `status` or `grpc_code` (the other is derived), and the rest by name.
        A missing `next_step` is inferred with the same rules decoders use. Raises
        `ContractError` for a `wait` without `retry_after_seconds`, a delay that is
        not a whole non-negative number of seconds, a `fix_request` without `param`,
        or more than three alternatives. `code` is any text, kept as given; where a
        dialect writes an AIP-193 ErrorInfo reason it makes one from it (see
        `errconv.dialects._status.reason_for`).

        >>> f = Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30)
        >>> (f.grpc_code_name, f.next_step == "wait")
        ('RESOURCE_EXHAUSTED', True)
        """
        if status is None and grpc_code is None:
            raise ContractError("a fault needs status or grpc_code (give one; the other is derived)")
        if grpc_code is None:
            grpc_code = code_for_http(status)  # type: ignore[arg-type]
        if status is None:
            status = http_for_code(grpc_code)
        if not (isinstance(status, int) and 100 <= status <= 599):
            raise ContractError(f"status must be an HTTP status from 100 to 599, got {shorten(status)}")
        try:
            grpc_code = Code(grpc_code)
        except ValueError:
            raise ContractError(f"grpc_code must be a google.rpc.Code from 0 to 16, got {shorten(grpc_code)}") from None

        # A code is kept as its service spells it ("bad-request", "E1"), as decoding keeps it:
        # AIP-193's reason rule binds only ErrorInfo.reason, and the google-family dialects
        # write a reason made from the code (BAD_REQUEST), or the gRPC code name when none
        # can be made ("E1" -> NOT_FOUND), with the exact code beside it.
        if code is not None and not isinstance(code, str):
            raise ContractError(f"code must be text, got {shorten(code)}")
        if code == "":
            code = None

        if retry_after_seconds is not None:
            if isinstance(retry_after_seconds, bool) or not isinstance(retry_after_seconds, (int, float)):
                raise ContractError(f"retry_after_seconds must be a whole number of seconds, got {shorten(retry_after_seconds)}")
            if isinstance(retry_after_seconds, float):
                if not math.isfinite(retry_after_seconds) or not retry_after_seconds.is_integer():
                    raise ContractError(
                        f"retry_after_seconds must be a whole number of seconds, as Retry-After is, got {shorten(retry_after_seconds)}"
                    )
                retry_after_seconds = int(retry_after_seconds)
            if retry_after_seconds < 0:
                raise ContractError(f"retry_after_seconds must not be negative, got {retry_after_seconds}")

        fields = {k: (None if v == "" else v) for k, v in fields.items()}
        if fields.get("type") == "about:blank":
            fields["type"] = None  # RFC 9457 4.2.1: the type an error without one has; nothing to carry
        viol = tuple(v if isinstance(v, Violation) else Violation(**v) for v in violations)
        # BadRequest.FieldViolation.reason has no presence: "" and no reason are one value.
        viol = tuple(msgspec.structs.replace(v, reason=None) if v.reason == "" else v for v in viol)
        param = fields.get("param")

        if next_step is None:
            if retry_after_seconds is not None:
                step: NextStep = NextStep.WAIT
            else:
                step, _ = infer_next_step(grpc_code, status, param=param)
                if step is NextStep.FIX_REQUEST and not param:
                    raise ContractError(
                        f"status {status} ({grpc_code.name}) means fix_request, which must name the parameter at fault: "
                        "give param, or an explicit next_step"
                    )
        else:
            try:
                step = NextStep(next_step)
            except ValueError:
                raise ContractError(
                    f"next_step must be one of fix_request, wait, give_up, got {shorten(next_step)}"
                ) from None
        if step is NextStep.WAIT and retry_after_seconds is None:
            raise ContractError("a wait must carry retry_after_seconds (whole seconds; the same number goes out as Retry-After)")
        if step is not NextStep.WAIT and retry_after_seconds is not None:
            raise ContractError(f"retry_after_seconds goes only with next_step wait, not {step.value}")
        if step is NextStep.FIX_REQUEST and not param:
            raise ContractError("a fix_request must name the parameter at fault (param)")

        alts = tuple(alternatives)
        if len(alts) > MAX_ALTERNATIVES:
            raise ContractError(
                f"at most {MAX_ALTERNATIVES} alternatives, got {len(alts)}; send the nearest three and alternatives_truncated=True"
            )
        meta = dict(metadata or {})
        for key, value in meta.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ContractError(f"metadata must map strings to strings, got {shorten(key)}: {shorten(value)}")
            if key in METADATA_RESERVED:
                raise ContractError(f"metadata key {key!r} is reserved for the field of that name; set the field instead")
        ext = dict(extensions or {})
        if ext:
            for key in ext:
                if not isinstance(key, str):
                    raise ContractError(f"extension member names are strings, got {shorten(key)}")
            _extension_check(ext)
        _check_json(ext, "extensions", 0)
        _check_json(alts, "alternatives", 0)
        dets = tuple(details)
        _check_details(dets, retry_after_seconds)
        return cls(
            status=status,
            grpc_code=grpc_code,  # a Code member, as decoders give (one type; it is an int too)
            code=code,
            next_step=step,
            retry_after_seconds=retry_after_seconds,
            alternatives=alts,
            violations=viol,
            details=dets,
            metadata=meta,
            extensions=ext,
            **fields,
        )


def _no_check(extensions: dict[str, Any]) -> None:
    pass


# The dialects' own member names, which an extension member may not take, are the
# registry's knowledge, and the model imports nothing above it: the registry hands its
# check in here when it loads (errconv.dialects.check_extensions).
_extension_check: Callable[[dict[str, Any]], None] = _no_check


def set_extension_check(check: Callable[[dict[str, Any]], None]) -> None:
    """Have `Fault.build` refuse extension members through `check` (the registry's)."""
    global _extension_check
    _extension_check = check


def _check_json(value: Any, where: str, depth: int) -> None:
    """Refuse what is not a JSON value every dialect carries exactly."""
    if value is None or isinstance(value, (bool, str)):
        return
    if isinstance(value, int):
        if abs(value) > _JSON_INT_MAX:
            raise ContractError(f"{where}: integer {shorten(value)} is beyond +-2**53, which a google.rpc.Status cannot hold exactly")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ContractError(f"{where}: {value} is not a JSON number")
        return
    if isinstance(value, (dict, list, tuple)):
        if depth >= _JSON_DEPTH_MAX:
            raise ContractError(f"{where} nests deeper than {_JSON_DEPTH_MAX} levels, which errconv will not read back")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise ContractError(f"{where}: JSON member names are strings, got {shorten(key)}")
                _check_json(item, where, depth + 1)
        else:
            for item in value:
                _check_json(item, where, depth + 1)
        return
    raise ContractError(f"{where}: {shorten(value)} is not a JSON value (null, bool, number, string, array, object)")


def _check_details(details: tuple[Any, ...], retry_after_seconds: int | None) -> None:
    for item in details:
        if not isinstance(item, (RawDetail, *TYPE_NAMES)):
            raise ContractError(f"details holds errconv.details values, got {shorten(item)}")
        if isinstance(item, RawDetail):
            if (item.value is None) == (item.fields is None):
                raise ContractError("a RawDetail holds either value (packed bytes) or fields (JSON members), exactly one")
            if item.fields is not None:
                _check_json(item.fields, "RawDetail.fields", 0)
                if any(key.startswith("@") for key in item.fields):
                    raise ContractError("RawDetail.fields are a message's JSON members, whose names never start with @")
        # The first RetryInfo of a Status is the fault's retry_after_seconds; a second
        # one rides in details only beside it (there is no "no delay" RetryInfo to write first).
        if isinstance(item, RetryInfo) and retry_after_seconds is None:
            raise ContractError("a RetryInfo detail needs retry_after_seconds beside it; give the delay as retry_after_seconds")


_FIELDS = tuple(f for f in Fault.__struct_fields__ if f != "origin")


def _compared(fault: Fault) -> tuple[Any, ...]:
    return tuple(getattr(fault, name) for name in _FIELDS)


# --------------------------------------------------------------------------- writable text

_SURROGATE = re.compile("[\ud800-\udfff]")


def scrubbed(fault: Fault) -> Fault:
    """`fault` with every lone surrogate in its text replaced by U+FFFD.

    `json.loads('"\\ud800"')` makes such text (a client's member name echoed into an
    error), `Fault.build` takes it, and no encoder can write it as UTF-8: encoders retry
    with this copy rather than raise UnicodeEncodeError, so every error still goes out.
    """
    scrubbed_fault: Fault = _scrub(fault)
    return scrubbed_fault


def _scrub(value: Any) -> Any:
    if type(value) is str:
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, msgspec.Struct):
        return msgspec.structs.replace(value, **{f: _scrub(getattr(value, f)) for f in value.__struct_fields__})
    if type(value) is dict:
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if type(value) is list or type(value) is tuple:
        return type(value)(_scrub(v) for v in value)
    return value


install_build(Fault.build)  # FaultError(**fields) builds with it (errors.py sits below this module)
