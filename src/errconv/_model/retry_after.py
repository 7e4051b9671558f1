"""Retry-After: read both forms (RFC 9110 section 10.2.3), write delay-seconds.

A recipient must accept all three HTTP-date formats; a sender should prefer
delay-seconds, which needs no agreement between two clocks.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from collections.abc import Callable

from .limits import MAX_RETRY_AFTER_SECONDS

__all__ = ["format_retry_after", "parse_http_date", "parse_retry_after"]

_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
_TIME = r"(\d\d):(\d\d):(\d\d)"
_IMF = re.compile(r"[A-Za-z]{3}, (\d\d) ([A-Za-z]{3}) (\d{4}) " + _TIME + r" GMT")
_RFC850 = re.compile(r"[A-Za-z]{6,9}, (\d\d)-([A-Za-z]{3})-(\d\d) " + _TIME + r" GMT")
_ASCTIME = re.compile(r"[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) " + _TIME + r" (\d{4})")
# The obsolete and sloppy forms RFC 9110 5.6.7 asks recipients to accept where the meaning
# is plain: any case, a one-digit day or hour, the weekday or seconds left out, `-` or ` `
# between the date's parts, UTC/UT/Z or a numeric offset (applied, never taken for GMT).
_LOOSE = re.compile(
    r"(?:[a-z]{3,9},?\s*)?(\d{1,2})[ -]([a-z]{3})[a-z]*[ -](\d{4}|\d{2})\s+(\d{1,2}):(\d\d)(?::(\d\d))?"
    r"\s*(gmt|utc|ut|z|[+-]\d\d:?\d\d)",
    re.IGNORECASE,
)
_FIFTY_YEARS = 50 * 365.2425 * 86400
_DELAY = re.compile(r"[0-9]+")  # DIGIT is ASCII; int() would also take "٣"


def parse_http_date(value: str, now: float | None = None) -> float | None:
    """Seconds since the epoch for an HTTP-date in any of its three forms, else None.

    A two-digit rfc850 year is the latest year with those digits that puts the
    timestamp no more than 50 years ahead of `now`, as RFC 9110 requires (so `00`
    against 1999 is 2000, and `80` against 2026 is 1980). The obsolete forms RFC 9110
    asks recipients to accept are read when their meaning is plain (see _LOOSE); a
    date without a zone is not (it may be local time).

    >>> parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT")
    784111777.0
    >>> parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT") == parse_http_date("Sun Nov  6 08:49:37 1994")
    True
    >>> parse_http_date("sun, 6 nov 1994 8:49:37 +0000") == parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC")
    True
    """
    value = value.strip()
    offset = 0
    if m := _IMF.fullmatch(value):
        day, mon, year, hh, mm, ss = m.groups()
    elif m := _ASCTIME.fullmatch(value):
        mon, day, hh, mm, ss, year = m.groups()
    elif m := _RFC850.fullmatch(value):
        day, mon, year, hh, mm, ss = m.groups()
    elif m := _LOOSE.fullmatch(value):
        day, mon, year, hh, mm, ss, zone = m.groups()
        ss = ss or "00"
        if zone[0] in "+-":
            digits = zone[1:].replace(":", "")
            offset = (int(digits[:2]) * 3600 + int(digits[2:]) * 60) * (1 if zone[0] == "+" else -1)
            if offset and abs(offset) > 14 * 3600:
                return None
    else:
        return None
    month = _MONTHS.get(mon.lower())
    if month is None:
        return None
    try:
        fields = [int(year), month, int(day), int(hh), int(mm), int(ss)]
    except ValueError:
        return None
    leap = fields[5] == 60  # the grammar allows a leap second
    if leap:
        fields[5] = 59
    if not (fields[2] >= 1 and fields[3] <= 23 and fields[4] <= 59 and fields[5] <= 59):
        return None
    if len(year) == 2:
        current = time.time() if now is None else now
        century = time.gmtime(current).tm_year // 100 * 100
        for candidate in (century + 100 + fields[0], century + fields[0], century - 100 + fields[0]):
            when = _timestamp([candidate, *fields[1:]], leap)
            if when is not None and when - offset <= current + _FIFTY_YEARS:
                return when - offset
        return None
    when = _timestamp(fields, leap)
    return None if when is None else when - offset


def _timestamp(fields: list[int], leap: bool) -> float | None:
    year, month, day = fields[0], fields[1], fields[2]
    if year < 1 or day > calendar.monthrange(year, month)[1]:
        return None  # year 0 too: calendar.timegm cannot place it
    return float(calendar.timegm((*fields, 0, 0, 0))) + (1.0 if leap else 0.0)


def parse_retry_after(
    value: str,
    *,
    now: float | Callable[[], float] | None = None,
    cap: int = MAX_RETRY_AFTER_SECONDS,
) -> int | None:
    """Whole seconds to wait for a Retry-After value, or None if it is not one.

    Delay-seconds are taken as they are; an HTTP-date is measured against `now`
    (epoch seconds, or a callable giving them; default the real clock), rounded up,
    and a date in the past means 0. Both are capped at `cap` seconds.

    >>> parse_retry_after("120")
    120
    >>> parse_retry_after("Fri, 31 Dec 1999 23:59:59 GMT", now=946684790.0)
    9
    >>> parse_retry_after("soon") is None
    True
    """
    text = value.strip()
    if _DELAY.fullmatch(text):
        # int() of a huge digit string is quadratic; anything over 12 digits is past the cap.
        return cap if len(text) > 12 else min(int(text), cap)
    current = now() if callable(now) else (time.time() if now is None else now)
    when = parse_http_date(text, current)
    if when is None:
        return None
    return max(0, min(math.ceil(when - current), cap))


def format_retry_after(seconds: int) -> str:
    """The delay-seconds form of a whole number of seconds."""
    return str(max(0, int(seconds)))
