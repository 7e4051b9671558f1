"""vault: HashiCorp Vault's `{"errors": [...]}`, a list of messages and no code, told apart
from JSON:API's and GraphQL's `errors` lists of objects."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

import errconv
from errconv import NextStep, dialects

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response


def test_the_messages_are_the_detail_and_the_status_is_the_wire_s() -> None:
    fault = response(400, {"errors": ["missing client token", "invalid request"]})
    assert fault.origin is not None and fault.origin.body == "vault"
    assert (fault.status, fault.code, fault.detail, fault.next_step) == (
        400,
        None,
        "missing client token; invalid request",
        NextStep.FIX_REQUEST,
    )


@pytest.mark.parametrize(
    ("message", "status", "step"),
    [("permission denied", 403, NextStep.GIVE_UP), ("Vault is sealed", 503, NextStep.WAIT)],
)
def test_a_fixed_message_gives_a_bare_body_its_status_and_step(message: str, status: int, step: NextStep) -> None:
    fault = bare({"errors": [message]})
    assert (fault.status, fault.next_step) == (status, step)
    assert fault.origin is not None and "status" in fault.origin.inferred


def test_any_other_bare_body_is_500_assumed_and_noted() -> None:
    fault = bare({"errors": ["unsupported path"]})
    assert fault.status == 500
    assert fault.origin is not None and fault.origin.notes == ("no status in the vault body; 500 assumed",)


def test_an_empty_list_is_vault_s_404_and_claimed_less_strongly() -> None:
    vault = dialects.get("vault")
    assert vault.recognise({"errors": []}, None) < vault.recognise({"errors": ["x"]}, None)
    fault = response(404, {"errors": []})
    assert fault.origin is not None and fault.origin.body == "vault"
    assert (fault.status, fault.detail, fault.next_step) == (404, None, NextStep.GIVE_UP)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"errors": ["permission denied"]}, "vault"),
        ({"errors": [{"status": "404", "title": "Not Found"}]}, "jsonapi"),
        ({"errors": [{"message": "Cannot query field"}]}, "graphql"),
        ({"errors": ["x"], "data": None}, None),  # something beside the list: not Vault's
    ],
)
def test_vault_s_list_of_strings_is_no_other_errors_list(body: Any, expected: str | None) -> None:
    try:
        found: str | None = detected(body)
    except errconv.DecodeError:
        found = None
    assert (found == "vault") == (expected == "vault")
    if expected not in (None, "vault"):
        assert found == expected


@pytest.mark.parametrize(("key", "path", "entry"), captures("vault"))
def test_real_captures_are_read_as_vault(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    fault = read_capture(path, entry)
    assert str(fault.next_step) == entry["facts"]["next_step"]
    if entry["facts"]["status"] is not None:
        assert fault.status == entry["facts"]["status"]


def test_a_vault_fault_converts_to_every_writer() -> None:
    check_converts(bare({"errors": ["permission denied"]}))


def test_hostile_input_gives_a_fault_or_a_decode_error() -> None:
    check_bad_input("vault")
