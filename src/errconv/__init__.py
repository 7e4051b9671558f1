"""errconv: translate API errors between dialects without losing meaning.

One failure, many dialects: RFC 9457 problem details, google.rpc.Status (protobuf,
proto3 JSON, Google's JSON envelope, gRPC trailers), Stripe error objects and whole
HTTP responses. Every dialect decodes into one `Fault` and encodes out of it; HTTP
and gRPC are seams (`from_http`/`to_http`, `from_grpc`/`to_grpc`) that gateways and
interceptors stand on.

>>> import errconv
>>> body = b'{"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED",'
>>> body += b' "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"}]}}'
>>> fault = errconv.decode(body)
>>> fault.next_step, fault.retry_after_seconds
(<NextStep.WAIT: 'wait'>, 30)
>>> errconv.convert(body, to="stripe")
b'{"error":{"type":"invalid_request_error","message":"slow down","next_step":"wait"}}'

Public submodules: `errconv.details` (the detail types), `errconv.codes` (the code
tables), `errconv.dialects` (the dialect protocol and registry), `errconv.gateway`
(ASGI middleware and framework hooks for the HTTP edge), `errconv.lint`,
`errconv.retry`, `errconv.batch` (many inputs at once, an Arrow column in and out), and the gRPC interceptors `errconv.interceptors` and `errconv.aio`
(grpcio, the `grpc` extra; importing errconv never imports them). Everything else is
private.
"""

import importlib.machinery as _machinery
import typing as _typing

from ._pipeline import api as _api
from ._agent_text import TOOL_CONTRACT, agent_message, with_contract
from ._pipeline.api import convert, decode, detect, encode, losses
from ._catalog import Catalog
from ._exceptions import from_exception
from ._model.errors import ContractError, DecodeError, ErrconvError, FaultError, LossError, UnknownDialectError
from ._model.fault import Basis, Fault, Origin, Violation
from .dialects._trailers import GrpcStatus, from_grpc, to_grpc
from ._pipeline.http import from_http, to_http
from .dialects._responses import HttpResponse
from ._model.limits import Limits
from ._version import __version__
from .codes import Code, NextStep
from .dialects import Dialect, names as dialect_names, register_dialect
from .lint import Finding, lint_body, lint_paths
from .retry import Decision, GuardRefused, RetryPolicy, TerminalGuard

__all__ = [
    "Basis",
    "Catalog",
    "Code",
    "ContractError",
    "Decision",
    "DecodeError",
    "Dialect",
    "ErrconvError",
    "Fault",
    "FaultError",
    "Finding",
    "GrpcStatus",
    "GuardRefused",
    "HttpResponse",
    "Limits",
    "LossError",
    "NextStep",
    "Origin",
    "RetryPolicy",
    "TOOL_CONTRACT",
    "TerminalGuard",
    "UnknownDialectError",
    "Violation",
    "agent_message",
    "convert",
    "decode",
    "detect",
    "dialect_names",
    "encode",
    "from_exception",
    "from_grpc",
    "from_http",
    "lint_body",
    "lint_paths",
    "losses",
    "register_dialect",
    "to_grpc",
    "to_http",
    "with_contract",
]

# The public names defined in private modules say they are errconv's (`errconv.Fault`
# in reprs, tracebacks and pickles, not `errconv._model.fault.Fault`). Names of the
# public submodules (errconv.retry, errconv.lint, errconv.codes, errconv.dialects) keep
# theirs; a compiled function or class may refuse the change, and keeps its own.
for _name in __all__:
    _value = globals()[_name]
    if getattr(_value, "__module__", "").startswith(("errconv._", "errconv.dialects._")):
        try:
            if isinstance(_value, type) and "__annotations__" in vars(_value):
                # Annotations are text (PEP 563), read in the namespace of `__module__`:
                # resolved now, in their own module, so msgspec and typing still can.
                _hints = _typing.get_type_hints(_value)
                _value.__annotations__ = {key: _hints[key] for key in vars(_value)["__annotations__"]}
            _value.__module__ = __name__
        except (AttributeError, TypeError):
            pass
del _name, _value

# Which build runs: True when the hot modules are C extensions compiled by mypyc
# (ERRCONV_COMPILE=1 at install time; setup.py lists them), False for pure Python.
__compiled__: bool = _api.__file__ is not None and _api.__file__.endswith(tuple(_machinery.EXTENSION_SUFFIXES))
