"""`errconv lint --catalog`: each body against its code's entry.

A body whose code is in the catalog but whose next step, status (or gRPC code),
parameter or delay disagrees with the entry is an error, and so is a code the catalog
does not have: the client that switches on it was never told what it means.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..lint import _delays, _Doc, _find, _step_pointer

if TYPE_CHECKING:
    from . import Catalog

__all__ = ["catalog_hits"]



def _member(doc: _Doc, *names: str) -> str | None:
    for pointer, name in doc.all("member"):
        if name in names:
            return str(pointer)
    found = doc.details()
    if found is not None:
        return _find(found[0], names, found[1])
    return None


def _pointer(doc: _Doc, rule: str) -> str:
    if rule == "catalog-next-step":
        return _step_pointer(doc)
    if rule == "catalog-status":
        found = doc.first("status")
        return str(found[0]) if found else doc.at
    if rule == "catalog-delay":
        delays = _delays(doc)
        return delays[0].pointer if delays else doc.at
    if rule == "catalog-param":
        return _member(doc, "param", "field") or doc.at
    return _member(doc, "code", "reason") or doc.at


def catalog_hits(catalog: Catalog, doc: Any) -> Iterator[tuple[str, str, str]]:
    """(rule, pointer, message) for each way `doc`'s fault disagrees with `catalog`.
    A body without a code is lint's own `code-missing`, not repeated here."""
    fault = doc.fault
    if fault.code is None:
        return
    inferred = fault.origin.inferred if fault.origin is not None else ()
    known_status = "status" not in inferred and not doc.bare_stripe
    known_grpc = "grpc_code" not in inferred and not doc.bare_stripe
    for rule, message in catalog.disagreements(fault, status_known=known_status, grpc_code_known=known_grpc):
        yield rule, _pointer(doc, rule), message
