"""The wait signals real services send in HTTP headers, each read into whole seconds."""

from __future__ import annotations

import pytest

import errconv

DATE = "Date: Wed, 15 Jan 2025 12:00:00 GMT"


def response(status: str, *headers: str, body: bytes = b"") -> bytes:
    head = "\r\n".join((f"HTTP/1.1 {status}", *headers, f"Content-Length: {len(body)}"))
    return head.encode() + b"\r\n\r\n" + body


@pytest.mark.parametrize(
    "headers, seconds, source",
    [
        (("retry-after-ms: 1500",), 2, "retry-after-ms"),  # rounded up, as everywhere
        (("x-ms-retry-after-ms: 250",), 1, "x-ms-retry-after-ms"),
        (("x-amz-retry-after: 3000",), 3, "x-amz-retry-after"),
        (("Retry-After: 1", "retry-after-ms: 1500"), 2, "retry-after-ms"),  # agree: the precise one
        (("Retry-After: 30", "retry-after-ms: 1000"), 30, "Retry-After"),  # disagree: the longer
        (("Retry-After: 1.5",), 2, "Retry-After"),  # fractional, as azure-core reads it
        (("X-RateLimit-Remaining: 0", "X-RateLimit-Reset-After: 1.337"), 2, "x-ratelimit-reset-after"),  # Discord
        (("x-ratelimit-remaining-requests: 0", "x-ratelimit-reset-requests: 6m0s"), 360, "x-ratelimit-reset-requests"),
        (("x-ratelimit-remaining-tokens: 0", "x-ratelimit-reset-tokens: 12ms"), 1, "x-ratelimit-reset-tokens"),
        (
            ("x-ratelimit-remaining-requests: 0", "x-ratelimit-reset-requests: 1s",
             "x-ratelimit-remaining-tokens: 0", "x-ratelimit-reset-tokens: 1m30.5s"),
            91, "x-ratelimit-reset-tokens",
        ),  # both spent: both must reset
        (
            (DATE, "anthropic-ratelimit-requests-remaining: 0",
             "anthropic-ratelimit-requests-reset: 2025-01-15T12:00:42Z"),
            42, "anthropic-ratelimit-requests-reset",
        ),
        (
            (DATE, "anthropic-ratelimit-tokens-remaining: 0",
             "anthropic-ratelimit-tokens-reset: 2025-01-15T13:01:00.5+01:00"),
            61, "anthropic-ratelimit-tokens-reset",
        ),
    ],
)  # fmt: skip
def test_each_delay_header_is_read_in_whole_seconds(headers: tuple[str, ...], seconds: int, source: str) -> None:
    fault = errconv.decode(response("429 Too Many Requests", *headers), now=0.0)
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", seconds)
    assert fault.origin.next_step == f"inferred from {source}"


def test_a_remaining_limit_or_an_unreadable_value_is_no_delay() -> None:
    fault = errconv.decode(response("400 Bad Request", "x-ratelimit-remaining-requests: 5", "x-ratelimit-reset-requests: 1s"))
    assert (fault.next_step, fault.retry_after_seconds) == ("fix_request", None)
    fault = errconv.decode(response("503 Service Unavailable", "retry-after-ms: soon"))
    assert fault.retry_after_seconds is None
    assert "unreadable retry-after-ms 'soon' ignored" in fault.origin.notes


def test_x_should_retry_overrides_the_status_rules() -> None:
    # As the OpenAI and Anthropic SDKs read it: false forbids a retry whatever else is said.
    fault = errconv.decode(response("429 Too Many Requests", "x-should-retry: false", "Retry-After: 5"))
    assert fault.next_step == "give_up" and fault.origin.next_step == "inferred from x-should-retry: false"
    fault = errconv.decode(response("409 Conflict", "x-should-retry: true"))
    assert fault.next_step == "wait" and fault.origin.next_step == "inferred from x-should-retry: true"
    # ...and Stripe-Should-Retry: false likewise outranks a delay sent beside it.
    fault = errconv.decode(response("503 Service Unavailable", "Stripe-Should-Retry: false", "Retry-After: 5"))
    assert fault.next_step == "give_up"
