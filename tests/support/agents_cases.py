"""The four failures every agent adapter is tested over, as the real exceptions a tool meets.

- `rate_limited`: an `httpx.HTTPStatusError` from a real `httpx.Response`: 429 with
  `Retry-After: 30`, the bytes of golden/rate_limited/http-problem.http;
- `missing_parameter`: an `httpx.HTTPStatusError`, 400 naming `currency`, the bytes of
  golden/missing_parameter/http-problem.http;
- `card_declined`: a real `stripe.CardError`, built as stripe-python builds it from the
  body in tests/realworld/stripe/card-declined-fraudulent.json (source in its facts.json);
- `secret`: `RuntimeError("password=hunter2")`.

The HTTP requests carry a key in their URL's query string (`SECRET_KEY`): neither it nor
"hunter2" may reach a model. `check_text` asserts what a model reads for each case.
"""

from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Callable

import httpx
import stripe

ROOT = pathlib.Path(__file__).resolve().parents[2]
SECRET_KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
SECRETS = ("hunter2", SECRET_KEY)
NAMES = ("rate_limited", "missing_parameter", "card_declined", "secret")
# What each case must come to: the move, and the number or name the model must be told.
EXPECTED: dict[str, tuple[str, str | None]] = {
    "rate_limited": ("wait", "30"),
    "missing_parameter": ("fix_request", "currency"),
    "card_declined": ("give_up", None),
    "secret": ("give_up", None),
}
TERMINAL = tuple(name for name in NAMES if EXPECTED[name][0] == "give_up")


def _http_error(golden: str) -> httpx.HTTPStatusError:
    raw = (ROOT / "golden" / golden / "http-problem.http").read_bytes().replace(b"\r\n", b"\n")
    head, _, body = raw.partition(b"\n\n")
    lines = head.decode().splitlines()
    status = int(lines[0].split()[1])
    headers = [tuple(line.split(": ", 1)) for line in lines[1:] if not line.lower().startswith("content-length")]
    request = httpx.Request("POST", f"https://api.example.com/v1/transfers?api_key={SECRET_KEY}")
    response = httpx.Response(status, headers=headers, content=body, request=request)
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        return exc
    raise AssertionError(f"{golden} is no error response")


def _card_declined() -> stripe.CardError:
    path = ROOT / "tests" / "realworld" / "stripe" / "card-declined-fraudulent.json"
    body = json.loads(path.read_text())
    error = body["error"]
    return stripe.CardError(
        error["message"], None, error["code"], http_body=path.read_text(), http_status=402, json_body=body,
        headers={"Request-Id": "req_agents1"},
    )  # fmt: skip


MAKE: dict[str, Callable[[], Exception]] = {
    "rate_limited": lambda: _http_error("rate_limited"),
    "missing_parameter": lambda: _http_error("missing_parameter"),
    "card_declined": _card_declined,
    "secret": lambda: RuntimeError("password=hunter2"),
}


def check_text(name: str, text: str) -> None:
    """What a model reads for case `name`: the move, its seconds or parameter, no secret, and a
    give_up that never says to try again."""
    move, what = EXPECTED[name]
    assert f"next_step: {move}" in text or move in text, text
    if move == "wait":
        assert re.search(rf"\b{what} (more )?seconds\b", text), text
    if move == "fix_request":
        assert what is not None and what in text, text
    if move == "give_up":
        assert "try again" not in text.lower(), text
        assert re.search(r"(?i)do not repeat|will not succeed", text), text
    leak(text)


def leak(anything: object) -> None:
    """Assert no secret appears in `anything`'s text."""
    text = anything if isinstance(anything, str) else repr(anything)
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked: {text[:400]}"


def check_refusal(name: str, text: str) -> None:
    """What a model reads when the guard refused the repeat of case `name` (give_up or wait)."""
    assert "Not called" in text, text
    check_text(name, text)
