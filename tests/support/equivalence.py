"""What errconv answers on the golden corpus and the fuzz corpus, as plain JSON, so two builds
can be compared (tests/project/test_compiled.py): the compiled build in process, the pure-Python
build in a subprocess, on the very same inputs.

    python tests/support/equivalence.py INPUTS.json OUTPUTS.json

Every answer is what a caller sees: a Fault as the bytes of its canonical JSON (the
`fault` dialect) and its repr (which shows an IntEnum member apart from a plain int),
bytes as base64, an exception as its type and message (a TypeError escaping where the
pure build raises DecodeError, or reads a Fault, is a difference like any other).

The golden part reads golden/ itself; the fuzz part takes its inputs from INPUTS.json,
drawn once by the caller (`draw_fuzz_inputs`), so both builds read the same bytes.
"""

from __future__ import annotations

import base64
import json
import pathlib
import sys
from collections.abc import Callable
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import errconv  # noqa: E402
from errconv import dialects  # noqa: E402

ROOT = HERE.parents[1]
GOLDEN = ROOT / "golden"
NOW = 1_800_000_000.0  # a fixed clock: an HTTP-date Retry-After reads the same in both runs

Answer = list[Any]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def answer(call: Callable[[], Any]) -> Answer:
    """What `call` gives, as JSON: ["fault", json, repr], ["bytes", b64], ["value", repr] or
    ["raised", type, message]."""
    try:
        result = call()
    except Exception as exc:  # every exception is an answer to compare
        return ["raised", type(exc).__name__, str(exc)]
    if isinstance(result, errconv.Fault):
        return ["fault", _b64(errconv.encode(result, "fault")), repr(result)]
    if isinstance(result, bytes):
        return ["bytes", _b64(result)]
    return ["value", repr(result)]


def names() -> tuple[list[str | None], list[str]]:
    """Every name decode takes (and None, detection); every dialect that writes."""
    readers: list[str | None] = [d.name for d in dialects.registered()]
    writers = [name for name in dialects.names() if dialects.get(name).encodes]
    return [*readers, None], writers


def _decodes(data: Any, readers: list[str | None]) -> dict[str, Answer]:
    return {str(name): answer(lambda name=name: errconv.decode(data, name, now=NOW)) for name in readers}


def _writes(fault: errconv.Fault, writers: list[str]) -> dict[str, Answer]:
    out: dict[str, Answer] = {}
    for name in writers:
        out[f"encode {name}"] = answer(lambda name=name: errconv.encode(fault, name))
        out[f"losses {name}"] = answer(lambda name=name: errconv.losses(fault, name))
    return out


def golden_outputs() -> dict[str, Any]:
    """Every golden file decoded as every dialect and detected, and converted to every
    dialect; every golden fault encoded into every dialect, with its losses."""
    readers, writers = names()
    out: dict[str, Any] = {}
    for case in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        for path in sorted(case.iterdir()):
            data = path.read_bytes()
            key = f"golden {case.name}/{path.name}"
            out[key] = _decodes(data, readers)
            for name in writers:
                out[key][f"convert {name}"] = answer(lambda name=name: errconv.convert(data, name, now=NOW))
        fault_path = case / "fault.json"
        if fault_path.exists():
            fault = errconv.Fault.from_json(fault_path.read_bytes())
            out[f"fault {case.name}"] = _writes(fault, writers)
            out[f"fault {case.name}"]["to_http"] = answer(lambda: bytes(errconv.to_http(fault)))
            out[f"fault {case.name}"]["to_grpc"] = answer(lambda: repr(errconv.to_grpc(fault).trailing_metadata))
    return out


def fuzz_outputs(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Each fuzz input decoded as every dialect and detected (as bytes, as text, and grpc
    text also as trailer pairs); what it decodes to when detected, written in every dialect."""
    readers, writers = names()
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        data = base64.b64decode(item["data"])
        forms: dict[str, Any] = {"bytes": data, "text": data.decode("utf-8", "surrogateescape")}
        if item.get("pairs") is not None:
            forms["pairs"] = [(k, base64.b64decode(v[1]) if v[0] == "b" else v[1]) for k, v in item["pairs"]]
        for form, value in forms.items():
            key = f"fuzz {i} ({item['dialect']}, {form})"
            out[key] = _decodes(value, readers if form != "text" else [item["source"], None])
        try:
            fault = errconv.decode(data, now=NOW)
        except Exception:
            continue
        out[f"fuzz {i} ({item['dialect']}) written"] = _writes(fault, writers)
    return out


def outputs(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"compiled": errconv.__compiled__, **golden_outputs(), **fuzz_outputs(items)}


def draw_fuzz_inputs(count: int) -> list[dict[str, Any]]:
    """`count` inputs from the fuzz suite's strategy (tests/support/fuzz_inputs.py), derandomized,
    as JSON: the bytes, the dialect of the seed, the name decode takes for it, and for
    grpc text its trailer pairs."""
    from hypothesis import HealthCheck, Phase, given, settings

    from fuzz_inputs import SEEDS, as_pairs, inputs

    drawn: list[tuple[str, bytes]] = list(SEEDS)  # every seed as it is, then mutated ones

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(inputs())
    def collect(sample: tuple[str, bytes]) -> None:
        drawn.append(sample)

    collect()
    items = []
    for dialect, data in drawn:
        pairs = as_pairs(data) if dialect == "grpc" else None
        items.append(
            {
                "dialect": dialect,
                "source": "http" if dialect.startswith("http") else dialect,
                "data": _b64(data),
                "pairs": None
                if pairs is None
                else [[k, ["b", _b64(v)] if isinstance(v, bytes) else ["s", v]] for k, v in pairs],
            }
        )
    return items


if __name__ == "__main__":
    inputs_path, outputs_path = sys.argv[1:3]
    items = json.loads(pathlib.Path(inputs_path).read_text())
    pathlib.Path(outputs_path).write_text(json.dumps(outputs(items)))
