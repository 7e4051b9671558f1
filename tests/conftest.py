from __future__ import annotations

import os
import pathlib
import sys
from typing import Any

import pytest
from hypothesis import settings

# The support modules (helpers, golden_corpus, ...) are imported by name from every folder.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "support"))

# Where PYTHONDONTWRITEBYTECODE is set (some machines set it to keep __pycache__ out of source
# trees), every Python the suite starts (the xdist workers, ~200 example and CLI subprocesses)
# would compile errconv and its libraries from source again: 15 s of the docs examples' 44.
# Their bytecode goes to one cache in a temporary folder instead (the run's, removed at its end),
# which keeps the trees clean all the same. A PYTHONPYCACHEPREFIX of the user's own is left be.
_OWN_PYCACHE: str | None = None
if sys.flags.dont_write_bytecode and "PYTHONPYCACHEPREFIX" not in os.environ:
    import tempfile

    _OWN_PYCACHE = tempfile.mkdtemp(prefix="errconv-tests-pycache-")
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = _OWN_PYCACHE
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False

# Under CI every property test runs a fixed set of examples: a red CI then means a real
# regression, reproducible on any machine, never an unlucky draw. Longer, random runs
# are for people (see ERRCONV_HYPOTHESIS_EXAMPLES and ERRCONV_FUZZ_EXAMPLES).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def no_safety_net(monkeypatch: pytest.MonkeyPatch) -> None:
    """`decode` without its safety net, which turns an exception no codec path anticipated
    into DecodeError: a test that asks for a DecodeError then sees a real one, and any
    other exception fails it."""
    from errconv._pipeline import api

    monkeypatch.setattr(api, "_SAFETY_NET", False)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="rewrite the derived files under golden/ from each case's fault.json (review the diff!)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Under `-n 2` (pytest-xdist's `load`) each test module runs whole in one worker, as
    # `--dist loadfile` does: a module fixture (the secret corpus's, most of a minute; a
    # loopback server) is built once, not in both workers, and a module's closing tests read
    # what its earlier ones counted (tests/commandline/test_lines.py). (xdist's `loadgroup`
    # would group less, but its groups are lost under pytest 9.2, which no longer reads the
    # `_nodeid` xdist 3.8 suffixes.)
    if not hasattr(config, "workerinput") and getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False  # the order below, not by number of tests
    if not config.getoption("--update-goldens"):
        return
    if os.environ.get("CI"):
        raise pytest.UsageError("--update-goldens is refused under CI: goldens change only on purpose")
    import golden_corpus

    for case in golden_corpus.cases():
        for name in golden_corpus.update(case):
            print(f"updated golden/{case.name}/{name}")


# The modules that take longest (seconds of one worker, measured with --durations=0), run
# first: two workers then finish together, instead of one starting the secret corpus when
# the other has little left. The rest keep their order.
_LONGEST_FIRST = (
    "tests/hostile/test_secret_corpus.py",
    "tests/project/test_docs.py",
    "tests/hostile/test_hostile_numbers.py",
    "tests/integrations/test_clients_bounds.py",
    "tests/integrations/test_from_exception.py",
    "tests/model/test_properties.py",
    "tests/hostile/test_fuzz.py",
    "tests/integrations/test_clients_matrix.py",
)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWN_PYCACHE is not None:
        import shutil

        shutil.rmtree(_OWN_PYCACHE, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(_LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


def _module(name: str) -> Any:
    return next((m for full, m in sys.modules.items() if full.rpartition(".")[2] == name), None)


def _figures() -> dict[str, Any]:
    """What this process's tests measured, to print at the end: the real-world score's counts
    and the open corpus's and the secret corpus's lines."""
    score = getattr(_module("test_realworld"), "SCORE", None) or {}
    return {
        "realworld": {"right": score.get("right", 0), "stated": score.get("stated", 0), "services": sorted(score.get("services", ()))},
        "lines": [*getattr(_module("test_realworld_open"), "SUMMARY", ()), *getattr(_module("test_secret_corpus"), "SUMMARY", ())],
    }


class _FromWorkers:
    """Under pytest-xdist (the README's `-n 2`) the tests run in workers: each sends its
    figures back when it finishes, and the controller prints them all."""

    def __init__(self) -> None:
        self.figures: list[dict[str, Any]] = []

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        figures = getattr(node, "workeroutput", {}).get("errconv_figures")
        if figures:
            self.figures.append(figures)


_WORKERS = _FromWorkers()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if session.config.pluginmanager.hasplugin("xdist") and not hasattr(session.config, "workerinput"):
        session.config.pluginmanager.register(_WORKERS, "errconv-figures")


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the figures to the controller
        workeroutput["errconv_figures"] = _figures()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    every = [_figures(), *_WORKERS.figures]
    right = sum(f["realworld"]["right"] for f in every)
    stated = sum(f["realworld"]["stated"] for f in every)
    services = {s for f in every for s in f["realworld"]["services"]}
    if stated:
        terminalreporter.write_line(
            f"real-world captures: {right} of {stated} stated facts read right "
            f"({100 * right / stated:.1f}%), {len(services)} services"
        )
    lines = [line for f in every for line in f["lines"]]
    # The blind figures first (one worker printed them), then the rest as each worker wrote it.
    for line in sorted(lines, key=lambda line: not ("generalisation figure" in line or line.startswith("in-sample scores"))):
        terminalreporter.write_line(line)
