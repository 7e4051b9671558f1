"""`slack`: the Slack Web API's error body. Decode only.

    {"ok": false, "error": "invalid_auth", "warning": "...", "response_metadata": {"messages": ["[ERROR] ..."]}}

`error` is the code. Slack answers most errors with HTTP 200 (only rate limits are a
429 with `Retry-After`, read by the core), so these bodies are errors inside a
success response: the status stays the wire's, and the gRPC code comes from the
code's row below (UNKNOWN for a code not in it), never OK. A bare body has no
status: `ratelimited` is 429, anything else 200, as Slack sends them (marked
inferred). `warning`, `response_metadata`, `needed`/`provided` (missing_scope) and
the rest are kept verbatim; the `messages` prose is not read.

Next step: the code table below (Slack's documented errors that every method may
return), else the status ladder, which for a 200 gives give_up: a code errconv does
not know is not retried blindly.

Detection: a boolean `ok` that is false beside a string `error` (Slack's own OAuth
endpoints answer the same way).
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import Code, NextStep
from ._base import STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import Row, by_code, extensions_of, grpc_code_of, status_of

__all__ = ["Slack", "CODES"]

_WAIT, _FIX, _GIVE_UP = NextStep.WAIT, NextStep.FIX_REQUEST, NextStep.GIVE_UP

# api.slack.com, "Errors every method may return" (and chat.postMessage's rate_limited).
CODES: dict[str, Row] = {
    # Sent as a 429 with Retry-After; a body read without its response is a wait too.
    "ratelimited": (_WAIT, Code.RESOURCE_EXHAUSTED),
    "rate_limited": (_WAIT, Code.RESOURCE_EXHAUSTED),  # chat.postMessage's spelling, at HTTP 200
    "service_unavailable": (_WAIT, Code.UNAVAILABLE),
    # "intermittently unavailable until the transition [to an Enterprise org] is complete".
    "team_added_to_org": (_WAIT, Code.UNAVAILABLE),
    # The request is malformed: change it.
    "invalid_arguments": (_FIX, Code.INVALID_ARGUMENT),
    "invalid_arg_name": (_FIX, Code.INVALID_ARGUMENT),
    "invalid_array_arg": (_FIX, Code.INVALID_ARGUMENT),
    "invalid_charset": (_FIX, Code.INVALID_ARGUMENT),
    "invalid_form_data": (_FIX, Code.INVALID_ARGUMENT),
    "invalid_post_type": (_FIX, Code.INVALID_ARGUMENT),
    "missing_post_type": (_FIX, Code.INVALID_ARGUMENT),
    "invalid_json": (_FIX, Code.INVALID_ARGUMENT),
    "json_not_object": (_FIX, Code.INVALID_ARGUMENT),
    # The token: another call with the same one fails the same way.
    "invalid_auth": (_GIVE_UP, Code.UNAUTHENTICATED),
    "not_authed": (_GIVE_UP, Code.UNAUTHENTICATED),
    "account_inactive": (_GIVE_UP, Code.UNAUTHENTICATED),
    "token_revoked": (_GIVE_UP, Code.UNAUTHENTICATED),
    "token_expired": (_GIVE_UP, Code.UNAUTHENTICATED),
    "missing_scope": (_GIVE_UP, Code.PERMISSION_DENIED),
    "no_permission": (_GIVE_UP, Code.PERMISSION_DENIED),
    "not_allowed_token_type": (_GIVE_UP, Code.PERMISSION_DENIED),
    "access_denied": (_GIVE_UP, Code.PERMISSION_DENIED),
    "ekm_access_denied": (_GIVE_UP, Code.PERMISSION_DENIED),
    "team_access_not_granted": (_GIVE_UP, Code.PERMISSION_DENIED),
    "enterprise_is_restricted": (_GIVE_UP, Code.PERMISSION_DENIED),
    "org_login_required": (_GIVE_UP, Code.PERMISSION_DENIED),
    "two_factor_setup_required": (_GIVE_UP, Code.PERMISSION_DENIED),
    "is_bot": (_GIVE_UP, Code.PERMISSION_DENIED),
    "method_deprecated": (_GIVE_UP, Code.UNIMPLEMENTED),
    "deprecated_endpoint": (_GIVE_UP, Code.UNIMPLEMENTED),
    # "It's possible some aspect of the operation succeeded before the error was raised":
    # a blind retry may do it twice, even where Slack calls the cause transient.
    "fatal_error": (_GIVE_UP, Code.INTERNAL),
    "internal_error": (_GIVE_UP, Code.INTERNAL),
}
_READ = frozenset(("ok", "error"))
_RATE_LIMITED = frozenset(("ratelimited",))


class Slack(Dialect):
    """The Slack Web API's `{"ok": false, "error": ...}` (decode only)."""

    name = "slack"
    precedence = 130
    listed = 100
    keys = frozenset(("ok",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False
    errors_on_success = True

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`"ok": false` beside a string `error`, at any status."""
        if type(value) is dict and value.get("ok") is False and type(value.get("error")) is str:
            return STRONG
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict or value.get("ok") is not False:
            raise DecodeError(f"a slack error is {{\"ok\": false, \"error\": ...}}, got {shorten(value)}")
        fields: dict[str, Any] = {}
        error = value.get("error")
        code = error if type(error) is str and error else None
        read = _READ if code is not None else frozenset(("ok",))
        if code is not None:
            fields["code"] = code
        row = CODES.get(code) if code is not None else None
        if reading.seen is not None:
            reading.saw("body", "", "slack")
        fields["status"] = status = status_of(reading, None, 429 if code in _RATE_LIMITED else 200, 200, "slack")
        fields["grpc_code"] = grpc_code_of(status, reading, row)
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, by_code=by_code(CODES, code, "slack"))
