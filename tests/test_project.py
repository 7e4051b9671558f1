"""The project's own promises: public API, README commands, CI script."""

from __future__ import annotations

import pathlib
import re

import errconv

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_public_api_is_sorted_and_complete() -> None:
    assert errconv.__all__ == sorted(errconv.__all__, key=str)
    for name in errconv.__all__:
        assert hasattr(errconv, name), name
    for name in ("decode", "encode", "convert", "losses", "detect", "Fault", "FaultError", "DecodeError",
                 "ErrconvError", "ContractError", "LossError"):  # fmt: skip
        assert name in errconv.__all__


def test_every_dialect_module_is_in_the_table() -> None:
    modules = {p.stem for p in (ROOT / "src" / "errconv" / "dialects").glob("*.py") if not p.stem.startswith("_")}
    used = {d.decode.__module__.rsplit(".", 1)[-1] for d in errconv.DIALECTS.values()}
    assert modules == used


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second() -> None:
    readme = (ROOT / "README.md").read_text().splitlines()
    assert readme[0].startswith("```")
    install_and_convert, install_and_test = readme[1], readme[2]
    assert "errconv convert golden/" in install_and_convert
    assert "pytest" in install_and_test
    ci = (ROOT / ".ci" / "run").read_text()
    assert install_and_test in ci.splitlines()


def test_py_typed_is_shipped() -> None:
    assert (ROOT / "src" / "errconv" / "py.typed").exists()
    assert re.search(r'errconv = \["py.typed"\]', (ROOT / "pyproject.toml").read_text())
