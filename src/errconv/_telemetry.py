"""The `telemetry=` flag every errconv shell takes: the observer it reports to."""

from __future__ import annotations

from typing import Any

__all__ = ["telemetry"]


def telemetry(flag: bool) -> Any:
    """The observer a shell built with `telemetry=flag` reports to: errconv.otel's
    (which needs opentelemetry-api) when True; None when False, and the shell then
    reports to the process's (`errconv.otel.instrument()`), if any."""
    if not isinstance(flag, bool):
        raise TypeError(f"telemetry must be True or False, got {type(flag).__name__}")
    if not flag:
        return None
    from .otel import _shell  # imported only when asked for: `import errconv` never imports OpenTelemetry

    return _shell()
