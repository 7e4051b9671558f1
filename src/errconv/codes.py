"""Status code tables and the rules that pick a next step.

Three tables, each written once:

- `HTTP_FOR_CODE`: google.rpc.Code -> HTTP status, as in google/rpc/code.proto
  (identical in grpc-gateway >= 2.13, Envoy and google-api-core).
- `CODE_FOR_HTTP`: HTTP status -> google.rpc.Code for an *application error* that
  carries no gRPC code. The inverse of code.proto where it is one-to-one, and a
  documented choice where it is not.
- `TRANSPORT_CODE_FOR_HTTP`: gRPC's own table (grpc/grpc doc/http-grpc-status-mapping.md)
  for a gRPC client that received an HTTP response *without* grpc-status. It is not
  symmetric and must never be used to pick an HTTP status.
"""

from __future__ import annotations

import enum

__all__ = [
    "Code",
    "CODE_FOR_HTTP",
    "HTTP_FOR_CODE",
    "NextStep",
    "REASON_PHRASES",
    "TRANSPORT_CODE_FOR_HTTP",
    "code_for_http",
    "http_for_code",
    "infer_next_step",
    "reason_phrase",
    "transport_code_for_http",
]


class Code(enum.IntEnum):
    """google.rpc.Code. Members compare equal to their numbers."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16


class NextStep(enum.StrEnum):
    """The caller's three moves. Members compare equal to their strings."""

    FIX_REQUEST = "fix_request"
    WAIT = "wait"
    GIVE_UP = "give_up"


HTTP_FOR_CODE: dict[int, int] = {
    Code.OK: 200,
    Code.CANCELLED: 499,  # nginx's "Client Closed Request"; not an IANA code
    Code.UNKNOWN: 500,
    Code.INVALID_ARGUMENT: 400,
    Code.DEADLINE_EXCEEDED: 504,
    Code.NOT_FOUND: 404,
    Code.ALREADY_EXISTS: 409,
    Code.PERMISSION_DENIED: 403,
    Code.RESOURCE_EXHAUSTED: 429,
    Code.FAILED_PRECONDITION: 400,  # deliberately not 412, as in code.proto and grpc-gateway
    Code.ABORTED: 409,
    Code.OUT_OF_RANGE: 400,
    Code.UNIMPLEMENTED: 501,
    Code.INTERNAL: 500,
    Code.UNAVAILABLE: 503,
    Code.DATA_LOSS: 500,
    Code.UNAUTHENTICATED: 401,
}

# Values typed Code, not int, here and in what returns them: in the compiled build
# (mypyc) a value typed int is a C integer, and the Code it was would come back plain.
CODE_FOR_HTTP: dict[int, Code] = {
    200: Code.OK,
    400: Code.INVALID_ARGUMENT,  # also FAILED_PRECONDITION or OUT_OF_RANGE; the body must say
    401: Code.UNAUTHENTICATED,
    403: Code.PERMISSION_DENIED,
    404: Code.NOT_FOUND,
    405: Code.UNIMPLEMENTED,  # the method is not served here, as grpc-gateway's routing errors say
    408: Code.DEADLINE_EXCEEDED,  # the server gave up waiting: a timeout, not a bad argument
    409: Code.ABORTED,  # also ALREADY_EXISTS; a conflict is retried at a higher level unless the body says otherwise
    410: Code.NOT_FOUND,
    412: Code.FAILED_PRECONDITION,
    # The request itself is too big or in a form the server does not take (RFC 9110 15.5.14,
    # 15.5.15, 15.5.16; RFC 6585 5): a smaller or re-encoded request succeeds, as a bad
    # argument's does; the class's FAILED_PRECONDITION would say no request can.
    413: Code.INVALID_ARGUMENT,
    414: Code.INVALID_ARGUMENT,
    415: Code.INVALID_ARGUMENT,
    416: Code.OUT_OF_RANGE,
    422: Code.INVALID_ARGUMENT,  # the arguments parsed but are not acceptable
    429: Code.RESOURCE_EXHAUSTED,
    431: Code.INVALID_ARGUMENT,  # headers too large (RFC 6585 5): as 413 above
    499: Code.CANCELLED,
    500: Code.INTERNAL,  # also UNKNOWN or DATA_LOSS
    501: Code.UNIMPLEMENTED,
    502: Code.UNAVAILABLE,  # an upstream failed; gRPC's transport table agrees, and it clears with time
    503: Code.UNAVAILABLE,
    504: Code.DEADLINE_EXCEEDED,
    529: Code.UNAVAILABLE,  # not IANA: Anthropic's "overloaded" (overloaded_error), capacity that clears, not a bug
}

TRANSPORT_CODE_FOR_HTTP: dict[int, Code] = {
    400: Code.INTERNAL,
    401: Code.UNAUTHENTICATED,
    403: Code.PERMISSION_DENIED,
    404: Code.UNIMPLEMENTED,
    429: Code.UNAVAILABLE,
    431: Code.INTERNAL,
    502: Code.UNAVAILABLE,
    503: Code.UNAVAILABLE,
    504: Code.UNAVAILABLE,
}

# RFC 9110 section 15 phrases (plus 429 from RFC 6585 and 499 from nginx), fixed here
# because http.HTTPStatus changed its phrases in Python 3.13.
REASON_PHRASES: dict[int, str] = {
    200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
    301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
    307: "Temporary Redirect", 308: "Permanent Redirect",
    400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
    404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
    407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
    411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
    414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
    417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content",
    424: "Failed Dependency", 426: "Upgrade Required", 428: "Precondition Required",
    429: "Too Many Requests", 431: "Request Header Fields Too Large",
    451: "Unavailable For Legal Reasons", 499: "Client Closed Request",
    500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
    503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
}  # fmt: skip


def http_for_code(code: int) -> int:
    """The HTTP status for a google.rpc.Code (code.proto); 500 for a number outside the enum."""
    return HTTP_FOR_CODE.get(code, 500)


def code_for_http(status: int) -> Code:
    """The google.rpc.Code for an application error with this HTTP status and no gRPC code.

    Statuses outside the table fall back by class: other 4xx FAILED_PRECONDITION,
    other 5xx INTERNAL, anything else UNKNOWN.

    >>> code_for_http(404) == Code.NOT_FOUND
    True
    """
    found = CODE_FOR_HTTP.get(status)
    if found is not None:
        return found
    if 400 <= status < 500:
        return Code.FAILED_PRECONDITION
    if 500 <= status < 600:
        return Code.INTERNAL
    return Code.UNKNOWN


def transport_code_for_http(status: int) -> Code:
    """gRPC's code for an HTTP response that carried no grpc-status (all others UNKNOWN)."""
    return TRANSPORT_CODE_FOR_HTTP.get(status, Code.UNKNOWN)


def reason_phrase(status: int) -> str:
    """The RFC 9110 reason phrase for `status`, or a generic one for its class."""
    phrase = REASON_PHRASES.get(status)
    if phrase is not None:
        return phrase
    return {4: "Client Error", 5: "Server Error"}.get(status // 100, "Unknown")


# Names by number and numbers by name, for the hot paths: calling the Enum costs ten dict lookups.
_NAME_OF_CODE: dict[int, str] = {c.value: c.name for c in Code}
CODE_BY_NAME: dict[str, int] = {c.name: c.value for c in Code}


def code_name(code: int) -> str:
    """`Code.NOT_FOUND.name` for a known number, else UNKNOWN."""
    try:
        return _NAME_OF_CODE.get(code, "UNKNOWN")
    except TypeError:  # unhashable, so no code
        return "UNKNOWN"


_WAIT_CODES = frozenset(
    {Code.UNAVAILABLE, Code.RESOURCE_EXHAUSTED, Code.ABORTED, Code.DEADLINE_EXCEEDED}
)
_FIX_CODES = frozenset({Code.INVALID_ARGUMENT, Code.OUT_OF_RANGE})
_FIX_IF_PARAM_CODES = frozenset({Code.FAILED_PRECONDITION, Code.NOT_FOUND})


def infer_next_step(
    grpc_code: int,
    status: int,
    *,
    param: str | None = None,
    wait_hint: str | None = None,
    no_retry_hint: str | None = None,
) -> tuple[NextStep, str]:
    """Classify a failure whose body does not state its next step.

    Returns the step and where it came from. The ladder, in order:

    1. `wait_hint` names a wire signal that says wait (RetryInfo, Retry-After,
       pushback >= 0, a spent rate limit, Stripe-Should-Retry: true);
    2. by code, following AIP-194: UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED and
       DEADLINE_EXCEEDED wait (unless `no_retry_hint`, e.g. Stripe-Should-Retry:
       false or a negative pushback, forbids it); INVALID_ARGUMENT, OUT_OF_RANGE and
       422 fix the request; FAILED_PRECONDITION, NOT_FOUND and 402 fix the request
       when a parameter is named and give up otherwise; everything else gives up,
       because a bug does not clear with time.

    >>> infer_next_step(Code.UNAVAILABLE, 503)
    (<NextStep.WAIT: 'wait'>, 'inferred from UNAVAILABLE')
    """
    if wait_hint is not None:
        return NextStep.WAIT, f"inferred from {wait_hint}"
    name = code_name(grpc_code)
    if grpc_code in _WAIT_CODES:
        if no_retry_hint is not None:
            return NextStep.GIVE_UP, f"inferred from {no_retry_hint}"
        return NextStep.WAIT, f"inferred from {name}"
    if grpc_code in _FIX_CODES or status == 422:
        return NextStep.FIX_REQUEST, f"inferred from {name if status != 422 else 'HTTP 422'}"
    if grpc_code in _FIX_IF_PARAM_CODES or status == 402:
        source = name if status != 402 else "HTTP 402"
        if param:
            return NextStep.FIX_REQUEST, f"inferred from {source} with a named parameter"
        return NextStep.GIVE_UP, f"inferred from {source} without a named parameter"
    return NextStep.GIVE_UP, f"inferred from {name}"


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
