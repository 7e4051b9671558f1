"""XML bombs against the aws reader (issue 13): refused, fast, and nothing fetched.

AWS's Query, EC2 and S3 errors are XML, and an XML parser that honours a DTD can be
made to expand a kilobyte into gigabytes (billion laughs, quadratic blowup), to read
a local file or fetch a URL (external entities, XXE), or to load a remote DTD
(parameter entities). errconv's reader refuses a DTD of any kind before it parses
(aws._unsafe), and its expat parser refuses DOCTYPE, entity and notation
declarations, processing instructions and external references as a second line of
defence. Each bomb here:

- is a DecodeError from the aws reader, from detection, and (under an AWS root) from
  from_http; a body no AWS root names is read from the status, never parsed;
- is refused in under 100 ms, best of 5, at its full size;
- reaches no file and no socket: the external entities name a file holding a marker
  and a loopback server counting connections, and neither is touched;
- is refused by the expat parser alone too, with the plain scan taken away.
"""

from __future__ import annotations

import contextlib
import pathlib
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

import errconv
from errconv.dialects import aws

MARKER = "errconv-xxe-marker-4b1d"
BUDGET_SECONDS = 0.1


@contextlib.contextmanager
def _listener() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback TCP server that records whatever connects: an XXE fetch would land here."""
    seen: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.1)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(0.5)
                try:
                    seen.append(conn.recv(4096) or b"<connected>")
                except OSError:
                    seen.append(b"<connected>")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(2)
        server.close()


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("xxe") / "secret.txt"
    path.write_text(MARKER)
    return path


@pytest.fixture(scope="module")
def listener() -> Iterator[tuple[int, list[bytes]]]:
    with _listener() as found:
        yield found


def _laughs(levels: int = 10) -> bytes:
    """The classic: ten entities, each ten of the one before: 10**9 "lol"s from 1 KB."""
    decls = [b'<!ENTITY lol0 "lol">']
    decls += [f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">'.encode() for i in range(1, levels)]
    return b'<?xml version="1.0"?><!DOCTYPE ErrorResponse [' + b"".join(decls) + b"]>" + (
        f"<ErrorResponse><Error><Code>&lol{levels - 1};</Code><Message>m</Message></Error></ErrorResponse>".encode()
    )


def _quadratic() -> bytes:
    """One entity of 100,000 characters referenced 200,000 times: 20 GB of text from a
    700 KB body (within Limits.max_bytes), no nesting for a depth limit to catch."""
    return (
        b'<?xml version="1.0"?><!DOCTYPE ErrorResponse [<!ENTITY a "' + b"x" * 100_000 + b'">]>'
        b"<ErrorResponse><Error><Code>Throttling</Code><Message>" + b"&a;" * 200_000 + b"</Message></Error></ErrorResponse>"
    )


def bombs(secret: pathlib.Path, port: int) -> dict[str, bytes]:
    url = f"http://127.0.0.1:{port}"
    error = b"<ErrorResponse><Error><Code>&e;</Code><Message>m</Message></Error></ErrorResponse>"
    return {
        "billion-laughs": _laughs(),
        "quadratic-blowup": _quadratic(),
        "xxe-file": f'<?xml version="1.0"?><!DOCTYPE ErrorResponse [<!ENTITY e SYSTEM "file://{secret}">]>'.encode() + error,
        "xxe-etc-passwd": b'<?xml version="1.0"?><!DOCTYPE ErrorResponse [<!ENTITY e SYSTEM "file:///etc/passwd">]>' + error,
        "xxe-http": f'<!DOCTYPE ErrorResponse [<!ENTITY e SYSTEM "{url}/entity">]>'.encode() + error,
        "xxe-public": f'<!DOCTYPE ErrorResponse [<!ENTITY e PUBLIC "-//x//y" "{url}/public">]>'.encode() + error,
        "parameter-entity": f'<!DOCTYPE ErrorResponse [<!ENTITY % p SYSTEM "{url}/p.dtd"> %p;]>'.encode() + error,
        "parameter-entity-nested": (
            f'<!DOCTYPE ErrorResponse [<!ENTITY % d SYSTEM "{url}/d.dtd"><!ENTITY % all "<!ENTITY e SYSTEM \'{url}/e\'>"> %all;]>'
        ).encode() + error,
        "external-dtd": f'<!DOCTYPE ErrorResponse SYSTEM "{url}/aws.dtd">'.encode() + error.replace(b"&e;", b"X"),
        "empty-dtd": b"<!DOCTYPE ErrorResponse>" + error.replace(b"&e;", b"X"),
        "empty-internal-subset": b"<!DOCTYPE ErrorResponse []>" + error.replace(b"&e;", b"X"),
        "dtd-lower-case": b"<!doctype ErrorResponse [<!entity e 'x'>]>" + error,
        "dtd-mixed-case": b'<!DoCtYpE ErrorResponse [<!ENTITY e "x">]>' + error,
        "dtd-after-bom-and-space": b"\xef\xbb\xbf \r\n\t<!DOCTYPE ErrorResponse [<!ENTITY e 'x'>]>" + error,
        "dtd-after-comment": b"<!-- harmless --><!DOCTYPE ErrorResponse [<!ENTITY e 'x'>]>" + error,
        "entity-without-dtd": error,  # &e; with nothing declaring it
        "utf16-dtd": ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE E [<!ENTITY e "x">]>' + error.decode()).encode("utf-16"),
        "utf16-no-bom": ('<!DOCTYPE E [<!ENTITY e "x">]>' + error.decode()).encode("utf-16-le"),
        "utf7-declared": b'<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE E +AFs-+ADw-!ENTITY e +ACI-x+ACI-+AD4-+AF0-+AD4-' + error,
        "notation": b'<!DOCTYPE ErrorResponse [<!NOTATION n SYSTEM "x">]>' + error.replace(b"&e;", b"X"),
        "unparsed-entity": b'<!DOCTYPE ErrorResponse [<!NOTATION n SYSTEM "x"><!ENTITY e SYSTEM "x" NDATA n>]>' + error,
        "stylesheet-pi": f'<?xml version="1.0"?><?xml-stylesheet href="{url}/x.xsl"?>'.encode() + error.replace(b"&e;", b"X"),
        "xinclude": (
            f'<ErrorResponse xmlns:xi="http://www.w3.org/2001/XInclude"><Error><Code><xi:include href="{url}/xi" parse="text"/>'
            "</Code></Error></ErrorResponse>"
        ).encode(),
    }


# Refused as a DTD, an entity or a processing instruction; the others are merely XML
# errconv reads without fetching anything (XInclude is a no-op for expat: an element).
NOT_BOMBS = {"xinclude"}
NAMES = list(bombs(pathlib.Path("/x"), 1))


def best_of(times: int, call: Callable[[], object]) -> float:
    """The fastest of `times` calls, each from cold: the reader remembers the trees of
    the last few bodies (recognise and decode parse once), which would time nothing."""
    best = float("inf")
    for _ in range(times):
        aws._tree.cache_clear()
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def _refused(call: Callable[[], object]) -> str:
    with pytest.raises(errconv.DecodeError) as raised:
        call()
    return str(raised.value)


@pytest.mark.parametrize("name", NAMES)
def test_an_xml_bomb_is_a_decode_error_in_under_100_ms(
    name: str, secret_file: pathlib.Path, listener: tuple[int, list[bytes]]
) -> None:
    port, seen = listener
    body = bombs(secret_file, port)[name]
    if name in NOT_BOMBS:
        fault = errconv.decode(body, "aws")
        assert fault.code in (None, "") and MARKER not in repr(fault)
    else:
        message = _refused(lambda: errconv.decode(body, "aws"))
        assert "\n" not in message and MARKER not in message
        _refused(lambda: errconv.decode(body))  # detected: refused, or no dialect reads it

        def read() -> None:
            with contextlib.suppress(errconv.DecodeError):
                errconv.decode(body, "aws")

        elapsed = best_of(5, read)
        assert elapsed < BUDGET_SECONDS, f"{name} took {elapsed * 1000:.1f} ms"
    assert seen == [], f"{name} reached the network: {seen}"


@pytest.mark.parametrize("name", NAMES)
def test_an_xml_bomb_inside_http_expands_nothing(name: str, secret_file: pathlib.Path, listener: tuple[int, list[bytes]]) -> None:
    port, seen = listener
    body = bombs(secret_file, port)[name]
    for content_type in ("application/xml", "text/xml", "text/html", "application/octet-stream"):

        def read() -> errconv.Fault | None:
            try:
                return errconv.from_http(503, [("Content-Type", content_type)], body)
            except errconv.DecodeError as exc:
                assert MARKER not in str(exc)
                return None

        fault = read()
        if fault is not None:  # read from the status (the body is no AWS error it parses): nothing of it expanded
            assert fault.status == 503 and MARKER not in repr(fault) and "lollol" not in repr(fault)
            assert fault.origin is not None and (fault.origin.body != "aws" or name in NOT_BOMBS)
        elapsed = best_of(5, read)
        assert elapsed < BUDGET_SECONDS, f"{name} as {content_type} took {elapsed * 1000:.1f} ms"
    # A whole response holding the bomb, read by the http dialect.
    response = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/xml\r\n\r\n" + body
    try:
        fault = errconv.decode(response, "http")
        assert MARKER not in repr(fault) and "lollol" not in repr(fault)
    except errconv.DecodeError as exc:
        assert MARKER not in str(exc)
    assert seen == []


@pytest.mark.parametrize("name", [n for n in NAMES if n not in NOT_BOMBS])
def test_expat_alone_refuses_each_bomb(
    name: str, secret_file: pathlib.Path, listener: tuple[int, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The second line of defence: with the plain scan for DTDs taken away, the parser's
    # handlers refuse the same bodies (or expat finds them malformed), as fast.
    port, seen = listener
    body = bombs(secret_file, port)[name]
    monkeypatch.setattr(aws, "_unsafe", lambda raw: None)
    found = aws._parse(body, 32)  # not the cached _tree: this body, parsed now
    assert isinstance(found, aws._Unreadable), f"{name} parsed: {found!r}"
    assert MARKER not in found.message
    elapsed = best_of(5, lambda: aws._parse(body, 32))
    assert elapsed < BUDGET_SECONDS, f"{name} took {elapsed * 1000:.1f} ms"
    assert seen == []


def test_the_bombs_are_real() -> None:
    # Proof that the bodies are what they claim: a parser that expands entities (the
    # standard library's expat left to its defaults) turns a 4 KB quadratic-blowup body
    # into a megabyte of text. (libexpat 2.4 and later stop an amplification past 100
    # times once 8 MiB are out, so the full-size bombs above would end in an error
    # there after some work; errconv refuses them before any.)
    from xml.parsers import expat

    total = 0

    def count(data: str) -> None:
        nonlocal total
        total += len(data)

    small = b'<!DOCTYPE E [<!ENTITY a "' + b"x" * 1_000 + b'">]><E>' + b"&a;" * 1_000 + b"</E>"
    parser = expat.ParserCreate()
    parser.CharacterDataHandler = count
    parser.Parse(small, True)
    assert total == 1_000_000 and len(small) < 4_200
    with pytest.raises(errconv.DecodeError, match="DTD"):
        errconv.decode(small.replace(b"<E>", b"<Error><Code>").replace(b"</E>", b"</Code></Error>"), "aws")


def test_a_plain_aws_error_still_reads_fast() -> None:
    # The refusal costs nothing to the bodies AWS sends.
    body = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">'
        b"<Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error>"
        b"<RequestId>a1b2</RequestId></ErrorResponse>"
    )
    fault = errconv.decode(body, "aws")
    assert (fault.code, fault.next_step) == ("Throttling", "wait")
