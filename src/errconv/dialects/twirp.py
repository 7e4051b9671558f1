"""`twirp`: Twirp's error body (twitchtv/twirp, PROTOCOL.md "Errors", errors.go).

    {"code": "permission_denied", "msg": "Thou shall not pass", "meta": {"target": "Balrog"}}

Always JSON (`Content-Type: application/json`), `code` one of Twirp's fixed set (the
gRPC codes in snake case, plus `malformed` and `bad_route`), `msg` always written,
`meta` a map of strings, omitted when empty. Each code has the HTTP status a server
must send (errors.go ServerHTTPStatusFromErrorCode, `HTTP_FOR_WORD` below).

Reading `meta`: `argument` is the parameter at fault (twirp.InvalidArgumentError sets
it); `retry_after` a delay (a Go duration, "15s", or seconds) and `retryable` "true" a
wait, "false" a do-not-retry, as Twirp's own docs use them; errconv's fields, as it
writes them (`code` for a code of the service's own, `domain`, `next_step`,
`blocked_by`, `unblock_with`); the rest is the fault's metadata. `status_code` (what a
Twirp client records for a non-Twirp response, and what errconv writes for a bare body
whose status is not its code's) gives a bare body its status. Liberal: the Go serializer's fallback `{"type": "internal", "msg": ...}` (a
bug of its own) is read; a meta value that is not a string and unknown top-level
members are kept as extensions.

Writing: the Twirp code (the fault's own code when it is one of Twirp's of the same
gRPC code, else the gRPC code's), `msg`, and in `meta` the fault's metadata and
errconv's agent fields, all as strings (`retry_after` as "<seconds>s"; outside HTTP,
`status_code` when the status is not the code's). Twirp has no
home for details, violations, alternatives, extensions, title or type: `losses()`
names them.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from .._model.limits import MAX_RETRY_AFTER_SECONDS
from ..codes import Code, code_for_http
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import STEP_ALIASES, Reading, Writing, capped_delay, write_json

__all__ = ["CODE_FOR_WORD", "HTTP_FOR_WORD", "Twirp"]

# Twirp's codes (PROTOCOL.md "Error Codes"), each with the google.rpc.Code it stands for
# and the HTTP status a Twirp server must send with it (errors.go ServerHTTPStatusFromErrorCode).
_TABLE: dict[str, tuple[int, int]] = {
    "canceled": (Code.CANCELLED, 408),  # Twirp keeps 408 (Connect moved to 499)
    "unknown": (Code.UNKNOWN, 500),
    "invalid_argument": (Code.INVALID_ARGUMENT, 400),
    "malformed": (Code.INVALID_ARGUMENT, 400),  # the request could not be decoded: fix it, as an invalid argument
    "deadline_exceeded": (Code.DEADLINE_EXCEEDED, 408),
    "not_found": (Code.NOT_FOUND, 404),
    "bad_route": (Code.UNIMPLEMENTED, 404),  # no such service or method here: not a missing entity
    "already_exists": (Code.ALREADY_EXISTS, 409),
    "permission_denied": (Code.PERMISSION_DENIED, 403),
    "unauthenticated": (Code.UNAUTHENTICATED, 401),
    "resource_exhausted": (Code.RESOURCE_EXHAUSTED, 429),  # 403 in Twirp v5, also accepted
    "failed_precondition": (Code.FAILED_PRECONDITION, 412),  # where code.proto says 400
    "aborted": (Code.ABORTED, 409),
    "out_of_range": (Code.OUT_OF_RANGE, 400),
    "unimplemented": (Code.UNIMPLEMENTED, 501),
    "internal": (Code.INTERNAL, 500),
    "unavailable": (Code.UNAVAILABLE, 503),
    "data_loss": (Code.DATA_LOSS, 500),  # the v5-v7 spec tables print "dataloss"; errors.go sends data_loss
}
CODE_FOR_WORD: dict[str, int] = {word: int(grpc) for word, (grpc, _) in _TABLE.items()}
HTTP_FOR_WORD: dict[str, int] = {word: status for word, (_, status) in _TABLE.items()}
_ALIASES = {"dataloss": "data_loss"}  # as the spec's tables print it
_OLD_STATUS = {"resource_exhausted": 403}  # Twirp v5 (spec_v5.md); v7 sends 429
# The Twirp code errconv writes for a gRPC code: its own name, but CANCELLED's one l.
_WORD_FOR_CODE: dict[int, str] = {
    int(grpc): word for word, (grpc, _) in _TABLE.items() if word not in ("malformed", "bad_route")
}

_KEYS = frozenset(("code", "msg", "meta"))
# meta keys errconv reads for a field (and writes): the rest is the fault's metadata.
_FIELD_KEYS = (("code", "code"), ("domain", "domain"), ("argument", "param"), ("blocked_by", "blocked_by"), ("unblock_with", "unblock_with"))
_READ_KEYS = frozenset(("code", "domain", "argument", "blocked_by", "unblock_with", "next_step", "retry_after", "status_code"))
_DURATION_PART = re.compile(r"([0-9]{1,12}(?:\.[0-9]{1,9})?)(h|ms|m|s|us|µs|ns)")
_DURATION = re.compile(r"(?:[0-9]{1,12}(?:\.[0-9]{1,9})?(?:h|ms|m|s|us|µs|ns)){1,6}")
_SECONDS = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_STATUS_TEXT = re.compile(r"[1-5][0-9][0-9]")


def _word_of(value: dict[str, Any]) -> tuple[str | None, str | None]:
    """The Twirp code a body states, and the member it is in (`type` for the Go
    serializer's fallback body)."""
    code = value.get("code")
    if type(code) is str:
        return code, "code"
    kind = value.get("type")
    if code is None and type(kind) is str and (kind in _TABLE or kind in _ALIASES):
        return kind, "type"
    return None, None


def delay_seconds(text: str) -> int | None:
    """Whole seconds (rounded up, capped) in a Twirp `retry_after`: a Go duration ("15s",
    "1m30s", "1.5s") or plain seconds; None for anything else."""
    text = text.strip()
    if _SECONDS.fullmatch(text):
        seconds = float(text)
    elif _DURATION.fullmatch(text):
        seconds = sum(float(n) * _UNIT[u] for n, u in _DURATION_PART.findall(text))
    else:
        return None
    return max(0, min(math.ceil(seconds), MAX_RETRY_AFTER_SECONDS))


class Twirp(Dialect):
    """Twirp's `{"code", "msg", "meta"}` error."""

    name = "twirp"
    precedence = 150
    listed = 250
    media_type = "application/json"
    reserved = _KEYS
    keys = frozenset(("msg",))  # every Twirp error it recognises has one (Dialect.keys, where the registry has it)
    ceiling = STRONG

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A Twirp code with a string `msg`, no member Twirp does not define, and `meta` (if
        any) an object; STRONG when its values are all strings."""
        if type(value) is not dict or type(value.get("msg")) is not str:
            return 0.0
        word, member = _word_of(value)
        if word not in _TABLE and word not in _ALIASES:
            return 0.0
        if member == "type":
            return LIKELY if value.keys() <= {"type", "msg", "meta"} else 0.0
        if not value.keys() <= _KEYS:
            return 0.0
        if http is not None and http.status is not None and http.status < 400:
            return 0.0  # Twirp sends an error only with its code's (error) status
        meta = value.get("meta")
        if meta is None:
            return LIKELY
        if type(meta) is not dict:
            return 0.0
        return STRONG if all(type(v) is str for v in meta.values()) else LIKELY

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a Twirp error is a JSON object, got {shorten(value)}")
        word, member = _word_of(value)
        extensions: dict[str, Any] = {}
        for key, item in value.items():
            if key not in _KEYS and key != member:
                extensions[key] = item
        if member is None and value.get("code") is not None:
            extensions["code"] = value["code"]  # a code of the wrong type, kept for no meaning
        if word is not None:
            word = _ALIASES.get(word, word)
        msg = value.get("msg")
        if msg is not None and type(msg) is not str:
            extensions["msg"] = msg
        fields: dict[str, Any] = {}
        if type(msg) is str and msg:
            fields["detail"] = msg

        meta = value.get("meta")
        strings: dict[str, str] = {}
        if type(meta) is dict:
            odd = {k: v for k, v in meta.items() if type(v) is not str}
            if odd:
                extensions["meta"] = odd  # Twirp's meta holds strings only: the rest is kept as it came
            strings = {k: v for k, v in meta.items() if type(v) is str}
        elif meta is not None:
            extensions["meta"] = meta

        stated = None
        for key, target in _FIELD_KEYS:
            if strings.get(key):
                fields[target] = strings[key]
        step = strings.get("next_step")
        if step is not None and step in STEP_ALIASES:
            stated = STEP_ALIASES[step]
        body_wait = None
        retry_after = strings.get("retry_after")
        if retry_after is not None:
            seconds = delay_seconds(retry_after)
            if seconds is None:
                reading.notes += (f"unreadable Twirp meta retry_after {shorten(retry_after)} ignored",)
            else:
                fields["retry_after_seconds"] = seconds
                body_wait = "Twirp meta retry_after"
        retryable = strings.get("retryable")
        if retryable == "true":
            body_wait = body_wait or "Twirp meta retryable"
        elif retryable == "false":
            reading.no_retry = reading.no_retry or "Twirp meta retryable: false"
        if step is not None and stated is None:
            # Dropped, as from ErrorInfo.metadata: the encoder writes the fault's own step there.
            reading.notes += (f"unknown next_step {shorten(step)} in Twirp meta ignored",)
        metadata = {k: v for k, v in strings.items() if k not in _READ_KEYS}
        if metadata:
            fields["metadata"] = metadata

        known = CODE_FOR_WORD.get(word) if word is not None else None
        if known is not None:
            fields["grpc_code"] = known
            if "code" not in fields:
                fields["code"] = word
                reading.inferred += ("code",)  # Twirp's protocol code: lint still asks for one of the service's own
        elif word:
            fields.setdefault("code", word)  # a code outside Twirp's set: the service's, as it spells it
        self._status(fields, word, strings, reading)
        reading.keep_extensions(fields, extensions)
        if reading.seen is not None:
            reading.saw("body", "", "twirp")
            if type(msg) is str and msg:
                reading.saw("text", "/msg", msg)
            if stated is not None:
                reading.saw("next_step", "/meta/next_step", step)
            if "retry_after_seconds" in fields:
                reading.saw("delay:retry_after", "/meta/retry_after", retry_after)
        return reading.finish(fields, stated, body_wait)

    @staticmethod
    def _status(fields: dict[str, Any], word: str | None, meta: dict[str, str], reading: Reading) -> None:
        """The status (the response's, else the code's by Twirp's table, else the one a Twirp
        client recorded for an intermediary's response) and, without a Twirp code, the gRPC
        code from it."""
        table = HTTP_FOR_WORD.get(word) if word is not None else None
        http = reading.status
        if http is not None:
            if table is not None and http != table and http != _OLD_STATUS.get(word):  # type: ignore[arg-type]
                reading.notes += (f"HTTP status {http} is not the one Twirp sends for {word} ({table}); HTTP wins",)
            status = http
        elif _STATUS_TEXT.fullmatch(meta.get("status_code", "")):
            # The status of the response the error came in: what a Twirp client records for
            # an intermediary's response, and what errconv writes for a bare body whose
            # status is not its code's.
            status = int(meta["status_code"])
        elif table is not None:
            status = table
            reading.inferred += ("status",)
        else:
            status = 500
            reading.inferred += ("status",)
        fields["status"] = status
        if "grpc_code" not in fields:
            fields["grpc_code"] = code_for_http(status)
            reading.inferred += ("grpc_code",)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        word = fault.code if fault.code in CODE_FOR_WORD and CODE_FOR_WORD[fault.code] == fault.grpc_code else None
        if word is None:
            word = _WORD_FOR_CODE.get(fault.grpc_code, "unknown")  # OK has no Twirp code: an error is at least unknown
        meta: dict[str, str] = dict(fault.metadata)
        if fault.code is not None and fault.code != word:
            meta["code"] = fault.code
        if fault.domain is not None:
            meta["domain"] = fault.domain
        if fault.param is not None:
            meta["argument"] = fault.param
        if fault.next_step is not None:
            meta["next_step"] = str(fault.next_step)
        if fault.retry_after_seconds is not None:
            meta["retry_after"] = f"{capped_delay(fault.retry_after_seconds)}s"  # a Go duration, as Twirp's docs write it
        if fault.blocked_by is not None:
            meta["blocked_by"] = fault.blocked_by
        if fault.unblock_with is not None:
            meta["unblock_with"] = fault.unblock_with
        if not writing.in_http and fault.status != HTTP_FOR_WORD[word]:
            meta["status_code"] = str(fault.status)  # a bare body's status, where the code's is not it
        out: dict[str, Any] = {"code": word, "msg": fault.detail or fault.title or ""}
        if meta:
            out["meta"] = meta
        return write_json(out)
