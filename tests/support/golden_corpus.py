"""The golden corpus: `golden/<case>/`, one file per dialect around a hand-written fault.json.

Each case directory holds:

- `fault.json`: the model, written by hand (the hub every other file derives from);
- `case.json`: a description, optional `sources` (real-world inputs, by file name, with
  the dialect each is in, that must decode to fault.json), and `losses`: for each
  dialect, the fields it cannot carry (derived, reviewed in the diff);
- one file per dialect (derived): the bytes errconv writes.

`pytest --update-goldens` rewrites the derived files; a normal run only compares.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from google.protobuf import text_format

import errconv
from errconv import dialects
from errconv.dialects import status as status_dialect

ROOT = pathlib.Path(__file__).resolve().parents[2] / "golden"


def file_name(dialect: str) -> str:
    """The naming rule: `<name>.<suffix>`, with `+` as `-`."""
    return f"{dialect.replace('+', '-')}.{dialects.get(dialect).suffix}"


def dialect_files() -> dict[str, str]:
    """Every dialect that writes, with its golden file name, in registry order (taken
    from the registry, so a dialect registered later has its files too). `http` writes
    what `http+problem` writes and has none of its own; `fault` is fault.json, the hub."""
    return {
        name: file_name(name)
        for name in dialects.names()
        if dialects.get(name).encodes and getattr(dialects.get(name), "alias_of", None) is None
    }


# dialect -> file name; the order is the order files are listed and tested in.
FILES: dict[str, str] = {name: file for name, file in dialect_files().items() if name != "fault"}
READABLE = "status.txtpb"
HAND_WRITTEN = ("fault.json", "case.json")


def cases() -> list[pathlib.Path]:
    return sorted(p for p in ROOT.iterdir() if p.is_dir())


def load_fault(case: pathlib.Path) -> errconv.Fault:
    return errconv.Fault.from_json((case / "fault.json").read_bytes())


def load_meta(case: pathlib.Path) -> dict[str, Any]:
    path = case / "case.json"
    return json.loads(path.read_text()) if path.exists() else {}


def render(fault: errconv.Fault, dialect: str) -> bytes:
    """The bytes a golden file holds for `dialect`."""
    return errconv.encode(fault, dialect)


def parse(data: bytes, dialect: str) -> Any:
    """What `errconv.decode` takes for a golden file of `dialect`."""
    return data


def readable_status(fault: errconv.Fault) -> bytes:
    return text_format.MessageToString(status_dialect.to_message(fault)).encode()


def expected_files(case: pathlib.Path) -> dict[str, bytes]:
    """Every derived file of a case, by name."""
    fault = load_fault(case)
    files = {name: render(fault, dialect) for dialect, name in FILES.items()}
    files[READABLE] = readable_status(fault)
    return files


def computed_losses(fault: errconv.Fault) -> dict[str, list[str]]:
    return {dialect: list(errconv.losses(fault, dialect)) for dialect in FILES}


def allowed_files(case: pathlib.Path) -> set[str]:
    return {*FILES.values(), READABLE, *HAND_WRITTEN, *load_meta(case).get("sources", {})}


def update(case: pathlib.Path) -> list[str]:
    """Rewrite the derived files of one case; returns the names that changed."""
    changed = []
    for name, data in expected_files(case).items():
        path = case / name
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            changed.append(name)
    meta = load_meta(case)
    meta["losses"] = computed_losses(load_fault(case))
    text = json.dumps(meta, indent=2, ensure_ascii=False) + "\n"
    path = case / "case.json"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
        changed.append("case.json")
    return changed
