"""Generated protobuf code is committed and must match protos/."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_generated_code_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_protos", ROOT / "scripts" / "gen_protos.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_protos"] = gen
    spec.loader.exec_module(gen)
    with tempfile.TemporaryDirectory() as tmp:
        written = gen.generate(pathlib.Path(tmp))
        assert written, "no .proto files found"
        for path in written:
            committed = ROOT / "src" / "errconv" / "_proto" / path.relative_to(tmp)
            assert committed.exists(), f"{committed} is missing; run python scripts/gen_protos.py"
            assert committed.read_text() == path.read_text(), f"{committed} is stale; run python scripts/gen_protos.py"


def test_our_messages_are_registered_for_text_format() -> None:
    from errconv._proto.errconv.v1 import problem_pb2

    assert problem_pb2.Problem.DESCRIPTOR.full_name == "errconv.v1.Problem"
    assert problem_pb2.OpaqueDetail.DESCRIPTOR.full_name == "errconv.v1.OpaqueDetail"
