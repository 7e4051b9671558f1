"""The contract review of seed 004, over a catalog of error bodies in any dialect.

Seed 004 is the published guide *How to design error responses an autonomous agent can
act on* (voxgig.com/howto/error-responses-an-agent-can-act-on, with its agent-loop
tables); the contract is its: a stable code, the parameter at fault, a next step, a delay.

Decoding is liberal: any real-world body reads into a Fault. `lint` says what the
body should have said and did not. It reads nothing itself: every rule works from the
decoder's result, the Fault and the trace of what was read where
(`decode(..., trace=True)`, `Fault.origin.trace`). Each finding names a rule, a severity, the file,
and a JSON Pointer (RFC 6901) to the offending member. For a whole HTTP response the
pointer is into the response seen as `{"status", "headers", "body"}` (so
`/headers/retry-after`, `/body/next_step`); for gRPC trailers into the trailers seen
as an object, whose `grpc-status-details-bin` holds the Status in proto3 JSON; for
`status` bytes into the Status in proto3 JSON. `errconv lint --list-rules` prints
the table below.

>>> [f.rule for f in lint_body(b'{"status": 503, "next_step": "wait", "detail": "try again later"}')]
['wait-without-delay', 'code-missing', 'retry-promised-in-prose']
"""

from __future__ import annotations

import glob
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from ._pipeline.api import decode_for_lint, detect
from ._model.errors import DecodeError, shorten
from ._model.fault import MAX_ALTERNATIVES, REASON_MAX, REASON_RE, Fault
from .dialects._responses import looks_like_http
from ._model.limits import DEFAULT_LIMITS, Limits
from .codes import Code, NextStep

__all__ = ["ERROR", "RULES", "WARNING", "Finding", "LintReport", "Rule", "expand_paths", "lint_body", "lint_paths"]

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    """One check: its id, its severity, and what it looks for."""

    id: str
    severity: str
    summary: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule("unreadable", ERROR, "the file is not an error body errconv can read"),
        Rule("wait-without-delay", ERROR, "a wait that says nowhere how long (no retry_after_seconds, RetryInfo or Retry-After)"),
        Rule("retry-promised-in-prose", ERROR, "a message that promises a retry (\"try again later\") while no field says when"),
        Rule("delay-not-whole-seconds", ERROR, "a delay that is not a whole, non-negative number of seconds"),
        Rule("delay-mismatch", ERROR, "two delays in one response that disagree (body and Retry-After, RetryInfo and pushback)"),
        Rule("fix-without-param", ERROR, "a fix_request that does not name the parameter at fault"),
        Rule("too-many-alternatives", ERROR, "more than three alternatives (send the nearest three and alternatives_truncated)"),
        Rule("next-step-on-success", ERROR, "a next step on a response that is not an error"),
        Rule("status-mismatch", ERROR, "a status in the body that differs from the HTTP status or grpc-status"),
        Rule("aip193-errorinfo-missing", ERROR, "a google.rpc.Status without an ErrorInfo (AIP-193: every error must carry one)"),
        Rule("aip193-reason", ERROR, "an ErrorInfo.reason that is not UPPER_SNAKE_CASE [A-Z][A-Z0-9_]+[A-Z0-9] of at most 63 characters"),
        Rule("aip193-metadata-key", ERROR, "an ErrorInfo.metadata key that is not [a-z][a-zA-Z0-9-_]+ of at most 64 characters"),
        Rule("aip193-duplicate-detail", ERROR, "two details of the same type in one Status (AIP-193: each type at most once)"),
        Rule("alternatives-truncation-unstated", WARNING, "three alternatives, the most allowed, and no alternatives_truncated to say whether more exist"),
        Rule("delay-said-once", WARNING, "a delay in the body or in Retry-After but not both (many clients read only one)"),
        Rule("retry-after-date", WARNING, "Retry-After as an HTTP-date: it depends on two clocks agreeing; send delay-seconds"),
        Rule("delay-unseen", WARNING, "a wait in a bare Stripe body, which has no home for a delay: it must travel in Retry-After"),
        Rule("wait-on-bug", WARNING, "a wait on INTERNAL, UNKNOWN or DATA_LOSS (AIP-194: a bug does not clear with time)"),
        Rule("every-5xx-wait", WARNING, "every 5xx in the catalog is a wait, a 500 or 501 among them (AIP-194: INTERNAL and UNKNOWN are give_up)"),
        Rule("extension-member-name", WARNING, "an RFC 9457 extension member name that is not a letter then letters, digits or _, 3 or more long"),
        Rule("next-step-unstated", WARNING, "no next_step in the body: the caller is left to infer it from the status"),
        Rule("code-missing", WARNING, "no stable code a client can switch on"),
        # With a catalog (`lint_paths(..., catalog=)`, `errconv lint --catalog`): _check_catalog.
        Rule("catalog-code", ERROR, "with --catalog: a code that is not in the catalog"),
        Rule("catalog-next-step", ERROR, "with --catalog: a next step that is not the one the code's entry states"),
        Rule("catalog-status", ERROR, "with --catalog: a status (or, for gRPC, a code) that is not the one the code's entry states"),
        Rule("catalog-param", ERROR, "with --catalog: a param or violation field that is not one of the code's params"),
        Rule("catalog-delay", ERROR, "with --catalog: a delay on a code that is no wait, or past the entry's maximum"),
    )
}


@dataclass(frozen=True)
class Finding:
    """One contract violation in one file."""

    file: str
    pointer: str
    rule: str
    severity: str
    message: str

    def __str__(self) -> str:
        # RFC 6901 section 6: a pointer as a URI fragment; the root is the file itself.
        where = f"{self.file}#{self.pointer}" if self.pointer else self.file
        return f"{where}: {self.severity} {self.rule}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"file": self.file, "pointer": self.pointer, "rule": self.rule, "severity": self.severity, "message": self.message}


@dataclass
class LintReport:
    """What `lint_paths` found: the files read and the findings, in file order."""

    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)


# --------------------------------------------------------------------------- reading a file


@dataclass
class _Doc:
    """One file as lint sees it: the decoded fault, and what the decoder read where."""

    fault: Fault
    kind: str  # what the body is: problem, google, stripe, status, trailers, vague, fault
    at: str  # the pointer of the body inside the whole document
    in_http: bool  # a whole HTTP response, whose status is the fault's
    trailers: bool  # gRPC trailers
    seen: tuple[tuple[str, str, Any], ...]

    def all(self, what: str) -> list[tuple[str, Any]]:
        return [(pointer, raw) for kind, pointer, raw in self.seen if kind == what]

    def first(self, what: str) -> tuple[str, Any] | None:
        return next(((pointer, raw) for kind, pointer, raw in self.seen if kind == what), None)

    @property
    def bare_stripe(self) -> bool:
        """A Stripe body without its response: its status and its delay travel in the
        HTTP response, so rules that need them cannot judge it."""
        return self.kind == "stripe" and not self.in_http

    @property
    def stated(self) -> bool:
        return self.fault.origin is not None and self.fault.origin.stated

    def details(self) -> tuple[list[Any], str] | None:
        """A Status's details (proto3 JSON) and their pointer, for the bodies that have them."""
        found = self.first("details")
        if found is None or self.kind not in ("google", "status"):
            return None
        pointer, raw = found
        return (raw if isinstance(raw, list) else []), pointer


def _read(data: bytes, dialect: str | None, limits: Limits, now: float | None, walking: bool) -> _Doc | None:
    """The document lint checks, or None when walking a directory and `data` is no error body."""
    if dialect is None:
        try:
            dialect = detect(data, limits=limits)
        except DecodeError:
            if walking and _no_error_body(data, limits):
                return None  # a case.json, a README.txt beside the bodies
            raise
    fault = decode_for_lint(data, dialect, limits, now)
    origin = fault.origin
    seen = origin.trace if origin is not None else ()
    body = next(((pointer, raw) for kind, pointer, raw in seen if kind == "body"), ("", "problem"))
    return _Doc(
        fault=fault,
        kind=body[1],
        at=body[0],
        in_http=origin is not None and origin.dialect == "http",
        trailers=origin is not None and origin.dialect == "grpc",
        seen=seen,
    )


def _no_error_body(data: bytes, limits: Limits) -> bool:
    """JSON that parses but that no dialect recognises, or text that is no response."""
    head = data.lstrip()
    if head[:1] in (b"{", b"["):
        try:
            msgspec.json.decode(head[: limits.max_bytes])
        except msgspec.DecodeError:
            return False  # broken JSON: unreadable
        return True
    return not looks_like_http(head)


# --------------------------------------------------------------------------- helpers


def _escape(segment: object) -> str:
    return str(segment).replace("~", "~0").replace("/", "~1")


def _find(value: Any, names: Iterable[str], at: str = "") -> str | None:
    """The pointer of the first member called one of `names`, depth first."""
    names = tuple(names)
    stack: list[tuple[Any, str]] = [(value, at)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            for name in names:
                if name in node:
                    return f"{where}/{_escape(name)}"
            stack.extend((v, f"{where}/{_escape(k)}") for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend((v, f"{where}/{i}") for i, v in reversed(list(enumerate(node))))
    return None


def _step_pointer(doc: _Doc) -> str:
    """Where the body states its next step, else the body itself."""
    if not doc.stated:
        return doc.at
    found = doc.first("next_step")
    if found is not None:
        return found[0]
    details = doc.details()
    return (_find(details[0], ("next_step",), details[1]) if details else None) or doc.at


def _type_name(detail: Any) -> str:
    url = detail.get("@type", "") if isinstance(detail, dict) else ""
    return url.rsplit("/", 1)[-1] if isinstance(url, str) else ""


_DURATION = re.compile(r"(-?)(\d{1,12})(?:\.(\d{1,9}))?s")
_PUSHBACK = re.compile(r"\d{1,10}")


@dataclass
class _Delay:
    pointer: str
    source: str  # a phrase for messages: "retry_after_seconds", "Retry-After", ...
    seconds: int | None  # whole seconds, rounded up; None when unreadable
    whole: bool = True
    raw: Any = None


def _delays(doc: _Doc) -> list[_Delay]:
    """Every delay the document states, where it states it."""
    out: list[_Delay] = []
    if doc.kind in ("problem", "stripe", "fault"):
        for name in ("retry_after_seconds", "retry_after"):
            for pointer, value in doc.all(f"delay:{name}"):
                number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                whole = number and value >= 0 and float(value).is_integer()
                out.append(_Delay(pointer, name, math.ceil(value) if number else None, whole, value))
    found = doc.details()
    if found is not None:
        details, at = found
        for i, detail in enumerate(details):
            if _type_name(detail) == "google.rpc.RetryInfo":
                text = detail.get("retryDelay", detail.get("retry_delay"))
                m = _DURATION.fullmatch(text) if isinstance(text, str) else None
                if m is None:
                    out.append(_Delay(f"{at}/{i}/retryDelay", "RetryInfo", None, False, text))
                    continue
                nanos = int((m.group(3) or "").ljust(9, "0") or 0)
                whole = not m.group(1) and nanos == 0
                seconds = int(m.group(2)) + (1 if nanos else 0)
                out.append(_Delay(f"{at}/{i}/retryDelay", "RetryInfo", -seconds if m.group(1) else seconds, whole, text))
    for pointer, (value, seconds) in doc.all("delay:Retry-After"):
        out.append(_Delay(pointer, "Retry-After", seconds, value.strip().isdigit(), value))
    for pointer, value in doc.all("delay:grpc-retry-pushback-ms"):
        if _PUSHBACK.fullmatch(value.strip()):
            ms = int(value)
            out.append(_Delay(pointer, "grpc-retry-pushback-ms", math.ceil(ms / 1000), ms % 1000 == 0, value))
    return out


# A message that tells the caller to come back, in words. Deliberately narrow: it is
# matched against prose, and a false alarm costs more trust than it buys.
_PROMISE = re.compile(
    r"\b(?:try(?:ing)?\s+again|re-?try(?:ing)?|check\s+back|come\s+back)\b(?:\W+\w+){0,3}?\W+"
    r"(?:later|soon|shortly|in\s+a\s+(?:bit|moment|while|few)|in\s+\d+\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hours?))\b"
    r"|\bplease\s+re-?try\b",
    re.IGNORECASE,
)


def _texts(doc: _Doc) -> Iterator[tuple[str, str]]:
    """(pointer, text) of every human message in the document."""
    texts = doc.all("text")
    if not texts and doc.first("body") is None:
        # A dialect that records no trace (a plugin's): its fault's prose, at the body.
        texts = [(doc.at, text) for text in (doc.fault.title, doc.fault.detail) if text]
    yield from texts
    found = doc.details()
    if found is not None:
        details, at = found
        for i, detail in enumerate(details):
            if _type_name(detail) == "google.rpc.LocalizedMessage" and isinstance(detail.get("message"), str):
                yield f"{at}/{i}/message", detail["message"]


# --------------------------------------------------------------------------- the rules

_Hit = tuple[str, str, str]  # rule, pointer, message
_BUG_CODES = frozenset({Code.INTERNAL, Code.UNKNOWN, Code.DATA_LOSS})
_METADATA_KEY = re.compile(r"[a-z][a-zA-Z0-9\-_]+")
_EXTENSION_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{2,}")
_RFC9457_MEMBERS = frozenset({"type", "title", "status", "detail", "instance"})


def _check_steps(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    fault = doc.fault
    where = _step_pointer(doc)
    how = "stated" if doc.stated else (fault.origin.next_step if fault.origin else "inferred")
    if fault.next_step == NextStep.WAIT and fault.retry_after_seconds is None and doc.bare_stripe:
        yield "delay-unseen", where, "a wait in a Stripe body, which cannot carry a delay: send it in Retry-After"
    elif fault.next_step == NextStep.WAIT and fault.retry_after_seconds is None:
        yield (
            "wait-without-delay",
            where,
            f"a wait ({how}) with no delay: give retry_after_seconds and the same number in Retry-After",
        )
    if fault.next_step == NextStep.FIX_REQUEST and not fault.param:
        yield "fix-without-param", where, f"a fix_request ({how}) that names no param: the caller cannot tell which argument to change"
    if fault.status < 400 and doc.stated:
        yield "next-step-on-success", where, f"next_step {fault.next_step} on a {fault.status}: a success carries no advice"
    # Only a bug code the response states (its status line, grpc-status, a status or code
    # member): one errconv derived from a type word ("server_error", which a 503 shares)
    # says nothing about whether the failure clears with time.
    code_stated = doc.in_http or doc.trailers or any(seen[0] == "status" for seen in doc.seen)
    if fault.next_step == NextStep.WAIT and doc.stated and fault.grpc_code in _BUG_CODES and not doc.bare_stripe and code_stated:
        yield "wait-on-bug", where, f"a wait on {fault.grpc_code_name}: a bug does not clear with time; give_up"
    if not doc.stated:
        inferred = f"; errconv {how}: {fault.next_step}" if fault.next_step is not None else ""
        yield "next-step-unstated", doc.at, f"no next_step in the body{inferred}"
    # A code taken from the protocol's status word (google's `status` with no ErrorInfo)
    # is the gRPC code's name, not one of the service's own that a client can switch on.
    if fault.code is None or (fault.origin is not None and "code" in fault.origin.inferred):
        yield "code-missing", doc.at, "no stable code (a problem `code`, an ErrorInfo reason, a Stripe `code`)"


def _check_prose(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    if doc.fault.retry_after_seconds is not None or doc.bare_stripe:
        return
    for where, text in _texts(doc):
        m = _PROMISE.search(text)
        if m:
            yield (
                "retry-promised-in-prose",
                where,
                f"{shorten(m.group(0))} promises a retry, but no field says when: state the delay in retry_after_seconds",
            )
            return  # one body, one promise: the same sentence often sits in two places


def _check_delays(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    delays = _delays(doc)
    for d in delays:
        if d.source == "Retry-After" and d.seconds is not None and not d.whole:
            yield "retry-after-date", d.pointer, f"Retry-After {shorten(d.raw)} is an HTTP-date; send delay-seconds"
        elif not d.whole or d.seconds is None:
            yield "delay-not-whole-seconds", d.pointer, f"{d.source} {shorten(d.raw)} is not a whole, non-negative number of seconds"
    readable = [d for d in delays if d.seconds is not None]
    for d in readable[1:]:
        if d.seconds != readable[0].seconds:
            yield (
                "delay-mismatch",
                d.pointer,
                f"{d.source} says {d.seconds} s but {readable[0].source} says {readable[0].seconds} s",
            )
            break
    if doc.in_http and doc.kind in ("problem", "google", "status"):
        in_header = any(d.source == "Retry-After" for d in delays)
        in_body = any(d.source != "Retry-After" for d in delays)
        if in_body and not in_header:
            yield "delay-said-once", doc.at, "the body has a delay and the response has no Retry-After: send both, from one number"
        elif in_header and not in_body and doc.fault.next_step == NextStep.WAIT:
            yield "delay-said-once", "/headers/retry-after", "Retry-After and no delay in the body: send both, from one number"


def _check_alternatives(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    alternatives = doc.fault.alternatives
    if not alternatives:
        return
    found = doc.first("alternatives")
    details = doc.details()
    where = found[0] if found else (_find(details[0], ("alternatives",), details[1]) if details else None) or doc.at
    truncation_said = doc.first("alternatives_truncated") is not None or (
        details is not None and _find(details[0], ("alternativesTruncated", "alternatives_truncated")) is not None
    )
    if len(alternatives) > MAX_ALTERNATIVES:
        yield (
            "too-many-alternatives",
            f"{where}/{MAX_ALTERNATIVES}",
            f"{len(alternatives)} alternatives: send the nearest {MAX_ALTERNATIVES} and alternatives_truncated",
        )
    elif len(alternatives) == MAX_ALTERNATIVES and not truncation_said:
        yield (
            "alternatives-truncation-unstated",
            where,
            f"{MAX_ALTERNATIVES} alternatives and no alternatives_truncated: say whether the list was cut",
        )


def _check_status(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    said = doc.all("status")
    if doc.in_http:
        for pointer, value in said:
            if isinstance(value, int) and not isinstance(value, bool) and value != doc.fault.status:
                yield "status-mismatch", pointer, f"the body says {value}, the response is {doc.fault.status}"
    elif doc.trailers and len(said) > 1:
        (trailer_at, trailer), (_, inside) = said[0], said[-1]
        if trailer != inside:
            yield "status-mismatch", trailer_at, f"grpc-status {trailer} differs from the Status code {inside}"


def _check_aip193(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    found = doc.details()
    if found is None:
        if doc.kind == "trailers":
            yield "aip193-errorinfo-missing", doc.at, "no grpc-status-details-bin, so no ErrorInfo: give a reason and a domain"
        return
    details, at = found
    seen: dict[str, int] = {}
    has_info = False
    for i, detail in enumerate(details):
        name = _type_name(detail)
        if name in seen:
            yield "aip193-duplicate-detail", f"{at}/{i}", f"a second {name} (the first is at {at}/{seen[name]})"
        else:
            seen[name] = i
        if name != "google.rpc.ErrorInfo" or not isinstance(detail, dict):
            continue
        has_info = True
        reason = detail.get("reason", "")
        if not isinstance(reason, str) or not REASON_RE.fullmatch(reason) or len(reason) > REASON_MAX:
            yield "aip193-reason", f"{at}/{i}/reason", f"reason {shorten(reason)} is not UPPER_SNAKE_CASE of 3 to 63 characters"
        metadata = detail.get("metadata", {})
        for key in metadata if isinstance(metadata, dict) else ():
            if not _METADATA_KEY.fullmatch(key) or len(key) > 64:
                yield "aip193-metadata-key", f"{at}/{i}/metadata/{_escape(key)}", f"metadata key {shorten(key)} does not match [a-z][a-zA-Z0-9-_]+"
    if not has_info:
        yield "aip193-errorinfo-missing", at, "no ErrorInfo in details: give a reason and a domain"


def _check_extensions(doc: _Doc, now: float | None) -> Iterator[_Hit]:
    if doc.kind != "problem":
        return
    for pointer, name in doc.all("member"):
        if name not in _RFC9457_MEMBERS and not _EXTENSION_NAME.fullmatch(name):
            yield (
                "extension-member-name",
                pointer,
                f"extension member {shorten(name)}: RFC 9457 asks for a letter, then letters, digits or _, 3 or more in all",
            )


def _member(doc: _Doc, names: tuple[str, ...]) -> str | None:
    for pointer, name in doc.all("member"):
        if name in names:
            return pointer
    details = doc.details()
    return _find(details[0], names, details[1]) if details else None


def _check_catalog(doc: _Doc, catalog: Any) -> Iterator[_Hit]:
    """The `catalog-*` rules: the body against its code's entry in an `errconv.Catalog`
    (duck-typed: `disagreements` says what differs). No code is `code-missing`'s."""
    fault = doc.fault
    if fault.code is None:
        return
    inferred = fault.origin.inferred if fault.origin is not None else ()
    status_known = "status" not in inferred and not doc.bare_stripe
    grpc_known = "grpc_code" not in inferred and not doc.bare_stripe
    for rule, message in catalog.disagreements(fault, status_known=status_known, grpc_code_known=grpc_known):
        if rule == "catalog-next-step":
            where = _step_pointer(doc)
        elif rule == "catalog-status":
            found = doc.first("status")
            where = found[0] if found else doc.at
        elif rule == "catalog-delay":
            delays = _delays(doc)
            where = delays[0].pointer if delays else doc.at
        elif rule == "catalog-param":
            where = _member(doc, ("param", "field")) or doc.at
        else:
            where = _member(doc, ("code", "reason")) or doc.at
        yield rule, where, message


_CHECKS: tuple[Callable[[_Doc, float | None], Iterator[_Hit]], ...] = (
    _check_steps,
    _check_prose,
    _check_delays,
    _check_alternatives,
    _check_status,
    _check_aip193,
    _check_extensions,
)


# --------------------------------------------------------------------------- entry points


def _finding(file: str, rule: str, pointer: str, message: str) -> Finding:
    return Finding(file=file, pointer=pointer, rule=rule, severity=RULES[rule].severity, message=message)


def _lint(
    data: bytes,
    file: str,
    dialect: str | None,
    limits: Limits,
    now: float | None,
    walking: bool,
    ignore: frozenset[str],
    catalog: Any = None,
) -> tuple[_Doc | None, list[Finding]] | None:
    try:
        doc = _read(data, dialect, limits, now, walking)
    except DecodeError as exc:
        return None, [_finding(file, "unreadable", "", str(exc))]
    if doc is None:
        return None
    hits = [hit for check in _CHECKS for hit in check(doc, now)]
    if catalog is not None:
        hits.extend(_check_catalog(doc, catalog))
    return doc, [_finding(file, *hit) for hit in hits if hit[0] not in ignore]


def lint_body(
    data: bytes,
    *,
    file: str = "-",
    dialect: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    now: float | None = None,
    ignore: Iterable[str] = (),
    catalog: Any = None,
) -> list[Finding]:
    """The findings for one error body in any dialect (detected unless named).

    Args:
        data: the body, a whole HTTP response, gRPC trailers in text form, or
            serialized google.rpc.Status bytes.
        file: the name findings carry.
        dialect: the dialect, when detection should not guess.
        now: epoch seconds an HTTP-date Retry-After is measured against when the
            response has no Date header (default: the real clock).
        ignore: rule ids to leave out.
        catalog: an `errconv.Catalog`: also check the body against its code's entry
            (the `catalog-*` rules).
    """
    result = _lint(bytes(data), file, dialect, limits, now, False, frozenset(ignore), catalog)
    return result[1] if result is not None else []


_SUFFIXES = (".json", ".http", ".txt", ".xml", ".binpb", ".pb")  # .xml: AWS's Query, EC2 and S3 errors
_GLOB = re.compile(r"[*?\[]")


def expand_paths(paths: Iterable[str]) -> list[tuple[str, bool]]:
    """The files to lint, each with whether it was found by walking a directory.

    A glob is expanded (`**` included); a directory is walked for `.json`, `.http`,
    `.txt`, `.xml`, `.binpb` and `.pb` files, hidden directories skipped, in sorted order.
    Raises FileNotFoundError for a path that does not exist or a glob that matches
    nothing.
    """
    out: list[tuple[str, bool]] = []
    for path in paths:
        if _GLOB.search(path):
            matches = sorted(glob.glob(path, recursive=True))
            if not matches:
                raise FileNotFoundError(f"no file matches {path}")
            for match in matches:
                out.extend(_walk(match) if os.path.isdir(match) else [(match, False)])
        elif os.path.isdir(path):
            out.extend(_walk(path))
        elif os.path.exists(path):
            out.append((path, False))
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return list(dict.fromkeys(out))


def _walk(top: str) -> list[tuple[str, bool]]:
    found: list[str] = []
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(root, name) for name in sorted(files) if name.endswith(_SUFFIXES))
    return [(path, True) for path in sorted(found)]


def lint_paths(
    paths: Sequence[str],
    *,
    limits: Limits = DEFAULT_LIMITS,
    now: float | None = None,
    ignore: Iterable[str] = (),
    catalog: Any = None,
) -> LintReport:
    """Lint files, directories and globs as one catalog (see `expand_paths`).

    Files found by walking a directory that are not error bodies (a `case.json`, a
    README) are passed over; a file named explicitly that cannot be read is an
    `unreadable` finding. Catalog-wide rules (`every-5xx-wait`) run over everything.
    With `catalog` (an `errconv.Catalog`), every body is also checked against its
    code's entry (the `catalog-*` rules).
    """
    ignored = frozenset(ignore)
    report = LintReport()
    server_errors: list[tuple[str, Fault]] = []
    for path, walking in expand_paths(paths):
        try:
            with open(path, "rb") as fh:
                data = fh.read(limits.max_bytes + 1)
        except OSError as exc:
            report.files.append(path)
            report.findings.append(_finding(path, "unreadable", "", f"cannot read the file: {exc.strerror or exc}"))
            continue
        if len(data) > limits.max_bytes:  # read one byte past the limit: say the file's size, not that byte count
            report.files.append(path)
            report.findings.append(_finding(path, "unreadable", "", _too_large(path, limits.max_bytes)))
            continue
        result = _lint(data, path, None, limits, now, walking, ignored, catalog)
        if result is None:
            continue
        doc, findings = result
        report.files.append(path)
        report.findings.extend(findings)
        if doc is not None and doc.fault.status >= 500 and not doc.bare_stripe:
            server_errors.append((path, doc.fault))
    report.findings.extend(f for f in _catalog_findings(server_errors) if f.rule not in ignored)
    return report


def _too_large(path: str, limit: int) -> str:
    try:
        size = f"{os.path.getsize(path) / 1_000_000:.1f} MB"
    except OSError:
        size = "larger than that"
    return f"the file is {size}, over the {_megabytes(limit)} limit of one error body (Limits.max_bytes)"


def _megabytes(count: int) -> str:
    if count % (1 << 20) == 0:
        return f"{count >> 20} MiB"
    return f"{count / 1_000_000:g} MB"


_NOT_TRANSIENT = frozenset({Code.INTERNAL, Code.UNKNOWN, Code.DATA_LOSS, Code.UNIMPLEMENTED})


def _catalog_findings(server_errors: list[tuple[str, Fault]]) -> Iterator[Finding]:
    kinds = {(f.status, f.grpc_code) for _, f in server_errors}
    # A catalog of 502s, 503s and 504s that all wait is right: those clear with time.
    # The rule is about a catalog that sends every 5xx down the retry path, a 500 or
    # 501 (a bug, a missing method) among them.
    suspect = any(f.status in (500, 501) or f.grpc_code in _NOT_TRANSIENT for _, f in server_errors)
    if len(server_errors) >= 2 and suspect and all(f.next_step == NextStep.WAIT for _, f in server_errors):
        files = sorted({p for p, _ in server_errors})
        where = os.path.commonpath(files) if len(files) > 1 else files[0]
        statuses = ", ".join(str(s) for s in sorted({s for s, _ in kinds}))
        yield _finding(
            where,
            "every-5xx-wait",
            "",
            f"all {len(server_errors)} 5xx bodies (statuses {statuses}) are waits; give INTERNAL and UNKNOWN give_up",
        )


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
