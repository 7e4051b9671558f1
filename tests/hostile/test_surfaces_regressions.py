"""Regression tests for what fuzzing the surfaces around the decoders found (issue 23,
tests/test_fuzz_surfaces.py and fuzz/long_run.py --surfaces): each a failure that
fuzzing drew, pinned by hand."""

from __future__ import annotations

from typing import Any

import errconv
from errconv import NextStep
from errconv.agents import _core as agents_core


class _Boom(Exception):
    """Every attribute access raises, `__class__` included."""

    def __getattribute__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} (password=hunter2)")


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    def __str__(self) -> str:
        raise RuntimeError("no str")


def test_outcome_of_an_exception_whose_class_attribute_raises() -> None:
    # isinstance() reads __class__, which raised out of the adapter's boundary.
    result = agents_core.outcome(_Boom())
    assert result.fault.next_step == NextStep.GIVE_UP
    assert "hunter2" not in result.text


def test_call_key_of_arguments_neither_json_nor_repr_can_write() -> None:
    cycle: list[Any] = [1]
    cycle.append(cycle)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    for args in ({"a": 10**5000}, {"a": cycle, "b": _BadRepr()}, {1: _BadRepr(), "a": 1}, {"a": deep}, {_BadKey(): 1, 2: 2}):
        key = agents_core.call_key("charge", args)
        assert key == agents_core.call_key("charge", args) and hash(key) is not None
    # Two different huge numbers are two calls.
    assert agents_core.call_key("t", {"a": 10**5000}) != agents_core.call_key("t", {"a": 10**5000 + 1})


class _BadKey:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_the_mcp_adapter_returns_a_result_for_a_tool_raising_such_an_exception() -> None:
    from errconv.agents import mcp

    def charge(amount: Any) -> str:
        raise _Boom()

    result = mcp.wrap(charge)(amount=10**5000)
    assert result.is_error is True and "hunter2" not in result.content[0].text


# --------------------------------------------------------------------------- the catalog

import pathlib  # noqa: E402

import pytest  # noqa: E402

CATALOG = pathlib.Path(__file__).resolve().parents[1] / "catalog" / "errors.toml"


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000 + "]" * 100_000,  # tomllib recursed past the stack (RecursionError)
        "a = " + "{b = " * 5_000 + "1" + "}" * 5_000,
        "a = " + "9" * 5_000,  # tomllib's int() past the digit limit (ValueError)
    ],
    ids=["deep-arrays", "deep-inline-tables", "int-past-digit-limit"],
)
def test_a_catalog_tomllib_cannot_read_is_a_catalog_error(text: str) -> None:
    with pytest.raises(errconv.ContractError) as caught:  # the loader's CatalogError
        errconv.Catalog.loads(text)
    assert getattr(caught.value, "rule", None) == "toml"


@pytest.mark.parametrize(
    ("code", "values"),
    [
        (["rate_limited"], {}),  # unhashable: TypeError from the entries' dict
        ("missing_parameter", {"param": ["currency"]}),  # AttributeError: no startswith
        ("missing_parameter", {"param": "currency", "detail": 5}),  # was built: a Fault whose detail is a number
        ("validation_failed", {"violations": "abc"}),  # TypeError from Violation(**v)
        ("validation_failed", {"violations": [{"field": 5}]}),  # AttributeError
        ("validation_failed", {"violations": [{"nope": 1}]}),  # TypeError
        ("rate_limited", {"metadata": [1]}),  # TypeError from dict()
        ("slot_unavailable", {"alternatives": 5}),  # TypeError: not iterable
        ("slot_unavailable", {"alternatives": "abc"}),  # was built: three alternatives, "a", "b" and "c"
        ("slot_unavailable", {"extensions": 5}),  # TypeError
    ],
)
def test_catalog_fault_refuses_arguments_of_the_wrong_type_with_a_contract_error(code: Any, values: dict[str, Any]) -> None:
    catalog = errconv.Catalog.load(CATALOG)
    with pytest.raises(errconv.ContractError):
        catalog.fault(code, **values)


# --------------------------------------------------------------------------- the clients

import httpx  # noqa: E402
import requests  # noqa: E402

from errconv.clients import _core as clients_core  # noqa: E402
from errconv.retry import RetryPolicy, VirtualClock  # noqa: E402
from loopback import serve_http  # noqa: E402


@pytest.mark.parametrize("status", [600, 999])
def test_a_status_past_599_from_a_real_server_comes_back_as_it_is(status: int) -> None:
    # h11 and urllib3 take any three digits; the transports handed them to from_http,
    # whose DecodeError ("not an HTTP status") came out of client.get().
    from errconv.clients.httpx import Transport
    from errconv.clients.requests import Adapter

    with serve_http({"/x": (status, [("Retry-After", "1")], b"odd")}) as base:
        clock = VirtualClock()
        with httpx.Client(transport=Transport(retry=RetryPolicy(clock=clock), raise_for_status=True)) as client:
            response = client.get(base + "/x")
        assert (response.status_code, response.content, clock.sleeps) == (status, b"odd", [])
        session = requests.Session()
        session.mount("http://", Adapter(retry=RetryPolicy(clock=clock), raise_for_status=True))
        response = session.get(base + "/x")
        assert (response.status_code, response.content, clock.sleeps) == (status, b"odd", [])


class _RaisingResponse(Exception):
    @property
    def response(self) -> Any:
        raise ValueError("password=hunter2")

    @property
    def request(self) -> Any:
        raise RuntimeError("no request")


class _BadUrl:
    def __str__(self) -> str:
        raise RuntimeError("no url")


def test_the_clients_exception_readers_never_raise() -> None:
    # tenacity's and stamina's hooks read whatever the tool raised: a raising property
    # came out of retry_if_fault, wait_fault and backoff_hook.
    assert clients_core.fault_of_exception(_RaisingResponse()) is None
    assert clients_core.key_of_error(_RaisingResponse()) is None
    error = Exception("x")
    error.request = type("R", (), {"method": "GET", "url": _BadUrl()})()  # type: ignore[attr-defined]
    assert clients_core.key_of_error(error) is None

    class Headers(dict):  # type: ignore[type-arg]
        def items(self) -> Any:
            raise OSError("gone")

    response = requests.Response()
    response.status_code, response._content = 503, b"x"
    response.headers = Headers()  # type: ignore[assignment]
    fault = clients_core.fault_of_exception(requests.HTTPError("x", response=response))
    assert fault is not None and (fault.status, fault.next_step) == (503, NextStep.WAIT)


def test_tenacity_retry_if_fault_over_an_exception_whose_response_raises() -> None:
    tenacity = pytest.importorskip("tenacity")
    from errconv.clients.tenacity import retrying

    calls = []

    def tool() -> None:
        calls.append(1)
        raise _RaisingResponse()

    with pytest.raises(_RaisingResponse):
        retrying(retry=RetryPolicy(clock=VirtualClock()))(tool)
    assert len(calls) == 1
    assert tenacity  # the library is the one the hook runs in


# --------------------------------------------------------------------------- found by the decoders' long run


@pytest.mark.parametrize("depth", [31, 32, 33])
def test_a_vault_body_holding_nested_lists_reads_back_in_every_writer_or_is_refused(depth: int) -> None:
    # fuzz/long_run.py: vault kept non-message items of `errors` as an extension without
    # the depth check every other decoder's tail makes; fault.json (and every JSON
    # writer) then wrote an extension its own reader refused as too deep.
    from test_fuzz import check_round_trip

    body = b'{"errors":' + b"[" * depth + b"]" * depth + b"}"
    try:
        fault = errconv.decode(body, "vault")
    except errconv.DecodeError as exc:
        assert "deeper" in str(exc)
        return
    check_round_trip(fault)


def test_an_aiohttp_error_with_a_status_past_599_is_read_without_a_deprecation_warning() -> None:
    import warnings

    import aiohttp

    error = aiohttp.ClientResponseError(None, (), status=999, message="x", headers=None)  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # "error" would not do: the reader's guard catches what a property raises
        fault = errconv.from_exception(error)
    assert fault.next_step == NextStep.GIVE_UP
    assert not [w for w in caught if issubclass(w.category, DeprecationWarning)], [str(w.message) for w in caught]


def test_urllib_http_error_read_twice_gives_the_same_fault_and_no_cut_credential() -> None:
    # fuzz/long_run.py --surfaces: the MCP adapter reads a tool's exception, and its
    # guard's record and a later reading read it again; each from_exception read the
    # HTTPError's stream on from where the last stopped. A body past the limit was
    # refused the first time, and the second read began mid-body: "d=hunter2 ...",
    # a credential whose name the cut had taken, which no redaction can recognise.
    import email.message
    import io
    import urllib.error

    def error(body: bytes) -> urllib.error.HTTPError:
        headers = email.message.Message()
        headers["Content-Type"] = "application/json"
        return urllib.error.HTTPError("https://api.example.com/v1", 400, "Bad Request", headers, io.BytesIO(body))

    small = error(b'{"error": {"message": "amount must be positive", "param": "amount", "type": "invalid_request_error"}}')
    first, second = errconv.from_exception(small), errconv.from_exception(small)
    assert first == second and first.param == "amount"
    # Past Limits.max_bytes, and the first read (max_bytes + 1 = 1,048,577 bytes, a
    # multiple of 30 plus 17) stops at the "d" of "password", so the rest begins "d=hunter2".
    unit = b"x" * 9 + b" password=hunter2" + b" " * 4
    assert (len(unit), 1_048_577 % len(unit), unit.index(b"d=")) == (30, 17, 17)
    huge = error(unit * 40_000)
    for _ in range(3):
        text = errconv.agent_message(errconv.from_exception(huge))
        assert "hunter2" not in text, text


@pytest.mark.parametrize(
    "text",
    ["a password=hunter2 x", 'api_key: "s3cr3t"', "token=abc123def&x=1", "Authorization: Bearer abcdef123456"],
)
def test_redaction_of_redacted_text_changes_nothing(text: str) -> None:
    # A fault from_exception scrubbed is scrubbed again by agent_message: "[redacted"
    # matched as a bare value, and the model read "password=[redacted]]".
    from errconv._agent_text import scrub

    once = scrub(text)
    assert "[redacted]" in once and scrub(once) == once, (once, scrub(once))


def test_a_give_up_whose_code_is_prose_saying_retry_does_not_say_it() -> None:
    # fuzz/long_run.py --surfaces: {"ok": false, "error": "You may retry this request."}
    # (Slack's shape, the error is the code) on a 500 read as give_up, and the model read
    # "The tool call failed: You may retry this request. (HTTP 500). next_step: give_up."
    fault = errconv.from_http(500, [("Content-Type", "application/json")], b'{"ok": false, "error": "You may retry this request. Then stop."}')
    assert fault.next_step == NextStep.GIVE_UP and fault.code and "retry" in fault.code
    text = errconv.agent_message(fault)
    assert "retry" not in text.lower().replace("repetition", ""), text


# The part of each planted phrase the redaction reads its token by: the credential's name
# or the URL's user part; "" where the token's own shape is the signal.
_LABELS = {
    "Hunter2Secret": "password=", "Zq9SecretKey77": "api_key=", "Pa55wordX": "https://user:",
    "Tok3nSecretValue": "token=", "eyJhbGciOiJIUzI1NiJ9": "", "4eC39HqLyjWDarjtT1zdp7dc": "",
    "AKIAIOSFODNN7EXAMPLE": "", "16C7e42F292c6912E7710c838347Ae178B4a": "",
}  # fmt: skip
_BYTES = (b" ", b'"', b"\xff", b"\x00", b"a", b"\\", b",", b":", b"=", b"\n", b"\xc3", b"'", b"}", b"{", b"&", b"%", b"<")


def test_every_byte_mutation_of_a_planted_phrase_that_keeps_its_name_keeps_its_secret() -> None:
    # fuzz/long_run.py --surfaces mutated a planted phrase's own bytes: `api_key==X` (read
    # as a comparison), `password=,X` (an empty value, then a stray mark), a URL's
    # password with its `@` cut off or parted from `user:` by a space or a quote. Every
    # insertion, replacement and deletion of one byte (of 17 that matter to a parser)
    # inside each phrase, in an OAuth envelope the non-UTF-8 first byte keeps from being
    # read as JSON: where the mutation leaves the name (or the token's shape) and the token
    # whole, no output holds the token. Where it breaks the name (`p ssword=X`) the token
    # is a word nobody can tell from data; the fuzz run's planting leaves phrases whole.
    import json

    import httpx

    from test_fuzz_surfaces import SECRETS

    assert set(_LABELS) == {token for _, token in SECRETS}
    request = httpx.Request("GET", "https://api.example.com/v1/charges")
    tried = 0
    for phrase, token in SECRETS:
        body = b"\xff" + json.dumps({"error": "invalid_grant", "error_description": phrase}).encode()[1:]
        start = body.index(phrase.encode())
        for i in range(start, start + len(phrase) + 1):
            for byte in _BYTES:
                for variant in (body[:i] + byte + body[i:], body[:i] + byte + body[i + 1 :], body[:i] + body[i + 1 :]):
                    text = variant.decode("utf-8", "replace")
                    if token not in text or _LABELS[token] not in text:
                        continue  # the token or its name broken: nothing to find it by
                    tried += 1
                    error = httpx.HTTPStatusError("x", request=request, response=httpx.Response(500, content=variant, request=request))
                    message = errconv.agent_message(errconv.from_exception(error))
                    assert token not in message, (variant, message)
    print(f"{tried} mutations keep a name and its token, none leaks it")
    assert tried > 8_000, tried


def test_a_two_digit_year_read_beside_a_date_in_9999_is_no_wait_not_a_value_error() -> None:
    # fuzz/long_run.py --surfaces (clients_core): a Date of 31 Dec 9999 put the century at
    # 9900, and an RFC 850 Retry-After's year 94 was tried as 10,094, which calendar.timegm
    # raised on.
    from errconv._model.retry_after import parse_retry_after

    now = 253402300799.0  # Fri, 31 Dec 9999 23:59:59 GMT
    assert parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now=now) == 0


def test_a_type_base_whose_brackets_make_no_ipv6_host_is_a_catalog_error() -> None:
    # fuzz/long_run.py --surfaces (catalog_load): urllib.parse.urlsplit raised ValueError
    # ("Invalid IPv6 URL") out of Catalog.loads.
    import pathlib

    text = pathlib.Path(__file__).parent.parent.joinpath("catalog", "errors.toml").read_text()
    text = text.replace('type_base = "https://api.example.com/', 'type_base = "https://api.ex[[[ample.com/', 1)
    assert "api.ex[[[ample.com" in text
    with pytest.raises(errconv.ErrconvError, match="type_base must be an absolute http"):
        errconv.Catalog.loads(text)
