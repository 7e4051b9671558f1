"""End to end: a real gRPC backend, a real ASGI gateway served by uvicorn, real HTTP clients.

    httpx / requests  --HTTP/1.1-->  uvicorn + ProblemMiddleware + bare ASGI app
                                         --grpc.aio-->  grpcio server (raw-bytes handlers)

The backend fails with rich statuses, built the way a grpcio servicer builds them
(`errconv.to_grpc(fault)` handed to `context.abort_with_status`): a wait with
RetryInfo, validation errors with BadRequest, give_ups with alternatives and with
DebugInfo. What the client must see is read independently of errconv where it can be:
the RetryInfo delay is unpacked from the backend's own grpc-status-details-bin with the
protobuf classes, and the Google envelope is parsed by google-api-core.

Everything runs on 127.0.0.1 with ports from the OS.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
import requests
from google.api_core import exceptions as gexc
from google.rpc import error_details_pb2, status_pb2

import errconv
import golden_corpus as gc
from errconv.details import DebugInfo
from errconv.gateway import ProblemMiddleware
from loopback import raw_get, serve_asgi, serve_grpc

SERVICE = "errconv.test.Backend"
FAULTS = {c.name: gc.load_fault(c) for c in gc.cases()}
# A wait with RetryInfo, two validation errors with BadRequest, give_ups with
# alternatives, with an instance of their own, and with DebugInfo.
CASES = ("rate_limited", "deadline_exceeded", "missing_parameter", "validation_failed", "slot_unavailable", "not_found", "internal_error")
SECRET = "db password is hunter2"

# google-api-core's HTTP classes, written out (exceptions.py, 2.44): a test of ours must
# not take them from errconv.
API_CORE_HTTP_CLASS = {400: gexc.BadRequest, 404: gexc.NotFound, 409: gexc.Conflict, 429: gexc.TooManyRequests,
                       500: gexc.InternalServerError, 504: gexc.GatewayTimeout}  # fmt: skip


def backend_call(request: bytes, context: grpc.ServicerContext) -> bytes:
    name = request.decode()
    if name == "ok":
        return b"hello from the backend"
    if name == "crash":
        raise RuntimeError(SECRET)  # grpcio answers UNKNOWN "Exception calling application: <this text>"
    if name == "injection":
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "bad value\r\nSet-Cookie: session=stolen")
    context.abort_with_status(errconv.to_grpc(FAULTS[name], keep_debug=True))  # service to service: DebugInfo too
    raise AssertionError("abort_with_status returns only by raising")


def gateway(target: str, **options: Any) -> ProblemMiddleware:
    """The gateway under test: a bare ASGI app calling the backend over grpc.aio.

    Its channel is opened in the lifespan startup, so the gateway works at all only if
    ProblemMiddleware passes the lifespan scope through."""
    state: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    state["channel"] = grpc.aio.insecure_channel(target, options=[("grpc.enable_http_proxy", 0)])
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await state["channel"].close()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        name = scope["path"].rsplit("/", 1)[-1]
        reply = await state["channel"].unary_unary(f"/{SERVICE}/Call")(name.encode(), timeout=10)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": reply})

    return ProblemMiddleware(app, json_dialect="google", **options)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve_grpc(SERVICE, {"Call": backend_call}) as target, serve_asgi(gateway(target), lifespan="on") as url:
        yield url


def sent_status(fault: errconv.Fault) -> status_pb2.Status:
    """The google.rpc.Status the backend put in grpc-status-details-bin, parsed by protobuf."""
    trailers = dict(errconv.to_grpc(fault, keep_debug=True).trailing_metadata)
    return status_pb2.Status.FromString(trailers["grpc-status-details-bin"])


def sent_retry_delay(fault: errconv.Fault) -> int | None:
    for detail in sent_status(fault).details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return info.retry_delay.seconds
    return None


def expected_at_the_edge(fault: errconv.Fault, path: str) -> errconv.Fault:
    """The backend's fault as the gateway should answer it: the request path as the
    instance when the fault has none of its own, and no DebugInfo."""
    return fault.replace(
        instance=fault.instance or path, details=tuple(d for d in fault.details if not isinstance(d, DebugInfo))
    )


def test_the_cases_carry_what_the_issue_asks_for() -> None:
    # Guard against a golden case changing under this test and making it vacuous.
    assert sent_retry_delay(FAULTS["rate_limited"]) == 30
    assert FAULTS["validation_failed"].violations and FAULTS["missing_parameter"].violations
    assert len(FAULTS["slot_unavailable"].alternatives) == 3
    assert any(isinstance(d, DebugInfo) for d in FAULTS["internal_error"].details)
    assert FAULTS["not_found"].instance
    for case in CASES:
        assert errconv.losses(FAULTS[case], "grpc") == () and errconv.losses(FAULTS[case], "problem") == (), case


@pytest.mark.parametrize("case", CASES)
def test_a_backend_fault_answers_as_problem_details(base: str, case: str) -> None:
    fault = FAULTS[case]
    resp = httpx.get(f"{base}/v1/{case}", timeout=10)  # httpx sends Accept: */*

    assert resp.status_code == fault.status
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.headers["vary"] == "Accept"
    assert int(resp.headers["content-length"]) == len(resp.content)
    body = resp.json()
    assert body["next_step"] == fault.next_step.value
    delay = sent_retry_delay(fault)
    if delay is not None:
        assert resp.headers["retry-after"] == str(delay)
        assert body["retry_after_seconds"] == delay
    else:
        assert "retry-after" not in resp.headers
    assert errconv.from_http(resp) == expected_at_the_edge(fault, f"/v1/{case}")


def test_debug_info_stays_inside(base: str) -> None:
    fault = FAULTS["internal_error"]
    debug = next(d for d in fault.details if isinstance(d, DebugInfo))
    assert any(isinstance(d, DebugInfo) for d in errconv.from_grpc(*_sent(fault)).details)  # the backend did send it
    for accept in ("*/*", "application/json"):
        text = httpx.get(f"{base}/v1/internal_error", headers={"Accept": accept}, timeout=10).text
        for entry in (*debug.stack_entries, debug.detail):
            if entry:
                assert entry not in text


def _sent(fault: errconv.Fault) -> tuple[Any, str, Any]:
    status = errconv.to_grpc(fault, keep_debug=True)
    return status.code, status.details, status.trailing_metadata


@pytest.mark.parametrize("case", CASES)
def test_accept_json_answers_the_google_envelope_api_core_reads(base: str, case: str) -> None:
    fault = FAULTS[case]
    with requests.Session() as session:
        session.trust_env = False  # no proxy between us and 127.0.0.1
        resp = session.get(f"{base}/v1/{case}", headers={"Accept": "application/json"}, timeout=10)

    assert resp.headers["Content-Type"] == "application/json; charset=UTF-8"
    exc = gexc.from_http_response(resp)
    assert type(exc) is API_CORE_HTTP_CLASS.get(fault.status, gexc.GoogleAPICallError)
    assert exc.code == fault.status
    assert exc.reason == fault.code.upper()
    assert exc.domain == fault.domain
    assert exc.metadata["next_step"] == fault.next_step.value
    details = {d["@type"].rsplit("/", 1)[-1]: d for d in exc.details}
    delay = sent_retry_delay(fault)
    if delay is not None:
        assert details["google.rpc.RetryInfo"]["retryDelay"] == f"{delay}s"
        assert resp.headers["Retry-After"] == str(delay)
    if fault.violations:
        fields = [v["field"] for v in details["google.rpc.BadRequest"]["fieldViolations"]]
        assert fields == [v.field for v in fault.violations]
    assert "google.rpc.DebugInfo" not in details
    assert errconv.from_http(resp) == expected_at_the_edge(fault, f"/v1/{case}")


def test_accept_problem_json_wins_over_a_lower_json(base: str) -> None:
    resp = httpx.get(f"{base}/v1/rate_limited", headers={"Accept": "application/json;q=0.5, application/problem+json"})
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.json()["retry_after_seconds"] == 30


def test_nothing_acceptable_still_answers_problem_json(base: str) -> None:
    resp = httpx.get(f"{base}/v1/rate_limited", headers={"Accept": "text/html"})
    assert resp.status_code == 429
    assert resp.headers["content-type"] == "application/problem+json"


def test_a_success_passes_untouched(base: str) -> None:
    resp = httpx.get(f"{base}/v1/ok", timeout=10)
    assert (resp.status_code, resp.text) == (200, "hello from the backend")
    assert resp.headers["content-type"] == "text/plain"
    assert "vary" not in resp.headers


def test_an_unhandled_backend_exception_leaks_nothing(base: str) -> None:
    resp = httpx.get(f"{base}/v1/crash", timeout=10)
    assert resp.status_code == 500
    assert resp.headers["content-type"] == "application/problem+json"
    assert resp.json()["next_step"] == "give_up"
    assert "hunter2" not in resp.text and "Exception calling application" not in resp.text


def test_a_backend_message_cannot_inject_a_header(base: str) -> None:
    raw = raw_get(base, "/v1/injection")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"set-cookie" not in head.lower()
    assert all(not line.lower().startswith(b"set-cookie") for line in raw.split(b"\n"))
    assert json.loads(body)["detail"] == "bad value\r\nSet-Cookie: session=stolen"  # in the body, JSON-escaped


def test_every_request_id_becomes_the_instance(tmp_path: Any) -> None:
    with serve_grpc(SERVICE, {"Call": backend_call}) as target, serve_asgi(
        gateway(target, request_id_header="X-Request-Id"), lifespan="on"
    ) as url:
        with_id = httpx.get(f"{url}/v1/rate_limited", headers={"X-Request-Id": "req_7Hq2"}, timeout=10)
        without = httpx.get(f"{url}/v1/rate_limited?key=sk_live_secret", timeout=10)
    assert with_id.json()["instance"] == "req_7Hq2"
    assert without.json()["instance"] == "/v1/rate_limited"  # the path, never the query (it may hold keys)
    assert "sk_live_secret" not in without.text
