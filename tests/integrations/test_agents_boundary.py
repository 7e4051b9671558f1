"""The model boundary's structure (issue 27): what every adapter hands a model as structure is
built from errconv's own fields, scrubbed whatever built the fault, and bounded in size.

The frameworks are the real packages, offline (MCP's in-memory client, LlamaIndex's
`call_tool`, the Agents SDK's ScriptedModel, LangChain's tool call, PydanticAI's
exceptions); CrewAI conflicts with this environment, so its `details` are built by the
same function its adapter calls.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

import errconv
from errconv import Fault
from errconv.agents import STRUCTURED_MAX_BYTES, carry, outcome
from errconv.agents._core import STRUCTURED_FIELDS, problem_json, structured_size
from errconv.agents.mcp import TOOL_FAILURE_META, tool_result

ARGS = {"amount": 150, "currency": "usd"}
# What a hostile (or careless) service sends back: credentials in members named like them,
# as a string, a list and an object, and the caller's own X-Api-Key echoed in a member, in
# the detail and in a violation.
ECHOED_KEY = "ak_live_7Hq2Lm9Xv4Rt8Wc3Zp6Ny1Bs5Kd"
SECRETS = {
    "client_secret": "cs_Wq81rTz0LmNb",
    "apiKey": "AKv7pQ2wX9",
    "tokens": ["tok_a1b2c3", "tok_d4e5f6"],
    "credentials": {"user": "svc", "pass": "hunter2-9"},
}
LEAKS = ("cs_Wq81rTz0LmNb", "AKv7pQ2wX9", "tok_a1b2c3", "tok_d4e5f6", "hunter2-9", ECHOED_KEY, "7Hq2Lm9Xv4Rt8Wc3")
BODY = {
    "type": "https://api.example.com/problems/invalid-key",
    "title": "Unauthorized",
    "status": 401,
    "detail": f"The key in X-Api-Key: {ECHOED_KEY} is not valid for this account",
    "code": "invalid_key",
    **SECRETS,
    "echo": {"headers": {"X-Api-Key": ECHOED_KEY, "Accept": "application/json"}},
    "errors": [{"field": "headers.x-api-key", "detail": f"{ECHOED_KEY} was revoked"}],
}
# The members a problem object errconv writes may hold: its own fields, as the problem dialect spells them.
PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code", "next_step", "retry_after_seconds", "param", "errors",
                   "alternatives", "alternatives_truncated", "blocked_by", "unblock_with", "details", "grpc_code"}  # fmt: skip


def _hostile_error(content_type: str = "application/problem+json") -> httpx.HTTPStatusError:
    request = httpx.Request("POST", "https://api.example.com/v1/transfers", headers={"X-Api-Key": ECHOED_KEY})
    response = httpx.Response(401, json=BODY, headers={"Content-Type": content_type}, request=request)
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        return exc
    raise AssertionError("no error")


def _transport_error() -> Exception:
    # errconv's own client transport: its FaultHTTPStatusError carries the fault it read.
    from errconv.clients.httpx import Transport

    def api(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json=BODY, headers={"Content-Type": "application/problem+json"})

    with httpx.Client(transport=Transport(httpx.MockTransport(api), raise_for_status=True)) as client:
        try:
            client.post("https://api.example.com/v1/transfers", headers={"X-Api-Key": ECHOED_KEY}, json=ARGS)
        except errconv.FaultError as exc:
            return exc
    raise AssertionError("no error")


def _no_leak(anything: object) -> None:
    text = anything if isinstance(anything, str) else json.dumps(anything, default=repr)
    for secret in LEAKS:
        assert secret not in text, f"{secret} leaked: {text[:600]}"


def _raisers() -> dict[str, Any]:
    """Every way a tool's failure reaches an adapter: the client's exception, a FaultError
    of a fault the application decoded itself, errconv's own transport's error, and a
    fault handed over as it is."""
    decoded = errconv.from_http(401, [("content-type", "application/problem+json")], json.dumps(BODY).encode())
    assert decoded.extensions.get("client_secret") == SECRETS["client_secret"]  # the fault itself carries them
    return {
        "httpx": _hostile_error,
        "httpx-json": lambda: _hostile_error("application/json"),
        "fault-error": lambda: errconv.FaultError(decoded),
        "errconv-transport": _transport_error,
        "fault": lambda: decoded,
    }


RAISERS = _raisers()


@pytest.mark.parametrize("how", RAISERS)
def test_problem_json_holds_errconv_fields_only_and_no_secret(how: str) -> None:
    made = RAISERS[how]()
    fault = made if isinstance(made, Fault) else outcome(made).fault
    structured = problem_json(fault)
    _no_leak(structured)
    assert set(structured) <= PROBLEM_MEMBERS, set(structured) - PROBLEM_MEMBERS
    assert structured["status"] == 401 and structured["code"] == "invalid_key"
    assert errconv.decode(json.dumps(structured).encode(), "problem").next_step == fault.next_step


@pytest.mark.parametrize("how", [h for h in RAISERS if h != "fault"])
def test_mcp_result_carries_no_secret(how: str) -> None:
    server = MCPServer("payments")

    @server.tool()
    @errconv.agents.mcp.wrap
    def transfer(amount: int, currency: str) -> str:
        raise RAISERS[how]()

    async def run() -> tuple[Any, Any]:
        async with Client(server) as client:
            return await client.call_tool("transfer", ARGS), await client.call_tool("transfer", ARGS)

    first, refused = asyncio.run(run())  # the second is the guard's refusal (GuardRefused's fault)
    for result in (first, refused):
        wire = result.model_dump_json(by_alias=True)
        _no_leak(wire)
        assert set(result.structured_content) <= PROBLEM_MEMBERS
        assert set(result.meta[TOOL_FAILURE_META]) <= {"class", "code", "retryable", "retryNotBefore", "correlationId", "agentGuidance"}
    assert refused.content[0].text.startswith("Not called")
    _no_leak(tool_result(RAISERS["fault"]()).model_dump_json(by_alias=True))


@pytest.mark.parametrize("how", [h for h in RAISERS if h != "fault"])
def test_llama_index_output_carries_no_secret(how: str) -> None:
    from llama_index.core.tools.calling import call_tool

    from errconv.agents.llama_index import tool_output, wrap

    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise RAISERS[how]()

    output = call_tool(wrap(transfer), dict(ARGS))
    assert output.is_error
    _no_leak(output.model_dump_json())
    assert set(output.raw_output) <= PROBLEM_MEMBERS
    _no_leak(tool_output(RAISERS["fault"](), "transfer").model_dump_json())


@pytest.mark.parametrize("how", [h for h in RAISERS if h != "fault"])
def test_openai_agents_output_carries_no_secret(how: str) -> None:
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.testing import ScriptedModel, assistant_message, function_call

    from errconv.agents.openai_agents import wrap

    set_tracing_disabled(True)

    @function_tool
    @wrap
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise RAISERS[how]()

    model = ScriptedModel([[function_call("transfer", ARGS, call_id="c1")], [assistant_message("done")]])
    asyncio.run(Runner.run(Agent(name="payments", model=model, tools=[transfer]), "send"))
    outputs = [item for item in model.calls[-1].input if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert outputs and str(outputs[0]["output"]).startswith("next_step: give_up")
    _no_leak(outputs)


@pytest.mark.parametrize("how", [h for h in RAISERS if h != "fault"])
def test_langchain_tool_message_carries_no_secret(how: str) -> None:
    from langchain_core.tools import tool

    from errconv.agents.langchain import wrap

    @wrap
    @tool
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise RAISERS[how]()

    message = transfer.invoke({"args": dict(ARGS), "id": "call_1", "name": "transfer", "type": "tool_call"})
    assert message.status == "error"
    _no_leak(message.model_dump_json())


@pytest.mark.parametrize("how", [h for h in RAISERS if h != "fault"])
def test_pydantic_ai_failure_carries_no_secret(how: str) -> None:
    from pydantic_ai.exceptions import ModelRetry, ToolFailed

    from errconv.agents.pydantic_ai import wrap

    @wrap
    def transfer(amount: int, currency: str) -> str:
        """Move money."""
        raise RAISERS[how]()

    with pytest.raises((ModelRetry, ToolFailed)) as raised:
        transfer(**ARGS)
    _no_leak(repr(raised.value) + str(raised.value) + repr(vars(raised.value)))


@pytest.mark.parametrize("how", [h for h in RAISERS if h != "fault"])
def test_crewai_details_carry_no_secret(how: str) -> None:
    # What errconv.agents.crewai puts in ToolFailure.details (the function its adapter calls).
    from errconv.agents.crewai import _details

    details = _details(outcome(RAISERS[how]()))
    _no_leak(details)
    assert set(details) <= {"next_step", "retry_after_seconds", "param", "refused", "problem"}
    assert set(details["problem"]) <= PROBLEM_MEMBERS


# --------------------------------------------------------------------------- bounded

# Text that costs the most bytes per character once written as JSON: ASCII, four-byte
# characters, characters JSON escapes, and a mix with credentials (redacted, then cut).
FILLS = {
    "ascii": "a",
    "four-byte": "\U0001f600",
    "escaped": '"\\',
    "mixed": "é\U0001f600\"x password=hunter2hunter2 ",
}


def _full(fill: str, n: int = 100_000) -> str:
    return (fill * (n // len(fill) + 1))[:n]


def _filled(fill: str) -> Fault:
    text = _full(fill)
    return Fault(
        status=409,
        grpc_code=10,
        code=text, domain=text, title=text, detail=text, type=text, instance=text,
        next_step=errconv.NextStep.GIVE_UP,
        param=text,
        violations=tuple(errconv.Violation(field=text, description=text, reason=text) for _ in range(200)),
        alternatives=tuple({text[:80]: text, "list": [text] * 50, "deep": {"a": {"b": {"c": {"d": text}}}}} for _ in range(3)),
        alternatives_truncated=True,
        blocked_by=text,
        unblock_with=text,
        metadata={text[:50]: text},
        details=(errconv.details.RequestInfo(request_id=text, serving_data=text),),
        extensions={f"member_{i}": {"k": text, "l": [text] * 10} for i in range(200)},
    )  # fmt: skip


@pytest.mark.parametrize("fill", FILLS)
def test_structured_output_fills_every_slot_and_stays_within_the_bound(fill: str) -> None:
    fault = _filled(FILLS[fill])
    structured = problem_json(fault)
    assert structured_size(structured) <= STRUCTURED_MAX_BYTES
    carried = problem_json(fault, carry=[f"member_{i}" for i in range(200)] + ["domain", "instance"])
    assert structured_size(carried) <= STRUCTURED_MAX_BYTES
    if fill == "ascii":
        # ASCII at every cap fits whole: nothing has to give way (the caps are the promise).
        assert len(structured["errors"]) == 5 and len(structured["alternatives"]) == 3
        assert {"type", "title", "detail", "code", "param", "blocked_by", "unblock_with", "details"} <= set(structured)
        assert len(structured["detail"]) == 480 and len(structured["title"]) == 120
        print(f"structured output, every slot at its cap in ASCII: {structured_size(structured)} bytes (bound {STRUCTURED_MAX_BYTES})")
    assert "[redacted]" in json.dumps(carried) or fill != "mixed"
    assert "hunter2" not in json.dumps(carried, ensure_ascii=False)
    # The text for the model and the MCP result are bounded too.
    result = tool_result(fault)
    assert len(result.content[0].text) <= 600
    assert structured_size(result.structured_content) <= STRUCTURED_MAX_BYTES
    failure = dict(result.meta[TOOL_FAILURE_META])
    assert failure.pop("agentGuidance") == result.content[0].text  # at most 600 characters
    assert structured_size(failure) <= 256, failure


def test_a_megabyte_body_gives_a_few_kilobytes_of_structured_content() -> None:
    # A body just under Limits.max_bytes (1 MiB), every string under Limits.max_string.
    body: dict[str, Any] = {
        "type": "https://api.example.com/" + "t" * 60_000, "title": "T" * 60_000, "status": 400, "detail": "d " * 30_000,
        "param": "p" * 3_000, "errors": [{"field": f"f{i}", "detail": "v" * 3_000} for i in range(100)],
        "alternatives": [{"slot": "s" * 30_000}] * 3,
    }  # fmt: skip
    for i in range(6):
        body[f"extension_{i}"] = "x " * 30_000
    raw = json.dumps(body).encode()
    assert 900_000 < len(raw) < 1 << 20
    server = MCPServer("payments")

    @server.tool()
    @errconv.agents.mcp.wrap
    def transfer(amount: int, currency: str) -> str:
        request = httpx.Request("POST", "https://api.example.com/v1/transfers")
        httpx.Response(400, content=raw, headers={"Content-Type": "application/problem+json"}, request=request).raise_for_status()
        return "sent"

    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool("transfer", ARGS)

    result = asyncio.run(run())
    size = structured_size(result.structured_content)
    whole = len(result.model_dump_json(by_alias=True).encode())
    print(f"a {len(raw):,}-byte body: structuredContent {size:,} bytes, the whole CallToolResult {whole:,} bytes")
    assert size <= STRUCTURED_MAX_BYTES and whole <= 2 * STRUCTURED_MAX_BYTES
    assert errconv.decode(result.model_dump_json(by_alias=True).encode()).next_step == "fix_request"


# --------------------------------------------------------------------------- opt-in by name


def test_members_are_carried_only_by_name() -> None:
    fault = errconv.from_http(
        402, [("content-type", "application/problem+json")],
        json.dumps({"title": "Insufficient funds", "status": 402, "balance": 30, "accounts": ["/a/1"], "client_secret": "cs_x1"}).encode(),
    )  # fmt: skip
    assert "balance" not in problem_json(fault)
    assert problem_json(fault, carry=("balance", "accounts", "client_secret"))["balance"] == 30
    assert problem_json(fault, carry=("client_secret",))["client_secret"] == "[redacted]"  # never a credential
    try:
        assert carry("balance") == ("balance",)
        assert tool_result(fault).structured_content["balance"] == 30
        assert "balance" not in problem_json(fault, carry=())  # the argument wins
    finally:
        assert carry() == ()
    assert "balance" not in tool_result(fault).structured_content
    for bad in ("status", "errors", "not a name", "", "x" * 65):
        with pytest.raises(ValueError):
            carry(bad)
    with pytest.raises(TypeError):
        problem_json(fault, carry="balance")


def test_the_structured_fields_are_errconvs_own() -> None:
    assert set(STRUCTURED_FIELDS) == {"type", "title", "status", "detail", "code", "next_step", "retry_after_seconds", "param",
                                      "violations", "alternatives", "alternatives_truncated", "blocked_by", "unblock_with", "request_id"}  # fmt: skip


def test_the_scrub_reads_what_the_output_can_show_not_what_the_fault_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    # A fault an application built: 200 violations, 200 extension members, each text 100,000
    # characters (about 280 MB of text in all). The structured output and the model's text
    # show a few items of each, each over a window: the scrub reads that much, not the
    # whole (it read all of it once, and this test took minutes).
    import errconv._redact as engine

    read = [0]
    scrub = engine._scrub

    def counted(text: str) -> str:
        read[0] += len(text)
        return scrub(text)

    monkeypatch.setattr(engine, "_scrub", counted)
    engine._scrub_cached.cache_clear()
    fault = _filled("ascii")
    problem_json(fault, carry=[f"member_{i}" for i in range(200)])
    errconv.agent_message(fault)
    print(f"characters scrubbed for a fault holding about 280 MB of text: {read[0]:,}")
    assert 0 < read[0] < 16 << 20, read[0]
