"""`graphql`: a GraphQL response that failed (`errors`, with `data` absent or null).

    {"errors": [{"message": "...", "locations": [{"line": 2, "column": 3}], "path": ["user", "email"],
                 "extensions": {"code": "BAD_USER_INPUT", ...}}]}

The first error is the fault: `message` is the detail, the code is `extensions.code`
(Apollo's), else `extensions.errorType` (Netflix DGS), `extensions.classification`
(graphql-java) or the error's own `type` (GitHub), kept as spelled. The code table below
gives each known code its gRPC class and the HTTP status a bare body implies. A body
with no known code is classified from its shape, as the spec defines it: an error
without `path` in a result without `data` (or one with `locations` only) is a request
error, a document the server could not parse or validate, so fix_request; a field error
(with `path`) is give_up unless something says more. The HTTP status wins when it is
an error status; a 200 (legacy GraphQL over HTTP answers 200 to everything) only says
the transport worked.

A partial success is no failure: a response whose `data` is not null beside `errors`
has results the caller can use. Inside a 2xx response (or with `status=` a 2xx)
decoding raises DecodeError saying so; a bare body, which the caller hands over as an
error, is read (its first error), noted as partial.

`path` (into the response, not the request) is kept in `metadata["path"]`, spelled
`hero.heroFriends[1].name` (GraphQL names hold no `.` or `[`, so the spelling gives the
path back); it is not the param, which only `extensions.argumentName` (Apollo's docs),
`invalidArgs` (Apollo 3) or errconv's `param` give. `locations` and members the spec
does not define are kept as extension members; several errors give one violation each
(the argument they name, their message, their code).

Written: an errors-only result (a request error, no `data`), one error with `message`
(the detail, else the title), `locations` and `path` when the fault kept them, and
`extensions` holding `code` first, then errconv's fields as the problem dialect names
them (`status`, `next_step`, `retry_after_seconds`, `param`, `errors`, `alternatives`,
...) and the extension members. Media type `application/graphql-response+json`.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import CODE_BY_NAME, Code, NextStep, code_for_http, code_name, http_for_code
from ._base import CERTAIN, LIKELY, STRONG, Dialect, HttpInfo
from ._common import CodeValue, Reading, Writing, write_json
from ._slot import read_slot, write_slot

__all__ = ["GraphQL", "path_of", "spell_path"]

# Code -> (google.rpc.Code, the HTTP status a bare body implies). The gRPC class decides
# the step by the ladder: no row needs a step of its own.
_TABLE: dict[str, tuple[int, int]] = {
    # Apollo Server 4 (ApolloServerErrorCode) and its de facto companions.
    "GRAPHQL_PARSE_FAILED": (Code.INVALID_ARGUMENT, 400),
    "GRAPHQL_VALIDATION_FAILED": (Code.INVALID_ARGUMENT, 400),
    "BAD_USER_INPUT": (Code.INVALID_ARGUMENT, 400),
    "BAD_REQUEST": (Code.INVALID_ARGUMENT, 400),
    "OPERATION_RESOLUTION_FAILURE": (Code.INVALID_ARGUMENT, 400),
    # The APQ handshake: the server has no query for this hash; resend with the full query.
    "PERSISTED_QUERY_NOT_FOUND": (Code.INVALID_ARGUMENT, 400),
    # No persisted queries here: send the full query instead (a change of request, not a dead end).
    "PERSISTED_QUERY_NOT_SUPPORTED": (Code.INVALID_ARGUMENT, 400),
    "INTROSPECTION_DISABLED": (Code.PERMISSION_DENIED, 403),
    "INTERNAL_SERVER_ERROR": (Code.INTERNAL, 500),  # also Apollo's default for an error without a code
    "UNAUTHENTICATED": (Code.UNAUTHENTICATED, 401),  # Apollo 3's AuthenticationError, still the convention
    "FORBIDDEN": (Code.PERMISSION_DENIED, 403),  # Apollo 3's ForbiddenError; GitHub's type too
    "NOT_FOUND": (Code.NOT_FOUND, 404),  # common custom code; GitHub's type
    "THROTTLED": (Code.RESOURCE_EXHAUSTED, 429),  # Shopify's cost throttle: a wait
    # GitHub's `type` member.
    "RATE_LIMITED": (Code.RESOURCE_EXHAUSTED, 429),
    "INSUFFICIENT_SCOPES": (Code.PERMISSION_DENIED, 403),  # the token lacks a scope: a credential matter
    "INVALID_CURSOR_ARGUMENTS": (Code.INVALID_ARGUMENT, 400),
    "MAX_NODE_LIMIT_EXCEEDED": (Code.INVALID_ARGUMENT, 400),  # ask for fewer nodes
    "UNPROCESSABLE": (Code.INVALID_ARGUMENT, 422),
    # Netflix DGS `errorType` (gRPC-like words).
    "INTERNAL": (Code.INTERNAL, 500),
    "UNAVAILABLE": (Code.UNAVAILABLE, 503),
    "PERMISSION_DENIED": (Code.PERMISSION_DENIED, 403),
    "FAILED_PRECONDITION": (Code.FAILED_PRECONDITION, 400),
    # graphql-java `classification`.
    "ValidationError": (Code.INVALID_ARGUMENT, 400),
    "InvalidSyntax": (Code.INVALID_ARGUMENT, 400),
    "OperationNotSupported": (Code.UNIMPLEMENTED, 501),
}
# Where a code may be, in order: extensions (Apollo, DGS, graphql-java), then the error (GitHub).
_CODE_MEMBERS = ("errorType", "classification")
_ERROR_MEMBERS = frozenset(("message", "locations", "path", "extensions"))
_GITHUB = _ERROR_MEMBERS | {"type"}  # GitHub adds its code as `type`
_TOP = frozenset(("errors", "data", "extensions", "hasNext", "incremental", "pending", "completed"))
# JSON:API's error members, which a GraphQL error never has.
_JSONAPI_ONLY = frozenset(("title", "detail", "source", "status", "links", "meta", "id"))
_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")
_STEP = re.compile(r"\.?([_A-Za-z][_0-9A-Za-z]*)|\[(0|[1-9][0-9]{0,9})\]")
_MISSING: Any = object()


def spell_path(path: Any) -> str | None:
    """A GraphQL response path as one string (`hero.friends[1].name`), or None when it is
    no path (names and non-negative integers, a name first)."""
    if type(path) is not list or not path or type(path[0]) is not str:
        return None
    out: list[str] = []
    for part in path:
        if type(part) is str and _NAME.fullmatch(part):
            out.append(("." if out else "") + part)
        elif type(part) is int and 0 <= part < 10**10:
            out.append(f"[{part}]")
        else:
            return None
    return "".join(out)


def path_of(text: str) -> list[Any] | None:
    """The path a spelling gives back (`spell_path`'s inverse), or None."""
    out: list[Any] = []
    pos = 0
    while pos < len(text):
        m = _STEP.match(text, pos)
        if m is None or (m.group(1) is not None and (pos == 0) == text.startswith(".", pos)):
            return None
        out.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    return out if out and spell_path(out) == text else None


def _locations(value: Any) -> bool:
    return (
        type(value) is list
        and bool(value)
        and all(type(x) is dict and x.keys() == {"line", "column"} and type(x["line"]) is int and type(x["column"]) is int for x in value)
    )


def _param(ext: dict[str, Any]) -> tuple[str, str] | None:
    """The argument an error's extensions name (Apollo docs' argumentName, Apollo 3's invalidArgs), and the member."""
    name = ext.get("argumentName")
    if type(name) is str and name:
        return name, "argumentName"
    args = ext.get("invalidArgs")
    first = args[0] if type(args) is list and args else next(iter(args), None) if type(args) is dict else None
    if type(first) is str and first:
        return first, "invalidArgs"
    return None


def _code(error: dict[str, Any], ext: dict[str, Any]) -> tuple[str, str] | None:
    """The code an error states, and where: extensions.code, errorType, classification, or the error's type."""
    for member in ("code", *_CODE_MEMBERS):
        value = ext.get(member)
        if type(value) is str and value:
            return value, member
    value = error.get("type")
    if type(value) is str and value:
        return value, "type"
    return None


def implied(code: str | None, status: int) -> CodeValue:
    """The gRPC class a decoder gives an error with this code and this (stated) status."""
    row = _TABLE.get(code) if code is not None else None
    return Code(row[0]) if row is not None else code_for_http(status)


class GraphQL(Dialect):
    """A failed GraphQL response."""

    name = "graphql"
    precedence = 160
    listed = 200
    keys = frozenset(("errors",))
    ceiling = STRONG
    media_type = "application/graphql-response+json"
    errors_on_success = True  # legacy GraphQL over HTTP answers 200 whatever happened
    reserved = frozenset(("argumentName", "invalidArgs", *_CODE_MEMBERS))

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A top-level `errors` list of objects with a string `message` (none with JSON:API's
        members), beside nothing but `data`, `extensions` and the incremental-delivery members."""
        if type(value) is not dict:
            return 0.0
        errors = value.get("errors")
        if type(errors) is not list or not errors or not value.keys() <= _TOP:
            return 0.0
        if not all(type(e) is dict and type(e.get("message")) is str and e.keys().isdisjoint(_JSONAPI_ONLY) for e in errors):
            return 0.0
        if http is not None and http.media_type == self.media_type:
            return CERTAIN
        if "data" in value or any(_graphql_member(e) for e in errors):
            return STRONG
        if all(e.keys() <= _ERROR_MEMBERS for e in errors):
            return LIKELY  # {"errors": [{"message": ...}]}: GraphQL's, and a few REST APIs' too
        if all(e.keys() <= _GITHUB for e in errors):
            return LIKELY
        return 0.0  # members GraphQL does not define (Twitter's {"code": 88, "message"}): a REST body

    def decode(self, value: Any, reading: Reading) -> Fault:
        errors = value.get("errors") if type(value) is dict else None
        if type(errors) is not list or not any(type(e) is dict for e in errors):
            raise DecodeError(f'a GraphQL error response is {{"errors": [{{"message": ...}}]}}, got {shorten(value)}')
        index, first = next((i, e) for i, e in enumerate(errors) if type(e) is dict)
        data = value.get("data", _MISSING)
        partial = data is not _MISSING and data is not None
        wire = reading.status
        if wire is not None and wire < 400:
            if partial and not reading.lenient:
                raise DecodeError(
                    f"a GraphQL partial success (HTTP {wire}): `data` is not null beside `errors`, so the "
                    "operation succeeded in part and its result is usable; it is no failure to read"
                )
            reading.notes += (f"HTTP {wire} carried a GraphQL failure (no data)",)
            reading.status = wire = None  # the transport worked; the body says what failed
        if partial:
            reading.notes += ("a partial success (data beside the errors); its first error is read",)
        ext = first.get("extensions", _MISSING)
        fields: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        stated: NextStep | None = None
        body_status: int | None = None
        grpc_name: str | None = None
        consumed: set[str] = set()
        if type(ext) is dict:
            slot = read_slot(ext, reading, leave=frozenset(("detail",)))
            fields, stated, body_status, grpc_name = slot.fields, slot.stated, slot.status, slot.grpc_name
            rest = dict(slot.rest)
        else:
            rest = {} if ext is _MISSING else {"extensions": ext}
            ext = {}
        found = _code(first, ext)
        if found is not None and "code" not in fields:
            fields["code"] = found[0]
        if found is not None and fields["code"] == found[0]:
            if found[1] == "type":
                consumed.add("type")
            else:
                rest.pop(found[1], None)
        if "param" not in fields:
            named = _param(ext)
            if named is not None:
                fields["param"] = named[0]
                rest.pop(named[1], None)
        message = first.get("message")
        if type(message) is str:
            if message != fields.get("title"):  # errconv writes the title as the message when there is no detail
                fields["detail"] = message
            consumed.add("message")
        path = first.get("path", _MISSING)
        spelled = spell_path(path)
        metadata = fields.get("metadata", {})
        if spelled is not None and "path" not in metadata:
            fields["metadata"] = {**metadata, "path": spelled}
            consumed.add("path")
        # Members the spec does not define (and locations, and a path that is none) are kept.
        for name, item in first.items():
            if name not in consumed and name != "extensions":
                extensions[name] = item
        for name, item in rest.items():
            extensions.setdefault(name, item)
        for name, item in value.items():
            if name not in ("errors", "data"):
                extensions.setdefault(name, item)
        if len(errors) > 1 and "violations" not in fields:
            fields["violations"] = tuple(_violation(e) for e in errors if type(e) is dict)[: reading.limits.max_violations + 1]
            if len(fields["violations"]) > reading.limits.max_violations:
                raise DecodeError(f"{len(errors)} GraphQL errors, over the limit of {reading.limits.max_violations} (Limits.max_violations)")
        code = fields.get("code")
        row = _TABLE.get(code) if code is not None else None
        if grpc_name is not None:
            grpc_code = CODE_BY_NAME[grpc_name]
        elif row is not None:
            grpc_code = row[0]
            reading.inferred += ("grpc_code",)
        elif wire is not None or body_status is not None:
            grpc_code = code_for_http(wire if wire is not None else body_status)  # type: ignore[arg-type]
            reading.inferred += ("grpc_code",)
        else:
            # No code errconv knows and no status: what the spec's shapes say. A request
            # error (no path, and no data or a location in the document) is a document to fix.
            request_error = path is _MISSING and (data is _MISSING or "locations" in first)
            grpc_code = int(Code.INVALID_ARGUMENT if request_error else Code.UNKNOWN)
            reading.inferred += ("grpc_code",)
            reading.notes += (("a request error (no path): the document must change" if request_error else "a field error with no code"),)
        if wire is not None:
            status = reading.http_status_wins(body_status)
        elif body_status is not None:
            status = body_status
        else:
            status = row[1] if row is not None else http_for_code(grpc_code)
            reading.inferred += ("status",)
        fields["status"], fields["grpc_code"] = status, grpc_code
        reading.keep_extensions(fields, extensions)
        if reading.seen is not None:
            reading.saw("body", "", "graphql")
            if type(message) is str:
                reading.saw("text", f"/errors/{index}/message", message)
            if stated is not None:
                reading.saw("next_step", f"/errors/{index}/extensions/next_step", ext.get("next_step"))
        return reading.finish(fields, stated)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        ext: dict[str, Any] = {}
        if fault.code is not None:
            ext["code"] = fault.code
        if fault.grpc_code != implied(fault.code, fault.status):
            ext["grpc_code"] = code_name(fault.grpc_code)
        skip = {"locations"} if _locations(fault.extensions.get("locations")) else set()
        path = path_of(fault.metadata["path"]) if "path" in fault.metadata else None
        ext.update(write_slot(fault, keep_debug=writing.keep_debug, drop=_OWN, skip=frozenset(skip)))
        if path is not None:
            rest = {k: v for k, v in fault.metadata.items() if k != "path"}
            if rest:
                ext["metadata"] = rest
            else:
                ext.pop("metadata", None)
        error: dict[str, Any] = {"message": fault.detail or fault.title or ""}
        if skip:
            error["locations"] = fault.extensions["locations"]
        if path is not None:
            error["path"] = path
        error["extensions"] = ext
        return write_json({"errors": [error]})


# errconv's members a GraphQL error has homes of its own for (or that go first, by hand).
_OWN = frozenset(("detail", "code", "grpc_code"))


def _violation(error: dict[str, Any]) -> Violation:
    ext = error.get("extensions")
    ext = ext if type(ext) is dict else {}
    named = _param(ext)
    found = _code(error, ext)
    message = error.get("message")
    return Violation(
        field=named[0] if named else "",
        description=message if type(message) is str else "",
        reason=found[0] if found else None,
    )


def _graphql_member(error: dict[str, Any]) -> bool:
    """Whether an error carries a member as GraphQL types it: `locations` and `path` lists,
    an `extensions` object. A string `path` is a REST field's (Wise's {"code":
    "NOT_UNIQUE", "path": "email"}), no GraphQL response path."""
    return type(error.get("locations")) is list or type(error.get("path")) is list or type(error.get("extensions")) is dict
