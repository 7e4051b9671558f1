"""What the tests of the vendor-shape recognisers share (fastapi, drf, spring, github,
slack, cloudflare, elasticsearch, discord, twilio, oauth): bodies in and out of HTTP,
the dialect a body is detected as, their real-world captures, and the checks every one
of them must pass (conversion to every writer within its losses, bad input)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
from errconv import dialects
from errconv._pipeline import api as _api
from helpers import assert_same_except

ROOT = pathlib.Path(__file__).resolve().parent.parent / "realworld"
NOW = 1_800_000_000.0
MINE = ("fastapi", "drf", "spring", "github", "slack", "cloudflare", "elasticsearch", "discord", "twilio", "oauth")
WRITERS = tuple(
    name for name in dialects.names() if dialects.get(name).encodes and getattr(dialects.get(name), "alias_of", None) is None
)
# Captures whose body cannot tell its service: the dialect that reads it, and why.
UNTELLABLE = {
    # {"detail": "Bad credentials"}: a custom AuthenticationFailed text, no full stop and
    # none of DRF's wording, so FastAPI's shape as well; both read it alike (403, give_up).
    "drf/authentication-failed-bad-credentials-403.json": "fastapi",
    # {"message": "..."} alone (octokit's mocked 403): nothing GitHub's; the general reader reads the
    # message as the detail, and the Retry-After header gives the wait.
    "github/secondary-rate-limit-retry-after-60-403.http": "general",
}


def body(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def bare(obj: Any, status: int | None = None) -> errconv.Fault:
    """A bare body, detected (with the status it came with, if known)."""
    return errconv.decode(body(obj) if not isinstance(obj, bytes) else obj, status=status, now=NOW)


def response(status: int, obj: Any, headers: tuple[tuple[str, str], ...] = ()) -> errconv.Fault:
    """A body inside an HTTP response (application/json unless the headers say otherwise)."""
    data = obj if isinstance(obj, bytes) else body(obj)
    if not any(name.lower() == "content-type" for name, _ in headers):
        headers = (("Content-Type", "application/json"), *headers)
    return errconv.from_http(status, headers, data, now=NOW)


def read_as(fault: errconv.Fault) -> str | None:
    """The dialect a fault's body was read as (inside HTTP, the body's)."""
    assert fault.origin is not None
    return fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect


def detected(obj: Any, status: int | None = None, headers: tuple[tuple[str, str], ...] = ()) -> str | None:
    """The dialect a body is read as: bare when no status is given, else inside HTTP."""
    if status is None:
        return errconv.detect(body(obj))
    return read_as(response(status, obj, headers))


def captures(service: str) -> list[Any]:
    """pytest params of a service's captures: (key, path, entry)."""
    facts = json.loads((ROOT / service / "facts.json").read_text())
    return [pytest.param(f"{service}/{name}", ROOT / service / name, entry, id=name) for name, entry in facts.items()]


def read_capture(path: pathlib.Path, entry: dict[str, Any]) -> errconv.Fault:
    """A capture as the real-world suite reads it."""
    data = path.read_bytes()
    status = entry["facts"]["status"]
    if path.suffix == ".http" or status is None:
        return errconv.decode(data, now=NOW)
    return errconv.decode(data, status=status, now=NOW)


def check_capture_dialect(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    """A capture is read as the dialect its facts name (`unknown`: none of the vendor
    recognisers), or the one UNTELLABLE names."""
    got = read_as(read_capture(path, entry))
    expected = UNTELLABLE.get(key, entry["expected_dialect"])
    if expected == "unknown":
        assert got not in MINE, (key, got)
    else:
        assert got == expected, (key, got)


def check_converts(fault: errconv.Fault) -> None:
    """A decoded fault goes to every writer and back, minus what that writer reports lost."""
    for target in WRITERS:
        out = errconv.encode(fault, target)
        back = errconv.decode(out, "http" if target.startswith("http") else target, now=NOW)
        assert_same_except(back, fault, errconv.losses(fault, target))


HOSTILE: tuple[Any, ...] = (
    None, 0, -1, 1.5, True, "", "x", [], [None], [1, "a"], ["a"], {}, {"": None},
    {"detail": None}, {"detail": 5}, {"detail": []}, {"detail": [1]}, {"detail": [{"loc": "x", "msg": 1}]},
    {"detail": [{"loc": [None, {}], "msg": "m"}]}, {"detail": {"a": [1]}},
    {"ok": False}, {"ok": False, "error": 5}, {"ok": False, "error": ""}, {"ok": "false", "error": "x"},
    {"success": False}, {"success": False, "errors": 5}, {"success": None, "errors": [5, "x", {"code": []}]},
    {"success": False, "errors": [{"code": True, "message": None, "source": {"pointer": 5}}]},
    {"message": 5, "documentation_url": None, "errors": {"a": 1}, "status": "abc"},
    {"message": "m", "documentation_url": "d", "errors": [None, 5, {"field": 5, "code": 6}], "status": 99},
    {"timestamp": None, "status": 9999, "error": 5, "path": [], "errors": [5], "trace": 5},
    {"timestamp": 1, "status": 500, "error": "E", "path": "/", "errors": [{"field": None}], "trace": ""},
    {"error": None, "status": None}, {"error": {"root_cause": 5, "type": 5}, "status": 10**20},
    {"error": {"root_cause": [None, {"type": 5}], "type": "", "reason": None}, "status": True},
    {"code": 1e300, "message": [], "errors": {"_errors": 5, "a": {"_errors": [None, {"code": 5}]}}, "retry_after": -5},
    {"code": 50035, "errors": {"_errors": [{"code": "X", "message": "m"}], "a": [], "b": {"c": {}}}},
    {"message": "m", "retry_after": 1e308, "global": "yes"},
    {"code": 20404, "message": None, "more_info": 5, "status": "404", "errors": "x"},
    {"type": 5, "code": 20001, "errors": [{"pointer": 5}], "status": 1000},
    {"error": "x" * 70, "error_description": 5, "error_uri": None, "interval": "-3"},
    {"error": "slow_down", "interval": 10**12}, {"error": "slow_down", "interval": "99999999999999"},
    {"amount": ["m"], "items": [{}, {"qty": ["m"], "bad": 5}], "x": {"y": {"z": ["m"]}}, "n": None},
    {"non_field_errors": ["m"]},
)  # fmt: skip


def check_bad_input(name: str) -> None:
    """Every hostile value, named as `name`, gives a Fault or a DecodeError, nothing else
    (with the safety net that turns stray exceptions into DecodeError switched off)."""
    _api._SAFETY_NET = False
    try:
        for value in HOSTILE:
            for data in (json.dumps(value).encode(), b"{", b"", b"\xff", b"[" * 100 + b"]" * 100):
                for status in (None, 200, 400, 429):
                    try:
                        fault = errconv.decode(data, name, status=status, now=NOW)
                    except errconv.DecodeError:
                        continue
                    assert 100 <= fault.status <= 599 and 0 <= fault.grpc_code <= 16
                    check_converts(fault)
    finally:
        _api._SAFETY_NET = True
