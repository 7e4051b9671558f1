"""Credentials out of text on its way to a model: the redaction engine.

`scrub(text)` returns `text` with every credential it finds replaced by `[redacted]` and
nothing else changed; `redact(text, limit)` scrubs first, then flattens whitespace and
cuts; `scrub_fault(fault)` scrubs every text a fault holds. `errconv._agent_text`
re-exports the three under the same names.

How a credential is found, without foreseeing the syntax it comes in:

1. **Normalise, and remember where each character came from.** The text is read through
   up to four rounds of decoding: percent-escapes (`%3D`, UTF-8 runs), `\\uXXXX` (surrogate pairs
   joined), `\\xHH`, backslash escapes (`\\"`, `\\'`, `\\\\`, `\\/`, `\\n`), HTML entities,
   NFKC per character (fullwidth `：` is `:`, fullwidth letters are ASCII) and the removal
   of format characters (zero-width spaces and joiners, soft hyphens, BOM). Up to four
   rounds, so a JSON string escaped inside a JSON string (`\\\\\\"`) and a percent-encoded
   escape are read too. Every rule below runs on the normalised text; each span it finds is
   mapped back to the span of the *original* text it came from, and that span is
   replaced. So the output is the input with some spans replaced by the marker: nothing
   is added but `[redacted]`, nothing the service wrote is re-encoded (a message in
   Japanese, a `%20` in a path stay as they were), and a secret spread over escapes
   goes as a whole. (Returning the normalised text would be simpler, but would rewrite
   text that holds no secret, and a model reading a decoded `\\"` may read a quote the
   service never closed.)
2. **Credential names, in any syntax.** Every identifier that holds a credential word
   (`password`, `passwd`, `passphrase`, `passcode`, `secret`, `token`, `apiKey`,
   `credential`, `authorization`, `cookie`, `session_id`, `jwt`, `signature`, and as a
   whole word `key`, `pass`, `pwd`, `pin`, `otp`, `auth`, `sig`, `sid`, `creds`,
   `session`, `dsn`; split by `_`, `-`, `.` and camelCase), unless a word of it says it
   is a quantity or a description of one (`max_tokens`, `token_type`, `password_policy`,
   `api_key_name`), is followed by any run of closing quotes, brackets and separators
   (`:`, `=`, `==`, `=>`, `:=`, `>`, `](`, `(`, `,` between quotes, spaces, newlines: JSON, YAML,
   PHP `var_export`/`print_r`, Ruby inspect, Python reprs of dicts and tuples, bytes
   reprs, XML attributes, form and query pairs, headers, Markdown) and then its value:
   a quoted string to its closing quote, a list or an object to its closing bracket, a
   YAML block list, a bare word, a number (after an empty value and one stray mark,
   `password=,X`, the word after the mark). A cookie header's value goes whole (every
   cookie in it). After a bare space (prose: `token abc123`) the value goes only where
   it looks like a credential (a digit, a symbol, or long). XML elements are read by
   name (`<password>x</password>`, with attributes).
3. **Credential values, by shape**, as secret scanners do (gitleaks' rules,
   detect-secrets' plugins): vendor prefixes (AWS, GitHub, GitLab, Slack, Stripe, OpenAI,
   Anthropic, Hugging Face, Google, SendGrid, Twilio, Square, npm, PyPI, Shopify,
   DigitalOcean, Atlassian, ... see `_VENDOR`), JWTs and JWEs by structure (the first
   part base64url-decodes to a JSON object, whatever its first bytes), PEM private key
   blocks (to their END line, or to the end of the string that holds them), user info in
   URLs (database URLs included; a password whose `@` was cut off, an authority's "port"
   that is no number) and every query string and pair-holding fragment,
   Telegram bot tokens wherever they stand (a path `/bot<token>/sendMessage` included),
   `Bearer`/`Basic` credentials, and **long high-entropy tokens whatever separators
   split them**: a run of base64/base64url characters is cut at `_ - . / + = ~ $` into
   pieces, each read as a word (`customers`, `INVALID`, `BucketAlreadyOwnedByYou`: letters,
   vowels, no four consonants together), a number or a short piece that says nothing, or
   a piece that may be random. The run goes whole when its random part is longer than
   its words and random enough (a key split by separators, an AWS secret with slashes);
   else each group of consecutive non-word pieces is measured (a random segment of a
   path); a random piece after an id prefix (`req_`, `cus_`, `chatcmpl-`) is an
   identifier the service made and stays. "Random enough" is Shannon entropy: 3.0 bits
   per character for hex (detect-secrets' hex limit), else a share of the most a random
   string of that length and alphabet can reach, log2(min(length, alphabet)), capped at
   detect-secrets' 4.5 (`looks_random`): a fixed 4.5 would pass every short key, since a
   random 20-character key has at most log2(20) = 4.3 bits. 20 characters at least, as
   detect-secrets. UUIDs stay (request and resource ids a model may quote).

Nothing here depends on detect-secrets or gitleaks: the runtime dependencies are
protobuf, googleapis-common-protos and msgspec; gitleaks is a Go binary and reads files,
detect-secrets scans line by line with a plugin system around its rules and would cost
an import of its whole package per process; errconv needs the rules, applied to short
texts with their positions mapped back through decoding, which neither offers. The rules
were written from theirs (gitleaks' `cmd/generate/config/rules/*.go`, detect-secrets'
`plugins/*.py`).

Linear time on hostile input: every repetition in every pattern is bounded, no pattern
has nested unbounded repetition, each match's extra work (a bracket scan, an identifier's
words) is bounded and never revisits text a previous match consumed. `scrub` repeats
until nothing changes (at most `_ROUNDS` times), so that `scrub(scrub(x)) == scrub(x)`: a
marker is never read as a value.

`scrub_fault` scrubs every string of a fault and, in its mappings, replaces the whole value
of a member named like a credential whatever its type (a number, a list, an object); a
violation whose field is named like a credential loses a description that is one token
(its value), not one in prose.

What cannot be promised: a credential in a format nobody can tell from data (a short
word after no name, `hunter2` alone in a sentence, a password cut into pieces that each
look like words) is not found.
"""

from __future__ import annotations

import base64
import bisect
import enum
import functools
import html
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from ._model.fault import Fault, Violation

__all__ = ["MARK", "redact", "scrub", "scrub_fault", "scrub_value"]

MARK = "[redacted]"
# redact() with no limit reads this many characters (4 x agent_message's whole text).
_DEFAULT_READ = 2400
# scrub() repeats until the text stops changing; in practice one round, two when a
# marker joins two pieces into a new run. Bounded so hostile text costs bounded work.
_ROUNDS = 4

# --------------------------------------------------------------------------- normalising


class _Map:
    """Where each character of a normalised text came from in the text it was made from.

    `pieces` holds (norm_start, norm_end, orig_start, orig_end) for each replaced run, in
    order; between pieces the two texts advance together.
    """

    __slots__ = ("inner", "norm_starts", "pieces")

    def __init__(self, pieces: list[tuple[int, int, int, int]], inner: _Map | None) -> None:
        self.pieces = pieces
        self.norm_starts = [p[0] for p in pieces]
        self.inner = inner

    def _start(self, pos: int) -> int:
        i = bisect.bisect_right(self.norm_starts, pos) - 1
        if i < 0:
            return pos
        ns, ne, os_, oe = self.pieces[i]
        if pos < ne:
            return os_
        # Past a piece (or at an empty one): the texts advance together from its end.
        # Several empty pieces may share a norm start; bisect_right took the last.
        return oe + (pos - ne)

    def _end(self, last: int) -> int:
        """The original end (exclusive) of the normalised character at `last`."""
        i = bisect.bisect_right(self.norm_starts, last) - 1
        while i >= 0 and self.pieces[i][1] <= last and self.pieces[i][0] == self.pieces[i][1] and self.pieces[i][0] == last:
            i -= 1  # an empty piece at `last` is before the character, not it
        if i < 0:
            return last + 1
        ns, ne, os_, oe = self.pieces[i]
        if last < ne:
            return oe
        return oe + (last - ne) + 1

    def span(self, start: int, end: int) -> tuple[int, int]:
        s, e = self._start(start), self._end(end - 1)
        return self.inner.span(s, e) if self.inner is not None else (s, e)


_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "n": "\n", "r": "\n", "t": " ", "b": " ", "f": " "}
_SPECIAL = re.compile(
    r"(?:%[0-9A-Fa-f]{2}){1,64}"
    r"|\\u[dD][89abAB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}"
    r"|\\u[0-9A-Fa-f]{4}"
    r"|\\x[0-9A-Fa-f]{2}"
    r"|\\[\"'\\/nrtbf]"
    r"|~[01]"  # JSON Pointer escapes (RFC 6901): a violation's pointer spells `/` as `~1`
    r"|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});"
    r"|[^\x00-\x7f]{1,64}"
)


def _plain_char(ch: str) -> str:
    if unicodedata.category(ch) == "Cf":
        return ""  # zero-width space/joiner, soft hyphen, BOM, bidi marks
    return unicodedata.normalize("NFKC", ch)


def _decoded(token: str) -> str:
    head = token[0]
    if head == "%":
        return bytes.fromhex(token.replace("%", "")).decode("utf-8", "replace")
    if head == "&":
        return html.unescape(token)
    if head == "~":
        return "/" if token == "~1" else "~"
    if head == "\\":
        kind = token[1]
        if kind == "u":
            if len(token) == 12:
                high, low = int(token[2:6], 16), int(token[8:12], 16)
                return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            code = int(token[2:6], 16)
            return "\ufffd" if 0xD800 <= code <= 0xDFFF else _plain_char(chr(code))
        if kind == "x":
            return _plain_char(chr(int(token[2:4], 16)))
        return _ESCAPES[kind]
    return token  # a non-ASCII run: handled per character by the caller


def _normalise_once(text: str, inner: _Map | None) -> tuple[str, _Map | None]:
    if text.isascii() and "%" not in text and "\\" not in text and "&" not in text and "~" not in text:
        return text, inner
    out: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    last = 0
    norm = 0
    for m in _SPECIAL.finditer(text):
        start, end = m.span()
        token = m.group()
        if token[0] not in "%&\\~":
            # Non-ASCII: each character that NFKC or the format-character rule changes
            # is its own piece, so a span maps back exactly.
            for k, ch in enumerate(token):
                new = _plain_char(ch)
                if new == ch:
                    continue
                at = start + k
                out.append(text[last:at])
                norm += at - last
                pieces.append((norm, norm + len(new), at, at + 1))
                out.append(new)
                norm += len(new)
                last = at + 1
            continue
        new = _decoded(token)
        if new == token:
            continue
        out.append(text[last:start])
        norm += start - last
        pieces.append((norm, norm + len(new), start, end))
        out.append(new)
        norm += len(new)
        last = end
    if not pieces:
        return text, inner
    out.append(text[last:])
    return "".join(out), _Map(pieces, inner)


# Rounds of decoding: a JSON string escaped in a JSON string escaped in a JSON string
# (an error body quoted in a log line quoted in an error body) takes three.
_DECODE_ROUNDS = 4


def _normalise(text: str) -> tuple[str, _Map | None]:
    norm, mapping = text, None
    for _ in range(_DECODE_ROUNDS):
        norm, new = _normalise_once(norm, mapping)
        if new is mapping:
            break
        mapping = new
    return norm, mapping


# --------------------------------------------------------------------------- credential names

# Words that make an identifier a credential's name wherever they stand in it.
_STRONG = (
    "password", "passwd", "passphrase", "passcode", "secret", "token", "apikey", "credential", "privatekey",
    "accesskey", "authorization", "cookie", "sessionid", "sessid", "sesskey", "jwt", "bearer", "signature",
    "connectionstring", "accountkey", "sharedaccesskey", "pwd",
)  # fmt: skip
# Words that do only as a whole word of the identifier (`api_key`, not `keyboard`).
_WEAK = frozenset((
    "key", "keys", "pass", "pin", "pins", "otp", "totp", "auth", "sig", "sid", "creds", "cred", "session", "dsn",
    "pw", "psk", "mfa", "hmac", "sas", "csrf", "xsrf",
))  # fmt: skip
# Words that make it the name of something about a credential, not the credential.
_NOT_SECRET = frozenset((
    "max", "min", "count", "limit", "limits", "used", "usage", "type", "length", "expires", "expiry", "expiration",
    "expired", "ttl", "lifetime", "prompt", "completion", "input", "output", "total", "name", "names", "url", "uri",
    "endpoint", "path", "file", "format", "policy", "size", "field", "hint", "missing", "required", "invalid",
    "reset", "remaining", "per", "rate", "scope", "scopes", "status", "error", "errors", "message", "encoding",
    "algorithm", "alg", "kind", "mode", "version", "location", "param", "header", "headers", "provider", "strength",
    "rotation", "age", "budget", "window", "bucket", "index",
))  # fmt: skip
_WORDS = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[A-Z]")


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(name)]


def is_secret_name(name: str) -> bool:
    """Whether `name` (an identifier, a header, a member) names a credential."""
    words = _words(name)
    if not words or any(w in _NOT_SECRET for w in words):
        return False
    if any(w in _WEAK for w in words):
        return True
    joined = "".join(words)
    return any(s in joined for s in _STRONG)


# Where a name may hold a credential word: the keyword scan finds candidates fast; the
# identifier around each is then read (bounded) and judged by is_secret_name.
# Run on the text lower-cased (ASCII only, so positions hold), factored by first letter:
# an alternation of 24 words with (?i) costs ten times as much.
_KEYWORD = re.compile(r"p(?:ass|wd|w|in|sk)|s(?:ecret|ession|ess|ig|id|as)|token|key|otp|auth|c(?:redential|red|ookie|srf)|jwt|bearer|dsn|mfa|hmac|xsrf")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_IDENT_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_IDENT_RIGHT = re.compile(r"[A-Za-z0-9_.\-]{0,64}")
_IDENT_REST = re.compile(r"[A-Za-z0-9_.\-]*")
# After a name: closing quotes or a bracket, spaces, an operator, spaces and newlines,
# an opening quote (a bytes repr's `b'` too), a YAML list's dash, or an angle bracket after
# an operator (`token=<value>`, a placeholder's form; the fuzz run found `access_token=<` a
# value no rule took).
_SEP = re.compile(
    r"(?P<close>[\"'`\]/]{0,2})(?P<pre>[ \t]{0,16})"
    r"(?P<op>=>|:=|==|=|:|>|\]\(|\(|,|\|)?"
    r"(?P<post>[ \t\r\n]{0,32})"
    r"(?P<is>(?:is|was)[ \t]{1,8})?"
    r"(?P<open>b?[\"'`]|\[|\{|-[ \t]|<)?"
)
_SCHEME = re.compile(r"(?i)(?:bearer|basic|digest|token|dpop|negotiate|apikey|key|sso-key|ssws|otp)[ \t]{1,8}")
_BARE = re.compile(r"[^\s,;&\"'`<>(){}\[\]…]{1,1024}")
_LINE = re.compile(r"[^\r\n\"'<>]{1,1024}")
_YAML_ITEM = re.compile(r"(?:[ \t]{0,32}-[ \t][^\r\n]{0,1024}(?:\r?\n|\Z)){1,64}")
_NOT_VALUES = frozenset(("null", "true", "false", "none", "nil", "undefined", "required", "missing", "invalid", "empty"))
_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_.\-]{1,63})[=:]")
_STRAY = frozenset(",;&}])")
_LOOKS_SECRET = re.compile(r"[0-9]|[^A-Za-z0-9]|[A-Za-z]{16}")
_BRACKET_MAX = 2048


def _closing(text: str, start: int) -> int:
    """The end of the bracketed value opening at `start` (past its closing bracket), or
    of the bound: quotes are honoured, nesting counted."""
    depth = 0
    quote = ""
    stop = min(len(text), start + _BRACKET_MAX)
    i = start
    while i < stop:
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth <= 0:
                return i + 1
        i += 1
    return stop


def _value_span(text: str, at: int, name: str) -> tuple[int, int] | None:
    """The span of the value a credential name at `text[..at]` is given, if any."""
    m = _SEP.match(text, at)
    if m is None:  # pragma: no cover - every group is optional
        return None
    op = m.group("op") or ""
    opening = m.group("open") or ""
    close = m.group("close")
    if op in ("(", "|") and not close and not opening:
        return None
    # `==` too: a filter or a comparison that names a credential gives its value away all
    # the same (`api_key==X`).
    strong = op not in ("", ",") or (op == "," and bool(close) and opening[-1:] in ("'", '"'))
    if not strong and ("\n" in m.group("post") or "\r" in m.group("post")):
        return None  # a name at the end of a line of prose
    if not strong and not (m.group("pre") or m.group("post") or opening):
        return None  # the name runs into something else (`password.` ends a sentence)
    pos = m.end()
    if opening in ("[", "{"):
        start = pos - 1
        if text.startswith(MARK, start):
            return None
        return (start, _closing(text, start))
    if opening.startswith("-"):
        if not strong:
            return None
        line = text.rfind("\n", 0, pos - 2) + 1
        items = _YAML_ITEM.match(text, line)
        return (pos - 2, items.end()) if items else None
    if opening == "<":  # after `=` or `:` only: to its closing bracket, else as a bare value
        if op not in ("=", ":", ":="):
            return None
        end = text.find(">", pos, pos + 1024)
        if end < 0:
            bare_after = _BARE.match(text, pos)
            end = bare_after.end() if bare_after is not None else pos
        if end <= pos or not _ALNUM.intersection(text[pos:end]) or text.startswith(MARK, pos):
            return None
        return (pos, end)
    if opening:
        quote = opening[-1]
        end = text.find(quote, pos, pos + 1024)
        end = min(len(text), pos + 1024) if end < 0 else end
        if end <= pos:
            return None
        value = text[pos:end].rstrip("…")
        if not _ALNUM.intersection(value) or value.startswith(MARK) or value.lower() in _NOT_VALUES:
            return None
        if not strong and not _LOOKS_SECRET.search(value):
            return None
        return (pos, end)
    scheme = _SCHEME.match(text, pos)
    if scheme is not None and strong:
        pos = scheme.end()
    if text.startswith(MARK, pos):
        return None
    words = _words(name)
    if strong and ("cookie" in "".join(words)):
        rest = _LINE.match(text, pos)
        return (pos, rest.end()) if rest else None
    bare = _BARE.match(text, pos)
    if bare is None:
        if not strong or op == "," or pos >= len(text) or text[pos] not in _STRAY:
            return None
        # An empty value, then one stray mark and a word (`password=,X`, `token=}X`): the
        # word is read as the value unless it is a pair of its own (`password=&user=bob`).
        bare = _BARE.match(text, pos + 1)
        if bare is None or _PAIR.match(bare.group()) or not _LOOKS_SECRET.search(bare.group()):
            return None
        pos += 1
    value = bare.group().rstrip(".:!?")
    if not _ALNUM.intersection(value) or value.lower() in _NOT_VALUES:
        return None
    pair = _PAIR.match(value)
    if not strong and (not _LOOKS_SECRET.search(value) or len(value) < 4 or (pair and is_secret_name(pair.group(1)))):
        return None  # prose, or the next pair (`auth password="x"`): its own name is read next
    return (pos, pos + len(value))


def _names(text: str) -> Iterator[tuple[int, int]]:
    done = 0  # text before this is consumed: a name or a value already found
    low = text.lower() if text.isascii() else text.translate(_LOWER)
    for m in _KEYWORD.finditer(low):
        s, e = m.span()
        if s < done:
            continue
        start = s
        floor = max(0, s - 64)
        while start > floor and text[start - 1] in _IDENT_CHARS:
            start -= 1
        right = _IDENT_RIGHT.match(text, e)
        end = right.end() if right else e
        if end - start >= 64 + (e - s) or (start > 0 and text[start - 1] in _IDENT_CHARS) or (end < len(text) and text[end] in _IDENT_CHARS):
            # A run longer than any name: not a name. Skip all of it in one go.
            rest = _IDENT_REST.match(text, e)
            done = rest.end() if rest else end
            continue
        name = text[start:end].strip(".-_")
        done = end
        if not is_secret_name(name):
            continue
        span = _value_span(text, end, name)
        if span is not None:
            if "cookie" not in "".join(_words(name)):
                done = max(done, span[1])
            # else a cookie header's line: the names in it are still read (one of them may
            # be the last of the line, its value a YAML list on the lines below); the line
            # is bounded, so this re-reads at most 1,024 characters per name.
            yield span


# XML elements by name: `<password>x</password>`, `<ns:ApiKey type="t">x</ns:ApiKey>`.
_ELEMENT = re.compile(r"<([A-Za-z_][A-Za-z0-9_.:\-]{0,63})(?:\s[^<>]{0,256})?>([^<]{1,4096})")


def _elements(text: str) -> Iterator[tuple[int, int]]:
    if "<" not in text:
        return
    for m in _ELEMENT.finditer(text):
        if is_secret_name(m.group(1).rpartition(":")[2]) and not m.group(2).startswith(MARK) and m.group(2).strip():
            yield m.span(2)


# --------------------------------------------------------------------------- credential values by shape

# Vendor formats (gitleaks' rules, detect-secrets' plugins); case-sensitive.
_VENDOR = re.compile(
    r"(?:"
    r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}"  # AWS key ids
    r"|gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255}"  # GitHub
    r"|gl(?:pat|ptt|dt|rt|soat|cbt|imt|agent|oas|ffct)-[A-Za-z0-9_\-]{20,64}|GR1348941[A-Za-z0-9_\-]{20}"  # GitLab
    r"|xox[abposrec]-[A-Za-z0-9\-]{10,255}|xapp-\d-[A-Za-z0-9\-]{10,255}"  # Slack
    r"|(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,255}|whsec_[A-Za-z0-9+/=]{20,255}"  # Stripe
    r"|sk-[A-Za-z0-9_\-]{20,255}"  # OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-api03-), DeepSeek
    r"|(?:hf_|api_org_)[A-Za-z0-9]{30,40}"  # Hugging Face
    r"|AIza[0-9A-Za-z_\-]{30,40}|GOCSPX-[A-Za-z0-9_\-]{20,40}|ya29\.[0-9A-Za-z_\-]{20,2048}|1//0[0-9A-Za-z_\-]{20,512}"  # Google
    r"|SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64}"  # SendGrid
    r"|(?:SK|AC)[0-9a-f]{32}"  # Twilio
    r"|key-[0-9a-f]{32}|pubkey-[0-9a-f]{32}|[0-9a-f]{32}-us[0-9]{1,2}"  # Mailgun, Mailchimp
    r"|sq0(?:atp|csp|idp)-[0-9A-Za-z_\-]{22,64}|EAAA[A-Za-z0-9_\-+=]{40,80}"  # Square
    r"|access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"  # PayPal/Braintree
    r"|AQE[A-Za-z0-9_\-+=.]{40,255}"  # Adyen
    r"|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_\-]{50,255}|rubygems_[a-f0-9]{48}"  # registries
    r"|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"  # Shopify
    r"|do[por]_v1_[a-f0-9]{64}"  # DigitalOcean
    r"|ATATT3[A-Za-z0-9_\-=]{20,255}|ATBB[A-Za-z0-9_\-=.]{20,255}|ATCTT3[A-Za-z0-9_\-=]{20,255}"  # Atlassian, Bitbucket
    r"|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}|hv[sbr]\.[A-Za-z0-9_\-]{24,255}"  # Doppler, Vault
    r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|lin_api_[A-Za-z0-9]{40}|dapi[a-f0-9]{32}(?:-\d)?"  # Postman, Linear, Databricks
    r"|gl(?:c|sa)_[A-Za-z0-9_+/]{32,255}={0,2}|NRAK-[A-Z0-9]{27}|sntry[su]_[A-Za-z0-9_=+/]{20,255}"  # Grafana, New Relic, Sentry
    r"|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,64}|pul-[a-f0-9]{40}"
    r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"
    r"|(?:secret|ntn)_[A-Za-z0-9]{40,50}|pat[A-Za-z0-9]{14}\.[a-f0-9]{64}|figd_[A-Za-z0-9_\-]{40,64}"  # Notion, Airtable, Figma
    r"|FLWSECK(?:_TEST)?-[a-f0-9]{32}-X|shippo_(?:live|test)_[a-f0-9]{40}|CFPAT-[A-Za-z0-9_\-]{43}"
    r"|pnu_[A-Za-z0-9]{36}|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|EZ[AT]K[A-Za-z0-9]{54}"
    r"|duffel_(?:test|live)_[A-Za-z0-9_\-=]{43}|rdme_[a-z0-9]{70}|r8_[A-Za-z0-9]{37}|gsk_[A-Za-z0-9]{48,64}"
    r"|pplx-[A-Za-z0-9]{40,64}|xai-[A-Za-z0-9]{40,100}|EAA[A-Za-z0-9]{30,255}"  # Perplexity, xAI, Meta
    r"|(?:live|test)_[a-f0-9]{35}|[ps]k\.eyJ[A-Za-z0-9_\-]{10,512}\.[A-Za-z0-9_\-]{10,512}"  # Lob, Mapbox
    r"|[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.\-]{31,34}"  # Azure AD client secrets
    r"|(?:LTAI)[A-Za-z0-9]{20}|AKID[A-Za-z0-9]{32}|(?:tvly|fw|sk_ant|pcsk)[-_][A-Za-z0-9_\-]{30,128}"
    r")"
)
# JWT and JWE by structure: the first part decodes to a JSON object.
_JWT = re.compile(r"(?<![A-Za-z0-9_\-])e[wy][A-Za-z0-9_\-]{8,4096}(?:\.[A-Za-z0-9_\-]{0,8192}){2,4}")
# `+` between the words too: a PEM block form-encoded.
_PEM = re.compile(r"-----BEGIN[ +A-Z0-9]{0,40}PRIVATE[ +]KEY(?:[ +]BLOCK)?-----|-----BEGIN[ +](?:OPENSSH|ENCRYPTED|PGP)[ +A-Z]{0,30}-----")
_PEM_END = re.compile(r"-----END[ +A-Z0-9]{0,60}-----|[\"'<&]")
_PEM_MAX = 16384
_TELEGRAM = re.compile(r"(?<![0-9])[0-9]{5,16}:[A-Za-z0-9_\-]{35}(?![A-Za-z0-9_\-])")
_BEARER = re.compile(r"(?i)\b(?:bearer|basic|digest)[ \t]{1,8}(?!\[redacted\])([A-Za-z0-9._~+/=\-]{6,4096})")
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]{0,31}://[^\s\"'<>`]{1,4096}")
# Long runs of key-like characters, measured piece by piece (see the module docstring).
_RUN = re.compile(r"[A-Za-z0-9+/=_\-.~$]{20,4096}")
_PIECE_SEP = re.compile(r"[+/=_\-.~$]+")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_VOWEL = re.compile(r"[aeiouyAEIOUY]")
_CONSONANTS = re.compile(r"[^aeiouyAEIOUY]{4}")


def _is_word(piece: str) -> bool:
    """A word, or words run together in camelCase (`BucketAlreadyOwnedByYou`): letters
    only, each word three letters or more with a vowel and no four consonants in a row.
    A random piece seldom passes all of these: it changes case every other character,
    or has no vowel, or four consonants together."""
    if len(piece) <= 3 and piece[:1] in "vV" and piece[1:].isdigit():
        return True  # an API version
    if len(piece) < 3 or not piece.isascii() or not piece.isalpha():
        return False
    parts = _CAMEL.findall(piece)
    # One capital before a capitalised word is that word's first letter ("OAuth", "IPhone"):
    # Instagram's OAuthRateLimitException is the words O-Auth, Rate, Limit, Exception.
    for i in range(len(parts) - 1, 0, -1):
        if len(parts[i - 1]) == 1 and parts[i - 1].isupper() and parts[i][:1].isupper() and parts[i][1:2].islower():
            parts[i - 1 : i + 1] = [parts[i - 1] + parts[i]]
    return len(piece) >= 3 * len(parts) and all(len(w) >= 2 and _VOWEL.search(w) and not _CONSONANTS.search(w) for w in parts)


_NEUTRAL_PIECE = re.compile(r"[0-9]{1,12}|[A-Za-z0-9]{1,2}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
# A random run after one of these words is an identifier the service made (a request,
# a message, a charge: `req_011CYK5mje9HkutJtmfPzzNC`, `chatcmpl-...`), which a model may
# quote back to support; a key of these vendors has a prefix of its own (sk_, rk_, ...).
_ID_PREFIX = frozenset((
    "req", "request", "trace", "span", "org", "acct", "cus", "ch", "pi", "pm", "evt", "txn", "msg", "run", "thread",
    "asst", "file", "batch", "chatcmpl", "resp", "call", "toolu", "msgbatch", "job", "ws", "user", "usr", "id",
    "in", "sub", "price", "prod", "py", "src", "cs", "seti", "si", "po", "tr", "ba",
))  # fmt: skip
_MIN_RANDOM = 20  # characters of a token without its separators, as detect-secrets' default
HEX_LIMIT = 3.0
BASE64_LIMIT = 4.5


def entropy(text: str) -> float:
    """Shannon entropy of `text`, in bits per character."""
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values()) if n else 0.0


_HEX_CHARS = frozenset("0123456789abcdefABCDEF")


def looks_random(core: str, margin: float = 0.0) -> bool:
    """Whether a token (its separators removed) is random enough to be a key; `margin`
    raises the bar (bits per character) for a token that holds words too.

    Hex (85% of the characters or more, as a hex key with a short prefix or suffix):
    detect-secrets' 3.0 bits. Otherwise the bar is a share of the most a random string
    of that length and alphabet can reach, log2(min(length, alphabet)), capped at
    detect-secrets' 4.5: 75% with digits, 80% for letters in both cases, 90% for letters
    of one case (run-together English words reach 3.8 to 3.9 bits at 30 characters)."""
    n = len(core)
    if n < _MIN_RANDOM or core.isdigit():
        return False  # short, or a number (an id, a timestamp): a key is never digits alone
    bits = entropy(core)
    if sum(1 for c in core if c in _HEX_CHARS) >= 0.85 * n:
        return bits >= HEX_LIMIT + margin
    lower = any(c.islower() for c in core)
    upper = any(c.isupper() for c in core)
    digit = any(c.isdigit() for c in core)
    alphabet = 64 if lower and upper else 36 if digit else 26
    share = 0.75 if digit else 0.8 if lower and upper else 0.9
    return bits >= min(BASE64_LIMIT, share * math.log2(min(n, alphabet))) + margin


def _pieces(run: str) -> list[tuple[int, int, int]]:
    """The pieces of a run between separators: (start, end, kind), kind 0 for a piece
    that may be random, 1 for a word (or an identifier after an id prefix), 2 for a
    piece too short to say (a number, one or two characters), which joins either."""
    spans = []
    pos = 0
    for sep in _PIECE_SEP.finditer(run):
        if sep.start() > pos:
            spans.append((pos, sep.start()))
        pos = sep.end()
    if pos < len(run):
        spans.append((pos, len(run)))
    out = []
    named = False  # the previous piece was an id prefix, joined by `_` or `-`
    for start, end in spans:
        piece = run[start:end]
        if named:
            kind = 1
            named = False
        elif piece.lower() in _ID_PREFIX and end < len(run) and run[end] in "_-":
            kind = 1
            named = True
        elif piece.isascii() and piece.isalpha() and not piece.islower() and not piece.istitle() and len(piece) <= (6 if piece.isupper() else 7):
            # API, KEY, DENIED, or six random capitals; a short piece in mixed case
            # (`LTAInc`, `EeHWAA`): says nothing either way.
            kind = 2
        elif _is_word(piece):
            kind = 1
        elif _NEUTRAL_PIECE.fullmatch(piece):
            kind = 2
        else:
            kind = 0
        out.append((start, end, kind))
    return out


def _random_runs(text: str) -> Iterator[tuple[int, int]]:
    for m in _RUN.finditer(text):
        run = m.group()
        base = m.start()
        if _UUID.fullmatch(run.strip(".-_~")):
            continue
        pieces = _pieces(run)
        if not pieces:
            continue
        # The whole run, when it is random and more than half not words: a key split by
        # separators (`AbC1-dEf2-...`, an AWS secret with slashes) goes whole, even where
        # one of its pieces happens to spell a word; or when it has two random pieces or
        # more, they make half of it, and it is random as a whole, words included.
        core = "".join(run[a:b] for a, b, kind in pieces if kind != 1)
        whole = "".join(run[a:b] for a, b, _ in pieces)
        words = sum(b - a for a, b, kind in pieces if kind == 1)
        randoms = [b - a for a, b, kind in pieces if kind == 0]
        if (words < len(core) and looks_random(core)) or (
            len(randoms) >= 2 and 2 * sum(randoms) >= len(whole) and looks_random(whole, margin=0.25)
        ):
            # From its first piece that is not a word to its last (`/bot<token>/sendMessage`
            # keeps `sendMessage`).
            inner = [(a, b) for a, b, kind in pieces if kind != 1]
            yield (base + inner[0][0], base + inner[-1][1])
            continue
        # Else each group of consecutive pieces that are not words (a path's random
        # segment between words: `/v1/files/<key>/content`), or, where the group as a
        # whole is not random enough (a hex key glued to a base64 one), each long piece.
        yield from _groups(run, base, pieces)


def _groups(run: str, base: int, pieces: list[tuple[int, int, int]]) -> Iterator[tuple[int, int]]:
    group: list[tuple[int, int, int]] = []
    before: tuple[int, int, int] | None = None  # the word piece before the group
    for i, piece in enumerate([*pieces, (len(run), len(run), 1)]):
        if piece[2] != 1:
            group.append(piece)
            continue
        if any(kind == 0 for _, _, kind in group):
            text = "".join(run[a:b] for a, b, _ in group)
            mixed = sum(1 for a, b, kind in group if kind == 0 and not run[a:b].isalpha() and not run[a:b].isdigit())
            if looks_random(text) or (mixed >= 3 and len(text) >= _MIN_RANDOM):
                # Random, or three pieces or more that mix letters and digits: a key cut
                # into pieces, not a path (whose segments are words and numbers).
                yield (base + group[0][0], base + group[-1][1])
            elif before is not None and before[1] - before[0] <= 8 and looks_random(run[before[0] : before[1]] + text):
                # With the word before it: a vendor prefix (`glpat`, `xkeysib`) split off.
                yield (base + before[0], base + group[-1][1])
            else:
                for a, b, kind in group:
                    if kind == 0 and looks_random(run[a:b]):
                        yield (base + a, base + b)
        group = []
        before = piece if i < len(pieces) else None


def _jwts(text: str) -> Iterator[tuple[int, int]]:
    if "." not in text:
        return
    for m in _JWT.finditer(text):
        head = m.group().split(".", 1)[0][:16]
        head = head[: len(head) // 4 * 4]
        try:
            decoded = base64.urlsafe_b64decode(head)
        except ValueError:
            continue
        if decoded.lstrip().startswith(b"{"):
            yield m.span()


def _pems(text: str) -> Iterator[tuple[int, int]]:
    if "-----BEGIN" not in text:
        return
    pos = 0
    while True:
        m = _PEM.search(text, pos)
        if m is None:
            return
        found = _PEM_END.search(text, m.end(), min(len(text), m.end() + _PEM_MAX))
        if found is None:
            stop = min(len(text), m.end() + _PEM_MAX)
        else:
            stop = found.end() if found.group().startswith("-") else found.start()
        yield (m.start(), stop)
        pos = max(stop, m.end())


def _urls(text: str) -> Iterator[tuple[int, int]]:
    if "://" not in text:
        return
    for m in _URL.finditer(text):
        url = m.group()
        base = m.start()
        head = url.index("://") + 3
        rest = url[head:]
        cut = len(rest)
        for ch in "?#":
            at = rest.find(ch)
            if at >= 0:
                cut = min(cut, at)
        authority_end = rest.find("/", 0, cut)
        at_sign = rest.rfind("@", 0, cut)
        if at_sign > 0 and (authority_end < 0 or at_sign < authority_end or ":" in rest[:authority_end]):
            if not rest.startswith(MARK):
                yield (base + head, base + head + at_sign)
        else:
            yield from _lost_userinfo(text, base + head, rest[: cut if authority_end < 0 else authority_end])
        query = rest.find("?")
        fragment = rest.find("#")
        if query >= 0 and (fragment < 0 or query < fragment):
            q_end = fragment if fragment > query else len(rest)
            if rest[query + 1 : q_end] and not rest.startswith(MARK, query + 1):
                yield (base + head + query + 1, base + head + q_end)
        if fragment >= 0 and "=" in rest[fragment:] and not rest.startswith(MARK, fragment + 1):
            yield (base + head + fragment + 1, base + len(url))


# After a URL whose authority ends in `:` (`https://user: pass@host`, the `@` part parted
# from it): quotes, brackets or spaces, then the password up to its `@`.
_AFTER_COLON = re.compile(r"[ \t\r\n\"'`<]{1,4}([^\s\"'`<>@/]{1,256})@")


def _lost_userinfo(text: str, start: int, authority: str) -> Iterator[tuple[int, int]]:
    """A password in a URL whose `@` is gone or parted from it: an authority's "port" that
    is no number (RFC 3986 ports are digits: `user:Pa55word` with its `@` cut off), or the
    word after an authority that ends in `:`."""
    colon = authority.find(":", authority.rfind("]") + 1)  # past an IPv6 address's own colons
    if colon < 0:
        return
    port = authority[colon + 1 :]
    if port and not port.isdigit() and _LOOKS_SECRET.search(port) and not port.startswith(MARK):
        yield (start + colon + 1, start + len(authority))
    elif not port:
        after = _AFTER_COLON.match(text, start + len(authority))
        if after is not None and not after.group(1).startswith(MARK):
            yield after.span(1)


def _bearers(text: str) -> Iterator[tuple[int, int]]:
    for m in _BEARER.finditer(text):
        value = m.group(1)
        if _LOOKS_SECRET.search(value):
            yield m.span(1)


# Every vendor format is a run of these characters of 20 or more: the vendor patterns
# are tried inside such runs only (one cheap pass finds them).
_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_\-.~$]{20,8192}")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _shapes(text: str) -> Iterator[tuple[int, int]]:
    for run in _CANDIDATE.finditer(text):
        for m in _VENDOR.finditer(text, run.start(), run.end()):
            # Glued to a word (`/bot<token>`, `Bearer<token>`) only when it is random.
            if m.start() == 0 or text[m.start() - 1] not in _ALNUM or looks_random(_PIECE_SEP.sub("", m.group())):
                yield m.span()
    if ":" in text:
        for m in _TELEGRAM.finditer(text):
            yield m.span()


_RULES: tuple[Callable[[str], Iterator[tuple[int, int]]], ...] = (
    _pems, _urls, _names, _elements, _bearers, _jwts, _shapes, _random_runs,
)  # fmt: skip


# --------------------------------------------------------------------------- scrub, redact


# Whether any rule may find something: a credential word, a long run of key characters,
# a URL, a PEM armour line, a Basic/Digest scheme. Most strings a fault holds (a code, a
# field name, a sentence of prose) have none, and cost this one pass.
_TRIGGER = re.compile(_KEYWORD.pattern + r"|basic|digest|://|-----begin|[a-z0-9+/=_\-.~$:]{20}")


def _spans(text: str) -> list[tuple[int, int]]:
    """The spans of `text` (original positions) that hold a credential, merged."""
    norm, mapping = _normalise(text)
    if _TRIGGER.search(norm.lower() if norm.isascii() else norm.translate(_LOWER)) is None:
        return []
    found: list[tuple[int, int]] = []
    for rule in _RULES:
        for start, end in rule(norm):
            if end > start:
                found.append(mapping.span(start, end) if mapping is not None else (start, end))
    if not found:
        return []
    # A span that cuts into a marker takes the marker whole.
    found.sort()
    merged: list[list[int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out: list[tuple[int, int]] = []
    for start, end in merged:
        left = text.rfind(MARK, max(0, start - len(MARK) + 1), start + len(MARK) - 1)
        if 0 <= left < start < left + len(MARK):
            start = left
        right = text.find(MARK, max(0, end - len(MARK) + 1), end + len(MARK) - 1)
        if 0 <= right < end < right + len(MARK):
            end = right + len(MARK)
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _scrub_once(text: str) -> str:
    spans = _spans(text)
    if not spans:
        return text
    parts = []
    last = 0
    for start, end in spans:
        if text[start:end] == MARK:
            parts.append(text[last:end])
        else:
            parts.append(text[last:start])
            parts.append(MARK)
        last = end
    parts.append(text[last:])
    return "".join(parts)


def scrub(text: str) -> str:
    """`text` with credentials replaced by `[redacted]`, and nothing else changed."""
    if len(text) <= _CACHED_MAX:
        return _scrub_cached(text)
    return _scrub(text)


# A fault's text is scrubbed several times on its way out (from_exception, then each of
# agent_message's pieces, then each member of the structured output): the last few short
# results are kept. Bounded: 256 strings of at most 4,096 characters.
_CACHED_MAX = 4096


@functools.lru_cache(maxsize=256)
def _scrub_cached(text: str) -> str:
    return _scrub(text)


def _scrub(text: str) -> str:
    for _ in range(_ROUNDS):
        new = _scrub_once(text)
        if new == text:
            break
        text = new
    return text


_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def head(text: str, bound: int) -> str:
    """The first `bound` characters of `text`, less the token the bound cut (the run of
    non-space characters, up to 1,024 of them, that ends there): a secret cut in two is
    dropped with the rest, not shown in part. A scan back, not a search for that run,
    which tries every start on a text without spaces (2.4 million steps at 2,400)."""
    if len(text) <= bound:
        return text
    text = text[:bound]
    start, floor = bound, bound - 1024
    while start > floor and start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[:start] if start > 0 else text


def redact(text: str, limit: int | None = None) -> str:
    """`text` with credentials replaced by `[redacted]`, control characters by spaces,
    and cut to `limit` characters (with an ellipsis) when given.

    Scrubbed first, cut after: a credential is never cut in two before it is found. Only
    the first `4 * limit` characters are read (2,400 without a limit), so hostile text
    costs bounded work; a token the bound cuts is dropped whole, not shown in part.
    """
    text = head(text, 4 * limit if limit is not None else _DEFAULT_READ)
    text = _flat(scrub(text))
    # Cut, then read the cut text again: a cut can leave a name's value half there
    # (`key=%2…`), which a second reading takes for a value. Until it reads the same,
    # so that redacting the output again changes nothing.
    for _ in range(_ROUNDS):
        if limit is not None and len(text) > limit:
            text = _cut(text, limit)
        again = _flat(scrub(text))
        if again == text:
            return text
        text = again
    return _cut(text, limit) if limit is not None and len(text) > limit else text


def _flat(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def _cut(text: str, limit: int) -> str:
    cut = limit - 1
    marker = text.rfind(MARK, max(0, cut - len(MARK) + 1), cut + len(MARK) - 1)
    if 0 <= marker < cut < marker + len(MARK):
        cut = marker  # not half a marker: "[redac…" would read as a value
    return text[:cut].rstrip() + "…"


# --------------------------------------------------------------------------- scrub_fault

# How deep scrub_fault goes into extension members and alternatives (Limits.max_depth).
_SCRUB_DEPTH = 32


def scrub_value(value: Any, depth: int = 0) -> Any:
    """`value` (a string, a msgspec Struct, a list, tuple or dict of them) with its
    credentials redacted: a member named like a credential has its whole value
    replaced, whatever its type (a number, a list, an object). The same object where
    nothing changed."""
    if isinstance(value, str):
        return scrub(value)
    if depth >= _SCRUB_DEPTH:
        return value
    if isinstance(value, Violation) and _value_like(value.description) and is_secret_name(scrub_name(value.field)):
        # A field named like a credential, its value in the description ("password":
        # "hunter2" as a violation): the secret is split across the two. A description
        # in prose ("must contain at least 8 characters") is what the model needs to
        # fix the call, and goes through scrub as any text.
        value = msgspec.structs.replace(value, description=MARK)
    if isinstance(value, msgspec.Struct):
        changes = {}
        for name in value.__struct_fields__:
            old = getattr(value, name)
            new = scrub_value(old, depth + 1)
            if new is not old:
                changes[name] = new
        return msgspec.structs.replace(value, **changes) if changes else value
    if isinstance(value, tuple):
        items = tuple(scrub_value(v, depth + 1) for v in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, list):
        out = [scrub_value(v, depth + 1) for v in value]
        return value if all(a is b for a, b in zip(out, value)) else out
    if isinstance(value, dict):
        pairs = {k: MARK if _secret_member(k, v) else scrub_value(v, depth + 1) for k, v in value.items()}
        return value if all(pairs[k] is v for k, v in value.items()) else pairs
    return value


def _value_like(text: str) -> bool:
    """One token, not prose: what a value looks like, a description does not."""
    return bool(text) and text != MARK and len(text.split()) == 1 and bool(_ALNUM.intersection(text))


def _secret_member(key: Any, value: Any) -> bool:
    if not isinstance(key, str) or not is_secret_name(scrub_name(key)):
        return False
    if value is None or isinstance(value, bool) or value == MARK:
        return False
    return not (isinstance(value, (str, list, dict, tuple)) and not value)


def scrub_name(name: str) -> str:
    """A member's name as the rules read it (normalised: `pass\\u200bword` is `password`)."""
    return _normalise(name)[0]


def scrub_fault(fault: Fault) -> Fault:
    """`fault` with credentials redacted from every text it holds (title, detail, URIs,
    violations, metadata, alternatives, extensions, the typed details): the same fault,
    when there were none. `origin` is left as it is (it holds errconv's own notes)."""
    changes = {}
    for name in fault.__struct_fields__:
        if name == "origin":
            continue
        old = getattr(fault, name)
        new = old if isinstance(old, (int, enum.Enum)) or old is None else scrub_value(old, 0)
        if new is not old and new != old:
            changes[name] = new
    return fault.replace(**changes) if changes else fault
