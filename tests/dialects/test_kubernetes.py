"""The `kubernetes` dialect (decode only): the API's Status object and a watch ERROR event.

Each shape apimachinery defines and the variants real servers and tests send, every row
of the reason table, detection against the look-alikes, the refusal to encode, bad
input, and the official `kubernetes` Python client reading the captures over loopback
with the status and reason errconv reads.
"""

from __future__ import annotations

import json
import pathlib
import socketserver
import threading
from typing import Any

import pytest

import errconv
from errconv.codes import Code, NextStep, infer_next_step
from errconv.details import ResourceInfo
from errconv.dialects import CERTAIN, STRONG, get
from errconv.dialects._base import HttpInfo
from errconv.dialects._common import Headers
from errconv.dialects.kubernetes import REASONS

REALWORLD = pathlib.Path(__file__).resolve().parent.parent / "realworld" / "kubernetes"
K8S = get("kubernetes")


def status(reason: str | None = None, code: int | None = None, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "m"}
    if reason is not None:
        out["reason"] = reason
    out.update(more)
    if code is not None:
        out["code"] = code
    return out


def decode(obj: Any, **kwargs: Any) -> errconv.Fault:
    return errconv.decode(json.dumps(obj).encode(), **kwargs)


def http(code: int, obj: Any, reason: str = "X") -> bytes:
    data = json.dumps(obj).encode()
    return f"HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data


# --------------------------------------------------------------------------- shapes


def test_not_found() -> None:
    fault = decode(status("NotFound", 404, details={"name": "grafana", "kind": "pods"}))
    assert fault.origin.dialect == "kubernetes"
    assert (fault.status, fault.grpc_code, fault.code, fault.detail) == (404, Code.NOT_FOUND, "NotFound", "m")
    assert fault.next_step == NextStep.GIVE_UP
    assert fault.details == (ResourceInfo(resource_type="pods", resource_name="grafana"),)
    assert fault.extensions == {}  # kind, apiVersion, an empty metadata and status say nothing more


def test_invalid_with_causes() -> None:
    fault = errconv.decode((REALWORLD / "lease-invalid-name.json").read_bytes())
    assert (fault.status, fault.code, fault.param, fault.next_step) == (422, "Invalid", "metadata.name", NextStep.FIX_REQUEST)
    assert [(v.field, v.reason) for v in fault.violations] == [("metadata.name", "FieldValueInvalid")]
    assert fault.details == (ResourceInfo(resource_type="Lease.coordination.k8s.io", resource_name="test_"),)


def test_causes_without_a_field_are_violations_without_a_param() -> None:
    fault = decode(status("InternalError", 500, details={"causes": [{"message": "etcd down"}]}))
    assert fault.violations == (errconv.Violation(field="", description="etcd down"),)
    assert fault.param is None and fault.next_step == NextStep.GIVE_UP


def test_retry_after_seconds_is_the_delay() -> None:
    fault = decode(status("TooManyRequests", 429, details={"retryAfterSeconds": 7}))
    assert (fault.next_step, fault.retry_after_seconds) == (NextStep.WAIT, 7)
    fault = decode(status("ServerTimeout", 500, details={"kind": "pods", "retryAfterSeconds": 2}))
    assert (fault.status, fault.grpc_code, fault.next_step, fault.retry_after_seconds) == (500, Code.UNAVAILABLE, NextStep.WAIT, 2)
    # Go's zero value means "not set".
    assert decode(status("TooManyRequests", 429, details={"retryAfterSeconds": 0})).retry_after_seconds is None


def test_retry_after_header_and_body() -> None:
    data = http(429, status("TooManyRequests", 429, details={"retryAfterSeconds": 3}))
    data = data.replace(b"Content-Type", b"Retry-After: 3\r\nContent-Type")
    fault = errconv.decode(data)
    assert (fault.origin.body, fault.next_step, fault.retry_after_seconds) == ("kubernetes", NextStep.WAIT, 3)


def test_a_list_continue_token_is_kept() -> None:
    fault = errconv.decode((REALWORLD / "list-continue-expired.json").read_bytes())
    assert fault.extensions == {"metadata": {"continue": "<NEW_CONTINUE_TOKEN>"}}
    assert (fault.status, fault.next_step) == (410, NextStep.GIVE_UP)


def test_unknown_members_and_a_uid_are_kept() -> None:
    fault = decode(status("Conflict", 409, details={"name": "x", "uid": "u-1", "extra": 1}, weird=True))
    assert fault.extensions == {"weird": True, "details": {"uid": "u-1", "extra": 1}}


def test_the_status_line_wins_and_the_body_code_still_names_the_error() -> None:
    fault = errconv.decode((REALWORLD / "status-code-disagrees-with-http.http").read_bytes())
    assert (fault.status, fault.code, fault.grpc_code, fault.next_step) == (400, None, Code.NOT_FOUND, NextStep.GIVE_UP)
    assert any("differs from HTTP status 400" in note for note in fault.origin.notes)


def test_a_code_that_is_no_status_is_kept() -> None:
    fault = errconv.decode((REALWORLD / "too-many-requests-code-666.json").read_bytes(), status=429)
    assert fault.extensions == {"code": 666}
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (429, NextStep.WAIT, 1)


def test_a_bare_status_without_code_takes_the_reasons() -> None:
    fault = decode({"kind": "Status", "status": "Failure", "reason": "Forbidden", "message": "no"})
    assert (fault.status, fault.next_step) == (403, NextStep.GIVE_UP)
    assert "status" not in fault.origin.inferred
    fault = decode({"kind": "Status", "details": {"retryAfterSeconds": 10}})
    assert (fault.status, fault.next_step, fault.retry_after_seconds) == (500, NextStep.WAIT, 10)
    assert "status" in fault.origin.inferred


def test_a_status_without_kind() -> None:
    data = (REALWORLD / "eviction-pdb-429.json").read_bytes()
    assert errconv.detect(data) == "kubernetes"
    fault = errconv.decode(data)
    assert (fault.status, fault.code, fault.next_step) == (429, None, NextStep.WAIT)


def test_a_watch_error_event() -> None:
    fault = errconv.decode((REALWORLD / "watch-error-expired.json").read_bytes())
    assert (fault.status, fault.code, fault.next_step) == (410, "Expired", NextStep.GIVE_UP)
    fault = errconv.decode((REALWORLD / "watch-error-gone.json").read_bytes())
    assert (fault.status, fault.code, fault.next_step) == (410, "Gone", NextStep.GIVE_UP)


def test_a_watch_error_event_inside_the_streams_200() -> None:
    event = json.loads((REALWORLD / "watch-error-expired.json").read_bytes())
    fault = errconv.decode(http(200, event, "OK"))
    assert (fault.origin.body, fault.status, fault.code, fault.next_step) == ("kubernetes", 410, "Expired", NextStep.GIVE_UP)
    assert any("HTTP 200" in note for note in fault.origin.notes)


def test_a_success_status_is_no_error() -> None:
    success = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": {"name": "x", "kind": "pods"}}
    with pytest.raises(errconv.DecodeError, match="not an error"):
        decode(success)
    with pytest.raises(errconv.DecodeError, match="not an error"):
        errconv.decode(http(200, success, "OK"))
    with pytest.raises(errconv.DecodeError):
        errconv.decode(http(200, {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "x"}}, "OK"))


# --------------------------------------------------------------------------- the reason table


@pytest.mark.parametrize("reason", sorted(REASONS))
def test_every_reason(reason: str) -> None:
    http_status, grpc = REASONS[reason]
    fault = decode(status(reason, http_status))
    assert (fault.status, fault.grpc_code, fault.code) == (http_status, grpc, reason)
    alone = decode({"kind": "Status", "status": "Failure", "reason": reason})  # the status from the reason
    assert alone.status == http_status


@pytest.mark.parametrize(
    "reason, step",
    [
        ("Conflict", NextStep.GIVE_UP), ("Gone", NextStep.GIVE_UP), ("Expired", NextStep.GIVE_UP),
        ("TooManyRequests", NextStep.WAIT), ("ServerTimeout", NextStep.WAIT), ("Timeout", NextStep.WAIT),
        ("ServiceUnavailable", NextStep.WAIT), ("Invalid", NextStep.FIX_REQUEST), ("BadRequest", NextStep.FIX_REQUEST),
        ("RequestEntityTooLarge", NextStep.FIX_REQUEST), ("UnsupportedMediaType", NextStep.FIX_REQUEST),
        ("NotAcceptable", NextStep.FIX_REQUEST), ("AlreadyExists", NextStep.GIVE_UP), ("NotFound", NextStep.GIVE_UP),
        ("Unauthorized", NextStep.GIVE_UP), ("Forbidden", NextStep.GIVE_UP), ("MethodNotAllowed", NextStep.GIVE_UP),
        ("InternalError", NextStep.GIVE_UP), ("StorageReadError", NextStep.GIVE_UP),
    ],
)  # fmt: skip
def test_next_step_by_reason(reason: str, step: NextStep) -> None:
    http_status, grpc = REASONS[reason]
    fault = decode(status(reason, http_status))
    assert fault.next_step == step
    if step != infer_next_step(grpc, http_status)[0]:
        assert fault.origin.next_step == f"inferred from kubernetes reason {reason!r}"


def test_a_gone_resource_version_is_not_fixed_by_its_field() -> None:
    cause = {"reason": "FieldValueInvalid", "field": "metadata.resourceVersion", "message": "too old"}
    fault = decode(status("Expired", 410, details={"causes": [cause]}))
    assert fault.param == "metadata.resourceVersion" and fault.next_step == NextStep.GIVE_UP


def test_conflict_gives_up_even_with_a_retry_after() -> None:
    data = http(409, status("Conflict", 409)).replace(b"Content-Type", b"Retry-After: 1\r\nContent-Type")
    assert errconv.decode(data).next_step == NextStep.GIVE_UP


# --------------------------------------------------------------------------- detection


def info(code: int | None) -> HttpInfo:
    return HttpInfo(code, Headers(()), "application/json")


@pytest.mark.parametrize(
    "value",
    [
        {"type": "error", "error": {"type": "overloaded_error", "message": "m"}},  # anthropic
        {"type": "ADDED", "object": {"kind": "Pod"}},  # a watch event that is no error
        {"type": "ERROR", "object": {"kind": "Pod"}},
        {"kind": "Pod", "apiVersion": "v1", "status": {"phase": "Failed"}},
        {"kind": "StatusList"},
        {"type": "about:blank", "title": "Not Found", "status": 404, "detail": "x"},  # problem
        {"status": "Failure"},  # nothing else to go on
        {"status": "error", "message": "m", "code": 500},  # JSend
        {"timestamp": "t", "status": 500, "error": "Internal Server Error", "path": "/x"},  # spring
        {"errors": [{"status": "422", "title": "Invalid"}]},  # json:api
        {"error": {"code": "NotFound", "message": "m"}},  # odata
        {"error": {"code": 404, "message": "m", "status": "NOT_FOUND"}},  # google
        {"code": "not_found", "message": "m"},  # connect
        [],
        "Status",
    ],
)
def test_look_alikes_are_not_claimed(value: Any) -> None:
    assert K8S.recognise(value, None) == 0.0
    try:
        assert errconv.detect(json.dumps(value).encode()) != "kubernetes"
    except errconv.DecodeError:
        pass  # no dialect at all


def test_claims() -> None:
    assert K8S.recognise(status("NotFound", 404), None) == CERTAIN
    assert K8S.recognise({"type": "ERROR", "object": {"code": 410}}, info(200)) == CERTAIN
    assert K8S.recognise({"status": "Failure", "code": 429, "message": "m"}, None) == STRONG
    assert K8S.recognise({"kind": "Status", "status": "Success"}, info(200)) == 0.0
    for other in ("problem", "google", "odata", "stripe", "status-json"):
        assert get(other).recognise(status("NotFound", 404), None) < CERTAIN, other


# --------------------------------------------------------------------------- no encoding


def test_encoding_is_refused_naming_the_dialects_that_write() -> None:
    fault = decode(status("NotFound", 404))
    with pytest.raises(errconv.UnknownDialectError) as caught:
        errconv.encode(fault, "kubernetes")
    message = str(caught.value)
    assert "kubernetes is read, not written" in message
    for writer in ("problem", "google", "stripe", "odata", "http+problem"):
        assert writer in message
    assert "http+kubernetes" not in errconv.dialect_names()
    with pytest.raises(errconv.UnknownDialectError):
        errconv.encode(fault, "http+kubernetes")
    with pytest.raises(errconv.UnknownDialectError, match="not an HTTP body dialect"):
        errconv.to_http(fault, "kubernetes")
    with pytest.raises(errconv.UnknownDialectError):
        errconv.convert(json.dumps(status("NotFound", 404)).encode(), to="kubernetes")
    # ... and what it reads converts to every dialect that writes.
    for name in ("problem", "google", "odata", "http+odata"):
        errconv.encode(fault, name)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "data",
    [
        b"", b"nope", b"[]", b"7", b'{"type": "ERROR", "object": 5}', b'{"type": "ERROR", "object": []}',
        b'{"kind": "Status", "status": "Success"}', b'{"kind": "Status", "message": "m"',
        b'{"kind": "Status", "details": {"causes": [' + b",".join([b'{"field": "f"}'] * 300) + b"]}}",
        b'{"kind": "Status", "extra": ' + b"[" * 40 + b"]" * 40 + b"}",
        b'{"kind": "Status", "code": ' + b"4" * 400 + b"}",
    ],
)  # fmt: skip
def test_bad_input_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(data, "kubernetes")


@pytest.mark.parametrize(
    "value",
    [
        {"kind": "Status", "code": "404", "reason": 5, "message": ["x"], "details": "d", "status": 7},
        {"kind": "Status", "details": {"causes": "none", "retryAfterSeconds": "soon", "name": 5}},
        {"kind": "Status", "details": {"causes": [5], "retryAfterSeconds": -3}},
        {"kind": "Status", "details": None, "code": True},
        {"type": "ERROR", "object": {}, "extra": 1},
    ],
)
def test_members_of_the_wrong_type_are_kept_not_read(value: dict[str, Any]) -> None:
    fault = decode(value, dialect="kubernetes")
    assert fault.origin.dialect == "kubernetes"
    assert fault.code is None and fault.violations == ()
    assert fault.extensions  # kept, for no meaning


# --------------------------------------------------------------------------- the kubernetes client

kubernetes = pytest.importorskip("kubernetes", reason="the official kubernetes client is in the test extra")
from kubernetes import client as k8s_client  # noqa: E402
from kubernetes import watch as k8s_watch  # noqa: E402

FACTS = json.loads((REALWORLD / "facts.json").read_text())
CAPTURES = sorted(FACTS)
WATCH = [n for n in CAPTURES if n.endswith(".json") and json.loads((REALWORLD / n).read_bytes()).get("type") == "ERROR"]
SERVED: dict[str, bytes] = {}


def response_bytes(name: str) -> bytes:
    """The capture as the response a server would send: a `.http` capture re-framed
    (its shown Content-Length is the doc's, not the body's), a bare body with the status
    its source states, a watch event as a line of a 200 stream."""
    raw = (REALWORLD / name).read_bytes()
    if name.endswith(".http"):
        head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
        lines = [line for line in head.split(b"\n") if not line.lower().startswith(b"content-length:")]
        return b"\r\n".join(lines) + f"\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    if name in WATCH:
        line = json.dumps(json.loads(raw)).encode() + b"\n"
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(line) + line
    code = FACTS[name]["facts"]["status"]
    return f"HTTP/1.1 {code} Whatever\r\nContent-Type: application/json\r\nContent-Length: {len(raw)}\r\n\r\n".encode() + raw


class _Replay(socketserver.StreamRequestHandler):
    """Answers a request whose path names a capture (its index) with that capture."""

    def handle(self) -> None:
        line = self.rfile.readline().decode("latin-1")
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass
        path = line.split(" ")[1].split("?")[0]
        key = next(part for part in path.split("/") if part.startswith("c-"))
        self.wfile.write(SERVED[key])


@pytest.fixture(scope="module")
def api():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Replay)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = k8s_client.Configuration()
    config.host = f"http://127.0.0.1:{server.server_address[1]}"
    config.proxy = None
    try:
        with k8s_client.ApiClient(config) as api_client:
            yield k8s_client.CoreV1Api(api_client)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("name", CAPTURES)
def test_the_kubernetes_client_agrees_on_status_and_reason(api: Any, name: str) -> None:
    key = f"c-{CAPTURES.index(name)}"
    SERVED[key] = response_bytes(name)
    fault = errconv.decode(response_bytes(name), now=1_800_000_000.0)
    if name in WATCH:
        # The client's own watch loop raises the Status as an ApiException (timeout_seconds
        # turns off its one silent retry after a 410): status is the Status's code, reason
        # "<reason>: <message>".
        with pytest.raises(k8s_client.ApiException) as caught:
            for _ in k8s_watch.Watch().stream(api.list_namespaced_pod, namespace=key, timeout_seconds=5):
                pass
        assert caught.value.status == fault.status
        assert caught.value.reason.split(": ", 1)[0] == fault.code
        return
    with pytest.raises(k8s_client.ApiException) as caught:
        api.read_namespaced_pod(name="x", namespace=key, _request_timeout=10)
    exc = caught.value
    assert exc.status == fault.status
    # The client does not read the Status; the reason it hands over in the body is errconv's code.
    assert json.loads(exc.body).get("reason") == fault.code
