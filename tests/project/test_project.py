"""The project's own promises: public API, module layout, README commands and examples, CI script, types."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import types

import pytest

import errconv
from errconv import dialects

ROOT = pathlib.Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "errconv"
# The submodules that are public API, documented in docs/reference/; every other module is `_`-private.
DOCUMENTED = {"agents", "aio", "batch", "clients", "codes", "details", "dialects", "gateway", "interceptors", "lint", "otel", "retry"}


def test_all_is_exactly_the_public_names_of_the_package() -> None:
    assert errconv.__all__ == sorted(errconv.__all__, key=str)
    for name in errconv.__all__:  # the face imports each name when first asked for (PEP 562): ask for all
        getattr(errconv, name)
    public = {
        name
        for name, value in vars(errconv).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert set(errconv.__all__) == public
    for name in ("decode", "encode", "convert", "losses", "detect", "Fault", "FaultError", "DecodeError",
                 "ErrconvError", "ContractError", "LossError", "from_http", "to_http", "from_grpc", "to_grpc",
                 "register_dialect", "Dialect"):  # fmt: skip
        assert name in errconv.__all__


def test_internal_modules_are_private_or_documented() -> None:
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[0] in ("_proto", "__init__", "__main__") or parts[0].startswith("_"):
            continue
        assert parts[0] in DOCUMENTED, f"{path.relative_to(ROOT)} is neither private nor documented"
        if parts[0] == "dialects" and len(parts) > 1 and not parts[1].startswith("_") and parts[1] != "__init__":
            assert parts[1] in {d.module for d in dialects.registered()}, f"{path.name} is no registered dialect"
    reference = (ROOT / "docs" / "reference" / "index.md").read_text()
    for name in DOCUMENTED:
        assert f"`errconv.{name}`" in reference, name


def test_every_dialect_module_is_registered_by_the_naming_rule() -> None:
    modules = {p.stem for p in (SRC / "dialects").glob("*.py") if not p.stem.startswith("_")}
    built_in = {d.module for d in dialects.registered() if type(d).__module__.startswith("errconv.dialects.")}
    assert modules == built_in
    for dialect in dialects.registered():
        if type(dialect).__module__.startswith("errconv.dialects."):
            assert type(dialect).__module__ == f"errconv.dialects.{dialect.module}", dialect.name


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / "README.md").read_text().splitlines()
    assert readme[0].startswith("```")
    install_and_convert, install_and_test = readme[1], readme[2]
    assert "errconv convert golden/" in install_and_convert
    assert "pytest" in install_and_test
    # CI runs it as it stands, or its install half and then its test half (so that the
    # compiled build can start in between); nothing else in between may change the venv.
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    install, _, test = install_and_test.rpartition(" && ")
    assert install_and_test in lines or (install in lines and test in lines and lines.index(install) < lines.index(test))


def test_py_typed_is_shipped() -> None:
    assert (SRC / "py.typed").exists()
    assert re.search(r'errconv = \["py.typed"\]', (ROOT / "pyproject.toml").read_text())


# Every example of the README and of docs/ runs as pasted: tests/project/test_docs.py.


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", str(SRC)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
