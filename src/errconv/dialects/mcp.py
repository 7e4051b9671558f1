"""`mcp`: a Model Context Protocol tool result that failed (`CallToolResult`, `isError: true`).

    {"content": [{"type": "text", "text": "<prose>"}, {"type": "text", "text": "<the JSON below>"}],
     "structuredContent": {<the problem object: status, code, next_step, retry_after_seconds, param, ...>},
     "isError": true}

MCP asks tool errors to come back as results, not as protocol errors, so that the model
sees them and can correct itself. errconv writes the fault as the problem dialect's object
in `structuredContent` (RFC 9457's members and errconv's agent fields at the top level:
`next_step`, `retry_after_seconds`, `param`, `alternatives`, `blocked_by`, `unblock_with`),
and, for hosts that show only `content`, a text block of prose that says the next move
(`Wait 30 seconds, then repeat the same call.`) followed by the serialized JSON of
`structuredContent`, as the MCP specification asks of tools that return structured content.
Every Fault comes back from `structuredContent`, as from a problem body (an extension
member named like one of problem's own members cannot be told from it, and is lost).

Decoding reads the result bare, inside its JSON-RPC response (`{"jsonrpc": "2.0", "id": ..,
"result": {...}}`: the call itself succeeded, so it is read inside a 200 too), or as the
result of a completed task (`"resultType": "task"`, the tasks extension). A
`structuredContent` object is read as a problem body (seed 000's `error`, `retryable`,
`retry_after` too); its text copy is skipped; the other text blocks are the prose (the
detail when the object gives none); non-text blocks, `_meta` and other members are kept
as extension members. A result with prose only (most servers' tool errors) states nothing
machine-readable: its status, gRPC code and next step are then inferred from the words
of the text (an upstream rate limit is a wait, an invalid argument a fix_request, an
unknown failure give_up), marked inferred, the words that decided named in
`origin.next_step`. MCP's protocol errors (JSON-RPC error objects) are the `jsonrpc` dialect.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import Code, NextStep, reason_phrase
from ._base import CERTAIN, Dialect, HttpInfo
from ._common import Reading, Writing, capped_delay, write_json
from ._slot import read_slot, write_slot
from .problem import _codes

__all__ = ["Mcp", "prose_of"]

_MISSING: Any = object()
_RESULT = frozenset(("content", "structuredContent", "isError"))

# What the words of a prose-only tool error say, first match wins: the class, its HTTP
# status. Who may act comes before what went wrong (an "invalid API key" is a credential
# matter, not an argument to fix); "unknown tool" is the model's to fix, as MCP's own
# example of a tool-name mistake says.
_WORDS: tuple[tuple[re.Pattern[str], int, int], ...] = (
    (re.compile(r"\b(?:unauthori[sz]ed|unauthenticated|api key|access token|credentials?|not (?:logged|signed) in)\b", re.I), Code.UNAUTHENTICATED, 401),
    (re.compile(r"\b(?:forbidden|permission denied|access denied|not permitted|not allowed)\b", re.I), Code.PERMISSION_DENIED, 403),
    (re.compile(r"\b(?:rate[ -]?limit(?:ed)?|too many requests|throttl(?:ed|ing))\b", re.I), Code.RESOURCE_EXHAUSTED, 429),
    (re.compile(r"\b(?:timed out|time-?out|deadline exceeded)\b", re.I), Code.DEADLINE_EXCEEDED, 504),
    (re.compile(r"\b(?:temporarily|unavailable|overloaded|try again later|retry later)\b", re.I), Code.UNAVAILABLE, 503),
    (re.compile(r"\b(?:invalid|must be|must not|missing|required|unknown tool|malformed|not a valid|out of range)\b", re.I), Code.INVALID_ARGUMENT, 400),
    (re.compile(r"\b(?:not found|does not exist|no such)\b", re.I), Code.NOT_FOUND, 404),
)
_WAITS = frozenset((Code.RESOURCE_EXHAUSTED, Code.DEADLINE_EXCEEDED, Code.UNAVAILABLE))


def _words(text: str) -> tuple[int, int, NextStep, str] | None:
    """The class, status and step the words of `text` say, and which words; None if no rule matches."""
    for pattern, grpc_code, status in _WORDS:
        m = pattern.search(text)
        if m is not None:
            step = NextStep.WAIT if grpc_code in _WAITS else NextStep.FIX_REQUEST if grpc_code == Code.INVALID_ARGUMENT else NextStep.GIVE_UP
            return grpc_code, status, step, m.group(0)
    return None


def prose_of(fault: Fault) -> str:
    """The text block errconv writes for `fault`: what went wrong, then the next move in
    words a model acts on."""
    text = fault.detail or fault.title or reason_phrase(fault.status)
    step = fault.next_step
    if step == NextStep.WAIT:
        delay = fault.retry_after_seconds
        move = "Wait, then repeat the same call." if delay is None else f"Wait {capped_delay(delay)} seconds, then repeat the same call."
    elif step == NextStep.FIX_REQUEST:
        move = f"Change the argument {fault.param!r} and call again." if fault.param else "Change the arguments and call again."
    else:
        move = "Do not repeat this call."
        if fault.alternatives:
            move += " Alternatives are listed in alternatives."
        if fault.unblock_with:
            move += f" {fault.unblock_with} may unblock it."
    return f"{text}\n\n{move}"


def _result_of(value: Any) -> tuple[Any, str]:
    """The tool result in `value` (bare, the `result` of a JSON-RPC response, or the
    result of a completed task, as the tasks extension returns it) and its pointer."""
    at = ""
    if type(value) is dict and "content" not in value and type(value.get("result")) is dict:
        if value.get("jsonrpc") == "2.0" or "id" in value:
            value, at = value["result"], "/result"
    if type(value) is dict and value.get("resultType") == "task" and "content" not in value and type(value.get("result")) is dict:
        value, at = value["result"], f"{at}/result"  # the task's own members (taskId, status, times) are framing
    return value, at


def _copy_of(text: str, structured: Any) -> bool:
    """Whether a text block is the serialized JSON of `structuredContent`."""
    if text[:1] != "{":
        return False
    try:
        return bool(json.loads(text) == structured)
    except (ValueError, RecursionError):
        return False


class Mcp(Dialect):
    """An MCP tool result with `isError: true`."""

    name = "mcp"
    precedence = 30
    listed = 230
    keys = frozenset(("isError", "result"))  # bare, or the `result` of a JSON-RPC response or a task
    media_type = "application/json"
    errors_on_success = True  # a failed tool call is a successful JSON-RPC call

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A result with a `content` list and `isError: true` (bare or as a JSON-RPC `result`)."""
        result, _ = _result_of(value)
        if type(result) is dict and result.get("isError") is True and type(result.get("content")) is list:
            return CERTAIN
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        result, at = _result_of(value)
        if type(result) is not dict or type(result.get("content")) is not list:
            raise DecodeError(f'an MCP tool result is {{"content": [...], "isError": true}}, got {shorten(value)}')
        if result.get("isError") is not True:
            raise DecodeError("an MCP tool result without isError: true is a success, not an error")
        if reading.status is not None and reading.status < 400:
            # The JSON-RPC call succeeded (a 200): the status is the tool error's own.
            reading.notes += (f"HTTP {reading.status} carried an MCP tool error",)
            reading.status = None
        texts, others = [], []
        for block in result["content"]:
            if type(block) is dict and block.get("type") == "text" and type(block.get("text")) is str:
                texts.append(block["text"])
            else:
                others.append(block)
        structured = result.get("structuredContent", _MISSING)
        fields: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        stated: NextStep | None = None
        status: int | None = None
        grpc_name: str | None = None
        if type(structured) is dict:
            slot = read_slot(structured, reading, aliases=True)
            fields, stated, status, grpc_name = slot.fields, slot.stated, slot.status, slot.grpc_name
            extensions.update(slot.rest)
            texts = [t for t in texts if not _copy_of(t, structured)]
        elif structured is not _MISSING and structured is not None:
            extensions["structuredContent"] = structured  # MCP 2026 allows any JSON value: kept whole
        if others:
            extensions.setdefault("content", others)
        for name, item in result.items():
            if name not in _RESULT and not (name == "resultType" and item == "complete"):
                extensions.setdefault(name, item)
        prose = "\n".join(t for t in texts if t) or None
        by_code: tuple[NextStep, str] | None = None
        if status is None and grpc_name is None and "code" not in fields and reading.status is None:
            # Prose only: nothing machine-readable. The words say what they can.
            said = _words(prose) if prose else None
            reading.inferred += ("status", "grpc_code")
            if said is None:
                grpc_name, status = "UNKNOWN", 500
                reading.notes += ("an MCP tool error with nothing machine-readable; no rule matches its text",)
            else:
                grpc_code, status, step, words = said
                grpc_name = Code(grpc_code).name
                reading.notes += (f"an MCP tool error with nothing machine-readable; classified from its text ({words!r})",)
                if stated is None:
                    by_code = (step, f"the tool result's text ({words!r})")
        fields["status"], fields["grpc_code"] = _codes(status, grpc_name, reading)
        reading.keep_extensions(fields, extensions)
        if reading.seen is not None:
            reading.saw("body", at, "mcp")
            if prose:
                reading.saw("text", f"{at}/content", prose)
        gives_text = "detail" in fields or "title" in fields
        if prose is not None and not gives_text and type(structured) is not dict:
            fields["detail"] = prose
        fault = reading.finish(fields, stated, None, by_code)
        if prose is not None and not gives_text and type(structured) is dict and prose != prose_of(fault):
            fault = fault.replace(detail=prose)  # the tool's own words, not errconv's rendering
        return fault

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        blocks = fault.extensions.get("content")
        extra = (
            blocks
            if type(blocks) is list and all(type(b) is dict and type(b.get("type")) is str and b["type"] != "text" for b in blocks)
            else None
        )
        structured = write_slot(fault, keep_debug=writing.keep_debug, skip=frozenset(("content",)) if extra else frozenset())
        content: list[Any] = [
            {"type": "text", "text": prose_of(fault)},
            {"type": "text", "text": write_json(structured).decode()},
        ]
        if extra:
            content.extend(extra)
        return write_json({"content": content, "structuredContent": structured, "isError": True})
