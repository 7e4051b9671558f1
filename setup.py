"""The build: pure Python by default; ERRCONV_COMPILE=1 compiles the hot modules with mypyc.

`pip install .` makes a pure-Python wheel that runs everywhere. With ERRCONV_COMPILE=1
(`ERRCONV_COMPILE=1 pip install .`) the modules `compiled_modules()` below finds are compiled to C
extension modules by mypyc (part of mypy), as black and mypy ship themselves: that
needs a C compiler and Python's headers, and the in-tree build backend
(build_backend/errconv_build.py) then asks for mypy on top of setuptools; the pure
build never does. Every other module stays interpreted, and the package works the
same either way (`errconv.__compiled__`, `errconv --version` say which one runs).

The compiled modules are derived, not listed: the modules of the working layers, but
those that define a msgspec Struct and those INTERPRETED names with its reason; a new
module joins the compiled build by being there (tests/project/test_compiled.py then holds it to
giving the pure build's outputs).
"""

from __future__ import annotations

import ast
import os
import sys
from typing import Any

from setuptools import setup

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
# The layers that do the work per call: the model, the dialects, the pipeline. The
# integrations and the command line are glue around other libraries or I/O (compiling
# buys nothing measurable) and stay interpreted, as does everything not named here.
LAYERS = ("errconv/_model", "errconv/dialects", "errconv/_pipeline", "errconv/codes.py")
# Left interpreted inside those layers, and why. (Modules that define a msgspec Struct are
# found by compiled_modules itself: mypyc drops a class's keyword arguments,
# python/mypy#21938, so a Struct defined in a compiled module would lose frozen=, tag=,
# rename=, forbid_unknown_fields= without a word.)
INTERPRETED = {
    # An interpreted class cannot subclass a compiled one:
    "errconv/_model/errors.py": "the exceptions, which callers subclass and raise",
    "errconv/dialects/_base.py": "Dialect, which plugins, tests and the interpreted dialects subclass",
    # Not on a hot path:
    "errconv/_pipeline/edge.py": "duck-typed error kinds for to_http and the gateway",
}


def _defines_struct(path: str) -> bool:
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    return any(
        isinstance(node, ast.ClassDef) and any(ast.unparse(base).endswith("Struct") for base in node.bases)
        for node in ast.walk(tree)
    )


def _defines_nothing(path: str) -> bool:
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    return all(isinstance(node, ast.Expr) for node in tree.body)  # a docstring at most


def compiled_modules() -> tuple[str, ...]:
    """The modules mypyc compiles, as paths under src/: every module of LAYERS that is not
    in INTERPRETED, defines no msgspec Struct, and is more than a docstring. A new dialect
    module joins it by being there (tests/project/test_compiled.py then holds it to the pure
    build's answers)."""
    found = []
    for layer in LAYERS:
        top = os.path.join(SRC, layer)
        paths = [top] if layer.endswith(".py") else [
            os.path.join(folder, name) for folder, _, names in os.walk(top) for name in names if name.endswith(".py")
        ]
        for path in paths:
            rel = os.path.relpath(path, SRC).replace(os.sep, "/")
            if rel not in INTERPRETED and not _defines_struct(path) and not _defines_nothing(path):
                found.append(rel)
    return tuple(sorted(found))


ENV = "ERRCONV_COMPILE"
# The setup.py commands that build code. The build backend also runs this file to ask
# for requirements (egg_info) and metadata (dist_info): not a reason to compile, and
# mypy may not be installed yet then.
_BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def compiling() -> bool:
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no")


def ext_modules() -> list[Any]:
    if not compiling() or not _BUILDS & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit(f"{ENV}=1 compiles errconv with mypyc, which comes with mypy: pip install mypy (or leave build isolation on)")
    return mypycify([os.path.join("src", path) for path in compiled_modules()], opt_level="3", group_name="errconv")


if __name__ == "__main__":
    setup(ext_modules=ext_modules())
