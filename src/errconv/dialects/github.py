"""`github`: GitHub's REST API error body. Decode only.

    {"message": "Validation Failed", "errors": [{"resource": "Label", "field": "color", "code": "invalid"}],
     "documentation_url": "https://docs.github.com/rest/...", "status": "422"}

`message` is the detail; `documentation_url` the page that documents the error (its
`type`, as Stripe's `doc_url` is); `status` (a string, in newer bodies) the HTTP
status, the wire's winning; `request_id` a RequestInfo. Each `errors` entry is a
violation (`field`, `code` as its reason, `message` when GitHub gives one; a plain
string entry is a violation of no field); the first entry's `code` (`missing`,
`missing_field`, `invalid`, `already_exists`, `unprocessable`, `custom`) is the
code, and the first `field` the param. A bare body has no status: one with field
errors is 422 (GitHub's "Validation Failed"), else 500 is assumed, and noted.

Rate limits (docs.github.com, "Rate limits for the REST API"; octokit's
plugin-throttling does the same): a 403 or 429 with `retry-after` (the secondary
limit) or `x-ratelimit-remaining: 0` with `x-ratelimit-reset` (the primary limit) is
a wait, read by the core's header signals and left as they are. A spent limit on any
other status is not why the call failed (a 401 "Bad credentials" carries the same
headers): that signal is dropped here, and noted, so the status decides. A 403 or 429
whose `documentation_url` points at GitHub's rate-limit documentation (an anchor or
page named for rate limits) is a rate limit even with no headers at hand, as in a
bare body: wait, with no delay known. The message's prose is never read.

Detection: a string `message` with a string `documentation_url` (every REST error
GitHub sends has both).
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import NextStep
from ..details import RequestInfo
from ._base import STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import extensions_of, grpc_code_of, status_of, valid_status

__all__ = ["GitHub"]

# The core's signals of a spent rate limit (`_http._SPENT`) that GitHub sends.
_SPENT_LIMIT = frozenset(("x-ratelimit-reset",))
_RATE_LIMIT_STATUSES = frozenset((403, 429))
# GitHub's rate-limit documentation: `#rate-limiting`, `#secondary-rate-limits`,
# `.../rate-limits-for-the-rest-api`, `#exceeding-the-rate-limit`.
_RATE_LIMIT_DOCS = re.compile(r"rate-limit|ratelimit", re.IGNORECASE)


def _violations(errors: Any, reading: Reading) -> tuple[tuple[Violation, ...], str | None] | None:
    """The `errors` entries as violations, and the first entry's code; None for a value
    of another shape."""
    if type(errors) is not list or not errors or not all(type(e) is dict or type(e) is str for e in errors):
        return None
    if len(errors) > reading.limits.max_violations:
        raise DecodeError(f"{len(errors)} violations, over the limit of {reading.limits.max_violations} (Limits.max_violations)")
    out = []
    first_code: str | None = None
    for entry in errors:
        if type(entry) is str:
            out.append(Violation(field="", description=entry))
            continue
        field, code, message = entry.get("field"), entry.get("code"), entry.get("message")
        reason = code if type(code) is str and code else None
        if first_code is None and len(out) == 0:
            first_code = reason
        out.append(
            Violation(field=field if type(field) is str else "", description=message if type(message) is str else "", reason=reason)
        )
    return tuple(out), first_code


class GitHub(Dialect):
    """GitHub's REST API error body (decode only)."""

    name = "github"
    precedence = 190
    listed = 130
    keys = frozenset(("documentation_url",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """A string `message` beside a string `documentation_url`."""
        if type(value) is dict and type(value.get("message")) is str and type(value.get("documentation_url")) is str:
            return STRONG
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict:
            raise DecodeError(f"a github error is a JSON object, got {shorten(value)}")
        fields: dict[str, Any] = {}
        read: set[str] = set()
        message, doc, request_id = value.get("message"), value.get("documentation_url"), value.get("request_id")
        if type(message) is str:
            fields["detail"] = message
            read.add("message")
        if type(doc) is str:
            if doc.startswith(("https://", "http://")):
                fields["type"] = doc
                read.add("documentation_url")
        else:
            doc = None
        if type(request_id) is str and request_id:
            fields["details"] = (RequestInfo(request_id=request_id),)
            read.add("request_id")
        body_status = valid_status(value.get("status"))
        if body_status is not None:
            read.add("status")
        found = _violations(value.get("errors"), reading)
        derived = None
        if found is not None:
            fields["violations"], code = found
            if code is not None:
                fields["code"] = code
            param = next((v.field for v in fields["violations"] if v.field), None)
            if param is not None:
                fields["param"] = param  # the entry's field names it
            read.add("errors")
            derived = 422
        if reading.seen is not None:
            reading.saw("body", "", "github")
            if "message" in read:
                reading.saw("text", "/message", message)
        fields["status"] = status = status_of(reading, body_status, derived, 500, "github")
        fields["grpc_code"] = grpc_code_of(status, reading)
        by_code: tuple[NextStep, str] | None = None
        if status not in _RATE_LIMIT_STATUSES:
            if reading.wait in _SPENT_LIMIT:
                # GitHub sends its rate-limit headers on every response; spent, they explain a 403 or 429 only.
                reading.notes += (f"x-ratelimit-remaining 0 on a {status} ignored: GitHub's rate limits answer 403 or 429",)
                reading.wait = reading.delay = None
        elif reading.wait is None and doc is not None and _RATE_LIMIT_DOCS.search(doc):
            by_code = (NextStep.WAIT, "github documentation_url of its rate limits")
        extensions = extensions_of(value, read, reading)
        if extensions is not None:
            fields["extensions"] = extensions
        return reading.finish(fields, None, by_code=by_code)
