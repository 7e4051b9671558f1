"""The contract review: golden/ passes where it follows the contract, and each rule catches its example."""

from __future__ import annotations

import pathlib

import golden_corpus as gc
import pytest

import errconv
from errconv.lint import ERROR, RULES, Finding, expand_paths, lint_body, lint_paths

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "lint_examples"
CATALOG_RULES = {"every-5xx-wait", "catalog-code", "catalog-next-step", "catalog-status", "catalog-param", "catalog-delay"}

# The golden files that break the contract on purpose, with their error-level rules.
# vague_429_text and vague_502_html are waits without a delay in every dialect (and the
# 429 promises a retry in prose); the Stripe bodies among them cannot carry a delay at
# all, which is a warning (delay-unseen), since their delay would travel in Retry-After.
# The real-world captures break it as real APIs do.
VAGUE_429 = {"wait-without-delay", "retry-promised-in-prose"}
EXPECTED_ERRORS: dict[str, set[str]] = {
    **{f"vague_429_text/{name}": VAGUE_429 for name in (*gc.FILES.values(), "fault.json", "source.http") if name != "stripe.json"},
    **{f"vague_502_html/{name}": {"wait-without-delay"} for name in (*gc.FILES.values(), "fault.json", "source.http") if name != "stripe.json"},
    "fractional_retry/source-google.json": {"delay-not-whole-seconds"},  # RetryInfo 2.463586755s
    "grpc_unavailable/source-grpc.txt": {"delay-not-whole-seconds", "aip193-errorinfo-missing"},  # pushback 2500 ms, no details
    "quota_failure/source-google.json": {"aip193-errorinfo-missing"},  # Gemini sends RetryInfo and no ErrorInfo
}


@pytest.fixture(scope="module")
def golden_report() -> errconv.lint.LintReport:
    return lint_paths([str(gc.ROOT)])


def test_golden_errors_are_exactly_the_cases_that_break_the_contract(golden_report: errconv.lint.LintReport) -> None:
    found: dict[str, set[str]] = {}
    for f in golden_report.findings:
        if f.severity == ERROR:
            found.setdefault(str(pathlib.Path(f.file).relative_to(gc.ROOT)), set()).add(f.rule)
    assert found == EXPECTED_ERRORS


def test_every_golden_body_is_linted_and_nothing_else(golden_report: errconv.lint.LintReport) -> None:
    # case.json is not an error body and status.txtpb is no dialect: walking passes over them.
    expected = sorted(
        str(case / name)
        for case in gc.cases()
        for name in (*gc.FILES.values(), "fault.json", *gc.load_meta(case).get("sources", {}))
    )
    assert sorted(golden_report.files) == expected
    assert not any(f.rule == "unreadable" for f in golden_report.findings)


@pytest.mark.parametrize("case", [c for c in gc.cases() if not c.name.startswith("vague")], ids=lambda c: c.name)
def test_errconvs_own_encodings_have_no_error_findings(case: pathlib.Path) -> None:
    fault = gc.load_fault(case)
    for dialect in gc.FILES:
        findings = lint_body(gc.render(fault, dialect), dialect="http" if dialect.startswith("http+") else dialect)
        assert [f for f in findings if f.severity == ERROR] == [], (case.name, dialect)


EXAMPLE_FILES = sorted(p for p in EXAMPLES.iterdir() if p.stem != "clean")


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_each_example_breaks_its_rule_and_no_other_at_error_level(path: pathlib.Path) -> None:
    findings = lint_body(path.read_bytes(), file=path.name)
    rule = path.stem
    assert rule in {f.rule for f in findings}, [str(f) for f in findings]
    others = {f.rule for f in findings if f.severity == ERROR and f.rule != rule}
    assert not others, others


def test_every_rule_has_an_example() -> None:
    assert {p.stem for p in EXAMPLE_FILES} == set(RULES) - CATALOG_RULES


def test_the_clean_example_is_clean() -> None:
    assert lint_body((EXAMPLES / "clean.http").read_bytes()) == []


def test_every_5xx_wait_is_a_catalog_rule(tmp_path: pathlib.Path) -> None:
    body = '{{"type": "https://api.example.com/problems/{c}", "status": {s}, "code": "{c}", "next_step": "wait", "retry_after_seconds": 5}}'
    (tmp_path / "a.json").write_text(body.format(s=503, c="unavailable"))
    (tmp_path / "b.json").write_text(body.format(s=502, c="bad_gateway"))
    assert lint_paths([str(tmp_path)]).findings == []  # 502s and 503s that wait are right
    (tmp_path / "c.json").write_text(body.format(s=500, c="internal"))
    findings = lint_paths([str(tmp_path)]).findings
    assert [(f.rule, f.file) for f in findings] == [("wait-on-bug", str(tmp_path / "c.json")), ("every-5xx-wait", str(tmp_path))]
    (tmp_path / "d.json").write_text(body.format(s=500, c="crash").replace('"wait", "retry_after_seconds": 5', '"give_up"'))
    assert "every-5xx-wait" not in {f.rule for f in lint_paths([str(tmp_path)]).findings}


def test_findings_print_as_file_pointer_severity_rule_message() -> None:
    f = Finding(file="a.json", pointer="/error/details/0/metadata/a~1b", rule="aip193-metadata-key", severity="error", message="m")
    assert str(f) == "a.json#/error/details/0/metadata/a~1b: error aip193-metadata-key: m"
    assert str(Finding(file="a.json", pointer="", rule="code-missing", severity="warning", message="m")) == "a.json: warning code-missing: m"
    assert f.to_dict() == {"file": "a.json", "pointer": "/error/details/0/metadata/a~1b", "rule": "aip193-metadata-key", "severity": "error", "message": "m"}


def test_pointers_escape_member_names() -> None:
    body = b'{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "slow", "details": [' \
        b'{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SLOW", "metadata": {"next_step": "wait", "a/b~c": "1"}},' \
        b'{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "5s"}]}}'
    pointers = {f.pointer for f in lint_body(body) if f.rule == "aip193-metadata-key"}
    assert pointers == {"/error/details/0/metadata/a~1b~0c"}


@pytest.mark.parametrize(
    ("text", "promises"),
    [
        ("Too many requests, try again later", True),
        ("Try again soon.", True),
        ("Please retry.", True),
        ("retry in 30 seconds", True),
        ("The service is busy; check back in a few minutes", True),
        ("Your card was declined. Try a different card.", False),
        ("Retries are not allowed for this operation", False),
        ("Use an exponential backoff.", False),
    ],
)
def test_retry_promises_in_prose(text: str, promises: bool) -> None:
    body = f'{{"status": 409, "code": "busy", "next_step": "give_up", "detail": "{text}"}}'.encode()
    assert ("retry-promised-in-prose" in {f.rule for f in lint_body(body)}) is promises


def test_a_promise_with_a_delay_in_the_fields_is_fine() -> None:
    body = b'{"status": 503, "code": "busy", "next_step": "wait", "retry_after_seconds": 30, "detail": "try again later"}'
    assert lint_body(body) == []


def test_fault_json_is_linted_as_the_model() -> None:
    findings = lint_body((gc.ROOT / "vague_502_html" / "fault.json").read_bytes())
    assert [(f.rule, f.pointer) for f in findings] == [("wait-without-delay", "/next_step"), ("code-missing", "")]


def test_ignore_leaves_rules_out() -> None:
    body = (gc.ROOT / "vague_502_html" / "source.http").read_bytes()
    assert [f.rule for f in lint_body(body, ignore=["code-missing", "next-step-unstated"])] == ["wait-without-delay"]


def test_expand_paths(tmp_path: pathlib.Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    for name in ("b.json", "a.http", "sub/c.txt", ".hidden/d.json", "notes.md", "status.txtpb"):
        (tmp_path / name).write_text("{}")
    assert [p for p, _ in expand_paths([str(tmp_path)])] == [
        str(tmp_path / "a.http"),
        str(tmp_path / "b.json"),
        str(tmp_path / "sub" / "c.txt"),
    ]
    assert expand_paths([str(tmp_path / "notes.md")]) == [(str(tmp_path / "notes.md"), False)]
    assert [p for p, _ in expand_paths([str(tmp_path / "**" / "*.txt")])] == [str(tmp_path / "sub" / "c.txt")]
    with pytest.raises(FileNotFoundError, match="no such file"):
        expand_paths([str(tmp_path / "nope.json")])
    with pytest.raises(FileNotFoundError, match="no file matches"):
        expand_paths([str(tmp_path / "*.yaml")])


def test_walking_passes_over_files_that_are_no_error_body(tmp_path: pathlib.Path) -> None:
    (tmp_path / "case.json").write_text('{"description": "a case", "losses": {}}')
    (tmp_path / "README.txt").write_text("notes about this catalog\n")
    (tmp_path / "versions.json").write_text('["v1", "v2"]')
    (tmp_path / "broken.json").write_text('{"status": 503,')
    report = lint_paths([str(tmp_path)])
    assert report.files == [str(tmp_path / "broken.json")]
    assert [f.rule for f in report.findings] == ["unreadable"]
    # Named explicitly, a file that is no error body is a finding.
    assert [f.rule for f in lint_paths([str(tmp_path / "README.txt")]).findings] == ["unreadable"]


def test_exported_from_the_package() -> None:
    assert errconv.lint_body is lint_body and errconv.lint_paths is lint_paths and errconv.Finding is Finding


def test_the_cli_guide_lists_every_rule_with_its_severity() -> None:
    readme = (ROOT / "docs" / "guide" / "cli.md").read_text()
    for rule in RULES.values():
        assert f"| `{rule.id}` | {rule.severity} |" in readme, rule.id
