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

import importlib as _importlib
import sys as _sys
import typing as _typing

from ._version import __version__

if _typing.TYPE_CHECKING:  # what type checkers see; at run time each name is imported when first asked for
    from ._agent_text import TOOL_CONTRACT, agent_message, with_contract
    from ._catalog import Catalog
    from ._exceptions import from_exception
    from ._model.errors import ContractError, DecodeError, ErrconvError, FaultError, LossError, UnknownDialectError
    from ._model.fault import Basis, Fault, Origin, Violation
    from ._model.limits import Limits
    from ._pipeline.api import convert, decode, detect, encode, losses
    from ._pipeline.http import from_http, to_http
    from .codes import Code, NextStep
    from .dialects import Dialect, register_dialect
    from .dialects import names as dialect_names
    from .dialects._responses import HttpResponse
    from .dialects._trailers import GrpcStatus, from_grpc, to_grpc
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

# Where each public name lives (module, name there): `import errconv` imports none of
# them; `errconv.X` (and `from errconv import X`) imports X's module the first time (PEP 562).
_WHERE: dict[str, tuple[str, str]] = {
    "Basis": ("._model.fault", "Basis"),
    "Catalog": ("._catalog", "Catalog"),
    "Code": (".codes", "Code"),
    "ContractError": ("._model.errors", "ContractError"),
    "Decision": (".retry", "Decision"),
    "DecodeError": ("._model.errors", "DecodeError"),
    "Dialect": (".dialects", "Dialect"),
    "ErrconvError": ("._model.errors", "ErrconvError"),
    "Fault": ("._model.fault", "Fault"),
    "FaultError": ("._model.errors", "FaultError"),
    "Finding": (".lint", "Finding"),
    "GrpcStatus": (".dialects._trailers", "GrpcStatus"),
    "GuardRefused": (".retry", "GuardRefused"),
    "HttpResponse": (".dialects._responses", "HttpResponse"),
    "Limits": ("._model.limits", "Limits"),
    "LossError": ("._model.errors", "LossError"),
    "NextStep": (".codes", "NextStep"),
    "Origin": ("._model.fault", "Origin"),
    "RetryPolicy": (".retry", "RetryPolicy"),
    "TOOL_CONTRACT": ("._agent_text", "TOOL_CONTRACT"),
    "TerminalGuard": (".retry", "TerminalGuard"),
    "UnknownDialectError": ("._model.errors", "UnknownDialectError"),
    "Violation": ("._model.fault", "Violation"),
    "agent_message": ("._agent_text", "agent_message"),
    "convert": ("._pipeline.api", "convert"),
    "decode": ("._pipeline.api", "decode"),
    "detect": ("._pipeline.api", "detect"),
    "dialect_names": (".dialects", "names"),
    "encode": ("._pipeline.api", "encode"),
    "from_exception": ("._exceptions", "from_exception"),
    "from_grpc": (".dialects._trailers", "from_grpc"),
    "from_http": ("._pipeline.http", "from_http"),
    "lint_body": (".lint", "lint_body"),
    "lint_paths": (".lint", "lint_paths"),
    "losses": ("._pipeline.api", "losses"),
    "register_dialect": (".dialects", "register_dialect"),
    "to_grpc": (".dialects._trailers", "to_grpc"),
    "to_http": ("._pipeline.http", "to_http"),
    "with_contract": ("._agent_text", "with_contract"),
}


def _own(value: object) -> None:
    """The public names defined in private modules say they are errconv's (`errconv.Fault`
    in reprs, tracebacks and pickles, not `errconv._model.fault.Fault`). Names of the
    public submodules (errconv.retry, errconv.lint, errconv.codes, errconv.dialects) keep
    theirs; a compiled function or class may refuse the change, and keeps its own."""
    if getattr(value, "__module__", "").startswith(("errconv._", "errconv.dialects._")):
        try:
            if isinstance(value, type) and "__annotations__" in vars(value):
                # Annotations are text (PEP 563), read in the namespace of `__module__`:
                # resolved now, in their own module, so msgspec and typing still can.
                hints = _typing.get_type_hints(value)
                value.__annotations__ = {key: hints[key] for key in vars(value)["__annotations__"]}
            value.__module__ = __name__
        except (AttributeError, TypeError):
            pass


def _settle() -> None:
    """Bind every public name whose module is imported already (so a Fault a decode
    returns pickles as errconv.Fault even before `errconv.Fault` was asked for)."""
    here = globals()
    for name, (module, attr) in _WHERE.items():
        if name not in here:
            found = _sys.modules.get(__name__ + module)
            if found is not None and hasattr(found, attr):
                value = getattr(found, attr)
                _own(value)
                here[name] = value


# Hidden from type checkers: they see the names above, and a misspelt one stays an error.
if not _typing.TYPE_CHECKING:

    def __getattr__(name: str) -> _typing.Any:
        where = _WHERE.get(name)
        if where is not None:
            _importlib.import_module(".dialects", __name__)  # the registry: Fault.build's extension check is its
            module = _importlib.import_module(where[0], __name__)
            value = getattr(module, where[1])
            _own(value)
            globals()[name] = value
            _settle()
            return value
        if name == "__compiled__":
            # Which build runs: True when the hot modules are C extensions compiled by mypyc
            # (ERRCONV_COMPILE=1 at install time; setup.py lists them), False for pure Python.
            import importlib.machinery

            api = _importlib.import_module("._pipeline.api", __name__)
            compiled = api.__file__ is not None and api.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
            globals()[name] = compiled
            return compiled
        if not name.startswith("__"):
            # A submodule (errconv.dialects, errconv.batch, ...) reached as an attribute, as
            # it could be when the face imported the modules behind its names.
            try:
                return _importlib.import_module(f"{__name__}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{__name__}.{name}":
                    raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__compiled__: bool
