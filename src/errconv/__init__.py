"""errconv: translate API errors between dialects without losing meaning.

One failure, many dialects: RFC 9457 problem details, google.rpc.Status (protobuf,
proto3 JSON, Google's JSON envelope, gRPC trailers), Stripe error objects and raw
HTTP responses. Every dialect decodes into one `Fault` and encodes out of it.

>>> import errconv
>>> body = b'{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED",'
>>> body += b' "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"}]}}'
>>> fault = errconv.decode(body)
>>> fault.next_step, fault.retry_after_seconds
(<NextStep.WAIT: 'wait'>, 30)
>>> errconv.convert(body, to="stripe")
b'{"error":{"type":"invalid_request_error","message":"slow down","next_step":"wait"}}'
"""

from ._api import convert, decode, detect, encode, losses
from ._errors import ContractError, DecodeError, ErrconvError, FaultError, LossError, UnknownDialectError
from .codes import Code, NextStep
from .dialects import DIALECTS
from .fault import Fault, Origin, Violation
from .limits import Limits
from .lint import Finding, lint_body, lint_paths
from .retry import Decision, GuardRefused, RetryPolicy, TerminalGuard

__all__ = [
    "Code",
    "ContractError",
    "DIALECTS",
    "Decision",
    "DecodeError",
    "ErrconvError",
    "Fault",
    "FaultError",
    "Finding",
    "GuardRefused",
    "Limits",
    "LossError",
    "NextStep",
    "Origin",
    "RetryPolicy",
    "TerminalGuard",
    "UnknownDialectError",
    "Violation",
    "convert",
    "decode",
    "detect",
    "encode",
    "lint_body",
    "lint_paths",
    "losses",
]

__version__ = "0.1.0"
