"""Every encoder, given text no wire can hold as it is, writes valid UTF-8 or refuses
with an ErrconvError: lone surrogates (what `json.loads('"\\ud800"')` gives), NUL,
CR/LF and U+2028 in every text field. The dialect list comes from the registry."""

from __future__ import annotations

import msgspec
import pytest

import errconv
from errconv import dialects
from errconv import Violation
from errconv.details import ErrorInfo, LocalizedMessage

HOSTILE = ("\ud800", "\udfff tail", "a\x00b", "line\r\nSet-Cookie: x=1", "para\u2028graph", "\ud83d")


def faults() -> list[errconv.Fault]:
    out = []
    for text in HOSTILE:
        built = errconv.Fault.build(
            status=429, code="rate_limited", next_step="wait", retry_after_seconds=3,
            title=text, detail=text, type=f"https://example.com/{text}", instance=text, param=text,
            domain=text, metadata={text: text, "k": text},
            extensions={"note": text, "nested": [text, {"x": text}]},
            violations=[Violation(field=text, description=text)],
            details=[LocalizedMessage(locale="en", message=text)],
            alternatives=[{"slot": text}],
        )  # fmt: skip
        out.append(built)
        # Past Fault.build's checks, as a Fault made directly can be: the code and the
        # ErrorInfo a decoder would keep.
        out.append(msgspec.structs.replace(built, code=text, details=(*built.details, ErrorInfo(reason=text, domain=text))))
    return out


@pytest.mark.parametrize("name", [n for n in dialects.names() if dialects.get(n).encodes])
def test_every_encoder_writes_valid_utf8_or_refuses(name: str) -> None:
    dialect = dialects.get(name)
    for fault in faults():
        try:
            data = errconv.encode(fault, name)
        except errconv.ErrconvError:
            continue
        if not dialect.binary:
            data.decode("utf-8")
        if dialect.form == "http":
            head = data.split(b"\r\n\r\n", 1)[0]
            lines = head.split(b"\r\n")
            # No injected header: every line is one of ours, with no CR, LF or NUL left in it.
            assert not any(line.lower().startswith(b"set-cookie") for line in lines), head
            assert not any(c in line for line in lines for c in (b"\r", b"\n", b"\x00")), head
        errconv.decode(data, name)  # and it reads back


def test_the_seams_write_valid_text_too() -> None:
    for fault in faults():
        status = errconv.to_grpc(fault)
        status.details.encode("utf-8")
        for key, value in status.trailing_metadata:
            if isinstance(value, str):
                value.encode("ascii")
        response = errconv.to_http(fault)
        for name, value in response.headers:
            assert "\r" not in value and "\n" not in value and "\x00" not in value
            value.encode("latin-1")
        response.body.decode("utf-8")


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    fault = errconv.Fault.build(status=400, code="bad_member", detail="member \ud800 unknown", param="a\udfffb")
    back = errconv.decode(errconv.encode(fault, "problem"))
    assert (back.detail, back.param) == ("member \ufffd unknown", "a\ufffdb")
    assert errconv.to_grpc(fault).details == "member \ufffd unknown"
