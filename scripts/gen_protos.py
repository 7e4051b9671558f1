"""Regenerate src/errconv/_proto from protos/ with grpcio-tools.

Run `python scripts/gen_protos.py` after editing a .proto file and commit the
result; tests/project/test_protos.py fails when the committed code is stale.
"""

from __future__ import annotations

import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "src" / "errconv" / "_proto"


def generate(out: pathlib.Path) -> list[pathlib.Path]:
    """Generate Python modules and their type stubs for every .proto under protos/ into `out`."""
    import grpc_tools
    from grpc_tools import protoc

    include = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    sources = sorted(p.relative_to(PROTOS).as_posix() for p in PROTOS.rglob("*.proto"))
    args = ["protoc", f"-I{PROTOS}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}", *sources]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    written = sorted([*out.rglob("*_pb2.py"), *out.rglob("*_pb2.pyi")])
    for path in written:
        path.write_text(_normalise(path.read_text()))
    return written


_RUNTIME_CHECK = re.compile(
    r"^# Protobuf Python Version: .*\n"
    r"|^from google\.protobuf import runtime_version as _runtime_version\n"
    r"|^_runtime_version\.ValidateProtobufRuntimeVersion\(\n(?:.*\n)*?\)\n",
    re.MULTILINE,
)


def _normalise(text: str) -> str:
    # protoc pins the generated module to its own protobuf minor version; the
    # serialized descriptor works with any protobuf >= 4.21, so drop the pin
    # rather than force every user onto the generator's exact release.
    return _RUNTIME_CHECK.sub("", text)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        for path in generate(pathlib.Path(tmp)):
            rel = path.relative_to(tmp)
            target = OUT / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text())
            print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
