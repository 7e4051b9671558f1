"""`from_exception`: any exception a client library raises, read into a Fault.

A tool that wraps a client library lets whatever it raises propagate. This module
reads those exceptions by duck typing, without importing any of the libraries, and
hands what they carry (status, headers, body; gRPC code, message, trailers) to the
seams `from_http` and `from_grpc`, so everything those know applies:

- `errconv.FaultError`: its fault;
- a gRPC error (`grpc.RpcError` as grpcio raises it, `grpc.aio.AioRpcError`):
  `code()`, `details()`, `trailing_metadata()`;
- google-api-core's `GoogleAPICallError`: its HTTP response or gRPC call, else its
  code, message, reason, domain, metadata and details as Google's JSON envelope;
- botocore's `ClientError`: `response["Error"]` and `ResponseMetadata` as an AWS JSON
  error (so the throttling codes and `x-amz-retry-after` apply);
- stripe's `StripeError`: `http_status`, `headers`, `http_body`/`json_body`;
- an exception carrying an HTTP response as `.response` (httpx, requests, openai,
  anthropic, azure-core, slack_sdk);
- an exception carrying a status itself (`status`, `status_code` or `code`) with
  `headers` and perhaps a body (aiohttp's `ClientResponseError`, the kubernetes
  client's `ApiException`, PyGithub's `GithubException`, `urllib.error.HTTPError`);
- timeouts and connection failures, built-in or a client's (by class name): a wait
  with no stated delay;
- a wrapper none of the above reads: its `__cause__` (or an exception group's first
  exception), read the same way;
- anything else: an internal give_up whose text names only the exception's class.

No reader ever raises: an attribute that is missing, raises, or holds something
unreadable (a huge or non-UTF-8 body) makes that reader step down to what it can
still read (status and headers, then the status alone), then to the next reader.

The exception's own message and the request's URL are never read. A fault read from a
response has credentials redacted from its text (a server that echoes a key or a
password), since it is on its way to a model; a FaultError's fault is returned as built.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ._agent_text import scrub_fault
from ._model.errors import FaultError
from ._model.fault import Fault, Origin
from ._pipeline.edge import rpc_fault, upstream_fault
from ._model.limits import DEFAULT_LIMITS, Limits
from .codes import Code, NextStep

__all__ = ["from_exception"]

# How many wrappers deep __cause__ (and urllib's URLError.reason) are followed.
_MAX_DEPTH = 8

# Client exception classes, by name anywhere in the class's MRO (the libraries are not
# imported). A request the client itself refused to send is a bug, not a transient:
_BUG_NAMES = frozenset(
    {
        "UnsupportedProtocol",  # httpx: no scheme handler
        "LocalProtocolError",  # httpx/h11: we broke the protocol
        "InvalidURL",  # httpx, requests
        "MissingSchema",  # requests
        "InvalidSchema",  # requests
        "InvalidHeader",  # requests
        "URLRequired",  # requests
        "TooManyRedirects",  # httpx, requests: a loop does not clear with time
        "InvalidURLError",  # aiohttp
        "ParamValidationError",  # botocore: refused before sending
    }
)
# For a Stripe exception made without its body: the error type Stripe sends with the
# responses stripe-python raises that class for (stripe/_api_requestor.py picks CardError
# for a 402, IdempotencyError for that type, InvalidRequestError for other 400s and
# 404s, APIError for the statuses no other class takes). The type makes the body read as
# Stripe's; a class not listed here adds none.
_STRIPE_TYPES = {
    "CardError": "card_error",
    "IdempotencyError": "idempotency_error",
    "InvalidRequestError": "invalid_request_error",
    "APIError": "api_error",
}
_TIMEOUT_NAME = re.compile(r"Timeout|TimedOut")
_CONNECTION_NAMES = frozenset(
    {
        "ConnectionError",  # requests, botocore (and the built-in family, by isinstance)
        "ConnectError",  # httpx
        "NetworkError",  # httpx: connect, read, write, close
        "TransportError",  # httpx
        "RemoteProtocolError",  # httpx: the server broke off
        "ProxyError",  # httpx, requests
        "ChunkedEncodingError",  # requests: the body broke off
        "APIConnectionError",  # openai, anthropic, stripe
        "ClientConnectionError",  # aiohttp (ClientConnectorError, ServerDisconnectedError, ...)
        "ClientOSError",  # aiohttp
        "ClientPayloadError",  # aiohttp: the body broke off
        "ServiceRequestError",  # azure-core: the request was not sent
        "ServiceResponseError",  # azure-core: no response came
        "HTTPClientError",  # botocore: EndpointConnectionError, ConnectionClosedError, ...
        "NewConnectionError",  # urllib3
        "ProtocolError",  # urllib3: connection aborted
        "MaxRetryError",  # urllib3: the pool's retries ran out on connecting
    }
)


def from_exception(exc: BaseException | Fault, *, limits: Limits = DEFAULT_LIMITS) -> Fault:
    """The Fault of an exception a tool or client raised: what the caller (a model, an
    agent loop) should do next, as the response behind the exception stated it.

    Reads, without importing them, the exceptions of httpx, requests, aiohttp,
    urllib, grpcio (sync and aio), google-api-core, stripe, openai, anthropic,
    botocore, azure-core, the kubernetes client, slack_sdk and PyGithub, through
    `from_http` and `from_grpc`. A `FaultError` gives its fault; timeouts and
    connection failures are waits with no stated delay; any other exception (and a
    wrapper whose `__cause__` is none of these) is an internal give_up whose text is
    only the exception's class name, never its message, which may hold secrets.
    Credentials in the text a response carried (URL query strings, `password=...`,
    bearer tokens, API keys) are redacted from the fault. Never raises for an
    exception, however it is built.

    >>> import errconv
    >>> errconv.from_exception(TimeoutError("read timed out")).next_step
    <NextStep.WAIT: 'wait'>
    >>> fault = errconv.from_exception(RuntimeError("password=hunter2"))
    >>> fault.next_step, fault.detail
    (<NextStep.GIVE_UP: 'give_up'>, 'RuntimeError')
    """
    # type(), not isinstance(): isinstance falls back to `__class__`, which a hostile
    # exception can make raise.
    if type(exc) is Fault:
        return exc
    error: Any = exc
    if not issubclass(type(error), BaseException):
        raise TypeError(f"from_exception takes an exception or a Fault, got {type(error).__name__}")
    try:
        seen: set[int] = set()
        current: BaseException | None = error
        for _ in range(_MAX_DEPTH):
            if current is None or id(current) in seen:
                break
            seen.add(id(current))
            fault = _read(current, limits)
            if fault is not None:
                return fault
            current = _inner(current)
    except Exception:  # whatever got past the readers' own guards: still a Fault
        pass
    return _internal(error)


def _read(exc: BaseException, limits: Limits) -> Fault | None:
    for reader in _READERS:
        try:
            fault = reader(exc, limits)
        except Exception:  # a hostile attribute got past the guards: the next reader may do better
            fault = None
        if fault is not None:
            # A fault read from an exception is on its way to a model (a tool result):
            # a server's echo of a key or a password in its body goes no further.
            return _noted(fault if reader is _fault_error else scrub_fault(fault), exc)
    return None


def _inner(exc: BaseException) -> BaseException | None:
    """The exception a wrapper wraps: its `__cause__`, urllib's `URLError.reason`,
    google-api-core's `RetryError.cause`, or the first exception of an exception group (anyio and asyncio task groups, which the
    MCP SDK runs tools in, raise one around a single failure)."""
    if issubclass(type(exc), BaseExceptionGroup):
        group = _attr(exc, "exceptions")
        if isinstance(group, tuple) and group and issubclass(type(group[0]), BaseException):
            first: BaseException = group[0]
            return first
    try:
        cause = exc.__cause__
    except Exception:
        cause = None
    if issubclass(type(cause), BaseException):
        return cause
    for name in ("reason", "cause"):  # urllib's URLError; google-api-core's RetryError
        inner = _attr(exc, name)
        if issubclass(type(inner), BaseException):
            found: BaseException = inner
            return found
    return None


# --------------------------------------------------------------------------- safe access


def _attr(obj: Any, name: str) -> Any:
    """`obj.name`, or None when it is missing or raises (a hostile property)."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None


def _call(obj: Any, name: str, *args: Any) -> Any:
    method = _attr(obj, name)
    if not callable(method):
        return None
    try:
        return method(*args)
    except Exception:
        return None


def _status(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return int(value) if 100 <= value <= 599 else None


def _class_names(exc: BaseException) -> list[str]:
    try:
        return [n if isinstance(n := cls.__name__, str) else "" for cls in type(exc).__mro__]
    except Exception:  # a metaclass with a hostile __name__
        return []


def class_name(exc: BaseException) -> str:
    """The exception's class name, cut to identifier characters (a class can be made
    at run time with any name at all)."""
    try:
        name = type(exc).__name__
    except Exception:
        name = ""
    # A class can be made at run time with any name at all ("password=hunter2"): only
    # a plain identifier is told.
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii() or len(name) > 64:
        return "Exception"
    return name


def _noted(fault: Fault, exc: BaseException) -> Fault:
    origin = fault.origin
    if origin is None or issubclass(type(exc), FaultError):
        return fault  # a fault the application built: as it was built
    note = f"read from {class_name(exc)}"
    return fault.replace(origin=msgspec.structs.replace(origin, notes=(*origin.notes, note)))


# --------------------------------------------------------------------------- through the seams


def _body_bytes(body: Any, limits: Limits) -> bytes:
    """A body as bytes: bytes and text as they are, a parsed JSON value re-encoded;
    nothing (b"") for anything else or anything over the limit."""
    if body is None:
        return b""
    if isinstance(body, (bytes, bytearray, memoryview)):
        data = bytes(body[: limits.max_bytes + 1])
    elif isinstance(body, str):
        if len(body) > limits.max_bytes:
            return b""
        data = body.encode("utf-8", "replace")
    elif isinstance(body, (dict, list)):
        try:
            data = json.dumps(body, ensure_ascii=False, default=str).encode("utf-8", "replace")
        except Exception:  # a cycle, a hostile __str__
            return b""
    else:
        return b""
    return data if len(data) <= limits.max_bytes else b""


# More header fields than any real response has: a hostile headers object stops here.
_MAX_HEADERS = 512


def _header_pairs(headers: Any) -> list[tuple[str, str]]:
    """Any client's headers as (name, value) pairs: a mapping, a multi-dict, an
    `email.message.Message` (urllib), or pairs already. Values that are not text are
    skipped, never rendered (a hostile `__str__`)."""
    if headers is None:
        return []
    items = _call(headers, "items")
    source = items if items is not None else headers
    pairs: list[tuple[str, str]] = []
    try:
        for n, item in enumerate(source):
            if n >= _MAX_HEADERS:
                break
            if not (isinstance(item, (tuple, list)) and len(item) == 2):
                continue
            name, value = item
            if isinstance(name, bytes):
                name = name.decode("latin-1")
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            if isinstance(name, str) and isinstance(value, str):
                pairs.append((name, value))
    except Exception:  # an iterator that raises part way: what was read so far
        pass
    return pairs


def _http(status: int, headers: Any, body: bytes, limits: Limits) -> Fault:
    """`from_http`, stepping down to the headers alone, then the status alone, when
    what the exception carries is unreadable (`edge.upstream_fault`, the gateway's reader too)."""
    return upstream_fault(status, _header_pairs(headers), body, limits, hostile=True)


def _grpc(code: Any, details: Any, metadata: Any, limits: Limits) -> Fault:
    return rpc_fault(code, details, metadata, limits, hostile=True)


def _response(resp: Any, limits: Limits) -> Fault | None:
    """An HTTP client's response object (httpx, requests, azure-core, slack_sdk,
    aiohttp, urllib3): status, headers and whatever body it holds, read."""
    if resp is None or isinstance(resp, (BaseException, str, bytes, Mapping)):
        return None
    status = _status(_attr(resp, "status_code"))
    if status is None:
        status = _status(_attr(resp, "status"))
    if status is None:
        return None
    headers = _attr(resp, "headers")
    return _http(status, headers, _response_body(resp, limits), limits)


def _response_body(resp: Any, limits: Limits) -> bytes:
    if _attr(resp, "_content") is False and _attr(resp, "raw") is not None:
        # requests with stream=True, the body not read: `.content` would download all
        # of it, however large; the status and headers are read without it, as for
        # httpx's ResponseNotRead.
        return b""
    for name in ("content", "data", "body", "text", "_body"):
        try:
            value = getattr(resp, name)
        except AttributeError:
            continue
        except Exception:  # a streamed response nobody read (httpx.ResponseNotRead)
            continue
        if callable(value):
            if name != "body":
                continue  # aiohttp's text() is a coroutine: nothing here awaits
            try:
                value = value()  # azure-core's body(): the bytes, read already
            except Exception:
                continue
            if inspect.isawaitable(value):
                close = getattr(value, "close", None)
                if callable(close):
                    close()  # never awaited: closed, so that it does not warn
                continue
        body = _body_bytes(value, limits)
        if body:
            return body
    return b""


# --------------------------------------------------------------------------- readers


def _fault_error(exc: BaseException, limits: Limits) -> Fault | None:
    if issubclass(type(exc), FaultError):
        fault = _attr(exc, "fault")
        return fault if issubclass(type(fault), Fault) else None
    return None


def _rpc(exc: BaseException, limits: Limits) -> Fault | None:
    # Looked up on the class, so that a deprecated property (aiohttp's `code`) is not
    # read and does not warn.
    if not all(callable(_attr(type(exc), name)) for name in ("code", "details", "trailing_metadata")):
        return None
    code = _call(exc, "code")
    if code is None:
        return None
    return _grpc(code, _call(exc, "details"), _call(exc, "trailing_metadata"), limits)


def _google(exc: BaseException, limits: Limits) -> Fault | None:
    """google-api-core's GoogleAPICallError: `code` is the HTTP status, `grpc_status_code`
    the gRPC one; `response` the requests.Response or grpc call it came from."""
    if not hasattr(type(exc), "grpc_status_code"):
        return None
    status = _status(_attr(exc, "code"))
    response = _attr(exc, "response")
    if response is not None:
        fault = _response(response, limits)
        if fault is None and not isinstance(response, Mapping):
            fault = _rpc(response, limits) if isinstance(response, BaseException) or callable(_attr(response, "code")) else None
        if fault is not None:
            return fault
    grpc_code = _attr(exc, "grpc_status_code")
    number = _attr(grpc_code, "value")
    if isinstance(number, tuple) and number and isinstance(number[0], int):
        grpc_number: int | None = number[0]
    else:
        grpc_number = None
    if status is None and grpc_number is None:
        return None
    if status is None:
        status = 500
    message = _attr(exc, "message")
    error: dict[str, Any] = {"code": status, "message": message if isinstance(message, str) else ""}
    if grpc_number is not None:
        try:
            error["status"] = Code(grpc_number).name
        except ValueError:
            pass
    details = [d for d in (_detail_json(item) for item in (_attr(exc, "details") or ())[:64]) if d is not None]
    reason, domain, metadata = _attr(exc, "reason"), _attr(exc, "domain"), _attr(exc, "metadata")
    if isinstance(reason, str) and reason and not any(str(d.get("@type", "")).endswith("ErrorInfo") for d in details):
        info: dict[str, Any] = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason}
        if isinstance(domain, str) and domain:
            info["domain"] = domain
        if isinstance(metadata, Mapping):
            info["metadata"] = {str(k): str(v) for k, v in list(metadata.items())[:64]}
        details.insert(0, info)
    if details:
        error["details"] = details
    body = _body_bytes({"error": error}, limits)
    return _http(status, [("content-type", "application/json")], body, limits)


def _detail_json(item: Any) -> dict[str, Any] | None:
    """One detail of a GoogleAPICallError as proto3 JSON with its `@type`: a dict as
    the HTTP transport parsed it, or a protobuf message as the gRPC one unpacked it."""
    if isinstance(item, dict):
        return item if isinstance(item.get("@type"), str) else None
    descriptor = _attr(item, "DESCRIPTOR")
    full_name = _attr(descriptor, "full_name")
    if not isinstance(full_name, str) or not callable(_attr(item, "ListFields")):
        return None
    from google.protobuf import json_format  # errconv's own dependency, not a client's

    try:
        value = json_format.MessageToDict(item)
    except Exception:
        return None
    return {"@type": f"type.googleapis.com/{full_name}", **value}


def _botocore(exc: BaseException, limits: Limits) -> Fault | None:
    """botocore's ClientError: `response` is the parsed error as a dict."""
    response = _attr(exc, "response")
    if not isinstance(response, Mapping) or not ("Error" in response or "ResponseMetadata" in response):
        return None
    error = response.get("Error")
    error = error if isinstance(error, Mapping) else {}
    meta = response.get("ResponseMetadata")
    meta = meta if isinstance(meta, Mapping) else {}
    code, message = error.get("Code"), error.get("Message")
    body: dict[str, Any] = {}
    if isinstance(code, str) and code:
        body["__type"] = code
    if isinstance(message, str) and message:
        body["message"] = message
    raw = _body_bytes(body, limits) if body else b""
    status = _status(meta.get("HTTPStatusCode"))
    if status is None:
        if not raw:
            return None
        # No response metadata (a ClientError made by hand, a stub): the code alone.
        from ._pipeline.api import decode

        try:
            return decode(raw, "aws", limits=limits)
        except Exception:
            return None
    headers = meta.get("HTTPHeaders")
    pairs: list[tuple[str, str]] = []
    if isinstance(headers, Mapping):
        # The body is rewritten as AWS JSON, whatever the service sent (XML for Query).
        pairs = [(str(k), str(v)) for k, v in list(headers.items())[:256] if str(k).lower() != "content-type"]
    if raw:
        pairs.append(("content-type", "application/x-amz-json-1.1"))
    return _http(status, pairs, raw, limits)


def _stripe(exc: BaseException, limits: Limits) -> Fault | None:
    if not (hasattr(type(exc), "http_status") or hasattr(exc, "http_status")) or not hasattr(exc, "json_body"):
        return None
    status = _status(_attr(exc, "http_status"))
    if status is None:
        return None  # APIConnectionError and the like: no response; the transport reader names it
    body = _body_bytes(_attr(exc, "http_body"), limits) or _body_bytes(_attr(exc, "json_body"), limits)
    if not body:
        # Made by hand (a test double, a wrapper's re-raise): what the exception states,
        # as Stripe would have sent it; nothing is invented (no `type`).
        error = {name: value for name in ("code", "param", "user_message") if isinstance(value := _attr(exc, name), str)}
        if "user_message" in error:
            error["message"] = error.pop("user_message")
        kind = next((_STRIPE_TYPES[n] for n in _class_names(exc) if n in _STRIPE_TYPES), None)
        if kind is not None:
            error = {"type": kind, **error}
        if "code" in error or "param" in error:
            body = _body_bytes({"error": error}, limits)
    headers = _attr(exc, "headers")
    pairs: Any = headers if isinstance(headers, Mapping) else ()
    if isinstance(headers, Mapping) and not any(str(k).lower() == "content-type" for k in headers):
        pairs = [*((str(k), str(v)) for k, v in list(headers.items())[:256]), ("content-type", "application/json")]
    return _http(status, pairs, body, limits)


def _carried_response(exc: BaseException, limits: Limits) -> Fault | None:
    return _response(_attr(exc, "response"), limits)


def _own_status(exc: BaseException, limits: Limits) -> Fault | None:
    """An exception that is its own response: aiohttp's ClientResponseError (status,
    headers, no body), kubernetes' ApiException (status, headers, body), PyGithub's
    GithubException (status, headers, data), urllib's HTTPError (code, headers, read())."""
    status = _status(_attr(exc, "status_code"))
    if status is None:
        status = _status(_attr(exc, "status"))
    # `code` only where there is no `status` at all: beside one it is an alias at best,
    # and aiohttp's warns as it is read (a status past 599 got this far).
    if status is None and hasattr(exc, "headers") and _attr(exc, "status") is None:
        status = _status(_attr(exc, "code"))
    if status is None:
        return None
    headers = _attr(exc, "headers")
    body = b""
    for name in ("body", "data"):
        body = _body_bytes(_attr(exc, name), limits)
        if body:
            break
    if not body and callable(_attr(exc, "read")) and _attr(exc, "fp") is not None:
        body = _read_once(exc, limits)
    return _http(status, headers, body, limits)


# Where _read_once keeps what it read from an exception's stream.
_READ = "_errconv_read"


def _read_once(exc: BaseException, limits: Limits) -> bytes:
    """urllib.error.HTTPError's body, still unread in its stream: at most the limit is
    read, once. What was read is kept on the exception, so that a second reading (an
    adapter's guard, a retry hook, a log) sees the same body rather than the rest of
    the stream, which begins wherever the first read stopped (mid-credential, say)."""
    kept = _attr(exc, _READ)
    if not (isinstance(kept, tuple) and len(kept) == 2):
        data = _call(exc, "read", limits.max_bytes + 1)
        data = bytes(data) if isinstance(data, (bytes, bytearray)) else b""
        kept = (data, len(data) <= limits.max_bytes)  # whether it is the whole body
        try:
            setattr(exc, _READ, kept)
        except Exception:  # an exception that takes no attributes: read once anyway
            pass
    data, whole = kept
    return _body_bytes(data, limits) if whole else b""


def _transport(exc: BaseException, limits: Limits) -> Fault | None:
    """A timeout or a connection failure: the call may work once the network or the
    server is back, and nothing says when (no delay is stated)."""
    names = _class_names(exc)
    if any(name in _BUG_NAMES for name in names):
        return None
    name = class_name(exc)
    if issubclass(type(exc), TimeoutError) or any(_TIMEOUT_NAME.search(n) for n in names):
        code = Code.DEADLINE_EXCEEDED
    elif issubclass(type(exc), ConnectionError) or any(n in _CONNECTION_NAMES for n in names):
        code = Code.UNAVAILABLE
    else:
        return None
    return Fault(
        status=504 if code is Code.DEADLINE_EXCEEDED else 503,
        grpc_code=code,
        detail=name,
        next_step=NextStep.WAIT,
        origin=Origin(dialect="exception", next_step=f"inferred from {name}", inferred=("grpc_code", "next_step")),
    )


_READERS = (_fault_error, _rpc, _google, _botocore, _stripe, _carried_response, _own_status, _transport)


def _internal(exc: BaseException) -> Fault:
    """A bug, as far as the caller can tell: give_up, and only the class name."""
    name = class_name(exc)
    return Fault(
        status=500,
        grpc_code=Code.INTERNAL,
        title="Internal error",
        detail=name,
        next_step=NextStep.GIVE_UP,
        origin=Origin(dialect="exception", next_step="inferred from an unhandled exception", inferred=("grpc_code", "next_step")),
    )
