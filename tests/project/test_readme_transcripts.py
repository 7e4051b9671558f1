"""Every shell transcript the README and the documentation site show (`$ errconv ...` and the
output under it) is what the command prints today (issue 23, item 10; issue 30 moved most of them
into docs/): drift fails here, not in a reader's terminal. Transcripts read files of a clone, from
its root.

A `...` line in a transcript stands for any number of lines. A command ending in
`> FILE` shows only what goes to stderr. stdout is compared before stderr, as the README
prints them."""

from __future__ import annotations

import io
import pathlib
import re
import shlex
import tomllib

import pytest

import errconv
from errconv import _cli as cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI_GUIDE = (ROOT / "docs" / "guide" / "cli.md").read_text()
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if not {"_handoff", "figures"} & set(p.parts))]


def _transcripts() -> list[tuple[str, str, list[str]]]:
    found = []
    for page in PAGES:
        found += [(f"{page.relative_to(ROOT)}:{line}", command, output) for line, command, output in _page_transcripts(page.read_text())]
    return found


def _page_transcripts(text: str) -> list[tuple[int, str, list[str]]]:
    found = []
    for block in re.finditer(r"```console\n(.*?)```", text, re.DOTALL):
        line = text[: block.start()].count("\n") + 2
        command: str | None = None
        output: list[str] = []
        start = line
        for number, text in enumerate(block.group(1).splitlines(), line):
            if text.startswith("$ "):
                if command is not None:
                    found.append((start, command, output))
                command, output, start = text[2:], [], number
            elif command is not None:
                output.append(text)
        if command is not None:
            found.append((start, command, output))
    return found


TRANSCRIPTS = _transcripts()


def _matches(want: list[str], got: list[str]) -> bool:
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line.rstrip()) + r"\n" for line in want)
    return re.fullmatch(pattern, "".join(g.rstrip() + "\n" for g in got)) is not None


def test_the_readme_shows_transcripts() -> None:
    assert len(TRANSCRIPTS) >= 5
    assert {c.split()[1] for _, c, _ in TRANSCRIPTS} >= {"convert", "explain", "lint", "simulate"}


@pytest.mark.parametrize(("line", "command", "want"), TRANSCRIPTS, ids=[t[0] for t in TRANSCRIPTS])
def test_each_transcript_is_the_real_output(line: str, command: str, want: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)
    assert argv[0] == "errconv", f"{line}: only errconv commands are checked"
    argv = argv[1:]
    to_file = ">" in argv
    if to_file:
        argv = argv[: argv.index(">")]
    out, err = io.BytesIO(), io.StringIO()
    cli.main(argv, stdin=io.BytesIO(b""), stdout=out, stderr=err)
    got = ([] if to_file else out.getvalue().decode().splitlines()) + err.getvalue().splitlines()
    assert _matches(want, got), f"{line}: `{command}` prints:\n" + "\n".join(got)


def test_the_matcher_can_fail() -> None:
    assert _matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert not _matches(["a", "c"], ["a", "b", "c"])
    assert not _matches(["a", "...", "x"], ["a", "b"])


def test_the_detect_section_lists_no_stale_subset_of_dialects() -> None:
    section = CLI_GUIDE.split("## detect and explain", 1)[1].split("```", 1)[0]
    named = set(re.findall(r"`([a-z][a-z0-9+-]*)`", section)) & set(errconv.dialect_names())
    assert named <= {"http"} or named == set(errconv.dialect_names()), named


def test_the_docs_name_no_function_that_does_not_exist() -> None:
    for name in re.findall(r"\b(encode_with|decode_with|convert_with)\(", "".join(p.read_text() for p in PAGES)):
        assert hasattr(errconv, name), name
    # encode takes keep_debug (called, not inspected: a compiled function has no signature to read)
    errconv.encode(errconv.Fault.build(status=500, code="oops"), "problem", keep_debug=True)


def test_the_package_version_is_the_one_the_command_says() -> None:
    # One version, written once (src/errconv/_version.py), which pyproject.toml reads.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" in project["dynamic"]
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "errconv._version.__version__"}
    out = io.BytesIO()
    cli.main(["--version"], stdout=out, stderr=io.StringIO())
    assert out.getvalue().decode().startswith(f"errconv {errconv.__version__} ")


def test_seed_004_is_said_what_it_is_where_users_meet_it() -> None:
    out = io.BytesIO()
    cli.main(["simulate", "--help"], stdout=out, stderr=io.StringIO())
    assert "published guide" in out.getvalue().decode()
    for module in (errconv.lint, __import__("errconv._cli.simulate", fromlist=["x"])):
        doc = module.__doc__ or ""
        if "seed 004" in doc:
            assert "How to design error responses an autonomous agent" in doc, module.__name__
    section = CLI_GUIDE.split("## simulate", 1)[1][:600]
    assert "How to design error responses an autonomous agent" in section
