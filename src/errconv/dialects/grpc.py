"""`grpc`: gRPC trailers, as grpcio takes them, in their text form.

    grpc-status: 8
    grpc-message: Quota%20exceeded      (percent-encoded per gRPC's PROTOCOL-HTTP2.md)
    grpc-status-details-bin: <google.rpc.Status, unpadded base64>
    grpc-retry-pushback-ms: 30000        (the delay for a wait, -1 otherwise; gRFC A6)

A thin layer over `errconv.to_grpc` / `errconv.from_grpc`: encoding writes the text
form, one `key: value` line each; decoding takes the text form or a list of pairs
(raw or base64 `-bin` values). When grpc-status and the Status inside disagree,
grpc-status wins and the mismatch is noted in `Fault.origin.notes`. Lossless for
every Fault whose trailers fit `Limits.max_trailer_bytes` (gRPC's default limit on
received metadata is 8 KiB); for a larger one the encoder drops what does not fit, in
a fixed order, and `errconv.losses` names it.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.fault import Fault
from ._trailers import percent_encode, read_trailers, to_text, trailers_for
from ._base import CERTAIN, STRONG, Dialect, HttpInfo
from ._common import Reading, Writing

__all__ = ["Grpc"]

_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1f]")
_TRAILER_LINE = re.compile(rb"^[ \t]*grpc-status[ \t]*:", re.MULTILINE | re.IGNORECASE)


class Grpc(Dialect):
    """gRPC trailers."""

    one_line = False
    lossless = True
    name = "grpc"
    precedence = 280
    listed = 60
    form = "pairs"
    suffix = "txt"

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        if isinstance(value, (list, tuple)):
            return CERTAIN
        # Text, with a trailer line in it: Status bytes start with a field tag (a control
        # byte), though their message may hold a line like `grpc-status: 14`.
        # (The substring first, at C speed: the multi-line, case-blind search scans slowly.)
        if (
            isinstance(value, (bytes, bytearray))
            and b"grpc-status" in value.lower()
            and _TRAILER_LINE.search(value)
            and not _BINARY.search(value, 0, 64)
        ):
            return STRONG
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        return read_trailers(value, reading)

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        code, message, metadata = trailers_for(fault, limits=writing.limits, keep_debug=writing.keep_debug)
        head: list[tuple[str, str | bytes]] = [("grpc-status", str(code))]
        if message:
            head.append(("grpc-message", percent_encode(message)))
        return to_text([*head, *metadata])
