"""Assertions shared by the tests."""

from __future__ import annotations

from collections.abc import Iterable

import errconv
from errconv._pipeline.api import detail_name as _detail_name

FIELDS = [f for f in errconv.Fault.__struct_fields__ if f != "origin"]


def assert_same_except(got: errconv.Fault, want: errconv.Fault, lost: Iterable[str] = ()) -> None:
    """`got` equals `want` in every field not named in `lost` (`details.X` spares only type X).

    What errconv derived itself while decoding `want` (`origin.inferred`: a gRPC code
    from a status, a default status) may come back derived otherwise: `losses()` does
    not name it, as it was never in the input.
    """
    lost = set(lost)
    if want.origin is not None:
        lost.update(want.origin.inferred)
    # By the type's last name: a detail lost raw (`details.google.rpc.ErrorInfo`) may come back
    # typed (an ErrorInfo), or the other way round.
    lost_details = {name.rsplit(".", 1)[-1] for name in lost if name.startswith("details.")}
    for name in FIELDS:
        if name in lost:
            continue
        mine, theirs = getattr(got, name), getattr(want, name)
        if theirs is None:
            continue  # the target added what the fault never had (JSON-RPC's -32000 as a code): no loss
        if name == "details" and lost_details:
            # A lost detail type may come back in part (a RequestInfo without serving_data).
            mine = tuple(d for d in mine if _detail_name(d).rsplit(".", 1)[-1] not in lost_details)
            theirs = tuple(d for d in theirs if _detail_name(d).rsplit(".", 1)[-1] not in lost_details)
        assert mine == theirs, f"{name}: got {mine!r}, want {theirs!r}"
