"""`elasticsearch`: Elasticsearch's (and OpenSearch's) error body. Decode only.

    {"error": {"root_cause": [{"type": ..., "reason": ...}], "type": "index_not_found_exception",
               "reason": "no such index [test]", "index": "test", ...}, "status": 404}

`error.type` is the code, `error.reason` the detail, the top-level `status` the HTTP
status (the wire's winning, noted when they differ). Everything else in `error`
(`root_cause`, `caused_by`, `index`, `resource.id`, `failed_shards`, ...) and beside
it is kept verbatim as extensions. Before 5.x the error was a string,
`"IndexMissingException[[x] missing]"`: it is the detail, and there is no code.

Next step: the code table below (the top `type`, then the root causes' types), else
the status ladder; a circuit breaker whose `durability` is PERMANENT (7.x and later
say so) gives up, as it "requires manual intervention". A bare body without `status` is 500, assumed and noted.

Detection: `error` an object with `root_cause`, or with string `type` and `reason`
beside an integer top-level `status` (Stripe's and OpenAI's `error` objects have
neither); the legacy string form beside an integer `status` when it reads
`SomethingException[...]`.
"""

from __future__ import annotations

import re
from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault
from ..codes import Code, NextStep
from ._base import LIKELY, STRONG, Dialect, HttpInfo
from ._common import Reading
from ._vendor import Row, by_code, extensions_of, grpc_code_of, status_of, valid_status

__all__ = ["Elasticsearch", "CODES"]

CODES: dict[str, Row] = {
    # A thread pool's queue or the indexing-pressure limit is full: back off and retry
    # (the clients' bulk helpers do); ES sends 429, but a search wraps it in a 503 or 500.
    "es_rejected_execution_exception": (NextStep.WAIT, Code.RESOURCE_EXHAUSTED),
    # A circuit breaker tripped on memory in use: it clears as requests finish (429 since
    # 7.0, a 500 or 503 before, which the ladder would give up on), unless the body's
    # `durability` is PERMANENT: then it needs an operator, and the step is give_up.
    "circuit_breaking_exception": (NextStep.WAIT, Code.RESOURCE_EXHAUSTED),
}
_LEGACY = re.compile(r"[A-Za-z][A-Za-z0-9_.$]{0,200}Exception\[")
_OWN = frozenset(("type", "reason"))


def _root_types(inner: dict[str, Any]) -> list[str]:
    causes = inner.get("root_cause")
    if type(causes) is not list:
        return []
    return [c["type"] for c in causes[:100] if type(c) is dict and type(c.get("type")) is str]


class Elasticsearch(Dialect):
    """Elasticsearch's `{"error": {...}, "status": N}` (decode only)."""

    name = "elasticsearch"
    precedence = 90
    listed = 160
    keys = frozenset(("error",))
    ceiling = STRONG
    media_type = "application/json"
    encodes = False

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`error.root_cause`, or `error.type` and `error.reason` with an integer `status`;
        the legacy `"...Exception[...]"` string with an integer `status`."""
        if type(value) is not dict:
            return 0.0
        inner = value.get("error")
        if type(inner) is dict:
            if type(inner.get("root_cause")) is list:
                return STRONG
            if type(value.get("status")) is int and type(inner.get("type")) is str and type(inner.get("reason")) is str:
                return STRONG
            return 0.0
        if type(inner) is str and type(value.get("status")) is int and _LEGACY.match(inner):
            return LIKELY
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is not dict or "error" not in value:
            raise DecodeError(f"an elasticsearch error is {{\"error\": ..., \"status\": N}}, got {shorten(value)}")
        fields: dict[str, Any] = {}
        inner = value["error"]
        read: set[str] = {"error"}
        body_status = valid_status(value.get("status")) if type(value.get("status")) is int else None
        if body_status is not None:
            read.add("status")
        code: str | None = None
        step = None
        if type(inner) is dict:
            type_, reason = inner.get("type"), inner.get("reason")
            if type(type_) is str and type_:
                fields["code"] = code = type_
            if type(reason) is str:
                fields["detail"] = reason
            # The members of `error` beside type and reason, kept at the top (the envelope adds nothing).
            extensions = extensions_of(inner, {name for name in _OWN if type(inner.get(name)) is str}, reading)
            step = by_code(CODES, code, "elasticsearch")
            if step is None:
                step = next((s for t in _root_types(inner) if (s := by_code(CODES, t, "elasticsearch root cause"))), None)
            if step is not None and inner.get("durability") == "PERMANENT":
                # A breaker's durability (7.x+): PERMANENT "requires manual intervention"
                # (CircuitBreaker.Durability), TRANSIENT "fixes itself eventually".
                step = (NextStep.GIVE_UP, "elasticsearch durability PERMANENT")
        elif type(inner) is str:
            fields["detail"] = inner
            extensions = None
        else:
            read.discard("error")
            extensions = None
        outer = extensions_of(value, read, reading)
        if outer is not None:
            if not extensions:
                extensions = outer
            elif extensions.keys().isdisjoint(outer):
                extensions = {**extensions, **outer}
            else:  # a name in both: `error`'s members stay nested, so neither is lost
                extensions = {"error": extensions, **outer}
        if extensions:
            fields["extensions"] = extensions
        if reading.seen is not None:
            reading.saw("body", "", "elasticsearch")
            if body_status is not None:
                reading.saw("status", "/status", body_status)
            if "detail" in fields:
                reading.saw("text", "/error/reason" if type(inner) is dict else "/error", fields["detail"])
        fields["status"] = status = status_of(reading, body_status, None, 500, "elasticsearch")
        fields["grpc_code"] = grpc_code_of(status, reading, CODES.get(code) if code else None)
        return reading.finish(fields, None, by_code=step)
