"""The `errconv` command (also `python -m errconv`).

    errconv convert  [FILE|-] --to DIALECT [--from DIALECT] [--status N] [--strict] [--lines [--jobs N] [--quiet]]
    errconv detect   [FILE|-]
    errconv explain  [FILE|-] [--from DIALECT] [--status N] [--json]
    errconv lint     PATH... [--format text|json] [--ignore RULE]... [--catalog CATALOG] | --list-rules
    errconv catalog  build CATALOG --out DIR | diff OLD NEW [--json]
    errconv simulate [--renderings errconv|seed] [--budget N] [--clears-at SECONDS] [--json]

Exit status: 0 done; 1 the data did not pass (lint errors, a strict conversion that
would lose fields, a bad line under --lines); 2 a usage or input error; 70 a bug in
errconv. Every error is one line on stderr; a traceback only with --debug.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import functools
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, NoReturn, TextIO

import msgspec

from .. import __compiled__
from .._version import __version__
from .. import dialects
from .._catalog import Catalog
from .._pipeline.api import _Input, decode, decode_detected, encode, losses
from .._model.errors import DecodeError, ErrconvError, UnknownDialectError
from ..codes import NextStep, reason_phrase
from ..dialects import get
from .._model.fault import Fault, Violation
from .._model.limits import DEFAULT_LIMITS
from .._progress import Meter
from .lines import convert_lines
from ..lint import RULES, Finding, lint_paths
from ..retry import DEFAULT_BACKOFF
from . import simulate as simulation

__all__ = ["main"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 70
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
COMMANDS = ("convert", "detect", "explain", "lint", "simulate", "catalog")
# What `--version` says of the build (tests/cli transcripts show the pure one).
BUILD = "compiled with mypyc" if __compiled__ else "pure Python"


def _multiline() -> tuple[str, ...]:
    """The dialects whose output spans several lines, which --lines cannot write."""
    return tuple(name for name in dialects.names() if not get(name).one_line)


class _UsageError(Exception):
    """Bad arguments: exit 2."""


class _InputError(Exception):
    """Input that cannot be read: exit 2."""


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse that writes help to the caller's stdout and raises instead of exiting."""

    def __init__(self, *args: Any, out: BinaryIO, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._out = out

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            self._out.write(message.encode())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise _Exit(status)

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: {message}")


def _dialect(value: str) -> str:
    try:
        return get(value).name
    except UnknownDialectError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _writer(value: str) -> str:
    name = _dialect(value)
    if not get(name).encodes:
        writers = ", ".join(n for n in dialects.names() if get(n).encodes)
        raise argparse.ArgumentTypeError(f"{name} is read, not written; errconv writes: {writers}")
    return name


def _whole(minimum: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        if not re.fullmatch(r"\d{1,9}", value) or int(value) < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number of at least {minimum}, got {value!r}")
        return int(value)

    return parse


def _status(value: str) -> int:
    if not re.fullmatch(r"[1-5][0-9][0-9]", value):
        raise argparse.ArgumentTypeError(f"expected an HTTP status from 100 to 599, got {value!r}")
    return int(value)


def _rule(value: str) -> str:
    if value not in RULES:
        raise argparse.ArgumentTypeError(f"unknown rule {value!r}; one of: {', '.join(RULES)}")
    return value


def _parser(out: BinaryIO) -> argparse.ArgumentParser:
    make = functools.partial(_Parser, out=out)
    # --debug goes before or after the command; SUPPRESS keeps a subcommand's default
    # from overwriting a --debug given before it.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show a traceback on error")
    parser = make(prog="errconv", description="Translate API errors between dialects without losing meaning.")
    parser.add_argument("--debug", action="store_true", help="show a traceback on error")
    parser.add_argument("--version", action="version", version=f"errconv {__version__} ({BUILD})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=make)  # type: ignore[call-overload]
    writers = ", ".join(name for name in dialects.names() if get(name).encodes)

    conv = sub.add_parser("convert", parents=[common], help="convert an error to another dialect")
    conv.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file, or - for standard input (default)")
    conv.add_argument("--to", required=True, type=_writer, metavar="DIALECT", help=f"the output dialect: {writers}")
    conv.add_argument("--from", dest="source", type=_dialect, metavar="DIALECT", help="the input dialect (default: detected)")
    conv.add_argument("--status", type=_status, metavar="N", help="the HTTP status a bare body came with (a log line's)")
    conv.add_argument("--strict", action="store_true", help="fail instead of dropping what the output dialect cannot carry")
    conv.add_argument(
        "--lines",
        action="store_true",
        help="JSON Lines: one error body per input line, one converted body per output line, streamed",
    )
    conv.add_argument(
        "--jobs",
        type=_whole(1),
        default=1,
        metavar="N",
        help="with --lines: convert in N processes, output in input order (default: 1)",
    )
    conv.add_argument("--quiet", action="store_true", help="with --lines: no progress meter on a terminal's stderr")

    det = sub.add_parser("detect", parents=[common], help="print the dialect an error is written in")
    det.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file, or - for standard input (default)")

    exp = sub.add_parser("explain", parents=[common], help="say what a caller should do, and what each dialect would lose")
    exp.add_argument("file", nargs="?", default="-", metavar="FILE", help="input file, or - for standard input (default)")
    exp.add_argument("--from", dest="source", type=_dialect, metavar="DIALECT", help="the input dialect (default: detected)")
    exp.add_argument("--status", type=_status, metavar="N", help="the HTTP status a bare body came with (a log line's)")
    exp.add_argument("--json", action="store_true", help="write JSON for machines")

    lint = sub.add_parser("lint", parents=[common], help="review error bodies against the agent contract")
    lint.add_argument("paths", nargs="*", metavar="PATH", help="files, directories or globs")
    lint.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    lint.add_argument("--ignore", action="append", default=[], type=_rule, metavar="RULE", help="leave out a rule (repeatable)")
    lint.add_argument("--list-rules", action="store_true", help="print every rule with its severity, and exit")
    lint.add_argument("--catalog", metavar="CATALOG", help="also check each body against its code's entry in this error catalog")

    sim = sub.add_parser(
        "simulate",
        parents=[common],
        help="run the agent loop of the published guide (its agent-loop tables: seed 004) on a virtual clock",
        description=(
            "Run, on a virtual clock, the agent loop of seed 004: the published guide 'How to design error responses"
            " an autonomous agent can act on' (voxgig.com/howto/error-responses-an-agent-can-act-on), and print its"
            " three agent-loop tables, for errconv's bodies or the guide's own."
        ),
    )
    sim.add_argument("--renderings", choices=tuple(simulation.RENDERINGS), default="errconv", help="whose error bodies: errconv's, or the guide's own (default: errconv)")
    sim.add_argument("--budget", type=_whole(1), default=8, metavar="N", help="calls per loop (default: 8)")
    sim.add_argument("--clears-at", type=_whole(0), default=30, metavar="SECONDS", help="when temporary failures clear (default: 30)")
    sim.add_argument("--json", action="store_true", help="write JSON for machines")

    from . import catalog as catalog_cli

    catalog_cli.add_parser(sub, common, make)
    return parser


# --------------------------------------------------------------------------- input and output


@dataclass
class _IO:
    stdin: BinaryIO
    stdout: BinaryIO
    stderr: TextIO

    def say(self, message: str) -> None:
        """One line on stderr (controls shown as escapes: a message may quote hostile input)."""
        # The library's messages name its keyword (status=); here it is an option.
        message = message.replace("(status=)", "(--status N)")
        self.stderr.write(f"errconv: {_CONTROLS.sub(lambda m: repr(m.group())[1:-1], message)}\n")

    def is_terminal(self) -> bool:
        isatty = getattr(self.stdout, "isatty", None)
        try:
            return bool(isatty and isatty())
        except ValueError:  # a closed stream
            return False


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def _name(path: str) -> str:
    return "standard input" if path == "-" else path


def _open(path: str, io: _IO) -> BinaryIO:
    if path == "-":
        return io.stdin
    try:
        return open(path, "rb")  # closed by the caller
    except IsADirectoryError:
        raise _InputError(f"{path} is a directory; give a file") from None
    except OSError as exc:
        raise _InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _read(path: str, io: _IO) -> bytes:
    stream = _open(path, io)
    try:
        # One byte past the limit is enough to know the input is too large, without reading it all.
        data = stream.read(DEFAULT_LIMITS.max_bytes + 1)
    except OSError as exc:
        raise _InputError(f"cannot read {_name(path)}: {exc.strerror or exc}") from None
    finally:
        if stream is not io.stdin:
            stream.close()
    if len(data) > DEFAULT_LIMITS.max_bytes:
        raise _InputError(f"{_name(path)} is over {DEFAULT_LIMITS.max_bytes} bytes, the most errconv reads as one error")
    return data


_BASE64_TEXT = re.compile(rb"[A-Za-z0-9+/=_\-\s]+")


def _unbase64(data: bytes) -> bytes:
    """`status` bytes as errconv prints them on a terminal (base64) are read back as bytes.

    Serialized Status bytes never consist only of base64 characters (the first byte is
    a field tag below 0x20), so text that does is base64.
    """
    if not _BASE64_TEXT.fullmatch(data):
        return data
    text = b"".join(data.split())
    try:
        return base64.b64decode(text + b"=" * (-len(text) % 4), altchars=b"-_" if b"-" in text or b"_" in text else None)
    except (binascii.Error, ValueError):
        return data


def _decode(data: bytes, source: str | None, where: str, status: int | None = None) -> tuple[Fault, str]:
    """The fault and the dialect it was read as; errors name the input and the detected dialect."""
    if source == "status":
        data = _unbase64(data)
    if status is not None:
        try:
            fault = decode(data, source, status=status)
        except DecodeError as exc:
            raise DecodeError(f"{where}: {exc}") from None
        origin = fault.origin
        return fault, (origin.dialect if origin is not None and origin.dialect else "unrecognised")
    if source is None:
        try:
            read, dialect = decode_detected(data)  # parsed once, to detect and to decode
        except DecodeError as exc:
            raise DecodeError(f"{where}: {exc}") from None
        if isinstance(read, DecodeError):
            hint = f" (detected as {dialect}; --from names the dialect, and `errconv convert --help` lists them)"
            raise DecodeError(f"{where}: {read}{hint}") from None
        return read, dialect
    try:
        return decode(data, source), source
    except DecodeError as exc:
        raise DecodeError(f"{where}: {exc}") from None


def _misread(data: bytes, source: str | None) -> str | None:
    """Why `--from source` looks wrong for `data`, when the named dialect does not
    recognise the input at all (it would be read anyway, everything inferred)."""
    if source is None:
        return None
    if source == "status":
        data = _unbase64(data)
    try:
        codec = get(source)
        if codec.form == "http":  # http+<name> reads any response, as http does
            codec = get("http")
        if codec.recognise(_Input(data, DEFAULT_LIMITS).value_for(codec), None) > 0:
            return None
    except ErrconvError:
        return None  # not readable as it at all: decoding says why
    try:
        found = f"; it reads as {decode_detected(data)[1]} (drop --from to read it so)"
    except ErrconvError:
        found = ""
    return f"{source} does not recognise this input{found}"


def _render(fault: Fault, dialect: str, *, terminal: bool) -> bytes:
    """The bytes to write for one converted error."""
    out = encode(fault, dialect)
    if get(dialect).binary:
        # Raw bytes into a pipe or a file; base64 on a terminal, which raw protobuf would garble.
        return base64.b64encode(out) + b"\n" if terminal else out
    return out if out.endswith(b"\n") else out + b"\n"


# --------------------------------------------------------------------------- convert


def _convert(args: argparse.Namespace, io: _IO) -> int:
    if args.lines:
        return _convert_lines(args, io)
    if args.jobs > 1:
        raise _UsageError("errconv convert: --jobs spreads the lines of --lines over processes; give --lines too")
    data = _read(args.file, io)
    misread = _misread(data, args.source) if args.status is None else None
    if misread is not None:
        if args.strict:
            io.say(f"{_name(args.file)}: {misread}; refused under --strict")
            return EXIT_FAILED
        io.say(f"{_name(args.file)}: {misread}")
    fault, _ = _decode(data, args.source, _name(args.file), args.status)
    _note_basis(fault, io)
    lost = losses(fault, args.to)
    if lost and args.strict:
        io.say(f"{args.to} cannot carry: {', '.join(lost)} (drop --strict to convert anyway)")
        return EXIT_FAILED
    for name in lost:
        io.say(f"{args.to} cannot carry {name}; dropped")
    io.stdout.write(_render(fault, args.to, terminal=io.is_terminal()))
    return EXIT_OK


def _convert_lines(args: argparse.Namespace, io: _IO) -> int:
    multiline = _multiline()
    if args.to in multiline:
        single = [d for d in dialects.names() if d not in multiline and get(d).encodes]
        raise _UsageError(
            f"errconv convert: --lines writes one body per line and --to {args.to} spans several; one of: {', '.join(single)}"
        )
    stream = _open(args.file, io)
    # Progress only for a person watching: stderr a terminal, and not --quiet; never into a pipe or a file.
    meter = None if args.quiet or not _isatty(io.stderr) else Meter(io.stderr)
    try:
        failed = convert_lines(
            stream,
            io.stdout.write,
            io.stdout.flush,
            io.say if meter is None else meter.before(io.say),
            to=args.to,
            source=args.source,
            status=args.status,
            strict=args.strict,
            read=_decode,
            jobs=args.jobs,
            progress=None if meter is None else meter.update,
        )
        if meter is not None:
            meter.close()
    finally:
        if stream is not io.stdin:
            stream.close()
    return EXIT_FAILED if failed else EXIT_OK


def _basis_note(fault: Fault) -> str | None:
    """The one line convert and explain write on stderr when the status was not stated
    (assumed: nothing in the response says it; inferred: from its words or code) or the
    move was assumed, naming --status; None when the response states the status."""
    status, step = fault.basis("status"), fault.basis("next_step")
    move = str(fault.next_step) if fault.next_step is not None else "none"
    hint = "pass --status N if you know it"
    if status.kind == "assumed":
        if step.kind == "assumed":
            also = f", so next step {move} is assumed too"
        elif step.kind == "inferred":
            also = f"; next step {move} inferred from {step.source}"
        else:
            also = f"; next step {move} is stated"
        return f"status assumed (the response states none){also}; {hint}"
    if status.kind == "inferred":
        return f"status {fault.status} inferred from {status.source} (the response states none); {hint}"
    if step.kind == "assumed":
        return f"next step {move} assumed (nothing in the response says it); {hint}"
    # A move inferred beside a stated status (from it, a code, a header or the words) is
    # errconv's reading, which explain's bases show; a status is what --status can give.
    return None


def _note_basis(fault: Fault, io: _IO) -> None:
    note = _basis_note(fault)
    if note is not None:
        io.say(note)


# --------------------------------------------------------------------------- detect and explain


def _detect(args: argparse.Namespace, io: _IO) -> int:
    # Detection looks at the shape; decoding confirms it, so `detect` names a dialect
    # only for input that really reads as an error in it (binary junk is not `status`).
    try:
        _, dialect = _decode(_read(args.file, io), None, _name(args.file))
    except DecodeError as exc:  # detect takes no status: the commands that do are named
        raise DecodeError(str(exc).replace("(status=)", "(errconv convert or explain --status N)")) from None
    io.stdout.write(dialect.encode() + b"\n")
    return EXIT_OK


_DEFAULTS = {
    f.name: f.default_factory() if f.default_factory is not msgspec.NODEFAULT else f.default
    for f in msgspec.structs.fields(Fault)
}
_FIELDS = tuple(name for name in _DEFAULTS if name != "origin")


def _table_dialects() -> tuple[str, ...]:
    """The dialects explain's table lists: every one that writes, but `http` (it writes
    what `http+problem` writes) and `fault` (the model itself)."""
    return tuple(
        name
        for name in dialects.names()
        if get(name).encodes and name != "fault" and getattr(get(name), "alias_of", None) is None
    )


def _present(fault: Fault) -> list[str]:
    """The fields that hold something (status and grpc_code, which have no default, always do)."""
    return [name for name in _FIELDS if getattr(fault, name) != _DEFAULTS[name]]


def _explanation(fault: Fault, dialect: str | None = None) -> dict[str, Any]:
    """What `errconv explain --json` prints for a fault read from `dialect`."""
    origin = fault.origin
    present = _present(fault)
    table = []
    for name in _table_dialects():
        lost = list(losses(fault, name))
        table.append({"dialect": name, "keeps": [f for f in present if f not in lost], "loses": lost})
    step = str(fault.next_step) if fault.next_step is not None else None
    info: dict[str, Any] = {
        "dialect": dialect,
        "status": fault.status,
        "status_name": reason_phrase(fault.status),
        "grpc_code": fault.grpc_code,
        "grpc_code_name": fault.grpc_code_name,
        "code": fault.code,
        "domain": fault.domain,
        "next_step": step,
        "next_step_source": origin.next_step if origin else "stated",
        "stated": origin.stated if origin else True,
        "retry_after_seconds": fault.retry_after_seconds,
        "param": fault.param,
        "violations": [msgspec.to_builtins(v) for v in fault.violations],
        "alternatives": list(fault.alternatives),
        "alternatives_truncated": fault.alternatives_truncated,
        "blocked_by": fault.blocked_by,
        "unblock_with": fault.unblock_with,
        "title": fault.title,
        "detail": fault.detail,
        "notes": list(origin.notes) if origin else [],
        "dialects": table,
    }
    # The basis of each fact errconv holds (Origin.basis): stated, inferred or assumed.
    info["bases"] = {
        fact: {"kind": basis.kind, "source": basis.source}
        for fact in ("status", "code", "next_step", "retry_after_seconds")
        for basis in (fault.basis(fact),)
    }
    info["dialects"] = info.pop("dialects")
    if origin is not None and origin.evidence:
        # The general reader's: where each fact came from (before the table, after the notes).
        info["evidence"] = [{"fact": fact, "from": source} for fact, source in origin.evidence]
        info["dialects"] = info.pop("dialects")
    return info


def _advice(fault: Fault) -> str:
    """One sentence: the move the caller should make."""
    if fault.next_step == NextStep.WAIT:
        if fault.retry_after_seconds is not None:
            return f"wait {fault.retry_after_seconds} s, then repeat the identical call"
        steps = ", ".join(f"{s:g}" for s in DEFAULT_BACKOFF)
        return f"wait, then repeat the identical call; no delay was given, so back off ({steps} s)"
    if fault.next_step == NextStep.FIX_REQUEST:
        if fault.param:
            return f"change {fault.param}, then call again"
        return "change the request, then call again; no parameter is named, so the caller must guess which"
    if fault.unblock_with:
        changes = f" (it changes {fault.blocked_by})" if fault.blocked_by else ""
        return f"stop: repeating this call will not succeed; calling {fault.unblock_with}{changes} may unblock it"
    if fault.alternatives:
        return "stop: repeating this call will not succeed; offer one of the alternatives"
    return "stop: repeating this call will not succeed; report it"


def _violation(v: Violation) -> str:
    """`field: description (reason)`, each part only when it says something."""
    text = v.field or "(no field named)"
    if v.description:
        text += f": {v.description}"
    return text + (f" ({v.reason})" if v.reason else "")


def _explain_text(fault: Fault, info: dict[str, Any]) -> str:
    rows: list[tuple[str, str]] = []
    dialect = info["dialect"]
    if dialect:
        rows.append(("read as", dialect))
    rows.append(("status", f"{fault.status} {info['status_name']}, gRPC {fault.grpc_code_name} ({fault.grpc_code})"))
    if fault.code:
        rows.append(("code", fault.code + (f" (domain {fault.domain})" if fault.domain else "")))
    else:
        rows.append(("code", "none: nothing stable to switch on"))
    if info["stated"]:
        source = "stated in the body"
    elif info["bases"]["next_step"]["kind"] == "assumed":
        source = f"assumed ({info['next_step_source']} of an assumed status); nothing in the response says it"
    else:
        source = f"{info['next_step_source']}; the body does not say"
    rows.append(("next step", f"{info['next_step'] or 'none'}, {source}"))
    rows.append(("so", _advice(fault)))
    if fault.param:
        rows.append(("param", fault.param))
    for v in fault.violations:
        rows.append(("violation", _violation(v)))
    if fault.alternatives:
        more = ", and more exist" if fault.alternatives_truncated else ""
        rows.append(("alternatives", f"{len(fault.alternatives)}{more}"))
        rows.extend(("", json.dumps(a, ensure_ascii=False, separators=(", ", ": "))) for a in fault.alternatives)
    if fault.blocked_by:
        rows.append(("blocked by", fault.blocked_by))
    if fault.unblock_with:
        rows.append(("unblock with", fault.unblock_with))
    for label in ("title", "detail"):
        if info[label]:
            rows.append((label, info[label]))
    rows.extend(("note", note) for note in info["notes"])
    rows.extend(("evidence", f"{e['fact']}: {e['from']}") for e in info.get("evidence", ()))
    for fact, basis in info["bases"].items():
        said = {"stated": "stated by", "inferred": "inferred from", "assumed": "assumed"}[basis["kind"]]
        if basis["kind"] == "assumed":
            text = "assumed: nothing in the response says it" if basis["source"] is None else f"assumed ({basis['source']})"
        else:
            text = f"{said} {basis['source']}" if basis["source"] else basis["kind"]
        rows.append(("basis", f"{fact}: {text}"))
    lines = [f"{label:<13}{value}".rstrip() for label, value in rows]
    lines.append("")
    lines.append(f"what each dialect keeps of the {len(_present(fault))} fields set")
    width = max(len(d) for d in _table_dialects()) + 2
    lines.append(f"  {'dialect':<{width}}keeps  loses")
    for row in info["dialects"]:
        loses = ", ".join(row["loses"]) or "-"
        lines.append(f"  {row['dialect']:<{width}}{len(row['keeps']):<7}{loses}")
    return "\n".join(lines) + "\n"


def _explain(args: argparse.Namespace, io: _IO) -> int:
    data = _read(args.file, io)
    misread = _misread(data, args.source) if args.status is None else None
    if misread is not None:
        io.say(f"{_name(args.file)}: {misread}")
    fault, dialect = _decode(data, args.source, _name(args.file), args.status)
    _note_basis(fault, io)
    info = _explanation(fault, dialect)
    if args.json:
        io.stdout.write(json.dumps(info, indent=2, ensure_ascii=False).encode() + b"\n")
    else:
        io.stdout.write(_explain_text(fault, info).encode())
    return EXIT_OK


# --------------------------------------------------------------------------- lint and simulate


def _lint(args: argparse.Namespace, io: _IO) -> int:
    if args.list_rules:
        width = max(len(r) for r in RULES) + 2
        text = "".join(f"{r.id:<{width}}{r.severity:<9}{r.summary}\n" for r in RULES.values())
        io.stdout.write(text.encode())
        return EXIT_OK
    if not args.paths:
        raise _UsageError("errconv lint: give one or more files, directories or globs (or --list-rules)")
    try:
        catalog = Catalog.load(args.catalog) if args.catalog else None
        report = lint_paths(args.paths, ignore=args.ignore, catalog=catalog)
    except FileNotFoundError as exc:
        raise _InputError(str(exc)) from None
    if args.format == "json":
        doc = {
            "files": len(report.files),
            "errors": report.errors,
            "warnings": report.warnings,
            "findings": [f.to_dict() for f in report.findings],
        }
        io.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False).encode() + b"\n")
    else:
        io.stdout.write("".join(f"{f}\n" for f in report.findings).encode())
        io.stdout.write(_summary(report.findings, len(report.files)).encode())
    return EXIT_FAILED if report.errors else EXIT_OK


def _summary(findings: list[Finding], files: int) -> str:
    noun = f"{files} file{'s' if files != 1 else ''}"
    if not findings:
        return f"no findings in {noun}\n"
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors
    parts = [f"{errors} error{'s' if errors != 1 else ''}", f"{warnings} warning{'s' if warnings != 1 else ''}"]
    return f"{', '.join(parts)} in {noun}\n"


def _simulate(args: argparse.Namespace, io: _IO) -> int:
    result = simulation.simulate(args.renderings, budget=args.budget, clears_at=args.clears_at)
    if args.json:
        io.stdout.write(json.dumps(result.to_dict(), indent=2).encode() + b"\n")
    else:
        io.stdout.write(result.render().encode())
    return EXIT_OK


def _catalog(args: argparse.Namespace, io: _IO) -> int:
    from . import catalog as catalog_cli

    return catalog_cli.run(args, io)


_HANDLERS = {"convert": _convert, "detect": _detect, "explain": _explain, "lint": _lint, "simulate": _simulate, "catalog": _catalog}


# --------------------------------------------------------------------------- main


def main(
    argv: Sequence[str] | None = None,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command with `argv` (default: sys.argv[1:]); returns the exit status.

    The streams default to the process's own; tests pass their own to run the
    command in-process. `stdout` is binary (converted bodies may be bytes);
    `stderr` is text.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    io = _IO(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer, stderr or sys.stderr)
    debug = "--debug" in argv
    try:
        try:
            args = _parser(io.stdout).parse_args(argv)
        except _Exit as exc:
            return exc.status  # --help, --version
        if args.command is None:
            raise _UsageError(f"errconv: give a command, one of: {', '.join(COMMANDS)} (errconv --help for more)")
        status = _HANDLERS[args.command](args, io)
        io.stdout.flush()
        return status
    except _UsageError as exc:
        io.stderr.write(f"{exc}\n")
        return EXIT_USAGE
    except (_InputError, ErrconvError) as exc:
        if debug:
            raise
        io.say(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`errconv convert --lines ... | head`): not an error.
        # Point stdout at /dev/null so the interpreter's final flush cannot fail again.
        if io.stdout is getattr(sys.stdout, "buffer", None):
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if debug:
            raise
        io.say(f"internal error: {type(exc).__name__}: {str(exc)[:200]}; run with --debug for the traceback, and please report it")
        return EXIT_BUG
