"""spring: Spring Boot's DefaultErrorAttributes body, told apart from Spring 6's
ProblemDetail (which is problem)."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import NextStep
from errconv.details import DebugInfo

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response

BOOT = {"timestamp": "2016-11-06T03:16:02.440+0000", "status": 500, "error": "Internal Server Error", "exception": "demo.MyException", "message": "bla bla", "path": "/api/data"}


def test_members_and_their_homes() -> None:
    fault = bare(BOOT)
    assert fault.origin.dialect == "spring"
    assert (fault.status, fault.title, fault.detail, fault.instance, fault.code) == (500, "Internal Server Error", "bla bla", "/api/data", None)
    assert fault.extensions == {"timestamp": "2016-11-06T03:16:02.440+0000", "exception": "demo.MyException"}
    assert fault.next_step == NextStep.GIVE_UP


@pytest.mark.parametrize("message", ["", "No message available"])
def test_a_blank_message_is_no_detail(message: str) -> None:
    fault = bare({**BOOT, "status": 404, "error": "Not Found", "message": message})
    assert fault.detail is None and "message" not in fault.extensions


def test_binding_errors_are_violations() -> None:
    errors = [
        {"codes": ["NotNull.movie.name"], "defaultMessage": "must not be null", "objectName": "movie", "field": "name", "rejectedValue": None, "code": "NotNull"},
        {"codes": ["ValidDates.movie"], "defaultMessage": "end before start", "objectName": "movie", "code": "ValidDates"},  # an ObjectError
    ]
    fault = bare({**BOOT, "status": 400, "error": "Bad Request", "errors": errors})
    assert [(v.field, v.description, v.reason) for v in fault.violations] == [("name", "must not be null", "NotNull"), ("", "end before start", "ValidDates")]
    assert (fault.param, fault.next_step) == ("name", NextStep.FIX_REQUEST)


def test_a_stack_trace_is_debug_info_and_an_outer_boundary_drops_it() -> None:
    trace = "demo.MyException: bla bla\n\tat demo.Controller.get(Controller.java:12)\n\tat java.base/Thread.run(Thread.java:829)"
    fault = bare({**BOOT, "trace": trace})
    assert fault.details == (DebugInfo(stack_entries=tuple(trace.splitlines()), detail="demo.MyException"),)
    assert b"Controller.java" not in bytes(errconv.to_http(fault, "problem").body)


def test_the_wire_status_wins_and_the_difference_is_noted() -> None:
    fault = response(502, {**BOOT, "status": 500})
    assert fault.status == 502 and any("differs" in n for n in fault.origin.notes)


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        (BOOT, "spring"),
        ({"timestamp": 1400527513483, "status": 405, "error": "Method Not Allowed", "path": "/x"}, "spring"),
        # Spring 6's ProblemDetail is RFC 9457: problem's.
        ({"type": "about:blank", "title": "Bad Request", "status": 400, "detail": "Validation failure", "instance": "/info"}, "problem"),
        ({"type": "about:blank", "title": "Not Found", "status": 404, "detail": "No static resource x.", "instance": "/x", "timestamp": "2024-01-01T00:00:00Z"}, "problem"),
        ({"status": 400, "error": "Bad Request", "message": "Validation failed"}, "general"),  # no timestamp, no path
        ({"timestamp": "t", "status": "400", "error": "Bad Request", "path": "/x"}, "general"),  # a string status
    ],
)
def test_spring_and_problem_are_told_apart(obj: dict[str, Any], want: str) -> None:
    assert detected(obj) == want
    assert detected(obj, status=400) == want


def test_problem_media_type_is_problem_whatever_the_members() -> None:
    fault = response(400, BOOT, (("Content-Type", "application/problem+json"),))
    assert fault.origin.body == "problem"


def test_spring_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="spring is read, not written"):
        errconv.encode(errconv.Fault.build(status=500, code="internal"), "spring")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("spring")


@pytest.mark.parametrize(("key", "path", "entry"), captures("spring"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))
