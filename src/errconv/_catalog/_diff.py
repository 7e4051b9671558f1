"""`errconv catalog diff OLD NEW`: what a new catalog changes for the clients of the old one.

oasdiff sees a schema change in an error response; it cannot see a code change
meaning, because OpenAPI has no semantics per code. A catalog has them, so this diff
judges each change by what a client that switches on the old code does under the new
one:

- breaking: a client acting on the old catalog now does the wrong thing (a code
  removed; its next step, status, gRPC code, domain or type changed; a parameter it
  may blame removed; a metadata key removed, since AIP-193 lets metadata only grow);
- risky: it still works, but not as well or not as before (a default delay more than
  twice or less than half the old one; a parameter added; the unblocking tool or the
  alternatives changed; another internal error);
- safe: nothing a client relies on (a code added, prose, a delay within a factor of
  two, a metadata key added, the docs URL).
"""

from __future__ import annotations

import subprocess
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from .._model.errors import ErrconvError

if TYPE_CHECKING:
    from . import Catalog, Entry

__all__ = ["BREAKING", "RISKY", "SAFE", "Change", "diff", "load_ref"]

BREAKING, RISKY, SAFE = "breaking", "risky", "safe"
_ORDER = {BREAKING: 0, RISKY: 1, SAFE: 2}


@dataclass(frozen=True)
class Change:
    """One finding of the diff: its severity, the code (None for the whole catalog),
    what changed (`change`, an id) and why it matters, in one line."""

    severity: str
    code: str | None
    change: str
    reason: str

    def __str__(self) -> str:
        return f"{self.severity:<9} {self.code or '(catalog)'}: {self.change}: {self.reason}"

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)


def load_ref(ref: str) -> Catalog:
    """A catalog from a file, or from `git:REV:path` (read with `git show` in the
    current directory)."""
    from . import Catalog

    if not ref.startswith("git:"):
        return Catalog.load(ref)
    rev, sep, path = ref[4:].partition(":")
    if not sep or not rev or not path:
        raise ErrconvError(f"{ref}: a git reference is git:REV:path (git:HEAD~1:errors.toml)")
    if rev.startswith("-") or path.startswith("-"):
        # git would read it as an option (`--output=FILE` writes FILE).
        raise ErrconvError(f"{ref}: a revision or path that begins with '-' is refused (git would read it as an option)")
    try:
        proc = subprocess.run(["git", "show", "--end-of-options", f"{rev}:{path}"], capture_output=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ErrconvError(f"{ref}: cannot run git: {exc}") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ErrconvError(f"{ref}: git show failed: {message[-1] if message else proc.returncode}")
    return Catalog.loads(proc.stdout, source=ref)


def _delay(seconds: int | None) -> str:
    return "none" if seconds is None else f"{seconds} s"


def _entry_changes(old: Entry, new: Entry) -> list[Change]:
    code = new.code
    out: list[Change] = []

    def add(severity: str, change: str, reason: str) -> None:
        out.append(Change(severity, code, change, reason))

    if old.next_step != new.next_step:
        add(BREAKING, "next-step", f"{old.next_step.value} -> {new.next_step.value}: clients switching on {code} now make the wrong move")
    if old.status != new.status:
        add(BREAKING, "status", f"{old.status} -> {new.status}: clients and proxies that read the status see another error")
    if old.grpc_code != new.grpc_code:
        add(BREAKING, "grpc-code", f"{old.grpc_code_name} -> {new.grpc_code_name}: gRPC clients and their retry policies see another code")
    if old.domain != new.domain:
        add(BREAKING, "domain", f"{old.domain} -> {new.domain}: ErrorInfo's (reason, domain) is the code's identity (AIP-193)")
    if old.type != new.type:
        add(BREAKING, "type", f"{old.type} -> {new.type}: RFC 9457 clients compare the type URI")
    removed = [p for p in old.params if p not in new.params]
    added = [p for p in new.params if p not in old.params]
    if removed:
        add(BREAKING, "params", f"{', '.join(removed)} removed: clients that fix those parameters fix nothing now")
    if added:
        add(RISKY, "params", f"{', '.join(added)} added: clients mapping params to fields meet ones they do not know")
    if old.retry_after_seconds != new.retry_after_seconds:
        before, after = old.retry_after_seconds, new.retry_after_seconds
        span = f"{_delay(before)} -> {_delay(after)}"
        if before is not None and after is not None and before > 0 and after > 0 and max(before, after) <= 2 * min(before, after):
            add(SAFE, "delay", f"{span}: within a factor of two")
        elif before is not None and after is not None:
            add(RISKY, "delay", f"{span}: more than a factor of two; clients that budget their waits by the old one misjudge them")
        elif new.next_step == old.next_step:
            add(SAFE, "delay", f"default {span}: every wait still carries its own delay")
    if old.max_retry_after_seconds != new.max_retry_after_seconds and new.next_step == old.next_step:
        before, after = old.max_retry_after_seconds, new.max_retry_after_seconds
        grows = before is not None and (after is None or after > before)
        add(RISKY if grows else SAFE, "max-delay", f"{_delay(before)} -> {_delay(after)}" + (": waits may now outlast a client's patience" if grows else ""))
    gone = [k for k in old.metadata_keys if k not in new.metadata_keys]
    more = [k for k in new.metadata_keys if k not in old.metadata_keys]
    if gone:
        add(BREAKING, "metadata-keys", f"{', '.join(gone)} removed: AIP-193 metadata may only grow; clients read those keys")
    if more:
        add(SAFE, "metadata-keys", f"{', '.join(more)} added")
    if old.unblock_with != new.unblock_with and new.next_step == old.next_step:
        add(RISKY, "unblock-with", f"{old.unblock_with or 'none'} -> {new.unblock_with or 'none'}: agents call another tool to unblock")
    if old.blocked_by != new.blocked_by and new.next_step == old.next_step:
        add(SAFE, "blocked-by", f"{old.blocked_by or 'none'} -> {new.blocked_by or 'none'}")
    if old.alternatives != new.alternatives and new.next_step == old.next_step:
        if old.alternatives:
            add(RISKY, "alternatives", "no longer offered: agents that offered them now only report")
        else:
            add(SAFE, "alternatives", "now offered")
    if (old.title, old.description) != (new.title, new.description):
        add(SAFE, "prose", "title or description changed")
    if old.docs_url != new.docs_url and old.type == new.type:
        add(SAFE, "docs-url", f"{old.docs_url} -> {new.docs_url}")
    return out


def diff(old: Catalog, new: Catalog) -> list[Change]:
    """Every change from `old` to `new`, breaking first, then by code."""
    out: list[Change] = []
    if old.type_base != new.type_base:
        out.append(Change(BREAKING, None, "type-base", f"{old.type_base} -> {new.type_base}: every type URI changes"))
    if old.internal.code != new.internal.code:
        out.append(
            Change(RISKY, None, "internal", f"{old.internal.code} -> {new.internal.code}: uncatalogued errors answer another code")
        )
    for code, entry in old.entries.items():
        if code not in new.entries:
            out.append(Change(BREAKING, code, "removed", f"clients switching on {code} meet a code they do not know"))
            continue
        out.extend(c for c in _entry_changes(entry, new.entries[code]) if old.type_base == new.type_base or c.change != "type")
    for code, entry in new.entries.items():
        if code not in old.entries:
            out.append(Change(SAFE, code, "added", f"new code, {entry.next_step.value}, HTTP {entry.status}"))
    order = {code: i for i, code in enumerate([*old.entries, *(c for c in new.entries if c not in old.entries)])}
    return sorted(out, key=lambda c: (_ORDER[c.severity], -1 if c.code is None else order[c.code]))
