"""`errconv catalog build | diff`: the command line of the catalog.

    errconv catalog build CATALOG --out DIR
    errconv catalog diff OLD NEW [--json]       (each a file, or git:REV:path)

`build` exits 0 (2 for a catalog that breaks a rule); `diff` exits 1 when a change is
breaking, for CI, else 0.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from .._model.errors import ErrconvError
from .._catalog import Catalog
from .._catalog._build import EXAMPLE_DIALECTS, build, write
from .._catalog._diff import BREAKING, RISKY, SAFE, diff, load_ref

__all__ = ["add_parser", "run"]


def add_parser(sub: Any, common: argparse.ArgumentParser, make: Callable[..., argparse.ArgumentParser]) -> None:
    """Add `catalog` and its actions to the command's subparsers."""
    cat = sub.add_parser("catalog", parents=[common], help="generate documents from an error catalog, or diff two catalogs")
    actions = cat.add_subparsers(dest="catalog_action", metavar="ACTION", parser_class=make)
    b = actions.add_parser("build", parents=[common], help="pages, examples, OpenAPI, tool description and proto enum")
    b.add_argument("catalog", metavar="CATALOG", help="the catalog (TOML)")
    b.add_argument("--out", required=True, metavar="DIR", help="where to write (created; files in it are overwritten)")
    d = actions.add_parser("diff", parents=[common], help="what NEW changes for clients of OLD; exit 1 when breaking")
    d.add_argument("old", metavar="OLD", help="the old catalog: a file, or git:REV:path")
    d.add_argument("new", metavar="NEW", help="the new catalog: a file, or git:REV:path")
    d.add_argument("--json", action="store_true", help="write JSON for machines")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def run(args: argparse.Namespace, io: Any) -> int:
    """Run `errconv catalog ...`; returns the exit status."""
    if args.catalog_action == "build":
        catalog = Catalog.load(args.catalog)
        files = build(catalog)
        try:
            write(files, args.out, source=catalog.source)
        except OSError as exc:
            raise ErrconvError(f"cannot write under {args.out}: {exc.strerror or exc}") from None
        pages = sum(1 for name in files if name.endswith("/index.html")) - 1
        examples = sum(1 for name in files if name.startswith("examples/"))
        io.stdout.write(
            f"{_plural(len(catalog), 'code')}: {_plural(pages, 'page')} (Markdown and HTML) and an index, "
            f"{_plural(examples, 'example')} in {len(EXAMPLE_DIALECTS)} dialects, openapi.json, tool-description.txt, "
            f"error_reason.proto; {len(files)} files under {args.out}\n".encode()
        )
        return 0
    if args.catalog_action == "diff":
        old, new = load_ref(args.old), load_ref(args.new)
        changes = diff(old, new)
        counts = {s: sum(1 for c in changes if c.severity == s) for s in (BREAKING, RISKY, SAFE)}
        if args.json:
            doc = {"old": args.old, "new": args.new, **counts, "changes": [c.to_dict() for c in changes]}
            io.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n")
        else:
            lines = [str(c) for c in changes]
            lines.append(", ".join(f"{n} {s}" for s, n in counts.items()) if changes else "no changes")
            io.stdout.write(("\n".join(lines) + "\n").encode())
        return 1 if counts[BREAKING] else 0
    raise ErrconvError("errconv catalog: give an action, build or diff (errconv catalog --help for more)")
