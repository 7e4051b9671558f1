"""slack: `{"ok": false, "error": ...}`, an error inside a 200; its code table; told
apart from OAuth's `error` string; and slack_sdk, Slack's own client, reading the same
responses from a loopback server."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

import errconv
from errconv import Code, NextStep
from errconv.dialects.slack import CODES

from .adhoc import ROOT, bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, read_capture, response


def test_an_error_inside_a_200_keeps_its_status_but_not_grpc_ok() -> None:
    fault = response(200, {"ok": False, "error": "invalid_auth"})
    assert fault.origin.body == "slack"
    assert (fault.status, fault.code, fault.next_step) == (200, "invalid_auth", NextStep.GIVE_UP)
    assert fault.grpc_code == Code.UNAUTHENTICATED  # never OK: no gRPC peer may read it as a success
    unknown = response(200, {"ok": False, "error": "channel_not_found"})
    assert (unknown.grpc_code, unknown.next_step) == (Code.UNKNOWN, NextStep.GIVE_UP)


def test_a_success_is_no_error() -> None:
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        response(200, {"ok": True, "channel": "C1"})
    with pytest.raises(errconv.DecodeError, match="not an error response"):
        response(200, {"ok": True, "warning": "missing_charset", "response_metadata": {"warnings": ["missing_charset"]}})


@pytest.mark.parametrize(("code", "row"), sorted(CODES.items()))
def test_every_code_row_decides_whatever_the_status(code: str, row: tuple[NextStep, int]) -> None:
    step, grpc = row
    for status in (200, 400, 500):
        fault = response(status, {"ok": False, "error": code})
        assert fault.next_step == step, (code, status)
        assert f"slack code {code!r}" in fault.origin.next_step
        if status == 200:
            assert fault.grpc_code == grpc


def test_ratelimited_429_waits_the_retry_after() -> None:
    fault = response(429, {"ok": False, "error": "ratelimited"}, (("Retry-After", "30"),))
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 30)


def test_a_bare_body_is_a_200_or_a_429() -> None:
    assert bare({"ok": False, "error": "invalid_auth"}).status == 200
    assert bare({"ok": False, "error": "ratelimited"}).status == 429
    assert "status" in bare({"ok": False, "error": "x"}).origin.inferred


def test_warning_and_response_metadata_are_kept() -> None:
    body = {"ok": False, "error": "invalid_arguments", "warning": "missing_charset", "response_metadata": {"messages": ["[ERROR] missing required field: channel"]}}
    fault = response(200, body)
    assert fault.next_step == NextStep.FIX_REQUEST and fault.param is None  # the messages are prose: not read
    assert fault.extensions == {"warning": "missing_charset", "response_metadata": {"messages": ["[ERROR] missing required field: channel"]}}
    scoped = response(200, {"ok": False, "error": "missing_scope", "needed": "chat:write", "provided": "channels:read"})
    assert scoped.extensions == {"needed": "chat:write", "provided": "channels:read"}


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        ({"ok": False, "error": "invalid_auth"}, "slack"),
        ({"ok": False, "error": "invalid_grant"}, "slack"),  # Slack's OAuth endpoints answer in Slack's shape
        ({"ok": False, "error": "invalid_code", "error_description": "x"}, "slack"),
        ({"error": "invalid_grant"}, "oauth"),
        ({"error": "invalid_grant", "error_description": "Bad code"}, "oauth"),
    ],
)
def test_slack_and_oauth_are_told_apart(obj: dict[str, Any], want: str) -> None:
    assert detected(obj, status=400) == want
    assert detected(obj) == want


def test_a_non_boolean_ok_is_neither_slack_nor_oauth() -> None:
    assert detected({"ok": "false", "error": "invalid_auth"}, status=400) not in ("slack", "oauth")


def test_slack_is_read_not_written() -> None:
    with pytest.raises(errconv.UnknownDialectError, match="slack is read, not written"):
        errconv.encode(errconv.Fault.build(status=401, code="invalid_auth"), "slack")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("slack")


@pytest.mark.parametrize(("key", "path", "entry"), captures("slack"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    check_converts(read_capture(path, entry))


# --------------------------------------------------------------------------- slack_sdk, on loopback

slack_sdk = pytest.importorskip("slack_sdk")


class _Server(http.server.ThreadingHTTPServer):
    """Answers every request with the next of `replies` (whole HTTP responses, as bytes)."""

    daemon_threads = True

    def __init__(self, replies: list[bytes]) -> None:
        self.replies = list(replies)
        self.served = 0
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        server: _Server = self.server  # type: ignore[assignment]
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = server.replies[min(server.served, len(server.replies) - 1)]
        server.served += 1
        self.wfile.write(reply)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


def _serve(replies: list[bytes]) -> Iterator[_Server]:
    server = _Server(replies)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _capture(name: str) -> bytes:
    data = (ROOT / "slack" / name).read_bytes()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"content-length")]
    # Framed for a real client: the length of the body, and the connection closed after it.
    return b"\r\n".join(lines) + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body


@pytest.mark.parametrize("name", ["invalid-auth-200.http", "fatal-error-200.http", "invalid-user-agent-400.http", "oauth-v2-access-invalid-200.http"])
def test_slack_sdk_raises_with_the_code_errconv_reads(name: str) -> None:
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    raw = _capture(name)
    fault = errconv.decode(raw)
    for server in _serve([raw]):
        client = WebClient(token="xoxb-test", base_url=f"http://127.0.0.1:{server.server_address[1]}/")
        with pytest.raises(SlackApiError) as caught:
            client.api_call("auth.test")
        assert caught.value.response.status_code == fault.status
        assert caught.value.response["error"] == fault.code
        assert server.served == 1  # slack_sdk does not retry these, and errconv does not say wait
        assert fault.next_step != NextStep.WAIT


def test_slack_sdk_retries_the_429_errconv_says_to_wait_for() -> None:
    from slack_sdk import WebClient
    from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

    limited = _capture("ratelimited-retry-after-429.http")
    fault = errconv.decode(limited)
    assert (fault.next_step, fault.retry_after_seconds, fault.code) == (NextStep.WAIT, 1, "ratelimited")
    ok = b'HTTP/1.1 200 OK\r\ncontent-type: application/json;charset=utf-8\r\ncontent-length: 11\r\n\r\n{"ok":true}'
    for server in _serve([limited, ok]):
        client = WebClient(token="xoxb-test", base_url=f"http://127.0.0.1:{server.server_address[1]}/", retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)])
        assert client.api_call("auth.test")["ok"] is True
        assert server.served == 2  # it waited the Retry-After errconv read, and repeated the call
