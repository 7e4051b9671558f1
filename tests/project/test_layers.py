"""The layers of src/errconv, held: imports only go down, and no import cycle anywhere.

The import graph is built from the source with `ast` (nothing is imported): every
`import` and `from ... import`, at module level or inside a function, counts; only
imports under `if TYPE_CHECKING:` do not (they never run). A `from P import name`
counts as an import of the module `P.name` when that is a module, else of `P`.

The layers, lowest first (LAYERS below; a module belongs to the first layer one of
whose patterns matches its name, and every module must belong to one):

    model          Fault and its parts, details, codes, limits, errors, Retry-After,
                   the detail codec: knows no wire format, imports nothing above it
    dialects       the registry, the protocol, one module per dialect (the `http` and
                   `grpc` dialects are the HTTP and trailer codecs)
    pipeline       decode/encode/convert/losses/detect, the seams from_http/to_http,
                   the error kinds, negotiation, the retry policy
    integrations   gRPC interceptors (sync, aio, their core), the ASGI gateway,
                   and the homes reserved for HTTP clients, agent frameworks,
                   exception readers, the catalog and batches
    command line   the CLI, lint, simulate, --lines

A module may import its own layer and the layers below it, never a layer above.

The face, `errconv/__init__.py`, is no layer: it is the list of public names and
imports from any layer (integration-level names such as `from_exception` and
`Catalog` included). Python runs it before any module of the package, so a module
that imports `errconv` finds it there: the integrations and the command line may
(they use errconv as its users do); the model, the dialects and the pipeline may
not, since the face is built from them. Imports of the face are left out of the
cycle check for that reason, and every other cycle fails.

To place a new module, add its name (or a pattern) to its layer below.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "src" / "errconv"
FACE = "errconv"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "model",
        (
            "errconv._model",
            "errconv._model.*",
            "errconv.codes",
            "errconv.details",
            "errconv._version",
            "errconv._proto",
            "errconv._proto.*",
            # Redaction: text and Fault only, so every layer above may scrub.
            "errconv._redact",
        ),
    ),
    ("dialects", ("errconv.dialects", "errconv.dialects.*", "errconv._vocabulary")),
    ("pipeline", ("errconv._pipeline", "errconv._pipeline.*", "errconv.retry", "errconv._observe")),
    (
        "integrations",
        (
            "errconv._extras",
            "errconv._progress",
            "errconv._interceptor_core",
            "errconv.interceptors",
            "errconv.aio",
            "errconv.gateway",
            "errconv.gateway.*",
            # Reserved for the modules the open issues add.
            "errconv.agents",
            "errconv.agents.*",
            "errconv.clients",
            "errconv.clients.*",
            "errconv._exceptions",
            "errconv._agent_text",
            "errconv.catalog",
            "errconv._catalog*",
            "errconv.batch",
            "errconv._batch*",
            "errconv.otel",
            "errconv._telemetry",
        ),
    ),
    ("command line", ("errconv._cli", "errconv._cli.*", "errconv.lint", "errconv.__main__")),
)
# The layers that may import the face (see the module docstring).
FACE_USERS = frozenset(("integrations", "command line"))


def modules(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    """Every module under `root`: its dotted name, its file, whether it is a package."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        found[".".join(parts)] = (path, package)
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                for inner in node.body:
                    skipped.update(id(n) for n in ast.walk(inner))
    return skipped


def imports_of(name: str, path: Path, package: bool, known: dict[str, tuple[Path, bool]]) -> set[str]:
    """The errconv modules `name` imports (see the module docstring for what counts)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = _type_checking_only(tree)
    here = name if package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                found.add(f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in known else origin)
    return {target for target in found if target in known and target != name}


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each module's imports of other modules of the package; errconv's own read once (its
    source does not change under the tests; one test read it once per model module)."""
    return _source_graph() if root == ROOT else _graph(root)


def _graph(root: Path) -> dict[str, set[str]]:
    known = modules(root)
    return {name: imports_of(name, path, package, known) for name, (path, package) in known.items()}


@functools.cache
def _source_graph() -> dict[str, set[str]]:
    return _graph(ROOT)


def layer_of(name: str) -> int | None:
    for rank, (_, patterns) in enumerate(LAYERS):
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
            return rank
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), and modules
    that import themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative: the recursion depth would be the longest import chain.
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges.get(node, ()):
                        found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_module_has_a_layer():
    unplaced = [name for name in graph() if name != FACE and layer_of(name) is None]
    assert not unplaced, f"modules in no layer (add them to LAYERS in {Path(__file__).name}): {unplaced}"


def upward(edges: dict[str, set[str]]) -> list[str]:
    """Every import that goes up a layer, or to the face from a layer that may not."""
    found = []
    for name, targets in edges.items():
        rank = layer_of(name)
        if name == FACE or rank is None:
            continue  # the face imports from every layer; an unplaced module is reported apart
        for target in sorted(targets):
            if target == FACE:
                if LAYERS[rank][0] not in FACE_USERS:
                    found.append(f"{name} ({LAYERS[rank][0]}) -> the face {FACE}")
                continue
            other = layer_of(target)
            if other is not None and other > rank:
                found.append(f"{name} ({LAYERS[rank][0]}) -> {target} ({LAYERS[other][0]})")
    return found


def test_imports_only_go_down():
    found = upward(graph())
    assert not found, "imports going up a layer:\n" + "\n".join(found)


def test_no_import_cycle():
    edges = {name: {t for t in targets if t != FACE} for name, targets in graph().items()}
    found = cycles(edges)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_model_imports_nothing_above_it():
    edges = graph()
    model = [name for name in edges if layer_of(name) == 0]
    assert "errconv._model.fault" in model and "errconv.details" in model
    for name in model:
        above = {t for t in edges[name] if t == FACE or (layer_of(t) or 0) > 0}
        assert not above, f"{name} imports {sorted(above)}"


def test_the_checks_can_fail(tmp_path):
    # A made-up package with a cycle and an import going up: both are seen.
    pkg = tmp_path / "errconv"
    (pkg / "_model").mkdir(parents=True)
    (pkg / "dialects").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_model" / "__init__.py").write_text("")
    (pkg / "_model" / "fault.py").write_text("def f():\n    from ..dialects import get\n")
    (pkg / "dialects" / "__init__.py").write_text("from .._model.fault import f\nfrom . import a\n")
    (pkg / "dialects" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .. import _model\nfrom . import get\n"
    )
    edges = graph(pkg)
    assert edges["errconv._model.fault"] == {"errconv.dialects"}
    assert edges["errconv.dialects.a"] == {"errconv.dialects"}  # the TYPE_CHECKING import is not counted
    assert cycles(edges) == [["errconv._model.fault", "errconv.dialects", "errconv.dialects.a"]]
    assert upward(edges) == ["errconv._model.fault (model) -> errconv.dialects (dialects)"]
    assert upward({"errconv.dialects.a": {"errconv"}, "errconv.gateway": {"errconv"}}) == [
        "errconv.dialects.a (dialects) -> the face errconv"
    ]
