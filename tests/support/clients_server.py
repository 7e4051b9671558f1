"""A loopback API for the HTTP client tests (issue 21): stdlib http.server on
127.0.0.1, port 0, in a thread, stopped by its handle.

`GET|POST /<dialect>/<case>/<anything>` answers errconv's rendering of the seed
failure `case` in `http+<dialect>` (`errconv.to_http`): the wait cases clear
`clears_after` seconds after their first call, on a shared virtual clock (the one
every client under test sleeps on), and answer 200 then. `/raw/<name>/...` answers
the canned (status, headers, body) registered under `name` (the real captures), the
same way. Every request is counted per case; `calls(path)` reads the count.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any

import errconv
import golden_corpus as gc
from errconv.retry import VirtualClock

# The seed failures (golden/<case>/fault.json): two waits that clear 30 s after the
# first call, a fix_request naming a parameter, two give_ups.
WAITS = ("rate_limited", "maintenance")
FIX = ("missing_parameter",)
GIVE_UP = ("account_suspended", "internal_error")
CASES = (*WAITS, *FIX, *GIVE_UP)
FAULTS = {case: gc.load_fault(gc.ROOT / case) for case in CASES}
CLEARS_AFTER = 30.0
OK_BODY = b'{"ok": true, "id": "cus_1", "object": "customer", "data": []}'

Canned = tuple[int, list[tuple[str, str]], bytes]


class VirtualTime:
    """A stand-in for the `time` module inside one library: `sleep` goes to the
    virtual clock, everything else to the real module (a Retry-After date is still
    measured against the real time)."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock

    def sleep(self, seconds: float) -> None:
        self.clock.sleep(max(0.0, float(seconds)))

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class Api:
    """The server's state: the clock, the canned responses, the counts."""

    def __init__(self, clock: VirtualClock, clears_after: float = CLEARS_AFTER) -> None:
        self.clock = clock
        self.clears_after = clears_after
        self.raw: dict[str, tuple[Canned, float]] = {}
        self.slow = 0.5
        self.first: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.bodies: dict[str, list[bytes]] = {}
        self.lock = threading.Lock()
        self.base = ""

    def calls(self, path: str) -> int:
        return self.counts.get(_key(path), 0)

    def answer(self, path: str, body: bytes) -> Canned:
        parts = path.split("?")[0].strip("/").split("/")
        key = _key(path)
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1
            self.bodies.setdefault(key, []).append(body)
            first = self.first.setdefault(key, self.clock.now())
        if len(parts) < 2:
            return 404, [("Content-Type", "text/plain")], b"no such route"
        kind, name = parts[0], parts[1]
        if kind == "ok":
            return 200, [("Content-Type", "application/json")], OK_BODY
        if kind == "slow":  # answers later than the client waits: a timeout
            time.sleep(self.slow)
            return 200, [("Content-Type", "application/json")], OK_BODY
        if kind == "raw":
            canned, clears_after = self.raw[name]
            if self.clock.now() - first >= clears_after:
                return 200, [("Content-Type", "application/json")], OK_BODY
            return canned
        bare = kind.endswith("~bare")  # errconv's rendering without x-should-retry, as before issue 21
        fault = FAULTS[name]
        if fault.next_step == "wait" and self.clock.now() - first >= self.clears_after:
            return 200, [("Content-Type", "application/json")], OK_BODY
        response = errconv.to_http(fault, kind.removesuffix("~bare"))
        headers = [(k, v) for k, v in response.headers if not (bare and k.lower() == "x-should-retry")]
        return response.status, headers, response.body


def _key(path: str) -> str:
    return "/".join(path.split("?")[0].strip("/").split("/")[:2])


@contextlib.contextmanager
def serve(clock: VirtualClock, clears_after: float = CLEARS_AFTER) -> Iterator[Api]:
    """The API on 127.0.0.1:0; `api.base` is its URL. Stopped on exit."""
    api = Api(clock, clears_after)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two writes: with Nagle's algorithm on, a kept-alive
        # connection's next response waited for the client's delayed ACK (40 ms a call).
        disable_nagle_algorithm = True

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, payload = api.answer(self.path, body)
            # Only the canned headers: http.server's own Date would sit beside a capture's.
            self.send_response_only(status)
            for name, value in headers:
                if name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.handle_error = lambda request, address: None  # a client that timed out closed its end
    thread = threading.Thread(target=server.serve_forever, name="clients-api", daemon=True)
    thread.start()
    api.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def canned(response: Any) -> Canned:
    """(status, headers, body) of an `errconv.to_http` answer."""
    return response.status, list(response.headers), response.body


def parse_capture(data: bytes) -> Canned:
    """(status, headers, body) of a whole-response capture in tests/realworld (CRLF or LF)."""
    text = data.replace(b"\r\n", b"\n")
    head, _, body = text.partition(b"\n\n")
    lines = head.decode("latin-1").split("\n")
    status = int(lines[0].split()[1])
    headers = [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in lines[1:] if ":" in line)]
    return status, headers, body


__all__ = ["Api", "CASES", "FAULTS", "FIX", "GIVE_UP", "VirtualTime", "WAITS", "canned", "parse_capture", "serve"]
