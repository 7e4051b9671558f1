from __future__ import annotations

import os

import pytest


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
