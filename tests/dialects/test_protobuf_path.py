"""The protobuf reading path: each detail by its type URL, `FromString` on its value.

The readers are generated (dialects/_schema.py) and read a detail's bytes, a map and a
Struct in one pass each; these tests hold them to what protobuf itself says the bytes
mean (json_format as the reference reader), to check_depth's rule for nesting, and to
the outcomes a detail that does not parse has always had (kept whole, as RawDetail).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from google.protobuf import any_pb2, duration_pb2, json_format
from google.rpc import error_details_pb2 as ed
from google.rpc import status_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

import errconv
from errconv._proto.errconv.v1 import problem_pb2
from errconv.details import ErrorInfo, QuotaFailure, QuotaViolation, RawDetail, RetryInfo
from errconv._model.schema import (
    MAX_DURATION_SECONDS,
    ProblemInfo,
    check_depth,
    item_from_any,
    items_from_anys,
    python_to_struct,
    struct_to_python,
)

T = "type.googleapis.com/"
LIMITS = errconv.Limits()


def status(*anys: tuple[str, bytes], code: int = 8) -> bytes:
    details = [any_pb2.Any(type_url=url, value=value) for url, value in anys]
    return status_pb2.Status(code=code, message="m", details=details).SerializeToString()


def reference(value: Any) -> Any:
    """What json_format reads from a Struct, whole doubles as ints (-0.0 stays a float), as errconv reads them."""
    if isinstance(value, dict):
        return {k: reference(v) for k, v in value.items()}
    if isinstance(value, list):
        return [reference(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53 and math.copysign(1, value) > 0:
        return int(value)
    if isinstance(value, float) and value == 0:
        return int(value) if math.copysign(1, value) > 0 else value
    return value


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_a_struct_reads_as_protobuf_says_sorted(members: dict[str, Any]) -> None:
    struct = python_to_struct(members)
    got = struct_to_python(struct)
    assert got == reference(json_format.MessageToDict(struct))

    def keys_sorted(value: Any) -> bool:
        if isinstance(value, dict):
            return list(value) == sorted(value) and all(keys_sorted(v) for v in value.values())
        if isinstance(value, list):
            return all(keys_sorted(v) for v in value)
        return True

    assert keys_sorted(got)


def test_numbers_of_a_struct() -> None:
    members = {"a": 30, "b": -0.0, "c": 1.5, "d": float(2**53), "e": float(2**53 + 2), "f": -7, "g": 0}
    got = struct_to_python(python_to_struct(members))
    assert got == {"a": 30, "b": -0.0, "c": 1.5, "d": 2**53, "e": float(2**53 + 2), "f": -7, "g": 0}
    assert [type(got[k]) for k in "abcdefg"] == [int, float, float, int, float, int, int]
    assert math.copysign(1, got["b"]) < 0


def nested(depth: int) -> Any:
    """A JSON value whose innermost container lies `depth` levels below it (arrays and objects in turn)."""
    value: Any = []
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


def problem_detail(**fields: Any) -> tuple[str, bytes]:
    extensions = fields.pop("extensions", None)
    alternatives = fields.pop("alternatives", ())
    msg = problem_pb2.Problem(**fields)
    if extensions is not None:
        msg.extensions.CopyFrom(python_to_struct(extensions))
    for value in alternatives:
        msg.alternatives.add().CopyFrom(python_to_struct({"v": value}).fields["v"])
    return T + "errconv.v1.Problem", msg.SerializeToString()


def opaque_detail(fields: dict[str, Any]) -> tuple[str, bytes]:
    msg = problem_pb2.OpaqueDetail(type_url=T + "acme.v1.Thing")
    msg.fields.CopyFrom(python_to_struct(fields))
    return T + "errconv.v1.OpaqueDetail", msg.SerializeToString()


@pytest.mark.parametrize("max_depth", [1, 2, 3, 8, 32])
@pytest.mark.parametrize("where", ["extensions", "alternatives", "opaque"])
def test_nesting_is_refused_exactly_where_check_depth_refuses_it(where: str, max_depth: int) -> None:
    limits = errconv.Limits(max_depth=max_depth)
    for depth in range(0, max_depth + 2):
        value = nested(depth)
        if where == "extensions":
            members: Any = {"x": value}
            detail = problem_detail(code="c", extensions=members)
        elif where == "alternatives":
            members = [value]
            detail = problem_detail(code="c", alternatives=members)
        else:
            members = {"x": value}
            detail = opaque_detail(members)
        try:
            check_depth(members, max_depth)
        except errconv.DecodeError:
            with pytest.raises(errconv.DecodeError, match="Limits.max_depth"):
                errconv.decode(status(detail), "status", limits=limits)
        else:
            fault = errconv.decode(status(detail), "status", limits=limits)
            if where == "extensions":
                assert fault.extensions == members
            elif where == "alternatives":
                assert list(fault.alternatives) == members
            else:
                assert fault.details == (RawDetail(type_url=T + "acme.v1.Thing", fields=members),)


def test_a_limit_of_no_depth_at_all_refuses_a_problem_as_before() -> None:
    # check_depth refuses even the empty top object under max_depth=0: a Problem detail
    # (its extensions and alternatives, present or not) is refused, as it was.
    with pytest.raises(errconv.DecodeError, match="Limits.max_depth"):
        errconv.decode(status(problem_detail(code="c")), "status", limits=errconv.Limits(max_depth=0))


def test_a_map_reads_sorted_whatever_order_the_wire_has() -> None:
    # A map written by hand in reverse order, one entry a key twice (the last one wins).
    entries = [(b"zeta", b"1"), (b"alpha", b"2"), (b"mid", b"3"), (b"alpha", b"4")]
    raw = b"".join(b"\x1a" + bytes([len(k) + len(v) + 4]) + b"\n" + bytes([len(k)]) + k + b"\x12" + bytes([len(v)]) + v for k, v in entries)
    info = b"\n\x03R_X" + raw
    item = item_from_any(T + "google.rpc.ErrorInfo", info, LIMITS)
    assert item == ErrorInfo(reason="R_X", metadata={"alpha": "4", "mid": "3", "zeta": "1"})
    assert list(item.metadata) == ["alpha", "mid", "zeta"]
    fault = errconv.decode(status((T + "google.rpc.ErrorInfo", info)), "status")
    assert list(fault.metadata) == ["alpha", "mid", "zeta"] and fault.code == "R_X"


def test_a_quota_violation_reads_every_field() -> None:
    violation = ed.QuotaFailure.Violation(
        subject="s", quota_metric="m", quota_id="q", quota_dimensions={"b": "2", "a": "1"}, quota_value=5, future_quota_value=0
    )
    value = ed.QuotaFailure(violations=[violation]).SerializeToString()
    item = item_from_any(T + "google.rpc.QuotaFailure", value, LIMITS)
    assert item == QuotaFailure(
        violations=(
            QuotaViolation(subject="s", quota_metric="m", quota_id="q", quota_dimensions={"a": "1", "b": "2"}, quota_value=5, future_quota_value=0),
        )
    )
    unset = ed.QuotaFailure(violations=[ed.QuotaFailure.Violation(subject="s")]).SerializeToString()
    assert item_from_any(T + "google.rpc.QuotaFailure", unset, LIMITS).violations[0].future_quota_value is None


@pytest.mark.parametrize(
    ("seconds", "nanos", "want"),
    [
        (0, 0, 0),
        (30, 0, 30 * 10**9),
        (MAX_DURATION_SECONDS, 0, MAX_DURATION_SECONDS * 10**9),
        (2, 500_000_000, 2_500_000_000),
        (-5, 0, 0),  # a negative Duration: no wait
        (-5, -1, 0),
        (MAX_DURATION_SECONDS + 1, 0, None),  # past Duration's range: kept raw
        (5, -1, None),  # nanos of the other sign
        (5, 10**9, None),
    ],
)
def test_retry_delays(seconds: int, nanos: int, want: int | None) -> None:
    value = ed.RetryInfo(retry_delay=duration_pb2.Duration(seconds=seconds, nanos=nanos)).SerializeToString()
    item = item_from_any(T + "google.rpc.RetryInfo", value, LIMITS)
    if want is None:
        assert item == RawDetail(type_url=T + "google.rpc.RetryInfo", value=value)
    else:
        assert item == RetryInfo(retry_delay_nanos=want)


KNOWN = [
    "google.rpc.ErrorInfo", "google.rpc.RetryInfo", "google.rpc.BadRequest", "google.rpc.QuotaFailure",
    "google.rpc.PreconditionFailure", "google.rpc.ResourceInfo", "google.rpc.RequestInfo", "google.rpc.Help",
    "google.rpc.LocalizedMessage", "google.rpc.DebugInfo", "errconv.v1.Problem", "errconv.v1.OpaqueDetail",
]  # fmt: skip
MALFORMED = [
    b"\n\x05ab",  # a string field cut short
    b"\n\x02\xff\xfe",  # a string field that is not UTF-8
    b"\x0f",  # a field tag with wire type 7
    b"\x80",  # a varint cut short
]


@pytest.mark.parametrize("prefix", [T, "example.com/x/"])
@pytest.mark.parametrize("name", KNOWN)
@pytest.mark.parametrize("value", MALFORMED)
def test_a_known_detail_that_does_not_parse_is_kept_whole(name: str, value: bytes, prefix: str) -> None:
    url = prefix + name
    assert item_from_any(url, value, LIMITS) == RawDetail(type_url=url, value=value)
    assert items_from_anys([any_pb2.Any(type_url=url, value=value)], LIMITS) == [RawDetail(type_url=url, value=value)]
    info = (T + "google.rpc.ErrorInfo", ed.ErrorInfo(reason="R_X").SerializeToString())
    fault = errconv.decode(status(info, (url, value)), "status")
    assert fault.code == "R_X" and RawDetail(type_url=url, value=value) in fault.details
    assert errconv.decode(errconv.encode(fault, "status"), "status") == fault


def test_a_struct_member_that_is_not_utf8_keeps_its_detail_whole() -> None:
    good = problem_detail(code="c", extensions={"k": "ab"})[1]
    bad = good.replace(b"ab", b"\xff\xfe")
    assert bad != good
    assert item_from_any(T + "errconv.v1.Problem", bad, LIMITS) == RawDetail(type_url=T + "errconv.v1.Problem", value=bad)


@pytest.mark.parametrize("url", [T + "acme.v1.Blob", "acme.v1.Blob", "", T + "google.rpc.ErrorInfoX", T + "google.rpc"])
def test_an_unknown_type_is_kept_as_it_came(url: str) -> None:
    value = b"\x08\x01\x12\x03abc"
    assert item_from_any(url, value, LIMITS) == RawDetail(type_url=url, value=value)
    fault = errconv.decode(status((url, value)), "status")
    assert fault.details == (RawDetail(type_url=url, value=value),)
    # Written back beside the fault's own ErrorInfo, byte for byte.
    again = status_pb2.Status.FromString(errconv.encode(fault, "status"))
    assert (url, value) in [(d.type_url, d.value) for d in again.details]
    assert errconv.decode(errconv.encode(fault, "status"), "status") == fault


def test_a_known_type_under_another_prefix_reads_as_that_type() -> None:
    value = ed.ResourceInfo(resource_type="t", resource_name="n").SerializeToString()
    for url in (T + "google.rpc.ResourceInfo", "example.com/google.rpc.ResourceInfo", "google.rpc.ResourceInfo"):
        assert item_from_any(url, value, LIMITS) == item_from_any(T + "google.rpc.ResourceInfo", value, LIMITS)
    assert item_from_any(T + "google.rpc.ResourceInfo", value, LIMITS).resource_name == "n"


@pytest.mark.parametrize("http_status", [0, 100, 422, 599])
def test_a_problem_with_an_http_status_in_range(http_status: int) -> None:
    url, value = problem_detail(code="c", http_status=http_status)
    assert item_from_any(url, value, LIMITS) == ProblemInfo(code="c", http_status=http_status)
    assert item_from_any("example.com/errconv.v1.Problem", value, LIMITS) == ProblemInfo(code="c", http_status=http_status)


@pytest.mark.parametrize("http_status", [-1, 1, 99, 600, 2**31 - 1])
def test_a_problem_with_an_http_status_out_of_range_is_kept_whole(http_status: int) -> None:
    url, value = problem_detail(code="c", http_status=http_status)
    for where in (url, "example.com/errconv.v1.Problem"):
        assert item_from_any(where, value, LIMITS) == RawDetail(type_url=where, value=value)


def test_every_golden_status_reads_as_each_detail_alone() -> None:
    # items_from_anys reads a Status's details as item_from_any reads each.
    import pathlib

    for path in sorted((pathlib.Path(__file__).resolve().parents[2] / "golden").glob("*/status.binpb")):
        details = status_pb2.Status.FromString(path.read_bytes()).details
        assert details, path
        assert items_from_anys(details, LIMITS) == [item_from_any(d.type_url, d.value, LIMITS) for d in details]


def test_an_empty_struct_and_list_stay_what_they_are() -> None:
    members: dict[str, Any] = {"o": {}, "l": [], "n": None}
    url, value = problem_detail(code="c", extensions=members, alternatives=[{}, []])
    item = item_from_any(url, value, LIMITS)
    assert item.extensions == {"l": [], "n": None, "o": {}} and item.alternatives == ({}, [])


def as_json(value: Any) -> Any:
    """The plain JSON value json_format takes (tuples as lists, subclasses as their base)."""
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=6))
def test_a_struct_is_written_as_protobuf_writes_it(members: dict[str, Any]) -> None:
    from google.protobuf import struct_pb2

    want = json_format.ParseDict(as_json(members), struct_pb2.Struct()).SerializeToString(deterministic=True)
    assert python_to_struct(members).SerializeToString(deterministic=True) == want


def test_a_struct_takes_subclasses_and_tuples_as_json() -> None:
    import enum

    from google.protobuf import struct_pb2

    class Level(enum.IntEnum):
        HIGH = 3

    class Name(str):
        pass

    members = {"level": Level.HIGH, "name": Name("n"), "pair": (1, "two"), "flag": True, "none": None, "nested": {"t": ()}}
    want = json_format.ParseDict(as_json(members), struct_pb2.Struct()).SerializeToString(deterministic=True)
    assert python_to_struct(members).SerializeToString(deterministic=True) == want
    assert struct_to_python(python_to_struct(members)) == {
        "flag": True, "level": 3, "name": "n", "nested": {"t": []}, "none": None, "pair": [1, "two"],
    }  # fmt: skip
    with pytest.raises(TypeError, match="not a JSON value"):
        python_to_struct({"x": object()})


@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_a_detail_with_a_map_is_written_sorted_whatever_its_order(count: int) -> None:
    from errconv._model.schema import pack_item

    keys = [f"k{i}" for i in range(count)]
    for order in (keys, keys[::-1]):
        item = QuotaFailure(violations=(QuotaViolation(subject="s", quota_dimensions={k: "v" for k in order}),))
        want = ed.QuotaFailure(violations=[ed.QuotaFailure.Violation(subject="s", quota_dimensions=dict.fromkeys(keys, "v"))])
        assert pack_item(item)[1] == want.SerializeToString(deterministic=True)
        problem = ProblemInfo(code="c", extensions={k: 1 for k in order}, alternatives=({k: 1 for k in order},) if count else ())
        msg = problem_pb2.Problem(code="c")
        if count:
            msg.extensions.CopyFrom(python_to_struct(dict.fromkeys(keys, 1)))
            msg.alternatives.add().CopyFrom(python_to_struct({"v": dict.fromkeys(keys, 1)}).fields["v"])
        assert pack_item(problem)[1] == msg.SerializeToString(deterministic=True)


@pytest.mark.parametrize(
    ("inner", "members"),
    [
        (T + "acme.v1.Thing", {"a": 1, "b": [True, None]}),
        ("", {"a": "x"}),
        ("acme.v1.Thing", {}),
        (T + "google.rpc.DebugInfo", {"detail": "d", "stackEntries": ["f"]}),  # a known type, as JSON
        (T + "google.rpc.DebugInfo", {"detail": 5}),  # a known type whose members do not fit it
        ("example.com/google.rpc.RequestInfo", {"requestId": "r"}),  # a known type under another prefix
        (T + "acme.v1.Thing", {"@type": "x", "a": 1}),  # a member named "@type"
        (T + "acme.v1.Thing", {"@bytes": "CAE="}),  # packed bytes kept raw
        (T + "acme.v1.Thing", {"@bytes": "not base64!"}),
        ("", {"@bytes": "CAE="}),
    ],
)
def test_an_opaque_detail_reads_as_its_members_read_as_json(inner: str, members: dict[str, Any]) -> None:
    from errconv._model.schema import item_from_json

    msg = problem_pb2.OpaqueDetail(type_url=inner)
    msg.fields.CopyFrom(python_to_struct(members))
    value = msg.SerializeToString()
    got = item_from_any(T + "errconv.v1.OpaqueDetail", value, LIMITS)
    if "@type" in members:
        want = RawDetail(type_url=inner, fields=members)
    else:
        want = item_from_json({"@type": inner, **members} if inner else members, LIMITS)
    assert got == want
    assert items_from_anys([any_pb2.Any(type_url=T + "errconv.v1.OpaqueDetail", value=value)], LIMITS) == [want]
    assert item_from_any("example.com/errconv.v1.OpaqueDetail", value, LIMITS) == want
