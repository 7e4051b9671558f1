"""The `openai` dialect: OpenAI's error object and the servers that copy it.

Expected values are written out from the sources (OpenAI's and the compatible servers'
bodies in tests/realworld, research/dialects.md section 7), not taken from errconv.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

import errconv
from errconv import Code, NextStep
from errconv.details import RequestInfo
from errconv.dialects import openai as openai_dialect

REALWORLD = pathlib.Path(__file__).resolve().parent.parent / "realworld"
WAIT, GIVE_UP, FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST


def body(inner: dict[str, Any]) -> bytes:
    return json.dumps({"error": inner}).encode()


def openai(inner: dict[str, Any], status: int | None = None) -> errconv.Fault:
    return errconv.decode(body(inner), "openai", status=status)


def http(status: int, headers: list[tuple[str, str]], data: bytes) -> errconv.Fault:
    return errconv.from_http(status, [("Content-Type", "application/json"), *headers], data)


def four(message: str, type_: str | None, param: str | None, code: str | None) -> dict[str, Any]:
    return {"message": message, "type": type_, "param": param, "code": code}


# --------------------------------------------------------------------------- shapes


def test_the_four_members_with_explicit_nulls() -> None:
    fault = openai(four("Incorrect API key provided: sk-***", "invalid_request_error", None, "invalid_api_key"), 401)
    assert (fault.status, fault.grpc_code, fault.code, fault.param) == (401, Code.UNAUTHENTICATED, "invalid_api_key", None)
    assert fault.detail == "Incorrect API key provided: sk-***"
    assert fault.next_step == GIVE_UP and fault.extensions == {} and fault.metadata == {}
    assert errconv.detect(body(four("m", "invalid_request_error", None, "invalid_api_key"))) == "openai"


def test_a_null_code_leaves_the_type_as_the_code() -> None:
    fault = openai(four("You exceeded your current quota", "insufficient_quota", None, None))
    assert (fault.code, fault.status, fault.next_step) == ("insufficient_quota", 429, GIVE_UP)
    assert "the openai code table" in fault.origin.next_step


def test_param_names_the_parameter() -> None:
    fault = openai(four("Unsupported parameter: 'max_tokens'", "invalid_request_error", "max_tokens", "unsupported_parameter"), 400)
    assert (fault.param, fault.next_step) == ("max_tokens", FIX)


def test_a_type_errconv_would_not_write_is_kept_in_metadata_and_written_back() -> None:
    fault = openai(four("Rate limit reached ... on tokens per min.", "tokens", None, "rate_limit_exceeded"), 429)
    assert fault.metadata == {"type": "tokens"} and fault.code == "rate_limit_exceeded"
    out = json.loads(errconv.encode(fault, "openai"))
    assert out["error"]["type"] == "tokens" and "metadata" not in out["error"]
    # errconv's own words are not kept: they are written again from the status.
    plain = openai(four("m", "invalid_request_error", "x", "bad"), 400)
    assert plain.metadata == {}


def test_groq_omits_param() -> None:
    fault = openai({"message": "Rate limit reached for model", "type": "tokens", "code": "rate_limit_exceeded"}, 429)
    assert (fault.code, fault.next_step, fault.param) == ("rate_limit_exceeded", WAIT, None)


def test_azure_content_filter_status_and_innererror() -> None:
    inner = {**four("The response was filtered", None, "prompt", "content_filter"), "status": 400,
             "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {"hate": {"filtered": False}}}}  # fmt: skip
    fault = errconv.decode(body(inner))
    assert fault.origin.dialect == "openai"
    assert (fault.status, fault.code, fault.param, fault.next_step) == (400, "content_filter", "prompt", FIX)
    assert fault.extensions == {"innererror": inner["innererror"]}  # kept, verbatim
    assert "status" not in fault.origin.inferred


def test_openrouter_integer_code_is_the_status_and_metadata_is_kept() -> None:
    inner = {"message": "Provider returned error", "code": 429, "metadata": {"raw": "rate-limited upstream", "provider_name": "BaseTen"}}
    fault = errconv.decode(body(inner))
    assert fault.origin.dialect == "openai"
    assert (fault.code, fault.status, fault.next_step) == ("429", 429, WAIT)
    assert fault.metadata == {"raw": "rate-limited upstream", "provider_name": "BaseTen"}
    back = json.loads(errconv.encode(fault, "openai"))["error"]
    assert back["metadata"] == inner["metadata"] and back["code"] == "429"


def test_metadata_that_is_not_a_string_map_is_an_extension() -> None:
    fault = openai({"message": "m", "code": 502, "metadata": {"raw": {"nested": 1}}})
    assert fault.metadata == {} and fault.extensions == {"metadata": {"raw": {"nested": 1}}}
    assert fault.status == 502


def test_litellm_string_status_code() -> None:
    fault = openai(four("litellm.RateLimitError: ...", "throttling_error", None, "429"))
    assert (fault.code, fault.status, fault.next_step) == ("429", 429, WAIT)


def test_the_flat_fastchat_and_vllm_form() -> None:
    flat = {"object": "error", "message": "This model's maximum context length is 2048 tokens.", "type": "BadRequestError",
            "param": None, "code": 400}  # fmt: skip
    fault = errconv.decode(json.dumps(flat).encode())
    assert fault.origin.dialect == "openai"
    assert (fault.status, fault.code, fault.next_step) == (400, "400", FIX)
    assert fault.metadata == {"type": "BadRequestError"}
    fastchat = {"object": "error", "message": "Only vicuna allowed now", "code": 40301}
    assert errconv.detect(json.dumps(fastchat).encode()) == "openai"


def test_x_request_id_is_a_request_info() -> None:
    fault = http(429, [("x-request-id", "req_abc")], body(four("m", "requests", None, "rate_limit_exceeded")))
    assert RequestInfo(request_id="req_abc") in fault.details
    assert fault.origin.body == "openai"


def test_openai_headers_mark_an_ambiguous_body() -> None:
    ambiguous = json.dumps({"error": {"code": "invalid_api_key", "message": "m", "param": "p", "type": "invalid_request_error"}}).encode()
    assert errconv.detect(ambiguous) == "stripe"  # no mark of OpenAI's: Stripe's reading (same semantics)
    fault = http(401, [("openai-organization", "org-1"), ("openai-version", "2020-10-01")], ambiguous)
    assert fault.origin.body == "openai" and fault.code == "invalid_api_key"


def test_stripe_headers_rule_openai_out() -> None:
    nulls = body(four("m", "invalid_request_error", None, "resource_missing"))
    fault = http(404, [("Stripe-Version", "2025-11-17.clover")], nulls)
    assert fault.origin.body == "stripe"


# --------------------------------------------------------------------------- the code table


# Each row at a status whose ladder would say otherwise.
TABLE_ROWS = [
    ("insufficient_quota", 429, GIVE_UP),
    ("billing_hard_limit_reached", 429, GIVE_UP),
    ("rate_limit_exceeded", 400, WAIT),
    ("tokens", 400, WAIT),
    ("requests", 400, WAIT),
    ("slow_down", 400, WAIT),
    ("throttling_error", 400, WAIT),
    ("server_error", 500, WAIT),
    ("server_is_overloaded", 500, WAIT),
    ("service_unavailable_error", 500, WAIT),
    ("context_length_exceeded", 500, FIX),
]


def test_the_table_rows_are_the_ones_tested() -> None:
    assert {code for code, _, _ in TABLE_ROWS} == set(openai_dialect.STEP_FOR_CODE)


@pytest.mark.parametrize("code, status, step", TABLE_ROWS)
def test_code_table_row(code: str, status: int, step: NextStep) -> None:
    as_code = openai(four("m", "invalid_request_error", None, code), status)
    assert as_code.next_step == step, as_code.origin.next_step
    assert as_code.origin.next_step.startswith(f"inferred from the openai code table: {code!r}")
    as_type = openai(four("m", code, None, None), status)  # the code null, the type standing in
    assert (as_type.code, as_type.next_step) == (code, step)


def test_insufficient_quota_gives_up_even_with_a_retry_after() -> None:
    fault = http(429, [("Retry-After", "20")], body(four("You exceeded your current quota", "insufficient_quota", None, "insufficient_quota")))
    assert fault.next_step == GIVE_UP and fault.retry_after_seconds is None


def test_x_should_retry_false_turns_a_table_wait_into_give_up() -> None:
    fault = http(500, [("x-should-retry", "false")], body(four("The server had an error", "server_error", None, None)))
    assert fault.next_step == GIVE_UP and fault.origin.next_step == "inferred from x-should-retry: false"


def test_a_stated_next_step_outranks_the_table() -> None:
    fault = openai({**four("m", "insufficient_quota", None, "insufficient_quota"), "next_step": "wait", "retry_after_seconds": 60}, 429)
    assert (fault.next_step, fault.retry_after_seconds, fault.origin.next_step) == (WAIT, 60, "stated")


def test_a_request_over_the_whole_limit_must_shrink() -> None:
    groq = "on tokens per minute (TPM): Limit 7000, Used 0, Requested ~12903. Please try again in 50.597142857s."
    fault = openai({"message": groq, "type": "tokens", "code": "rate_limit_exceeded"}, 429)
    assert fault.next_step == FIX and "12903 requested, over the whole limit of 7000" in fault.origin.next_step
    assert fault.retry_after_seconds is None  # a delay in prose is never read
    openai_too_large = "Request too large for gpt-4 in organization org-x on tokens per min (TPM): Limit 10000, Requested 12000."
    assert openai(four(openai_too_large, "tokens", None, "rate_limit_exceeded"), 429).next_step == FIX
    within = "on tokens per min (TPM): Limit 10,000, Used 9,000, Requested 2,000. Please try again in 6s."
    assert openai(four(within, "tokens", None, "rate_limit_exceeded"), 429).next_step == WAIT


@pytest.mark.parametrize(
    "code, type_, status",
    [("insufficient_quota", "insufficient_quota", 429), ("rate_limit_exceeded", "tokens", 429), ("invalid_api_key", "invalid_request_error", 401),
     ("model_not_found", "invalid_request_error", 404), ("context_length_exceeded", "invalid_request_error", 400),
     (None, "server_error", 500), ("invalid_request_error", "requests", 429), ("503", None, 503), (None, "BadRequestError", 400)],
)  # fmt: skip
def test_a_bare_body_status_from_its_code(code: str | None, type_: str | None, status: int) -> None:
    fault = openai(four("m", type_, None, code))
    assert fault.status == status


def test_a_bare_body_of_unknown_code_is_400_noted() -> None:
    fault = openai(four("m", "weird_error", None, "weird"))
    assert fault.status == 400 and "status" in fault.origin.inferred and fault.origin.notes


def test_the_http_status_wins_over_the_body() -> None:
    fault = http(503, [], body({**four("m", None, None, "429"), "status": 429}))
    assert fault.status == 503 and any("HTTP wins" in n for n in fault.origin.notes)


# --------------------------------------------------------------------------- detection


STRIPE_BODIES = {
    # research/stripe.md section 6, and the stripe captures
    "card_error E1": {"error": {"advice_code": "try_again_later", "code": "card_declined", "decline_code": "generic_decline",
                                "doc_url": "https://stripe.com/docs/error-codes/card-declined", "message": "Your card was declined.",
                                "network_decline_code": "01", "type": "card_error"}},
    "rate_limit E2": {"error": {"message": "Request rate limit exceeded.", "type": "invalid_request_error", "code": "rate_limit",
                                "doc_url": "https://stripe.com/docs/error-codes/rate-limit"}},
    "stripe-mock 401": {"error": {"message": "Please authenticate by specifying an `Authorization` header", "type": "invalid_request_error"}},
    "resource_missing E6": {"error": {"code": "resource_missing", "doc_url": "https://stripe.com/docs/error-codes/resource-missing",
                                      "message": "No such customer: 'cus_123'", "param": "customer", "type": "invalid_request_error"}},
    "alphabetical, no doc_url": {"error": {"code": "parameter_missing", "message": "Missing required param: amount.", "param": "amount",
                                           "type": "invalid_request_error"}},
    "message first, alphabetical": {"error": {"message": "m", "param": "amount", "type": "invalid_request_error"}},
    "v2": {"error": {"type": "temporary_session_expired", "code": "session_bad", "message": "you messed up"}},
    "code only": {"error": {"code": "invalid_expiry_year"}},
    "type only": {"error": {"type": "idempotency_error"}},
    "errconv's own stripe": {"error": {"type": "invalid_request_error", "code": "missing_parameter", "message": "m", "param": "currency",
                                       "next_step": "fix_request"}},
}  # fmt: skip
OPENAI_BODIES = {
    "insufficient quota": {"error": four("You exceeded your current quota", "insufficient_quota", None, "insufficient_quota")},
    "tokens": {"error": four("Rate limit reached", "tokens", None, "rate_limit_exceeded")},
    "all four strings, OpenAI's order": {"error": four("m", "invalid_request_error", "messages", "context_length_exceeded")},
    "server error": {"error": four("The server had an error", "server_error", None, None)},
    "groq": {"error": {"message": "m", "type": "tokens", "code": "rate_limit_exceeded"}},
    "azure content filter": {"error": {**four("filtered", None, "prompt", "content_filter"), "status": 400}},
    "anthropic compat": {"error": {"code": "rate_limit_error", "message": "m", "type": "invalid_request_error", "param": None}},
    "openrouter": {"error": {"message": "Provider returned error", "code": 429, "metadata": {"raw": "x"}}},
    "litellm": {"error": four("litellm.RateLimitError", "throttling_error", None, "429")},
    "ollama": {"error": four("model \"ollama\" not found", "api_error", None, None)},
    "flat vllm": {"object": "error", "message": "m", "type": "BadRequestError", "param": None, "code": 400},
    "converted card error": {"error": {**four("Your card was declined.", "invalid_request_error", "card", "card_declined"),
                                       "decline_code": "generic_decline"}},
}  # fmt: skip
LOOK_ALIKES = {
    "google": {"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}},
    "google with details": {"error": {"code": 400, "message": "m", "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest"}]}},
    "google int code only": {"error": {"code": 404, "message": "Requested entity was not found."}},
    "anthropic": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011"},
    "anthropic legacy": {"error": {"type": "authentication_error", "message": "Invalid API Key"}},
    "elasticsearch": {"error": {"root_cause": [{"type": "index_not_found_exception", "reason": "no such index"}],
                                "type": "index_not_found_exception", "reason": "no such index"}, "status": 404},
    "elasticsearch without root_cause": {"error": {"type": "es_rejected_execution_exception", "reason": "rejected"}, "status": 429},
    "oauth": {"error": "invalid_grant", "error_description": "Bad Request"},
    "oauth bare": {"error": "invalid_grant"},
    "ad hoc": {"error": "Something went wrong"},
    "odata": {"error": {"code": "InvalidPasswordFormat", "message": "Hint: the password must be 8 characters.", "target": "password"}},
    "problem": {"type": "https://example.com/probs/out-of-credit", "title": "You do not have enough credit.", "status": 403},
    "jsonrpc": {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": 1},
}  # fmt: skip


def _claim(obj: Any, http: Any = None) -> float:
    return errconv.dialects.get("openai").recognise(obj, http)


@pytest.mark.parametrize("name", list(STRIPE_BODIES))
def test_stripe_bodies_stay_stripe(name: str) -> None:
    data = json.dumps(STRIPE_BODIES[name]).encode()
    assert errconv.detect(data) == "stripe"
    assert _claim(STRIPE_BODIES[name]) < errconv.dialects.get("stripe").recognise(STRIPE_BODIES[name], None)


@pytest.mark.parametrize("name", list(OPENAI_BODIES))
def test_openai_bodies_are_openai(name: str) -> None:
    data = json.dumps(OPENAI_BODIES[name]).encode()
    assert errconv.detect(data) == "openai"


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_are_not_claimed(name: str) -> None:
    assert _claim(LOOK_ALIKES[name]) == 0.0
    assert errconv.detect(json.dumps(LOOK_ALIKES[name]).encode()) != "openai"


def test_the_other_dialects_do_not_outbid_openai() -> None:
    for name, obj in OPENAI_BODIES.items():
        mine = _claim(obj)
        for other in ("google", "stripe", "anthropic", "problem"):
            assert errconv.dialects.get(other).recognise(obj, None) <= mine, (name, other)


# --------------------------------------------------------------------------- encoding


def test_encoding_writes_the_four_members_first_with_nulls() -> None:
    fault = errconv.Fault.build(status=500, next_step="give_up", detail="boom")
    out = json.loads(errconv.encode(fault, "openai"))
    assert list(out) == ["error"]
    assert out["error"] == {"message": "boom", "type": "server_error", "param": None, "code": None, "next_step": "give_up"}
    assert list(out["error"])[:4] == ["message", "type", "param", "code"]


@pytest.mark.parametrize(
    "status, code, type_", [(400, "x", "invalid_request_error"), (401, "x", "invalid_request_error"), (429, "x", "requests"),
                            (429, "insufficient_quota", "insufficient_quota"), (500, "x", "server_error"), (503, "x", "server_error")],
)  # fmt: skip
def test_the_type_written_for_a_status(status: int, code: str, type_: str) -> None:
    assert openai_dialect.error_type(status, code) == type_


def test_a_wait_writes_its_delay_and_the_sdk_headers() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limit_exceeded", next_step="wait", retry_after_seconds=7, detail="slow down")
    response = errconv.to_http(fault, "openai")
    assert ("x-should-retry", "true") in response.headers and ("Retry-After", "7") in response.headers
    inner = json.loads(response.body)["error"]
    assert (inner["next_step"], inner["retry_after_seconds"]) == ("wait", 7)
    back = errconv.decode(bytes(response))
    assert back == fault


def test_give_up_and_fix_say_do_not_retry() -> None:
    for step, extra in (("give_up", {}), ("fix_request", {"param": "messages"})):
        fault = errconv.Fault.build(status=500, next_step=step, **extra)
        assert ("x-should-retry", "false") in errconv.to_http(fault, "openai").headers


def test_an_extension_never_overwrites_a_member() -> None:
    fault = errconv.decode(body({**four("m", "invalid_request_error", "p", "c"), "innererror": {"x": 1}}), "openai", status=400)
    clash = fault.replace(extensions={"code": "other", "message": "other", "innererror": {"x": 1}})
    inner = json.loads(errconv.encode(clash, "openai"))["error"]
    assert inner["code"] == "c" and inner["message"] == "m" and inner["innererror"] == {"x": 1}


def test_request_id_header_round_trips() -> None:
    fault = errconv.Fault.build(status=404, next_step="give_up", code="model_not_found", details=[RequestInfo(request_id="req_9")])
    response = errconv.to_http(fault, "openai")
    assert ("x-request-id", "req_9") in response.headers
    assert errconv.decode(bytes(response)) == fault


@pytest.mark.parametrize("target", ["problem", "google", "stripe", "anthropic", "http+openai"])
def test_real_openai_bodies_convert_and_come_back_within_the_losses(target: str) -> None:
    for path in sorted((REALWORLD / "openai").glob("*.json")):
        if path.name == "facts.json":
            continue
        entry = json.loads((REALWORLD / "openai" / "facts.json").read_text())[path.name]
        status = entry["facts"]["status"]
        first = errconv.decode(path.read_bytes(), status=status)
        assert first.origin.dialect == "openai", path.name
        middle = errconv.decode(errconv.encode(first, target), "http" if target.startswith("http+") else target)
        back = errconv.decode(errconv.encode(middle, "openai"), "openai", status=middle.status)
        lost = set(errconv.losses(first, target))
        for name in ("code", "next_step", "param", "detail"):
            if name not in lost:
                assert getattr(back, name) == getattr(first, name), (path.name, target, name)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data",
    [b"[]", b'"error"', b"{}", b'{"error": "invalid_grant"}', b'{"error": [1]}', b'{"error": null}', b"{", b"\xff"],
)  # fmt: skip
def test_bad_input_is_a_decode_error(data: bytes, no_safety_net: None) -> None:
    with pytest.raises(errconv.DecodeError, match="openai"):
        errconv.decode(data, "openai")


@pytest.mark.parametrize("data", [b'{"object": "error"}', b'{"error": {"message": 5, "type": [], "param": {}, "code": 1.5}}'])
def test_odd_members_are_read_liberally(data: bytes, no_safety_net: None) -> None:
    fault = errconv.decode(data, "openai")
    assert fault.origin is not None and fault.origin.dialect == "openai"
    assert (fault.status, fault.code, fault.detail) == (400, None, None)


def test_members_of_the_wrong_type_are_kept() -> None:
    fault = openai({"message": 5, "type": ["x"], "param": {"a": 1}, "code": 1.5, "next_step": "later"}, 400)
    assert fault.code is None and fault.detail is None and fault.param is None
    assert fault.extensions == {"message": 5, "type": ["x"], "param": {"a": 1}, "code": 1.5, "next_step": "later"}
    assert fault.origin.next_step != "stated"


def test_a_boolean_code_is_no_code() -> None:
    fault = openai({"message": "m", "type": None, "param": None, "code": True}, 400)
    assert fault.code is None and fault.extensions == {"code": True}


# --------------------------------------------------------------------------- the captures


def _captures(service: str, dialect: str) -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    facts = json.loads((REALWORLD / service / "facts.json").read_text())
    return [(f"{service}/{name}", REALWORLD / service / name, entry) for name, entry in facts.items() if entry["expected_dialect"] == dialect]


OPENAI_CAPTURES = _captures("openai", "openai") + _captures("azure_openai", "openai")


def test_openai_has_its_five_captures_and_more() -> None:
    assert len(OPENAI_CAPTURES) >= 5


@pytest.mark.parametrize("key, path, entry", OPENAI_CAPTURES, ids=[c[0] for c in OPENAI_CAPTURES])
def test_each_capture_is_detected_as_it_says(key: str, path: pathlib.Path, entry: dict[str, Any]) -> None:
    status = entry["facts"]["status"]
    fault = errconv.decode(path.read_bytes(), status=status) if path.suffix == ".json" and status else errconv.decode(path.read_bytes())
    origin = fault.origin
    assert (origin.body if origin.dialect == "http" else origin.dialect) == "openai", key
