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

__all__ = [
    "format_retry_after",
    "parse_http_date",
    "parse_retry_after",
    "parse_timestamp",
    "prose_delay",
    "read_retry_after",
    "reset_delay",
    "reset_of_429",
    "whole",
]

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
    if not 1 <= year <= 9999 or day > calendar.monthrange(year, month)[1]:
        # calendar.timegm places neither year 0 nor 10,000: a two-digit year read in the
        # century of a Date of 9999 is 10,094.
        return None
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


# --------------------------------------------------------------------------- the wider world
#
# What services errconv has no dialect for send: Retry-After with a fraction or as a Unix
# timestamp, X-RateLimit-Reset as epoch seconds or as seconds to go, and delays stated
# only in English prose. Every one becomes whole seconds, rounded up, within the cap.

# A Unix timestamp, not a delay: 10**9 seconds is 2001-09-09; no server asks for a
# 31-year wait, and every epoch clock since then is past it.
_EPOCH_SECONDS = 1_000_000_000
_EPOCH_MILLIS = 1_000_000_000_000
_YEAR = 366 * 86400
_NUMBER = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,9})?")


def whole(seconds: float, cap: int = MAX_RETRY_AFTER_SECONDS) -> int:
    """Seconds to wait, whole (rounded up), not negative, at most `cap`."""
    if not math.isfinite(seconds):
        return cap if seconds > 0 else 0
    return max(0, min(math.ceil(seconds), cap))


def read_retry_after(value: str, current: Callable[[], float], cap: int = MAX_RETRY_AFTER_SECONDS) -> tuple[int, str] | None:
    """Whole seconds for a Retry-After value in any form seen in the wild, and how it
    was read (`delay`, `decimal`, `date`, `epoch`); None when it is none of them.

    `current` gives the clock a date or a timestamp is measured against (the response's
    Date when it has one: the caller decides). A number of ten digits or more is a Unix
    timestamp (seconds, or milliseconds past 10**12), never a delay of decades.

    >>> read_retry_after("1800000030", lambda: 1800000000.0)
    (30, 'epoch')
    >>> read_retry_after("2.5", lambda: 0.0)
    (3, 'decimal')
    """
    text = value.strip()
    if _NUMBER.fullmatch(text):
        number = float(text)
        if number >= _EPOCH_SECONDS:
            # A timestamp only when it is one: within a year of the clock (seconds, or
            # milliseconds past 10**12). Any other huge number is a delay, and capped.
            at = number / 1000 if number >= _EPOCH_MILLIS else number
            now = current()
            if abs(at - now) <= _YEAR:
                return whole(at - now, cap), "epoch"
        return whole(number, cap), ("delay" if text.isdigit() else "decimal")
    when = parse_http_date(text, current())
    if when is None:
        return None
    return whole(when - current(), cap), "date"


def reset_delay(value: str, current: Callable[[], float], cap: int = MAX_RETRY_AFTER_SECONDS) -> tuple[int, str] | None:
    """Whole seconds until a rate limit resets, from an `X-RateLimit-Reset`-like value:
    epoch seconds (or milliseconds) when the magnitude says so, else seconds to go; an
    HTTP-date too. Returns the seconds and how it was read (`epoch`, `seconds`, `date`).

    >>> reset_delay("1800000060", lambda: 1800000000.0)
    (60, 'epoch')
    >>> reset_delay("60", lambda: 1800000000.0)
    (60, 'seconds')
    """
    found = read_retry_after(value, current, cap)
    if found is None:
        return None
    seconds, how = found
    return seconds, ("seconds" if how in ("delay", "decimal") else how)


# Units of a delay in prose, to seconds.
_PROSE_UNITS = {
    "ms": 0.001, "msec": 0.001, "msecs": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "millis": 0.001,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "m": 60.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0, "hours": 3600.0,
}  # fmt: skip
# (`millis`: Java's spelling, SmartThings' "retry in 43074 millis".)
_UNIT = r"(ms|msecs?|milliseconds?|millis|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b"
# (Up to nine decimals: Zulip's "try again in 15.314237833 secs".)
_AMOUNT = r"(\d{1,9}(?:\.\d{1,9})?)\s?"
# An amount with a unit after a word that makes it a wait: "retry after 3 seconds", "try
# again in 20s", "after 49 seconds", "in 600ms", "wait 5 minutes", "available in 2 min".
# A bare "in 5 minutes" needs a retry word somewhere before it in the same sentence.
_PROSE = re.compile(
    r"(?i)\b(?:retry|try(?: again| later)?|again|wait|waiting|after|in|for|within|resets?|available)\b"
    r"(?:\s+(?:after|in|for|about|approximately|approx\.?|roughly|at least|another|the next))*\s+" + _AMOUNT + _UNIT
)
# "Retry-After: 30", "retry after 3", "retry_after=12", "retryAfter 5": a number with no
# unit is seconds only right after a retry word.
_PROSE_BARE = re.compile(r"(?i)\bretry[-_ ]?after\b[\s:=]*(\d{1,9}(?:\.\d{1,6})?)(?![\d.]*\s?[a-z])")
# A Go duration in prose (OpenAI's "Please try again in 6m0s", "in 1h2m3.5s").
_PROSE_GO = re.compile(r"(?i)\b(?:retry|again|wait|after|in)\s+(?:(\d{1,4})h)?(?:(\d{1,4})m(?!s))?(?:(\d{1,6}(?:\.\d{1,6})?)s)?\b")
_WAIT_CONTEXT = re.compile(r"(?i)retry|try again|try later|again|wait|rate|limit|throttl|slow down|available|cool")
# "timed out after 30 seconds", "failed after 3 attempts": what happened, not when to come back.
_ELAPSED = re.compile(r"(?i)\b(?:timed? ?out|failed|closed|aborted|expired|stopped|killed|terminated)\b")
# "after one minute", "in one second": one spelt out, right after a wait word.
_ONE = re.compile(r"(?i)\b(retry after|try again in|again after|wait|retry in)\s+one\s+(second|minute|hour)\b")
_MAX_PROSE = 4096  # characters of prose read: a delay is stated early, and regexes stay cheap


def prose_delay(text: str, cap: int = MAX_RETRY_AFTER_SECONDS) -> tuple[int, str] | None:
    """A delay stated in English prose, as whole seconds rounded up, and the phrase it
    was read from; None when the prose states none.

    >>> prose_delay("Rate limit reached. Please try again in 20s.")
    (20, 'in 20s')
    >>> prose_delay("Please retry after 3")
    (3, 'retry after 3')
    >>> prose_delay("Too many requests; try again in 600ms")
    (1, 'in 600ms')
    >>> prose_delay("Expected available in 49 seconds.")
    (49, 'in 49 seconds')
    >>> prose_delay("Rate limit reached for requests. Please try again in 6m0s.")
    (360, 'in 6m0s')
    >>> prose_delay("A file of 20 MB") is None
    True
    """
    text = text[:_MAX_PROSE]
    text = _ONE.sub(r"\1 1 \2", text)  # "retry after one minute" (Tencent's): the amount as a digit
    for m in _PROSE.finditer(text):
        word = m.group(0).split(None, 1)[0].lower()
        if word in ("in", "for", "within") and not _WAIT_CONTEXT.search(text, 0, m.end()):
            continue  # "in 5 minutes" about something else: no word of waiting anywhere before it
        amount, unit = float(m.group(1)), m.group(2).lower()
        if unit in ("m", "h") and word in ("in", "for", "within", "after") and not _WAIT_CONTEXT.search(text, 0, m.start()):
            continue  # "m" and "h" alone are too easily something else
        if word == "after" and _ELAPSED.search(text, max(0, m.start() - 40), m.start()):
            continue
        phrase = m.group(0)
        # The phrase from its last wait word: "try again in 20s" -> "in 20s" reads as the source says it.
        start = max(phrase.lower().rfind(" in "), phrase.lower().rfind(" after "))
        shown = phrase[start + 1 :] if start > 0 else phrase
        return whole(amount * _PROSE_UNITS[unit], cap), shown.strip()
    for go in _PROSE_GO.finditer(text):
        if (go.group(1) or go.group(2)) and _WAIT_CONTEXT.search(text, 0, go.end()):  # "6m0s": the unit rule cannot read it
            hours, minutes, seconds = (float(go.group(i) or 0) for i in (1, 2, 3))
            return whole(hours * 3600 + minutes * 60 + seconds, cap), go.group(0).strip()
    bare = _PROSE_BARE.search(text)
    if bare is not None:
        return whole(float(bare.group(1)), cap), bare.group(0).strip()
    return None


_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(\.\d{1,9})?(Z|z|[+-]\d\d:?\d\d)")


def parse_timestamp(value: str, now: float | None = None) -> float | None:
    """Seconds since the epoch for an RFC 3339 timestamp (`2027-01-15T08:00:30Z`) or an
    HTTP-date, else None.

    >>> parse_timestamp("2027-01-15T08:00:30Z")
    1800000030.0
    """
    text = value.strip()
    m = _RFC3339.fullmatch(text)
    if m is None:
        return parse_http_date(text, now)
    year, month, day, hh, mm, ss = (int(g) for g in m.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(max(year, 1), month)[1] and hh <= 23 and mm <= 59 and ss <= 60 and year >= 1):
        return None
    at = float(calendar.timegm((year, month, day, hh, mm, min(ss, 59), 0, 0, 0))) + float(m.group(7) or 0)
    zone = m.group(8)
    if zone not in ("Z", "z"):
        digits = zone[1:].replace(":", "")
        at -= (1 if zone[0] == "+" else -1) * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return at


# The reset headers of rate limiters, each as servers spell it (GitHub and most:
# X-RateLimit-Reset; Twitter: x-rate-limit-reset; the IETF draft before `RateLimit`:
# RateLimit-Reset; Discord: X-RateLimit-Reset-After).
RESET_HEADERS = (
    "x-ratelimit-reset-after", "x-ratelimit-reset", "x-rate-limit-reset", "ratelimit-reset", "rate-limit-reset",
    "x-ratelimit-retry-after", "x-rate-limit-retry-after-seconds", "x-retry-after",
)  # fmt: skip


def reset_of_429(get: Callable[[str], str | None], current: Callable[[], float]) -> tuple[int, str, str] | None:
    """For a 429: the first reset header `get` finds, as whole seconds to wait, how it
    was read (`epoch seconds`, `seconds`, `date`) and the header's name; None when there
    is none or none is readable."""
    for name in RESET_HEADERS:
        value = get(name)
        if value is None or len(value) > 64:
            continue
        found = reset_delay(value, current)
        if found is not None:
            return found[0], ("epoch seconds" if found[1] == "epoch" else found[1]), name
    return None
