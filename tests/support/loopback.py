"""Real servers on 127.0.0.1 for the gateway tests: nothing leaves the machine, every
port comes from the OS (port 0).

- `serve_asgi(app)`: uvicorn serving an ASGI app in a thread;
- `serve_http(routes)`: a tiny HTTP/1.1 server answering each path with canned bytes
  (status, headers, body), as an upstream API would;
- `serve_grpc(handlers)`: a grpcio server with generic raw-bytes handlers;
- `raw_get(base, path)`: one request over a plain socket, everything the server sent.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from concurrent import futures
from typing import Any

import grpc
import uvicorn


@contextlib.contextmanager
def serve_asgi(app: Any, **config: Any) -> Iterator[str]:
    """uvicorn on 127.0.0.1:0 in a thread; yields the base URL, stops on exit."""
    settings = {"log_level": "warning", "access_log": False, "lifespan": "auto", **config}
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, **settings))
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("uvicorn stopped before it started")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("uvicorn did not start within 20 s")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


Canned = tuple[int, list[tuple[str, str]], bytes]
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}  # fmt: skip


@contextlib.contextmanager
def serve_http(routes: Mapping[str, Canned]) -> Iterator[str]:
    """An upstream API on loopback: `GET /path` (any method) answers routes[path] as it
    is, bytes for bytes, with a Content-Length; unknown paths answer 404."""

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            line = self.rfile.readline().decode("latin-1")
            length = 0
            while (header := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = header.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length:
                self.rfile.read(length)
            path = urllib.parse.urlsplit(line.split(" ")[1]).path if " " in line else "/"
            status, headers, body = routes.get(path, (404, [("Content-Type", "text/plain")], b"no such route"))
            head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}", *(f"{k}: {v}" for k, v in headers)]
            head += [f"Content-Length: {len(body)}", "Connection: close", "", ""]
            self.wfile.write("\r\n".join(head).encode("latin-1") + body)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="upstream", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextlib.contextmanager
def serve_grpc(service: str, handlers: Mapping[str, Callable[[bytes, grpc.ServicerContext], bytes]]) -> Iterator[str]:
    """A grpcio server on 127.0.0.1:0 with unary raw-bytes methods; yields its target."""
    with futures.ThreadPoolExecutor(max_workers=8) as pool:
        server = grpc.server(pool)
        methods = {name: grpc.unary_unary_rpc_method_handler(fn) for name, fn in handlers.items()}  # no serializers: bytes
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, methods),))
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            yield f"127.0.0.1:{port}"
        finally:
            server.stop(grace=None).wait(5)


def raw_get(base: str, path: str, headers: Mapping[str, str] | None = None, timeout: float = 10) -> bytes:
    """GET over a plain socket, HTTP/1.1, and read until the server closes: every byte
    it sent, so a test sees exactly what went on the wire (one status line or two)."""
    host, port = urllib.parse.urlsplit(base).netloc.split(":")
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        chunks = []
        while True:
            try:
                data = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not data:
                break
            chunks.append(data)
    return b"".join(chunks)
