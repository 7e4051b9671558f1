"""errconv's build backend: setuptools', asking for mypy only for the compiled build.

pyproject.toml names this module (`backend-path = ["build_backend"]`). It is
setuptools.build_meta as it is, but for the build requirements: with
ERRCONV_COMPILE=1 in the environment, a wheel (or an editable install) also needs
mypy, which compiles the modules setup.py lists (mypyc), and what mypy needs to
type-check them: the runtime dependencies and the stub packages, all at the version
ranges pyproject.toml already gives them (mypy's comes from the `test` extra, so the
compiled build and the test run's mypy agree). Without the variable nothing changes:
the pure build needs setuptools alone.
"""

from __future__ import annotations

import os
import pathlib
import tomllib
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook this module does not override

ENV = "ERRCONV_COMPILE"
# What mypy needs, besides itself, to type-check the compiled modules (names as in
# the `test` extra, which pins their ranges).
_CHECK_WITH = ("mypy", "types-protobuf", "types-grpcio")


def compiling() -> bool:
    """Whether the environment asks for the compiled build (as setup.py reads it)."""
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no")


def _name(requirement: str) -> str:
    for i, ch in enumerate(requirement):
        if not (ch.isalnum() or ch in "-_."):
            return requirement[:i].lower().replace("_", "-")
    return requirement.lower().replace("_", "-")


def compile_requirements() -> list[str]:
    """mypy and what it type-checks against, at the ranges pyproject.toml gives them."""
    project = tomllib.loads(pathlib.Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    test = {_name(r): r for r in project["optional-dependencies"]["test"]}
    wanted = [test[_name(n)] for n in _CHECK_WITH if _name(n) in test]
    if "mypy" not in {_name(r) for r in wanted}:
        raise RuntimeError("pyproject.toml's test extra names no mypy: the compiled build takes its range from there")
    return [*wanted, *project["dependencies"]]


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires: list[str] = _setuptools.get_requires_for_build_wheel(config_settings)
    return requires + compile_requirements() if compiling() else requires


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    requires: list[str] = _setuptools.get_requires_for_build_editable(config_settings)
    return requires + compile_requirements() if compiling() else requires
