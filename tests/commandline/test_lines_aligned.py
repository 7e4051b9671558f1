"""`convert --lines` keeps its lines: exactly one output line per input line, whatever the input.

A line that cannot be converted (blank, truncated, binary, not JSON, over the size limit, or
losing fields under --strict) writes an error line `{"errconv_error": "...", "line": N}`, so
output line N is input line N's, the failures are still named on stderr and the exit is 1.
"""

from __future__ import annotations

import base64
import io
import json
import pathlib

import pytest

import errconv
from errconv import _cli as cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOOD = (ROOT / "golden/rate_limited/problem.json").read_bytes().strip()
OTHER = (ROOT / "golden/not_found/google.json").read_bytes().strip()

# Input lines, and whether each converts.
LINES: list[tuple[bytes, bool]] = [
    (GOOD, True),
    (b"", False),  # blank
    (b'{"type": "about:blank", "status": 503', False),  # truncated
    (b"\x00\xff\xfe\x89PNG\r\x1a binary", False),  # binary
    (b"   \t", False),  # blank but for spaces
    (b"{not json}", False),  # bad JSON
    (OTHER + b"\r", True),  # a CRLF line
    (b"hello", False),  # plain text, no status given
    (b'{"detail": "' + b"x" * errconv.Limits().max_bytes + b'"}', False),  # over the size limit
    (GOOD, True),  # the last line, without a newline
]


def _run(argv: list[str], data: bytes) -> tuple[int, bytes, str]:
    stdout, stderr = io.BytesIO(), io.StringIO()
    status = cli.main(argv, stdin=io.BytesIO(data), stdout=stdout, stderr=stderr)
    return status, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("to", ["problem", "stripe", "status"])
def test_every_input_line_has_its_output_line(to: str, jobs: str) -> None:
    data = b"\n".join(line for line, _ in LINES)  # no newline after the last
    status, out, err = _run(["convert", "--lines", "--to", to, "--jobs", jobs], data)
    assert status == 1
    assert out.endswith(b"\n")
    written = out.split(b"\n")[:-1]
    assert len(written) == len(LINES) == data.count(b"\n") + 1
    said = err.splitlines()
    for number, ((line, converts), output) in enumerate(zip(LINES, written), 1):
        if converts:
            # The same body `convert` writes for that line alone.
            alone = _run(["convert", "--to", to], line)[1]
            assert output == (base64.b64encode(alone) if to == "status" else alone.rstrip(b"\n")), number
            continue
        error = json.loads(output)
        assert set(error) == {"errconv_error", "line"} and error["line"] == number
        assert output.isascii() and b"\n" not in output
        # The error line says what stderr says of that line.
        assert f"errconv: {error['errconv_error']}" in said, (number, error)
    failed = [n for n, (_, converts) in enumerate(LINES, 1) if not converts]
    assert [int(m.split()[2].rstrip(":")) for m in said if m.startswith("errconv: line ")] == failed


def test_strict_losses_are_error_lines_too() -> None:
    status, out, err = _run(["convert", "--lines", "--strict", "--to", "stripe"], GOOD + b"\n" + GOOD + b"\n")
    assert status == 1
    errors = [json.loads(line) for line in out.splitlines()]
    assert [e["line"] for e in errors] == [1, 2]
    assert all(e["errconv_error"].startswith(f"line {e['line']}: stripe cannot carry: ") for e in errors)


def test_a_clean_file_has_no_error_lines_and_exits_0() -> None:
    status, out, err = _run(["convert", "--lines", "--to", "problem"], GOOD + b"\n" + OTHER + b"\n")
    assert (status, err) == (0, "")
    assert len(out.splitlines()) == 2 and b"errconv_error" not in out
