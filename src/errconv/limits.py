"""Limits on what errconv will read, so hostile input costs bounded work."""

from __future__ import annotations

import msgspec

__all__ = ["DEFAULT_LIMITS", "Limits", "MAX_RETRY_AFTER_SECONDS"]

# The longest wait errconv will state or honour: one day. A daily quota is the
# longest wait a caller can usefully sleep through; beyond that the delay is a
# mistake or an attack (urllib3 caps at six hours for the same reason).
MAX_RETRY_AFTER_SECONDS = 86_400


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds on decoded input. Past any of them decoding raises DecodeError.

    >>> Limits(max_bytes=64 * 1024)
    Limits(max_bytes=65536, max_depth=32, max_details=64, max_violations=256)
    """

    max_bytes: int = 1 << 20
    """Largest input, in bytes (a body, a Status, a whole HTTP response)."""
    max_depth: int = 32
    """Deepest nesting of JSON inside extension members, alternatives and unknown details."""
    max_details: int = 64
    """Most entries in a Status's details."""
    max_violations: int = 256
    """Most field violations (BadRequest, errors, invalid-params)."""


DEFAULT_LIMITS = Limits()
