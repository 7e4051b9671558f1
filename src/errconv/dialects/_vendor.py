"""What the decode-only recognisers of vendor shapes share (fastapi, drf, spring, github,
slack, cloudflare, elasticsearch, discord, twilio, oauth): settling the status and the
gRPC code of a body that may state neither, a vendor's code table as `finish` takes
it, and the members kept verbatim.

None of these formats carries a gRPC code, so it is always derived (and marked so). A
body reporting a failure inside a 2xx response (Slack's `ok: false`, OAuth at GitHub,
Discord's 202) keeps the status the wire gave, but never the gRPC code OK: its code
table's gRPC code, else UNKNOWN, so that no gRPC peer reads the failure as a success.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..codes import Code, NextStep, code_for_http
from ._common import CodeValue, Reading
from .._model.schema import check_depth

__all__ = ["Row", "by_code", "extensions_of", "grpc_code_of", "status_of", "valid_status"]

# One row of a vendor's code table: the next step the code means whatever the status
# says, and the gRPC code for it (used when the HTTP status says nothing: a 2xx, or a
# bare body). A step of None leaves the step to the status ladder.
Row = tuple[NextStep | None, int]


def valid_status(value: Any) -> int | None:
    """A body's HTTP status (an integer, or a string of digits as GitHub writes it) when
    it is one (100 to 599), else None."""
    if type(value) is str and value.isdigit() and value.isascii() and len(value) == 3:
        value = int(value)
    if type(value) is int and 100 <= value <= 599:
        return value
    return None


def status_of(reading: Reading, body_status: int | None, derived: int | None, default: int, what: str) -> int:
    """The status of a decoded body: the wire's (noting a body that says otherwise),
    else the one the body states, else `derived` from its code (marked inferred), else
    `default` (marked inferred, and noted: nothing said it)."""
    status = reading.http_status_wins(body_status)
    if status is not None:
        return status
    reading.inferred += ("status",)
    if derived is not None:
        return derived
    reading.notes += (f"no status in the {what} body; {default} assumed",)
    return default


def grpc_code_of(status: int, reading: Reading, row: Row | None = None) -> CodeValue:
    """The gRPC code of a body at `status`: the application table's for an error status;
    inside a 2xx (or 3xx) response, its code table's, else UNKNOWN (never OK)."""
    reading.inferred += ("grpc_code",)
    if status >= 400:
        return code_for_http(status)
    return Code(row[1]) if row is not None else Code.UNKNOWN


def by_code(table: Mapping[str, Row], code: str | None, vendor: str) -> tuple[NextStep, str] | None:
    """What `finish` takes as `by_code`: the step of `code` in a vendor's table, and why."""
    if code is None:
        return None
    row = table.get(code)
    if row is None or row[0] is None:
        return None
    return row[0], f"{vendor} code {code!r}"


def extensions_of(obj: Mapping[str, Any], read: Iterable[str], reading: Reading) -> dict[str, Any] | None:
    """The members of `obj` not in `read`, in order (None when there are none), checked
    for depth."""
    taken = read if isinstance(read, (set, frozenset)) else frozenset(read)
    if len(obj) <= len(taken) and obj.keys() <= taken:
        return None
    out = {name: value for name, value in obj.items() if name not in taken}
    if not out:
        return None
    if reading.deep:
        check_depth(out, reading.limits.max_depth)
    return out
