"""MkDocs hooks for errconv's documentation site (mkdocs.yml `hooks:`).

Tables that would go stale if typed in are written here, when the site is built, from what
they describe: `<!-- generated: NAME -->` in a page is replaced by `GENERATED[NAME]()`.
tests/project/test_docs.py calls the same functions and holds them to the registry and to
the files the suite and the benchmarks write.

A new generated table is one function and one entry in GENERATED; a new page is one file
under docs/ and one line in mkdocs.yml's nav (a page left out of the nav fails the strict
build).
"""

from __future__ import annotations

import pathlib
import re
import sys
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^<!-- generated: ([a-z0-9-]+) -->$", re.MULTILINE)


def _errconv() -> Any:
    # The site documents the sources beside it, not whatever errconv is installed; sys.path is
    # put back after (a src/ left on it had importlib.metadata find the checkout's
    # errconv.egg-info in the test that measures the installed distribution).
    saved = list(sys.path)
    sys.path.insert(0, str(ROOT / "src"))
    try:
        import errconv
    finally:
        sys.path[:] = saved
    return errconv


def dialect_table() -> str:
    """Every registered dialect, in precedence order: name, direction, media type, lossless, what."""
    errconv = _errconv()
    rows = ["| name | direction | media type | lossless | what it is |", "|---|---|---|---|---|"]
    for dialect in errconv.dialects.registered():
        doc = (type(dialect).__doc__ or "").strip().split("\n\n")[0]
        what = " ".join(doc.split()).replace("|", "\\|")
        direction = "reads and writes" if dialect.encodes else "reads"
        media = f"`{dialect.media_type}`" if dialect.media_type else "-"
        rows.append(f"| `{dialect.name}` | {direction} | {media} | {'yes' if dialect.lossless else 'no'} | {what} |")
    return "\n".join(rows)


def recorded(path: str) -> Callable[[], str]:
    """A figure file a benchmark or the suite wrote, included as it was written."""
    return lambda: (ROOT / path).read_text().strip()


GENERATED: dict[str, Callable[[], str]] = {
    "dialect-table": dialect_table,
    "gateway-bench": recorded("docs/figures/gateway-bench.md"),
    "lines-bench": recorded("docs/figures/lines-bench.txt"),
    "bench-run": recorded("docs/figures/bench-run.md"),
}


def render(markdown: str) -> str:
    """The page with every marker replaced; an unknown marker is an error, not a blank."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATED:
            raise KeyError(f"no generator for <!-- generated: {name} --> (scripts/docs_hooks.py GENERATED)")
        return GENERATED[name]()

    return MARKER.sub(one, markdown)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return render(markdown)
