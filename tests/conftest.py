from __future__ import annotations

import os
import pathlib
import sys

import pytest
from hypothesis import settings

# The support modules (helpers, golden_corpus, ...) are imported by name from every folder.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "support"))

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
    if not config.getoption("--update-goldens"):
        return
    if os.environ.get("CI"):
        raise pytest.UsageError("--update-goldens is refused under CI: goldens change only on purpose")
    import golden_corpus

    for case in golden_corpus.cases():
        for name in golden_corpus.update(case):
            print(f"updated golden/{case.name}/{name}")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    realworld = next((m for name, m in sys.modules.items() if name.rpartition(".")[2] == "test_realworld"), None)
    score = getattr(realworld, "SCORE", None)
    if score and score["stated"]:
        terminalreporter.write_line(
            f"real-world captures: {score['right']} of {score['stated']} stated facts read right "
            f"({100 * score['right'] / score['stated']:.1f}%), {len(score['services'])} services"
        )
    realworld_open = next((m for name, m in sys.modules.items() if name.rpartition(".")[2] == "test_realworld_open"), None)
    for line in getattr(realworld_open, "SUMMARY", ()):
        terminalreporter.write_line(line)
    secret_corpus = next((m for name, m in sys.modules.items() if name.rpartition(".")[2] == "test_secret_corpus"), None)
    for line in getattr(secret_corpus, "SUMMARY", ()):
        terminalreporter.write_line(line)
