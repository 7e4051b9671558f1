"""The `mcp` dialect: an MCP tool result with `isError: true`, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

import errconv
from ._captures import labelled, read_as
from errconv import dialects
from errconv.codes import Code
from errconv.dialects.mcp import prose_of


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


def tool_error(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True, **extra}


def wrapped(result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 3, "result": result}


# --------------------------------------------------------------------------- decoding


@pytest.mark.parametrize(
    "text, grpc_code, status, step",
    [
        ("Failed to fetch weather data: API rate limit exceeded", Code.RESOURCE_EXHAUSTED, 429, "wait"),
        ("Upstream returned 429 Too Many Requests", Code.RESOURCE_EXHAUSTED, 429, "wait"),
        ("The request timed out after 30s", Code.DEADLINE_EXCEEDED, 504, "wait"),
        ("Service temporarily unavailable", Code.UNAVAILABLE, 503, "wait"),
        ("Invalid departure date: must be in the future.", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("Unknown tool: invalid_tool_name", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("Missing required argument 'path'", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("Invalid API key", Code.UNAUTHENTICATED, 401, "give_up"),  # a credential, not an argument
        ("unexpected status 401 Unauthorized: ", Code.UNAUTHENTICATED, 401, "give_up"),
        ("Permission denied: /etc/shadow", Code.PERMISSION_DENIED, 403, "give_up"),
        ("File not found: notes.txt", Code.NOT_FOUND, 404, "give_up"),
        ("Error executing tool explode: boom", Code.UNKNOWN, 500, "give_up"),
    ],
)
def test_prose_only_is_classified_from_its_words(text: str, grpc_code: int, status: int, step: str) -> None:
    fault = errconv.decode(body(wrapped(tool_error(text))))
    assert fault.origin.dialect == "mcp"
    assert (fault.detail, fault.code, fault.grpc_code, fault.status, str(fault.next_step)) == (text, None, grpc_code, status, step)
    assert {"status", "grpc_code", "next_step"} <= set(fault.origin.inferred)
    assert any("nothing machine-readable" in note for note in fault.origin.notes)
    if grpc_code != Code.UNKNOWN:
        assert fault.origin.next_step.startswith("inferred from the tool result's text")


def test_a_bare_result_and_a_completed_task_read_alike() -> None:
    result = tool_error("Failed to process request: invalid input")
    task = {"jsonrpc": "2.0", "id": 5, "result": {"resultType": "task", "taskId": "t", "status": "completed", "result": result}}
    for value in (result, wrapped(result), task):
        fault = errconv.decode(body(value))
        assert (fault.origin.dialect, fault.next_step, fault.extensions) == ("mcp", "fix_request", {})


def test_structured_content_is_read_as_a_problem_body() -> None:
    structured = {"status": 429, "code": "rate_limited", "detail": "slow down", "retry_after_seconds": 20, "next_step": "wait"}
    fault = errconv.decode(body(tool_error("slow down", structuredContent=structured)))
    assert (fault.status, fault.code, fault.next_step, fault.retry_after_seconds) == (429, "rate_limited", "wait", 20)
    assert fault.origin.stated


def test_structured_content_in_seed_vocabulary() -> None:
    structured = {"error": "rate_limited", "retryable": True, "retry_after": 30}
    fault = errconv.decode(body(tool_error("Rate limited", structuredContent=structured)))
    assert (fault.code, fault.next_step, fault.retry_after_seconds, fault.detail) == ("rate_limited", "wait", 30, "Rate limited")


def test_the_json_copy_of_structured_content_is_no_prose() -> None:
    structured = {"code": "E_TIMEOUT", "status": 504}
    result = {"content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured, "isError": True}
    fault = errconv.decode(body(result))
    assert (fault.code, fault.detail, fault.status, fault.next_step) == ("E_TIMEOUT", None, 504, "wait")


def test_what_mcp_defines_beyond_text_is_kept() -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    result = {"content": [{"type": "text", "text": "render failed"}, image], "isError": True, "_meta": {"trace": "t1"}, "resultType": "complete"}
    fault = errconv.decode(body(result))
    assert fault.extensions == {"content": [image], "_meta": {"trace": "t1"}}
    out = json.loads(errconv.encode(fault, "mcp"))
    assert out["content"][-1] == image  # the non-text block goes back among the content blocks
    assert errconv.decode(errconv.encode(fault, "mcp")) == fault


def test_a_structured_content_that_is_no_object_is_kept_whole() -> None:
    fault = errconv.decode(body(tool_error("no", structuredContent=[1, 2])))
    assert fault.extensions == {"structuredContent": [1, 2]}


def test_inside_http_a_200_carries_the_tool_error() -> None:
    raw = body(wrapped(tool_error("Failed to fetch weather data: API rate limit exceeded")))
    fault = errconv.from_http(200, [("Content-Type", "application/json")], raw)
    assert (fault.origin.body, fault.status, fault.next_step) == ("mcp", 429, "wait")
    assert any("HTTP 200 carried an MCP tool error" in note for note in fault.origin.notes)


def test_a_successful_tool_result_is_no_error() -> None:
    ok = {"content": [{"type": "text", "text": "5.0"}], "structuredContent": {"result": 5.0}, "isError": False}
    with pytest.raises(errconv.DecodeError, match="success"):
        errconv.decode(body(ok), "mcp")
    with pytest.raises(errconv.DecodeError):
        errconv.from_http(200, [("Content-Type", "application/json")], body(wrapped(ok)))


@pytest.mark.parametrize("value", [[], {"content": "x", "isError": True}, {"isError": True}, "x", {"jsonrpc": "2.0", "id": 1, "result": 5}])
def test_bad_input_is_a_decode_error(value: Any) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body(value), "mcp")


# --------------------------------------------------------------------------- detection


LOOK_ALIKES = {
    "anthropic message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    "anthropic error": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    "a successful tool result": {"content": [{"type": "text", "text": "ok"}], "isError": False},
    "json-rpc success": {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "ok"}]}},
    "mcp protocol error": {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool: x"}},
    "problem with a content member": {"title": "Bad", "status": 400, "content": ["x"]},
    "openai chat completion": {"id": "c", "object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "x"}}]},
}


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_are_not_mcp(name: str) -> None:
    value = LOOK_ALIKES[name]
    assert dialects.get("mcp").recognise(value, None) == 0
    try:
        assert errconv.detect(body(value)) != "mcp"
    except errconv.DecodeError:
        pass  # no dialect at all: a success


def test_mcp_protocol_errors_are_json_rpc() -> None:
    assert errconv.detect(body(LOOK_ALIKES["mcp protocol error"])) == "jsonrpc"


@pytest.mark.parametrize("value", [tool_error("x"), wrapped(tool_error("x")), tool_error("x", structuredContent={"status": 500})])
def test_mcp_results_are_claimed_by_nothing_else(value: Any) -> None:
    assert errconv.detect(body(value)) == "mcp"
    others = [d for d in dialects.registered() if d.form == "json" and d.name != "mcp"]
    assert all(d.recognise(value, None) < dialects.get("mcp").recognise(value, None) for d in others)


# --------------------------------------------------------------------------- encoding


def test_encoding_writes_prose_a_json_copy_and_the_structured_fault() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limited", detail="60 requests per minute", next_step="wait", retry_after_seconds=30)
    out = json.loads(errconv.encode(fault, "mcp"))
    assert out["isError"] is True
    prose, copy = out["content"]
    assert prose == {"type": "text", "text": "60 requests per minute\n\nWait 30 seconds, then repeat the same call."}
    assert json.loads(copy["text"]) == out["structuredContent"]
    assert out["structuredContent"] == {
        "status": 429, "detail": "60 requests per minute", "code": "rate_limited", "next_step": "wait", "retry_after_seconds": 30,
    }  # fmt: skip
    assert errconv.decode(errconv.encode(fault, "mcp")) == fault


@pytest.mark.parametrize(
    "kwargs, move",
    [
        ({"status": 400, "param": "date", "detail": "bad date"}, "Change the argument 'date' and call again."),
        ({"status": 503, "next_step": "wait", "retry_after_seconds": 5}, "Wait 5 seconds, then repeat the same call."),
        ({"status": 404, "detail": "no such slot", "alternatives": ["10:00"]}, "Do not repeat this call. Alternatives are listed in alternatives."),
        ({"status": 402, "next_step": "give_up", "unblock_with": "top_up"}, "Do not repeat this call. top_up may unblock it."),
    ],
)
def test_the_prose_says_the_next_move(kwargs: dict[str, Any], move: str) -> None:
    fault = errconv.Fault.build(**kwargs)
    assert prose_of(fault).endswith("\n\n" + move)
    assert errconv.decode(errconv.encode(fault, "mcp")) == fault  # the prose is not read back as the detail


def test_an_upstream_error_reaches_an_agent_as_a_tool_result() -> None:
    # What a gateway in front of a REST API returns to the model: an OpenAI-style 429 as a tool result.
    upstream = b'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/problem+json\r\nRetry-After: 12\r\n\r\n{"title":"Too many requests","status":429,"code":"rate_limited"}'
    out = json.loads(errconv.convert(upstream, "mcp"))
    assert out["isError"] is True
    assert out["structuredContent"]["next_step"] == "wait" and out["structuredContent"]["retry_after_seconds"] == 12
    assert "Wait 12 seconds" in out["content"][0]["text"]


@pytest.mark.parametrize("case", ["rate_limited", "missing_parameter", "slot_unavailable", "internal_error", "non_ascii", "extensions_all_types"])
def test_the_mcp_sdk_reads_our_tool_result(case: str) -> None:
    types = pytest.importorskip("mcp.types")
    import golden_corpus as gc

    fault = gc.load_fault(gc.ROOT / case)
    raw = errconv.encode(fault, "mcp")
    result = types.CallToolResult.model_validate_json(raw)
    assert result.is_error is True
    assert isinstance(result.content[0], types.TextContent) and result.content[0].text == prose_of(fault)
    assert result.structured_content["next_step"] == fault.next_step
    assert result.structured_content.get("param") == fault.param
    # Inside the JSON-RPC response an MCP server sends, as the SDK's own adapter reads it.
    message = types.jsonrpc_message_adapter.validate_json(b'{"jsonrpc":"2.0","id":3,"result":' + raw + b"}")
    assert isinstance(message, types.JSONRPCResponse)
    assert types.CallToolResult.model_validate(message.result).is_error is True


# --------------------------------------------------------------------------- the real-world captures


@pytest.mark.parametrize("key, path, entry", [c for c in labelled("graphql", "jsonapi", "jsonrpc", "mcp") if c[2]["expected_dialect"] == "mcp"], ids=lambda c: c if isinstance(c, str) else "")
def test_each_capture_is_read_as_the_dialect_it_states(key: str, path: Any, entry: dict[str, Any]) -> None:
    assert read_as(path, entry) == "mcp", f"{key} ({entry['source']})"


def test_an_mcp_client_gets_our_tool_result_through_an_mcp_server() -> None:
    # End to end, in memory: an MCP server whose tool answers with errconv's result for an
    # upstream 429, called by the SDK's own Client; what the client gets back reads as the fault.
    pytest.importorskip("mcp")
    import anyio
    import mcp.types as types
    from mcp import Client
    from mcp.server import Server

    fault = errconv.from_http(429, [("Retry-After", "12"), ("Content-Type", "application/problem+json")], b'{"title":"Too many requests","status":429,"code":"rate_limited"}')

    async def call_tool(ctx: Any, params: Any) -> Any:
        return types.CallToolResult.model_validate_json(errconv.encode(fault, "mcp"))

    async def main() -> Any:
        async with Client(Server("gateway", on_call_tool=call_tool)) as client:
            return await client.call_tool("search", {"q": "x"})

    result = anyio.run(main)
    assert result.is_error is True
    wire = result.model_dump_json(by_alias=True, exclude_none=True).encode()
    back = errconv.decode(wire)
    assert back.origin.dialect == "mcp"
    assert (back.next_step, back.retry_after_seconds, back.code, back.status) == ("wait", 12, "rate_limited", 429)
