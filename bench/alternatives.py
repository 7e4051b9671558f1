"""What a careful user would write instead of errconv, for the side-by-side ratios.

- The JSON conversions go through `google.rpc.Status` with `json.loads`,
  `google.protobuf.json_format` (`ParseDict` / `MessageToDict`) and `json.dumps`:
  the details are parsed and validated by protobuf, the agent fields read from
  ErrorInfo, RetryInfo and BadRequest, and compact JSON written.
- The Status path uses the protobuf classes directly (`FromString`, `Is`/`Unpack`,
  `Pack`) and `MessageToDict` for the details it does not read itself.
- google-api-core's `from_http_response` reads a Google error out of a
  `requests.Response`, as every REST client built on api-core does. errconv's
  `decode(..., "http")` starts from the response bytes, so the fair comparison
  starts there too: `api_core_from_bytes` has http.client parse the status line
  and headers, urllib3 wrap them and requests' adapter build the Response, the
  path every such client's response takes (no socket: the bytes are in memory).
  `api_core_response` builds the Response by hand instead, once, for the figure
  that leaves HTTP parsing out of api-core's side.

Each function takes the bytes errconv would take and returns the bytes (or the
exception) the user would get, so the harness can check that both did the work.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.rpc import code_pb2, error_details_pb2, status_pb2

import errconv  # noqa: F401  (imports errconv.v1.Problem into the default descriptor pool, as its users would)

__all__ = ["CONVERSIONS", "PROTOBUF", "api_core_from_bytes", "api_core_response", "from_http_response", "response_builder"]

# google/rpc/code.proto's HTTP mapping, as a user copies it from the docs.
_HTTP_FOR_CODE = {0: 200, 1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400,
                  10: 409, 11: 400, 12: 501, 13: 500, 14: 503, 15: 500, 16: 401}  # fmt: skip
_CODE_FOR_HTTP = {400: 3, 401: 16, 403: 7, 404: 5, 409: 10, 422: 3, 429: 8, 499: 1, 500: 13, 501: 12, 503: 14, 504: 4}
_ERROR_INFO = error_details_pb2.ErrorInfo.DESCRIPTOR
_RETRY_INFO = error_details_pb2.RetryInfo.DESCRIPTOR
_BAD_REQUEST = error_details_pb2.BadRequest.DESCRIPTOR


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _status_from_google(data: bytes) -> tuple[int, status_pb2.Status]:
    inner = json.loads(data)["error"]
    status = json_format.ParseDict(
        {"message": inner.get("message", ""), "details": inner.get("details", [])}, status_pb2.Status()
    )
    status.code = code_pb2.Code.Value(inner["status"])
    return inner["code"], status


def _google(http: int, status: status_pb2.Status) -> bytes:
    as_dict = json_format.MessageToDict(status)
    return _dumps(
        {
            "error": {
                "code": http,
                "message": status.message,
                "status": code_pb2.Code.Name(status.code),
                "details": as_dict.get("details", []),
            }
        }
    )


def google_to_status_json(data: bytes) -> bytes:
    _, status = _status_from_google(data)
    return _dumps(json_format.MessageToDict(status))


def status_json_to_google(data: bytes) -> bytes:
    status = json_format.ParseDict(json.loads(data), status_pb2.Status())
    return _google(_HTTP_FOR_CODE[status.code], status)


def _problem_from_status(http: int, status: status_pb2.Status) -> dict[str, Any]:
    problem: dict[str, Any] = {"status": http, "detail": status.message}
    others = []
    for detail in status.details:
        if detail.Is(_ERROR_INFO):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            problem["code"] = info.reason.lower()
            if info.domain:
                problem["domain"] = info.domain
            metadata = dict(info.metadata)
            for key in ("next_step", "param"):
                if key in metadata:
                    problem[key] = metadata.pop(key)
            if metadata:
                problem["metadata"] = metadata
        elif detail.Is(_RETRY_INFO):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            problem["retry_after_seconds"] = math.ceil(retry.retry_delay.ToTimedelta().total_seconds())
        elif detail.Is(_BAD_REQUEST):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            problem["errors"] = [
                {
                    "detail": v.description,
                    "pointer": "#/" + v.field.replace(".", "/"),
                    **({"code": v.reason} if v.reason else {}),
                }
                for v in bad.field_violations
            ]
        else:
            others.append(json_format.MessageToDict(detail))
    if others:
        problem["details"] = others
    return problem


def google_to_problem(data: bytes) -> bytes:
    http, status = _status_from_google(data)
    return _dumps(_problem_from_status(http, status))


def _status_from_problem(problem: dict[str, Any]) -> status_pb2.Status:
    http = problem.get("status", 500)
    status = status_pb2.Status(
        code=_CODE_FOR_HTTP.get(http, 2), message=problem.get("detail") or problem.get("title", "")
    )
    metadata = dict(problem.get("metadata", {}))
    for key in ("next_step", "param"):
        if key in problem:
            metadata[key] = problem[key]
    info = error_details_pb2.ErrorInfo(
        reason=problem.get("code", "").upper(), domain=problem.get("domain", ""), metadata=metadata
    )
    status.details.add().Pack(info)
    if "retry_after_seconds" in problem:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.seconds = problem["retry_after_seconds"]
        status.details.add().Pack(retry)
    if "errors" in problem:
        bad = error_details_pb2.BadRequest()
        for error in problem["errors"]:
            field = error.get("field") or error.get("pointer", "#/").removeprefix("#/").replace("/", ".")
            bad.field_violations.add(field=field, description=error.get("detail", ""), reason=error.get("code", ""))
        status.details.add().Pack(bad)
    for detail in problem.get("details", []):
        json_format.ParseDict(detail, status.details.add())
    return status


def problem_to_google(data: bytes) -> bytes:
    problem = json.loads(data)
    return _google(problem.get("status", 500), _status_from_problem(problem))


def status_to_problem(data: bytes) -> bytes:
    status = status_pb2.Status.FromString(data)
    return _dumps(_problem_from_status(_HTTP_FOR_CODE[status.code], status))


def problem_to_status(data: bytes) -> bytes:
    return _status_from_problem(json.loads(data)).SerializeToString(deterministic=True)


# (source dialect, target dialect) -> the user's conversion through json_format.
CONVERSIONS: dict[tuple[str, str], Callable[[bytes], bytes]] = {
    ("google", "status-json"): google_to_status_json,
    ("status-json", "google"): status_json_to_google,
    ("google", "problem"): google_to_problem,
    ("problem", "google"): problem_to_google,
}
# The Status path, where a user reaches for the protobuf classes (json_format only
# for details they do not read themselves).
PROTOBUF: dict[tuple[str, str], Callable[[bytes], bytes]] = {
    ("status", "problem"): status_to_problem,
    ("problem", "status"): problem_to_status,
}


# --------------------------------------------------------------------------- google-api-core


def api_core_response(http_response: bytes) -> Any:
    """A `requests.Response` holding what an HTTP/1.1 response holds, as requests' adapter builds it."""
    import requests
    from requests.structures import CaseInsensitiveDict
    from requests.utils import get_encoding_from_headers

    head, _, body = http_response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    response = requests.Response()
    response.status_code = int(lines[0].split()[1])
    response.reason = lines[0].split(" ", 2)[2]
    response.headers = CaseInsensitiveDict(line.split(": ", 1) for line in lines[1:])
    response.encoding = get_encoding_from_headers(response.headers)
    response._content = body
    response.request = requests.Request("POST", "https://api.example.com/v1/things:run").prepare()
    response.url = response.request.url
    return response


def response_builder() -> Callable[[int, Any, bytes], Any]:
    """A function making a `requests.Response` by hand from a status, header pairs and a
    body: what bench/targets18.py and bench/targets29.py time inside the call, for
    api-core's `from_http_response` and errconv's `from_http` alike (no parsing; the
    request prepared once, here)."""
    import requests
    from requests.structures import CaseInsensitiveDict

    request = requests.Request("POST", "https://api.example.com/v1/things:run").prepare()

    def by_hand(status: int, headers: Any, body: bytes) -> Any:
        r = requests.Response()
        r.status_code = status
        r.headers = CaseInsensitiveDict(headers)
        r._content = body
        r.encoding = "UTF-8"
        r.request = request
        r.url = request.url
        return r

    return by_hand


def from_http_response(response: Any) -> Exception:
    from google.api_core import exceptions

    return exceptions.from_http_response(response)


class _Wire:
    """What http.client reads a response from: a socket's file."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def makefile(self, mode: str) -> Any:
        return io.BytesIO(self._data)


_REQUEST: Any = None
_ADAPTER: Any = None


def api_core_from_bytes(http_response: bytes) -> Exception:
    """`from_http_response` on the Response that requests builds from these bytes.

    The steps of `requests.adapters.HTTPAdapter.send` after the socket: http.client
    parses the head, urllib3 wraps it (its body read when requests asks for the
    content), and `HTTPAdapter.build_response` makes the `requests.Response`.
    """
    global _REQUEST, _ADAPTER
    import http.client

    import requests
    import urllib3
    from google.api_core import exceptions

    if _REQUEST is None:
        _REQUEST = requests.Request("POST", "https://api.example.com/v1/things:run").prepare()
        _ADAPTER = requests.adapters.HTTPAdapter()
    raw = http.client.HTTPResponse(_Wire(http_response), method="POST")  # type: ignore[arg-type]
    raw.begin()
    wrapped = urllib3.HTTPResponse(
        body=raw,
        headers=urllib3.HTTPHeaderDict(raw.headers.items()),
        status=raw.status,
        version=raw.version,
        reason=raw.reason,
        preload_content=False,
        original_response=raw,
        request_method="POST",
        request_url=_REQUEST.url,
    )
    return exceptions.from_http_response(_ADAPTER.build_response(_REQUEST, wrapped))
