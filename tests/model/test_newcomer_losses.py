"""explain, losses() and lint say what is so (issue 23, item 8)."""

from __future__ import annotations

import io
import json
import pathlib

import pytest

import errconv
from errconv import _cli as cli

CODELESS = errconv.Fault.build(status=503, next_step="wait", retry_after_seconds=5, detail="busy")


def _main(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue().decode(), err.getvalue()


@pytest.mark.parametrize("dialect", ["jsonrpc", "twirp", "http+jsonrpc", "http+twirp"])
def test_a_dialect_that_adds_a_code_does_not_lose_one(dialect: str) -> None:
    back = errconv.decode(errconv.encode(CODELESS, dialect), dialect)
    assert back.code is not None  # it adds its protocol's code (-32000, "unavailable")...
    assert "code" not in errconv.losses(CODELESS, dialect)  # ...which is not a loss


@pytest.mark.parametrize("dialect", ["jsonrpc", "twirp"])
def test_a_code_that_does_not_come_back_is_still_a_loss(dialect: str) -> None:
    fault = CODELESS.replace(code="queue_full")
    back = errconv.decode(errconv.encode(fault, dialect), dialect)
    assert ("code" in errconv.losses(fault, dialect)) == (back.code != "queue_full")


def test_explain_lists_no_code_loss_for_a_codeless_fault() -> None:
    body = errconv.encode(CODELESS, "problem")
    status, out, _ = _main(["explain", "-", "--json"], stdin=body)
    assert status == 0
    rows = {row["dialect"]: row for row in json.loads(out)["dialects"]}
    for name in ("jsonrpc", "twirp", "http+jsonrpc", "http+twirp"):
        assert "code" not in rows[name]["loses"], rows[name]
    status, text, _ = _main(["explain", "-"], stdin=body)
    assert not any(line.split()[:1] in (["jsonrpc"], ["twirp"]) and line.rstrip().endswith("code") for line in text.splitlines())


def test_lint_says_a_large_file_is_large_in_megabytes(tmp_path: pathlib.Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b'{"detail": "' + b"x" * 5_000_000 + b'"}')
    report = errconv.lint_paths([str(big)])
    [finding] = report.findings
    assert finding.rule == "unreadable"
    assert "5.0 MB" in finding.message and "1 MiB limit" in finding.message
    assert "1048577" not in finding.message


def test_lint_of_errconvs_own_openai_output_of_a_503_does_not_say_wait_on_bug(tmp_path: pathlib.Path) -> None:
    response = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\nbusy"
    for dialect in ("openai", "http+openai", "anthropic", "stripe"):
        path = tmp_path / f"out-{dialect}.json"
        status, out, _ = _main(["convert", "-", "--to", dialect], stdin=response)
        assert status == 0
        path.write_text(out)
        rules = {f.rule for f in errconv.lint_paths([str(path)]).findings}
        assert "wait-on-bug" not in rules, (dialect, rules)


def test_wait_on_bug_still_fires_where_the_bug_code_is_stated() -> None:
    stated = [
        b'{"type": "about:blank", "status": 500, "next_step": "wait", "retry_after_seconds": 3}',
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nRetry-After: 3\r\n\r\n"
        b'{"error": {"message": "x", "type": "server_error", "next_step": "wait"}}',
    ]
    for body in stated:
        assert "wait-on-bug" in {f.rule for f in errconv.lint_body(body)}, body
