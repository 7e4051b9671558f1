"""What a new user trips on (issue 23): messages, consistency and conveniences.

The command line is run in-process through `errconv._cli.main`, as tests/test_cli.py runs it."""

from __future__ import annotations

import io
import re

import pytest

import errconv
from errconv import _cli as cli


def _main(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue().decode(), err.getvalue()


# --------------------------------------------------------------------------- item 1: messages


def test_convert_help_lists_only_dialects_that_write_under_to() -> None:
    status, out, _ = _main(["convert", "--help"])
    assert status == 0
    text = " ".join(out.split())
    listed = re.search(r"--to DIALECT the output dialect: (.*?) --from", text)
    assert listed is not None, text
    names = [n.strip() for n in listed.group(1).split(",")]
    writers = [n for n in errconv.dialect_names() if errconv.dialects.get(n).encodes]
    assert names == writers
    for read_only in ("aws", "slack", "oauth", "kubernetes"):
        assert read_only not in names


def test_a_read_only_to_is_a_usage_error_naming_the_writers() -> None:
    status, out, err = _main(["convert", "-", "--to", "slack"], stdin=b'{"ok": false, "error": "invalid_auth"}')
    assert status == 2 and out == ""
    assert "slack is read, not written; errconv writes: fault, problem" in err


def test_the_cli_names_its_option_not_the_python_keyword() -> None:
    status, _, err = _main(["convert", "-", "--to", "problem"], stdin=b"[1, 2]")
    assert status == 2
    assert "(--status N)" in err and "status=" not in err


def test_the_python_api_names_its_keyword() -> None:
    with pytest.raises(errconv.DecodeError, match=r"\(status=\)"):
        errconv.decode(b"[1, 2]")


def test_a_bare_html_body_names_no_dialects_and_points_at_the_status() -> None:
    page = b"<html>\n<head><title>Maintenance</title></head>\n<body>Back soon.</body>\n</html>\n"
    with pytest.raises(errconv.DecodeError) as caught:
        errconv.detect(page)
    message = str(caught.value)
    assert "one of:" not in message and "stripe" not in message
    assert "status=" in message
    assert "b'" not in message and "<html>" in message
    # and what the message promises holds
    assert errconv.decode(page, status=503).status == 503


def test_a_bare_html_page_that_states_its_status_is_read_from_it() -> None:
    # nginx's error page says its status in the title and the heading: the general reader reads it.
    page = b"<html>\n<head><title>502 Bad Gateway</title></head>\n</html>\n"
    assert errconv.detect(page) == "general"
    fault = errconv.decode(page)
    assert (fault.status, fault.next_step) == (502, "wait")


@pytest.mark.parametrize(
    "data",
    [b"hello, world\n", b"\xff\xfe not utf-8 \x00", b"<?xml version='1.0'?><nope/>"],
)
def test_inputs_in_messages_are_text_not_bytes_reprs(data: bytes) -> None:
    with pytest.raises(errconv.DecodeError) as caught:
        errconv.decode(data)
    assert not re.search(r"\bb['\"]", str(caught.value)), str(caught.value)
    assert "\n" not in str(caught.value)


# --------------------------------------------------------------------------- item 2: a wrong --from

GOLDEN = __import__("pathlib").Path(__file__).resolve().parents[2] / "golden"


def test_a_wrong_from_warns_naming_the_detected_dialect() -> None:
    status, out, err = _main(["convert", str(GOLDEN / "rate_limited" / "google.json"), "--to", "problem", "--from", "stripe"])
    assert status == 0 and out
    assert "stripe does not recognise this input; it reads as google" in err


def test_a_wrong_from_is_refused_under_strict() -> None:
    status, out, err = _main(
        ["convert", str(GOLDEN / "rate_limited" / "google.json"), "--to", "problem", "--from", "stripe", "--strict"]
    )
    assert status == 1 and out == ""
    assert "stripe does not recognise this input" in err and "--strict" in err


def test_explain_warns_too() -> None:
    status, _, err = _main(["explain", str(GOLDEN / "rate_limited" / "google.json"), "--from", "openai"])
    assert status == 0
    assert "openai does not recognise this input; it reads as google" in err


def _golden_with_dialect() -> list[tuple[str, str]]:
    found = []
    for path in sorted(GOLDEN.glob("*/*.json")) + sorted(GOLDEN.glob("*/*.http")):
        name = path.stem.replace("http-", "http+", 1) if path.suffix == ".http" else path.stem
        if name in errconv.dialect_names():  # case.json is no dialect's
            found.append((str(path), name))
    return found


@pytest.mark.parametrize(("path", "name"), _golden_with_dialect())
def test_a_right_from_never_warns(path: str, name: str) -> None:
    status, _, err = _main(["convert", str(path), "--to", "problem", "--from", name])
    assert "does not recognise" not in err, err


def test_the_python_api_trusts_a_named_dialect() -> None:
    body = (GOLDEN / "rate_limited" / "google.json").read_bytes()
    assert errconv.detect(body) == "google"
    fault = errconv.decode(body, "stripe")  # read as named, documented in decode's docstring
    assert fault.origin is not None and fault.origin.dialect == "stripe"
    # (a compiled build keeps no docstrings: the source says it)
    source = (GOLDEN.parent / "src" / "errconv" / "_pipeline" / "api.py").read_text()
    assert "trusted, not checked" in source[source.index("def decode(") :]


# --------------------------------------------------------------------------- item 3: one exception for a bad dialect name

_F = errconv.Fault.build(status=404, code="not_found")
_BODY = b'{"error": {"code": 404, "message": "no", "status": "NOT_FOUND"}}'


@pytest.mark.parametrize(
    "call",
    [
        lambda: errconv.to_http(_F, "grpc"),
        lambda: errconv.to_http(_F, "aws"),
        lambda: errconv.to_http(_F, "nope"),
        lambda: errconv.to_http(_F, accept="application/json", json_dialect="status"),
        lambda: errconv.decode(b"{}", "nope"),
        lambda: errconv.decode("{}", "nope"),
        lambda: errconv.decode(b"{}", "nope", status=500),
        lambda: errconv.decode(b"{}", 3),  # type: ignore[arg-type]
        lambda: errconv.encode(_F, "aws"),
        lambda: errconv.encode(_F, "nope"),
        lambda: errconv.convert(_BODY, to="aws"),
        lambda: errconv.convert(_BODY, to="nope"),
        lambda: errconv.convert(_BODY, to="problem", source="nope"),
        lambda: errconv.losses(_F, "aws"),
        lambda: errconv.losses(_F, "nope"),
        lambda: errconv.lint_body(_BODY, dialect="nope"),
    ],
    ids=lambda c: "",
)
def test_a_bad_dialect_name_is_unknown_dialect_error_everywhere(call: object) -> None:
    with pytest.raises(errconv.UnknownDialectError) as caught:
        call()  # type: ignore[operator]
    assert not isinstance(caught.value, errconv.DecodeError)
    assert isinstance(caught.value, errconv.ErrconvError) and isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value) and "UnknownDialectError" not in str(caught.value)
