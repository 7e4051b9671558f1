"""`fault`: errconv's own model as JSON, the form of `golden/<case>/fault.json`.

`Fault.to_json()` written, `Fault.from_json()` read: every field, nothing lost. A
file of this form is recognised by its integer `grpc_code`, which no wire dialect
writes, so `errconv convert fault.json --to stripe` reads the model, not a problem
body that happens to have a `status`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .._errors import DecodeError
from .._fault import Fault
from ._base import CERTAIN, Dialect, HttpInfo
from ._common import Reading, Writing

__all__ = ["FaultDialect"]

_FIELDS = frozenset(f for f in Fault.__struct_fields__ if f != "origin")


class FaultDialect(Dialect):
    """The canonical JSON of `errconv.Fault`."""

    one_line = False
    lossless = True
    name = "fault"
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
        return reading.checked(fault.replace(origin=reading.origin("stated" if fault.next_step is not None else "absent")))

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        return fault.to_json()
