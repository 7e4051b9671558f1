"""errconv's face: its public names say they are errconv's, and its version is written once."""

from __future__ import annotations

import importlib.metadata
import pathlib
import pickle
import tomllib

import errconv
from errconv import dialects

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_public_names_do_not_name_a_private_module() -> None:
    # (a constant such as TOOL_CONTRACT, a str, names no module of its own)
    modules = {name: getattr(getattr(errconv, name), "__module__", "") or "" for name in errconv.__all__}
    private = {name: module for name, module in modules.items() if "._" in module or module.startswith("errconv._")}
    if not errconv.__compiled__:  # a compiled class or function may refuse the new name
        assert not private
    assert repr(errconv.Fault) == "<class 'errconv.Fault'>"
    assert errconv.DecodeError.__module__ == "errconv"


def test_a_fault_and_an_error_pickle_under_their_public_names() -> None:
    fault = errconv.Fault.build(status=404, code="not_found")
    assert pickle.loads(pickle.dumps(fault)) == fault
    assert b"_model" not in pickle.dumps(fault)  # the class is found as errconv.Fault
    error = pickle.loads(pickle.dumps(errconv.DecodeError("bad input")))
    assert type(error) is errconv.DecodeError and str(error) == "bad input"


def test_the_protocol_types_are_public() -> None:
    for name in ("Dialect", "HttpInfo", "Headers", "Reading", "Writing"):
        assert name in dialects.__all__
        if not errconv.__compiled__:
            assert getattr(dialects, name).__module__ == "errconv.dialects", name


def test_one_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert importlib.metadata.version("errconv") == errconv.__version__
    written = [p for p in (ROOT / "src" / "errconv").rglob("*.py") if "__version__ = " in p.read_text()]
    assert [p.name for p in written] == ["_version.py"]


def test_the_face_is_lazy_and_every_name_imports() -> None:
    """`import errconv` imports none of the modules behind its names (PEP 562); each
    public name, and `from errconv import <name>`, still resolves, to the object of the
    module it lives in; a name that is none raises AttributeError."""
    import subprocess
    import sys

    code = (
        "import sys, errconv\n"
        "assert [m for m in sys.modules if m.startswith('errconv.')] == ['errconv._version'], sorted(sys.modules)\n"
        "for name in errconv.__all__:\n"
        "    exec(f'from errconv import {name}')\n"
        "assert set(errconv.__all__) <= set(dir(errconv))\n"
        "try:\n"
        "    errconv.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
        "import errconv.dialects, errconv.batch\n"
        "assert errconv.dialects.names and errconv.batch.rows\n"
    )
    import os

    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(errconv.__file__).parent.parent)}  # this errconv, not another
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    from errconv._model.fault import Fault
    from errconv._pipeline.api import decode

    assert errconv.Fault is Fault and errconv.decode is decode
