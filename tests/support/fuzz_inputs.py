"""Hostile inputs for the fuzz suite: every golden file and real-world capture, mutated.

`inputs()` is a hypothesis strategy of `(dialect, data)` pairs: a golden file (or a
hand-kept source, or a capture from tests/realworld/, which is where the decode-only
dialects get theirs) of `dialect`, put through one to three mutations picked from

- byte level: truncation, bit and byte flips, inserted and deleted spans, splices
  with a file of another dialect, invalid UTF-8;
- JSON level (every JSON body, also inside an HTTP response): a member replaced by
  a hostile value (huge and negative numbers, NaN/Infinity literals, lone
  surrogates as `\\ud800` escapes, enormous strings, deep nesting, the wrong JSON
  type, CR/LF/NUL), duplicated keys, known member names planted with hostile values
  and hostile google.rpc details;
- protobuf level (status.binpb and the Status inside grpc-status-details-bin):
  unknown fields, wrong wire types, truncated and overlong varints, huge length
  prefixes, out-of-range numbers, type confusion between details, deep Structs,
  invalid UTF-8, all of it also inside the packed details;
- grpc text: hostile grpc-status, grpc-message and pushback values, bad base64 and
  padding in grpc-status-details-bin;
- XML (aws): DTDs, entity declarations and references (billion laughs, external
  and parameter entities), processing instructions, CDATA, comments, prefixes, other
  encodings declared, repeated and deep elements, hostile element text;
- HTTP: hostile status lines, interim responses, header injection, obs-fold runs,
  huge Retry-After values and dates, rate-limit headers, vague bodies built to make
  regular expressions backtrack.

Pure functions of hypothesis draws, so a failure shrinks and replays.
"""

from __future__ import annotations

import base64
import copy
import json
import pathlib
import random
import re
from collections.abc import Callable
from typing import Any

from google.protobuf import duration_pb2, struct_pb2
from google.rpc import error_details_pb2 as ed
from google.rpc import status_pb2
from hypothesis import strategies as st

import golden_corpus as gc
from errconv import dialects
from errconv._proto.errconv.v1 import problem_pb2

TYPE_PREFIX = "type.googleapis.com/"
DETAIL_TYPES = (
    "google.rpc.ErrorInfo",
    "google.rpc.RetryInfo",
    "google.rpc.BadRequest",
    "google.rpc.QuotaFailure",
    "google.rpc.PreconditionFailure",
    "google.rpc.ResourceInfo",
    "google.rpc.RequestInfo",
    "google.rpc.Help",
    "google.rpc.LocalizedMessage",
    "google.rpc.DebugInfo",
    "errconv.v1.Problem",
    "errconv.v1.OpaqueDetail",
    "example.v1.Unknown",
)


def pick(draw: Callable, seq: Any) -> Any:
    """An element of `seq`, drawn by index (hypothesis would repr a sampled_from of huge values)."""
    return seq[draw(st.integers(0, len(seq) - 1))]


REALWORLD = pathlib.Path(__file__).resolve().parents[1] / "realworld"


def _seeds() -> list[tuple[str, bytes]]:
    """Every golden file (fault.json too) and source, and every real-world capture: the
    decode-only dialects (aws, kubernetes, the vendor shapes) have no golden files, and
    their captures are what they read. A capture that is a whole response is labelled
    `http+<its body's dialect>`, as the http+ golden files are."""
    seeds = []
    for case in gc.cases():
        seeds.append(("fault", (case / "fault.json").read_bytes()))
        for dialect, name in gc.FILES.items():
            if (case / name).exists():  # a dialect registered without its goldens yet: the golden suite says so
                seeds.append((dialect, (case / name).read_bytes()))
        for name, dialect in gc.load_meta(case).get("sources", {}).items():
            seeds.append((dialect, (case / name).read_bytes()))
    for facts in sorted(REALWORLD.glob("*/facts.json")):
        for name, entry in sorted(json.loads(facts.read_text()).items()):
            path = facts.parent / name
            dialect = entry.get("expected_dialect") or "unknown"
            seeds.append((f"http+{dialect}" if path.suffix == ".http" else dialect, path.read_bytes()))
    # The general reader's: bodies of services no dialect is for (issue 19's rules half).
    for facts in sorted((REALWORLD.parent / "realworld_open" / "rules").glob("*/facts.json")):
        for name, entry in sorted(json.loads(facts.read_text()).items()):
            path = facts.parent / name
            dialect = entry.get("expected_dialect") or "general"
            seeds.append((f"http+{dialect}" if path.suffix == ".http" else dialect, path.read_bytes()))
    return seeds


SEEDS = _seeds()


def seed_dialect(label: str) -> str:
    """The dialect a seed is in: `http+aws` is an aws body inside a response."""
    return label.partition("+")[2] if label.startswith("http+") else label


SEED_GROUPS: list[list[tuple[str, bytes]]] = [
    [seed for seed in SEEDS if seed_dialect(seed[0]) == name] for name in sorted({seed_dialect(label) for label, _ in SEEDS})
]

# --------------------------------------------------------------------------- hostile values


class Raw:
    """A JSON token written verbatim (it need not be valid JSON)."""

    def __init__(self, text: bytes) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:40]!r}{'...' if len(self.text) > 40 else ''})"


class Dup:
    """A JSON object written with its members in order, repeats allowed."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs

    def __repr__(self) -> str:
        return f"Dup({self.pairs!r:.80})"


def emit(node: Any) -> bytes:
    """JSON text for a tree of plain values, Raw tokens and Dup objects."""
    if isinstance(node, Raw):
        return node.text
    if isinstance(node, (dict, Dup)):
        pairs = node.pairs if isinstance(node, Dup) else node.items()
        return b"{" + b",".join(emit(str(k)) + b":" + emit(v) for k, v in pairs) + b"}"
    if isinstance(node, (list, tuple)):
        return b"[" + b",".join(emit(v) for v in node) + b"]"
    if isinstance(node, str):
        return json.dumps(node).encode()  # lone surrogates come out as \udXXX escapes
    if isinstance(node, bool) or node is None:
        return json.dumps(node).encode()
    if isinstance(node, int):
        return str(node).encode()
    if isinstance(node, float):
        return json.dumps(node).encode()  # NaN and Infinity as the literals
    raise TypeError(node)


SIZES = (0, 1, 63, 64, 65, 1000, 8193, 70_000, 300_000, 1_100_000)
LIST_COUNTS = (2, 3, 4, 63, 64, 65, 255, 256, 257, 2000)
REPEATS = (2, 100, 10_000, 100_000)
DEPTHS = (31, 32, 33, 100, 999, 5_000, 200_000)

HOSTILE_NUMBERS: list[Any] = [
    0, -1, 1, 16, 17, 99, 100, 429, 599, 600, -429, 2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, 2**63,
    2**64, -(2**63) - 1, 10**12, 10**18, 10**30, 0.5, -0.5, 29.999, 1e308, -1e308, 5e-324, 1e19, 30.0,
    Raw(b"NaN"), Raw(b"Infinity"), Raw(b"-Infinity"), Raw(b"1e999"), Raw(b"-1e999"), Raw(b"1e-999"),
    Raw(b"-0"), Raw(b"01"), Raw(b"1."), Raw(b".5"), Raw(b"+1"), Raw(b"0x10"), Raw(b"9" * 309),
    Raw(b"9" * 4300), Raw(b"-" + b"9" * 4300), Raw(b"9" * 5000), Raw(b"1" + b"0" * 400 + b".5"),
]  # fmt: skip

HOSTILE_STRINGS: list[Any] = [
    "", " ", "x", "a\r\nSet-Cookie: evil=1", "\x00", "nul\x00byte", "\r", "\n\n", "tab\there", "\x7f\x1b[31m",
    "%", "%0D%0A", "%ZZ", "%C3", "100%", "naïve ✓ 東京", "\u2028\u2029", "\ufeff", "é" * 3,
    Raw(b'"\\ud800"'), Raw(b'"x\\udc00y"'), Raw(b'"\\ud83d"'), Raw(b'"\\udfff\\ud800"'), Raw(b'"\\u0000"'),
    Raw(b'"\xff\xfe"'), Raw(b'"\xed\xa0\x80"'), Raw(b'"\xc3"'), Raw(b'"\xf4\x90\x80\x80"'),
    "30s", "-5s", "1.5s", "99999999999999999999s", "315576000001s", "1e3s", "0.0000000001s", "s",
    "wait", "fix_request", "give_up", "transient", "terminal", "invalid_request", "WAIT", "bogus",
    "RESOURCE_EXHAUSTED", "UNAVAILABLE", "NOT_A_CODE", "rate_limited", "RATE_LIMITED", "A", "İstanbul", "ß",
    "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", "Sun Nov  6 08:49:37 1994",
    "#/a/~2/%zz", "/", "#", "items[0].price", "a..b", "[[[", "]", "a[0", "loc",
    TYPE_PREFIX + "google.rpc.DebugInfo", TYPE_PREFIX + "google.rpc.RetryInfo", "errconv.v1.Problem",
    "¹²³", "٣", "１２３", "12345678901234567890",
]  # fmt: skip

KEYS = (
    "type", "title", "status", "detail", "instance", "code", "domain", "grpc_code", "next_step", "class",
    "retryable", "retry_after_seconds", "retry_after", "param", "errors", "invalid-params", "violations",
    "alternatives", "alternatives_truncated", "blocked_by", "unblock_with", "metadata", "details", "error",
    "message", "error_description", "doc_url", "decline_code", "@type", "@bytes", "retryDelay", "retry_delay",
    "fieldViolations", "field_violations", "field", "description", "reason", "localizedMessage",
    "localized_message", "locale", "pointer", "source", "loc", "name", "msg", "quotaValue", "quota_value",
    "futureQuotaValue", "quotaDimensions", "links", "url", "stackEntries", "httpStatus", "extensions",
    "reasonSynthesized", "messageIsTitle", "requestId", "servingData", "resourceName", "subject",
)  # fmt: skip


def hostile_value(draw: Callable, depth: int = 0) -> Any:
    kind = draw(st.integers(0, 9))
    if kind <= 1:
        return pick(draw, HOSTILE_NUMBERS)
    if kind <= 3:
        return pick(draw, HOSTILE_STRINGS)
    if kind == 4:
        size = draw(st.sampled_from(SIZES))
        return draw(st.sampled_from(("x", "é", "%", "<", "\n", "\\"))) * size
    if kind == 5:
        d = draw(st.sampled_from(DEPTHS))
        return pick(draw, (Raw(b"[" * d + b"]" * d), Raw(b'{"a":' * d + b"1" + b"}" * d), Raw(b"[" * d)))
    if kind == 6:
        return copy.deepcopy(pick(draw, ([], {}, None, True, False, [None], {"": ""}, [[]] * 3)))
    if kind == 7 and depth < 2:
        return hostile_detail(draw, depth + 1)
    if kind == 8 and depth < 2:
        n = draw(st.sampled_from(LIST_COUNTS))
        item = hostile_value(draw, depth + 1)
        size = len(emit(item)) + 1
        # Copies, not n references to one object: a later mutation inside it must not grow n-fold.
        return [copy.deepcopy(item) for _ in range(max(1, min(n, 2_000_000 // size)))]
    if kind == 9 and depth < 2:
        return {draw(st.sampled_from(KEYS)): hostile_value(draw, depth + 1) for _ in range(draw(st.integers(1, 3)))}
    return pick(draw, HOSTILE_STRINGS)


def hostile_detail(draw: Callable, depth: int = 0) -> Any:
    """A JSON google.rpc detail with "@type" and a few members, some hostile."""
    name = draw(st.sampled_from(DETAIL_TYPES))
    url = draw(st.sampled_from((TYPE_PREFIX + name, name, "/" + name, "a/b/" + name)))
    detail: dict[str, Any] = {"@type": url}
    for _ in range(draw(st.integers(0, 4))):
        detail[draw(st.sampled_from(KEYS))] = hostile_value(draw, depth + 1)
    return detail


# --------------------------------------------------------------------------- JSON mutation


def _paths(node: Any, limit: int = 400) -> list[tuple[Any, Any]]:
    """(container, key) for every value inside `node`, breadth first, at most `limit`."""
    out: list[tuple[Any, Any]] = []
    queue = [node]
    while queue and len(out) < limit:
        current = queue.pop(0)
        if isinstance(current, dict):
            for key, value in current.items():
                out.append((current, key))
                queue.append(value)
        elif isinstance(current, list):
            for i, value in enumerate(current):
                out.append((current, i))
                queue.append(value)
    return out


def _containers(node: Any) -> list[Any]:
    found = [c for c, _ in _paths(node)]
    if isinstance(node, (dict, list)):
        found.append(node)
    return [c for c in {id(c): c for c in found}.values()]


def mutate_json_tree(draw: Callable, obj: Any) -> bytes:
    """JSON text for `obj` after one to three tree mutations."""
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.integers(0, 5))
        paths = _paths(obj)
        containers = _containers(obj)
        if op <= 1 and paths:  # replace a value
            parent, key = pick(draw, paths)
            parent[key] = hostile_value(draw)
        elif op == 2 and containers:  # plant a known member name
            target = pick(draw, containers)
            if isinstance(target, dict):
                target[draw(st.sampled_from(KEYS))] = hostile_value(draw)
            else:
                target.insert(draw(st.integers(0, len(target))), hostile_value(draw))
        elif op == 3:  # a hostile google.rpc detail in every details array there is
            for c in containers:
                if isinstance(c, dict) and isinstance(c.get("details"), list):
                    c["details"].insert(draw(st.integers(0, len(c["details"]))), hostile_detail(draw))
            if isinstance(obj, dict) and "details" not in obj and isinstance(obj.get("error"), dict):
                obj["error"]["details"] = [hostile_detail(draw)]
        elif op == 4 and paths:  # change the JSON type of a value
            parent, key = pick(draw, paths)
            value = parent[key]
            parent[key] = pick(draw, ([value], {"v": value}, repr(value)[:50], None, 1, True))
        elif op == 5:  # duplicated keys: the same member twice, with different values
            dicts = [c for c in containers if isinstance(c, dict) and c]
            if dicts:
                target = pick(draw, dicts)
                key = pick(draw, sorted(target))
                pairs = list(target.items())
                pairs.insert(draw(st.integers(0, len(pairs))), (key, hostile_value(draw)))
                # Replace the dict in its parent (or at the root) by its duplicated form.
                dup = Dup(pairs)
                if target is obj:
                    obj = dup
                else:
                    for parent, k in _paths(obj):
                        if parent[k] is target:
                            parent[k] = dup
                            break
    if isinstance(obj, Dup):
        return emit(obj)
    return emit(obj)


_TOKEN = re.compile(rb'[\[\]{}"\\]')


def _too_deep(data: bytes) -> bool:
    """Whether `data` nests brackets more than 100 deep outside its strings. One pass over
    the brackets, quotes and backslashes (a regex that stripped strings first went
    quadratic on a megabyte of escaped quotes with no closing one, and hung a fuzz run)."""
    if data.count(b"[") + data.count(b"{") <= 100:
        return False
    depth = 0
    in_string = False
    escaped_at = -1  # where the character a backslash escapes stands
    for m in _TOKEN.finditer(data):
        at, ch = m.start(), m.group()
        if at == escaped_at:
            continue
        if ch == b"\\":
            if in_string:
                escaped_at = at + 1
        elif ch == b'"':
            in_string = not in_string
        elif not in_string:
            depth += 1 if ch in b"[{" else -1
            if depth > 100:
                return True
    return False


def _parse_json(data: bytes) -> Any:
    """The JSON value of `data`, or None. Deeply nested text counts as unparseable: whether
    json.loads hits RecursionError depends on the stack, and draws must not."""
    if _too_deep(data):
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


# --------------------------------------------------------------------------- protobuf mutation


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos
        if shift > 70:
            raise IndexError("varint too long")


def split_fields(buf: bytes) -> list[tuple[int, int, bytes]] | None:
    """(number, wire type, payload) for each top-level field, or None if not well formed."""
    out = []
    pos = 0
    try:
        while pos < len(buf):
            key, pos = _read_varint(buf, pos)
            num, wt = key >> 3, key & 7
            if wt == 0:
                _, end = _read_varint(buf, pos)
            elif wt == 1:
                end = pos + 8
            elif wt == 2:
                n, pos = _read_varint(buf, pos)
                end = pos + n
            elif wt == 5:
                end = pos + 4
            else:
                return None
            if end > len(buf):
                return None
            out.append((num, wt, buf[pos:end]))
            pos = end
    except IndexError:
        return None
    return out


def join_fields(fields: list[tuple[int, int, bytes]]) -> bytes:
    out = bytearray()
    for num, wt, payload in fields:
        out += varint(num << 3 | wt)
        if wt == 2:
            out += varint(len(payload))
        out += payload
    return bytes(out)


def _any(type_name: str, value: bytes) -> bytes:
    """A packed Any as the payload of Status.details."""
    return join_fields([(1, 2, (TYPE_PREFIX + type_name).encode()), (2, 2, value)])


def _deep_struct(depth: int) -> bytes:
    value = struct_pb2.Value(string_value="leaf")
    raw = value.SerializeToString()
    for _ in range(depth):  # Value{struct_value: Struct{fields: {"a": <value>}}}
        entry = join_fields([(1, 2, b"a"), (2, 2, raw)])
        raw = join_fields([(5, 2, join_fields([(1, 2, entry)]))])
    return raw


def _hostile_anys() -> list[bytes]:
    d = duration_pb2.Duration
    anys = [
        _any("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=d(seconds=2**62)).SerializeToString()),
        _any("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=d(seconds=-5, nanos=-1)).SerializeToString()),
        _any("google.rpc.RetryInfo", ed.RetryInfo(retry_delay=d(seconds=10**12)).SerializeToString()),
        _any("google.rpc.RetryInfo", join_fields([(1, 2, join_fields([(2, 0, varint(2**40))]))])),
        _any("google.rpc.ErrorInfo", ed.ErrorInfo(reason="x" * 70, metadata={"next_step": "bogus"}).SerializeToString()),
        _any("google.rpc.ErrorInfo", ed.ErrorInfo(reason="r", metadata={"param": "a\r\nb", "blocked_by": ""}).SerializeToString()),
        _any("google.rpc.ErrorInfo", join_fields([(1, 2, b"\xff\xfe"), (2, 2, b"\xed\xa0\x80")])),
        _any("google.rpc.BadRequest", ed.BadRequest(field_violations=[ed.BadRequest.FieldViolation(field="f")] * 300).SerializeToString()),
        _any("google.rpc.DebugInfo", ed.DebugInfo(stack_entries=["at x"] * 50, detail="secret").SerializeToString()),
        _any("google.rpc.QuotaFailure", ed.QuotaFailure(violations=[ed.QuotaFailure.Violation(quota_value=-(2**63), future_quota_value=2**63 - 1)]).SerializeToString()),
        _any("google.rpc.RequestInfo", ed.RequestInfo(request_id="id\r\nSet-Cookie: a=b\x00", serving_data="s").SerializeToString()),
        _any("errconv.v1.Problem", problem_pb2.Problem(http_status=99999, code="c").SerializeToString()),
        _any("errconv.v1.Problem", problem_pb2.Problem(http_status=-1).SerializeToString()),
        _any("errconv.v1.Problem", problem_pb2.Problem(http_status=42).SerializeToString()),
        _any("errconv.v1.Problem", join_fields([(9, 2, _deep_struct(40)[1:])])),  # alternatives, deep
        _any("errconv.v1.Problem", join_fields([(9, 2, _deep_struct(120)[1:])])),
        _any("errconv.v1.Problem", join_fields([(9, 2, struct_pb2.Value(number_value=float("nan")).SerializeToString())])),
        _any("errconv.v1.Problem", join_fields([(9, 2, struct_pb2.Value(number_value=float("inf")).SerializeToString())])),
        _any("errconv.v1.Problem", join_fields([(9, 2, struct_pb2.Value(number_value=1e300).SerializeToString())])),
        _any("errconv.v1.OpaqueDetail", problem_pb2.OpaqueDetail(type_url=TYPE_PREFIX + "google.rpc.DebugInfo").SerializeToString()),
        _any("errconv.v1.OpaqueDetail", join_fields([(1, 2, b"t"), (2, 2, join_fields([(1, 2, join_fields([(1, 2, b"k"), (2, 2, _deep_struct(60))]))]))])),
        join_fields([(1, 2, (TYPE_PREFIX + "google.rpc.DebugInfo").encode()), (2, 2, b"\xff\xff\xff")]),
        join_fields([(1, 2, b""), (2, 2, b"")]),
        join_fields([(1, 2, b"\xff")]),
    ]  # fmt: skip
    return anys


HOSTILE_ANYS = _hostile_anys()


def mutate_proto(draw: Callable, buf: bytes, depth: int = 0) -> bytes:
    """Protobuf bytes after one structural mutation (recursing into packed details)."""
    fields = split_fields(buf)
    op = draw(st.integers(0, 10))
    if fields is None or op == 0:  # a plain byte-level mutation
        return mutate_bytes(draw, buf)
    if op == 1:  # an unknown field of some wire type
        num = draw(st.sampled_from((4, 5, 15, 16, 1000, 2**29 - 1)))
        wt = draw(st.integers(0, 7))
        payload = {0: varint(2**64 - 1), 1: b"\x00" * 8, 2: b"unknown", 5: b"\x00" * 4}.get(wt, b"\x00")
        raw = varint(num << 3 | wt) + (varint(len(payload)) if wt == 2 else b"") + payload
        return buf + raw if draw(st.booleans()) else raw + buf
    if op == 2 and fields:  # the wrong wire type for a known field
        i = draw(st.integers(0, len(fields) - 1))
        num, wt, payload = fields[i]
        new_wt = draw(st.sampled_from([w for w in (0, 1, 2, 5) if w != wt]))
        raw = join_fields(fields[:i]) + varint(num << 3 | new_wt) + (join_fields([(0, wt, payload)])[1:]) + join_fields(fields[i + 1 :])
        return raw
    if op == 3:  # a truncated varint, a tag without its value, an overlong varint
        return buf + draw(st.sampled_from((b"\x08", b"\x08\xff", b"\x08" + b"\xff" * 9, b"\x08" + b"\xff" * 11 + b"\x01", b"\x80", b"\x12", b"\x1a\x05ab")))
    if op == 4:  # a length prefix far past the end
        return buf + b"\x1a" + varint(draw(st.sampled_from((2**31, 2**32 + 5, 2**63, 2**64 - 1)))) + b"abc"
    if op == 5:  # an out-of-range number in field 1 (Status.code, Any.type_url, ...)
        n = draw(st.sampled_from((17, 99, 2**31 - 1, 2**32, 2**63, 2**64 - 1, -1, -(2**31))))
        return join_fields([(1, 0, varint(n))]) + buf
    if op == 6 and depth < 3:  # recurse into a length-delimited field (details, Any.value, ...)
        delimited = [i for i, f in enumerate(fields) if f[1] == 2]
        if delimited:
            i = draw(st.sampled_from(delimited))
            num, wt, payload = fields[i]
            fields = list(fields)
            fields[i] = (num, wt, mutate_proto(draw, payload, depth + 1))
            return join_fields(fields)
    if op == 7 and depth == 0:  # a hostile packed detail in Status.details
        extra = [(3, 2, pick(draw, HOSTILE_ANYS)) for _ in range(draw(st.integers(1, 3)))]
        return join_fields(fields + extra)
    if op == 8:  # type confusion: a detail's bytes under another detail's type URL
        anys = [i for i, f in enumerate(fields) if f[0] == 3 and f[1] == 2]
        if anys and depth == 0:
            i = draw(st.sampled_from(anys))
            inner = split_fields(fields[i][2]) or []
            value = next((p for n, w, p in inner if n == 2 and w == 2), b"")
            fields = list(fields)
            fields[i] = (3, 2, _any(draw(st.sampled_from(DETAIL_TYPES)), value))
            return join_fields(fields)
    if op == 9 and depth == 0:  # many details
        n = draw(st.sampled_from((63, 64, 65, 1000)))
        return buf + join_fields([(3, 2, _any("google.rpc.Help", b""))]) * n
    if op == 10 and fields:  # a repeated field, and a scalar twice (the last wins)
        i = draw(st.integers(0, len(fields) - 1))
        return join_fields(list(fields) + [fields[i]])
    return mutate_bytes(draw, buf)


# --------------------------------------------------------------------------- byte mutation


def mutate_bytes(draw: Callable, data: bytes) -> bytes:
    op = draw(st.integers(0, 5))
    n = len(data)
    if op == 0:  # truncate
        return data[: draw(st.integers(0, n))]
    if op == 1 and n:  # flip bits
        buf = bytearray(data)
        for _ in range(draw(st.integers(1, 8))):
            buf[draw(st.integers(0, n - 1))] ^= 1 << draw(st.integers(0, 7))
        return bytes(buf)
    if op == 2 and n:  # overwrite bytes with interesting ones
        buf = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            buf[draw(st.integers(0, n - 1))] = draw(st.sampled_from((0x00, 0x0A, 0x0D, 0x22, 0x5C, 0x7F, 0x80, 0xC3, 0xED, 0xFF, 0x7B, 0x5B, 0x25)))
        return bytes(buf)
    if op == 3:  # insert a span
        at = draw(st.integers(0, n))
        span = draw(st.one_of(st.binary(max_size=16), st.sampled_from((b"\r\n", b"\x00", b"\xff\xfe", b"\xed\xa0\x80", b'\\ud800', b"{", b"[" * 64, b"%", b"="))))
        return data[:at] + span + data[at:]
    if op == 4 and n:  # delete a span
        at = draw(st.integers(0, n - 1))
        return data[:at] + data[at + draw(st.integers(1, 32)) :]
    if op == 5:  # repeat a span many times (cheap enormous inputs)
        at = draw(st.integers(0, n))
        span = data[at : at + draw(st.integers(1, 16))] or b"x"
        return data[:at] + span * draw(st.sampled_from(REPEATS)) + data[at:]
    return data


# --------------------------------------------------------------------------- dialect-aware mutation


def _split_http(data: bytes) -> tuple[bytes, bytes, bytes]:
    for sep in (b"\r\n\r\n", b"\n\n"):
        at = data.find(sep)
        if at != -1:
            return data[:at], sep, data[at + len(sep) :]
    return data, b"\r\n\r\n", b""


HOSTILE_HEADERS: list[bytes] = [
    b"Retry-After: 1000000000000", b"Retry-After: " + b"9" * 5000, b"Retry-After: -5", b"Retry-After: 1.5",
    b"Retry-After: Fri, 31 Dec 9999 23:59:59 GMT", b"Retry-After: Thu, 01 Jan 1970 00:00:00 GMT",
    b"Retry-After: Sunday, 06-Nov-94 08:49:37 GMT", b"Retry-After: Sun Nov  6 08:49:37 0000",
    b"Retry-After: Mon, 29 Feb 2100 00:00:00 GMT", b"Retry-After: Mon, 01 Jan 2024 23:59:60 GMT",
    b"Retry-After: \xb2", b"Retry-After: \xef\xbc\x91", b"Retry-After: 30, 60", b"Retry-After:",
    b"Date: Fri, 31 Dec 9999 23:59:59 GMT", b"Date: Thu, 01 Jan 1970 00:00:00 GMT", b"Date: garbage",
    b"Request-Id: req\x00id", b"Request-Id: req\rSet-Cookie: a=b", b"Request-Id: caf\xc3\xa9",
    b"Request-Id: " + b"r" * 10_000, b"Request-Id: \x1b[31mred", b"Request-Id:   ",
    b"X-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: 9999999999999999",
    b"X-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: 1" + b"0" * 15 + b"." + b"9" * 5000,
    b"X-RateLimit-Remaining: 0\r\nX-RateLimit-Reset: 0.5", b"X-RateLimit-Remaining: \xb2",
    b"RateLimit: default;r=0;t=" + b"9" * 5000, b"RateLimit: a;r=0;t=\xb2", b"RateLimit: " + b",;=" * 1000,
    b"RateLimit: default;r=0;t=30", b"Stripe-Should-Retry: true", b"Stripe-Should-Retry: false",
    b"grpc-status: \xb2", b"grpc-status: 99", b"grpc-status: 16", b"grpc-status: -1", b"grpc-status: 14",
    b"Content-Type: application/problem+json", b"Content-Type: text/html", b"Content-Type: text/plain",
    b"Content-Type: application/json; charset=latin-1", b"Content-Type: \x00",
    b"X-Fold: a" + b"\r\n b" * 50_000, b"X-Many: v\r\n" * 20_000 + b"X-Last: v", b"X-Long: " + b"v" * 100_000,
    b"no colon here", b" leading: space", b": empty name",
]  # fmt: skip

HOSTILE_STATUS_LINES: list[bytes] = [
    b"HTTP/1.1 000 Zero", b"HTTP/1.1 999 Nine", b"HTTP/1.1 099 Low", b"HTTP/1.1 600 High", b"HTTP/2 429",
    b"HTTP/1.1 429", b"HTTP/1.1 429 " + b"x" * 10_000, b"HTTP/1.1 4290 Long", b"HTTP/9.9 429 Odd",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Unavailable", b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 429 Slow",
    (b"HTTP/1.1 100 Continue\n\n" * 40_000) + b"HTTP/1.1 429 Slow", (b"HTTP/1.1 103 Early Hints\r\n\r\n") * 3 + b"HTTP/1.1 502 Bad",
]  # fmt: skip

HOSTILE_VAGUE_BODIES: list[bytes] = [
    b"<" * 300_000, b"<title>" * 100_000, b"<a " * 300_000, b"<title" + b" " * 300_000, b"&#99999999999;" * 10,
    b"<html><title>" + b"x" * 500_000 + b"</title></html>", b"\xff\xfe not utf-8", b"<title>\x00\r\n</title>",
    b"&" * 300_000, b"&#" * 300_000, b" \t\r\n" * 200_000, b"Too many requests", b"", b"{", b"[1, 2]", b"null",
    b"<title>&lt;script&gt;</title>", b"\xe2\x80\xa8" * 1000,
]  # fmt: skip


def mutate_http(draw: Callable, data: bytes) -> bytes:
    head, sep, body = _split_http(data)
    lines = head.split(b"\r\n") if b"\r\n" in head else head.split(b"\n")
    op = draw(st.integers(0, 4))
    if op == 0:
        lines.insert(draw(st.integers(1, max(1, len(lines)))), pick(draw, HOSTILE_HEADERS))
    elif op == 1:
        lines[0] = pick(draw, HOSTILE_STATUS_LINES)
    elif op == 2:
        obj = _parse_json(body)
        if obj is not None:
            body = mutate_json_tree(draw, obj)
        elif body.lstrip().startswith(b"<"):
            body = mutate_xml(draw, body)
        else:
            body = mutate_bytes(draw, body)
    elif op == 3:
        body = pick(draw, HOSTILE_VAGUE_BODIES)
        if draw(st.booleans()):
            lines = [ln for ln in lines if not ln.lower().startswith(b"content-type")]
            lines.append(draw(st.sampled_from((b"Content-Type: text/html", b"Content-Type: text/plain", b"Content-Type: application/json"))))
    else:
        return mutate_bytes(draw, data)
    return b"\r\n".join(lines) + sep + body


HOSTILE_B64 = (b"!!!!", b"=", b"==", b"===", b"A", b"AB=C", b"-_-_", b" ", b",", b",,", b"\x00", b"\xff", b"%3D")


def mutate_grpc(draw: Callable, data: bytes) -> bytes:
    lines = data.split(b"\n")
    op = draw(st.integers(0, 5))
    idx = {ln.split(b":", 1)[0].strip().lower(): i for i, ln in enumerate(lines) if b":" in ln}
    if op == 0:
        value = pick(draw, ((b"", b"-1", b"17", b"99999", b"4294967296", b"1" * 5000, b"\xc2\xb2", "８".encode(), b" 8 ", b"8x")))
        line = b"grpc-status: " + value
        if b"grpc-status" in idx:
            lines[idx[b"grpc-status"]] = line
        else:
            lines.insert(0, line)
    elif op == 1:
        value = pick(draw, ((b"%", b"%Z1", b"%C3", b"%00%0D%0A", b"%" * 10_000, b"%41" * 100_000, b"\xe6\x9d\xb1", b"%ED%A0%80", b"\x00")))
        lines.insert(1, b"grpc-message: " + value)
    elif op == 2 and b"grpc-status-details-bin" in idx:  # mutate the Status inside, then base64 it oddly
        i = idx[b"grpc-status-details-bin"]
        text = lines[i].split(b":", 1)[1].strip()
        try:
            raw = base64.b64decode(text + b"=" * (-len(text) % 4))
        except ValueError:
            raw = text
        raw = mutate_proto(draw, raw)
        encoded = base64.b64encode(raw)
        style = draw(st.integers(0, 3))
        if style == 0:
            encoded = encoded.rstrip(b"=")
        elif style == 1:
            at = draw(st.integers(0, len(encoded)))
            encoded = encoded[:at] + draw(st.sampled_from(HOSTILE_B64)) + encoded[at:]
        elif style == 2:
            at = draw(st.integers(0, len(encoded)))
            encoded = encoded[:at] + b"," + encoded[at:]
        lines[i] = b"grpc-status-details-bin: " + encoded
    elif op == 3:
        value = draw(st.sampled_from((b"-1", b"-2", b"0", b"9999999999", b"99999999999", b"1e3", b"", b"\xc2\xb2")))
        lines.insert(1, b"grpc-retry-pushback-ms: " + value)
    elif op == 4:
        lines.insert(draw(st.integers(0, len(lines))), pick(draw, ((b"no colon", b":", b"GRPC-STATUS: 14", b"grpc-status-details-bin: " + b"QUFB" * 100_000, b"x-bin: !!!", b"#comment", b"a: b\r"))))
    else:
        return mutate_bytes(draw, data)
    return b"\n".join(lines)


# XML of the kind AWS's Query, EC2 and S3 services answer with, made hostile: what an
# XML parser may expand or fetch (DTDs, entities, external references, processing
# instructions), markup that is merely odd (CDATA, comments, prefixes, a BOM, another
# encoding declared), and text that is long, deep or not UTF-8.
XML_PROLOGS: list[bytes] = [
    b'<?xml version="1.0" encoding="UTF-8"?>', b'<?xml version="1.0" encoding="UTF-16"?>', b'<?xml version="1.1"?>',
    b"\xef\xbb\xbf", b"<!DOCTYPE Error>", b'<!DOCTYPE e [<!ENTITY x "' + b"x" * 10_000 + b'">]>',
    b'<!DOCTYPE lolz [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
    b'<!DOCTYPE e [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', b'<!DOCTYPE e SYSTEM "http://127.0.0.1:9/e.dtd">',
    b'<!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p.dtd"> %p;]>', b"<!doctype ERROR>", b"<!DocType e [ ]>",
    b'<?xml-stylesheet href="x.xsl"?>', b"<!-- <!DOCTYPE in a comment> -->", b"<!---->" * 1000, b" \t\r\n" * 1000,
]  # fmt: skip
XML_SPANS: list[bytes] = [
    b"&xxe;", b"&lol;", b"&amp;", b"&#0;", b"&#x110000;", b"&#99999999999;", b"&#x41;", b"&lt;" * 10_000, b"&",
    b"<![CDATA[<Code>x</Code>]]>", b"<![CDATA[", b"]]>", b"<!-- c -->", b"<!--", b"<?pi x?>", b"<Code>Throttling</Code>",
    b"<Code></Code>", b"<Code/>", b"<Message>" + b"m" * 70_000 + b"</Message>", b"<a>" * 40 + b"</a>" * 40, b"<a>" * 5_000,
    b'<x xmlns="urn:evil" xmlns:p="urn:p">', b"<p:Code>", b"</Error>", b"<Error>", b"\x00", b"\xff\xfe", b"\xed\xa0\x80",
    b"\r\n", b'"', b"'", b"<Code>a\r\nSet-Cookie: x=1</Code>", b"<RequestId>\x1b[31m</RequestId>", b"<Errors>" * 100,
]  # fmt: skip


def mutate_xml(draw: Callable, data: bytes) -> bytes:
    """XML after one structural mutation: a hostile prolog, a hostile span at a tag
    boundary, an element's text replaced, an element repeated, or a byte mutation."""
    op = draw(st.integers(0, 4))
    tags = [m.start() for m in re.finditer(rb"<", data)] or [0]
    if op == 0:
        return pick(draw, XML_PROLOGS) + data
    if op == 1:
        at = pick(draw, tags)
        return data[:at] + pick(draw, XML_SPANS) + data[at:]
    if op == 2:
        texts = [m.span(1) for m in re.finditer(rb">([^<]+)<", data)]
        if texts:
            start, end = pick(draw, texts)
            value = hostile_value(draw)
            text = value.text if isinstance(value, Raw) else str(value).encode("utf-8", "surrogatepass")
            return data[:start] + text + data[end:]
    if op == 3:
        elements = [m.group() for m in re.finditer(rb"<([A-Za-z]+)>[^<]*</\1>", data)]
        if elements:
            element = pick(draw, elements)
            at = pick(draw, tags)
            return data[:at] + element * draw(st.sampled_from((2, 64, 10_000))) + data[at:]
    return mutate_bytes(draw, data)


def _is_json_dialect(dialect: str) -> bool:
    return dialect in dialects.names() and dialects.get(dialect).form == "json"


def mutate(draw: Callable, dialect: str, data: bytes) -> bytes:
    """One mutation suited to a file of `dialect` (or a generic one). Which dialects are
    JSON comes from the registry, so a dialect registered later gets JSON mutations."""
    if draw(st.integers(0, 3)) == 0:
        return mutate_bytes(draw, data)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<") and not dialect.startswith("http"):
        return mutate_xml(draw, data)  # aws's XML (and any other markup a capture holds)
    if _is_json_dialect(dialect) or dialect == "unknown":
        obj = _parse_json(data)
        if obj is not None:
            return mutate_json_tree(draw, obj)
    if dialect == "status":
        return mutate_proto(draw, data)
    if dialect == "grpc":
        return mutate_grpc(draw, data)
    if dialect.startswith("http"):
        return mutate_http(draw, data)
    return mutate_bytes(draw, data)


@st.composite
def inputs(draw: Callable) -> tuple[str, bytes]:
    """A seed file of some dialect after one to three mutations (or a splice). The
    dialect is drawn first, then one of its seeds, so that a dialect with five captures
    is as often the start as one with seventy golden files."""
    dialect, data = pick(draw, pick(draw, SEED_GROUPS))
    if draw(st.integers(0, 9)) == 0:  # a splice with a file of another dialect
        other_dialect, other = pick(draw, [s for s in SEEDS if s[0] != dialect])
        data = data[: draw(st.integers(0, len(data)))] + other[draw(st.integers(0, len(other))) :]
    for _ in range(draw(st.integers(1, 3))):
        data = mutate(draw, dialect, data)
    return dialect, data[:MAX_INPUT]


MAX_INPUT = 3 << 20  # three times Limits.max_bytes: far enough past it, and no larger


def as_pairs(data: bytes) -> list[tuple[str, str | bytes]] | None:
    """The trailer-pairs form of grpc text, `-bin` values as raw bytes where they decode."""
    pairs: list[tuple[str, str | bytes]] = []
    for line in data.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        if key.endswith("-bin"):
            try:
                pairs.append((key, base64.b64decode(value + "=" * (-len(value) % 4), validate=True)))
                continue
            except ValueError:
                pass
        pairs.append((key, value))
    return pairs or None


_FULL: dict[str, Any] = {}
_SCALED = ("SIZES", "DEPTHS", "LIST_COUNTS", "REPEATS", "HOSTILE_NUMBERS", "HOSTILE_STRINGS", "HOSTILE_HEADERS",
           "HOSTILE_STATUS_LINES", "HOSTILE_VAGUE_BODIES", "XML_PROLOGS", "XML_SPANS")  # fmt: skip
SMALL = 4096


def set_large(large: bool) -> None:
    """With `large` off, every hostile value, span and repeat is kept under SMALL bytes,
    so that an input costs about a millisecond to decode in every dialect: a long run
    (fuzz/long_run.py) spends most of its time on many small inputs and some of it on
    the enormous ones, which the test suite runs every time."""
    if not _FULL:
        _FULL.update({name: globals()[name] for name in _SCALED})
    for name, full in _FULL.items():
        if large:
            globals()[name] = full
        elif isinstance(full[0], int) and not isinstance(full, list):
            globals()[name] = tuple(n for n in full if n <= SMALL // 4)
        else:
            globals()[name] = [v for v in full if len(emit(v) if not isinstance(v, bytes) else v) <= SMALL]


def random_seed_input(rng: random.Random) -> tuple[str, bytes]:
    """A seed file, for harnesses that mutate on their own."""
    return rng.choice(SEEDS)
