"""The model and its strict builder."""

from __future__ import annotations

import pytest

import errconv
from errconv import Code, ContractError, Fault, NextStep, Violation
from errconv.details import Help, Link


def test_next_step_and_code_compare_equal_to_plain_values() -> None:
    fault = Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=30)
    assert fault.next_step == "wait"
    assert fault.grpc_code == 8 == Code.RESOURCE_EXHAUSTED
    assert fault.grpc_code_name == "RESOURCE_EXHAUSTED"


def test_status_and_grpc_code_derive_each_other() -> None:
    assert Fault.build(status=404, code="gone").grpc_code == Code.NOT_FOUND
    assert Fault.build(grpc_code=Code.UNAVAILABLE, retry_after_seconds=5).status == 503
    kept = Fault.build(status=400, grpc_code=Code.FAILED_PRECONDITION, code="terms")
    assert (kept.status, kept.grpc_code) == (400, 9)


def test_missing_next_step_is_inferred_like_a_decoder_would() -> None:
    assert Fault.build(status=500).next_step == NextStep.GIVE_UP
    assert Fault.build(status=400, param="currency").next_step == NextStep.FIX_REQUEST
    assert Fault.build(status=503, retry_after_seconds=3).next_step == NextStep.WAIT


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"status": 429, "next_step": "wait"}, "must carry retry_after_seconds"),
        ({"status": 429, "next_step": "wait", "retry_after_seconds": 1.5}, "whole number"),
        ({"status": 429, "next_step": "wait", "retry_after_seconds": -1}, "negative"),
        ({"status": 429, "next_step": "wait", "retry_after_seconds": float("nan")}, "whole number"),
        ({"status": 429, "next_step": "wait", "retry_after_seconds": True}, "whole number"),
        ({"status": 400, "next_step": "fix_request"}, "name the parameter"),
        ({"status": 400, "next_step": "retry"}, "fix_request, wait, give_up"),
        ({"status": 400, "next_step": "give_up", "retry_after_seconds": 3}, "only with next_step wait"),
        ({"status": 400, "code": 5}, "code must be text"),
        ({"status": 400}, "means fix_request, which must name the parameter"),
        ({"status": 409, "next_step": "give_up", "alternatives": [1, 2, 3, 4]}, "at most 3 alternatives"),
        ({"status": 403, "metadata": {"param": "x"}}, "reserved"),
        ({"status": 403, "metadata": {"a": 1}}, "strings to strings"),
        ({"status": 99}, "100 to 599"),
        ({"grpc_code": 17}, "0 to 16"),
        ({}, "status or grpc_code"),
    ],
)
def test_builder_refuses_contract_breaches(kwargs: dict, message: str) -> None:
    with pytest.raises(ContractError, match=message):
        Fault.build(**kwargs)


@pytest.mark.parametrize("code", ["a", "_leading", "trailing_", "9lives", "has space", "dash-ed", "ünï", "x" * 64])
def test_builder_keeps_codes_as_services_spell_them(code: str) -> None:
    # issue 23: the AIP-193 rule binds ErrorInfo.reason, which the google dialects make from the code
    assert Fault.build(status=403, code=code).code == code


def test_contract_error_is_a_value_error_and_an_errconv_error() -> None:
    with pytest.raises(ValueError):
        Fault.build(status=400, next_step="fix_request")
    assert issubclass(ContractError, errconv.ErrconvError)


def test_equality_ignores_origin_and_json_omits_it() -> None:
    built = Fault.build(status=503, code="maintenance", retry_after_seconds=30)
    decoded = errconv.decode(errconv.encode(built, "problem"))
    assert decoded.origin is not None and decoded.origin.next_step == "stated"
    assert decoded == built
    assert b"origin" not in decoded.to_json()
    assert Fault.from_json(decoded.to_json()) == built


def test_faults_are_immutable_values() -> None:
    fault = Fault.build(status=404)
    with pytest.raises(AttributeError):
        fault.status = 500  # type: ignore[misc]
    assert fault.replace(status=410).status == 410
    with pytest.raises(TypeError):
        hash(fault)


def test_empty_strings_are_absent() -> None:
    fault = Fault.build(status=404, detail="", title="", type="")
    assert fault.detail is None and fault.title is None


def test_typed_details_and_violations_serialise_canonically() -> None:
    fault = Fault.build(
        status=400,
        code="bad",
        param="a",
        violations=[{"field": "a", "description": "bad"}],
        details=[Help(links=(Link(description="docs", url="https://example.com"),))],
    )
    assert fault.violations == (Violation(field="a", description="bad"),)
    text = fault.to_json().decode()
    assert '"@type": "google.rpc.Help"' in text
    assert Fault.from_json(fault.to_json()) == fault


def test_fault_error_carries_the_fault() -> None:
    fault = Fault.build(status=404, code="book_not_found", detail="No such book")
    err = errconv.FaultError(fault)
    assert err.fault is fault and str(err) == "No such book"
