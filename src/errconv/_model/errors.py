"""The exceptions errconv raises.

    ErrconvError                 base of everything errconv raises on purpose
    ├── DecodeError              input is not a readable error in the named or detected dialect
    ├── ContractError            Fault.build() refused a fault that breaks the agent contract
    ├── LossError                convert(..., strict=True) would drop fields
    └── UnknownDialectError      a dialect name errconv does not know, or a dialect that cannot do
                                 what is asked (encode a read-only one, an HTTP body of `grpc`);
                                 also a ValueError. Every verb raises it for a bad name.

    FaultError                   raised *by callers* to carry a Fault (e.g. out of a handler)

Messages are one line, name the offending value (cut short) and say what is accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fault import Fault

__all__ = [
    "ContractError",
    "DecodeError",
    "ErrconvError",
    "FaultError",
    "LossError",
    "UnknownDialectError",
    "shorten",
]


def shorten(value: object, limit: int = 40) -> str:
    """Render `value` for an error message: repr, one line, at most `limit` characters.

    Bytes are shown as the text they hold (invalid UTF-8 as U+FFFD), quoted, not as a
    Python bytes literal: a reader of the message need not know Python."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value[: limit * 4]).decode("utf-8", "replace")
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text.replace("\n", "\\n").replace("\r", "\\r")


class ErrconvError(Exception):
    """Base class of every exception errconv raises on purpose."""


class DecodeError(ErrconvError):
    """The input is not a readable error in the named or detected dialect.

    Raised for malformed JSON, invalid UTF-8, bad base64, bad protobuf, input over a
    size or nesting limit, or a shape no dialect recognises.
    """


class ContractError(ErrconvError, ValueError):
    """A producer tried to build a Fault that breaks the agent contract (DESIGN section 2)."""


class LossError(ErrconvError):
    """A strict conversion would drop fields the target dialect cannot carry.

    `losses` names them, in the same vocabulary as `errconv.losses()`.
    """

    def __init__(self, dialect: str, losses: tuple[str, ...]) -> None:
        self.dialect = dialect
        self.losses = losses
        super().__init__(f"{dialect} cannot carry: {', '.join(losses)} (drop strict=True to convert anyway)")


class UnknownDialectError(ErrconvError, ValueError):
    """A dialect name that errconv does not know, or a dialect that cannot do what is asked.

    One type for one mistake, whichever verb is called: `decode(data, "nope")`,
    `encode(fault, "aws")` (aws is read, not written), `to_http(fault, "grpc")` (not an
    HTTP body), `convert`, `losses`, `lint_body`. Never a DecodeError: the input is fine.
    """


def _unset_build(**fields: Any) -> Fault:
    raise TypeError("errconv._model.fault is not loaded")  # pragma: no cover - errconv imports it


# Fault.build, which the fault module installs when it loads: the model's errors sit below
# the Fault (fault.py raises them), so this module names it without importing it.
_build: Callable[..., Fault] = _unset_build


def install_build(build: Callable[..., Fault]) -> None:
    """Set what `FaultError(**fields)` builds its Fault with (fault.py calls it once)."""
    global _build
    _build = build


class FaultError(Exception):
    """An exception that carries a `Fault`.

    Raise it from application code (a gRPC handler, an HTTP view) and errconv's
    interceptors and middleware turn it into the right wire form:

    >>> raise FaultError(Fault.build(status=404, code="book_not_found", detail="No such book"))

    or, the same, with the fields `Fault.build` takes (its contract checks apply):

    >>> raise FaultError(status=404, code="book_not_found", detail="No such book")
    """

    def __init__(self, fault: Fault | None = None, **fields: Any) -> None:
        if fault is None:
            if not fields:
                raise TypeError("FaultError takes a Fault, or the fields Fault.build takes (status=..., code=...)")
            fault = _build(**fields)
        elif fields:
            raise TypeError("FaultError takes a Fault or fields to build one, not both")
        self.fault = fault
        super().__init__(fault.detail or fault.title or fault.code or f"HTTP {fault.status}")
