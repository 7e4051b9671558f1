"""A tool call's arguments written as one canonical string: what makes two calls one.

The rule: two argument values give one string exactly when they mean the same thing,
which for the values a tool takes is Python's `==`, with JSON's own distinctions kept.

- JSON values are written as compact JSON, mapping members sorted: `{"amount":150}`;
- numbers by value: `150`, `150.0` and `Decimal("150.00")` are one (`150`); a float by
  its shortest repr; a Decimal or Fraction that no float equals by itself
  (`decimal("0.1")`, which is not the float 0.1); NaN and the infinities by name; an
  integer too long for `str()` in hex (`int(0x...)`). `True` is not `1`: JSON tells
  them apart and so does a tool's schema;
- mapping keys by their type: `{"1": x}` is `{"1":...}`, `{1: x}` is `{1:...}`;
- lists and tuples are one (`[...]`): JSON, which every model's call travels
  through, has only arrays; sets are `set[...]`, their members sorted;
- every other value a tool takes by value is written by its full value, tagged with
  its kind so that no JSON value can spell it (a JSON string is always quoted):
  `date("2031-12-31")`, `datetime("2031-12-31T09:00:00+01:00")` (its offset is part of
  it), `time(...)`, `timedelta(...)`, `uuid(...)`, `bytes(hex)`, `complex(...)`, an
  enum member by its class and name, a path by its type and text, a dataclass or a
  pydantic model by its type and fields;
- a value of any other type has no value errconv can read faithfully (its repr may be
  cut, like a large array's, or constant, or carry an address that is reused): it is
  written by its identity, a token unique to the object for as long as the process
  runs, `<module.Type #17>`. The same object is the same call; an equal copy is another
  call, which the guard then lets through: at worst one repeat goes out, never a
  different call refused. So is a structure too deep to walk (past 100 levels) or
  holding itself (a cycle).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import fractions
import itertools
import json
import math
import os
import threading
import uuid
import weakref
from collections.abc import Mapping
from typing import Any

__all__ = ["canonical"]

# Past this depth a value is keyed by identity: no model's arguments nest so deep, and
# walking further costs the stack.
MAX_DEPTH = 100
# str() of an int refuses past 4,300 digits (sys.set_int_max_str_digits); well under it
# an integer is written in hex instead. Every integral number comes through one writer,
# so an int and an integral float or Decimal of one value are still written alike.
_HEX_BITS = 12_000
# A Decimal this far from 1 is no float and is not turned into a Fraction (10**10**9
# would take the memory): written as its normalised text.
_DECIMAL_EXPONENT = 4_000


def canonical(value: Any) -> str:
    """The canonical text of `value` (see the module). Never raises."""
    out: list[str] = []
    try:
        _write(value, out, 0, set())
    except Exception:  # a subclass of a value type whose methods raise: keyed by identity
        return _identity(value)
    return "".join(out)


# --------------------------------------------------------------------------- identity


_tokens: dict[int, tuple[Any, int]] = {}
_counter = itertools.count(1)
_lock = threading.RLock()  # a weakref callback can run inside the lock, from the collector
# Objects that take no weak reference are held (strongly, so their address cannot be
# reused while their token stands) up to this many; an evicted one gets a new token
# if seen again: a different key, never a shared one.
_STRONG = 4096


def _identity(value: Any) -> str:
    kind = _type_name(value)
    key = id(value)
    with _lock:
        entry = _tokens.get(key)
        if entry is not None:
            held, token = entry
            if (held() if isinstance(held, weakref.ref) else held) is value:
                return f"<{kind} #{token}>"
        token = next(_counter)
        try:
            held = weakref.ref(value, _forgetter(key))
        except TypeError:
            held = value
            strong = [k for k, (h, _) in _tokens.items() if not isinstance(h, weakref.ref)]
            for old in strong[: max(0, len(strong) - _STRONG + 1)]:
                del _tokens[old]
        _tokens[key] = (held, token)
    return f"<{kind} #{token}>"


def _forgetter(key: int) -> Any:
    """The weakref callback that drops `key`'s token once its object is gone."""

    def forget(_: Any) -> None:
        _forget(key)

    return forget


def _forget(key: int) -> None:
    with _lock:
        entry = _tokens.get(key)
        if entry is not None and isinstance(entry[0], weakref.ref) and entry[0]() is None:
            del _tokens[key]


def _type_name(value: Any) -> str:
    kind = type(value)
    try:
        return f"{kind.__module__}.{kind.__qualname__}"
    except Exception:
        return "object"


# --------------------------------------------------------------------------- numbers


def _int(n: int) -> str:
    if n.bit_length() > _HEX_BITS:
        return f"int({'-' if n < 0 else ''}0x{abs(n):x})"
    return str(n)


def _float(f: float) -> str:
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    if f.is_integer():
        return _int(int(f))
    return repr(f)


def _fraction(r: fractions.Fraction, spelled: str) -> str:
    if r.denominator == 1:
        return _int(r.numerator)
    try:
        f = float(r)
    except OverflowError:
        f = math.nan
    if not math.isnan(f) and fractions.Fraction(f) == r:
        return repr(f)  # the float of this exact value: written as that float is
    return spelled


def _decimal(d: decimal.Decimal) -> str:
    if d.is_nan():
        return "NaN"
    if d.is_infinite():
        return "Infinity" if d > 0 else "-Infinity"
    if d.is_zero():
        return "0"
    # One spelling for one value: trailing zeros dropped (1.50 is 1.5), exactly (the
    # context keeps every digit).
    exact = decimal.Context(prec=max(len(d.as_tuple().digits), 1), Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    normal = d.normalize(exact)
    if abs(d.adjusted()) > _DECIMAL_EXPONENT:
        return f'decimal("{normal}")'
    return _fraction(fractions.Fraction(d), f'decimal("{format(normal, "f")}")')


# --------------------------------------------------------------------------- the writer


def _write(value: Any, out: list[str], depth: int, walking: set[int]) -> None:
    kind = type(value)
    if value is None:
        out.append("null")
    elif kind is bool:
        out.append("true" if value else "false")
    elif isinstance(value, enum.Enum):  # before int and str: an IntEnum member is no number
        try:
            out.append(f"enum({_type_name(value)}.{value.name})")
        except Exception:
            out.append(_identity(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int):
        out.append(_int(int(value)))
    elif isinstance(value, float):
        out.append(_float(float(value)))
    elif isinstance(value, decimal.Decimal):
        out.append(_decimal(value))
    elif isinstance(value, fractions.Fraction):
        out.append(_fraction(value, f"fraction({value.numerator}/{value.denominator})"))
    elif isinstance(value, complex):
        if value.imag == 0:
            out.append(_float(value.real))
        else:
            out.append(f"complex({_float(value.real)},{_float(value.imag)})")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        try:
            out.append(f"bytes({bytes(value).hex()})")
        except Exception:
            out.append(_identity(value))
    elif isinstance(value, datetime.datetime):  # before date: a datetime is a date
        out.append(f'datetime("{value.isoformat()}")')
    elif isinstance(value, datetime.date):
        out.append(f'date("{value.isoformat()}")')
    elif isinstance(value, datetime.time):
        out.append(f'time("{value.isoformat()}")')
    elif isinstance(value, datetime.timedelta):
        out.append(f"timedelta({value.days},{value.seconds},{value.microseconds})")
    elif isinstance(value, uuid.UUID):
        out.append(f'uuid("{value}")')
    elif isinstance(value, os.PathLike):
        _container(value, out, depth, walking, _path)
    else:
        _container(value, out, depth, walking, None)


def _path(value: Any, out: list[str], depth: int, walking: set[int]) -> None:
    text = os.fspath(value)
    out.append(f"path({_type_name(value)},{json.dumps(text if isinstance(text, str) else text.hex(), ensure_ascii=False)})")


def _container(value: Any, out: list[str], depth: int, walking: set[int], writer: Any) -> None:
    """A value that holds others: walked once, keyed by identity when it is too deep
    or holds itself, or when it raises as it is read."""
    if depth >= MAX_DEPTH or id(value) in walking:
        out.append(_identity(value))
        return
    walking.add(id(value))
    mark = len(out)
    try:
        if writer is not None:
            writer(value, out, depth, walking)
        elif not _walk(value, out, depth, walking):
            out.append(_identity(value))
    except Exception:
        del out[mark:]
        out.append(_identity(value))
    finally:
        walking.discard(id(value))


def _walk(value: Any, out: list[str], depth: int, walking: set[int]) -> bool:
    """Write a container of a kind errconv reads by value; False for any other kind."""
    if isinstance(value, Mapping):
        _mapping("", value.items(), out, depth, walking)
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, depth + 1, walking)
        out.append("]")
    elif isinstance(value, (set, frozenset)):
        items = sorted(_sub(item, depth, walking) for item in value)
        out.append("set[" + ",".join(items) + "]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
        _mapping(_type_name(value), fields, out, depth, walking)
    elif _is_model(value):
        dump = value.model_dump()  # python mode: a date stays a date
        _mapping(_type_name(value), dump.items(), out, depth, walking)
    else:
        return False
    return True


def _is_model(value: Any) -> bool:
    """A pydantic model instance (duck-typed: errconv does not import pydantic)."""
    return not isinstance(value, type) and callable(getattr(value, "model_dump", None)) and hasattr(type(value), "model_fields")


def _sub(value: Any, depth: int, walking: set[int]) -> str:
    out: list[str] = []
    _write(value, out, depth + 1, walking)
    return "".join(out)


def _mapping(tag: str, items: Any, out: list[str], depth: int, walking: set[int]) -> None:
    entries = sorted((_sub(k, depth, walking), _sub(v, depth, walking)) for k, v in items)
    out.append(tag + "{" + ",".join(f"{k}:{v}" for k, v in entries) + "}")
