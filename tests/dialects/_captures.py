"""The real-world captures (tests/realworld/) and the dialect each says it is in."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import errconv

ROOT = pathlib.Path(__file__).resolve().parent.parent / "realworld"
NOW = 1_800_000_000.0


def labelled(*services: str) -> list[tuple[str, pathlib.Path, dict[str, Any]]]:
    """Every capture of `services`, with its facts entry."""
    out = []
    for service in services:
        for name, entry in json.loads((ROOT / service / "facts.json").read_text()).items():
            out.append((f"{service}/{name}", ROOT / service / name, entry))
    return out


def read_as(path: pathlib.Path, entry: dict[str, Any]) -> str:
    """The dialect errconv reads a capture as (the body's, inside HTTP), as test_realworld reads it."""
    status = entry["facts"]["status"]
    data = path.read_bytes()
    fault = errconv.decode(data, now=NOW) if path.suffix == ".http" or status is None else errconv.decode(data, status=status, now=NOW)
    assert fault.origin is not None
    found = fault.origin.body if fault.origin.dialect == "http" else fault.origin.dialect
    return str(found)
