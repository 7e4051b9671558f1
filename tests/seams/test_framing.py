"""HTTP message framing as RFC 9112 says: chunked bodies, content codings, Content-Length
and line ends, each item of issue 13 with a regression test named for it, then a
differential test against h11 on generated responses."""

from __future__ import annotations

import gzip
import zlib

import h11
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import errconv
from errconv import Limits
from errconv.dialects._responses import parse_response

STRIPE = b'{"error":{"type":"invalid_request_error","code":"parameter_missing","param":"amount","message":"Missing amount"}}'
GOOGLE_UNAVAILABLE = b'{"error":{"code":503,"message":"try later","status":"UNAVAILABLE"}}'


def chunked(body: bytes, size: int = 7, ext: bytes = b"") -> bytes:
    out = b""
    for i in range(0, len(body), size):
        piece = body[i : i + size]
        out += b"%x%s\r\n%s\r\n" % (len(piece), ext, piece)
    return out + b"0\r\n\r\n"


def response(status: bytes, headers: list[bytes], body: bytes) -> bytes:
    return b"HTTP/1.1 " + status + b"\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


def test_chunked_body_is_dechunked() -> None:
    data = response(b"400 Bad Request", [b"Content-Type: application/json", b"Transfer-Encoding: chunked"], chunked(STRIPE))
    fault = errconv.decode(data)
    assert (fault.code, fault.param, fault.origin.body) == ("parameter_missing", "amount", "stripe")


def test_chunked_with_extensions_and_trailers() -> None:
    body = chunked(STRIPE, 16, b';name="va;lue"') [:-2] + b"X-Trailer: 1\r\n\r\n"
    data = response(b"400 Bad Request", [b"Transfer-Encoding: chunked"], body)
    assert parse_response(data).body == STRIPE


def test_chunked_or_not_gives_the_same_next_step() -> None:
    plain = response(b"404 Not Found", [b"Content-Type: application/json"], GOOGLE_UNAVAILABLE)
    chunk = response(b"404 Not Found", [b"Content-Type: application/json", b"Transfer-Encoding: chunked"], chunked(GOOGLE_UNAVAILABLE))
    assert errconv.decode(plain).next_step == errconv.decode(chunk).next_step == "wait"


def test_curl_shows_a_chunked_body_already_dechunked() -> None:
    data = response(b"400 Bad Request", [b"Transfer-Encoding: chunked"], STRIPE)
    fault = errconv.decode(data)
    assert fault.code == "parameter_missing"
    assert any("not chunked" in n for n in fault.origin.notes)


@pytest.mark.parametrize("coding, packed", [
    ("gzip", gzip.compress(STRIPE)),
    ("x-gzip", gzip.compress(STRIPE)),
    ("deflate", zlib.compress(STRIPE)),
    ("deflate", zlib.compress(STRIPE)[2:-4]),  # raw deflate, as some servers send it
])  # fmt: skip
def test_content_encoding_is_decoded(coding: str, packed: bytes) -> None:
    data = response(b"400 Bad Request", [f"Content-Encoding: {coding}".encode(), b"Content-Length: %d" % len(packed)], packed)
    assert errconv.decode(data).param == "amount"


def test_gzip_inside_chunked_transfer() -> None:
    data = response(b"400 Bad Request", [b"Transfer-Encoding: gzip, chunked"], chunked(gzip.compress(STRIPE)))
    assert errconv.decode(data).param == "amount"


def test_a_decompression_bomb_is_a_decode_error() -> None:
    bomb = gzip.compress(b" " * (4 << 20))
    data = response(b"400 Bad Request", [b"Content-Encoding: gzip"], bomb)
    with pytest.raises(errconv.DecodeError, match="decompresses to over"):
        errconv.decode(data, limits=Limits(max_bytes=1 << 20))


def test_an_unknown_coding_is_a_decode_error() -> None:
    with pytest.raises(errconv.DecodeError, match="'br' coding"):
        errconv.decode(response(b"400 Bad Request", [b"Content-Encoding: br"], b"\x8b\x01\x80"))


def test_curl_compressed_shows_the_body_decoded() -> None:
    data = response(b"400 Bad Request", [b"Content-Encoding: gzip", b"Content-Length: 12"], STRIPE)
    fault = errconv.decode(data)
    assert fault.param == "amount"
    assert any("curl --compressed" in n for n in fault.origin.notes)


def test_bytes_after_content_length_are_another_message() -> None:
    first = response(b"429 Too Many Requests", [b"Retry-After: 7", b"Content-Length: %d" % len(GOOGLE_UNAVAILABLE)], GOOGLE_UNAVAILABLE)
    second = response(b"400 Bad Request", [], STRIPE)
    fault = errconv.decode(first + second)
    assert (fault.status, fault.retry_after_seconds, fault.origin.body) == (429, 7, "google")


@pytest.mark.parametrize("lengths", [[b"10", b"99"], [b"10, 99"], [b"+57"], [b"-1"], [b"0x10"], [b"1 0"]])
def test_conflicting_or_invalid_content_length_is_refused(lengths: list[bytes]) -> None:
    data = response(b"400 Bad Request", [b"Content-Length: " + v for v in lengths], STRIPE)
    with pytest.raises(errconv.DecodeError, match="invalid Content-Length"):
        errconv.decode(data)


def test_repeated_equal_content_length_is_one() -> None:
    n = b"%d" % len(STRIPE)
    data = response(b"400 Bad Request", [b"Content-Length: " + n, b"Content-Length: " + n], STRIPE)
    assert errconv.decode(data).param == "amount"


def test_head_with_bare_lf_lines_and_a_crlf_blank_line() -> None:
    data = b"HTTP/1.1 429 Too Many Requests\nRetry-After: 9\nContent-Type: application/json\n\r\n" + GOOGLE_UNAVAILABLE
    fault = errconv.decode(data)
    assert (fault.status, fault.retry_after_seconds) == (429, 9)


# --------------------------------------------------------------------------- against h11


def h11_read(data: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
    """What h11 (as a client that sent a GET) reads of `data`, or None if it refuses it."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method="GET", target="/", headers=[("Host", "x")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(data)
    conn.receive_data(b"")  # the connection closes after the bytes: a close-delimited body ends
    status, headers, body = None, [], b""
    try:
        while True:
            event = conn.next_event()
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.Response):
                status, headers = event.status_code, list(event.headers)
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                return status, headers, body  # type: ignore[return-value]
            elif event is h11.NEED_DATA or isinstance(event, h11.ConnectionClosed):
                return None  # incomplete
            elif event is h11.PAUSED:
                return status, headers, body  # type: ignore[return-value]
    except h11.RemoteProtocolError:
        return None


_bodies = st.sampled_from([STRIPE, GOOGLE_UNAVAILABLE, b"", b"upstream timed out", b'{"detail": "x"}'])


@st.composite
def responses(draw: st.DrawFn) -> bytes:
    body = draw(_bodies)
    status = draw(st.sampled_from([400, 404, 429, 500, 502, 503]))
    version = draw(st.sampled_from([b"HTTP/1.1", b"HTTP/1.0"]))
    eol = draw(st.sampled_from([b"\r\n", b"\n"]))
    headers = [b"Content-Type: application/json"]
    if draw(st.booleans()):
        headers.append(b"Retry-After: %d" % draw(st.integers(0, 999)))
    if draw(st.booleans()):
        headers.append(b"X-Folded: a" + eol + b" b")  # obs-fold
    framing = draw(st.sampled_from(["length", "chunked", "close", "gzip"]))
    wire = body
    if framing == "gzip":
        wire = gzip.compress(body, mtime=0)
        headers += [b"Content-Encoding: gzip", b"Content-Length: %d" % len(wire)]
    elif framing == "chunked" and version == b"HTTP/1.1":
        size = draw(st.integers(1, 9))
        ext = draw(st.sampled_from([b"", b";a=b", b';q="x;y"']))
        trailer = draw(st.sampled_from([b"", b"X-T: 1\r\n"]))
        wire = chunked(body, size, ext)[:-2] + trailer + b"\r\n" if body else b"0\r\n" + trailer + b"\r\n"
        headers.append(b"Transfer-Encoding: chunked")
    elif framing == "length":
        headers.append(b"Content-Length: %d" % len(wire))
    interim = b"HTTP/1.1 100 Continue" + eol + eol if draw(st.booleans()) else b""
    head = version + b" %d Reason" % status + eol + b"".join(h + eol for h in headers) + eol
    return interim + head + wire


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(responses())
def test_framing_agrees_with_h11(data: bytes) -> None:
    theirs = h11_read(data)
    assert theirs is not None, data
    status, headers, body = theirs
    ours = parse_response(data)
    assert ours.status == status
    their_retry = next((v.decode() for k, v in headers if k == b"retry-after"), None)
    assert ours.get("retry-after") == their_retry
    encoding = next((v for k, v in headers if k == b"content-encoding"), None)
    if encoding == b"gzip":
        body = gzip.decompress(body)  # h11 frames the message; content codings are the caller's
    assert ours.body == body
    if body:
        fault = errconv.decode(data)
        assert fault.status == status
        if their_retry is not None:
            assert fault.retry_after_seconds == int(their_retry) or fault.next_step != "wait"


def test_the_sample_bodies_read_as_the_dialects_they_stand_for(no_safety_net: None) -> None:
    # The framing tests above lean on these two bodies being what their names say.
    stripe, google = errconv.decode(STRIPE), errconv.decode(GOOGLE_UNAVAILABLE)
    assert stripe.origin is not None and google.origin is not None
    assert (stripe.origin.dialect, stripe.code, stripe.param) == ("stripe", "parameter_missing", "amount")
    assert (google.origin.dialect, google.status, google.next_step) == ("google", 503, "wait")
