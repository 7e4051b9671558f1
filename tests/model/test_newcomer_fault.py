"""Fault.build keeps codes as services spell them, and grpc_code is one type (issue 23, items 5 and 6)."""

from __future__ import annotations

import json
import re

import pytest

import errconv
from errconv import Code, ContractError, Fault

AIP193_REASON = re.compile(r"[A-Z][A-Z0-9_]+[A-Z0-9]")


@pytest.mark.parametrize("code", ["bad-request", "E1", "x", "RateLimited", "has space", "über", "9lives", "a" * 100])
def test_build_accepts_codes_as_services_spell_them(code: str) -> None:
    fault = Fault.build(status=404, code=code)
    assert fault.code == code
    assert fault == Fault.build(status=404, code="not_found").replace(code=code)


@pytest.mark.parametrize("code", ["bad-request", "E1", "über", "a" * 100])
def test_the_google_dialect_writes_an_aip193_reason_and_keeps_the_code(code: str) -> None:
    fault = Fault.build(status=404, code=code)
    body = json.loads(errconv.encode(fault, "google"))
    reasons = [d["reason"] for d in body["error"]["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
    assert len(reasons) == 1
    assert AIP193_REASON.fullmatch(reasons[0]) and len(reasons[0]) <= 63
    assert errconv.decode(errconv.encode(fault, "google")).code == code
    for dialect in ("google", "status-json", "status", "grpc", "problem", "connect", "twirp"):
        assert "code" not in errconv.losses(fault, dialect), dialect


def test_decoded_codes_build_again() -> None:
    body = b'{"type": "about:blank", "status": 400, "code": "bad-request", "param": "q"}'
    fault = errconv.decode(body)
    assert fault.code == "bad-request"
    again = Fault.build(status=fault.status, code=fault.code, param=fault.param)
    assert again.code == "bad-request"


def test_a_code_that_is_not_text_is_refused() -> None:
    with pytest.raises(ContractError, match="code must be text"):
        Fault.build(status=404, code=404)  # type: ignore[arg-type]
    assert Fault.build(status=404, code="").code is None


# --------------------------------------------------------------------------- item 6: grpc_code is one type

GOLDEN = __import__("pathlib").Path(__file__).resolve().parents[2] / "golden"


def test_grpc_code_is_a_code_member_however_the_fault_was_made() -> None:
    built = Fault.build(status=404, code="not_found")
    made = [
        built,
        Fault.build(grpc_code=5, code="x"),
        built.replace(grpc_code=14),
        Fault.from_json(built.to_json()),
        errconv.decode(errconv.encode(built, "fault")),
        errconv.from_http(503, [], b"busy"),
        errconv.from_grpc("UNAVAILABLE", "busy"),
    ]
    for path in sorted(GOLDEN.glob("*/*")):
        if path.stem != "case" and path.suffix != ".txtpb":  # text protobuf is no wire form errconv reads
            made.append(errconv.decode(path.read_bytes()))
    for fault in made:
        assert type(fault.grpc_code) is Code, fault
    assert built.grpc_code == 5 and built.grpc_code is Code.NOT_FOUND


def test_a_code_member_writes_as_a_number() -> None:
    built = Fault.build(status=404, code="not_found")
    assert b'"grpc_code": 5' in built.to_json()
    assert json.loads(errconv.encode(built, "status-json"))["code"] == 5
