"""The `google` dialect's code table (googleapis.com credential reasons) and the legacy
`errors[]` member, with the captures that need them."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from google.api import error_reason_pb2

import errconv
from errconv import NextStep
from errconv.dialects.google import REASON_STEPS

REALWORLD = pathlib.Path(__file__).resolve().parent.parent / "realworld"


def envelope(reason: str, domain: str = "googleapis.com", code: int = 400, status: str = "INVALID_ARGUMENT", **extra: Any) -> bytes:
    info = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": domain, "metadata": {"service": "x.googleapis.com"}}
    return json.dumps({"error": {"code": code, "message": "m", "status": status, "details": [info], **extra}}).encode()


def test_every_reason_in_the_table_is_one_google_defines() -> None:
    defined = {v.name for v in error_reason_pb2.ErrorReason.DESCRIPTOR.values}
    assert set(REASON_STEPS) <= defined
    assert set(REASON_STEPS.values()) == {NextStep.GIVE_UP}


@pytest.mark.parametrize("reason", sorted(REASON_STEPS))
def test_a_credential_reason_is_give_up_even_on_a_400(reason: str) -> None:
    fault = errconv.decode(envelope(reason))
    assert (fault.code, fault.next_step) == (reason, NextStep.GIVE_UP)
    assert fault.origin.next_step == f"inferred from googleapis.com reason {reason!r}"


def test_the_table_is_for_the_googleapis_com_domain_only() -> None:
    fault = errconv.decode(envelope("API_KEY_INVALID", domain="api.example.com"))
    assert fault.next_step == NextStep.FIX_REQUEST  # another owner's reason: the status ladder decides
    assert fault.origin.next_step == "inferred from INVALID_ARGUMENT"


def test_a_stated_next_step_outranks_the_table() -> None:
    body = json.loads(envelope("API_KEY_INVALID"))
    body["error"]["details"][0]["metadata"]["next_step"] = "fix_request"
    fault = errconv.decode(json.dumps(body).encode())
    assert fault.next_step == NextStep.FIX_REQUEST and fault.origin.stated


def test_a_reason_not_in_the_table_keeps_the_status_s_step() -> None:
    fault = errconv.decode(envelope("RATE_LIMIT_EXCEEDED", code=429, status="RESOURCE_EXHAUSTED"))
    assert fault.next_step == NextStep.WAIT


def test_the_legacy_errors_member_names_the_parameter() -> None:
    # google-api-python-client's tests/test_errors.py JSON_ERROR_CONTENT.
    body = {"error": {"errors": [{"domain": "global", "reason": "required", "message": "country is required",
                                  "locationType": "parameter", "location": "country"}],
                      "code": 400, "message": "country is required"}}  # fmt: skip
    fault = errconv.decode(json.dumps(body).encode())
    assert (fault.param, fault.next_step) == ("country", NextStep.FIX_REQUEST)
    assert fault.extensions["errors"] == body["error"]["errors"]  # kept whole
    again = errconv.decode(errconv.encode(fault, "google"), "google")
    assert again == fault


@pytest.mark.parametrize(
    "errors",
    [
        [{"domain": "global", "reason": "badRequest", "message": "m"}],  # no location
        [{"locationType": "header", "location": "Authorization"}],  # a header, not a parameter
        [{"locationType": "parameter", "location": ""}],
        "not a list",
    ],
)
def test_legacy_errors_without_a_parameter_name_none(errors: Any) -> None:
    body = {"error": {"errors": errors, "code": 400, "message": "m"}}
    assert errconv.decode(json.dumps(body).encode()).param is None


CAPTURES = [
    ("gemini", "api-key-invalid-400.json"),
    ("google_cloud", "details-as-string.json"),
    ("google_cloud", "translate-api-key-invalid.json"),
]


@pytest.mark.parametrize(("service", "name"), CAPTURES)
def test_the_captures_this_reads_right_are_detected_as_google(service: str, name: str) -> None:
    entry = json.loads((REALWORLD / service / "facts.json").read_text())[name]
    fault = errconv.decode((REALWORLD / service / name).read_bytes(), status=entry["facts"]["status"])
    assert fault.origin.dialect == entry["expected_dialect"] == "google"
