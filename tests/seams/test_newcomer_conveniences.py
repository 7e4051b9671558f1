"""Conveniences a first user reaches for (issue 23, item 7)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from google.rpc import error_details_pb2, status_pb2

import errconv
from errconv import FaultError


# --------------------------------------------------------------------------- decode(a protobuf message)


def test_decode_reads_a_status_message_as_its_bytes() -> None:
    message = status_pb2.Status(code=14, message="backend down")
    info = error_details_pb2.RetryInfo()
    info.retry_delay.seconds = 9
    message.details.add().Pack(info)
    fault = errconv.decode(message)
    assert fault == errconv.decode(message.SerializeToString(), "status")
    assert (fault.grpc_code, fault.detail, fault.retry_after_seconds) == (14, "backend down", 9)
    assert errconv.detect(message) == "status"
    assert errconv.decode(message, "status") == fault
    assert errconv.convert(message, to="problem") == errconv.convert(message.SerializeToString(), to="problem")


def test_another_protobuf_message_is_a_clear_decode_error() -> None:
    with pytest.raises(errconv.DecodeError, match="google.rpc.Status, got 'google.rpc.RetryInfo'"):
        errconv.decode(error_details_pb2.RetryInfo())


# --------------------------------------------------------------------------- FaultError(fields)


def test_fault_error_builds_its_fault_from_fields() -> None:
    exc = FaultError(status=404, code="book_not_found", detail="No such book")
    assert exc.fault == errconv.Fault.build(status=404, code="book_not_found", detail="No such book")
    assert str(exc) == "No such book"
    fault = errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=5)
    assert FaultError(fault).fault is fault  # the old form keeps working
    assert FaultError(fault=fault).fault is fault


def test_fault_error_applies_the_contract_and_refuses_both_or_neither() -> None:
    with pytest.raises(errconv.ContractError, match="must carry retry_after_seconds"):
        FaultError(status=503, next_step="wait")
    with pytest.raises(TypeError, match="not both"):
        FaultError(errconv.Fault.build(status=404), code="x")
    with pytest.raises(TypeError, match="Fault.build"):
        FaultError()


def test_a_fault_error_built_from_fields_is_answered_by_to_http() -> None:
    response = errconv.to_http(FaultError(status=429, code="slow_down", next_step="wait", retry_after_seconds=4))
    assert response.status == 429
    assert dict(response.headers)["Retry-After"] == "4"


# --------------------------------------------------------------------------- an import error naming the extra

_BLOCKER = """
import importlib.abc, sys

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {blocked!r} or name.startswith({blocked!r} + "."):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
{code}
"""


def _run_without(blocked: str, code: str) -> subprocess.CompletedProcess[str]:
    script = _BLOCKER.format(blocked=blocked, code=textwrap.dedent(code))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    ("blocked", "code", "extra", "what"),
    [
        ("grpc", "import errconv.interceptors", "grpc", "errconv.interceptors"),
        ("grpc", "import errconv.aio", "grpc", "errconv.aio"),
        ("grpc", "from errconv.interceptors import ServerInterceptor", "grpc", "errconv.interceptors"),
        ("starlette", "import errconv.gateway\nerrconv.gateway.install(object())", "starlette", "errconv.gateway.install"),
        (
            "litestar",
            "import errconv.gateway\nerrconv.gateway.LitestarPlugin()",
            "litestar",
            "errconv.gateway.LitestarPlugin",
        ),
    ],
)
def test_a_missing_library_names_the_extra(blocked: str, code: str, extra: str, what: str) -> None:
    done = _run_without(blocked, code)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: "), done.stderr
    assert f"pip install 'errconv[{extra}]'" in last and what in last and blocked in last


def test_errconv_itself_and_the_gateway_import_without_grpc_or_starlette() -> None:
    done = _run_without("grpc", "import errconv, errconv.gateway; print(errconv.decode(b'x', status=503).next_step)")
    assert done.returncode == 0, done.stderr
    done = _run_without("starlette", "import errconv.gateway; print('ok')")
    assert done.returncode == 0, done.stderr


def test_the_extras_are_declared() -> None:
    import tomllib
    from pathlib import Path

    extras = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert {"grpc", "starlette", "litestar"} <= set(extras)


# --------------------------------------------------------------------------- from_http of a body that is not UTF-8

_NOTE = "the body is not valid UTF-8; read with U+FFFD in place of the bytes that are not"


@pytest.mark.parametrize(
    ("content_type", "body", "code", "detail"),
    [
        ("application/json", b'{"error": {"code": "busy", "message": "caf\xe9 closed"}}', None, None),
        ("application/problem+json", b'{"type": "about:blank", "status": 503, "code": "busy", "detail": "caf\xe9"}', "busy", "caf\ufffd"),
        ("text/plain", b"caf\xe9 closed", None, None),
        ("", b"\xff\xfe\x00", None, None),
    ],
)
def test_a_body_that_is_not_utf8_is_read_with_replacement_and_a_note(
    content_type: str, body: bytes, code: str | None, detail: str | None
) -> None:
    headers = [("Content-Type", content_type)] if content_type else []
    fault = errconv.from_http(503, headers, body)
    assert fault.status == 503 and fault.next_step == "wait"
    assert fault.origin is not None and _NOTE in fault.origin.notes
    if code is not None:
        assert (fault.code, fault.detail) == (code, detail)
    # the http dialect is the same reading of a whole response
    whole = b"HTTP/1.1 503 Service Unavailable\r\n" + (f"Content-Type: {content_type}\r\n".encode() if content_type else b"") + b"\r\n" + body
    assert errconv.decode(whole, "http") == fault


def test_a_utf8_body_carries_no_such_note() -> None:
    fault = errconv.from_http(503, [("Content-Type", "text/plain")], "café closed".encode())
    assert fault.origin is not None and _NOTE not in fault.origin.notes


def test_to_http_of_a_response_that_is_not_utf8_keeps_its_retry_after() -> None:
    headers = [("Content-Type", "application/json"), ("Retry-After", "7")]
    body = b'{"error": "\xff\xfe"}'
    fault = errconv.from_http(503, headers, body)
    assert (fault.next_step, fault.retry_after_seconds) == ("wait", 7)
    response = errconv.to_http((503, headers, body))
    assert response.status == 503 and dict(response.headers)["Retry-After"] == "7"
