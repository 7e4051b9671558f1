"""The catalog builder treats its input as untrusted (issue 27, items 1 and 10).

A catalog can arrive in a pull request and be built in CI with CI's rights, so these are
written as the contract, not as the one reproduction each:
- nothing is written outside `--out`: no `..` or absolute path, whatever the type URIs
  say, and no symbolic link inside the output followed out of it;
- the Markdown pages escape what they quote (no raw HTML, no link the catalog wrote);
- codes are ASCII identifiers, unique after case folding; `domain` and every generated
  identifier fit the grammar they land in (a proto package, an enum value, an OpenAPI name);
- `catalog diff` refuses a git revision that git would read as an option;
and, from issue 30: `Catalog.load` reports every problem of a file at once, and a wait
that states no delay anywhere is refused at load rather than shown with an invented one.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

import errconv
from errconv._catalog import CatalogError
from errconv._catalog._build import build, write

HEAD = 'domain = "api.example.com"\ntype_base = "https://api.example.com/problems/"\n'
GONE = '[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\n'


def cli(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    src = str(pathlib.Path(errconv.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "errconv", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def tree(root: pathlib.Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


# --------------------------------------------------------------------------- nothing outside --out


@pytest.mark.parametrize(
    "type_base",
    [
        "https://api.example.com/../../../../tmp/x/",
        "https://api.example.com/a/../../../x/",
        "https://api.example.com/%2e%2e/%2E%2E/x/",
        "https://api.example.com/./x/",
        "https://api.example.com/a\\..\\..\\x/",
    ],
)
def test_a_type_base_that_climbs_out_is_refused_at_load(type_base: str) -> None:
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(f"domain = \"api.example.com\"\ntype_base = '{type_base}'\n" + GONE)
    assert caught.value.rule == "type-base"


def test_the_command_writes_nothing_outside_out_for_a_climbing_catalog(tmp_path: pathlib.Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    catalog = tmp_path / "errors.toml"
    catalog.write_text(f'domain = "api.example.com"\ntype_base = "https://api.example.com/../../victim/x/"\n{GONE}')
    (tmp_path / "out").mkdir()
    before = tree(tmp_path)
    proc = cli("catalog", "build", str(catalog), "--out", str(tmp_path / "out" / "site"), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "type-base" in proc.stderr and "Traceback" not in proc.stderr
    assert tree(tmp_path) == before


@pytest.mark.parametrize("rel", ["../x", "a/../../x", "/etc/x", "a//b", "a/./b", "a\\..\\b", "a/b\x00c", "c:/x"])
def test_write_refuses_a_path_that_is_no_plain_path_under_out(tmp_path: pathlib.Path, rel: str) -> None:
    out = tmp_path / "out"
    with pytest.raises(CatalogError) as caught:
        write({"fine/index.md": b"ok", rel: b"pwned"}, str(out))
    assert caught.value.rule == "out-path"
    # Every path is checked before the first byte is written.
    assert not out.exists() or tree(out) == set()
    assert not (tmp_path / "x").exists()


def test_a_symbolic_link_inside_out_is_not_followed_out(tmp_path: pathlib.Path) -> None:
    catalog = errconv.Catalog.loads(HEAD + GONE)
    files = build(catalog)
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    # A directory the build writes into is a link to somewhere else...
    (out / "examples").symlink_to(outside, target_is_directory=True)
    with pytest.raises(CatalogError, match="symbolic link") as caught:
        write(files, str(out))
    assert caught.value.rule == "out-path"
    assert tree(outside) == set()
    # ... and so is a file it writes, planted at its own name.
    (out / "examples").unlink()
    target = outside / "planted"
    target.write_text("mine")
    (out / "openapi.json").symlink_to(target)
    with pytest.raises(CatalogError, match="symbolic link"):
        write(files, str(out))
    assert target.read_text() == "mine"


def test_out_itself_may_be_a_link(tmp_path: pathlib.Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    files = build(errconv.Catalog.loads(HEAD + GONE))
    written = write(files, str(tmp_path / "alias"))
    assert written == sorted(files) and (real / "openapi.json").exists()


# --------------------------------------------------------------------------- Markdown escapes what it quotes

HOSTILE = HEAD.replace('domain = "api.example.com"\n', 'domain = "api.example.com"\ntitle = "<img src=x onerror=alert(1)>"\n') + (
    '[errors.gone]\nstatus = 410\nnext_step = "give_up"\n'
    'title = "<script>alert(1)</script> [click](javascript:alert(2))"\n'
    'description = "<iframe src=javascript:alert(3)></iframe> ![i](javascript:alert(4)) `<b>code</b>` & \\\\[x]"\n'
)


def test_markdown_pages_carry_no_raw_html_and_no_link_of_the_catalogs() -> None:
    files = build(errconv.Catalog.loads(HOSTILE))
    for rel, data in files.items():
        if not rel.endswith(".md"):
            continue
        text = data.decode()
        # Outside code spans and fences: no tag opens, no link or image the catalog wrote.
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        prose = re.sub(r"`[^`\n]+`", "", prose)
        assert "<" not in prose, (rel, prose)
        assert "](javascript" not in prose.replace("\\]", "")
        assert not re.search(r"(?<!\\)\]\(javascript", prose)
    page = files["problems/gone/index.md"].decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; \\[click\\](javascript:alert(2))" in page
    assert "`<b>code</b>`" in page  # a code span is shown as written: Markdown prints it literally
    assert "&amp; \\\\\\[x\\]" in page


@pytest.mark.parametrize("url", ['https://x.example/"><script>', "https://x.example/a b", "javascript:alert(1)", "https://x.example/<i>"])
def test_a_docs_url_that_is_no_plain_url_is_refused(url: str) -> None:
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(HEAD + GONE + f"docs_url = '{url}'\n")
    assert caught.value.rule == "docs-url"


# --------------------------------------------------------------------------- identifiers


@pytest.mark.parametrize(
    "codes",
    [
        ("rate_limited", "Rate_Limited"),
        ("rate_limited", "RATE_LIMITED"),
    ],
)
def test_codes_that_collide_once_case_is_folded_are_refused(codes: tuple[str, ...]) -> None:
    text = HEAD + "".join(f'[errors.{c}]\nstatus = 429\nnext_step = "wait"\nretry_after_seconds = 1\ntitle = "Slow"\n' for c in codes)
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(text)
    assert caught.value.rule == "code" and caught.value.entry == codes[1]


@pytest.mark.parametrize("code", ["rate_lımited", "ratе_limited", "rate-limited", "rate limited", "rate.limited", "_x", "1x"])
def test_a_code_that_is_no_ascii_identifier_is_refused(code: str) -> None:
    # A dotless i, a Cyrillic e: they upper-case to RATE_LIMITED, and would collide.
    text = HEAD + f'[errors."{code}"]\nstatus = 429\nnext_step = "wait"\nretry_after_seconds = 1\ntitle = "Slow"\n'
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(text)
    assert caught.value.rule == "code"


@pytest.mark.parametrize(
    "domain",
    ['com;option/**/java_outer_classname=\\"pwned\\";', "api.example.com;", "api example.com", "a..b", ".com", "ápi.example.com", "a/b"],
)
def test_a_domain_outside_its_grammar_is_refused(domain: str) -> None:
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(f'domain = "{domain}"\ntype_base = "https://api.example.com/problems/"\n' + GONE)
    assert caught.value.rule == "domain"
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(HEAD + GONE + f'domain = "{domain}"\n')
    assert caught.value.rule == "domain"


def test_every_generated_identifier_fits_its_grammar() -> None:
    catalog = errconv.Catalog.loads('domain = "1st-api.example_co.com"\ntype_base = "https://api.example.com/p/"\n' + GONE)
    files = build(catalog)
    proto = files["error_reason.proto"].decode()
    package = re.search(r"^package ([^;]*);$", proto, re.M)
    assert package is not None
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part) for part in package.group(1).split("."))


# --------------------------------------------------------------------------- catalog diff


@pytest.mark.parametrize("ref", ["git:--output=FILE:x", "git:-p:errors.toml", "git:HEAD:--output=FILE"])
def test_diff_refuses_a_revision_git_would_read_as_an_option(tmp_path: pathlib.Path, ref: str) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "errors.toml").write_text(HEAD + GONE)
    proc = cli("catalog", "diff", ref, "errors.toml", cwd=tmp_path)
    assert proc.returncode == 2 and "begins with '-'" in proc.stderr and proc.stderr.count("\n") == 1
    assert not (tmp_path / "FILE").exists()


# --------------------------------------------------------------------------- authoring (issue 30, item 8)


def test_load_reports_every_problem_of_a_file_at_once() -> None:
    text = (
        'domain = "api example"\ntype_base = "https://api.example.com/problems/"\ncolour = "blue"\n'
        '[errors.busy]\nstatus = 200\nnext_step = "wait"\nretry_after_seconds = 1.5\ntitle = "Busy"\n'
        '[errors.bad]\nstatus = 400\nnext_step = "fix_request"\ntitle = " "\n'
        '[errors.fine]\nstatus = 410\nnext_step = "give_up"\ntitle = "Fine"\nexample = { param = "x" }\n'
    )
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(text, source="errors.toml")
    error = caught.value
    found = [(p.entry, p.rule) for p in error.problems]
    assert found == [
        (None, "unknown-key"),
        (None, "domain"),
        ("busy", "status"),
        ("busy", "delay-not-whole-seconds"),
        ("bad", "title"),
        ("bad", "fix-without-param"),
        ("fine", "example"),
    ]
    lines = str(error).splitlines()
    assert lines[0] == "errors.toml: 7 problems" and len(lines) == 8
    assert (error.entry, error.rule) == (None, "unknown-key")  # the first, as a single error would say


def test_the_command_prints_every_problem(tmp_path: pathlib.Path) -> None:
    catalog = tmp_path / "errors.toml"
    catalog.write_text(HEAD + '[errors.aaa]\nstatus = 99\nnext_step = "give_up"\ntitle = "A"\n[errors.bbb]\nstatus = 410\ntitle = "B"\n')
    proc = cli("catalog", "build", str(catalog), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "out").exists()
    assert "2 problems" in proc.stderr and "[errors.aaa]: status:" in proc.stderr and "[errors.bbb]: next-step-unstated:" in proc.stderr


def test_a_wait_that_states_no_delay_is_refused_not_given_an_invented_one() -> None:
    # Its examples would need a delay from nowhere (the build once wrote Retry-After: 1).
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(HEAD + '[errors.busy]\nstatus = 503\nnext_step = "wait"\ntitle = "Busy"\n')
    assert caught.value.rule == "wait-without-delay" and caught.value.entry == "busy"
    # A default, a maximum or an example's delay: that number is what the examples show.
    for line, shown in (("retry_after_seconds = 7", 7), ("max_retry_after_seconds = 60", 60), ("example = { retry_after_seconds = 900 }", 900)):
        files = build(errconv.Catalog.loads(HEAD + f'[errors.busy]\nstatus = 503\nnext_step = "wait"\ntitle = "Busy"\n{line}\n'))
        assert f"Retry-After: {shown}\r\n".encode() in files["examples/busy/http-problem.http"]
