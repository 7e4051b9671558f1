"""What an integration says when the library it stands on is not installed: one helper for all.

Every integration (the gRPC interceptors, the gateway, the HTTP clients, the agent
adapters, the batch API) checks its library where the user asks for it, when it is
created (imported, constructed, `wrap`ped), not later when a failure first needs it,
and through `require`, so every message names the extra the same way:

    errconv.clients.httpx needs httpx, which is not installed: pip install 'errconv[httpx]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, *, package: str, extra: str, what: str | None = None) -> ModuleType:
    """Import `module` now, or raise ImportError naming `what` needs `package`, and the extra.

    `what` is the errconv name the user asked for (`errconv.batch.schema`); the raised
    ImportError's `.name` is the module that is missing (a dependency of `package` may be
    the one), and it is chained from the original.

    >>> require("json", package="the standard library", extra="none").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = exc.name or module
        top = module.partition(".")[0]
        # The package is there but one of its own imports is not: say which.
        inner = "" if missing.partition(".")[0] == top else f" (its dependency {missing} is missing)"
        raise ImportError(
            f"{what or 'this errconv integration'} needs {package}, which is not installed{inner}: pip install 'errconv[{extra}]'",
            name=missing,
        ) from exc
