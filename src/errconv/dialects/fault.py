"""`fault`: errconv's own model as JSON, the form of `golden/<case>/fault.json`.

`Fault.to_json()` written, `Fault.from_json()` read: every field, nothing lost. A
file of this form is recognised by its integer `grpc_code`, which no wire dialect
writes, so `errconv convert fault.json --to stripe` reads the model, not a problem
body that happens to have a `status`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .._model.errors import DecodeError
from .._model.fault import Fault
from .._model.limits import MAX_RETRY_AFTER_SECONDS
from ..codes import Code
from ._base import CERTAIN, Dialect, HttpInfo
from ._common import Reading, Writing
from .._model.schema import check_depth

__all__ = ["FaultDialect"]

_FIELDS = frozenset(f for f in Fault.__struct_fields__ if f != "origin")
_TEXT = ("code", "domain", "title", "detail", "type", "instance", "param", "blocked_by", "unblock_with")


class FaultDialect(Dialect):
    """The canonical JSON of `errconv.Fault`."""

    one_line = False
    lossless = True
    name = "fault"
    precedence = 10
    listed = 10
    keys = frozenset(("grpc_code",))

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        if (
            type(value) is dict
            and type(value.get("status")) is int
            and type(value.get("grpc_code")) is int
            and value.keys() <= _FIELDS
        ):
            return CERTAIN
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        try:
            fault = msgspec.convert(value, Fault)
        except msgspec.ValidationError as exc:
            raise DecodeError(f"not an errconv fault: {str(exc)[:100]}") from None
        if fault.origin is not None:
            raise DecodeError("not an errconv fault: `origin` is not part of the model's JSON")
        # The types are the model's; the ranges and the nesting are what every decoder
        # guarantees of a Fault (and what its writers' readers will hold it to).
        limit = reading.limits.max_depth
        check_depth(value.get("extensions"), limit)
        check_depth(value.get("alternatives"), limit)
        for detail in value.get("details") or ():
            if type(detail) is dict:
                check_depth(detail.get("fields"), limit)
        if not 100 <= fault.status <= 599:
            raise DecodeError(f"not an errconv fault: status {fault.status} is not an HTTP status (100 to 599)")
        if not 0 <= fault.grpc_code <= 16:
            raise DecodeError(f"not an errconv fault: grpc_code {fault.grpc_code} is not a google.rpc.Code (0 to 16)")
        empty = {name: None for name in _TEXT if getattr(fault, name) == ""}
        if empty:
            fault = fault.replace(**empty)  # "" says nothing, as Fault.build and every other decoder read it
        delay = fault.retry_after_seconds
        if delay is not None and not 0 <= delay <= MAX_RETRY_AFTER_SECONDS:
            fault = fault.replace(retry_after_seconds=min(max(delay, 0), MAX_RETRY_AFTER_SECONDS))  # as every decoder caps it
        if reading.seen is not None:
            reading.saw("body", "", "fault")
            for name in ("next_step", "alternatives", "alternatives_truncated"):
                if name in value:
                    reading.saw(name, f"/{name}", value[name])
            if "retry_after_seconds" in value:
                reading.saw("delay:retry_after_seconds", "/retry_after_seconds", value["retry_after_seconds"])
            for name in ("title", "detail"):
                if isinstance(value.get(name), str):
                    reading.saw("text", f"/{name}", value[name])
        origin = reading.origin("stated" if fault.next_step is not None else "absent")
        return reading.checked(fault.replace(origin=origin, grpc_code=Code(fault.grpc_code)))  # a Code, as every decoder gives

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return fault.to_json()
