"""The gRPC server interceptors' decisions under a catalog (no grpcio here either)."""

from __future__ import annotations

from typing import Any, Protocol

from .._model.fault import Fault
from .._interceptor_core import ServerSide

__all__ = ["CatalogServerSide"]


class _Catalog(Protocol):
    """What this needs of an `errconv.Catalog` (named so, not imported: no cycle)."""

    source: str

    def conform(self, fault: Fault, error: BaseException | None = None) -> Fault: ...

    def internal_fault(self) -> Fault: ...


class CatalogServerSide(ServerSide):
    """`ServerSide` that answers only with the catalog's codes: a FaultError whose
    fault agrees with its entry goes out as it is; any other fault, and any other
    exception, ends the call with the catalog's internal error, logged (by the
    catalog, with what was wrong, and by the interceptor, with the traceback)."""

    __slots__ = ("catalog",)

    def __init__(self, catalog: _Catalog, **options: Any) -> None:
        if options.get("unexpected") is None:
            options["unexpected"] = catalog.internal_fault()
        super().__init__(**options)
        self.catalog = catalog

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, catalog={self.catalog.source!r})"

    def fault_for(self, exc: BaseException) -> tuple[Fault, bool]:
        fault, unexpected = super().fault_for(exc)
        if unexpected:
            return fault, True
        answer = self.catalog.conform(fault)
        # Replaced: a fault the catalog does not know is a bug of the server's, logged as one.
        return answer, answer is not fault and answer.code != fault.code
