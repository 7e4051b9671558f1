"""The detail codec, built from the detail Structs: proto3 JSON and protobuf, both ways.

Each google.rpc detail type is written once, as a Struct in `errconv.details` (and
errconv.v1.Problem as `ProblemInfo` below). From a Struct's fields (their names,
Python types and `details.Wire` marks) this module builds four functions per type,
each unrolled as source text and compiled once at import, as `dataclasses` builds
`__init__`:

- a proto3 JSON reader (members in lowerCamelCase or snake_case, each of its own
  JSON type, else the detail is kept as it came, a `RawDetail`);
- a proto3 JSON writer (default values left out, int64 as a string, Duration as
  `"30s"`);
- a protobuf reader, from the message that `FromString` parsed;
- a protobuf writer, giving the constructor's arguments (nested messages as
  dicts, which protobuf builds in C).

So a field is written in one place and no codec can drift from another. Details of
an unknown type travel as `RawDetail`: packed bytes from protobuf, members from
JSON, never json_format (which fails on an unknown `@type`).
"""

from __future__ import annotations

import base64
import binascii
import re
import sys
import threading
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, Union

import msgspec
from google.protobuf import struct_pb2
from google.protobuf.message import DecodeError as ProtoDecodeError
from google.rpc import error_details_pb2 as _ed

from .errors import DecodeError, shorten
from .._proto.errconv.v1 import problem_pb2 as _problem_pb2
from .limits import Limits
from .. import details as _d
from ..details import RawDetail, Wire

__all__ = [
    "Item",
    "OPAQUE_TYPE",
    "PROBLEM_TYPE",
    "ProblemInfo",
    "TYPE_PREFIX",
    "check_depth",
    "format_duration",
    "item_from_any",
    "item_from_json",
    "item_to_json",
    "items_from_anys",
    "json_names",
    "model_items",
    "pack_item",
    "parse_duration",
    "python_to_struct",
    "struct_to_python",
    "type_name",
]

TYPE_PREFIX = "type.googleapis.com/"
PROBLEM_TYPE = "errconv.v1.Problem"
OPAQUE_TYPE = "errconv.v1.OpaqueDetail"
_NANOS = 1_000_000_000
# google.protobuf.Duration's range: about 10,000 years.
MAX_DURATION_SECONDS = 315_576_000_000
_INT32 = 2**31
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT64_TEXT = re.compile(r"-?[0-9]{1,19}")  # ASCII digits: "²".isdigit() is true, int("²") fails


class ProblemInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """errconv.v1.Problem in memory: what no standard detail carries (see protos/)."""

    type: str = ""
    title: str = ""
    instance: str = ""
    http_status: int = 0
    code: str = ""
    reason_synthesized: bool = False
    message_is_title: bool = False
    alternatives: tuple[Any, ...] = ()
    alternatives_truncated: bool = False
    extensions: dict[str, Any] = {}

    def __bool__(self) -> bool:
        return self != _EMPTY_PROBLEM


_EMPTY_PROBLEM = ProblemInfo()

# A decoded detail: a typed Detail, or our own Problem.
Item = Union[_d.Detail, ProblemInfo]


class Mismatch(Exception):
    """A known detail type whose members do not fit its schema; it is kept as RawDetail."""


def type_name(type_url: str) -> str:
    return type_url.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------- scalar values


def int64_value(value: Any, name: str) -> int:
    """A proto3 JSON int64 (a number, or a string of digits); Mismatch naming `name` otherwise."""
    if type(value) is str and len(value) <= 18 and value.isascii() and value.isdigit():  # the usual int64 text
        return int(value)
    if isinstance(value, bool):
        raise Mismatch(name)
    if isinstance(value, str) and _INT64_TEXT.fullmatch(value):
        value = int(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and _INT64_MIN <= value <= _INT64_MAX:
        return value
    raise Mismatch(name)  # not an int64: kept whole rather than failing on encode


def parse_duration(text: Any) -> int:
    """Nanoseconds in a proto3 JSON Duration ("30s", "2.463586755s")."""
    if type(text) is str and len(text) < 12 and text[-1:] == "s" and text[:-1].isdigit() and text.isascii():
        return int(text[:-1]) * _NANOS  # whole seconds, as most delays are (and within range)
    if not isinstance(text, str) or not text.endswith("s") or len(text) > 32:
        raise Mismatch("duration")
    if text[:1] == "-":  # a Duration may be negative (proto3 JSON writes "-5s"); RetryInfo then reads as 0
        return -parse_duration(text[1:]) if text[1:2] != "-" else _mismatch()
    whole, _, frac = text[:-1].partition(".")
    # [0-9]+ at C speed: among ASCII characters isdigit() is true for 0-9 alone.
    if not (whole.isascii() and whole.isdigit()) or (frac and not (frac.isascii() and frac.isdigit())):
        raise Mismatch("duration")
    seconds = int(whole)
    if seconds > MAX_DURATION_SECONDS:  # past google.protobuf.Duration's range: not a Duration
        raise Mismatch("duration")
    return seconds * _NANOS + (int((frac + "000000000")[:9]) if frac else 0)


def _mismatch() -> int:
    raise Mismatch("duration")


def format_duration(nanos: int) -> str:
    """proto3 JSON Duration with 0, 3, 6 or 9 fractional digits."""
    seconds, rest = divmod(nanos, _NANOS)
    if rest == 0:
        return f"{seconds}s"
    frac = f"{rest:09d}"
    for digits in (3, 6):
        if frac[digits:] == "0" * (9 - digits):
            return f"{seconds}.{frac[:digits]}s"
    return f"{seconds}.{frac}s"


def duration_from_pb(seconds: int, nanos: int) -> int:
    """Nanoseconds of a google.protobuf.Duration message, Mismatch outside its range."""
    # |seconds| within range, nanos of the same sign.
    if abs(seconds) > MAX_DURATION_SECONDS or abs(nanos) >= _NANOS or seconds * nanos < 0:
        raise Mismatch("duration")
    return max(0, seconds * _NANOS + nanos)


def check_depth(value: Any, limit: int) -> None:
    """Raise DecodeError when `value` nests deeper than `limit` arrays and objects."""
    if not value and limit > 0:  # an empty container (or a falsy scalar) nests nothing
        return
    # Level by level, containers only: no tuple per node (a body of 100,000 small
    # objects walked node by node cost several times its parse; issue 23).
    level: list[Any] = [value]
    depth = 0
    while level:
        deeper: list[Any] = []
        for node in level:
            if type(node) is dict or isinstance(node, dict):
                if depth >= limit:
                    raise DecodeError(f"JSON nests deeper than {limit} levels (the limit is Limits.max_depth)")
                deeper.extend(node.values())
            elif type(node) is list or isinstance(node, list):
                if depth >= limit:
                    raise DecodeError(f"JSON nests deeper than {limit} levels (the limit is Limits.max_depth)")
                deeper.extend(node)
        level = deeper
        depth += 1


def counted(items: Any, limits: Limits, what: str) -> Any:
    if len(items) > limits.max_violations:
        raise DecodeError(f"{len(items)} {what}, over the limit of {limits.max_violations} (Limits.max_violations)")
    return items


# --------------------------------------------------------------------------- JSON values <-> protobuf Value


def _set_value(out: struct_pb2.Value, value: Any) -> None:
    # Filled in place, each nested Value where it will live: building one and
    # copying it into its parent copies every level again. By exact type first
    # (bool is not int here), the isinstance checks for the rest (an IntEnum, a str
    # subclass).
    kind = type(value)
    if kind is str:
        out.string_value = value
    elif kind is int or kind is float:
        out.number_value = float(value)
    elif kind is bool:
        out.bool_value = value
    elif value is None:
        out.null_value = struct_pb2.NULL_VALUE
    elif kind is dict:
        _set_struct(out.struct_value, value)
    elif kind is list or kind is tuple:
        _set_list(out.list_value, value)
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, (int, float)):
        out.number_value = float(value)
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, dict):
        _set_struct(out.struct_value, value)
    elif isinstance(value, (list, tuple)):
        _set_list(out.list_value, value)
    else:
        raise TypeError(f"not a JSON value: {shorten(value)}")


def _set_list(out: struct_pb2.ListValue, value: Any) -> None:
    out.SetInParent()  # an empty list is still a list_value
    add = out.values.add
    for item in value:
        _set_value(add(), item)


def _set_struct(out: struct_pb2.Struct, value: dict[str, Any]) -> None:
    if not value:
        out.SetInParent()  # an empty object is still a Struct
        return
    fields = out.fields
    for key, item in value.items():
        # The usual members, strings and numbers, without a call each.
        kind = type(item)
        if kind is str:
            fields[key].string_value = item
        elif kind is int or kind is float:
            fields[key].number_value = float(item)
        else:
            _set_value(fields[key], item)


def python_to_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    _set_struct(out, value)
    return out


_WHOLE = float(2**53)
_NO_LIMIT = 2**63


def _too_deep(limit: int) -> DecodeError:
    # check_depth's words: the walk below is check_depth and struct_to_python in one.
    return DecodeError(f"JSON nests deeper than {limit} levels (the limit is Limits.max_depth)")


def _py_value(value: struct_pb2.Value, depth: int, limit: int) -> Any:
    """A Value as JSON, itself `depth` levels deep: DecodeError where an array or object
    lies `limit` levels deep or more (check_depth's rule, without a second walk)."""
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        # A whole double comes back an int, so that `30` survives the trip as `30`; -0.0
        # stays a float: it is a number JSON writes, and 0 would write it as 0.
        if number.is_integer() and -_WHOLE <= number <= _WHOLE and (number or str(number)[0] != "-"):
            return int(number)
        return number
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        return _py_struct(value.struct_value, depth, limit)
    if kind == "list_value":
        if depth >= limit:
            raise _too_deep(limit)
        depth += 1
        return [_py_value(v, depth, limit) for v in value.list_value.values]
    return None


def _py_struct(value: struct_pb2.Struct, depth: int, limit: int) -> dict[str, Any]:
    # Deterministic serialisation sorts map keys, so member order does not survive a
    # Status; the members and their values do. They are read back sorted too: a map's
    # own iteration order differs from one process to the next, and the JSON written
    # from a decoded Status must not. Keys then lookups: items() on a protobuf map runs
    # through the Python Mapping mixin.
    if depth >= limit:
        raise _too_deep(limit)
    fields = value.fields
    depth += 1
    return {key: _py_value(fields[key], depth, limit) for key in (sorted(fields) if len(fields) > 1 else fields)}


def struct_to_python(value: struct_pb2.Struct) -> dict[str, Any]:
    return _py_struct(value, 0, _NO_LIMIT)


# --------------------------------------------------------------------------- the schema


@dataclass(frozen=True)
class _Spec:
    """One field of a detail Struct, as the codecs see it."""

    attr: str  # the Python attribute
    proto: str  # the protobuf field name
    camel: str  # the proto3 JSON name
    kind: str  # string bool int32 int64 duration map struct strings values message messages
    nested: type | None  # the Struct of a message field
    optional: bool  # a scalar with presence (None when absent)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


def _specs(cls: type) -> tuple[_Spec, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for name in cls.__struct_fields__:  # type: ignore[attr-defined]
        hint, wire = hints[name], None
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extra = typing.get_args(hint)
            wire = next((e for e in extra if isinstance(e, Wire)), None)
        args = typing.get_args(hint)
        optional = typing.get_origin(hint) in (Union, types.UnionType) and type(None) in args
        if optional:
            hint = next(a for a in args if a is not type(None))
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        nested = None
        if wire is not None:
            kind = wire.kind
        elif hint is str:
            kind = "string"
        elif hint is bool:
            kind = "bool"
        elif hint is int:
            kind = "int32"
        elif origin is dict:
            kind = "map" if args[1] is str else "struct"
        elif origin is tuple and args[0] is str:
            kind = "strings"
        elif origin is tuple and args[0] is Any:
            kind = "values"
        elif origin is tuple:
            kind, nested = "messages", args[0]
        elif isinstance(hint, type) and issubclass(hint, msgspec.Struct):
            kind, nested = "message", hint
        else:  # pragma: no cover - a new field type needs a codec here first
            raise TypeError(f"{cls.__name__}.{name}: no wire form for {hint!r}")
        proto = wire.name if wire is not None and wire.name else name
        out.append(_Spec(name, proto, _camel(proto), kind, nested, optional and kind not in ("message",)))
    return tuple(out)


# Lines of generated source, by kind: `v` is the member's value, `a` the attribute's.
# The JSON readers keep an object whose members are not of their JSON type whole
# (Mismatch), and count repeated messages against Limits.max_violations.
_JSON_READ = {
    "string": ["if v is None: a = ''", "elif type(v) is str: a = v", "else: raise Mismatch({camel!r})"],
    "bool": ["if v is None: a = False", "elif v is True or v is False: a = v", "else: raise Mismatch({camel!r})"],
    "int32": [
        "if v is None: a = 0",
        "elif type(v) is int and -_INT32 <= v < _INT32: a = v",
        "else: raise Mismatch({camel!r})",
    ],
    "int64": ["a = {none} if v is None else int64_value(v, {camel!r})"],
    "duration": ["a = 0 if v is None else parse_duration(v)"],
    "map": [
        "if v is None: a = {{}}",
        "elif type(v) is dict and all(type(x) is str for x in v.values()): a = v",
        "else: raise Mismatch({camel!r})",
    ],
    "struct": [
        "if v is None: a = {{}}",
        "elif type(v) is dict: check_depth(v, limits.max_depth); a = v",
        "else: raise Mismatch({camel!r})",
    ],
    "strings": [
        "if v is None: a = ()",
        "elif type(v) is list and all(type(x) is str for x in v): a = tuple(v)",
        "else: raise Mismatch({camel!r})",
    ],
    "values": [
        "if v is None: a = ()",
        "elif type(v) is list: check_depth(v, limits.max_depth); a = tuple(v)",
        "else: raise Mismatch({camel!r})",
    ],
    "messages": [
        "if v is None: a = ()",
        "elif type(v) is list: a = tuple([{reader}(x, limits) for x in counted(v, limits, {what!r})])",
        "else: raise Mismatch({camel!r})",
    ],
    "message": ["a = None if v is None else {reader}(v, limits)"],
}
_JSON_WRITE = {
    "int64": ["if v{test}: out[{camel!r}] = str(v)"],
    "duration": ["out[{camel!r}] = format_duration(v)"],  # a RetryInfo always says its delay
    "strings": ["if v: out[{camel!r}] = list(v)"],
    "values": ["if v: out[{camel!r}] = list(v)"],
    "messages": ["if v: out[{camel!r}] = [{writer}(x) for x in v]"],
    "message": ["if v is not None: out[{camel!r}] = {writer}(v)"],
}
# Lines of the protobuf readers, by kind: `m` is the message, `{a}` the attribute's
# variable. A map or Struct is read keys then lookups (items() on a protobuf map runs
# through the Python Mapping mixin), and a Struct's depth is checked as it is walked
# (check_depth only for a limit that refuses even the top object, as it does).
_PB_READ = {
    "int64": ["{a} = m.{proto} if {presence} else None"],
    "duration": [
        "d = m.{proto}; s = d.seconds; n = d.nanos",
        # Whole seconds within range, as most delays are; duration_from_pb checks the rest.
        "{a} = s * _NANOS if not n and 0 <= s <= MAX_DURATION_SECONDS else duration_from_pb(s, n)",
    ],
    "map": ["v = m.{proto}; {a} = {{k: v[k] for k in (sorted(v) if len(v) > 1 else v)}}"],
    "struct": [
        "{a} = _py_struct(m.{proto}, 0, limits.max_depth) if m.HasField({proto!r}) else {{}}",
        "if limits.max_depth <= 0: check_depth({a}, limits.max_depth)",
    ],
    "strings": ["{a} = tuple(m.{proto})"],
    "values": [
        "v = m.{proto}; {a} = tuple([_py_value(x, 1, limits.max_depth) for x in v]) if v else ()",
        "if limits.max_depth <= 0: check_depth(list({a}), limits.max_depth)",
    ],
    "messages": ["v = m.{proto}; {a} = tuple([{reader}(x, limits) for x in counted(v, limits, {what!r})]) if v else ()"],
    "message": ["{a} = {reader}(m.{proto}, limits) if m.HasField({proto!r}) else None"],
}
_PB_WRITE = {
    "duration": ["s, n = divmod(v, _NANOS); d[{proto!r}] = {{'seconds': s, 'nanos': n}}"],
    "messages": ["d[{proto!r}] = [{writer}(x) for x in v]"],
    "message": ["if v is not None: d[{proto!r}] = {writer}(v)"],
    # Struct and Value are filled in place once the message exists (see _set_struct).
    "struct": [],
    "values": [],
}


# The proto3 JSON wire form of each kind, for msgspec to decode the usual shape in C
# (a member of another JSON type, null, an unknown or snake_case member, sends the body
# the general way, through the readers above).
def _wire_type(spec: _Spec, wires: dict[type, Any]) -> tuple[Any, Any]:
    """The msgspec type and default of a field on the wire."""
    kind = spec.kind
    if kind == "string":
        return str, ""
    if kind == "bool":
        return bool, False
    if kind == "int32":
        return int, 0
    if kind == "int64":  # a JSON string, or a number
        return (int | float | str | None, None) if spec.optional else (int | float | str, 0)
    if kind == "duration":
        return str | None, None
    if kind == "map":
        return dict[str, str], msgspec.field(default_factory=dict)
    if kind == "struct":
        return dict[str, Any], msgspec.field(default_factory=dict)
    if kind == "strings":
        return list[str], msgspec.field(default_factory=list)
    if kind == "values":
        return list[Any], msgspec.field(default_factory=list)
    nested: Any = wires.get(spec.nested)  # type: ignore[arg-type]
    if kind == "messages":
        return list[nested], msgspec.field(default_factory=list)
    return nested | None, None  # message


# Lines of the converters from a wire Struct to the model's, by kind (`v` the wire value).
_WIRE_READ = {
    "int32": ["if not -_INT32 <= v < _INT32: raise Mismatch({camel!r})", "a = v"],
    "int64": ["a = v if v is None or type(v) is int and _INT64_MIN <= v <= _INT64_MAX else int64_value(v, {camel!r})"],
    "duration": ["a = 0 if v is None else parse_duration(v)"],
    "struct": ["if v: check_depth(v, limits.max_depth); beyond(v)", "a = v"],
    "strings": ["a = tuple(v)"],
    "values": ["if v: check_depth(v, limits.max_depth); beyond(v)", "a = tuple(v)"],
    "messages": ["a = tuple([{reader}(x, limits) for x in counted(v, limits, {what!r})]) if v else ()"],
    "message": ["a = None if v is None else {reader}(v, limits)"],
}


# The kinds whose model value is one expression of the wire value `{v}`: written inline
# in the constructor call, with no statement of their own.
_WIRE_EXPR = {
    "string": "{v}",
    "bool": "{v}",
    "map": "{v}",
    "duration": "0 if {v} is None else parse_duration({v})",
    "strings": "tuple({v})",
    "message": "None if {v} is None else {reader}({v}, limits)",
}


def _wire_source(cls: type, specs: tuple[_Spec, ...], names: dict[type, str]) -> str:
    me = names[cls]
    lines = [f"def wire_read_{me}(w, limits):"]
    args = []
    for s in specs:
        what = f"{s.proto.replace('_', ' ')} of {cls.__name__}"
        sub = {"camel": s.camel, "what": what, "reader": f"wire_read_{names[s.nested]}" if s.nested else ""}
        expr = _WIRE_EXPR.get(s.kind, None if s.kind in _WIRE_READ else "{v}")
        if expr is not None:
            args.append(f"{s.attr}={expr.format(v=f'w.{s.attr}', **sub)}")
            continue
        lines.append(f"    v = w.{s.attr}")
        lines += ["    " + line.format(**sub) for line in _WIRE_READ[s.kind]]
        lines.append(f"    {s.attr}_ = a")
        args.append(f"{s.attr}={s.attr}_")
    lines.append(f"    return {cls.__name__}({', '.join(args)})")
    return "\n".join(lines) + "\n"


def _beyond(value: Any) -> None:
    # msgspec reads a 4000-digit integer exactly; the general way names it (read_json).
    if beyond_double(value) is not None:
        raise Mismatch("number")


@dataclass
class _Codec:
    cls: type
    url: str  # the usual type URL, TYPE_PREFIX + the full name
    pb: Any  # the protobuf class
    from_json: Callable[[dict[str, Any], Limits], Any]
    to_json: Callable[[Any, dict[str, Any]], None]  # adds the members to an entry holding "@type"
    from_pb: Callable[[Any, Limits], Any]
    from_bytes: Callable[[bytes, Limits], Any]  # FromString and from_pb in one
    to_pb: Callable[[Any], bytes]
    wire: Any  # the msgspec Struct of its proto3 JSON, tagged by "@type"
    from_wire: Callable[[Any, Limits], Any]


def _source(cls: type, specs: tuple[_Spec, ...], names: dict[type, str], pb_class: bool, deterministic: bool) -> str:
    """The functions of one Struct, as Python source (a nested one has no protobuf class
    of its own: its messages are written as the dicts protobuf builds in C)."""
    me = names[cls]
    lines = [f"def json_read_{me}(obj, limits):", "    if type(obj) is not dict: raise Mismatch('object')"]
    for s in specs:
        what = f"{s.proto.replace('_', ' ')} of {cls.__name__}"
        sub = {"camel": s.camel, "none": "None" if s.optional else "0", "what": what}
        sub["reader"] = f"json_read_{names[s.nested]}" if s.nested else ""
        lines.append(f"    v = obj.get({s.camel!r})")
        if s.camel != s.proto:
            lines.append(f"    if v is None: v = obj.get({s.proto!r})")
        lines += ["    " + line.format(**sub) for line in _JSON_READ[s.kind]]
        lines.append(f"    {s.attr}_ = a")
    lines.append(f"    return {cls.__name__}({', '.join(f'{s.attr}={s.attr}_' for s in specs)})")

    lines += ["", f"def json_write_{me}(item, out):"]
    for s in specs:
        sub = {"camel": s.camel, "test": " is not None" if s.optional else ""}
        sub["writer"] = f"json_members_{names[s.nested]}" if s.nested else ""
        lines.append(f"    v = item.{s.attr}")
        lines += ["    " + line.format(**sub) for line in _JSON_WRITE.get(s.kind, ["if v: out[{camel!r}] = v"])]
    lines += ["", f"def json_members_{me}(item):", "    out = {}", f"    json_write_{me}(item, out)", "    return out"]

    body = []
    for s in specs:
        what = f"{s.proto.replace('_', ' ')} of {cls.__name__}"
        sub = {"proto": s.proto, "what": what, "a": f"{s.attr}_"}
        sub["presence"] = f"m.HasField({s.proto!r})" if s.optional else "True"
        sub["reader"] = f"pb_read_{names[s.nested]}" if s.nested else ""
        plain = s.kind not in _PB_READ or (s.kind == "int64" and not s.optional)
        body += ["    " + line.format(**sub) for line in (["{a} = m.{proto}"] if plain else _PB_READ[s.kind])]
    if cls is ProblemInfo:  # the one range its type does not hold (see _check)
        body.append("    if http_status_ and not 100 <= http_status_ <= 599: raise Mismatch('httpStatus')")
    body.append(f"    return {cls.__name__}({', '.join(f'{s.attr}={s.attr}_' for s in specs)})")
    lines += ["", f"def pb_read_{me}(m, limits):", *body]
    if pb_class:
        # From the Any's value: the parse and the read in one call.
        lines += ["", f"def pb_bytes_{me}(b, limits):", f"    m = PB_{me}.FromString(b)", *body]

    lines += ["", f"def pb_dict_{me}(item):", "    d = {}"]
    for s in specs:
        sub = {"proto": s.proto, "writer": f"pb_dict_{names[s.nested]}" if s.nested else ""}
        default = ["if v is not None: d[{proto!r}] = v"] if s.optional else ["d[{proto!r}] = v"]
        lines.append(f"    v = item.{s.attr}")
        lines += ["    " + line.format(**sub) for line in _PB_WRITE.get(s.kind, default)]
    lines.append("    return d")
    if not pb_class:
        return "\n".join(lines) + "\n"

    lines += ["", f"def pb_write_{me}(item):", f"    m = PB_{me}(**pb_dict_{me}(item))"]
    for s in specs:
        if s.kind == "struct":
            lines.append(f"    if item.{s.attr}: _set_struct(m.{s.proto}, item.{s.attr})")  # absent when empty
        elif s.kind == "values":
            lines.append(f"    for x in item.{s.attr}: _set_value(m.{s.proto}.add(), x)")
    # Only a map of two entries or more (a Struct is a map) needs deterministic
    # serialisation, which sorts the keys as the golden bytes have them; for the
    # others it would change nothing and costs time.
    lines.append(f"    return m.SerializeToString(deterministic={_needs_sorting(specs) if deterministic else False})")
    return "\n".join(lines) + "\n"


def _needs_sorting(specs: tuple[_Spec, ...]) -> str:
    """The test, in generated source, of whether an item holds a map whose order the
    wire could show: one of two entries or more, or anything holding a map."""
    tests = []
    for s in specs:
        if s.kind == "map":
            tests.append(f"len(item.{s.attr}) > 1")
        elif s.kind in ("struct", "values") or (s.kind == "messages" and _has_map(s.nested)):  # type: ignore[arg-type]
            tests.append(f"bool(item.{s.attr})")
        elif s.kind == "message" and _has_map(s.nested):  # type: ignore[arg-type]
            tests.append(f"item.{s.attr} is not None")
    return " or ".join(tests) or "False"


def _nested(cls: type, seen: list[type]) -> list[type]:
    """`cls` and every Struct its fields hold, innermost first."""
    for s in _specs(cls):
        if s.nested is not None and s.nested not in seen:
            _nested(s.nested, seen)
    if cls not in seen:
        seen.append(cls)
    return seen


def _has_map(cls: type) -> bool:
    return any(s.kind in ("map", "struct", "values") or (s.nested is not None and _has_map(s.nested)) for s in _specs(cls))


def _build(types_: dict[str, tuple[type, Any]]) -> tuple[dict[str, _Codec], dict[type, Callable[[Any], dict[str, Any]]]]:
    """Compile the codecs of the top-level detail types (full name -> Struct and protobuf
    class), and the proto3 JSON writer of every Struct, nested ones included."""
    classes: list[type] = []
    for cls, _ in types_.values():
        _nested(cls, classes)
    names = {cls: f"{cls.__name__}_{i}" for i, cls in enumerate(classes)}
    namespace: dict[str, Any] = {
        **{cls.__name__: cls for cls in classes},
        **{f"PB_{names[cls]}": pb for cls, pb in types_.values()},
        "Mismatch": Mismatch,
        "_INT32": _INT32,
        "_NANOS": _NANOS,
        "MAX_DURATION_SECONDS": MAX_DURATION_SECONDS,
        "int64_value": int64_value,
        "parse_duration": parse_duration,
        "format_duration": format_duration,
        "duration_from_pb": duration_from_pb,
        "check_depth": check_depth,
        "counted": counted,
        "_py_struct": _py_struct,
        "_py_value": _py_value,
        "_set_struct": _set_struct,
        "_set_value": _set_value,
    }
    top = {cls for cls, _ in types_.values()}
    urls = {cls: TYPE_PREFIX + full for full, (cls, _) in types_.items()}
    wires: dict[type, Any] = {}
    for cls in classes:  # innermost first: a message field names its wire Struct
        specs = _specs(cls)
        fields = [(s.attr, *_wire_type(s, wires)) for s in specs]
        options: dict[str, Any] = {"rename": {s.attr: s.camel for s in specs}, "forbid_unknown_fields": True}
        if cls in urls:
            options.update(tag_field="@type", tag=urls[cls])
        wires[cls] = msgspec.defstruct(f"Wire{cls.__name__}", fields, **options)
    namespace.update(
        _INT64_MIN=_INT64_MIN, _INT64_MAX=_INT64_MAX, beyond=_beyond, **{f"Wire_{names[c]}": w for c, w in wires.items()}
    )
    source = "\n".join(_source(cls, _specs(cls), names, cls in top, _has_map(cls)) for cls in classes)
    source += "\n" + "\n".join(_wire_source(cls, _specs(cls), names) for cls in classes)
    exec(compile(source, "<errconv detail codecs>", "exec"), namespace)  # noqa: S102 - our own source, built above
    out = {}
    for full, (cls, pb) in types_.items():
        me = names[cls]
        out[full] = _Codec(
            cls=cls,
            url=TYPE_PREFIX + full,
            pb=pb,
            from_json=namespace[f"json_read_{me}"],
            to_json=namespace[f"json_write_{me}"],
            from_pb=namespace[f"pb_read_{me}"],
            from_bytes=namespace[f"pb_bytes_{me}"],
            to_pb=namespace[f"pb_write_{me}"],
            wire=wires[cls],
            from_wire=namespace[f"wire_read_{me}"],
        )
    return out, {cls: namespace[f"json_members_{names[cls]}"] for cls in classes}


# The codecs of every type errconv reads and writes by name (the ten google.rpc details and
# errconv.v1.Problem), and the tables over them, are built the first time a detail is read or
# written: compiling their source costs more than importing the rest of errconv, and a program
# that imports errconv may never read a detail. Until then the tables are empty; every
# function below that reads them calls _ready() first.
_CODECS: dict[str, _Codec] = {}
_MEMBERS: dict[type, Callable[[Any], dict[str, Any]]] = {}
_BY_CLASS: dict[type, _Codec] = {}
# The usual type URLs, looked up whole; any other prefix goes by the name after its last "/".
_BY_URL: dict[str, _Codec] = {}
# The JSON reader of each type under its usual URL, for the one lookup most details take.
_JSON_READ_URL: dict[str, Callable[[Any, Limits], Any]] = {}
_FROM_WIRE: dict[type, Callable[[Any, Limits], Any]] = {}
# The protobuf reader of each type under its usual URL, for the one lookup most details take.
_PB_BYTES_URL: dict[str, Callable[[bytes, Limits], Any]] = {}
_WIRE_DETAIL: list[Any] = []
_BUILT = [False]
_BUILDING = threading.Lock()


def _ready() -> None:
    """Build the codecs and fill the tables, once (see above)."""
    if _BUILT[0]:
        return
    with _BUILDING:
        if _BUILT[0]:
            return
        codecs, members = _build(
            {
                **{name: (cls, getattr(_ed, name.rsplit(".", 1)[-1])) for cls, name in _d.TYPE_NAMES.items()},
                PROBLEM_TYPE: (ProblemInfo, _problem_pb2.Problem),
            }
        )
        _MEMBERS.update(members)
        _BY_CLASS.update({codec.cls: codec for codec in codecs.values()})
        _BY_URL.update({codec.url: codec for codec in codecs.values()})
        _JSON_READ_URL.update(
            {codec.url: _checked(codec.from_json) if codec.cls is ProblemInfo else codec.from_json for codec in codecs.values()}
        )
        _FROM_WIRE.update(
            {codec.wire: _checked(codec.from_wire) if codec.cls is ProblemInfo else codec.from_wire for codec in codecs.values()}
        )
        _PB_BYTES_URL.update({codec.url: codec.from_bytes for codec in codecs.values()})
        _PB_BYTES_URL[TYPE_PREFIX + OPAQUE_TYPE] = _opaque_from_bytes
        _WIRE_DETAIL.append(Union[tuple(codec.wire for codec in codecs.values())])
        _CODECS.update(codecs)
        _BUILT[0] = True


def _check(item: Any) -> Any:
    # The one range a Struct's type does not hold: an HTTP status.
    if type(item) is ProblemInfo and not (item.http_status == 0 or 100 <= item.http_status <= 599):
        raise Mismatch("httpStatus")
    return item


def _checked(read: Callable[[Any, Limits], Any]) -> Callable[[Any, Limits], Any]:
    def checked_read(value: Any, limits: Limits) -> Any:
        return _check(read(value, limits))

    return checked_read


def _codec_for(type_url: str) -> _Codec | None:
    _ready()
    return _BY_URL.get(type_url) or _CODECS.get(type_name(type_url))


# The union a typed decode reads a `details` entry into: any known type under its usual URL
# (built with the codecs, when a module first imports the name).
if TYPE_CHECKING:
    WireDetail: TypeAlias = Any
else:

    def __getattr__(name: str) -> Any:
        if name == "WireDetail":
            _ready()
            return _WIRE_DETAIL[0]
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def model_items(entries: list[Any], limits: Limits) -> list[Item]:
    """The model's details from a `details` list read either way: wire Structs (a typed
    decode; Mismatch where one holds a value out of its type's range, for the caller to
    read the body the general way) or JSON objects (item_from_json)."""
    if not _BUILT[0]:
        _ready()
    out: list[Item] = []
    for entry in entries:
        convert = _FROM_WIRE.get(type(entry))
        out.append(convert(entry, limits) if convert is not None else item_from_json(entry, limits))
    return out


def typed_items(wire: list[Any], limits: Limits) -> list[Item] | None:
    """The model's details from a typed decode's, or None where the general readers must
    read them (a value of no type, past a range)."""
    if not _BUILT[0]:
        _ready()
    try:
        return [_FROM_WIRE[type(w)](w, limits) for w in wire]
    except Mismatch:
        return None


# --------------------------------------------------------------------------- one detail


def item_from_json(value: Any, limits: Limits) -> Item:
    """One entry of a JSON `details` array."""
    if not _BUILT[0]:
        _ready()
    if type(value) is dict and "@bytes" not in value:
        type_url = value.get("@type")
        read = _JSON_READ_URL.get(type_url) if type(type_url) is str else None
        if read is not None:  # a known type under its usual URL: most details
            try:
                return read(value, limits)  # type: ignore[no-any-return]
            except Mismatch:
                pass  # kept whole below, as it came
    return _item_from_json(value, limits)


def _item_from_json(value: Any, limits: Limits) -> Item:
    if not isinstance(value, dict):
        raise DecodeError(f"a details entry must be a JSON object with \"@type\", got {shorten(value)}")
    type_url = value.get("@type", "")  # a detail without "@type" is kept, untyped, as it came
    if not isinstance(type_url, str):
        raise DecodeError(f"a details entry needs a string \"@type\", got {shorten(value)}")
    # Packed bytes kept raw ("@bytes" is no proto3 JSON field name), whatever the type:
    # a known type whose bytes did not parse travels this way too.
    packed = value.get("@bytes")
    if isinstance(packed, str) and len(value) == (2 if "@type" in value else 1):
        try:
            return RawDetail(type_url=type_url, value=base64.b64decode(packed, validate=True))
        except (binascii.Error, ValueError):
            pass  # not base64: kept whole, as it came, like any member errconv cannot read
    codec = _codec_for(type_url)
    if codec is not None:
        try:
            return _check(codec.from_json(value, limits))  # type: ignore[no-any-return]
        except Mismatch:
            pass  # keep it whole, as it came
    fields = {k: v for k, v in value.items() if k != "@type"}
    check_depth(fields, limits.max_depth)
    return RawDetail(type_url=type_url, fields=fields)


def item_to_json(item: Item) -> dict[str, Any]:
    """One entry of a JSON `details` array, "@type" first."""
    if not _BUILT[0]:
        _ready()
    codec = _BY_CLASS.get(type(item))
    if codec is not None:
        out: dict[str, Any] = {"@type": codec.url}
        codec.to_json(item, out)
        return out
    if isinstance(item, RawDetail):
        if item.fields is not None:
            return {"@type": item.type_url, **item.fields} if item.type_url else dict(item.fields)
        # Bytes of an unknown type have no proto3 JSON form; "@bytes" cannot clash
        # with a field name, so the detail comes back exactly.
        return {"@type": item.type_url, "@bytes": base64.b64encode(item.value or b"").decode()}
    raise TypeError(f"not a detail: {shorten(item)}")


def json_names(cls: type) -> dict[str, str]:
    """attribute -> proto3 JSON member name, for the fields of a detail Struct."""
    return {s.attr: s.camel for s in _specs(cls)}


def members_writer(cls: type) -> Callable[[Any], dict[str, Any]]:
    """The proto3 JSON writer of the members of a detail Struct or of one nested in one. It
    reads attributes, so it writes anything that has them: a Fault's Violation as a
    BadRequest.FieldViolation (its reason None is proto3's empty reason)."""
    if _BUILT[0]:
        return _MEMBERS[cls]

    def write(item: Any) -> dict[str, Any]:  # asked for at import: the codecs come later
        _ready()
        return _MEMBERS[cls](item)

    return write


def item_from_any(type_url: str, value: bytes, limits: Limits) -> Item:
    """One packed detail of a Status, from its Any's type URL and value."""
    if not _BUILT[0]:
        _ready()
    read = _PB_BYTES_URL.get(type_url)
    if read is not None:  # a known type under its usual URL: most details
        try:
            return read(value, limits)  # type: ignore[no-any-return]
        except (ProtoDecodeError, Mismatch):
            return RawDetail(type_url=type_url, value=value)
    return _item_from_any(type_url, value, limits)


def items_from_anys(details: Iterable[Any], limits: Limits) -> list[Item]:
    """`item_from_any` of each Any of a Status's details, in order."""
    if not _BUILT[0]:
        _ready()
    out: list[Item] = []
    append = out.append
    get = _PB_BYTES_URL.get
    for detail in details:
        type_url = detail.type_url
        read = get(type_url)
        if read is None:
            append(_item_from_any(type_url, detail.value, limits))
            continue
        value = detail.value
        try:
            append(read(value, limits))
        except (ProtoDecodeError, Mismatch):
            # A detail of a known type that does not parse, or does not fit its type's
            # range, still travels untouched.
            append(RawDetail(type_url=type_url, value=value))
    return out


def _item_from_any(type_url: str, value: bytes, limits: Limits) -> Item:
    # The rest: errconv.v1.OpaqueDetail, a known type under another URL prefix, an unknown type.
    if type_url == TYPE_PREFIX + OPAQUE_TYPE or type_name(type_url) == OPAQUE_TYPE:
        try:
            return _opaque_from_pb(_problem_pb2.OpaqueDetail.FromString(value), limits)
        except ProtoDecodeError:
            return RawDetail(type_url=type_url, value=value)
    codec = _codec_for(type_url)
    if codec is None:
        return RawDetail(type_url=type_url, value=value)
    try:
        return codec.from_bytes(value, limits)  # type: ignore[no-any-return]
    except (ProtoDecodeError, Mismatch):
        return RawDetail(type_url=type_url, value=value)


def _opaque_from_pb(msg: Any, limits: Limits) -> Item:
    # A detail that came as JSON. Its members are read as the JSON dialects read them,
    # so that one that fits its type's schema (a hand-made OpaqueDetail naming
    # google.rpc.DebugInfo) is that type here too, not only there.
    fields = _py_struct(msg.fields, 0, limits.max_depth)  # depth checked here, once
    type_url = msg.type_url
    if "@type" in fields or ("@bytes" not in fields and _codec_for(type_url) is None):
        # Kept as its members, as item_from_json keeps a type it does not know.
        return RawDetail(type_url=type_url, fields=fields)
    return item_from_json({"@type": type_url, **fields} if type_url else fields, limits)


def _opaque_from_bytes(value: bytes, limits: Limits) -> Item:
    return _opaque_from_pb(_problem_pb2.OpaqueDetail.FromString(value), limits)



def pack_item(item: Item) -> tuple[str, bytes]:
    """One detail for a Status, as its Any's type URL and value.

    A pair rather than an Any: the Status is built from these in one call, where an
    Any object would be built here only to be copied into it.
    """
    if not _BUILT[0]:
        _ready()
    codec = _BY_CLASS.get(type(item))
    if codec is not None:
        return codec.url, codec.to_pb(item)
    if isinstance(item, RawDetail):
        if item.value is not None:
            return item.type_url, item.value
        msg = _problem_pb2.OpaqueDetail(type_url=item.type_url)
        _set_struct(msg.fields, item.fields or {})
        return TYPE_PREFIX + OPAQUE_TYPE, msg.SerializeToString(deterministic=True)
    raise TypeError(f"not an error detail: {shorten(item)}")


def beyond_double(obj: Any) -> int | None:
    """An integer in `obj` (JSON arrays and objects) that no JSON double holds, or None."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, int) and abs(node) > _DOUBLE_MAX:
            return node
    return None


# The largest double, as the integer it is: compiled (mypyc), an int compared with a
# float is converted to a double first, which raises OverflowError for a 4000-digit one.
_DOUBLE_MAX = int(sys.float_info.max)
