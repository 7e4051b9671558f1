from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Under CI every property test runs a fixed set of examples: a red CI then means a real
# regression, reproducible on any machine, never an unlucky draw. Longer, random runs
# are for people (see ERRCONV_HYPOTHESIS_EXAMPLES and ERRCONV_FUZZ_EXAMPLES).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


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
    import sys

    realworld = sys.modules.get("test_realworld")
    score = getattr(realworld, "SCORE", None)
    if score and score["stated"]:
        terminalreporter.write_line(
            f"real-world captures: {score['right']} of {score['stated']} stated facts read right "
            f"({100 * score['right'] / score['stated']:.1f}%), {len(score['services'])} services"
        )
    realworld_open = sys.modules.get("test_realworld_open")
    for line in getattr(realworld_open, "SUMMARY", ()):
        terminalreporter.write_line(line)
