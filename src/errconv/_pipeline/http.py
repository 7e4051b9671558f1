"""HTTP as a seam: `from_http(status, headers, body)` and `to_http(fault, dialect)`.

The public verbs over the `http` dialect's codec (`dialects/http.py`): they take the
error kinds of `edge.py` (an HTTP client's response, a gRPC error, an exception) and,
for `to_http`, negotiate the body's dialect from an Accept value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._model.fault import Fault
from .._model.limits import DEFAULT_LIMITS, Limits
from ..dialects._responses import HttpResponse, read_response, respond
from ..dialects._common import Writing
from .edge import fault_of, upstream_response
from .negotiate import body_dialect as _body_dialect, negotiate

__all__ = ["from_http", "to_http"]


def to_http(
    error: Any,
    dialect: str = "problem",
    *,
    accept: str | None = None,
    json_dialect: str | None = None,
    instance: str | None = None,
    keep_debug: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> HttpResponse:
    """The HTTP response for an error, with a body in `dialect` (any registered dialect
    with a media type: problem, google, status-json, stripe, ...).

    `error` is a Fault, a FaultError, a gRPC error (anything with callable `code()`,
    `details()` and `trailing_metadata()`: `grpc.RpcError`, `grpc.aio.AioRpcError`),
    an upstream HTTP response (`httpx.Response`, `requests.Response`, an exception
    carrying one as `.response`, or a `(status, headers, body)` tuple), or any other
    exception, which answers 500 INTERNAL, give_up, with none of its text.

    With `accept` (the request's Accept value) the dialect is negotiated:
    `application/problem+json` is problem, `application/json` is `json_dialect`
    (default: `dialect` when it is a JSON dialect, else problem), `*/*` is `dialect`,
    q-values are honoured (`q=0` excludes), and when nothing is acceptable the answer
    is problem+json anyway, never a 406; `Vary: Accept` says the choice was made.
    `instance` fills the RFC 9457 member for a fault that has none of its own.

    An outer boundary: DebugInfo is dropped (typed, kept raw, or nested in extension
    members) unless `keep_debug`. A wait says its delay twice, in the body and in
    `Retry-After`, from one number.

    >>> import errconv
    >>> response = errconv.to_http(errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=30))
    >>> response.status, response.headers
    (503, [('Content-Type', 'application/problem+json'), ('Retry-After', '30'), ('x-should-retry', 'true')])
    """
    if accept is None:
        body_dialect = _body_dialect(dialect)
    else:
        choice = negotiate(accept, dialect, json_dialect)  # checks both names too
        body_dialect = choice.dialect
    if isinstance(error, Fault):
        fault = error
    else:
        fault = fault_of(error, limits)
    if instance is not None and fault.instance is None:
        fault = fault.replace(instance=instance)
    response = respond(fault, body_dialect, Writing(limits, keep_debug=keep_debug, in_http=True))
    if accept is not None:
        response.headers[0] = ("Content-Type", choice.content_type)  # respond() writes it first
        response.headers.append(("Vary", "Accept"))
    return response


def from_http(
    status: int | Any,
    headers: Any = (),
    body: Any = b"",  # bytes or text; Any, so that a compiled build checks it here, not at the call
    *,
    limits: Limits = DEFAULT_LIMITS,
    now: float | Callable[[], float] | None = None,
    trace: bool = False,
) -> Fault:
    """The Fault of an HTTP error response, from its status, headers and body, or
    from an HTTP client's response as the one argument (`httpx.Response`,
    `requests.Response`: anything with `status_code`, `headers` and `content`).

    `headers` may be (name, value) pairs, a mapping, or an HTTP client's headers
    object. The body is read as the dialect the registry picks (its media type first,
    then the strongest shape); a body no dialect recognises is read from the status
    and headers. `now` (epoch seconds, or a callable giving them) is the clock an
    HTTP-date Retry-After is measured against when there is no Date header.

    >>> import errconv
    >>> fault = errconv.from_http(429, [("Retry-After", "30")], b"Too many requests")
    >>> fault.next_step, fault.retry_after_seconds, fault.origin.body
    (<NextStep.WAIT: 'wait'>, 30, 'vague')
    """
    if not isinstance(status, int):
        found = upstream_response(status)
        if found is not None:
            status, headers, body = found
    return read_response(status, headers, body, limits=limits, now=now, trace=trace)
