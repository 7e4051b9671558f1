"""`vault`: HashiCorp Vault's error body (OpenBao's too). Decode only.

    {"errors": ["permission denied"]}

Vault's HTTP API answers every status of 400 and above with this one structure, a list
of messages and nothing else (website/content/api-docs/index.mdx, "Error response").
There is no code: the messages, joined by "; ", are the detail, and the status is the
wire's. A few messages are Vault's own fixed texts for one condition each (the table
below, from the same page's status list): they give the step and, for a bare body, the
status Vault sends them with (marked inferred). Any other bare body is 500, assumed
and noted.

Next step: the message table, else the status ladder (Vault's statuses mean what the
ladder says of them).

Detection: a top-level object whose only member is `errors`, a list of strings; an
empty list (Vault's 404 for a path that holds nothing) is claimed less strongly.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import Code, NextStep
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import Row, by_code, grpc_code_of, status_of

__all__ = ["Vault", "MESSAGES"]

# Vault's fixed texts for one condition each, with the status Vault sends them with.
MESSAGES: dict[str, tuple[Row, int]] = {
    # 403: "your authentication details are either incorrect, you don't have access to
    # this feature": the same token asks the same way again.
    "permission denied": ((NextStep.GIVE_UP, Code.PERMISSION_DENIED), 403),
    # 503: "Vault is down for maintenance or is currently sealed. Try again later."
    "Vault is sealed": ((NextStep.WAIT, Code.UNAVAILABLE), 503),
}
_ONLY = frozenset(("errors",))


class Vault(Dialect):
    """HashiCorp Vault's `{"errors": [...]}` (decode only)."""

    name = "vault"
    precedence = 185
    listed = 285
    keys = _ONLY
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`errors`, a list of strings, and nothing beside it."""
        if type(value) is not dict or value.keys() != _ONLY:
            return 0.0
        errors = value["errors"]
        if type(errors) is not list or not all(type(e) is str for e in errors):
            return 0.0
        return STRONG if errors else LIKELY

    def decode(self, value: Any, reading: Reading) -> Fault:
        errors = value.get("errors") if type(value) is dict else None
        if type(errors) is not list:
            raise DecodeError(f"a vault error is {{\"errors\": [...]}}, got {shorten(value)}")
        messages = [e for e in errors if type(e) is str and e]
        fields: dict[str, Any] = {}
        if messages:
            fields["detail"] = "; ".join(messages)
        known = MESSAGES.get(messages[0]) if len(messages) == 1 else None
        extensions = {name: item for name, item in value.items() if name != "errors"}
        if len(messages) != len(errors):  # items that are no message: kept as they came
            extensions["errors"] = errors
        # Through the tail every decoder shares, so the kept items are held to
        # Limits.max_depth as any extension is (the writers' readers refuse deeper).
        reading.keep_extensions(fields, extensions)
        if reading.seen is not None:
            reading.saw("body", "", "vault")
            if messages:
                reading.saw("text", "/errors", fields["detail"])
        fields["status"] = status = status_of(reading, None, known[1] if known else None, 500, "vault")
        fields["grpc_code"] = grpc_code_of(status, reading, known[0] if known else None)
        step = by_code({messages[0]: known[0]}, messages[0], "vault message") if known else None
        return reading.finish(fields, None, by_code=step)
