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

import enum
import json
import re
from typing import Any

import msgspec

from ._model.fault import Fault
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

# Names whose value is a credential, in a header, a query string, JSON or prose, found
# anywhere in a name (`x-api-key`, `client_secret`): a few harmless values are redacted
# too (`design=`), and no leading run has to be matched first, which on hostile text
# would be quadratic. Every repetition below is bounded for the same reason.
_SECRET_NAME = (
    r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|credential|authorization|auth|cookie|session[_-]?id|signature|sig)[A-Za-z0-9_-]{0,32}"
)


_SECRET_KEY = re.compile(r"(?i)" + _SECRET_NAME)


def _url(match: re.Match[str]) -> str:
    url = match.group(0)
    scheme, _, rest = url.partition("://")
    # The query always goes; a fragment only when it holds pairs (OAuth's implicit flow
    # puts `#access_token=...` there), not a page anchor (`#create-a-label`).
    rest, hash_, fragment = rest.partition("#")
    rest, query, _ = rest.partition("?")
    tail = ("?" + _REDACTED if query else "") + (("#" + (_REDACTED if "=" in fragment else fragment)) if hash_ else "")
    authority, slash, path = rest.partition("/")
    if "@" in authority:
        authority = _REDACTED + "@" + authority.rpartition("@")[2]
    return f"{scheme}://{authority}{slash}{path}{tail}"


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


_PIECES = re.compile(r"[_/-]")


def _key_like(match: re.Match[str]) -> str:
    run = match.group(0)
    if _UUID.fullmatch(run):
        return run  # an identifier (a request, an organisation), not a key
    if not (any(c.isdigit() for c in run) and any(c.isalpha() for c in run)):
        return run  # words joined up (max_coordinating_and_primary_bytes)
    if all(len(piece) < 16 for piece in _PIECES.split(run)):
        return run  # a path or a name made of short parts (/api/v1/accounts/AC123/calls/CA456)
    return _REDACTED


_PATTERNS: tuple[tuple[re.Pattern[str], Any], ...] = (
    # A URL's user info, query string and fragment.
    (re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,31}://[^\s\"'<>]{1,4096}"), _url),
    # An Authorization-like header or a name=value pair whose name says credential:
    # `Authorization: Bearer x`, `'X-Api-Key': 'x'`, `"password": "x"`, `token=x`.
    (
        re.compile(
            r"(?i)(" + _SECRET_NAME + r"[\"']?[ \t]{0,8}[:=][ \t]{0,8})"
            # A value already redacted is left as it is: scrub runs on text scrubbed once
            # (a fault from_exception scrubbed, then agent_message), and "[redacted" would
            # match the bare value form, leaving "[redacted]]".
            r"(?:(?:bearer|basic|digest|token|dpop|negotiate)\s{1,8})?(?!\[redacted\])(\"[^\"]{0,512}\"?|'[^']{0,512}'?|[^\s,;&\"'}\])]+)"
        ),
        r"\1" + _REDACTED,
    ),
    # A bearer or basic credential standing alone in prose.
    (re.compile(r"(?i)\b(bearer|basic)\s{1,8}[A-Za-z0-9._~+/=-]{6,}"), r"\1 " + _REDACTED),
    # "token X", "key X", "password X" in prose, when X looks like a credential (it has
    # a digit, or is long) rather than a word ("token is not allowed").
    (
        re.compile(
            r"(?i)\b((?:access |api |secret |session |bearer )?(?:token|key|password|passwd|secret|credential)s?:?\s{1,8})"
            r"(?:is\s{1,8}|was\s{1,8})?(['\"]?)(?=[A-Za-z0-9._~+/=*-]{0,64}[0-9]|[A-Za-z0-9._~+/=*-]{16})[A-Za-z0-9._~+/=*-]{4,}\2"
        ),
        r"\1" + _REDACTED,
    ),
    # Vendor key formats: OpenAI/Anthropic sk-, Stripe sk_/rk_/pk_, GitHub, Slack, AWS,
    # Google API keys, GitLab, JWTs.
    (
        re.compile(
            r"\b(?:sk-[A-Za-z0-9_*.-]{6,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9*]{4,}|gh[pousr]_[A-Za-z0-9]{8,}|"
            r"github_pat_[A-Za-z0-9_]{8,}|xox[abposr]-[A-Za-z0-9-]{8,}|(?:AKIA|ASIA)[0-9A-Z]{16}|"
            r"AIza[0-9A-Za-z_-]{20,}|glpat-[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)"
        ),
        _REDACTED,
    ),
    # Any other long run of key-like characters, letters and digits mixed, with a long
    # unbroken part: a key in a format not listed above (base64, hex). A 32-digit hex
    # request id goes too, which costs the model nothing.
    (re.compile(r"[A-Za-z0-9_+/-]{32,}={0,2}"), _key_like),
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def scrub(text: str) -> str:
    """`text` with credentials replaced by `[redacted]`, and nothing else changed."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


# How deep scrub_fault goes into extension members and alternatives (Limits.max_depth).
_SCRUB_DEPTH = 32


def _scrubbed(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if depth >= _SCRUB_DEPTH:
        return value
    if isinstance(value, msgspec.Struct):
        changes = {}
        for name in value.__struct_fields__:
            old = getattr(value, name)
            new = _scrubbed(old, depth + 1)
            if new is not old:
                changes[name] = new
        return msgspec.structs.replace(value, **changes) if changes else value
    if isinstance(value, tuple):
        items = tuple(_scrubbed(v, depth + 1) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, list):
        out = [_scrubbed(v, depth + 1) for v in value]
        return value if all(a is b for a, b in zip(out, value)) else out
    if isinstance(value, dict):
        # A member named like a credential ({"password": "x"}) has its whole value redacted.
        pairs = {
            k: _REDACTED if isinstance(k, str) and isinstance(v, str) and v and _SECRET_KEY.search(k) else _scrubbed(v, depth + 1)
            for k, v in value.items()
        }
        return value if all(pairs[k] is v for k, v in value.items()) else pairs
    return value


def scrub_fault(fault: Fault) -> Fault:
    """`fault` with credentials redacted from every text it holds (title, detail, URIs,
    violations, metadata, alternatives, extensions, the typed details): the same fault,
    when there were none. `origin` is left as it is (it holds errconv's own notes)."""
    changes = {}
    for name in fault.__struct_fields__:
        if name == "origin":
            continue
        old = getattr(fault, name)
        new = old if isinstance(old, (int, enum.Enum)) or old is None else _scrubbed(old, 0)
        if new is not old and new != old:
            changes[name] = new
    return fault.replace(**changes) if changes else fault


def redact(text: str, limit: int | None = None) -> str:
    """`text` with credentials replaced by `[redacted]`, control characters by spaces,
    and cut to `limit` characters (with an ellipsis) when given."""
    # Cut long input before the patterns run, so hostile text costs bounded work;
    # a secret split by the cut is redacted by the patterns that follow or lost in it.
    bound = 4 * (limit or _MESSAGE_MAX)
    text = " ".join(scrub(_CONTROL.sub(" ", text[:bound])).split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


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
