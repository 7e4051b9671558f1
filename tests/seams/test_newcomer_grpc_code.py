"""from_grpc takes the code forms a user has at hand, and refuses the rest (issue 23, item 4)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

import errconv
from errconv import Code


@pytest.mark.parametrize(
    "code",
    ["UNAVAILABLE", "unavailable", " Unavailable ", "StatusCode.UNAVAILABLE", "14", b"14", 14,
     grpc.StatusCode.UNAVAILABLE, Code.UNAVAILABLE],
)  # fmt: skip
def test_every_form_of_a_code_reads_the_same(code: Any) -> None:
    fault = errconv.from_grpc(code, "overloaded", [])
    assert fault.grpc_code == Code.UNAVAILABLE and fault.status == 503
    assert fault.next_step == "wait"


def test_names_match_numbers_for_every_code() -> None:
    for member in grpc.StatusCode:
        number, name = member.value
        if number == 0:
            continue
        assert errconv.from_grpc(name.upper(), "x").grpc_code == number
        assert errconv.from_grpc(member.name.lower(), "x").grpc_code == number
        assert errconv.from_grpc(member, "x").grpc_code == number


@pytest.mark.parametrize(
    "code", ["NOPE", "", "UNAVAILABLE!", "ＵＮＡＶＡＩＬＡＢＬＥ", True, 3.0, object(), [14], 17, -1, 99999, "17"]
)
def test_anything_else_is_a_clear_decode_error(code: Any) -> None:
    with pytest.raises(errconv.DecodeError, match="gRPC code") as caught:
        errconv.from_grpc(code, "x", [])
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("code", [0, "0", "OK", "ok", grpc.StatusCode.OK, Code.OK])
def test_ok_is_refused_as_a_2xx_is(code: Any) -> None:
    with pytest.raises(errconv.DecodeError, match="not an error"):
        errconv.from_grpc(code, "fine", [])
    with pytest.raises(errconv.DecodeError, match="not an error"):
        errconv.from_http(200, [], b"{}")


def test_no_code_is_still_unknown_noted() -> None:
    fault = errconv.from_grpc(None, "x")
    assert fault.grpc_code == Code.UNKNOWN
    assert fault.origin is not None and any("no grpc-status" in n for n in fault.origin.notes)


def test_trailing_metadata_as_a_mapping_reads_as_pairs() -> None:
    status = errconv.to_grpc(errconv.Fault.build(status=429, code="too_fast", domain="example.com", next_step="wait", retry_after_seconds=7))
    pairs = list(status.trailing_metadata)
    from_pairs = errconv.from_grpc(status.code, status.details, pairs)
    from_mapping = errconv.from_grpc(status.code, status.details, dict(pairs))
    assert from_mapping == from_pairs
    assert from_mapping.retry_after_seconds == 7 and from_mapping.code == "too_fast"
    assert errconv.from_grpc("UNAVAILABLE", "x", {"grpc-retry-pushback-ms": "2000"}).retry_after_seconds == 2
