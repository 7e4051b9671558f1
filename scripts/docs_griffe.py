"""A griffe extension for the documentation site (mkdocs.yml, mkdocstrings `extensions:`).

errconv's docstrings hold doctest sessions (`>>> ...` and the output under them) in plain
prose, as the standard library's do. Markdown would read an output such as `['wait', None]` as
a link; this wraps each session in a `pycon` fence when the reference is built, so the sources
stay plain doctest.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """`text` with every run of doctest lines (a `>>>` line to the next blank line) fenced."""
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if not inside and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not line.strip():
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest sessions of every docstring griffe reads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
