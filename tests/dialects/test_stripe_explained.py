"""Explanations that do not stop short (issue 30, item 9): where a bare Stripe body's status comes
from, a violation with no description, and a stopped request's message for a fault with no code."""

from __future__ import annotations

import io

import httpx
import pytest
from loopback import serve_http

import errconv
import errconv.clients.httpx
from errconv import _cli as cli

# Stripe's own shape (research/stripe.md): a bare body states no HTTP status.
MISSING = b'{"error":{"type":"invalid_request_error","code":"resource_missing","message":"No such customer: cus_1","param":"id"}}'
CARD = b'{"error":{"type":"card_error","message":"Your card was declined."}}'
BARE = b'{"error":{"type":"invalid_request_error","message":"Invalid request."}}'


def _explain(data: bytes, *argv: str) -> str:
    stdout, stderr = io.BytesIO(), io.StringIO()
    assert cli.main(["explain", *argv], stdin=io.BytesIO(data), stdout=stdout, stderr=stderr) == 0, stderr.getvalue()
    return stdout.getvalue().decode()


@pytest.mark.parametrize(
    ("body", "status", "note", "inferred"),
    [
        (MISSING, 404, "no status given: 404 is what Stripe answers for code 'resource_missing'", False),
        (CARD, 402, "no status given: 402 is what Stripe answers for type 'card_error'", False),
        (BARE, 400, "no status given, and neither its code nor its type implies one: 400, the default", True),
    ],
)
def test_a_bare_stripe_body_says_where_its_status_came_from(body: bytes, status: int, note: str, inferred: bool) -> None:
    fault = errconv.decode(body, "stripe")
    assert fault.status == status
    assert fault.origin is not None and note in fault.origin.notes
    assert ("status" in fault.origin.inferred) is inferred
    assert f"note         {note}\n" in _explain(body)


def test_a_stated_status_needs_no_note() -> None:
    fault = errconv.decode(MISSING, "stripe", status=404)
    assert fault.origin is not None and not any("no status given" in n for n in fault.origin.notes)
    assert "no status given" not in _explain(MISSING, "--status", "404")


def test_a_violation_without_a_description_is_printed_without_an_empty_one() -> None:
    body = b'{"status":400,"title":"Bad","errors":[{"pointer":"#/title","code":"missing_field"},{"pointer":"#/name","detail":"is required"}]}'
    text = _explain(body)
    assert "violation    title (missing_field)\n" in text
    assert "violation    name: is required\n" in text
    assert ":  (" not in text


def test_a_stopped_request_without_a_code_names_its_status() -> None:
    routes = {
        "/no-code": (400, [("Content-Type", "application/problem+json")], b'{"status":400,"detail":"currency is required"}'),
        "/code": (400, [("Content-Type", "application/problem+json")], b'{"status":400,"code":"missing_currency","detail":"currency is required"}'),
    }
    with serve_http(routes) as base:
        with httpx.Client(transport=errconv.clients.httpx.Transport(raise_for_status=True)) as client:
            with pytest.raises(errconv.clients.httpx.FaultHTTPStatusError) as no_code:
                client.get(f"{base}/no-code")
            with pytest.raises(errconv.clients.httpx.FaultHTTPStatusError) as code:
                client.get(f"{base}/code")
    assert no_code.value.fault.code is None
    assert str(no_code.value).startswith("400 Bad Request: currency is required (errconv: stopped after 1 call")
    assert "invalid_argument" not in str(no_code.value)
    assert str(code.value).startswith("400 missing_currency: currency is required")
