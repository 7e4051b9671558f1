"""errconv in OpenTelemetry: the move of every fault on the span where it happened, and counted.

    import errconv.otel
    errconv.otel.instrument()          # every errconv shell in the process records
    errconv.otel.record(fault)         # or one fault, on the current span (or `span=`)

`instrument()` makes every errconv shell in the process (the ASGI gateway and its
framework hooks, the gRPC server and client interceptors, sync and aio, the HTTP client
transports, the agent tool boundary) record each fault it writes or reads on the span
current there (the one OpenTelemetry's own ASGI/FastAPI, gRPC, httpx or requests
instrumentation opened) and count it; `uninstrument()` stops it. A shell built with
`telemetry=True` records whatever the process does.

On the span (names from the semantic conventions where they have one):

- `error.type`: the fault's stable code (when it is a short token with no credential
  in it), else the gRPC code name: low cardinality, never a message;
- the span status, as the HTTP and RPC span conventions say per side: a server span is
  an error for a 5xx (HTTP) or for UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL,
  UNAVAILABLE, DATA_LOSS (gRPC), and left unset for the client's own errors (a 4xx,
  INVALID_ARGUMENT...); a client or tool span is an error for every fault that ends the
  call;
- `errconv.next_step`, `errconv.retry_after_seconds` (a wait's stated delay),
  `errconv.param` (a fix_request's parameter), `errconv.dialect` (what it was read as or
  written in), `errconv.next_step.basis` (whether the move was stated, inferred or assumed),
  `errconv.side` (server, client, tool).

No title, detail, body or header text is recorded unless `instrument(include_text=True)`
(or `record(..., include_text=True)`) asks for it, and then redacted as the text a model
reads is. A fault a client retries past is an `errconv.fault` span event (a later attempt
may succeed); the one that ends the call sets the attributes and the status. A wait given
up for its length and a call the guard refused are span events (`errconv.wait_too_long`,
`errconv.guard_refused`) with `errconv.reason`.

Metrics (from the global meter provider): `errconv.faults` (counter, `{fault}`) by
`error.type`, `errconv.next_step` and `errconv.side`; `errconv.retry_delay` (histogram,
`s`) of stated delays, by `error.type` and `errconv.side`. Both also by where, when the
shell knows it: `http.route` (the gateway), `server.address` (the HTTP clients),
`rpc.method` (the gRPC interceptors, `pkg.Service/Method`).

Needs opentelemetry-api (`pip install 'errconv[otel]'`); the SDK and exporters are the
application's choice. With no SDK installed every call is OpenTelemetry's no-op.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

from ._extras import require

require("opentelemetry.trace", package="opentelemetry-api", extra="otel", what="errconv.otel")
from opentelemetry import metrics, trace  # noqa: E402 (after the check that names the extra)
from opentelemetry.trace import Span, Status, StatusCode  # noqa: E402

from . import _observe
from ._agent_text import redact, scrub
from ._model.fault import Fault
from ._version import __version__
from .codes import NextStep

__all__ = [
    "FAULTS",
    "RETRY_DELAY",
    "attributes",
    "error_type",
    "instrument",
    "instrumented",
    "record",
    "uninstrument",
]

# The instruments' names (semantic conventions' naming rules: a namespace of our own, no
# unit in the name, a counter of discrete things in the plural, no `total`).
FAULTS = "errconv.faults"
RETRY_DELAY = "errconv.retry_delay"

ERROR_TYPE = "error.type"  # semconv registry: error.type (stable)
RESEND_COUNT = "http.request.resend_count"  # semconv: HTTP client spans

# gRPC codes that make a *server* span an error (RPC span conventions); every other
# non-OK code is the caller's doing and leaves a server span's status unset.
_GRPC_SERVER_ERRORS = frozenset((2, 4, 12, 13, 14, 15))  # UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS
# A code or parameter recorded as it is: short, and of the characters codes and field
# paths are made of; anything else (a sentence, a URL) is not an identifier.
_TOKEN = re.compile(r"[A-Za-z0-9_.\-:/\[\]]{1,64}")
_TEXT_LIMIT = 200


def _token(text: str | None) -> str | None:
    """`text` when it is a short identifier holding no credential, else None."""
    if not text or len(text) > 64:
        return None
    return _checked(text)


@functools.lru_cache(maxsize=1024)  # codes and parameters repeat; at most 64 characters each
def _checked(text: str) -> str | None:
    if not _TOKEN.fullmatch(text):
        return None
    return text if scrub(text) == text else None


def error_type(fault: Fault) -> str:
    """The low-cardinality class of `fault`: its code (a short token with no credential),
    else its gRPC code name."""
    return _token(fault.code) or fault.grpc_code_name


def _status_is_error(fault: Fault, side: str, status: int | None) -> bool:
    if side != "server":
        return True  # a client or a tool: the call failed, whatever the reason
    if status is not None:
        return status >= 500
    return fault.grpc_code in _GRPC_SERVER_ERRORS


def attributes(fault: Fault, side: str, dialect: str | None = None, *, include_text: bool = False, kind: str | None = None) -> dict[str, Any]:
    """The span attributes errconv records for `fault` (see the module)."""
    attrs: dict[str, Any] = {ERROR_TYPE: kind or error_type(fault), "errconv.side": side}
    step = fault.next_step
    if step is not None:
        attrs["errconv.next_step"] = str(step)
    # stated, inferred or assumed (Fault.basis): a fault built in code states its move.
    attrs["errconv.next_step.basis"] = fault.basis("next_step").kind
    if step == NextStep.WAIT and fault.retry_after_seconds is not None:
        attrs["errconv.retry_after_seconds"] = fault.retry_after_seconds
    if step == NextStep.FIX_REQUEST:
        param = _token(fault.param)
        if param is not None:
            attrs["errconv.param"] = param
    if side == "server" and dialect == "grpc":
        # The code as the RPC conventions name it: grpcio's abort_with_status, which the
        # interceptors end calls with, is a path OpenTelemetry's gRPC server
        # instrumentation does not see, so the span would go without it.
        attrs["rpc.grpc.status_code"] = fault.grpc_code
    where = dialect or (fault.origin.dialect if fault.origin is not None else None)
    if where:
        attrs["errconv.dialect"] = where
    if include_text:
        if fault.title:
            attrs["errconv.title"] = redact(fault.title, _TEXT_LIMIT)
        if fault.detail:
            attrs["errconv.detail"] = redact(fault.detail, _TEXT_LIMIT)
    return attrs


class _Recorder:
    """The observer errconv's shells report to (errconv._observe.Observer)."""

    # The instruments, shared by every recorder: made on first use, from the global meter
    # provider (whose proxy follows the provider an application sets later).
    _made: tuple[Any, Any] | None = None
    _lock = threading.Lock()

    def __init__(self, include_text: bool = False) -> None:
        self.include_text = include_text

    def _instruments(self) -> tuple[Any, Any]:
        made = _Recorder._made
        if made is None:
            with _Recorder._lock:
                if _Recorder._made is None:
                    m = metrics.get_meter("errconv", __version__)
                    _Recorder._made = (
                        m.create_counter(FAULTS, unit="{fault}", description="Faults errconv wrote or read, by class, next step and side."),
                        m.create_histogram(RETRY_DELAY, unit="s", description="Delays faults stated for a wait."),
                    )
                made = _Recorder._made
        return made

    def count(self, fault: Fault, side: str, kind: str | None = None, where: tuple[str, str] | None = None) -> str:
        counter, delays = self._instruments()
        kind = kind or error_type(fault)
        attrs = {ERROR_TYPE: kind, "errconv.side": side}
        if where is not None:
            attrs[where[0]] = where[1]
        if fault.next_step == NextStep.WAIT and fault.retry_after_seconds is not None:
            delays.record(fault.retry_after_seconds, attrs)
        attrs["errconv.next_step"] = str(fault.next_step or "")
        counter.add(1, attrs)
        return kind

    def fault(
        self,
        fault: Fault,
        side: str,
        dialect: str | None,
        final: bool = True,
        *,
        status: int | None = None,
        sleep: float | None = None,
        where: tuple[str, str] | None = None,
    ) -> None:
        kind = self.count(fault, side, where=where)
        span = trace.get_current_span()
        if not span.is_recording():
            return
        attrs = attributes(fault, side, dialect, include_text=self.include_text, kind=kind)
        if final:
            _on_span(span, fault, side, status, attrs)
        else:
            if sleep is not None:
                attrs["errconv.sleep_seconds"] = sleep
            span.add_event("errconv.fault", attrs)

    def event(self, name: str, reason: str, fault: Fault | None = None) -> None:
        span = trace.get_current_span()
        if not span.is_recording():
            return
        attrs: dict[str, Any] = {"errconv.reason": redact(reason, _TEXT_LIMIT)}
        if fault is not None:
            attrs[ERROR_TYPE] = error_type(fault)
            if fault.retry_after_seconds is not None and fault.next_step == NextStep.WAIT:
                attrs["errconv.retry_after_seconds"] = fault.retry_after_seconds
        span.add_event(f"errconv.{name}", attrs)

    def outer(self) -> Any:
        return trace.get_current_span()

    def resend(self, count: int, delay: float | None, outer: Any) -> None:
        span = trace.get_current_span()
        attrs: dict[str, Any] = {RESEND_COUNT: count}
        if delay is not None:
            attrs["errconv.resend_delay_seconds"] = delay
        if span is outer:
            # No span of its own for this attempt (the HTTP instrumentation is outside
            # errconv's transport, or absent): the resend is an event on the one span.
            if span.is_recording():
                span.add_event("errconv.resend", attrs)
            return
        if span.is_recording():
            span.set_attributes(attrs)


def _on_span(span: Span, fault: Fault, side: str, status: int | None, attrs: dict[str, Any]) -> None:
    span.set_attributes(attrs)
    if _status_is_error(fault, side, status):
        # No description: the conventions leave it out when the status code says it.
        span.set_status(Status(StatusCode.ERROR))


_lock = threading.Lock()
_local: _Recorder | None = None


def record(fault: Fault, span: Span | None = None, *, side: str = "server", dialect: str | None = None, include_text: bool = False) -> None:
    """Put `fault` on `span` (default: the current span), as the shells do, and count it.

    `side` is `server` (the fault is answered), `client` (read from an upstream) or
    `tool` (an agent's tool failed): it decides the span status (see the module).
    """
    if not isinstance(fault, Fault):
        raise TypeError(f"record takes an errconv.Fault, got {type(fault).__name__}")
    if side not in ("server", "client", "tool"):
        raise ValueError(f"side must be 'server', 'client' or 'tool', got {side!r}")
    _shell().count(fault, side)
    target = span if span is not None else trace.get_current_span()
    if target.is_recording():
        _on_span(target, fault, side, fault.status, attributes(fault, side, dialect, include_text=include_text))


def instrument(*, include_text: bool = False) -> None:
    """Make every errconv shell in the process record the faults it writes and reads
    (see the module). `include_text=True` adds the title and detail, redacted."""
    _observe.hub.observer = _Recorder(include_text) if include_text else _shell()


def uninstrument() -> None:
    """Stop what `instrument()` started (shells built with `telemetry=True` go on)."""
    _observe.hub.observer = None


def instrumented() -> bool:
    """Whether `instrument()` is in effect."""
    return _observe.hub.observer is not None


def _shell() -> _Recorder:
    """The recorder shells built with `telemetry=True` report to."""
    global _local
    if _local is None:
        with _lock:
            if _local is None:
                _local = _Recorder()
    return _local


def __dir__() -> list[str]:
    """The public names only: `dir()` of a module otherwise lists every name it imports too."""
    return sorted(__all__)
