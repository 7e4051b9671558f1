"""A dialect written outside errconv, installed with pip and found through its entry point.

tests/plugin_dialect/ is the Tiny format as a user would write it (no line of errconv
changed). It is installed into a temporary directory, and a fresh interpreter with that
directory on its path uses it through every part of errconv: detect, decode, encode,
convert, losses, http+tiny, HTTP body selection, lint, the command line; and the golden,
property and fuzz suites take it into their dialect lists.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugin_dialect"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", str(target), str(PLUGIN)],
        check=True,
        capture_output=True,
        timeout=300,
        cwd=tmp_path_factory.mktemp("build"),
    )
    assert list(target.glob("errconv_tiny-*.dist-info/entry_points.txt"))
    return target


def run(site: pathlib.Path, *argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    tests = ROOT / "tests"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *(str(tests / d) for d in ("support", "model", "hostile"))])}
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=300)


def python(site: pathlib.Path, code: str) -> str:
    result = run(site, "-c", textwrap.dedent(code))
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    return result.stdout.decode()


def test_the_plugin_works_through_the_library(site: pathlib.Path) -> None:
    out = python(
        site,
        """
        import json
        import errconv

        body = b'{"tiny": {"code": "out_of_coffee", "why": "The pot is empty", "status": 503, "wait": 30}}'
        assert "tiny" in errconv.dialect_names() and "http+tiny" in errconv.dialect_names()
        assert errconv.detect(body) == "tiny"
        fault = errconv.decode(body)
        assert (fault.code, fault.status, fault.next_step, fault.retry_after_seconds) == ("out_of_coffee", 503, "wait", 30)
        assert fault.origin.dialect == "tiny"
        assert errconv.encode(fault, "tiny") == b'{"tiny":{"status":503,"code":"out_of_coffee","why":"The pot is empty","wait":30,"next":"wait"}}'

        # convert both ways, through another dialect
        problem = errconv.convert(body, to="problem")
        assert json.loads(problem)["retry_after_seconds"] == 30
        assert errconv.decode(errconv.convert(problem, to="tiny")) == fault

        # losses: what Tiny has no home for, measured
        rich = errconv.decode(errconv.encode(errconv.Fault.build(status=429, code="slow_down", domain="example.com",
                              metadata={"k": "v"}, next_step="wait", retry_after_seconds=5), "google"))
        assert errconv.losses(rich, "tiny") == ("domain", "metadata")

        # http+tiny, and the HTTP body selection by media type and by shape
        response = errconv.encode(fault, "http+tiny")
        assert response.startswith(b"HTTP/1.1 503 Service Unavailable\\r\\nContent-Type: application/vnd.tiny+json\\r\\nRetry-After: 30\\r\\n")
        back = errconv.decode(response)
        assert back == fault and back.origin.body == "tiny"
        by_shape = errconv.from_http(503, [("Content-Type", "application/json")], body)
        assert by_shape.origin.body == "tiny" and by_shape.retry_after_seconds == 30
        seam = errconv.to_http(fault, "tiny")
        assert (seam.status, seam.headers[0]) == (503, ("Content-Type", "application/vnd.tiny+json"))

        # the builder knows Tiny's member names
        try:
            errconv.Fault.build(status=400, param="x", extensions={"why": 1})
        except errconv.ContractError as exc:
            assert "tiny" in str(exc)
        else:
            raise AssertionError("an extension named like a Tiny member was accepted")

        # lint, from the decoder's result
        rules = {f.rule for f in errconv.lint_body(b'{"tiny": {"why": "try again later", "status": 503}}')}
        assert {"wait-without-delay", "code-missing", "next-step-unstated", "retry-promised-in-prose"} <= rules, rules
        print("ok")
        """,
    )
    assert out.strip() == "ok"


def test_the_plugin_works_through_the_command_line(site: pathlib.Path, tmp_path: pathlib.Path) -> None:
    body = tmp_path / "tiny.json"
    body.write_bytes(b'{"tiny": {"code": "out_of_coffee", "why": "The pot is empty", "status": 503, "wait": 30}}')
    detected = run(site, "-m", "errconv", "detect", str(body))
    assert (detected.returncode, detected.stdout) == (0, b"tiny\n"), detected.stderr
    converted = run(site, "-m", "errconv", "convert", str(body), "--to", "google")
    assert converted.returncode == 0, converted.stderr
    assert json.loads(converted.stdout)["error"]["details"][1]["retryDelay"] == "30s"
    back = run(site, "-m", "errconv", "convert", "-", "--to", "tiny", stdin=converted.stdout)
    assert back.stdout == b'{"tiny":{"status":503,"code":"out_of_coffee","why":"The pot is empty","wait":30,"next":"wait"}}\n'
    explained = run(site, "-m", "errconv", "explain", str(body))
    assert b"read as      tiny" in explained.stdout and b"  tiny " in explained.stdout
    linted = run(site, "-m", "errconv", "lint", str(body))
    assert linted.returncode == 0 and b"0 errors" in linted.stdout


def test_every_suite_takes_the_plugin_into_its_dialect_list(site: pathlib.Path) -> None:
    out = python(
        site,
        """
        import golden_corpus, test_properties, test_fuzz
        assert "tiny" in golden_corpus.FILES and golden_corpus.FILES["tiny"] == "tiny.json"
        assert "http+tiny" in golden_corpus.FILES
        assert "tiny" in test_properties.ENCODERS and "tiny" in test_properties.LOSSY
        assert "tiny" in test_fuzz.DECODE_NAMES and "tiny" in test_fuzz.TARGETS
        print("ok")
        """,
    )
    assert out.strip() == "ok"
    # The golden suite now wants Tiny's file in every case: the new dialect is covered at once.
    result = run(site, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/dialects/test_golden.py", "-k", "no_missing and rate_limited")
    assert result.returncode == 1
    assert b"missing golden files: ['http-tiny.http', 'tiny.json']" in result.stdout
