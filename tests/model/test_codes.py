"""The code tables and the next-step ladder."""

from __future__ import annotations

import pytest

from errconv.codes import (
    CODE_FOR_HTTP,
    HTTP_FOR_CODE,
    Code,
    NextStep,
    code_for_http,
    http_for_code,
    infer_next_step,
    reason_phrase,
    transport_code_for_http,
)


def test_grpc_to_http_is_code_proto() -> None:
    assert [HTTP_FOR_CODE[c] for c in Code] == [
        200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, Code.INVALID_ARGUMENT), (401, Code.UNAUTHENTICATED), (403, Code.PERMISSION_DENIED),
        (404, Code.NOT_FOUND), (409, Code.ABORTED), (412, Code.FAILED_PRECONDITION), (416, Code.OUT_OF_RANGE),
        (429, Code.RESOURCE_EXHAUSTED), (499, Code.CANCELLED), (500, Code.INTERNAL), (501, Code.UNIMPLEMENTED),
        (503, Code.UNAVAILABLE), (504, Code.DEADLINE_EXCEEDED),
        # errconv's documented choices for the rest
        (402, Code.FAILED_PRECONDITION), (418, Code.FAILED_PRECONDITION), (422, Code.INVALID_ARGUMENT),
        (502, Code.UNAVAILABLE), (505, Code.INTERNAL), (302, Code.UNKNOWN),
    ],
)  # fmt: skip
def test_http_to_grpc_for_application_errors(status: int, code: Code) -> None:
    assert code_for_http(status) == code


def test_the_documented_non_invertible_pairs() -> None:
    # Many gRPC codes share an HTTP status; going back picks one and the others need the body.
    shared = {400: {3, 9, 11}, 409: {6, 10}, 500: {2, 13, 15}}
    for status, codes in shared.items():
        assert {c for c in Code if http_for_code(c) == status} == codes
        assert code_for_http(status) in codes
    for status, code in CODE_FOR_HTTP.items():
        if status in (405, 408, 410, 412, 413, 414, 415, 416, 422, 431, 502, 529):
            continue  # choices, not inverses
        assert http_for_code(code) == status


def test_a_request_too_big_or_in_the_wrong_form_is_mended_not_abandoned() -> None:
    # 413, 414, 415 and 431 name what the caller sends: a smaller or re-encoded request
    # succeeds, so INVALID_ARGUMENT (fix_request), not the 4xx class's FAILED_PRECONDITION.
    for status in (413, 414, 415, 431):
        assert code_for_http(status) == Code.INVALID_ARGUMENT, status
    assert code_for_http(418) == Code.FAILED_PRECONDITION


def test_transport_table_is_grpcs_own() -> None:
    assert transport_code_for_http(400) == Code.INTERNAL
    assert transport_code_for_http(404) == Code.UNIMPLEMENTED
    assert transport_code_for_http(429) == Code.UNAVAILABLE
    assert transport_code_for_http(200) == Code.UNKNOWN
    assert transport_code_for_http(418) == Code.UNKNOWN


def test_reason_phrases_are_rfc_9110_whatever_the_python() -> None:
    assert reason_phrase(422) == "Unprocessable Content"
    assert reason_phrase(413) == "Content Too Large"
    assert reason_phrase(499) == "Client Closed Request"
    assert reason_phrase(599) == "Server Error"


@pytest.mark.parametrize(
    ("code", "status", "param", "step"),
    [
        (Code.UNAVAILABLE, 503, None, NextStep.WAIT),
        (Code.RESOURCE_EXHAUSTED, 429, None, NextStep.WAIT),
        (Code.ABORTED, 409, None, NextStep.WAIT),
        (Code.DEADLINE_EXCEEDED, 504, None, NextStep.WAIT),
        (Code.INVALID_ARGUMENT, 400, None, NextStep.FIX_REQUEST),
        (Code.OUT_OF_RANGE, 400, "page", NextStep.FIX_REQUEST),
        (Code.FAILED_PRECONDITION, 422, None, NextStep.FIX_REQUEST),
        (Code.FAILED_PRECONDITION, 400, "state", NextStep.FIX_REQUEST),
        (Code.FAILED_PRECONDITION, 400, None, NextStep.GIVE_UP),
        (Code.NOT_FOUND, 404, "customer", NextStep.FIX_REQUEST),
        (Code.NOT_FOUND, 404, None, NextStep.GIVE_UP),
        (Code.FAILED_PRECONDITION, 402, "exp_year", NextStep.FIX_REQUEST),
        (Code.FAILED_PRECONDITION, 402, None, NextStep.GIVE_UP),
        (Code.INTERNAL, 500, None, NextStep.GIVE_UP),
        (Code.UNKNOWN, 500, None, NextStep.GIVE_UP),
        (Code.DATA_LOSS, 500, None, NextStep.GIVE_UP),
        (Code.UNAUTHENTICATED, 401, None, NextStep.GIVE_UP),
        (Code.PERMISSION_DENIED, 403, None, NextStep.GIVE_UP),
        (Code.ALREADY_EXISTS, 409, None, NextStep.GIVE_UP),
    ],
)
def test_ladder_by_code(code: Code, status: int, param: str | None, step: NextStep) -> None:
    assert infer_next_step(code, status, param=param)[0] == step


def test_wire_signals_come_before_the_code() -> None:
    step, source = infer_next_step(Code.INTERNAL, 500, wait_hint="Retry-After")
    assert (step, source) == (NextStep.WAIT, "inferred from Retry-After")
    step, source = infer_next_step(Code.UNAVAILABLE, 503, no_retry_hint="Stripe-Should-Retry: false")
    assert (step, source) == (NextStep.GIVE_UP, "inferred from Stripe-Should-Retry: false")
