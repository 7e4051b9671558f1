"""`jsonrpc`: a JSON-RPC 2.0 error response (MCP, Ethereum nodes, LSP, bitcoind).

    {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "...", "data": {...}}}

`fault.code` is the integer code as a string (`"-32602"`), as the service spells it (one
of the five codes JSON-RPC itself defines is marked inferred, as the protocol's word, not
an application code).
JSON-RPC defines no HTTP status in the body: inside HTTP the status line gives it (unless
it is a 2xx, the usual case, which only says the transport worked); a bare body's status
is the one the code's gRPC class implies, marked inferred, unless `data.status` (which
errconv writes when the code does not imply the status) says it. The code table below gives the gRPC
class of the reserved codes, the implementation-defined server range, and the vendor
codes real servers send (Ethereum's EIP-1474, geth, Hedera, LSP, Bitcoin Core).

Read as well: a batch (a list of responses), whose first error response is the fault;
JSON-RPC 1.0 replies (bitcoind: `{"result": null, "error": {...}, "id": ...}`, no
`jsonrpc` member); a bare `{"error": {"code": <negative>, "message"}}` (no HTTP status is
negative, so it is no Google envelope); an MCP resource-not-found (`data: {"uri"}`,
-32602 since MCP 2026-07-28, -32002 before) as NOT_FOUND; Infura's
`data.rate.backoff_seconds` as the delay. `id` is kept (an extension member, so a
re-encoded error answers the same call); `data` members errconv knows are read (its
own agent fields, a string `code`, which is then the code), the rest kept as extension
members; a `data` that is not an object is kept whole as the extension `data`.

Written: `jsonrpc`, `id` (the kept one, else null), `error` with `code` (the fault's
code when it is an integer, else the JSON-RPC code of its gRPC class), `message` (the
detail, else the title), and `data` holding errconv's fields as the problem dialect
names them (`next_step`, `retry_after_seconds`, `param`, `errors`, `alternatives`, ...),
a non-integer `code`, `grpc_code` and `status` when the integer does not imply them, and
the extension members.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import CODE_BY_NAME, Code, NextStep, code_name, http_for_code
from ._base import CERTAIN, LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing, whole_seconds, write_json
from ._slot import read_slot, write_slot

__all__ = ["JsonRpc", "class_of", "wire_status"]

_FIX = NextStep.FIX_REQUEST

# JSON-RPC code -> (google.rpc.Code, the step when it is not what that code's ladder gives).
# The ladder then decides: INVALID_ARGUMENT fix_request, UNAVAILABLE/RESOURCE_EXHAUSTED/
# ABORTED wait, NOT_FOUND and the rest give_up.
_TABLE: dict[int, tuple[int, NextStep | None]] = {
    # JSON-RPC 2.0, section 5.1.
    -32700: (Code.INVALID_ARGUMENT, None),  # parse error: the request bytes are no JSON
    -32600: (Code.INVALID_ARGUMENT, None),  # invalid request (MCP also for a missing or unknown session)
    -32601: (Code.UNIMPLEMENTED, None),  # method not found: no change of params helps
    -32602: (Code.INVALID_ARGUMENT, None),  # invalid params (MCP: an unknown tool, an unsupported version)
    -32603: (Code.INTERNAL, None),  # internal error: a bug does not clear with time
    # The implementation-defined server range (-32099..-32000, UNKNOWN otherwise):
    # Ethereum's EIP-1474 names six, and the MCP and LSP specs reuse two of the numbers.
    -32000: (Code.INVALID_ARGUMENT, None),  # EIP-1474 "invalid input"; geth's code for call errors (execution reverted, nonce too low)
    -32001: (Code.NOT_FOUND, None),  # EIP-1474 resource not found
    # MCP's resource not found (2025-06-18); EIP-1474 says "resource unavailable" and LSP
    # ServerNotInitialized: three meanings, and give_up is right for the first and safe for the others.
    -32002: (Code.NOT_FOUND, None),
    -32003: (Code.FAILED_PRECONDITION, None),  # EIP-1474 transaction rejected
    -32004: (Code.UNIMPLEMENTED, None),  # EIP-1474 method not supported
    -32005: (Code.RESOURCE_EXHAUSTED, None),  # EIP-1474 limit exceeded: Infura, Tenderly, Alchemy throttles, a wait
    -32006: (Code.INVALID_ARGUMENT, None),  # EIP-1474 JSON-RPC version not supported: send one it supports
    -32008: (Code.FAILED_PRECONDITION, _FIX),  # Hedera's relay: contract revert; the same call reverts again
    3: (Code.FAILED_PRECONDITION, _FIX),  # geth: execution reverted, with the revert data in `data`; change the call
    # LSP's reserved range.
    -32800: (Code.CANCELLED, None),  # RequestCancelled: the client itself cancelled it
    -32801: (Code.ABORTED, None),  # ContentModified: the document changed under the request; ask again
    -32802: (Code.ABORTED, None),  # ServerCancelled: the server cancelled it; ask again
}
# Bitcoin Core's codes (rpc/protocol.h), read only in JSON-RPC 1.0 replies (no `jsonrpc`
# member), where bitcoind and its forks use them: elsewhere small negative numbers mean
# other things (MCP's own spec example answers -1 to a refused sampling request).
_BITCOIN: dict[int, tuple[int, NextStep | None]] = {
    -3: (Code.INVALID_ARGUMENT, None),  # RPC_TYPE_ERROR: a parameter of the wrong type
    -5: (Code.NOT_FOUND, None),  # RPC_INVALID_ADDRESS_OR_KEY: no such transaction, address or key
    -8: (Code.INVALID_ARGUMENT, None),  # RPC_INVALID_PARAMETER
    -28: (Code.UNAVAILABLE, None),  # RPC_IN_WARMUP: the node is still loading; it clears with time
}
# The JSON-RPC code errconv writes for a fault whose code is no integer, by gRPC class;
# -32000 for the rest (the server range), with `grpc_code` in `data` saying which.
_FOR_GRPC = {
    Code.INVALID_ARGUMENT: -32602,
    Code.OUT_OF_RANGE: -32602,
    Code.UNIMPLEMENTED: -32601,
    Code.INTERNAL: -32603,
    Code.RESOURCE_EXHAUSTED: -32005,
    Code.NOT_FOUND: -32001,
}
# The errors JSON-RPC 2.0 itself defines (section 5.1): codes of the protocol, not of the service.
_PROTOCOL = frozenset((-32700, -32600, -32601, -32602, -32603))
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,14})")  # as int() writes it, within a double's exact range
_ENVELOPE = frozenset(("jsonrpc", "id", "error", "result"))
_ERROR = frozenset(("code", "message", "data"))
_MISSING: Any = object()


def class_of(code: int, data: Any, classic: bool) -> tuple[int, NextStep | None, str]:
    """The gRPC class of a JSON-RPC error code, the step the code table states (or None:
    the ladder decides), and why; `classic` for a JSON-RPC 1.0 reply (Bitcoin Core's codes)."""
    if code in (-32602, -32002) and type(data) is dict and type(data.get("uri")) is str and data.keys() <= {"uri"}:
        return Code.NOT_FOUND, None, "MCP's resource not found (data.uri)"
    row = _TABLE.get(code) or (_BITCOIN.get(code) if classic else None)
    if row is not None:
        return row[0], row[1], f"jsonrpc code {code}"
    return Code.UNKNOWN, None, f"jsonrpc code {code}"


def wire_status(reading: Reading, implied: int, what: str) -> int:
    """The status of a fault from a body that states none: the HTTP status when it is an
    error status, else (a bare body, or a 2xx that carried the error) the one `implied`,
    marked inferred."""
    status = reading.status
    if status is not None and status >= 400:
        return status
    if status is not None:
        reading.notes += (f"HTTP {status} carried a {what} error; its status is the one its code implies, {implied}",)
    reading.inferred += ("status",)
    return implied


def _first_error(value: list[Any]) -> tuple[int, Any]:
    for index, item in enumerate(value):
        if type(item) is dict and type(item.get("error")) is dict:
            return index, item
    raise DecodeError(f"a JSON-RPC batch with no error response in it: {shorten(value)}")


class JsonRpc(Dialect):
    """A JSON-RPC 2.0 error response."""

    name = "jsonrpc"
    precedence = 20
    listed = 220
    keys = frozenset(("error",))  # a JSON object it claims has an `error` (a batch is a list: always asked)
    media_type = "application/json"
    errors_on_success = True  # JSON-RPC over HTTP answers 200 whatever the call did
    # Written inside `data` beside the extension members (errconv's own, as in problem).
    reserved = frozenset(("code", "grpc_code"))

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`"jsonrpc": "2.0"` with an `error` object (or a batch holding one); a
        JSON-RPC 1.0 reply (`error` beside `id`); `{"error": {...}}` whose integer code
        is negative."""
        if type(value) is list:
            if value and all(type(x) is dict and x.get("jsonrpc") == "2.0" for x in value):
                if any(type(x.get("error")) is dict for x in value):
                    return CERTAIN
            return 0.0
        if type(value) is not dict:
            return 0.0
        error = value.get("error")
        if type(error) is not dict:
            return 0.0
        if value.get("jsonrpc") == "2.0":
            return CERTAIN
        code = error.get("code")
        if type(code) is not int or type(error.get("message")) is not str or "jsonrpc" in value:
            return 0.0
        if "id" in value and value.keys() <= _ENVELOPE and value.get("result", None) is None:
            return STRONG  # JSON-RPC 1.0 (bitcoind): no other error format has a top-level id
        if code < 0 and value.keys() == {"error"} and error.keys() <= _ERROR:
            return LIKELY  # as likely as google's reading of an integer code, and earlier in precedence
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        at = ""
        if type(value) is list:  # a batch: its first error response is the fault
            index, value = _first_error(value)
            at = f"/{index}"
            if len(value) > 1:
                reading.notes += (f"a batch of responses; the first error (item {index}) read",)
        error = value.get("error") if type(value) is dict else None
        if type(error) is not dict:
            raise DecodeError(f'a JSON-RPC error response is {{"jsonrpc": "2.0", "error": {{...}}, "id": ...}}, got {shorten(value)}')
        classic = value.get("jsonrpc") != "2.0"
        extensions: dict[str, Any] = {name: item for name, item in error.items() if name not in _ERROR}
        fields: dict[str, Any] = {}
        code, message, data = error.get("code"), error.get("message"), error.get("data", _MISSING)
        if type(code) is not int:
            if code is not None:
                extensions["code"] = code
            code = None
        stated: NextStep | None = None
        grpc_name: str | None = None
        body_status: int | None = None
        body_wait: str | None = None
        if type(data) is dict:
            slot = read_slot(data, reading, skip=frozenset(("code",)), leave=frozenset(("detail",)))
            fields.update(slot.fields)
            stated, grpc_name, body_status = slot.stated, slot.grpc_name, slot.status
            for name, item in slot.rest.items():
                extensions.setdefault(name, item)
            text_code = data.get("code")
            if type(text_code) is str and text_code:
                fields["code"] = text_code  # a code of the service's own; the integer is the protocol's class
            elif "code" in data:
                extensions.setdefault("code", text_code)
            rate = data.get("rate")
            if "retry_after_seconds" not in fields and type(rate) is dict:
                delay = whole_seconds(rate.get("backoff_seconds"))  # Infura's throttle
                if delay is not None:
                    fields["retry_after_seconds"] = delay
                    body_wait = "data.rate.backoff_seconds"
        elif data is not _MISSING and data is not None:
            extensions["data"] = data  # revert bytes, a message: kept whole
        if code is not None and "code" not in fields:
            fields["code"] = str(code)
            if code in _PROTOCOL:
                reading.inferred += ("code",)  # the protocol's word for the failure: lint still asks for one of the service's own
        if type(message) is str:
            if message != fields.get("title"):  # errconv writes the title as the message when there is no detail
                fields["detail"] = message
        elif message is not None:
            extensions.setdefault("message", message)
        grpc_code, by_step, why = class_of(code, data, classic) if code is not None else (int(Code.UNKNOWN), None, "")
        if grpc_name is not None:
            grpc_code, by_step = CODE_BY_NAME[grpc_name], None
        else:
            reading.inferred += ("grpc_code",)
        fields["grpc_code"] = grpc_code
        if body_status is not None and (reading.status is None or reading.status < 400):
            fields["status"] = body_status  # errconv's own, when the code does not imply it
            if reading.status is not None:
                reading.notes += (f"HTTP {reading.status} carried a JSON-RPC error of status {body_status}",)
        elif body_status is not None:
            fields["status"] = reading.http_status_wins(body_status)
        else:
            fields["status"] = wire_status(reading, http_for_code(grpc_code), "JSON-RPC")
        for name, item in value.items():  # the envelope: the id is kept, the rest is framing
            if name == "error" or (name == "jsonrpc" and item == "2.0") or (name in ("result", "id") and item is None):
                continue
            extensions.setdefault(name, item)
        reading.keep_extensions(fields, extensions)
        if reading.seen is not None:
            reading.saw("body", at, "jsonrpc")
            if type(message) is str:
                reading.saw("text", f"{at}/error/message", message)
            if stated is not None:
                reading.saw("next_step", f"{at}/error/data/next_step", data["next_step"])
        return reading.finish(fields, stated, body_wait, None if by_step is None else (by_step, why))

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        ext = fault.extensions
        call_id = ext.get("id")
        if not (call_id is None or type(call_id) is str or (type(call_id) is int and abs(call_id) < 2**53)):
            call_id = None  # not an id JSON-RPC allows: it travels in data, as the other members do
        number = int(fault.code) if fault.code is not None and _INTEGER.fullmatch(fault.code) else None
        data: dict[str, Any] = {}
        if number is None:
            number = _FOR_GRPC.get(fault.grpc_code, -32000)  # type: ignore[call-overload]
            if fault.code is not None:
                data["code"] = fault.code
        raw = ext.get("data", _MISSING)
        bare = raw is not _MISSING and type(raw) is not dict
        if fault.grpc_code != class_of(number, raw if bare else None, False)[0]:
            data["grpc_code"] = code_name(fault.grpc_code)
        if fault.status != http_for_code(fault.grpc_code):
            data["status"] = fault.status  # a status the code does not imply (a 402, a 422)
        skip = frozenset(("id", "data")) if call_id is not None else frozenset(("data",))
        data.update(write_slot(fault, keep_debug=writing.keep_debug, drop=_NOT_IN_DATA, skip=skip))
        if raw is not _MISSING and not bare:
            data["data"] = raw
        error: dict[str, Any] = {"code": number, "message": fault.detail or fault.title or ""}
        if bare:
            # `data` of the service's own (revert bytes that Ethereum clients read): it goes out
            # as it came when that loses nothing the code does not give back; else beside ours.
            plain = {**error, "data": raw}
            if _gives_back(fault, plain, call_id):
                return write_json({"jsonrpc": "2.0", "id": call_id, "error": plain})
            data["data"] = raw
        if data:
            error["data"] = data
        return write_json({"jsonrpc": "2.0", "id": call_id, "error": error})


# errconv's members the error object has homes of its own for; `code`, `grpc_code` and
# `status` are written by hand, each only when the integer code does not imply it.
_NOT_IN_DATA = frozenset(("status", "detail", "code", "grpc_code"))  # status: by hand, when needed


def _gives_back(fault: Fault, error: dict[str, Any], call_id: Any) -> bool:
    """Whether `error` alone (no errconv members) reads back as `fault`, but for the
    status, which no bare body carries."""
    back = JsonRpc().decode({"jsonrpc": "2.0", "id": call_id, "error": error}, Reading())
    return back.replace(status=fault.status) == fault
