"""The stderr note of `errconv convert` and `explain` when the status or the move was not
stated (issue 28): it names --status, and `explain` shows the basis of every fact."""

from __future__ import annotations

import io
import json

import pytest

from errconv import _cli as cli


def run(argv: list[str], stdin: bytes) -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", [["convert", "--to", "problem"], ["explain"]])
def test_a_status_read_from_words_is_noted(command: list[str]) -> None:
    status, out, err = run(command, b'{"message":"Not Found"}')
    assert status == 0
    assert err == "errconv: status 404 inferred from message words (not found) (the response states none); pass --status N if you know it\n"


@pytest.mark.parametrize("command", [["convert", "--to", "problem"], ["explain"]])
def test_a_status_nothing_states_is_noted_as_assumed(command: list[str]) -> None:
    status, out, err = run(command, b'{"foo": 1, "error": "it went wrong somehow"}')
    assert status == 0
    assert err.startswith("errconv: status assumed (the response states none), so next step give_up is assumed too")
    assert "--status N" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", [["convert", "--to", "problem"], ["explain"]])
def test_no_note_when_the_status_is_given_or_stated(command: list[str]) -> None:
    assert run([*command, "--status", "404"], b'{"message":"Not Found"}')[2] == ""
    assert run(command, b'{"type":"https://example.com/t","status":429,"title":"Slow down","retry_after":3}')[2] == ""
    assert run(command, b'HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n{"message":"Not Found"}')[2] == ""


def test_explain_shows_every_basis() -> None:
    body = b'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n\r\n{"code":"slow_down","message":"Slow down"}'
    status, out, err = run(["explain", "--json"], body)
    bases = json.loads(out)["bases"]
    assert bases == {
        "status": {"kind": "stated", "source": "the HTTP status line"},
        "code": {"kind": "stated", "source": "/code"},
        "next_step": {"kind": "inferred", "source": bases["next_step"]["source"]},
        "retry_after_seconds": {"kind": "stated", "source": "Retry-After"},
    }
    assert "rate limit" in bases["next_step"]["source"]
    text = run(["explain"], body)[1].decode()
    for fact in ("status", "code", "next_step", "retry_after_seconds"):
        assert f"basis        {fact}: " in text
    assert "basis        retry_after_seconds: stated by Retry-After" in text
