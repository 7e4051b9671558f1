"""The `errconv` command, pinned by transcripts in tests/cli/*.txt, plus what a transcript cannot show.

A transcript is one session, run in-process from the repository root:

    # What it shows (comment lines, kept on update).
    #! tty                      (optional: stdout reports itself a terminal)
    $ errconv convert golden/rate_limited/problem.json --to stripe
    --- stdin                   (optional; "--- stdin (base64)" for bytes)
    ...
    --- stdout                  ("(base64)" when not UTF-8)
    ...
    --- stderr
    ...
    --- exit 0

A section holds the lines up to the next `--- ` marker; a marker ending in
`(no newline at end)` drops the last newline. Bytes that are not UTF-8 text, or hold
control characters other than tab, CR and LF, are a `(base64)` section. Files are read
and written byte for byte: an HTTP response keeps its CRLFs (tests/cli/.gitattributes
keeps git from touching them). `pytest --update-goldens` rewrites stdout, stderr and
exit from a fresh run; review the diff like code.
"""

from __future__ import annotations

import base64
import io
import pathlib
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

import errconv
from errconv import _cli as cli, dialects

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRANSCRIPTS = sorted((ROOT / "tests" / "cli").glob("*.txt"))
_MARKER = re.compile(r"--- (stdin|stdout|stderr|exit)(.*)\n")
_NO_NEWLINE = " (no newline at end)"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _load(path: pathlib.Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:  # newline="": keep CRLF as it is
        return fh.read()


def _save(path: pathlib.Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


@dataclass
class Transcript:
    comments: list[str]
    tty: bool
    command: str
    stdin: bytes | None
    stdout: bytes
    stderr: str
    exit: int


def _section(text: str, suffix: str) -> bytes:
    data = base64.b64decode("".join(text.split())) if "(base64)" in suffix else text.encode()
    if _NO_NEWLINE in suffix and data.endswith(b"\n"):
        data = data[:-1]
    return data


def parse(text: str) -> Transcript:
    lines = text.splitlines(keepends=True)
    comments, tty, i = [], False, 0
    while lines[i].startswith("#"):
        if lines[i].strip() == "#! tty":
            tty = True
        else:
            comments.append(lines[i])
        i += 1
    assert lines[i].startswith("$ errconv"), f"expected `$ errconv ...`, got {lines[i]!r}"
    command = lines[i][2:].rstrip("\n")
    sections: dict[str, tuple[str, str]] = {}
    current: str | None = None
    for line in lines[i + 1 :]:
        m = _MARKER.fullmatch(line)
        if m:
            current = m.group(1)
            sections[current] = (m.group(2), "")
            continue
        assert current is not None, f"text before the first section: {line!r}"
        suffix, body = sections[current]
        sections[current] = (suffix, body + line)
    stdin = _section(sections["stdin"][1], sections["stdin"][0]) if "stdin" in sections else None
    return Transcript(
        comments=comments,
        tty=tty,
        command=command,
        stdin=stdin,
        stdout=_section(sections["stdout"][1], sections["stdout"][0]),
        stderr=_section(sections["stderr"][1], sections["stderr"][0]).decode(),
        exit=int(sections["exit"][0].strip()),
    )


def _format_section(name: str, data: bytes) -> str:
    try:
        text = data.decode()
        suffix = ""
        if _CONTROL.search(text):
            raise UnicodeDecodeError("utf-8", data, 0, 1, "control characters")
    except UnicodeDecodeError:
        encoded = base64.b64encode(data).decode()
        text = "".join(encoded[i : i + 76] + "\n" for i in range(0, len(encoded), 76))
        return f"--- {name} (base64)\n{text}"
    if text and not text.endswith("\n"):
        text += "\n"
        suffix = _NO_NEWLINE
    return f"--- {name}{suffix}\n{text}"


def render(t: Transcript) -> str:
    head = "".join(t.comments) + ("#! tty\n" if t.tty else "") + f"$ {t.command}\n"
    stdin = _format_section("stdin", t.stdin) if t.stdin is not None else ""
    return (
        head
        + stdin
        + _format_section("stdout", t.stdout)
        + _format_section("stderr", t.stderr.encode())
        + f"--- exit {t.exit}\n"
    )


class _Terminal(io.BytesIO):
    def isatty(self) -> bool:
        return True


def run(t: Transcript) -> Transcript:
    """Run the transcript's command in-process; the same transcript with what it printed."""
    argv = shlex.split(t.command)
    assert argv[0] == "errconv"
    stdout = _Terminal() if t.tty else io.BytesIO()
    stderr = io.StringIO()
    status = cli.main(argv[1:], stdin=io.BytesIO(t.stdin or b""), stdout=stdout, stderr=stderr)
    out, err = as_pure_build(stdout.getvalue()), stderr.getvalue()
    return Transcript(t.comments, t.tty, t.command, t.stdin, without_the_registry(out), without_the_registry(err), status)


def _enumerations() -> list[tuple[str, str]]:
    """The lists of every dialect the command prints, longest first, with what a
    transcript says in their place."""
    names = dialects.names()
    return [
        (", ".join(names), "<every dialect name>"),
        (", ".join(n for n in names if dialects.get(n).encodes), "<every dialect errconv writes>"),
        (", ".join(d.name for d in dialects.registered()), "<every dialect>"),
    ]


def without_the_registry(out: str | bytes) -> Any:
    """`out` with each list of every dialect replaced by a placeholder: a transcript
    does not enumerate the registry, so a new dialect changes none of them."""
    for every, placeholder in _enumerations():
        if isinstance(out, bytes):
            out = out.replace(every.encode(), placeholder.encode())
        else:
            out = out.replace(every, placeholder)
    return out


def as_pure_build(out: bytes) -> bytes:
    """The transcripts show the pure-Python build, so the suite holds either build to
    them: `errconv --version` names the build that runs (`(compiled with mypyc)`), and
    that one word is read as the pure build's here. test_version_names_the_build shows
    the compiled build's own line."""
    return out.replace(f"errconv {errconv.__version__} ({cli.BUILD})".encode(), f"errconv {errconv.__version__} (pure Python)".encode())


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[p.stem for p in TRANSCRIPTS])
def test_transcript(path: pathlib.Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    want = parse(_load(path))
    got = run(want)
    if request.config.getoption("--update-goldens"):
        if render(got) != _load(path):
            _save(path, render(got))
            print(f"updated {path.relative_to(ROOT)}")
        return
    assert (got.stdout, got.stderr, got.exit) == (want.stdout, want.stderr, want.exit), (
        f"{path.relative_to(ROOT)} differs; run `pytest --update-goldens -q` and review the diff"
    )


def test_every_subcommand_has_transcripts_for_good_and_bad_input() -> None:
    by_command: dict[str, set[int]] = {}
    for path in TRANSCRIPTS:
        t = parse(_load(path))
        command = shlex.split(t.command)[1] if len(shlex.split(t.command)) > 1 else ""
        by_command.setdefault(command, set()).add(t.exit)
    for command in cli.COMMANDS:
        assert 0 in by_command.get(command, set()), f"no transcript of a successful `errconv {command}`"
    for command in ("convert", "detect", "explain", "lint", "simulate"):
        assert 2 in by_command[command], f"no transcript of `errconv {command}` refusing bad input"


def test_transcript_format_round_trips() -> None:
    for path in TRANSCRIPTS:
        assert render(parse(_load(path))) == _load(path), path.name


# --------------------------------------------------------------------------- what transcripts cannot show


def _main(argv: list[str], stdin: bytes = b"", stdout: io.BytesIO | None = None) -> tuple[int, bytes, str]:
    out = stdout if stdout is not None else io.BytesIO()
    err = io.StringIO()
    status = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_status_output_is_raw_into_a_pipe_and_base64_on_a_terminal() -> None:
    body = (ROOT / "golden/rate_limited/problem.json").read_bytes()
    raw = (ROOT / "golden/rate_limited/status.binpb").read_bytes()
    assert _main(["convert", "--to", "status"], body)[1] == raw
    assert _main(["convert", "--to", "status"], body, _Terminal())[1] == base64.b64encode(raw) + b"\n"


def test_base64_status_reads_back_with_from_status() -> None:
    raw = (ROOT / "golden/rate_limited/status.binpb").read_bytes()
    status, out, _ = _main(["convert", "--from", "status", "--to", "problem"], base64.b64encode(raw) + b"\n")
    assert status == 0
    assert errconv.decode(out) == errconv.decode(raw, "status")


def test_debug_shows_the_traceback() -> None:
    with pytest.raises(errconv.DecodeError):
        cli.main(["convert", "--to", "google", "--debug"], stdin=io.BytesIO(b"{"), stdout=io.BytesIO(), stderr=io.StringIO())


def test_a_bug_is_one_line_and_exit_70(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something broke")

    monkeypatch.setattr(cli, "losses", boom)
    body = (ROOT / "golden/rate_limited/problem.json").read_bytes()
    status, out, err = _main(["convert", "--to", "google"], body)
    assert (status, out) == (70, b"")
    assert err == "errconv: internal error: RuntimeError: something broke; run with --debug for the traceback, and please report it\n"


def test_version_names_the_build() -> None:
    status, out, err = _main(["--version"])
    build = "compiled with mypyc" if errconv.__compiled__ else "pure Python"
    assert (status, out, err) == (0, f"errconv {errconv.__version__} ({build})\n".encode(), "")
    assert isinstance(errconv.__compiled__, bool)


def test_help_goes_to_stdout_and_exits_0() -> None:
    status, out, err = _main(["--help"])
    assert (status, err) == (0, "")
    assert b"convert" in out and b"simulate" in out
    status, out, err = _main(["lint", "--help"])
    assert (status, err) == (0, "")
    assert b"--list-rules" in out


def test_lines_skips_a_line_over_the_limit_and_goes_on() -> None:
    huge = b'{"detail": "' + b"x" * errconv.Limits().max_bytes + b'"}\n'
    good = (ROOT / "golden/not_found/problem.json").read_bytes().strip() + b"\n"
    status, out, err = _main(["convert", "--lines", "--to", "problem"], good + huge + good)
    assert status == 1
    message = f"line 2: over {errconv.Limits().max_bytes} bytes, the most errconv reads as one error"
    assert out == good + b'{"errconv_error":"' + message.encode() + b'","line":2}\n' + good  # its error line keeps the lines aligned
    assert err == f"errconv: line 2: over {errconv.Limits().max_bytes} bytes, the most errconv reads as one error\n"


def test_broken_pipe_is_quiet() -> None:
    # A reader that goes away early is the normal end of `errconv ... | head`.
    lines = (ROOT / "golden/not_found/problem.json").read_bytes().strip() + b"\n"
    proc = subprocess.run(
        f"{shlex.quote(sys.executable)} -m errconv convert --lines --to problem | head -c 10",
        shell=True,
        input=lines * 20_000,
        capture_output=True,
        check=False,
    )
    assert proc.stderr == b""
    assert len(proc.stdout) == 10


def test_python_dash_m_runs_the_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "errconv", "detect", "golden/rate_limited/google.json"], cwd=ROOT, capture_output=True, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"google\n", b"")
