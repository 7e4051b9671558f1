"""Where errconv's shells report the faults they write and read, for telemetry.

No telemetry library is imported here: this is a registry of one observer. Every
shell (the ASGI gateway and framework hooks, the gRPC interceptors, the HTTP client
transports, the agent boundary) asks `observer(local)` at the place it writes or reads
a fault: `local` is the observer the shell was built with (`telemetry=True`), else
the process-wide one `errconv.otel.instrument()` installs. With neither, the cost is
one attribute read and a comparison with None: nothing is built, nothing is called.

The observer (`errconv.otel` provides the only one) is told:

- `fault(fault, side, dialect, final, ...)`: a fault written (`side="server"`) or read
  (`"client"`, or `"tool"` for an agent's tool); `final` is False for a fault the
  shell retries past (a later attempt may still succeed);
- `event(name, reason, fault)`: a wait given up for its length (`wait_too_long`), a call
  the guard refused (`guard_refused`);
- `resend(count, delay, outer)`: inside the attempt that resends a request, with the
  span current at the shell's own level (`outer()`), so the attempt's own span is
  told apart from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ._model.fault import Fault

__all__ = ["Observer", "hub", "observer"]


class Observer(Protocol):
    """What a shell reports to (see the module)."""

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
        """A fault written or read; `where` is one low-cardinality attribute that says
        where (`("http.route", "/charges/{id}")`, `("server.address", "api.stripe.com")`)."""

    def event(self, name: str, reason: str, fault: Fault | None = None) -> None:
        """A wait given up for its length, a call the guard refused."""

    def outer(self) -> Any:
        """What `resend` compares the current span with (opaque to the shells)."""

    def resend(self, count: int, delay: float | None, outer: Any) -> None:
        """Resend number `count` (1 for the first) is under way, `delay` seconds after the last attempt."""


class _Hub:
    __slots__ = ("observer",)

    def __init__(self) -> None:
        self.observer: Observer | None = None


# The process-wide observer, set by errconv.otel.instrument() and cleared by uninstrument().
hub = _Hub()


def observer(local: Observer | None) -> Observer | None:
    """The observer a shell reports to: its own (`telemetry=True`), else the process's."""
    return local if local is not None else hub.observer
