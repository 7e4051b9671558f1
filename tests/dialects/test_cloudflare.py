"""cloudflare: the v4 envelope's `success: false` with `errors[]`, told apart from the
GraphQL and JSON:API `errors[]` shapes (by shape: their dialects are written elsewhere)."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import Code, NextStep

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response


def envelope(*errors: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"success": False, "errors": list(errors), "messages": [], "result": None, **more}


def test_the_first_error_gives_code_and_detail() -> None:
    fault = response(404, envelope({"code": 1142, "message": "The zone setting does not exist."}))
    assert fault.origin.body == "cloudflare"
    assert (fault.code, fault.detail, fault.status, fault.next_step) == ("1142", "The zone setting does not exist.", 404, NextStep.GIVE_UP)
    assert fault.extensions == {}  # success, an empty messages and a null result say nothing more


def test_documentation_url_and_source_pointer() -> None:
    error = {"code": 7003, "message": "Could not route", "documentation_url": "https://developers.cloudflare.com/api/", "source": {"pointer": "/zone_id"}}
    fault = response(400, envelope(error))
    assert (fault.type, fault.param) == ("https://developers.cloudflare.com/api/", "zone_id")
    assert [(v.field, v.reason) for v in fault.violations] == [("zone_id", "7003")]
    assert "errors" not in fault.extensions


def test_further_errors_messages_and_result_are_kept() -> None:
    errors = [{"code": 1001, "message": "a"}, {"code": 1002, "message": "b"}]
    fault = response(400, envelope(*errors, messages=["note"], result={"id": "x"}))
    assert fault.code == "1001"
    assert fault.extensions == {"errors": errors, "messages": ["note"], "result": {"id": "x"}}


def test_success_null_and_a_message_without_code() -> None:
    fault = bare({"success": None, "errors": [{"message": "Object not found."}], "messages": []}, status=404)
    assert fault.origin.dialect == "cloudflare" and fault.code is None and fault.detail == "Object not found."


@pytest.mark.parametrize(("code", "status", "step", "grpc"), [("10000", 403, NextStep.GIVE_UP, Code.PERMISSION_DENIED), ("971", 429, NextStep.WAIT, Code.RESOURCE_EXHAUSTED)])
def test_code_table(code: str, status: int, step: NextStep, grpc: int) -> None:
    bare_fault = bare({"success": False, "errors": [{"code": int(code), "message": "m"}]})
    assert (bare_fault.status, bare_fault.next_step, bare_fault.grpc_code) == (status, step, grpc)
    assert "status" in bare_fault.origin.inferred
    assert response(400, envelope({"code": int(code), "message": "m"})).next_step == step  # whatever the status


def test_a_bare_body_of_another_code_is_a_400() -> None:
    fault = bare(envelope({"code": 1002, "message": "invalid data"}))
    assert fault.status == 400 and "status" in fault.origin.inferred


@pytest.mark.parametrize(
    ("obj", "mine"),
    [
        (envelope({"code": 1142, "message": "x"}), True),
        ({"success": False, "errors": [{"code": 10000, "message": "Authentication error"}]}, True),
        # GraphQL: errors with message/locations/path, and data.
        ({"errors": [{"message": "Cannot query field", "locations": [{"line": 1, "column": 2}], "path": ["a"]}], "data": None}, False),
        ({"errors": [{"message": "Forbidden", "extensions": {"code": "FORBIDDEN"}}]}, False),
        # JSON:API: errors with status (a string), title, detail, source.
        ({"errors": [{"status": "422", "title": "Invalid Attribute", "detail": "x", "source": {"pointer": "/data/attributes/name"}}]}, False),
        ({"errors": ["Forbidden"]}, False),
        ({"success": True, "errors": [], "messages": [], "result": {}}, False),
        ({"success": False, "errors": "nope"}, False),
    ],
)
def test_cloudflare_graphql_and_jsonapi_are_told_apart(obj: dict[str, Any], mine: bool) -> None:
    for status in (None, 400):
        try:
            got = detected(obj, status=status)
        except errconv.DecodeError:
            got = None  # a bare body no dialect recognises (yet)
        assert (got == "cloudflare") is mine, (obj, status, got)


def test_cloudflare_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="cloudflare is read, not written"):
        errconv.encode(errconv.Fault.build(status=404, code="not_found"), "cloudflare")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("cloudflare")


@pytest.mark.parametrize(("key", "path", "entry"), captures("cloudflare"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
