"""Limits on what errconv will read, so hostile input costs bounded work."""

from __future__ import annotations

import msgspec

__all__ = ["DEFAULT_LIMITS", "Limits", "MAX_RETRY_AFTER_SECONDS"]

# The longest wait errconv will state or honour: one day. A daily quota is the
# longest wait a caller can usefully sleep through; beyond that the delay is a
# mistake or an attack (urllib3 caps at six hours for the same reason).
MAX_RETRY_AFTER_SECONDS = 86_400


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds on what errconv reads and writes, so hostile input costs bounded work.

    Past any bound on input, decoding raises DecodeError; `max_trailer_bytes` bounds
    what the grpc encoder writes. The README's Security section tabulates them.

    >>> Limits(max_bytes=64 * 1024).max_bytes
    65536
    """

    max_bytes: int = 1 << 20
    """Largest input, in bytes (a body, a Status, a whole HTTP response)."""
    max_depth: int = 32
    """Deepest nesting of JSON inside extension members, alternatives and unknown details."""
    max_details: int = 64
    """Most details a fault holds: entries of a problem body's `details`; a Status may hold
    four more, the ErrorInfo, RetryInfo, BadRequest and errconv.v1.Problem that carry the
    fault's own fields."""
    max_violations: int = 256
    """Most field violations (BadRequest, errors, invalid-params), and most entries in any
    other repeated list of a detail (QuotaFailure and PreconditionFailure violations,
    Help links)."""
    max_string: int = 64 * 1024
    """Longest string anywhere in a decoded Fault (detail, a member name, a metadata
    value, an extension string, a stack entry), in characters."""
    max_header: int = 8 * 1024
    """Longest header value read from an HTTP response; also the longest value errconv
    writes into a header it copies from a Fault (Request-Id), which it omits past this."""
    max_trailer_bytes: int = 8 * 1024
    """Largest gRPC trailer block errconv writes, counted as HPACK does (name, value as
    sent, 32 bytes an entry). Over it the grpc encoder drops details, DebugInfo first,
    shortens grpc-message and keeps at least a minimal Status (the reason, the agent
    fields, the delay); `errconv.losses` names what was dropped."""


DEFAULT_LIMITS = Limits()
