"""What an integration says when the library it stands on is not installed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["needs"]


@contextlib.contextmanager
def needs(extra: str, what: str) -> Iterator[None]:
    """Turn an ImportError inside the block into one that names the extra to install.

    >>> with needs("grpc", "errconv.interceptors"):
    ...     import grpc
    """
    try:
        yield
    except ImportError as exc:
        missing = exc.name or extra
        raise ImportError(
            f"{what} needs the {missing} library, which is not installed: pip install 'errconv[{extra}]'",
            name=exc.name,
        ) from exc
