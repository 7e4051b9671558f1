"""The dialect protocol: what a dialect states about itself, and the three things it does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import msgspec

from .._model.errors import DecodeError
from .._model.fault import Fault
from ._common import Headers, Reading, Writing, has_long_digit_run, read_json
from ._costly_numbers import costly_numbers

__all__ = ["CERTAIN", "Dialect", "HttpInfo", "LIKELY", "STRONG", "WEAK", "decode_json", "liberal"]

# How strongly `recognise` claims a body. The strongest claim wins; among equal claims
# the dialect registered first does (the built-in order is the precedence list of
# research/dialects.md, section 10).
CERTAIN = 4.0  # a marker no other format has (`"jsonrpc": "2.0"`, `kind: Status`, the media type)
STRONG = 3.0  # the format's distinctive shape (a google.rpc.Code name in `error.status`)
LIKELY = 2.0  # the shape, with look-alikes ruled out as far as the body allows
WEAK = 1.0  # only members that several formats share


class HttpInfo:
    """What a dialect sees of the HTTP response around a body: its status, its headers
    and its media type (lower case, without parameters)."""

    __slots__ = ("status", "headers", "media_type")

    def __init__(self, status: int | None, headers: Headers, media_type: str) -> None:
        self.status = status
        self.headers = headers
        self.media_type = media_type


class Dialect:
    """A wire format errconv reads and writes. Subclass it and state only what differs.

    Class attributes:

    - `name`: the key everything uses (`decode(data, name)`, `--to name`, the golden
      file `golden/<case>/<name>.<suffix>`, the module `errconv.dialects.<name>` with
      `-` and `+` as `_`, the tests `tests/dialects/test_<module>.py`);
    - `media_type`: the Content-Type of its body inside HTTP; a dialect with one (that
      encodes) also gives `http+<name>`, a whole HTTP response around its body;
      `content_type` is what that response says, when not just the media type
      (parameters); `media_types` are further types that mark its bodies;
    - `form`: what `decode` receives: `json` (the body parsed once, a Python value),
      `bytes`, `pairs` (gRPC trailers) or `http` (a whole response, as bytes);
    - `suffix`, `binary`: its golden file's ending, and whether its bytes are not text;
    - `encodes`: False for a dialect errconv reads but does not write;
    - `reserved`: the member names it writes beside extension members; a Fault cannot
      be built with an extension of such a name, and no encoder lets an extension
      overwrite one;
    - `errors_on_success`: its bodies can report a failure inside a 2xx response
      (GraphQL, JSON-RPC, Slack), which is otherwise no error;
    - `precedence`: which of two equal claims wins in detection, the lower first (the
      narrower shape before the wider one it resembles); the built-in dialects state
      theirs, and one that states none comes after them, in the order registered;
    - `listed`: where `names()`, the command line and the golden cases list it (the
      order errconv gained its dialects), the same default;
    - `one_line`: its bytes hold no line break, so JSON Lines can carry them;
    - `lossless`: it carries every Fault that `Fault.build` makes (its `http+` form
      all but DebugInfo, which an outer boundary drops); the property tests hold it to that;
    - `keys`: for a JSON dialect, the top-level members at least one of which every
      object it recognises has (outside HTTP that names its media type); detection asks
      only the dialects whose keys a body has. None: it may claim any value;
    - `ceiling`: the strongest claim `recognise` makes of a response that does not name
      the dialect's own media type (or of a bare body); detection skips a dialect whose
      ceiling cannot beat the claim already found. A test holds every corpus body to it;
    - `schema`: a msgspec type the usual shape of its bodies decodes into, in C; with one,
      `decode_typed(body, reading)` gets the body as that type (decoded straight from the
      bytes, or converted from the parsed value) and may answer None to have `decode`
      read the JSON value the general way instead (an odd shape the type cannot hold).

    Methods, one signature for every dialect:

    - `recognise(value, http)`: how strongly `value` (in the dialect's form) is one of
      its bodies (0 for not at all; CERTAIN, STRONG, LIKELY, WEAK), `http` being the
      response around it or None for a bare body;
    - `decode(value, reading)`: the Fault; it ends with `reading.finish(fields, stated)`;
    - `encode(fault, writing)`: the bytes;
    - `http_headers(fault, writing)`: headers of its own for `http+<name>`;
    - `non_json(body, http)`: for a `json` dialect, what to read of a body that is not
      plain JSON: the JSON inside a framing of its own media type (Connect's streaming
      envelopes, `http` naming it), or the body itself for a dialect whose bodies may be
      another format (AWS's XML errors: `recognise` and `decode` then get those bytes,
      as a `bytes` dialect's do, and tell the two apart by type); None, the default: not
      its. A dialect that overrides it is asked about bodies that are not JSON.
    """

    name: ClassVar[str] = ""
    media_type: ClassVar[str | None] = None
    content_type: ClassVar[str | None] = None
    media_types: ClassVar[tuple[str, ...]] = ()
    form: ClassVar[str] = "json"
    suffix: ClassVar[str] = "json"
    binary: ClassVar[bool] = False
    encodes: ClassVar[bool] = True
    reserved: ClassVar[frozenset[str]] = frozenset()
    precedence: ClassVar[int] = 1000
    listed: ClassVar[int] = 1000
    errors_on_success: ClassVar[bool] = False
    one_line: ClassVar[bool] = True
    lossless: ClassVar[bool] = False
    keys: ClassVar[frozenset[str] | None] = None
    ceiling: ClassVar[float] = CERTAIN
    schema: ClassVar[Any] = None

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """How strongly `value` is one of this dialect's bodies (0: not at all)."""
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        """The Fault in `value` (in this dialect's form)."""
        raise DecodeError(f"{self.name} cannot be decoded")

    def decode_typed(self, body: Any, reading: Reading) -> Fault | None:
        """The Fault in a body of `schema`'s type, or None (before touching `reading`) to
        have `decode` read it the general way."""
        return None

    def encode(self, fault: Fault, writing: Writing) -> bytes:
        """`fault` written in this dialect."""
        raise NotImplementedError(f"{self.name} is read, not written")

    def http_headers(self, fault: Fault, writing: Writing) -> list[tuple[str, str]]:
        """Headers of this dialect's own in an HTTP response around its body (values
        safe to send: numbers, fixed strings, or text checked for controls)."""
        return []

    def non_json(self, body: bytes, http: HttpInfo | None) -> bytes | None:
        """What to read of a body that is not plain JSON (see the class docstring): JSON
        inside a framing, the body itself, or None for a body that is not this dialect's."""
        return None

    def body_form(self, body: Dialect) -> Dialect:
        """For the dialect of form `http` (a whole response): the `http+<name>` dialect
        whose body is in `body`. The registry asks it for every dialect with a media type."""
        raise NotImplementedError(f"{self.name} wraps no other dialect")

    @property
    def module(self) -> str:
        """The module name the naming rule gives the key."""
        return self.name.replace("-", "_").replace("+", "_")

    def __repr__(self) -> str:
        return f"<dialect {self.name}>"


_UNSET: Any = object()
_DECODERS: dict[Any, Any] = {}


def decode_json(dialect: Dialect, reading: Reading, raw: bytes | None = None, value: Any = _UNSET) -> Fault:
    """A JSON body read by `dialect`: straight into its schema when it has one and the body
    fits it, else the general way, from the JSON value (parsed from `raw` if need be).
    The body is parsed once either way but for an odd shape read from bytes (tried as
    the schema first)."""
    schema = dialect.schema
    if schema is not None and (value is not _UNSET or len(raw) <= 308 or not (has_long_digit_run(raw) or costly_numbers(raw))):  # type: ignore[arg-type]
        # (A 309-digit number is for the general way to name: read_json does.)
        try:
            if value is _UNSET:
                decoder = _DECODERS.get(schema)
                if decoder is None:
                    decoder = _DECODERS[schema] = msgspec.json.Decoder(schema)
                typed = decoder.decode(raw)  # type: ignore[arg-type]
            else:
                typed = msgspec.convert(value, schema)
        except (msgspec.MsgspecError, RecursionError, UnicodeError):
            typed = None  # another shape, or no JSON at all: the general way reads it, or says what is wrong
        if typed is not None:
            fault = dialect.decode_typed(typed, reading)
            if fault is not None:
                return fault
    if value is _UNSET:
        value = read_json(raw, reading.limits, f"the {dialect.name} body")  # type: ignore[arg-type]
    return dialect.decode(value, reading)


# --------------------------------------------------------------------------- the general way


def liberal(
    obj: dict[str, Any], schema: Any, hooks: dict[str, Callable[[Any], Any]] | None = None
) -> tuple[Any, set[str]]:
    """`obj` (a JSON object) read as `schema` member by member, the general way for a
    body whose shape the schema cannot take whole: each member of the type its field
    says is read; one of another type (null included) or unknown is left, as RFC 9457
    section 3.1 asks, for the caller to keep as an extension. `hooks` read a field their
    own way (a details list), giving UNSET to leave it. Returns the schema's instance and
    the names of the members read into it."""
    fields = _fields_of(schema)
    kwargs: dict[str, Any] = {}
    taken: set[str] = set()
    for name, value in obj.items():
        found = fields.get(name)
        if found is None:
            continue
        attr, fast, box = found
        if hooks is not None and attr in hooks:
            value = hooks[attr](value)
            if value is msgspec.UNSET:
                continue
        elif fast is not None:
            if not fast(value):
                continue
        else:
            try:
                value = msgspec.convert({"v": value}, box).v
            except msgspec.ValidationError:
                continue
        kwargs[attr] = value
        taken.add(name)
    return schema(**kwargs), taken


# The field types most schemas use, checked in Python: msgspec.convert is for the rest.
_FAST: dict[Any, Callable[[Any], bool]] = {
    str | msgspec.UnsetType: lambda v: type(v) is str,
    bool | msgspec.UnsetType: lambda v: v is True or v is False,
    int | float | msgspec.UnsetType: lambda v: type(v) is int or type(v) is float,
}
_FIELDS: dict[Any, dict[str, tuple[str, Callable[[Any], bool] | None, Any]]] = {}


def _fields_of(schema: Any) -> dict[str, tuple[str, Callable[[Any], bool] | None, Any]]:
    """encode name -> (attribute, a check in Python or None, a one-field Struct for
    msgspec to check a value with)."""
    found = _FIELDS.get(schema)
    if found is None:
        found = {
            f.encode_name: (f.name, _FAST.get(f.type), msgspec.defstruct(f"{schema.__name__}_{f.name}", [("v", f.type)]))
            for f in msgspec.structs.fields(schema)
        }
        _FIELDS[schema] = found
    return found


def reads_other_bytes(dialect: Dialect) -> bool:
    """Whether a `json` dialect reads bodies that are not plain JSON (it has `non_json`)."""
    return type(dialect).non_json is not Dialect.non_json
