"""The general reader's rules added once issue 19's held-out half was folded in: each rule on
a small body made for the test (the real bodies are in tests/realworld_open/), and each
able to fail."""

from __future__ import annotations

import json

import pytest

import errconv


def read(body: object, status: int | None = None) -> errconv.Fault:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return errconv.decode(data, status=status) if status is not None else errconv.decode(data)


def test_an_error_page_title_states_its_status() -> None:
    page = b"<html>\n<head><title>504 Gateway Time-out</title></head>\n<body><h1>504 Gateway Time-out</h1></body>\n</html>\n"
    fault = read(page)
    assert (fault.status, str(fault.next_step)) == (504, "wait")
    assert fault.origin.body == "general" or fault.origin.dialect == "general"
    assert ("status", "the HTML page's title") in fault.origin.evidence


def test_an_error_page_whose_title_and_heading_disagree_is_not_read() -> None:
    page = b"<html>\n<head><title>404 Not Found</title></head>\n<body><h1>502 Bad Gateway</h1></body>\n</html>\n"
    with pytest.raises(errconv.DecodeError):
        read(page)


def test_a_page_that_only_mentions_a_status_is_not_an_error_page() -> None:
    page = b"<html>\n<head><title>Our status page</title></head>\n<body><p>404 Not Found pages fell by half</p></body>\n</html>\n"
    with pytest.raises(errconv.DecodeError):
        read(page)


@pytest.mark.parametrize("status", [200, 201, 204])
def test_an_error_inside_a_2xx_body_is_refused(status: int) -> None:
    with pytest.raises(errconv.DecodeError, match=f"not an error response: {status}"):
        read({"status": "0", "message": "NOTOK", "result": "Max rate limit reached"}, status)


def test_a_status_flag_is_no_code_and_a_shout_yields_to_prose() -> None:
    fault = read({"status": "0", "message": "NOTOK", "result": "Max calls per sec rate limit reached (5/sec)"})
    assert fault.code is None
    assert str(fault.next_step) == "wait"
    assert fault.detail.startswith("Max calls")


def test_an_integer_code_in_an_error_envelope_is_neither_stripe_nor_openai() -> None:
    body = {"error": {"message": "Rate limit exceeded", "type": "invalid_api_usage", "code": 429, "errors": [{"reason": "rate_limit_exceeded", "message": "Rate limit exceeded"}]}}
    assert errconv.detect(json.dumps(body).encode()) == "general"
    fault = read(body)
    # The reason names the error; the type only its family; the integer code is the status.
    assert (fault.status, fault.code, str(fault.next_step)) == (429, "rate_limit_exceeded", "wait")


def test_a_string_code_keeps_its_stripe_claim() -> None:
    body = {"error": {"type": "card_error", "code": "card_declined", "message": "Your card was declined."}}
    assert errconv.detect(json.dumps(body).encode()) == "stripe"


def test_a_record_reference_type_is_no_code() -> None:
    body = {"sys": {"type": "Error", "id": "NotFound"}, "message": "The resource could not be found.", "details": {"type": "Entry", "id": "1zquSqZeokECU2Wike2cQi"}}
    fault = read(body, 404)
    assert fault.code == "NotFound"
    assert fault.param is None  # {"type", "id"} is a reference, not a map of fields


def test_a_cap_on_a_count_of_things_gives_up_even_as_429() -> None:
    fault = read({"error": "Too Many Requests", "status": 429, "message": "maximum subscriptions with type and condition exceeded"}, 429)
    assert str(fault.next_step) == "give_up"
    # A request rate at 429 still waits.
    assert str(read({"error": "Too Many Requests", "status": 429, "message": "maximum requests per second exceeded"}, 429).next_step) == "wait"


def test_a_family_code_yields_to_a_message_that_says_more() -> None:
    fault = read({"id": "invalid_params", "error": "You've reached your app limit of 100 apps."}, 422)
    assert (fault.code, str(fault.next_step)) == ("invalid_params", "give_up")
    fault = read({"error": {"type": "OAuthException", "code": 190, "message": "Error validating access token: Session has expired."}}, 400)
    assert (fault.code, str(fault.next_step)) == ("190", "give_up")


def test_a_specific_code_keeps_its_move_beside_a_reason_phrase() -> None:
    fault = read({"reason": "INVALID_CSS", "message": "Forbidden", "explanation": "the stylesheet does not parse"}, 403)
    assert (fault.code, str(fault.next_step)) == ("INVALID_CSS", "fix_request")


def test_catch_all_words_at_403_leave_the_move_to_the_status() -> None:
    assert str(read({"status": 403, "errorCode": "901", "message": "Invalid Merchant Account"}).next_step) == "give_up"
    assert str(read({"status": 400, "errorCode": "901", "message": "Invalid Merchant Account"}).next_step) == "fix_request"


@pytest.mark.parametrize(
    ("message", "step"),
    [
        ("Field 'resolution' does not exist or you do not have permission to view it.", "fix_request"),
        ("The path you tried to reach is unknown route", "fix_request"),
        ("Audio captioning is already enabled", "give_up"),
        ("Mandate in invalid state", "give_up"),
        ("You should specify one of workspace, parent, projects", "fix_request"),
        ("The access token is invalid", "give_up"),
        ("maximum context length exceeded", "fix_request"),  # a size, not a count of things held
        ("maximum webhooks per account reached", "give_up"),
    ],
)
def test_message_words_decide_the_move(message: str, step: str) -> None:
    # (`{"errors": [{"message"}]}` alone is GraphQL's: a code of no meaning beside the message
    # keeps the body the general reader's.)
    fault = read({"errorCode": "E100", "message": message}, 409 if "already" in message else 400)
    assert fault.origin.body == "general" or fault.origin.dialect == "general"
    assert str(fault.next_step) == step


def test_a_list_of_fields_names_the_param() -> None:
    fault = read({"fields": ["title"], "explanation": "this is too long (max: 50)", "message": "Bad Request", "reason": "TOO_LONG"}, 400)
    assert (fault.param, fault.detail, fault.code) == ("title", "this is too long (max: 50)", "TOO_LONG")
