"""`oauth`: OAuth 2.0 error responses (RFC 6749 section 5.2, RFC 6750, RFC 8628). Decode only.

    {"error": "invalid_grant", "error_description": "...", "error_uri": "https://..."}
    error=slow_down&error_description=...&interval=22          (GitHub's device flow, form-encoded, HTTP 200)

`error` is the code, `error_description` the detail, `error_uri` the page about the
error (its `type`). A form-encoded body (`application/x-www-form-urlencoded`, as
GitHub's token endpoint answers unless asked for JSON) is read as the object of its
fields. GitHub answers device-flow errors with HTTP 200: a failure inside a success
response, whose gRPC code is the code's row below (never OK).

Next step: the code table below, which knows what the status cannot (RFC 8628's
`authorization_pending` and `slow_down` are waits sent as 400 or 200; a grant that is
invalid, expired or declined needs the user again, not a corrected request). The
delay: a `slow_down` (or any wait) whose body gives `interval` waits that long, the
new polling interval GitHub sends already increased by RFC 8628's 5 s (cli/oauth uses
it as given); without it the client adds 5 s to an interval this response does not
state, so no delay is known. A bare body has no status: the code's own (RFC 6749:
400, `invalid_client` 401; RFC 6750: `invalid_token` 401, `insufficient_scope` 403;
`server_error` 500, `temporarily_unavailable` 503), else 400, marked inferred.

A 401 with no code in its body but a `WWW-Authenticate: Bearer error="invalid_token"`
challenge is read by the HTTP layer (any body dialect): the challenge's `error` is the
code there.

Detection: a string `error` in OAuth's snake_case, and no `ok` member (that is
Slack's): a registered code (the table), or any code beside `error_description` or
`error_uri`. Inside a 2xx only a registered code is one. Decode only: a body errconv
wrote would need `error` to be a registered code for a client to act on it, and
errconv's codes are not.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from .._model.limits import MAX_RETRY_AFTER_SECONDS
from ..codes import Code, NextStep
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import Row, by_code, extensions_of, grpc_code_of, status_of

__all__ = ["OAuth", "CODES"]

_WAIT, _FIX, _GIVE_UP = NextStep.WAIT, NextStep.FIX_REQUEST, NextStep.GIVE_UP

# code: (next step, gRPC code, HTTP status a bare body implies).
CODES: dict[str, tuple[NextStep, int, int]] = {
    # RFC 6749 5.2, the token endpoint.
    "invalid_request": (_FIX, Code.INVALID_ARGUMENT, 400),
    "invalid_client": (_GIVE_UP, Code.UNAUTHENTICATED, 401),  # the client's credentials: configuration, not arguments
    "invalid_grant": (_GIVE_UP, Code.UNAUTHENTICATED, 400),  # invalid, expired or revoked: the user must authorize again
    "unauthorized_client": (_GIVE_UP, Code.PERMISSION_DENIED, 400),
    "unsupported_grant_type": (_FIX, Code.INVALID_ARGUMENT, 400),
    "invalid_scope": (_FIX, Code.INVALID_ARGUMENT, 400),
    # RFC 6749 4.1.2.1, the authorization endpoint (also sent by token endpoints).
    "access_denied": (_GIVE_UP, Code.PERMISSION_DENIED, 400),  # the user said no (RFC 8628 too)
    "unsupported_response_type": (_FIX, Code.INVALID_ARGUMENT, 400),
    "server_error": (_GIVE_UP, Code.INTERNAL, 500),
    "temporarily_unavailable": (_WAIT, Code.UNAVAILABLE, 503),
    # RFC 6750 3.1, bearer tokens at a resource server.
    "invalid_token": (_GIVE_UP, Code.UNAUTHENTICATED, 401),  # a new token is needed, not the same call again
    "insufficient_scope": (_GIVE_UP, Code.PERMISSION_DENIED, 403),
    # RFC 8628 3.5, the device flow: a 400 that means "ask again later".
    "authorization_pending": (_WAIT, Code.UNAVAILABLE, 400),
    "slow_down": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),
    "expired_token": (_GIVE_UP, Code.FAILED_PRECONDITION, 400),  # the device code expired: start the flow again
    # The device flow as Microsoft's identity platform (and OpenAM) and GitHub word it.
    "authorization_declined": (_GIVE_UP, Code.PERMISSION_DENIED, 400),  # RFC 8628's access_denied
    "bad_verification_code": (_FIX, Code.INVALID_ARGUMENT, 400),
    "incorrect_device_code": (_FIX, Code.INVALID_ARGUMENT, 400),
    "incorrect_client_credentials": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "device_flow_disabled": (_GIVE_UP, Code.FAILED_PRECONDITION, 400),
    # Further registered codes (IANA "OAuth Extensions Error Registry", OpenID Connect).
    "unsupported_token_type": (_FIX, Code.INVALID_ARGUMENT, 400),  # RFC 7009
    "invalid_target": (_FIX, Code.INVALID_ARGUMENT, 400),  # RFC 8707
    "invalid_redirect_uri": (_FIX, Code.INVALID_ARGUMENT, 400),  # RFC 7591
    "invalid_client_metadata": (_FIX, Code.INVALID_ARGUMENT, 400),
    "invalid_software_statement": (_FIX, Code.INVALID_ARGUMENT, 400),
    "unapproved_software_statement": (_GIVE_UP, Code.PERMISSION_DENIED, 400),
    "invalid_dpop_proof": (_FIX, Code.INVALID_ARGUMENT, 400),  # RFC 9449
    "use_dpop_nonce": (_FIX, Code.FAILED_PRECONDITION, 400),  # send the DPoP-Nonce the server gave
    "insufficient_user_authentication": (_GIVE_UP, Code.UNAUTHENTICATED, 401),  # RFC 9470
    "interaction_required": (_GIVE_UP, Code.UNAUTHENTICATED, 400),  # OpenID Connect: the user must act
    "login_required": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "account_selection_required": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "consent_required": (_GIVE_UP, Code.PERMISSION_DENIED, 400),
    "invalid_request_uri": (_FIX, Code.INVALID_ARGUMENT, 400),
    "invalid_request_object": (_FIX, Code.INVALID_ARGUMENT, 400),
    "request_not_supported": (_FIX, Code.INVALID_ARGUMENT, 400),
    "request_uri_not_supported": (_FIX, Code.INVALID_ARGUMENT, 400),
    "registration_not_supported": (_FIX, Code.INVALID_ARGUMENT, 400),
}
_ROWS: dict[str, Row] = {code: (step, grpc) for code, (step, grpc, _) in CODES.items()}
# OAuth's members, and those token endpoints commonly add (Microsoft's error_codes,
# trace_id, ...; Ory's error_hint, error_debug, status_code).
_MEMBERS = frozenset(
    ("error", "error_description", "error_uri", "state", "interval", "error_codes", "timestamp", "trace_id",
     "correlation_id", "error_hint", "error_debug", "error_verbose", "status_code", "request_id")
)  # fmt: skip
_CODE_SHAPE = re.compile(r"[a-z][a-z0-9_]{1,63}")
_READ = ("error", "error_description", "error_uri")


def _interval(value: Any) -> int | None:
    """A polling interval in whole seconds (a number, or digits in a form body)."""
    if type(value) is str and value.isdigit() and value.isascii() and len(value) <= 9:
        value = int(value)
    if type(value) is int and 0 < value:
        return min(value, MAX_RETRY_AFTER_SECONDS)
    return None


class OAuth(Dialect):
    """OAuth 2.0 error responses (decode only)."""

    name = "oauth"
    precedence = 140
    listed = 110
    keys = frozenset(("error",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False
    errors_on_success = True  # GitHub's token endpoint answers the device flow's errors with 200

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A snake_case `error` code, registered or beside `error_description`/`error_uri`."""
        if type(value) is not dict or "ok" in value or "access_token" in value:
            return 0.0
        error = value.get("error")
        if type(error) is not str or not _CODE_SHAPE.fullmatch(error):
            return 0.0
        registered = error in CODES
        if http is not None and http.status is not None and http.status < 400 and not registered:
            return 0.0
        described = type(value.get("error_description")) is str or type(value.get("error_uri")) is str
        if registered:
            return STRONG if value.keys() <= _MEMBERS else LIKELY
        return STRONG if described and value.keys() <= _MEMBERS else LIKELY if described else 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"an oauth error is {{\"error\": \"<code>\", ...}}, got {shorten(value)}")
        fields: dict[str, Any] = {}
        read: set[str] = set()
        error, description, uri = (value.get(name) for name in _READ)
        code = error if type(error) is str and error else None
        if code is not None:
            fields["code"] = code
            read.add("error")
        if type(description) is str:
            fields["detail"] = description
            read.add("error_description")
        if type(uri) is str:
            fields["type"] = uri
            read.add("error_uri")
        found = CODES.get(code) if code is not None else None
        step = by_code(_ROWS, code, "oauth")
        body_wait = None
        if step is not None and step[0] is _WAIT:
            interval = _interval(value.get("interval"))
            if interval is not None:
                fields["retry_after_seconds"] = interval
                body_wait = "OAuth interval"
                read.add("interval")
        if reading.seen is not None:
            reading.saw("body", "", "oauth")
            if "detail" in fields:
                reading.saw("text", "/error_description", description)
            if body_wait is not None:
                reading.saw("delay:interval", "/interval", value["interval"])
        fields["status"] = status = status_of(reading, None, found[2] if found else 400, 400, "oauth")
        fields["grpc_code"] = grpc_code_of(status, reading, _ROWS.get(code) if code is not None else None)
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, body_wait=body_wait, by_code=step)
