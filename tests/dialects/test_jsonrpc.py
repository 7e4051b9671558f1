"""The `jsonrpc` dialect: JSON-RPC 2.0 (and 1.0) error responses, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

import errconv
from ._captures import labelled, read_as
from errconv import dialects
from errconv.codes import Code

NOW = 1_800_000_000.0


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


def decode(value: Any, **kw: Any) -> errconv.Fault:
    return errconv.decode(body(value), **kw)


def rpc(code: int, message: str = "m", **extra: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, **extra}
    return {"jsonrpc": "2.0", "id": 1, "error": error}


# --------------------------------------------------------------------------- decoding


def test_a_json_rpc_error_keeps_its_integer_code_as_a_string() -> None:
    fault = decode(rpc(-32602, "invalid argument 1"))
    assert fault.origin.dialect == "jsonrpc"
    assert (fault.code, fault.detail, fault.status, fault.grpc_code) == ("-32602", "invalid argument 1", 400, Code.INVALID_ARGUMENT)
    assert fault.next_step == "fix_request"
    assert {"status", "grpc_code", "next_step"} <= set(fault.origin.inferred)
    assert fault.extensions == {"id": 1}  # the call's id is kept, so a re-encoded error answers the same call


def test_a_code_json_rpc_itself_defines_is_the_protocol_s_word() -> None:
    assert "code" in decode(rpc(-32601)).origin.inferred  # lint still asks for a code of the service's own
    assert "code" not in decode(rpc(-32005)).origin.inferred  # a server's code (EIP-1474)
    assert "code" not in decode(rpc(3)).origin.inferred


@pytest.mark.parametrize(
    "code, grpc_code, step",
    [
        (-32700, Code.INVALID_ARGUMENT, "fix_request"),  # parse error
        (-32600, Code.INVALID_ARGUMENT, "fix_request"),  # invalid request
        (-32601, Code.UNIMPLEMENTED, "give_up"),  # method not found
        (-32602, Code.INVALID_ARGUMENT, "fix_request"),  # invalid params
        (-32603, Code.INTERNAL, "give_up"),  # internal error
        (-32000, Code.INVALID_ARGUMENT, "fix_request"),  # EIP-1474 invalid input, geth's call errors
        (-32001, Code.NOT_FOUND, "give_up"),  # EIP-1474 resource not found
        (-32002, Code.NOT_FOUND, "give_up"),  # MCP resource not found
        (-32003, Code.FAILED_PRECONDITION, "give_up"),  # EIP-1474 transaction rejected
        (-32004, Code.UNIMPLEMENTED, "give_up"),  # EIP-1474 method not supported
        (-32005, Code.RESOURCE_EXHAUSTED, "wait"),  # EIP-1474 limit exceeded
        (-32006, Code.INVALID_ARGUMENT, "fix_request"),  # EIP-1474 version not supported
        (-32008, Code.FAILED_PRECONDITION, "fix_request"),  # Hedera contract revert (the table's own step)
        (3, Code.FAILED_PRECONDITION, "fix_request"),  # geth execution reverted
        (-32050, Code.UNKNOWN, "give_up"),  # the rest of the server range
        (-32800, Code.CANCELLED, "give_up"),  # LSP RequestCancelled
        (-32801, Code.ABORTED, "wait"),  # LSP ContentModified
        (-32802, Code.ABORTED, "wait"),  # LSP ServerCancelled
        (-1, Code.UNKNOWN, "give_up"),  # an application code (MCP's sampling refusal)
        (-5, Code.UNKNOWN, "give_up"),  # Bitcoin Core's codes only in 1.0 replies
    ],
)
def test_the_code_table(code: int, grpc_code: int, step: str) -> None:
    fault = decode(rpc(code))
    assert (fault.grpc_code, str(fault.next_step)) == (grpc_code, step)
    assert fault.status == errconv.codes.http_for_code(grpc_code)
    if code in (-32008, 3):
        assert fault.origin.next_step == f"inferred from jsonrpc code {code}"


@pytest.mark.parametrize("code, grpc_code, step", [(-5, Code.NOT_FOUND, "give_up"), (-8, Code.INVALID_ARGUMENT, "fix_request"), (-3, Code.INVALID_ARGUMENT, "fix_request"), (-28, Code.UNAVAILABLE, "wait")])
def test_bitcoin_core_codes_in_a_json_rpc_1_reply(code: int, grpc_code: int, step: str) -> None:
    fault = decode({"result": None, "error": {"code": code, "message": "m"}, "id": "1"})
    assert fault.origin.dialect == "jsonrpc"
    assert (fault.code, fault.grpc_code, str(fault.next_step)) == (str(code), grpc_code, step)
    assert fault.extensions == {"id": "1"}  # `result: null` is framing, not kept


def test_a_batch_gives_its_first_error() -> None:
    batch = [{"jsonrpc": "2.0", "id": 1, "result": 7}, rpc(-32601, "no such method"), rpc(-32602)]
    fault = decode(batch)
    assert (fault.code, fault.detail) == ("-32601", "no such method")
    assert any("batch" in note for note in fault.origin.notes)


def test_a_batch_without_an_error_is_no_fault() -> None:
    with pytest.raises(errconv.DecodeError, match="no error response"):
        errconv.decode(body([{"jsonrpc": "2.0", "id": 1, "result": 7}]), "jsonrpc")


def test_data_that_is_not_an_object_is_kept_whole() -> None:
    fault = decode(rpc(3, "execution reverted", data="0xc2bb947c"))
    assert fault.extensions == {"data": "0xc2bb947c", "id": 1}
    # Re-encoded, the revert bytes go out as they came (Ethereum clients read them there).
    out = json.loads(errconv.encode(fault, "jsonrpc"))
    assert out["error"] == {"code": 3, "message": "execution reverted", "data": "0xc2bb947c"}
    assert out["id"] == 1


def test_data_members_errconv_knows_are_read_and_the_rest_kept() -> None:
    data = {"code": "INSUFFICIENT_FUNDS", "next_step": "give_up", "param": "value", "balance": 3}
    fault = decode(rpc(-32000, "insufficient funds", data=data))
    assert (fault.code, fault.param, fault.next_step) == ("INSUFFICIENT_FUNDS", "value", "give_up")
    assert fault.origin.stated
    assert fault.extensions == {"balance": 3, "id": 1}


def test_infura_backoff_seconds_is_the_delay() -> None:
    data = {"rate": {"allowed_rps": 1, "backoff_seconds": 2.5, "current_rps": 2.2}, "see": "https://infura.io/dashboard"}
    fault = decode(rpc(-32005, "daily request count exceeded", data=data), status=429)
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (429, "wait", 3)
    assert fault.extensions["rate"]["backoff_seconds"] == 2.5  # kept too


def test_mcp_resource_not_found_is_not_found_whatever_the_code() -> None:
    for code in (-32602, -32002):
        fault = decode(rpc(code, "Resource not found", data={"uri": "file:///nonexistent.txt"}))
        assert (fault.grpc_code, fault.next_step, fault.param) == (Code.NOT_FOUND, "give_up", None)
    # Any other data keeps -32602 an invalid-params error.
    fault = decode(rpc(-32602, "Unsupported protocol version", data={"supported": ["2024-11-05"], "requested": "1.0.0"}))
    assert fault.next_step == "fix_request"


def test_a_bare_error_with_a_negative_code_is_json_rpc() -> None:
    # No HTTP status is negative, so this is no Google envelope.
    fault = decode({"error": {"code": -32601, "message": "Method not found"}})
    assert fault.origin.dialect == "jsonrpc"
    assert fault.code == "-32601"


def test_inside_http_an_error_status_wins_and_a_200_only_carries_the_error() -> None:
    raw = body(rpc(-32600, "Session not found"))
    fault = errconv.from_http(404, [("Content-Type", "application/json")], raw)
    assert (fault.origin.body, fault.status, fault.next_step) == ("jsonrpc", 404, "fix_request")
    fault = errconv.from_http(200, [("Content-Type", "application/json")], body(rpc(-32005, "rate limit exceeded")))
    assert (fault.status, fault.grpc_code, fault.next_step) == (429, Code.RESOURCE_EXHAUSTED, "wait")
    assert "status" in fault.origin.inferred
    assert any("HTTP 200 carried a JSON-RPC error" in note for note in fault.origin.notes)
    # A successful JSON-RPC response inside a 200 is no error.
    with pytest.raises(errconv.DecodeError):
        errconv.from_http(200, [("Content-Type", "application/json")], body({"jsonrpc": "2.0", "id": 1, "result": 7}))


def test_retry_after_header_is_read_with_it() -> None:
    raw = b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 7\r\n\r\n" + body(rpc(-32005))
    fault = errconv.decode(raw)
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", 7)


@pytest.mark.parametrize(
    "value",
    [
        [],
        [1, 2],
        {"jsonrpc": "2.0", "error": "boom"},
        {"jsonrpc": "2.0", "id": 1},
        "text",
        {"error": None},
    ],
)
def test_bad_input_is_a_decode_error(value: Any) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body(value), "jsonrpc")


def test_odd_members_are_kept_not_fatal() -> None:
    fault = decode({"jsonrpc": "2.0", "id": {"x": 1}, "error": {"code": "E1", "message": 5, "extra": True}})
    assert fault.code is None and fault.grpc_code == Code.UNKNOWN
    assert fault.extensions == {"code": "E1", "message": 5, "extra": True, "id": {"x": 1}}


# --------------------------------------------------------------------------- detection


LOOK_ALIKES = {
    "google": {"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}},
    "google (integer code only)": {"error": {"code": 404, "message": "Not found"}},
    "stripe": {"error": {"type": "invalid_request_error", "code": "resource_missing", "message": "No such customer", "param": "id"}},
    "openai": {"error": {"message": "Rate limit reached", "type": "tokens", "param": None, "code": "rate_limit_exceeded"}},
    "openrouter (integer code)": {"error": {"message": "Rate limited", "code": 429}},
    "problem": {"type": "about:blank", "title": "Not Found", "status": 404},
    "mcp tool error": {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "boom"}], "isError": True}},
}


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_are_not_json_rpc(name: str) -> None:
    value = LOOK_ALIKES[name]
    assert dialects.get("jsonrpc").recognise(value, None) == 0
    assert errconv.detect(body(value)) != "jsonrpc"


@pytest.mark.parametrize(
    "value",
    [
        rpc(-32601),
        {"error": rpc(3)["error"], "jsonrpc": "2.0", "id": None},  # members out of the usual order
        [rpc(-32600)],
        {"result": None, "error": {"code": -5, "message": "No such transaction"}, "id": None},
        {"error": {"code": -32601, "message": "x"}},
    ],
)
def test_json_rpc_bodies_are_claimed_by_nothing_else(value: Any) -> None:
    assert errconv.detect(body(value)) == "jsonrpc"
    assert dialects.get("google").recognise(value, None) < dialects.get("jsonrpc").recognise(value, None) or (
        dialects.get("jsonrpc").precedence < dialects.get("google").precedence
    )


# --------------------------------------------------------------------------- encoding


def test_encoding_writes_the_envelope_and_errconv_fields_in_data() -> None:
    fault = errconv.Fault.build(status=429, code="rate_limited", detail="slow down", next_step="wait", retry_after_seconds=30)
    out = errconv.encode(fault, "jsonrpc")
    assert out == (
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"slow down",'
        b'"data":{"code":"rate_limited","next_step":"wait","retry_after_seconds":30}}}'
    )
    assert errconv.decode(out) == fault


def test_an_integer_code_is_written_as_the_integer() -> None:
    fault = decode(rpc(-32602, "bad"))
    out = json.loads(errconv.encode(fault, "jsonrpc"))
    assert out["error"]["code"] == -32602 and "code" not in out["error"].get("data", {})


def test_a_class_the_code_does_not_imply_is_written_beside_it() -> None:
    fault = errconv.Fault.build(status=402, code="card_declined", next_step="give_up")
    data = json.loads(errconv.encode(fault, "jsonrpc"))["error"]["data"]
    assert data["grpc_code"] == "FAILED_PRECONDITION" and data["status"] == 402
    assert errconv.decode(errconv.encode(fault, "jsonrpc")) == fault


def test_a_bare_body_gives_back_the_status_its_code_implies() -> None:
    fault = errconv.Fault.build(status=503, detail="down", next_step="wait", retry_after_seconds=5)
    back = errconv.decode(errconv.encode(fault, "jsonrpc"))
    assert back.status == 503 and back.code == "-32000"  # JSON-RPC must have a code: it adds one
    assert errconv.losses(fault, "jsonrpc") == ()  # issue 23: a code added where there was none is no loss


def test_round_trip_through_problem_and_back() -> None:
    start = decode(rpc(-32005, "rate limit exceeded"), status=429)
    middle = errconv.convert(errconv.encode(start, "jsonrpc"), "problem")
    back = errconv.decode(errconv.convert(middle, "jsonrpc", "problem"), "jsonrpc")
    assert (back.code, back.status, back.next_step, back.detail) == ("-32005", 429, "wait", "rate limit exceeded")


def test_http_jsonrpc() -> None:
    fault = decode(rpc(-32602, "bad", data={"param": "x"}))
    response = errconv.to_http(fault, "jsonrpc")
    assert (response.status, response.content_type) == (400, "application/json")
    back = errconv.decode(bytes(response))
    assert back == fault and back.origin.body == "jsonrpc"


# --------------------------------------------------------------------------- the MCP SDK reads it


@pytest.mark.parametrize("case", ["rate_limited", "missing_parameter", "card_declined", "internal_error", "non_ascii"])
def test_the_mcp_sdk_models_read_our_output(case: str) -> None:
    types = pytest.importorskip("mcp.types")
    import golden_corpus as gc

    fault = gc.load_fault(gc.ROOT / case)
    raw = errconv.encode(fault, "jsonrpc")
    message = types.JSONRPCError.model_validate_json(raw)
    assert message.error.code == json.loads(raw)["error"]["code"]
    assert message.error.message == (fault.detail or fault.title or "")
    assert message.error.data["next_step"] == fault.next_step
    # And as any JSON-RPC message, through the SDK's own adapter.
    parsed = types.jsonrpc_message_adapter.validate_json(raw) if hasattr(types, "jsonrpc_message_adapter") else message
    assert isinstance(parsed, types.JSONRPCError)


# --------------------------------------------------------------------------- the real-world captures


@pytest.mark.parametrize("key, path, entry", [c for c in labelled("graphql", "jsonapi", "jsonrpc", "mcp") if c[2]["expected_dialect"] == "jsonrpc"], ids=lambda c: c if isinstance(c, str) else "")
def test_each_capture_is_read_as_the_dialect_it_states(key: str, path: Any, entry: dict[str, Any]) -> None:
    assert read_as(path, entry) == "jsonrpc", f"{key} ({entry['source']})"
