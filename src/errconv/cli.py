"""The `errconv` command (also `python -m errconv`).

    errconv convert [FILE|-] --to DIALECT [--from DIALECT] [--strict]
    errconv detect  [FILE|-]

Errors are one line on stderr with exit status 2; never a traceback unless --debug.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import BinaryIO

from ._api import decode, detect, encode, losses
from ._errors import ErrconvError, LossError
from .dialects import DIALECTS
from .dialects.trailers import to_text

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="errconv", description="Translate API errors between dialects without losing meaning.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    conv = sub.add_parser("convert", help="convert an error body to another dialect")
    conv.add_argument("file", nargs="?", default="-", help="input file, or - for standard input")
    conv.add_argument("--to", required=True, metavar="DIALECT", help=f"one of: {', '.join(DIALECTS)}")
    conv.add_argument("--from", dest="source", metavar="DIALECT", help="the input dialect (default: detected)")
    conv.add_argument("--strict", action="store_true", help="fail instead of dropping what the target cannot carry")
    det = sub.add_parser("detect", help="print the dialect of an error body")
    det.add_argument("file", nargs="?", default="-")
    return parser


def _read(path: str, stdin: BinaryIO) -> bytes:
    if path == "-":
        return stdin.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise _InputError(f"cannot read {path}: {exc.strerror or exc}") from None


class _InputError(Exception):
    pass


def _write(out: BinaryIO, data: object, dialect: str) -> None:
    if dialect == "grpc":
        out.write(to_text(data))  # type: ignore[arg-type]
        return
    assert isinstance(data, bytes)
    out.write(data)
    if DIALECTS[dialect].binary:
        return
    if not data.endswith(b"\n"):
        out.write(b"\n")


def main(argv: Sequence[str] | None = None, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Run the command; returns the exit status."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        args = _parser().parse_args(argv)
        data = _read(args.file, stdin)
        if args.command == "detect":
            stdout.write(detect(data).encode() + b"\n")
            return 0
        if args.to not in DIALECTS:
            from .dialects import get

            get(args.to)  # raises with the accepted names
        fault = decode(data, args.source)
        lost = losses(fault, args.to)
        if lost and args.strict:
            raise LossError(args.to, lost)
        for name in lost:
            print(f"errconv: {args.to} cannot carry {name}; dropped", file=sys.stderr)
        _write(stdout, encode(fault, args.to), args.to)
        return 0
    except (_UsageError, _InputError, ErrconvError) as exc:
        if debug:
            raise
        print(f"errconv: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
