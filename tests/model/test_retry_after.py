"""Retry-After in both forms, against an injected clock."""

from __future__ import annotations

import calendar

import pytest

from errconv._model.limits import MAX_RETRY_AFTER_SECONDS
from errconv._model.retry_after import format_retry_after, parse_http_date, parse_retry_after

NOW = float(calendar.timegm((1994, 11, 6, 8, 49, 7)))  # 30 s before the RFC's example date


@pytest.mark.parametrize(
    "value",
    ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"],
    ids=["imf-fixdate", "rfc850", "asctime"],
)
def test_all_three_http_date_forms(value: str) -> None:
    assert parse_retry_after(value, now=NOW) == 30
    assert parse_retry_after(value, now=lambda: NOW) == 30


def test_delay_seconds() -> None:
    assert parse_retry_after("120") == 120
    assert parse_retry_after(" 0 ") == 0


def test_past_dates_mean_no_wait_and_fractions_round_up() -> None:
    assert parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now=NOW + 3600) == 0
    assert parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now=NOW + 29.5) == 1


@pytest.mark.parametrize("value", ["-1", "1.5", "30s", "+5", "soon", "", "2026-03-12T14:30:04Z", "Sun, 31 Feb 1994 08:49:37 GMT"])
def test_what_is_not_a_retry_after(value: str) -> None:
    assert parse_retry_after(value, now=NOW) is None


def test_huge_values_are_capped_without_overflow() -> None:
    assert parse_retry_after("9" * 5000) == MAX_RETRY_AFTER_SECONDS
    assert parse_retry_after(str(10**12)) == MAX_RETRY_AFTER_SECONDS
    assert parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now=NOW) == MAX_RETRY_AFTER_SECONDS


def test_leap_second_and_two_digit_year_window() -> None:
    assert parse_http_date("Sat, 31 Dec 2016 23:59:60 GMT") == calendar.timegm((2017, 1, 1, 0, 0, 0))
    # More than 50 years ahead of "now" means the most recent past year with those digits.
    now_2026 = float(calendar.timegm((2026, 11, 30, 0, 0, 0)))
    assert parse_http_date("Monday, 01-Jan-80 00:00:00 GMT", now_2026) == calendar.timegm((1980, 1, 1, 0, 0, 0))
    assert parse_http_date("Tuesday, 01-Jan-30 00:00:00 GMT", now_2026) == calendar.timegm((2030, 1, 1, 0, 0, 0))


def test_format_is_delay_seconds() -> None:
    assert format_retry_after(30) == "30"


def test_rfc850_year_is_resolved_per_timestamp_and_moves_to_the_next_century() -> None:
    in_1999 = float(calendar.timegm((1999, 12, 31, 23, 0, 0)))
    assert parse_http_date("Saturday, 01-Jan-00 00:00:00 GMT", in_1999) == calendar.timegm((2000, 1, 1, 0, 0, 0))
    # 50 years and a half ahead is past the window, though the year alone is 50 ahead.
    mid_2026 = float(calendar.timegm((2026, 6, 1, 0, 0, 0)))
    assert parse_http_date("Tuesday, 01-Dec-76 00:00:00 GMT", mid_2026) == calendar.timegm((1976, 12, 1, 0, 0, 0))
    assert parse_http_date("Tuesday, 01-Jan-76 00:00:00 GMT", mid_2026) == calendar.timegm((2076, 1, 1, 0, 0, 0))


@pytest.mark.parametrize(
    "value",
    [
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37 +0000",
        "Sun, 06 Nov 1994 08:49:37 gmt",
        "sun, 06 nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 8:49:37 GMT",
        "6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 09:49:37 +0100",  # the offset applied, not taken for GMT
        "Sun, 06 Nov 1994 03:49:37 -05:00",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
    ],
)
def test_obsolete_retry_after_dates_are_read_when_plain(value: str) -> None:
    assert parse_retry_after(value, now=NOW) == 30


@pytest.mark.parametrize("value", ["Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 08:49:37 +2500"])
def test_a_date_whose_zone_is_unknown_is_not_read(value: str) -> None:
    assert parse_retry_after(value, now=NOW) is None
