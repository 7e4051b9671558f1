"""`convert --lines` shows progress on stderr when stderr is a terminal (a real pseudo-terminal
here), never when it is piped, and not with --quiet; a failed line's message is never written
inside the meter's line."""

from __future__ import annotations

import os
import pathlib
import pty
import re
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from errconv._progress import Meter, rate

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINE = (ROOT / "golden/rate_limited/problem.json").read_bytes().strip() + b"\n"
METER = re.compile(r"errconv: ([\d,]+) lines, [\d.]+k? lines/s")
FINAL = re.compile(r"errconv: ([\d,]+) lines in [\d.]+ s, [\d.]+k? lines/s\n")


def _run(stderr_tty: bool, *options: str) -> tuple[int, bytes, str]:
    """The command over lines trickled in for a second and a half, stderr a pty or a pipe:
    (exit, stdout, stderr). stdout goes to a file and stderr is drained by a thread, so
    neither fills up while the lines are written."""
    command = [sys.executable, "-m", "errconv", "convert", "--lines", "--to", "problem", *options]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    got = bytearray()
    with tempfile.TemporaryFile() as out:
        if stderr_tty:
            reader, writer = pty.openpty()
        else:
            reader, writer = os.pipe()
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=writer, env=env, cwd=ROOT)
        os.close(writer)

        def drain() -> None:
            while True:
                try:
                    data = os.read(reader, 65536)
                except OSError:  # EIO: the pty's other end is closed
                    break
                if not data:
                    break
                got.extend(data)

        thread = threading.Thread(target=drain, daemon=True)
        thread.start()
        assert proc.stdin is not None
        try:
            for chunk in range(6):
                proc.stdin.write(LINE * 500 + (b"{not json\n" if chunk == 3 else b""))
                proc.stdin.flush()
                time.sleep(0.25)
            proc.stdin.close()
            status = proc.wait(60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        thread.join(10)
        os.close(reader)
        out.seek(0)
        written = out.read()
    err = got.decode().replace("\r\n", "\n")  # a pty writes a newline as CRLF
    return status, written, err


def test_a_terminal_shows_a_count_and_a_rate() -> None:
    status, out, err = _run(True)
    assert status == 1  # the bad line
    assert len(out.splitlines()) == 3001  # every line has its output line
    counts = [int(n.replace(",", "")) for n in METER.findall(err)]
    assert counts and counts == sorted(counts) and counts[-1] <= 3001, err
    final = FINAL.search(err)
    assert final is not None and final.group(1) == "3,001", err
    # The bad line's message is on a line of its own: the meter's line was wiped first.
    assert "\r\x1b[Kerrconv: line 2001: the input is not valid JSON" in err, err


def test_piped_shows_no_progress() -> None:
    status, out, err = _run(False)
    assert status == 1 and len(out.splitlines()) == 3001
    assert err.startswith("errconv: line 2001: the input is not valid JSON") and err.count("\n") == 1, err
    assert "lines/s" not in err and "\r" not in err and "\x1b" not in err


def test_quiet_turns_it_off_on_a_terminal() -> None:
    status, out, err = _run(True, "--quiet")
    assert status == 1 and len(out.splitlines()) == 3001
    assert "lines/s" not in err and "\x1b" not in err, err
    assert err.startswith("errconv: line 2001: ") and err.count("\n") == 1, err


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Stream:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_the_meter_waits_half_a_second_and_redraws_five_times_a_second() -> None:
    clock, stream = _Clock(), _Stream()
    meter = Meter(stream, clock=clock)  # type: ignore[arg-type]
    meter.update(100)
    clock.now = 0.4
    meter.update(200)
    assert stream.text == ""  # a short run shows nothing
    meter.close()
    assert stream.text == ""
    clock.now = 1.0
    meter.update(50_000)
    assert stream.text == "\r\x1b[Kerrconv: 50,000 lines, 50.0k lines/s"
    clock.now = 1.1
    meter.update(60_000)
    assert stream.text.count("\r\x1b[K") == 1  # within the interval: not redrawn
    clock.now = 2.0
    meter.close()
    assert stream.text.endswith("\r\x1b[Kerrconv: 60,000 lines in 2.0 s, 30.0k lines/s\n")


@pytest.mark.parametrize(("count", "shown"), [(0, "0"), (999, "999"), (12_345, "12.3k"), (4_560_000, "4.56M")])
def test_rate_reads_at_a_glance(count: int, shown: str) -> None:
    assert rate(count) == shown
