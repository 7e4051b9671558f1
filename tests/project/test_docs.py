"""The README and the documentation site (issue 30): every example runs as pasted and prints what
the page shows, the site builds strictly, the README is a front page with an Install section that
matches pyproject.toml, and the figures and tables that could go stale are checked or generated.

Conventions a page follows (docs/about.md says them to a writer):

- A ```python block runs on its own, in a fresh interpreter, in an empty temporary directory, so
  it can find no file of the repository: it is self-contained, or it reads a file the same page
  shows in a block titled with its name (```toml title="errors.toml"), which is written there
  first. A ```py block is shown, not run here (CrewAI's; its own test runs it).
- A ```text block right after an example (or after a line `prints`) is its standard output, compared line by line (trailing
  blanks ignored; a `...` line stands for any number of lines).
- The line before an example may say more of it: `<!-- example: OPTION ... -->`, where OPTION
  is `stderr` (its stderr is part of it, a server log that is the point; otherwise an example
  writes nothing to stderr) or `needs:MODULE,...` (it needs modules of the test-engines extra:
  skipped where they are missing, and run by .ci/run, which installs them and sets
  ERRCONV_TEST_ENGINES=1, under which a missing one fails).
- ```console transcripts (`$ errconv ...`) are checked by test_readme_transcripts.py; they read
  files of a clone, from its root.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

import errconv

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
OPTIONS = re.compile(r"^<!-- example: (.*) -->$")


def pages() -> list[pathlib.Path]:
    """The README and every page of the site (docs/_handoff/ is drafts, docs/figures/ what the
benchmarks printed, which pages include)."""
    found = sorted(p for p in DOCS.rglob("*.md") if not {"_handoff", "figures"} & set(p.relative_to(DOCS).parts))
    return [ROOT / "README.md", *found]


@dataclasses.dataclass
class Block:
    page: pathlib.Path
    line: int  # of the opening fence, 1-based
    lang: str
    title: str | None
    code: str
    before: str  # the last non-blank line before the fence
    output: str | None = None  # the ```text block right after it, if any

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


FENCE = re.compile(r"^```([\w+-]*)(.*)$")


def blocks(page: pathlib.Path) -> list[Block]:
    lines = page.read_text().splitlines()
    out: list[Block] = []
    i = 0
    last_text = ""
    gap_since_block = None  # lines since the last block closed, all blank
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            if lines[i].strip():
                last_text = lines[i].strip()
                if last_text.rstrip(":").lower() != "prints":  # "prints" introduces the output
                    gap_since_block = None
            i += 1
            continue
        lang, rest = match.group(1), match.group(2)
        title = re.search(r'title="([^"]+)"', rest)
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        code = "\n".join(lines[i + 1 : end]) + "\n"
        block = Block(page, i + 1, lang, title.group(1) if title else None, code, last_text)
        if lang == "text" and out and gap_since_block is not None and out[-1].lang == "python":
            out[-1].output = code
        else:
            out.append(block)
        last_text = ""
        gap_since_block = 0
        i = end + 1
    return out


ALL = [b for p in pages() for b in blocks(p)]
EXAMPLES = [b for b in ALL if b.lang == "python"]


def matches(want: str, got: str) -> bool:
    want_lines = [line.rstrip() for line in want.strip("\n").splitlines()]
    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in want_lines)
    got_text = "".join(line.rstrip() + "\n" for line in got.replace("\r\n", "\n").strip("\n").splitlines())
    return re.fullmatch(pattern, got_text) is not None


def options(block: Block) -> dict[str, str]:
    match = OPTIONS.match(block.before)
    return dict((option.split(":", 1) + [""])[:2] for option in match.group(1).split()) if match else {}


@pytest.mark.parametrize("block", EXAMPLES, ids=[b.where for b in EXAMPLES])
def test_every_example_runs_as_pasted_and_prints_what_it_shows(block: Block, tmp_path: pathlib.Path) -> None:
    for module in filter(None, options(block).get("needs", "").split(",")):
        if os.environ.get("ERRCONV_TEST_ENGINES"):
            __import__(module)
        else:
            pytest.importorskip(module, reason=f"{module} is in the test-engines extra, which .ci/run installs and runs this with")
    for shown in blocks(block.page):
        if shown.title:  # a file the page shows is a file its examples may read
            (tmp_path / shown.title).write_text(shown.code)
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if "PYTHONPATH" in env:  # the sources under test, wherever the example runs from
        env["PYTHONPATH"] = os.pathsep.join(str((ROOT / p).resolve()) if not os.path.isabs(p) else p for p in env["PYTHONPATH"].split(os.pathsep))
    result = subprocess.run([sys.executable, "-c", block.code], cwd=tmp_path, capture_output=True, text=True, timeout=180, env=env)
    assert result.returncode == 0, f"{block.where}:\n{result.stderr[-3000:]}"
    if block.output is not None:
        assert matches(block.output, result.stdout), f"{block.where} prints:\n{result.stdout}"
    if "stderr" not in options(block):
        stderr = _GRPC_GOAWAY.sub("", result.stderr)
        assert stderr == "", f"{block.where} writes to stderr (quiet it, or say <!-- example: stderr -->):\n{stderr[-3000:]}"


# grpcio's C core may log this info line as a loopback server stops under a client's channel,
# whatever the example does (it came and went between runs of the same gRPC example).
_GRPC_GOAWAY = re.compile(r"(?m)^I\d{4} [\d:.]+ +\d+ chttp2_transport\.cc:\d+\] [^\n]*Got goaway[^\n]*\n")


def test_the_example_conventions_can_fail() -> None:
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n") and matches("x  \n", "x\r\n")
    assert not matches("a\nc\n", "a\nb\nc\n") and not matches("a\n...\nx\n", "a\nb\n")
    assert options(Block(ROOT, 1, "python", None, "", "<!-- example: stderr needs:duckdb,polars -->")) == {"stderr": "", "needs": "duckdb,polars"}
    goaway = "I1204 17:22:10.764456   27076 chttp2_transport.cc:1403] ipv4:127.0.0.1:46867: Got goaway [2] err=UNAVAILABLE\n"
    assert _GRPC_GOAWAY.sub("", f"{goaway}Traceback\n{goaway}") == "Traceback\n"
    page = DOCS / "guide" / "convert.md"
    assert any(b.output for b in blocks(page)), "an output block after an example is found"
    assert len(EXAMPLES) >= 35 and sum(1 for b in EXAMPLES if b.output) >= 8


def test_every_page_is_in_the_site_and_every_example_is_python_text_or_named() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in pages()[1:]:
        assert str(page.relative_to(DOCS)) in nav, f"{page} is in no nav"
    for block in ALL:
        assert block.lang, f"{block.where}: a block says its language"


# --------------------------------------------------------------------------- the README as a front page


README = (ROOT / "README.md").read_text()


def _table(text: str, header: str) -> list[list[str]]:
    start = text.index(header)
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_readme_is_a_front_page() -> None:
    lines = README.splitlines()
    assert len(lines) <= 300, len(lines)
    assert "\n## Install\n" in README and "pip install errconv\n" in README.split("## Install", 1)[1]
    uses = README.split("## Use", 1)[1].split("\n## ", 1)[0]
    for use in ("Convert", "Gateway", "gRPC", "HTTP clients", "Agents", "Catalog", "Bulk", "The command line"):
        assert f"**{use}**" in uses, use
    for link in re.findall(r"\]\(((?:docs/)[^)#]+)", README):
        assert (ROOT / link).is_file(), link


@pytest.mark.parametrize("page", ["README.md", "docs/install.md"])
def test_the_extras_table_is_pyproject_s(page: str) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    rows = _table((ROOT / page).read_text(), "| extra | brings | for |")
    assert [r[0].strip("`") for r in rows] == list(extras), "one row per extra, in pyproject's order"


# --------------------------------------------------------------------------- generated and checked figures


def _hooks():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import docs_hooks
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return docs_hooks


def test_the_dialect_table_is_generated_from_the_registry() -> None:
    hooks = _hooks()
    table = hooks.dialect_table()
    names = re.findall(r"^\| `([^`]+)` \|", table, re.MULTILINE)
    assert names == [d.name for d in errconv.dialects.registered()]
    assert "<!-- generated: dialect-table -->" in (DOCS / "reference" / "dialects.md").read_text()
    assert hooks.render("<!-- generated: dialect-table -->") == table
    with pytest.raises(KeyError):
        hooks.render("<!-- generated: no-such-table -->")


def test_the_guide_s_dialect_tables_name_every_dialect() -> None:
    guide = (DOCS / "guide" / "dialects.md").read_text()
    both = {n for row in _table(guide, "| name | wire form |") for n in re.findall(r"`([a-z][a-z0-9+<>-]*)`", row[0])}
    read_only = {row[0].strip("`") for row in _table(guide, "| name | reads |")}
    registered = {d.name for d in errconv.dialects.registered()}
    assert (both | read_only) - {"http+<name>"} == registered - {"general"}, "general has its own section"
    assert read_only == {d.name for d in errconv.dialects.registered() if not d.encodes} - {"general"}


def _realworld() -> tuple[int, int, int, int]:
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from dialects import test_realworld as realworld
    finally:
        sys.path.remove(str(ROOT / "tests"))
    right = stated = 0
    for _, path, entry in realworld.CAPTURES:
        want = realworld.stated(entry)
        stated += len(want)
        try:
            fault = realworld.read(path, entry)
        except errconv.DecodeError:
            continue
        right += sum(realworld.got(fault, name) == value for name, value in want.items())
    services = {key.split("/")[0] for key, _, _ in realworld.CAPTURES}
    return len(realworld.CAPTURES), len(services), right, stated


def test_the_real_world_figures_are_the_suite_s() -> None:
    captures, services, right, stated = _realworld()
    said = 0
    for page in pages():
        text = " ".join(page.read_text().split())
        for m in re.finditer(r"(\d+) real error responses from (\d+) services \(`tests/realworld/`[^)]*\) are read as they state: (\d+) of (\d+) facts", text):
            assert tuple(map(int, m.groups())) == (captures, services, right, stated), f"{page.name}: {m.group(0)}"
            said += 1
    assert said >= 2, "the README and the convert guide state the figures"


def test_every_public_module_has_its_reference_page() -> None:
    reference = "\n".join(p.read_text() for p in (DOCS / "reference").glob("*.md"))
    documented = ["errconv"] + [f"errconv.{name}" for name in ("agents", "aio", "batch", "clients", "codes", "details", "dialects", "gateway", "interceptors", "lint", "retry")]
    for package in ("agents", "clients"):
        documented += [f"errconv.{package}.{p.stem}" for p in (ROOT / "src" / "errconv" / package).glob("*.py") if not p.stem.startswith("_")]
    for name in documented:
        assert f"\n::: {name}\n" in f"\n{reference}\n", name


# --------------------------------------------------------------------------- the site builds, strictly


def test_the_site_builds_strictly(tmp_path: pathlib.Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's notice of its successor
    )
    assert result.returncode == 0, result.stderr[-4000:]
    html = (tmp_path / "site" / "reference" / "dialects" / "index.html").read_text()
    assert all(f"<code>{d.name}</code>" in html for d in errconv.dialects.registered())
    assert "generated: dialect-table" not in html
    assert 'id="errconv.decode"' in (tmp_path / "site" / "reference" / "errconv" / "index.html").read_text()
    shutil.rmtree(tmp_path / "site")


# How the README's opening paragraph (and docs/index.md's) names each dialect. A dialect
# registered later fails here until the paragraph names it (issue 30: vault was missing).
INTRO_NAMES = {
    "fault": None,  # errconv's own model, named by the paragraph's `errconv.Fault`
    "problem": "RFC 9457", "google": "Google", "status-json": "google.rpc.Status", "status": "google.rpc.Status",
    "grpc": "gRPC", "stripe": "Stripe", "openai": "OpenAI", "anthropic": "Anthropic", "slack": "Slack",
    "oauth": "OAuth", "cloudflare": "Cloudflare", "github": "GitHub", "discord": "Discord", "twilio": "Twilio",
    "elasticsearch": "Elasticsearch", "fastapi": "FastAPI", "drf": "Django REST framework", "spring": "Spring",
    "graphql": "GraphQL", "jsonapi": "JSON:API", "jsonrpc": "JSON-RPC", "mcp": "MCP", "connect": "Connect",
    "twirp": "Twirp", "odata": "OData", "kubernetes": "Kubernetes", "aws": "AWS", "vault": "Vault",
    "http": "HTTP responses", "general": "ad-hoc shapes",
}  # fmt: skip


@pytest.mark.parametrize("page", ["README.md", "docs/index.md", "docs/guide/convert.md"])
def test_the_opening_paragraph_names_every_dialect(page: str) -> None:
    text = (ROOT / page).read_text()
    paragraph = " ".join(next(p for p in text.split("\n\n") if "Connect, Twirp" in p).split())
    for dialect in errconv.dialects.registered():
        name = INTRO_NAMES[dialect.name]
        assert name is None or name in paragraph, (page, dialect.name, name)
