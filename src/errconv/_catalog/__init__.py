"""The error catalog: each error defined once, in one TOML file, and everything else from it.

A catalog names every code a service may answer with, and for each one the move the
caller makes (`next_step`), its status, its parameters or its default delay, what
unblocks it, its domain, its documentation and its metadata keys:

```toml
domain = "api.example.com"
type_base = "https://api.example.com/problems/"

[errors.rate_limited]
status = 429
next_step = "wait"
retry_after_seconds = 30          # the default delay
title = "Too many requests"
metadata_keys = ["quotaLimit"]
```

`Catalog.load(path)` reads it with `tomllib` and checks every entry against the rules
`Fault.build` and `errconv lint` enforce (plus the catalog's own), failing with a
`CatalogError` (a `ContractError`) that names the entry and the rule; `errconv catalog
build` also lints the example of every entry in every dialect it writes. Then:

- `catalog.fault(code, ...)` builds the strict Fault of a code, refusing what the
  entry does not allow; `catalog.raise_(code, ...)` raises it as a FaultError;
  `catalog.exception(code)` (also `catalog.errors.<code>`) is an exception class per
  code, every one a subclass of `catalog.Error` (itself a `FaultError`);
- `catalog.conform(fault)` is what the gateway and the gRPC server interceptor do with
  a `catalog=`: a fault whose code is in the catalog and agrees with its entry goes
  out (with the entry's type, domain and title where it had none), anything else
  becomes the catalog's internal error, logged (logger `errconv.catalog`);
- `errconv catalog build | diff` and `errconv lint --catalog` stand on the same object.
"""

from __future__ import annotations

import logging
import math
import re
import tomllib
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, NoReturn

import msgspec

from .._model.errors import ContractError, FaultError, shorten
from .._model.fault import METADATA_RESERVED, REASON_MAX, REASON_RE, Fault, Violation
from ..codes import Code, NextStep, code_for_http, http_for_code

__all__ = ["Catalog", "CatalogError", "Entry", "TOOL_CONTRACT"]

log = logging.getLogger("errconv.catalog")

# Seed 000: "the tool description should state the contract", so the semantics are in
# the model's context before the first failure. errconv.TOOL_CONTRACT is another
# issue's; this is the catalog's own wording of it until the two are reconciled.
TOOL_CONTRACT = (
    "Errors from this tool carry a stable `code` and a `next_step`: fix_request means change the "
    "argument named in `param` and call again; wait means wait `retry_after_seconds`, then repeat the "
    "identical call; give_up means this call will not succeed on repetition: use `alternatives` or "
    "call the tool in `unblock_with`, or report to the user."
)

_STEPS = tuple(s.value for s in NextStep)
_BUG_CODES = frozenset({Code.INTERNAL, Code.UNKNOWN, Code.DATA_LOSS})
_NOT_TRANSIENT = frozenset({Code.INTERNAL, Code.UNKNOWN, Code.DATA_LOSS, Code.UNIMPLEMENTED})
_METADATA_KEY = re.compile(r"[a-z][a-zA-Z0-9\-_]+")  # AIP-193, as lint checks it
_URL = re.compile(r"https?://[^\s/?#]+[^\s]*")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.\-]*")  # a tool name, a condition
# A code names a directory, an OpenAPI component and (upper-cased) a proto enum value, so
# it is held to the narrowest of those grammars, in ASCII: `rate_lımited` (a dotless i)
# upper-cases to RATE_LIMITED and would collide with `rate_limited`.
_CODE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# A domain lands in ErrorInfo.domain, in the proto package (reversed: com.example.api)
# and in the pages: DNS-like labels, so nothing else can ride in with it (`com;option ...`).
_DOMAIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}))*")
_URL_UNSAFE = frozenset('<>"\'`\\{}|^')  # never in a URI (RFC 3986), and unsafe in a page
# A message that tells the caller to come back (lint's rule retry-promised-in-prose).
_PROMISE = re.compile(
    r"\b(?:try(?:ing)?\s+again|re-?try(?:ing)?|check\s+back|come\s+back)\b(?:\W+\w+){0,3}?\W+"
    r"(?:later|soon|shortly|in\s+a\s+(?:bit|moment|while|few)|in\s+\d+\s*(?:s|secs?|seconds?|m|mins?|minutes?|h|hours?))\b"
    r"|\bplease\s+re-?try\b",
    re.IGNORECASE,
)

_TOP_KEYS = frozenset({"domain", "type_base", "title", "description", "internal", "errors"})
_ENTRY_KEYS = frozenset(
    {
        "status", "grpc_code", "next_step", "title", "description", "params", "retry_after_seconds",
        "max_retry_after_seconds", "alternatives", "unblock_with", "blocked_by", "domain", "docs_url",
        "metadata_keys", "example",
    }
)  # fmt: skip
_EXAMPLE_KEYS = frozenset(
    {"detail", "param", "retry_after_seconds", "alternatives", "alternatives_truncated", "metadata", "violations", "instance"}
)

# The rules a catalog is checked against: the ids lint uses where the rule is lint's.
RULES: dict[str, str] = {
    "toml": "the file is TOML with a top-level `domain`, `type_base` and an [errors.<code>] table per code",
    "unknown-key": "a key the catalog does not know (a typo would silently change nothing)",
    "domain": "a domain (ErrorInfo.domain): a DNS-like name (labels of letters, digits, - and _, joined by dots)",
    "type-base": "type_base: an absolute http(s) URI ending in /, under which each code's type and page live (its path has no . or .. segment)",
    "aip193-reason": "a code that makes an AIP-193 ErrorInfo reason once upper-cased ([A-Z][A-Z0-9_]+[A-Z0-9], at most 63)",
    "code": "a code is an ASCII identifier ([A-Za-z][A-Za-z0-9_]*), unique after case folding (it names files, schemas and enum values)",
    "status": "an error status: a whole number from 400 to 599",
    "grpc-code": "a google.rpc.Code name or number, not OK, of the same class (4xx or 5xx) as the status",
    "next-step-unstated": "every code states its next_step: the policy lives where the failure is described",
    "next-step": "next_step is fix_request, wait or give_up",
    "title": "a title: a short, non-empty summary of the problem type",
    "fix-without-param": "a fix_request names the parameters it may blame (params)",
    "params": "params: a list of distinct, non-empty parameter names",
    "delay-not-whole-seconds": "a delay that is a whole, non-negative number of seconds",
    "delay-without-wait": "a default or maximum delay on a code that is no wait",
    "wait-without-delay": "a wait states a delay the documents can show: retry_after_seconds, max_retry_after_seconds or example.retry_after_seconds",
    "wait-on-bug": "a wait on INTERNAL, UNKNOWN or DATA_LOSS (AIP-194: a bug does not clear with time)",
    "every-5xx-wait": "every 5xx code is a wait, a 500 or 501 among them (AIP-194: INTERNAL and UNKNOWN give up)",
    "retry-promised-in-prose": "a title or description that promises a retry on a code that is no wait",
    "give-up-only": "alternatives, unblock_with and blocked_by belong to give_up codes",
    "aip193-metadata-key": "metadata keys are [a-z][a-zA-Z0-9-_]+ of at most 64 characters, and not errconv's own",
    "docs-url": "docs_url: an absolute http(s) URL",
    "example": "the example builds a Fault within the entry (and, at build, passes errconv lint)",
    "internal": "`internal` names a give_up entry with a 5xx status: what an uncatalogued error becomes",
}


class CatalogError(ContractError):
    """A catalog that breaks a rule: `.entry` (the code, or None for the file), `.rule`.

    `Catalog.load` checks the whole file before it answers, so one error reports every
    problem found: `.problems` holds one CatalogError per problem (this one first; just
    itself when there is one), and the message lists them all, one per line."""

    def __init__(self, source: str, entry: str | None, rule: str, message: str) -> None:
        self.source = source
        self.entry = entry
        self.rule = rule
        self.message = message
        self.problems: tuple[CatalogError, ...] = (self,)
        super().__init__(f"{source}:{self._where()} {rule}: {message}")

    def _where(self) -> str:
        return f" [errors.{self.entry}]:" if self.entry is not None else ""

    @classmethod
    def of(cls, problems: list[CatalogError]) -> CatalogError:
        """One error reporting every problem in `problems` (at least one)."""
        first = problems[0]
        if len(problems) == 1:
            return first
        error = cls(first.source, first.entry, first.rule, first.message)
        error.problems = tuple(problems)
        lines = [f"{first.source}: {len(problems)} problems"]
        lines += [f"  {p._where().strip() + ' ' if p.entry is not None else ''}{p.rule}: {p.message}" for p in problems]
        error.args = ("\n".join(lines),)
        return error


@dataclass(frozen=True)
class Entry:
    """One code of a catalog, as loaded and checked.

    `grpc_code` is the stated one or the one derived from `status`
    (`grpc_code_stated` says which); `type` is `type_base + code`; `docs_url` the
    stated one or the type; `example` the values the generated documents show.
    """

    code: str
    status: int
    grpc_code: int
    grpc_code_stated: bool
    next_step: NextStep
    title: str
    domain: str
    type: str
    docs_url: str
    description: str | None = None
    params: tuple[str, ...] = ()
    retry_after_seconds: int | None = None
    max_retry_after_seconds: int | None = None
    alternatives: bool = False
    unblock_with: str | None = None
    blocked_by: str | None = None
    metadata_keys: tuple[str, ...] = ()
    example: Mapping[str, Any] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        """The AIP-193 ErrorInfo reason: the code in UPPER_SNAKE_CASE."""
        return self.code.upper()

    @property
    def grpc_code_name(self) -> str:
        return Code(self.grpc_code).name

    def meaning(self) -> str:
        """What this code means for the caller, in one sentence (for a model to read)."""
        if self.next_step == NextStep.FIX_REQUEST:
            names = " or ".join(f"`{p}`" for p in self.params)
            return f"the request is wrong: change the argument named in `param` ({names}), then call again"
        if self.next_step == NextStep.WAIT:
            delay = (
                f" (usually {self.retry_after_seconds} s)" if self.retry_after_seconds is not None else ""
            )
            return f"nothing is wrong with the call: wait `retry_after_seconds`{delay}, then repeat it unchanged"
        ways = []
        if self.alternatives:
            ways.append("offer one of `alternatives`")
        if self.unblock_with:
            ways.append(f"call `{self.unblock_with}`" + (f" (it changes the {self.blocked_by})" if self.blocked_by else ""))
        ways.append("report to the user")
        return "repeating this call will not succeed: " + ", or ".join(ways)


def _internal_default(domain: str, type_base: str) -> Entry:
    return Entry(
        code="internal_error",
        status=500,
        grpc_code=int(Code.INTERNAL),
        grpc_code_stated=False,
        next_step=NextStep.GIVE_UP,
        title="Internal error",
        description="An error on our side that repeating the call will not clear. It has been logged.",
        domain=domain,
        type=type_base + "internal_error",
        docs_url=type_base + "internal_error",
    )


class Catalog:
    """Every code a service answers with, loaded from one TOML file and checked.

    Build one with `Catalog.load(path)` or `Catalog.loads(text)`. `catalog.entries`
    maps each code to its `Entry`, in file order; `catalog.internal` is the entry an
    uncatalogued error becomes (the one `internal = "<code>"` names, else a built-in
    `internal_error`: 500, give_up).

    >>> catalog = Catalog.loads('''
    ... domain = "api.example.com"
    ... type_base = "https://api.example.com/problems/"
    ... [errors.rate_limited]
    ... status = 429
    ... next_step = "wait"
    ... retry_after_seconds = 30
    ... title = "Too many requests"
    ... ''')
    >>> fault = catalog.fault("rate_limited")
    >>> fault.retry_after_seconds, fault.type
    (30, 'https://api.example.com/problems/rate_limited')
    """

    def __init__(
        self,
        *,
        domain: str,
        type_base: str,
        entries: Mapping[str, Entry],
        internal: Entry,
        source: str = "<catalog>",
        title: str | None = None,
        description: str | None = None,
    ) -> None:
        self.domain = domain
        self.type_base = type_base
        self.entries: dict[str, Entry] = dict(entries)
        self.internal = internal
        self.source = source
        self.title = title
        self.description = description
        self.Error: type[FaultError] = type("Error", (FaultError,), {"__doc__": f"An error of the catalog {source}.", "catalog": self})
        self._classes: dict[str, type[FaultError]] = {}
        # A Google body names a code by its AIP-193 reason alone (RATE_LIMITED).
        self._by_reason = {e.reason: e for e in (*self.entries.values(), internal)}
        self.errors = SimpleNamespace(**{code: self.exception(code) for code in self.entries})

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(cls, path: str | Any) -> Catalog:
        """Read and check the catalog at `path` (raises CatalogError naming entry and rule)."""
        name = str(path)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise CatalogError(name, None, "toml", f"cannot read the file: {exc.strerror or exc}") from None
        return cls.loads(data, source=name)

    @classmethod
    def loads(cls, text: str | bytes, *, source: str = "<catalog>") -> Catalog:
        """Read and check a catalog from TOML text."""
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError:
                raise CatalogError(source, None, "toml", "the file is not UTF-8 text") from None
        try:
            doc = tomllib.loads(text)
        except RecursionError:  # arrays or inline tables nested past the stack
            raise CatalogError(source, None, "toml", "nested too deep to read") from None
        except ValueError as exc:  # TOMLDecodeError, and an integer past str's digit limit
            raise CatalogError(source, None, "toml", f"not valid TOML: {' '.join(str(exc).split())[:200]}") from None
        return _Loader(source).catalog(doc)

    # ------------------------------------------------------------------ building faults

    def __contains__(self, code: object) -> bool:
        return code in self.entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"errconv.Catalog({self.source!r}, {len(self.entries)} codes)"

    def entry(self, code: str) -> Entry:
        """The entry of `code`; ContractError for a code not in the catalog."""
        if not isinstance(code, str):
            raise ContractError(f"a code is a string, got {shorten(code)}")
        found = self.entries.get(code)
        if found is None:
            if code == self.internal.code:
                return self.internal
            codes = list(self.entries)
            listed = ", ".join(codes[:12]) + (f", ... ({len(codes)} in all)" if len(codes) > 12 else "")
            raise ContractError(f"code {shorten(code)} is not in the catalog {self.source}; one of: {listed}")
        return found

    def fault(
        self,
        code: str,
        *,
        retry_after_seconds: int | float | None = None,
        param: str | None = None,
        detail: str | None = None,
        instance: str | None = None,
        violations: Iterable[Violation | Mapping[str, Any]] = (),
        alternatives: Iterable[Any] = (),
        alternatives_truncated: bool = False,
        metadata: Mapping[str, str] | None = None,
        extensions: Mapping[str, Any] | None = None,
    ) -> Fault:
        """The strict Fault of `code`, with the entry's status, gRPC code, next step,
        title, type, domain and unblocking tool, and this occurrence's values.

        Refused (ContractError): a code not in the catalog; a wait with no delay where
        the entry has no default, or a delay past its `max_retry_after_seconds`; a
        delay on a code that is no wait; a `param` or violation field that is not one
        of the entry's `params` (with one param, it is the default); alternatives on a
        code that offers none; a metadata key the entry does not list; and everything
        `Fault.build` refuses.
        """
        entry = self.entry(code)
        step = entry.next_step
        where = f"{entry.code} ({self.source})"
        _check_types(where, param=param, detail=detail, instance=instance, alternatives=alternatives,
                     alternatives_truncated=alternatives_truncated, metadata=metadata, extensions=extensions)  # fmt: skip
        if retry_after_seconds is None:
            retry_after_seconds = entry.retry_after_seconds
        if step == NextStep.WAIT:
            if retry_after_seconds is None:
                raise ContractError(f"{where} is a wait with no default delay: give retry_after_seconds")
            limit = entry.max_retry_after_seconds
            if limit is not None and isinstance(retry_after_seconds, (int, float)) and retry_after_seconds > limit:
                raise ContractError(f"{where}: retry_after_seconds {shorten(retry_after_seconds)} is past the entry's maximum {limit}")
        elif retry_after_seconds is not None:
            raise ContractError(f"{where} is {step.value}, not a wait: it carries no retry_after_seconds")
        viols = _violations(where, violations)
        if param is None and viols:
            param = viols[0].field
        if param is None and len(entry.params) == 1:
            param = entry.params[0]
        if param is not None and not _allowed(param, entry.params):
            allowed = ", ".join(entry.params) if entry.params else "none"
            raise ContractError(f"{where}: param {shorten(param)} is not one of the entry's params ({allowed})")
        for v in viols:
            if not _allowed(v.field, entry.params):
                raise ContractError(f"{where}: violation field {shorten(v.field)} is not one of the entry's params")
        alts = tuple(alternatives)
        if (alts or alternatives_truncated) and not entry.alternatives:
            raise ContractError(f"{where} offers no alternatives (set alternatives = true in its entry)")
        meta = dict(metadata or {})
        for key in meta:
            if key not in entry.metadata_keys:
                listed = ", ".join(entry.metadata_keys) if entry.metadata_keys else "none"
                raise ContractError(f"{where}: metadata key {shorten(key)} is not one of the entry's metadata_keys ({listed})")
        details: tuple[Any, ...] = ()
        if entry.docs_url != entry.type:
            from ..details import Help, Link

            details = (Help(links=(Link(description=entry.title, url=entry.docs_url),)),)
        return Fault.build(
            status=entry.status,
            grpc_code=entry.grpc_code,
            code=entry.code,
            domain=entry.domain,
            title=entry.title,
            type=entry.type,
            detail=detail,
            instance=instance,
            next_step=step.value,
            retry_after_seconds=retry_after_seconds,
            param=param,
            violations=viols,
            alternatives=alts,
            alternatives_truncated=alternatives_truncated,
            blocked_by=entry.blocked_by,
            unblock_with=entry.unblock_with,
            metadata=meta,
            details=details,
            extensions=dict(extensions or {}),
        )

    def raise_(self, code: str, **values: Any) -> NoReturn:
        """Raise `catalog.exception(code)(**values)`: a FaultError of `catalog.fault(code, **values)`."""
        raise self.exception(code)(**values)

    def exception(self, code: str) -> type[FaultError]:
        """The exception class of `code`, a subclass of `catalog.Error` (a FaultError):
        `raise catalog.exception("rate_limited")(retry_after_seconds=10)`; its keyword
        arguments are `catalog.fault`'s. Also `catalog.errors.rate_limited`."""
        found = self._classes.get(code)
        if found is not None:
            return found
        entry = self.entry(code)
        catalog = self

        def __init__(self: FaultError, **values: Any) -> None:
            FaultError.__init__(self, catalog.fault(entry.code, **values))

        name = "".join(part.capitalize() for part in entry.code.lower().split("_")) + "Error"
        doc = f"{entry.code}: {entry.title} ({entry.status}, {entry.next_step.value})."
        cls = type(name, (self.Error,), {"__init__": __init__, "__doc__": doc, "code": entry.code, "entry": entry})
        self._classes[code] = cls
        return cls

    # ------------------------------------------------------------------ checking faults

    def lookup(self, code: str) -> Entry | None:
        """The entry of `code` as a body spells it: the code itself, or its AIP-193
        reason (a Google body's ErrorInfo says RATE_LIMITED for rate_limited); None
        for a code the catalog does not have."""
        found = self.entries.get(code)
        if found is None and code == self.internal.code:
            found = self.internal
        if found is None and code.isupper():
            found = self._by_reason.get(code)
        return found

    def disagreements(self, fault: Fault, *, status_known: bool = True, grpc_code_known: bool = True) -> list[tuple[str, str]]:
        """How `fault` disagrees with the catalog: (rule, message) pairs, empty when it
        is a catalogued code that agrees with its entry. Rules: `catalog-code`,
        `catalog-next-step`, `catalog-status`, `catalog-param`, `catalog-delay`."""
        if fault.code is None:
            return [("catalog-code", "no code, so no catalog entry")]
        entry = self.lookup(fault.code)
        if entry is None:
            return [("catalog-code", f"code {shorten(fault.code)} is not in the catalog")]
        out: list[tuple[str, str]] = []
        if fault.next_step is not None and fault.next_step != entry.next_step:
            out.append(("catalog-next-step", f"{entry.code} is {entry.next_step.value} in the catalog, the body says {fault.next_step}"))
        if status_known and fault.status != entry.status:
            out.append(("catalog-status", f"{entry.code} is status {entry.status} in the catalog, the body says {fault.status}"))
        elif grpc_code_known and fault.grpc_code != entry.grpc_code:
            out.append(
                ("catalog-status", f"{entry.code} is {entry.grpc_code_name} in the catalog, the body says {fault.grpc_code_name}")
            )
        fields = ([fault.param] if fault.param else []) + [v.field for v in fault.violations]
        for name in dict.fromkeys(fields):
            if not _allowed(name, entry.params):
                allowed = f"params {', '.join(entry.params)}" if entry.params else "no params"
                out.append(("catalog-param", f"{entry.code} names {allowed} in the catalog, the body names {shorten(name)}"))
                break
        delay = fault.retry_after_seconds
        if delay is not None and entry.next_step != NextStep.WAIT:
            out.append(("catalog-delay", f"{entry.code} is no wait in the catalog, the body carries a delay of {delay} s"))
        elif delay is not None and entry.max_retry_after_seconds is not None and delay > entry.max_retry_after_seconds:
            out.append(
                ("catalog-delay", f"{entry.code} waits at most {entry.max_retry_after_seconds} s in the catalog, the body says {delay} s")
            )
        return out

    def conform(self, fault: Fault, error: BaseException | None = None) -> Fault:
        """The fault to answer with under this catalog: `fault` itself when its code is
        catalogued and it agrees with the entry (with the entry's type, domain and
        title where it had none), else the catalog's internal error, logged with what
        was wrong (and the exception's traceback, when given)."""
        problems = self.disagreements(fault)
        if not problems:
            entry = self.lookup(fault.code)  # type: ignore[arg-type]
            assert entry is not None
            changes: dict[str, Any] = {
                name: getattr(entry, name) for name in ("type", "domain", "title") if getattr(fault, name) is None
            }
            if fault.code != entry.code:  # named by its reason (RATE_LIMITED): answer with the catalog's spelling
                changes["code"] = entry.code
            return fault.replace(**changes) if changes else fault
        message = "; ".join(text for _, text in problems)
        log.error("answered %s instead of an uncatalogued error: %s", self.internal.code, message, exc_info=error)
        return self.internal_fault()

    def internal_fault(self) -> Fault:
        """The Fault of the catalog's internal error."""
        entry = self.internal
        return Fault.build(
            status=entry.status,
            grpc_code=entry.grpc_code,
            code=entry.code,
            domain=entry.domain,
            title=entry.title,
            type=entry.type,
            detail=entry.description,
            next_step="give_up",
        )

    def server_side(self, **options: Any) -> Any:
        """The gRPC server interceptors' decisions under this catalog (`catalog=` of
        `errconv.interceptors.ServerInterceptor` and `errconv.aio.ServerInterceptor`)."""
        from ._grpc import CatalogServerSide

        return CatalogServerSide(self, **options)


def _check_types(where: str, **values: Any) -> None:
    """Refuse an occurrence's value of the wrong type with a ContractError (a hostile
    caller's list for a name, a number for a mapping), before anything reads it."""
    for name in ("param", "detail", "instance"):
        if values[name] is not None and not isinstance(values[name], str):
            raise ContractError(f"{where}: {name} is a string, got {shorten(values[name])}")
    alternatives = values["alternatives"]
    if isinstance(alternatives, (str, bytes, Mapping)) or not isinstance(alternatives, Iterable):
        raise ContractError(f"{where}: alternatives is a list of JSON values, got {shorten(alternatives)}")
    if not isinstance(values["alternatives_truncated"], bool):
        raise ContractError(f"{where}: alternatives_truncated is true or false, got {shorten(values['alternatives_truncated'])}")
    for name in ("metadata", "extensions"):
        if values[name] is not None and not isinstance(values[name], Mapping):
            raise ContractError(f"{where}: {name} is a mapping, got {shorten(values[name])}")


def _violations(where: str, violations: Any) -> tuple[Violation, ...]:
    """Violations as given, or from mappings of Violation's members (checked)."""
    if isinstance(violations, (str, bytes, Mapping)) or not isinstance(violations, Iterable):
        raise ContractError(f"{where}: violations is a list of violations, got {shorten(violations)}")
    out = []
    for v in violations:
        if isinstance(v, Violation):
            out.append(v)
            continue
        if not isinstance(v, Mapping):
            raise ContractError(f"{where}: a violation is a mapping of field, description and reason, got {shorten(v)}")
        try:
            out.append(msgspec.convert(dict(v), Violation))
        except (msgspec.ValidationError, TypeError) as exc:
            raise ContractError(f"{where}: a violation {shorten(v)} is not valid: {' '.join(str(exc).split())[:120]}") from None
    return tuple(out)


def _allowed(name: str, params: tuple[str, ...]) -> bool:
    """A parameter the entry names, or a path inside one (`items[0].price` under `items`)."""
    return any(name == p or name.startswith((p + ".", p + "[")) for p in params)


# --------------------------------------------------------------------------- the loader


class _Stop(Exception):
    """An entry (or the file) cannot be checked further; its problem is recorded."""


class _Loader:
    """Checks a parsed catalog and reports every problem at once (one CatalogError
    holding them all): a problem is recorded with `note` and checking goes on; `fail`
    records one after which the rest of that entry cannot be checked (a status that
    is no number leaves nothing to compare the gRPC code with)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[CatalogError] = []

    def note(self, entry: str | None, rule: str, message: str) -> None:
        self.problems.append(CatalogError(self.source, entry, rule, message))

    def fail(self, entry: str | None, rule: str, message: str) -> NoReturn:
        self.note(entry, rule, message)
        raise _Stop

    def done(self) -> None:
        if self.problems:
            raise CatalogError.of(self.problems)

    def catalog(self, doc: dict[str, Any]) -> Catalog:
        try:
            return self._catalog(doc)
        except _Stop:
            pass
        self.done()
        raise AssertionError("unreachable: a stop always records a problem")  # pragma: no cover

    def _catalog(self, doc: dict[str, Any]) -> Catalog:
        for key in doc:
            if key not in _TOP_KEYS:
                self.note(None, "unknown-key", f"unknown top-level key {shorten(key)}; known: {', '.join(sorted(_TOP_KEYS))}")
        domain: Any = doc.get("domain")
        if not _is_domain(domain):
            self.note(None, "domain", f"a top-level domain (ErrorInfo.domain) is required: {RULES['domain'].split(': ', 1)[1]}, got {shorten(domain)}")
            domain = "invalid"
        type_base: Any = doc.get("type_base")
        problem = _type_base_problem(type_base)
        if problem:
            self.note(None, "type-base", f"{problem}, got {shorten(type_base)}")
            type_base = "https://invalid.invalid/"
        for text_key in ("title", "description"):
            if text_key in doc and not isinstance(doc[text_key], str):
                self.note(None, "toml", f"{text_key} is a string")
        errors = doc.get("errors")
        if not isinstance(errors, dict) or not errors:
            self.fail(None, "toml", "no [errors.<code>] tables: a catalog names at least one code")
        entries: dict[str, Entry] = {}
        folded: dict[str, str] = {}
        for code, table in errors.items():
            if code.casefold() in folded:
                self.note(code, "code", f"{code!r} and {folded[code.casefold()]!r} are one code once case is folded")
                continue
            folded[code.casefold()] = code
            try:
                entries[code] = self.entry(code, table, domain, type_base)
            except _Stop:
                continue
        self.catalog_rules(entries)
        internal = _internal_default(domain, type_base)
        if "internal" in doc:
            name = doc["internal"]
            chosen = entries.get(name) if isinstance(name, str) else None
            if chosen is None:
                if not (isinstance(name, str) and name in errors):  # else its own problem is reported
                    self.note(None, "internal", f"internal names {shorten(name)}, which is no entry")
            elif chosen.next_step != NextStep.GIVE_UP or chosen.status < 500:
                self.note(chosen.code, "internal", "the internal error is a give_up with a 5xx status (AIP-194: a bug does not clear)")
            else:
                internal = chosen
        # The examples of the entries that passed are checked too, so that one answer
        # reports every problem of the file.
        catalog = Catalog(
            domain=domain, type_base=type_base, entries=entries, internal=internal, source=self.source,
            title=doc.get("title"), description=doc.get("description"),
        )  # fmt: skip
        for entry in entries.values():
            self.example(catalog, entry)
        self.done()
        return catalog

    def entry(self, code: str, table: Any, domain: str, type_base: str) -> Entry:
        before = len(self.problems)
        if not isinstance(table, dict):
            self.fail(code, "toml", "each code is a table: [errors.<code>]")
        for key in table:
            if key not in _ENTRY_KEYS:
                self.note(code, "unknown-key", f"unknown key {shorten(key)}; known: {', '.join(sorted(_ENTRY_KEYS))}")
        reason = code.upper()
        if not code.isascii() or not _CODE.fullmatch(code):
            self.note(code, "code", f"{code!r} is no ASCII identifier: letters, digits and _, from a letter")
        elif not REASON_RE.fullmatch(reason) or len(reason) > REASON_MAX:
            self.note(code, "aip193-reason", f"{reason!r} is no AIP-193 reason: letters, digits and _, from a letter, 3 to 63 characters")
        status = table.get("status")
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            self.note(code, "status", f"status must be a whole number from 400 to 599, got {shorten(status)}")
            status = None
        grpc_code, stated = self.grpc_code(code, table, status) if status is not None else (int(Code.UNKNOWN), False)
        step: NextStep | None = None
        if "next_step" not in table:
            self.note(code, "next-step-unstated", "no next_step: state fix_request, wait or give_up")
        elif table["next_step"] not in _STEPS:
            self.note(code, "next-step", f"next_step must be one of {', '.join(_STEPS)}, got {shorten(table['next_step'])}")
        else:
            step = NextStep(table["next_step"])
        title = table.get("title")
        if not isinstance(title, str) or not title.strip():
            self.note(code, "title", f"a title is required, got {shorten(title)}")
            title = ""
        description = table.get("description")
        if description is not None and not isinstance(description, str):
            self.note(code, "toml", "description is a string")
            description = None
        params = table.get("params", [])
        if not isinstance(params, list) or not all(isinstance(p, str) and p.strip() for p in params) or len(set(params)) != len(params):
            self.note(code, "params", f"params must be a list of distinct, non-empty names, got {shorten(params)}")
            params = []
        elif step == NextStep.FIX_REQUEST and not params:
            self.note(code, "fix-without-param", "a fix_request must name the parameters it may blame: give params")
        delays = {}
        for key in ("retry_after_seconds", "max_retry_after_seconds"):
            if key in table:
                value = table[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0 or not float(value).is_integer():
                    self.note(code, "delay-not-whole-seconds", f"{key} must be a whole, non-negative number of seconds, got {shorten(value)}")
                    continue
                if step is not None and step != NextStep.WAIT:
                    self.note(code, "delay-without-wait", f"{key} goes only with next_step wait, not {step.value}")
                delays[key] = int(value)
        default, limit = delays.get("retry_after_seconds"), delays.get("max_retry_after_seconds")
        if default is not None and limit is not None and default > limit:
            self.note(code, "delay-not-whole-seconds", f"the default delay {default} s is past max_retry_after_seconds {limit}")
        example = table.get("example", {})
        delay_keys = ("retry_after_seconds", "max_retry_after_seconds")
        if step == NextStep.WAIT and not any(k in table for k in delay_keys) and isinstance(example, dict) and delay_keys[0] not in example:
            # Its examples would need a delay from nowhere (an invented Retry-After: 1).
            self.note(code, "wait-without-delay", "a wait states the delay its examples show: give retry_after_seconds (the default), "
                      "max_retry_after_seconds, or example = { retry_after_seconds = N }")  # fmt: skip
        if step == NextStep.WAIT and status is not None and grpc_code in _BUG_CODES:
            self.note(code, "wait-on-bug", f"a wait on {Code(grpc_code).name}: a bug does not clear with time; give_up")
        if step is not None and step != NextStep.WAIT:
            for text in (title, description or ""):
                m = _PROMISE.search(text)
                if m:
                    self.note(code, "retry-promised-in-prose", f"{shorten(m.group(0))} promises a retry, but {code} is {step.value}")
        alternatives = table.get("alternatives", False)
        if not isinstance(alternatives, bool):
            self.note(code, "toml", f"alternatives is true or false, got {shorten(alternatives)}")
            alternatives = False
        tools: dict[str, str | None] = {}
        for key in ("unblock_with", "blocked_by"):
            value = table.get(key)
            if value is not None and (not isinstance(value, str) or not _NAME.fullmatch(value)):
                self.note(code, "give-up-only", f"{key} is a name (letters, digits, _ . -), got {shorten(value)}")
                value = None
            tools[key] = value
        if step is not None and step != NextStep.GIVE_UP and (alternatives or tools["unblock_with"] or tools["blocked_by"]):
            self.note(code, "give-up-only", f"alternatives, unblock_with and blocked_by belong to give_up codes, not {step.value}")
        own_domain = table.get("domain", domain)
        if not _is_domain(own_domain):
            self.note(code, "domain", f"domain must be {RULES['domain'].split(': ', 1)[1]}, got {shorten(own_domain)}")
        keys = table.get("metadata_keys", [])
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) or len(set(keys)) != len(keys):
            self.note(code, "aip193-metadata-key", f"metadata_keys must be a list of distinct names, got {shorten(keys)}")
            keys = []
        for key in keys:
            if not _METADATA_KEY.fullmatch(key) or len(key) > 64:
                self.note(code, "aip193-metadata-key", f"metadata key {shorten(key)} does not match [a-z][a-zA-Z0-9-_]+ (at most 64)")
            elif key in METADATA_RESERVED:
                self.note(code, "aip193-metadata-key", f"metadata key {key!r} is errconv's own (the field of that name)")
        type_uri = type_base + code
        docs_url = table.get("docs_url", type_uri)
        if not _is_url(docs_url):
            self.note(code, "docs-url", f"docs_url must be an absolute http(s) URL, got {shorten(docs_url)}")
        example = table.get("example", {})
        if not isinstance(example, dict):
            self.note(code, "example", "example is a table of the values the documents show")
            example = {}
        for key in example:
            if key not in _EXAMPLE_KEYS:
                self.note(code, "unknown-key", f"unknown example key {shorten(key)}; known: {', '.join(sorted(_EXAMPLE_KEYS))}")
        if len(self.problems) > before:
            raise _Stop
        assert status is not None and step is not None
        return Entry(
            code=code, status=status, grpc_code=grpc_code, grpc_code_stated=stated, next_step=step, title=title,
            domain=own_domain, type=type_uri, docs_url=docs_url, description=description, params=tuple(params),
            retry_after_seconds=default, max_retry_after_seconds=limit, alternatives=alternatives,
            unblock_with=tools["unblock_with"], blocked_by=tools["blocked_by"], metadata_keys=tuple(keys), example=example,
        )  # fmt: skip

    def grpc_code(self, code: str, table: dict[str, Any], status: int) -> tuple[int, bool]:
        if "grpc_code" not in table:
            return int(code_for_http(status)), False
        value = table["grpc_code"]
        number: int | None = None
        if isinstance(value, str) and value in Code.__members__:
            number = int(Code[value])
        elif isinstance(value, int) and not isinstance(value, bool) and value in set(Code):
            number = value
        if number is None or number == Code.OK:
            self.note(code, "grpc-code", f"grpc_code must name a google.rpc.Code other than OK, got {shorten(value)}")
            return int(code_for_http(status)), False
        if http_for_code(number) // 100 != status // 100:
            self.note(
                code, "grpc-code",
                f"{Code(number).name} is a {http_for_code(number) // 100}xx code (HTTP {http_for_code(number)}), the status {status} is not",
            )  # fmt: skip
        return number, True

    def catalog_rules(self, entries: Mapping[str, Entry]) -> None:
        server = [e for e in entries.values() if e.status >= 500]
        suspect = any(e.status in (500, 501) or e.grpc_code in _NOT_TRANSIENT for e in server)
        if len(server) >= 2 and suspect and all(e.next_step == NextStep.WAIT for e in server):
            self.note(server[0].code, "every-5xx-wait", f"all {len(server)} 5xx codes are waits; give INTERNAL and UNKNOWN give_up")

    def example(self, catalog: Catalog, entry: Entry) -> None:
        """The example must build a Fault within the entry (`errconv catalog build`
        also lints every rendering of it, and writes nothing when one has a finding)."""
        try:
            example_fault(catalog, entry)
        except ContractError as exc:
            self.note(entry.code, "example", str(exc))


def _is_domain(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and len(value) <= 253 and _DOMAIN.fullmatch(value) is not None


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and value.isascii() and not (_URL_UNSAFE & set(value)) and _URL.fullmatch(value) is not None


def _type_base_problem(value: Any) -> str | None:
    """Why `value` is no type_base, or None. Its path becomes directories of the built
    site, so besides being an http(s) URI ending in / it has no `.` or `..` segment,
    plain or percent-encoded, and no backslash."""
    if not _is_url(value) or not value.endswith("/"):
        return "type_base must be an absolute http(s) URI ending in /"
    try:
        path = urllib.parse.urlsplit(value).path
    except ValueError:  # brackets that make no IPv6 host (`https://api.ex[[ample.com/`)
        return "type_base must be an absolute http(s) URI ending in /"
    if "%" in path or any(seg in (".", "..") for seg in path.split("/")):
        return "type_base's path may have no . or .. segment and no percent-encoding (it names the directories written)"
    return None


def example_fault(catalog: Catalog, entry: Entry) -> Fault:
    """The Fault the generated documents show for `entry`: its `example` values, and
    for what the example leaves out, the entry's own (the first param; the default
    delay, else the maximum: the loader refuses a wait that states none of them, so
    no delay is ever invented)."""
    ex = dict(entry.example)
    values: dict[str, Any] = {key: ex[key] for key in ("detail", "instance", "alternatives", "alternatives_truncated") if key in ex}
    if "metadata" in ex:
        values["metadata"] = {str(k): str(v) for k, v in ex["metadata"].items()} if isinstance(ex["metadata"], dict) else ex["metadata"]
    if "violations" in ex:
        values["violations"] = ex["violations"]
    if entry.next_step == NextStep.FIX_REQUEST:
        values["param"] = ex.get("param", entry.params[0])
    elif "param" in ex:
        values["param"] = ex["param"]
    if entry.next_step == NextStep.WAIT:
        fallback = next((d for d in (entry.retry_after_seconds, entry.max_retry_after_seconds) if d is not None), None)
        values["retry_after_seconds"] = ex.get("retry_after_seconds", fallback)
    elif "retry_after_seconds" in ex:
        values["retry_after_seconds"] = ex["retry_after_seconds"]
    if "detail" not in values:
        values["detail"] = entry.description
    try:
        return catalog.fault(entry.code, **values)
    except TypeError as exc:  # a violation table with unknown members
        raise ContractError(str(exc)) from None
