"""What a model reads when a tool call fails, and the sentence a tool description carries.

`agent_message(fault)` writes the move (fix_request / wait / give_up) and only what the
fault holds: the code and status, a short cut of its detail, the parameter and its
violations, the delay, the alternatives or the tool that unblocks the call. Every piece
of text taken from the fault is redacted first (URL query strings and user info,
Authorization-like headers, `password=`/`api_key=`-like pairs, bearer tokens and the
key formats of the common vendors), because the text goes into a model's context, and
from there into logs and transcripts.

`TOOL_CONTRACT` is seed 000's sentence for a tool's description: the semantics are in
the model's context before the first failure, not only after it.
"""

from __future__ import annotations

import json
import re

from ._model.fault import Fault
from ._redact import redact, scrub, scrub_fault
from .codes import NextStep, infer_next_step

__all__ = ["TOOL_CONTRACT", "agent_message", "redact", "scrub", "scrub_fault", "with_contract"]

TOOL_CONTRACT = (
    "When this tool fails, its error states next_step: fix_request means change the arguments "
    "(param names the one at fault) and call again; wait means wait retry_after_seconds, then the "
    "identical call may be repeated; give_up means the call will not succeed on repetition: do not "
    "repeat it, use the alternatives or the unblock_with tool it names, or report to the user."
)

# The whole message stays at a few hundred characters, so that a failure does not crowd
# out the task. The move is written first and never cut; the head (code, status, the
# detail) gets what is left. Each piece is capped so that the longest move (a give_up
# with three alternatives and an unblocking tool, a fix_request with three violations)
# stays near 500 characters and the code and status always fit before it.
_MESSAGE_MAX = 600
_DETAIL_MAX = 200
_NAME_MAX = 48  # a code, a parameter, a field, a tool name
_ITEM_MAX = 60  # a violation's description, one alternative
_VIOLATIONS_MAX = 3
_REDACTED = "[redacted]"

# The redaction engine is errconv._redact; redact, scrub and scrub_fault are kept
# importable from here, where the rest of errconv and its users import them.


def _piece(value: object, limit: int = _ITEM_MAX) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str)
        except Exception:  # a value no JSON writer takes (a cycle): name its kind only
            text = type(value).__name__
    return redact(text, limit)


def agent_message(fault: Fault) -> str:
    """The text a model reads for a failed tool call: the move, and only what the fault
    holds, with credentials redacted; a few hundred characters at most.

    - fix_request names the parameter and its violations;
    - wait states the seconds, and that the identical call may then be repeated;
    - give_up says not to repeat the call, and gives the alternatives or the tool
      that unblocks it (it never says to try again).

    >>> import errconv
    >>> fault = errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30)
    >>> errconv.agent_message(fault)
    'The tool call failed: rate_limited (HTTP 429). next_step: wait. Wait 30 seconds, then the identical call may be repeated.'
    """
    fault = scrub_fault(fault)  # a secret split across pieces (a violation's field and description)
    step = fault.next_step
    if step is None:  # a fault made by hand without one: errconv's own ladder decides
        step, _ = infer_next_step(fault.grpc_code, fault.status, param=fault.param)
        if step == NextStep.FIX_REQUEST and not fault.param:
            step = NextStep.GIVE_UP
    if step == NextStep.FIX_REQUEST:
        move = _fix(fault)
    elif step == NextStep.WAIT:
        move = _wait(fault)
    else:
        move = _give_up(fault)
    head = _head(fault, _MESSAGE_MAX - len(move) - 1, give_up=step == NextStep.GIVE_UP)
    return f"{head} {move}"


def _head(fault: Fault, budget: int, *, give_up: bool) -> str:
    # A fault made from a timeout or a bare exception has a status errconv chose, not
    # one a server sent: it is left out, so the model is not told of a response that
    # never came.
    synthetic = fault.origin is not None and fault.origin.dialect == "exception"
    status = None if synthetic else f"HTTP {fault.status}"
    code = _piece(fault.code, _NAME_MAX) if fault.code else None
    if give_up and code:
        # A service may put prose in its code slot (Slack's `error`, a vague body's
        # text): on a give_up, a sentence in it that says to retry goes too.
        code = _without_retry_talk(code) or None
    prose = fault.detail or fault.title
    said = _piece(prose, _DETAIL_MAX).rstrip(".") if prose else ""
    if give_up:
        said = _without_retry_talk(said)
    if synthetic and not code and said:
        return f"The tool call failed: {said}."[:budget]  # the exception's class name
    if code and status:
        head = f"The tool call failed: {code} ({status})."
    elif code or status:
        head = f"The tool call failed: {code or status}."
    else:
        head = "The tool call failed."
    room = budget - len(head) - 2
    if said and said != code and room > 8:
        if len(said) > room:
            said = said[: room - 1].rstrip() + "…"
        head += f" {said}."
    return head


def _fix(fault: Fault) -> str:
    param = _piece(fault.param, _NAME_MAX) if fault.param else None
    text = "next_step: fix_request."
    text += f" Change the argument `{param}`" if param else " Change the arguments"
    problems = []
    for v in fault.violations[:_VIOLATIONS_MAX]:
        field = _piece(v.field, _NAME_MAX)
        said = _piece(v.description or v.reason or "", _ITEM_MAX)
        problems.append(f"`{field}`: {said}" if said else f"`{field}`")
    if problems:
        more = len(fault.violations) - len(problems)
        text += " (" + "; ".join(problems) + (f"; and {more} more" if more > 0 else "") + ")"
    return text + ", then call again with the corrected arguments."


def _wait(fault: Fault) -> str:
    seconds = fault.retry_after_seconds
    if seconds is None:
        return (
            "next_step: wait. No delay was stated: wait a while (back off, longer each time), "
            "then the identical call may be repeated."
        )
    unit = "second" if seconds == 1 else "seconds"
    return f"next_step: wait. Wait {seconds} {unit}, then the identical call may be repeated."


# A server's prose may say "please try again" whatever its error means: on a give_up
# that sentence contradicts the move, so it is left out.
_RETRY_TALK = re.compile(r"(?i)\btry\b[^.!?]{0,30}\bagain\b|\bretr(?:y|ies|ied|ying|yable)\b|\btry (?:back|later)\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _without_retry_talk(text: str) -> str:
    return " ".join(s for s in _SENTENCE.split(text) if not _RETRY_TALK.search(s))


def _give_up(fault: Fault) -> str:
    text = "next_step: give_up. Do not repeat this call: it will not succeed on repetition."
    if fault.unblock_with:
        blocked = f" by {_piece(fault.blocked_by, _NAME_MAX)}" if fault.blocked_by else ""
        text += f" It is blocked{blocked}; the tool `{_piece(fault.unblock_with, _NAME_MAX)}` can change that."
    if fault.alternatives:
        alts = "; ".join(_piece(a) for a in fault.alternatives[:3])
        more = " (there are more)" if fault.alternatives_truncated else ""
        text += f" Alternatives{more}: {alts}."
    if not fault.unblock_with and not fault.alternatives:
        text += " Report the failure to the user."
    else:
        text += " Otherwise report the failure to the user."
    return text


def with_contract(description: str | None) -> str:
    """A tool description with `TOOL_CONTRACT` appended (once: appending twice changes nothing).

    >>> import errconv
    >>> text = errconv.with_contract("Transfer funds between accounts.")
    >>> text == errconv.with_contract(text) and text.endswith(errconv.TOOL_CONTRACT)
    True
    """
    description = (description or "").rstrip()
    if TOOL_CONTRACT in description:
        return description
    return f"{description}\n\n{TOOL_CONTRACT}" if description else TOOL_CONTRACT
