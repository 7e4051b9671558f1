"""drf: Django REST framework's detail texts, field maps and message lists, read as DRF
writes them, told apart from FastAPI and problem."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import NextStep

from .adhoc import bare, body, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response


def test_field_map_every_message_is_a_violation() -> None:
    fault = response(400, {"amount": ["A valid integer is required."], "description": ["This field may not be blank.", "Too short."]})
    assert fault.origin.body == "drf"
    assert [(v.field, v.description) for v in fault.violations] == [
        ("amount", "A valid integer is required."),
        ("description", "This field may not be blank."),
        ("description", "Too short."),
    ]
    assert (fault.status, fault.code, fault.param, fault.next_step) == (400, None, "amount", NextStep.FIX_REQUEST)


def test_nested_serializers_and_many_true_spell_dotted_paths() -> None:
    errors = {
        "non_field_errors": ["The fields start, end must make a unique set."],
        "address": {"zip": ["Enter a valid zip."], "non_field_errors": ["Bad address."]},
        "items": [{}, {"qty": ["Ensure this value is greater than or equal to 1."]}],
    }
    fault = response(400, errors)
    assert [(v.field, v.description) for v in fault.violations] == [
        ("", "The fields start, end must make a unique set."),  # the object as a whole
        ("address.zip", "Enter a valid zip."),
        ("address", "Bad address."),
        ("items.1.qty", "Ensure this value is greater than or equal to 1."),
    ]
    assert fault.param == "address.zip"  # the first field named


def test_a_list_of_messages() -> None:
    fault = response(400, ["This field is required.", "Another."])
    assert fault.origin.body == "drf"
    assert fault.detail == "This field is required." and [v.description for v in fault.violations] == ["This field is required.", "Another."]


def test_a_field_map_is_claimed_only_at_400() -> None:
    assert detected({"amount": ["x"]}, status=400) == "drf"
    assert detected({"amount": ["x"]}, status=422) == "general"  # the general reader: a map of field to messages
    with pytest.raises(errconv.DecodeError, match="no dialect recognises"):
        errconv.decode(body({"amount": ["x"]}))  # bare, without the status: nothing says it is DRF's
    assert bare({"amount": ["x"]}, status=400).origin.dialect == "drf"


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("Request was throttled.", 429),
        ("Request was throttled. Expected available in 1 second.", 429),
        ("Request was throttled. Expected available in 3593 seconds.", 429),
        ("Request was throttled.Expected available in 10 seconds.", 429),  # DRF 2's spelling, no space
        ("Slow down! Expected available in 5 seconds.", 429),  # a custom detail: Throttled appends its sentence
        ("Not found.", 404),
        ("No Snippet matches the given query.", 404),
        ("Invalid page.", 404),
        ("Malformed request.", 400),
        ("JSON parse error - Expecting value: line 1 column 1 (char 0)", 400),
        ("You do not have permission to perform this action.", 403),
        ("Method \"DELETE\" not allowed.", 405),
        ("Method 'DELETE' not allowed.", 405),
        ("Could not satisfy the request Accept header.", 406),
        ("Unsupported media type \"text/plain\" in request.", 415),
        ("A server error occurred.", 500),
    ],
)
def test_drf_wording_names_the_exception_and_so_a_bare_body_status(text: str, status: int) -> None:
    fault = bare({"detail": text})
    assert fault.origin.dialect == "drf"
    assert fault.status == status and "status" in fault.origin.inferred
    assert fault.detail == text


def test_throttled_waits_but_its_number_in_prose_is_not_the_delay() -> None:
    fault = bare({"detail": "Request was throttled. Expected available in 3593 seconds."})
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (429, NextStep.WAIT, None)
    # Inside HTTP, DRF sends the same number as Retry-After: that is the delay.
    inside = response(429, {"detail": "Request was throttled. Expected available in 3593 seconds."}, (("Retry-After", "3593"),))
    assert (inside.origin.body, inside.next_step, inside.retry_after_seconds) == ("drf", NextStep.WAIT, 3593)


def test_authentication_texts_name_no_status() -> None:
    # NotAuthenticated and AuthenticationFailed answer 401 or 403 by authentication scheme.
    fault = bare({"detail": "Authentication credentials were not provided."})
    assert fault.origin.dialect == "drf" and fault.status == 500 and fault.next_step == NextStep.GIVE_UP
    assert response(403, {"detail": "Authentication credentials were not provided."}).status == 403


@pytest.mark.parametrize(("status", "why"), [(405, "MethodNotAllowed"), (406, "NotAcceptable"), (415, "UnsupportedMediaType")])
def test_a_request_to_change_is_fix_request_whatever_the_ladder_says(status: int, why: str) -> None:
    fault = response(status, {"detail": "Method \"DELETE\" not allowed."})
    assert fault.next_step == NextStep.FIX_REQUEST and why in fault.origin.next_step


def test_a_translated_text_is_just_the_detail() -> None:
    fault = response(429, {"detail": "La requête a été limitée."})  # a sentence: DRF's shape, not its wording
    assert fault.origin.body == "drf" and fault.detail == "La requête a été limitée." and fault.next_step == NextStep.WAIT
    assert bare({"detail": "La requête a été limitée."}).status == 500


def test_members_of_no_serializer_shape_are_kept() -> None:
    fault = errconv.decode(body({"amount": ["x"], "count": 3}), "drf", status=400)
    assert fault.param == "amount" and fault.extensions == {"count": 3}


def test_too_many_violations_is_a_decode_error() -> None:
    fields = {f"f{i}": ["m"] for i in range(errconv.Limits().max_violations + 1)}
    with pytest.raises(errconv.DecodeError, match="violations"):
        errconv.decode(body(fields), "drf", status=400)


@pytest.mark.parametrize(
    ("obj", "status", "want"),
    [
        ({"detail": "Not found."}, None, "drf"),
        ({"detail": "Not Found"}, None, "fastapi"),
        ({"detail": "Bad credentials"}, 403, "fastapi"),  # no full stop, no DRF wording: FastAPI's too
        ({"status": 404, "detail": "Not found."}, 404, "problem"),
        ({"title": "x", "detail": "Not found."}, None, "problem"),
        ({"message": "The given data was invalid.", "errors": {"email": ["The email field is required."]}}, 400, "general"),  # Laravel: a field map under errors, the general reader's
        ({"errors": [{"status": "400", "title": "Invalid", "source": {"pointer": "/data/attributes/name"}}]}, 400, None),  # JSON:API's shape
        ({"type": ["x"]}, 400, "drf"),  # a serializer field named like a problem member, with DRF's messages
    ],
)
def test_drf_look_alikes(obj: dict[str, Any], status: int | None, want: str | None) -> None:
    got = detected(obj, status=status)
    if want is None:
        assert got != "drf"
    else:
        assert got == want


def test_drf_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="drf is read, not written"):
        errconv.encode(errconv.Fault.build(status=400, code="invalid", param="p", next_step="fix_request"), "drf")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("drf")


@pytest.mark.parametrize(("key", "path", "entry"), captures("drf"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
