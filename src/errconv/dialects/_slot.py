"""errconv's fields inside a format's extension slot: GraphQL's `extensions`, JSON:API's
`meta`, JSON-RPC's `data`, an MCP tool result's `structuredContent`.

Those formats define a few members of their own (a message, a code) and one free
object. errconv writes its agent fields there with the names and JSON types of its
problem dialect (`next_step`, `retry_after_seconds`, `param`, `errors`, `alternatives`,
...), so one reading serves them all: `read_slot` reads such an object as the problem
dialect reads a body (the same schema, member by member) and keeps every member it does
not read, in order; `write_slot` is the problem object of a fault less the members the
format has homes of its own for.
"""

from __future__ import annotations

from typing import Any

from .._model.fault import Fault
from ..codes import NextStep
from ._base import liberal
from ._common import Reading
from .._model.schema import check_depth

# The problem dialect's own reading, shared rather than copied: a slot holds its members.
from .problem import _HOOKS, ProblemBody, _fields, _unaliased, to_object
from .problem import _RESERVED as PROBLEM_RESERVED
from .problem import ALIASES as PROBLEM_ALIASES

__all__ = ["Slot", "read_slot", "write_slot"]


class Slot:
    """What `read_slot` found: the Fault's fields, the status and gRPC code name the slot
    states (valid ones only), the next step it states, and the members it left."""

    __slots__ = ("fields", "status", "grpc_name", "stated", "rest")

    def __init__(
        self, fields: dict[str, Any], status: int | None, grpc_name: str | None, stated: NextStep | None, rest: dict[str, Any]
    ) -> None:
        self.fields = fields
        self.status = status
        self.grpc_name = grpc_name
        self.stated = stated
        self.rest = rest


EMPTY: dict[str, Any] = {}


def read_slot(
    obj: dict[str, Any],
    reading: Reading,
    *,
    skip: frozenset[str] = frozenset(),
    leave: frozenset[str] = frozenset(),
    aliases: bool = False,
) -> Slot:
    """`obj` read as errconv's members (the problem dialect's schema), member by member:
    one of the wrong type, or saying nothing errconv can read, is left; `skip` names
    members the caller reads itself (neither read nor left here), `leave` members that
    are not read here but left (the format gives them no such meaning). With `aliases`,
    seed 000's vocabulary (`error`, `message`, `class`, `retryable`, `retry_after`) is
    read too, as in a problem body."""
    unread = skip | leave
    source = {k: v for k, v in obj.items() if k not in unread} if unread and not unread.isdisjoint(obj) else obj
    used: dict[str, str] = {}
    if aliases and not PROBLEM_ALIASES.isdisjoint(source):
        source, used = _unaliased(source, reading)
    body, taken = liberal(source, ProblemBody, _HOOKS)
    fields, status, grpc_name, stated, rejected = _fields(body, reading)
    taken.difference_update(rejected)
    for alias, member in used.items():
        if member in taken:  # read from the alias: the member of that name, if any, stays as it came
            taken.discard(member)
            taken.add(alias)
    rest = {k: v for k, v in obj.items() if k not in taken and k not in skip} if len(taken) < len(obj) else EMPTY
    if rest and reading.deep:
        check_depth(rest, reading.limits.max_depth)
    return Slot(fields, status, grpc_name, stated, rest)


def write_slot(fault: Fault, *, keep_debug: bool, drop: frozenset[str] = frozenset(), skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The problem object of `fault` (errconv's member order) less the members in `drop`
    (the format has homes of its own for them), and less the extension members named in
    `skip` (the format writes them elsewhere)."""
    out = to_object(fault, keep_debug=keep_debug)
    for name in drop:
        out.pop(name, None)
    if skip and fault.extensions:
        for name in skip:
            if name in fault.extensions and name not in PROBLEM_RESERVED:  # (its own members stay)
                out.pop(name, None)
    return out
