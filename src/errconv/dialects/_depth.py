"""Whether a JSON body nests no deeper than the limit, told without walking it in Python.

Decoders bound the nesting of what they keep (`check_depth`), a walk over every array
and object in Python: on a body of 100,000 small objects that walk cost many times the
parse itself (issue 23). A body that cannot nest past the limit needs no walk:
`Reading.deep` is False for it. Below `max_depth` brackets that is plain; otherwise the
brackets outside strings are counted level by level, with bytes operations in C.
"""

from __future__ import annotations

__all__ = ["shallow"]

_LARGE = 16 * 1024
# Brackets as parentheses, everything else deleted: one `()` per innermost pair.
_OPEN_CLOSE = bytes(0x28 if b in (0x5B, 0x7B) else 0x29 if b in (0x5D, 0x7D) else b for b in range(256))
_NOT_BRACKETS = bytes(b for b in range(256) if b not in (0x28, 0x29))


def shallow(raw: bytes, limit: int) -> bool:
    """True when `raw` surely nests at most `limit` arrays and objects deep, were it JSON
    (False: it may nest deeper; the decoders then look for themselves). Sound for any
    input that parses as JSON, which is all a decoder keeps anything of."""
    if raw.count(b"{") + raw.count(b"[") < limit:
        return True
    if limit <= 0 or len(raw) < _LARGE:  # a small body's walks cost little: not worth a look
        return False
    if raw.lstrip()[:1] not in (b"{", b"["):
        # Not one JSON document (a whole HTTP response, a framed stream): a quote in a
        # header or a frame's length would pair the quotes wrongly. The walks decide.
        return False
    # In JSON a quote inside a string is escaped: drop escaped backslashes, then escaped
    # quotes, and the quotes left delimit strings; the even pieces are outside them.
    text = raw
    if b"\\" in text:
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    if b'"' in text:
        text = b"".join(text.split(b'"')[0::2])
    brackets = text.translate(_OPEN_CLOSE).translate(None, _NOT_BRACKETS)
    for left in range(limit, 0, -1):
        if not brackets:
            return True
        if b"(" * (left + 1) in brackets:  # that many opened at once: deeper than what is left
            return False
        brackets = brackets.replace(b"()", b"")  # one level a pass: the innermost pairs
    return not brackets
