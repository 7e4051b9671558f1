"""github: GitHub's REST error body; its rate limits as the core's headers read them,
never overridden wrongly by the body; told apart from problem."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import NextStep
from errconv.details import RequestInfo

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response

DOCS = "https://docs.github.com/rest/issues/labels#create-a-label"
VALIDATION = {"message": "Validation Failed", "errors": [{"resource": "Label", "code": "invalid", "field": "color"}], "documentation_url": DOCS, "status": "422"}


def test_validation_failed() -> None:
    fault = response(422, VALIDATION)
    assert fault.origin.body == "github"
    assert (fault.code, fault.param, fault.detail, fault.type, fault.next_step) == ("invalid", "color", "Validation Failed", DOCS, NextStep.FIX_REQUEST)
    assert [(v.field, v.reason) for v in fault.violations] == [("color", "invalid")]
    assert fault.extensions == {}


def test_a_bare_body_with_field_errors_is_a_422_and_its_string_status_is_read() -> None:
    assert bare({**VALIDATION, "status": "422"}).status == 422
    without = {k: v for k, v in VALIDATION.items() if k != "status"}
    fault = bare(without)
    assert fault.status == 422 and "status" in fault.origin.inferred
    assert bare({"message": "Not Found", "documentation_url": DOCS, "status": "404"}).status == 404


def test_custom_and_string_errors() -> None:
    body = {"message": "Validation Failed", "documentation_url": DOCS, "errors": [{"resource": "Issue", "code": "custom", "field": "title", "message": "title is too long"}, "Could not resolve to a node"]}
    fault = bare(body, status=422)
    assert [(v.field, v.description, v.reason) for v in fault.violations] == [("title", "title is too long", "custom"), ("", "Could not resolve to a node", None)]
    assert (fault.code, fault.param) == ("custom", "title")


def test_request_id_is_request_info() -> None:
    fault = bare({"message": "Validation Failed", "request_id": "0000:00000", "documentation_url": DOCS}, status=422)
    assert RequestInfo(request_id="0000:00000") in fault.details


def test_secondary_rate_limit_retry_after_is_a_wait() -> None:
    fault = response(403, {"message": "You have exceeded a secondary rate limit.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}, (("retry-after", "60"),))
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 60)
    assert "Retry-After" in fault.origin.next_step  # the header decided, not the body


def test_primary_rate_limit_reset_is_a_wait_until_the_reset() -> None:
    headers = (("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "1800000120"))
    for status in (403, 429):
        fault = response(status, {"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}, headers)
        assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 120)


def test_a_spent_limit_on_another_status_is_not_the_cause() -> None:
    # octokit's plugin-throttling: a 401 "Bad credentials" with the same headers must not be retried.
    headers = (("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "1800000120"))
    fault = response(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}, headers)
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.GIVE_UP, None)
    assert any("ignored" in n for n in fault.origin.notes)
    # A Retry-After is the server's own word, whatever the status.
    retry = response(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}, (("retry-after", "5"),))
    assert (retry.next_step, retry.retry_after_seconds) == (NextStep.WAIT, 5)


def test_a_rate_limit_docs_url_is_a_wait_without_headers() -> None:
    body = {"message": "API rate limit exceeded for 1.2.3.4.", "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}
    fault = bare(body, status=403)
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, None)
    assert "documentation_url" in fault.origin.next_step
    # The same url on another status, or another url at 403: the status decides.
    assert bare(body, status=404).next_step == NextStep.GIVE_UP
    assert bare({"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/issues"}, status=403).next_step == NextStep.GIVE_UP


def test_the_message_prose_is_never_read() -> None:
    fault = bare({"message": "You have exceeded a secondary rate limit", "documentation_url": "https://docs.github.com/rest"}, status=403)
    assert fault.next_step == NextStep.GIVE_UP


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        (VALIDATION, "github"),
        ({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, "github"),
        ({"message": "Not Found"}, "general"),  # a message alone is nobody's in particular
        ({"type": "https://example.com/probs/x", "title": "x", "status": 404, "detail": "Not Found"}, "problem"),
        ({"status": 403, "detail": "forbidden", "documentation_url": "https://example.com"}, "problem"),  # no message
    ],
)
def test_github_and_problem_are_told_apart(obj: dict[str, Any], want: str) -> None:
    assert detected(obj) == want
    assert detected(obj, status=422) == want


def test_github_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="github is read, not written"):
        errconv.encode(errconv.Fault.build(status=404, code="not_found"), "github")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("github")


@pytest.mark.parametrize(("key", "path", "entry"), captures("github"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
