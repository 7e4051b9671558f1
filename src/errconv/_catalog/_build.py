"""Everything `errconv catalog build` generates from one catalog.

- a documentation page per code, Markdown and self-contained HTML, at the path its
  `type` URI names (`problems/rate_limited/index.md` and `index.html`, which a
  static host serves at `/problems/rate_limited`), and an index of them all;
- each code's example in every dialect the pages show (`examples/<code>/...`, named
  as golden files are), each of which passes `errconv lint`;
- `openapi.json`: an OpenAPI 3.1 document of components only: the problem+json
  schema with the agent members, a schema, a response and an example per code;
- `tool-description.txt`: the contract sentence for a tool's description, with
  every code and what it means for the caller;
- `error_reason.proto`: the codes as AIP-193 reasons, an enum with comments, as
  Google's own error_reason.proto is written.

Every output is deterministic: the same catalog gives the same bytes.
"""

from __future__ import annotations

import html
import json
import os
import re
import urllib.parse
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import errconv
from errconv.codes import NextStep, reason_phrase

if TYPE_CHECKING:
    from . import Catalog, Entry

__all__ = ["EXAMPLE_DIALECTS", "build", "openapi", "pages", "proto", "rendering", "tool_description"]

# The dialects each page shows an example in, with the file each is written to. A
# Stripe body goes with its response: bare, it carries neither the status nor the delay.
EXAMPLE_DIALECTS: dict[str, str] = {
    "problem": "problem.json",
    "http+problem": "http-problem.http",
    "google": "google.json",
    "http+google": "http-google.http",
    "status-json": "status-json.json",
    "http+stripe": "http-stripe.http",
    "grpc": "grpc.txt",
}
_LABELS = {
    "problem": "RFC 9457 problem details (application/problem+json)",
    "http+problem": "The whole HTTP response, problem details",
    "google": "Google's JSON error envelope (google.rpc.Status over HTTP)",
    "http+google": "The whole HTTP response, Google's envelope",
    "status-json": "google.rpc.Status in proto3 JSON (grpc-gateway, Envoy)",
    "http+stripe": "The whole HTTP response, Stripe's error object",
    "grpc": "gRPC trailers (grpc-status-details-bin holds the google.rpc.Status)",
}
_MOVES = {
    NextStep.FIX_REQUEST: "Fix the request",
    NextStep.WAIT: "Wait, then repeat the identical call",
    NextStep.GIVE_UP: "Give up on this call",
}


def rendering(fault: errconv.Fault, dialect: str) -> bytes:
    """`fault` written in `dialect`, ending in a newline."""
    data = errconv.encode(fault, dialect)
    return data if data.endswith(b"\n") else data + b"\n"


def _page_path(entry: Entry) -> str:
    """The page's directory under the output, from the path of its type URI."""
    path = urllib.parse.urlsplit(entry.type).path.strip("/")
    return path or entry.code


def _index_path(catalog: Catalog) -> str:
    return urllib.parse.urlsplit(catalog.type_base).path.strip("/")


# --------------------------------------------------------------------------- pages


def _rows(catalog: Catalog, entry: Entry) -> list[tuple[str, str]]:
    """The fields of the problem type: (member, what it holds)."""
    rows = [
        ("type", entry.type),
        ("title", entry.title),
        ("status", f"{entry.status} {reason_phrase(entry.status)}"),
        ("code", f"{entry.code} (gRPC: {entry.grpc_code_name}, ErrorInfo reason {entry.reason}, domain {entry.domain})"),
        ("next_step", entry.next_step.value),
    ]
    if entry.next_step == NextStep.FIX_REQUEST:
        rows.append(("param", "one of: " + ", ".join(entry.params)))
        rows.append(("violations", "each field at fault, with what is wrong with it"))
    if entry.next_step == NextStep.WAIT:
        default = f"{entry.retry_after_seconds} s by default" if entry.retry_after_seconds is not None else "set per occurrence"
        limit = f", at most {entry.max_retry_after_seconds} s" if entry.max_retry_after_seconds is not None else ""
        rows.append(("retry_after_seconds", f"whole seconds, {default}{limit}; the same number as Retry-After"))
    if entry.alternatives:
        rows.append(("alternatives", "up to three things to offer instead; alternatives_truncated says more exist"))
    if entry.blocked_by:
        rows.append(("blocked_by", entry.blocked_by))
    if entry.unblock_with:
        rows.append(("unblock_with", f"{entry.unblock_with}: the tool that changes what blocks the call"))
    if entry.metadata_keys:
        rows.append(("metadata", "keys: " + ", ".join(entry.metadata_keys)))
    if entry.docs_url != entry.type:
        rows.append(("documentation", entry.docs_url))
    return rows


# What the catalog says is quoted into Markdown, which passes HTML through and makes
# links of brackets: a catalog from a pull request could put `<script>` or
# `[x](javascript:...)` on a page. Those characters are escaped (HTML's three as
# entities, Markdown's by a backslash) outside `code` spans, whose content Markdown
# shows literally; a line break would end a heading or a table row, so it is a space.
_MD_SPECIAL = re.compile(r"([\\\[\]])")


def _md(text: str, *, cell: bool = False) -> str:
    out = []
    for i, part in enumerate(re.split(r"(`[^`\n]+`)", " ".join(text.split()))):
        if i % 2:  # a code span, shown as it is
            out.append(part)
        else:
            out.append(_MD_SPECIAL.sub(r"\\\1", html.escape(part, quote=False)))
    text = "".join(out)
    return text.replace("|", "&#124;") if cell else text


def _move(entry: Entry) -> str:
    meaning = entry.meaning()
    return f"{_MOVES[entry.next_step]}. {meaning[0].upper()}{meaning[1:]}."


def markdown_page(catalog: Catalog, entry: Entry, examples: dict[str, bytes]) -> str:
    out = [f"# {_md(entry.title)}", "", f"`{entry.code}`: HTTP {entry.status}, gRPC {entry.grpc_code_name}, `next_step` {entry.next_step.value}.", ""]
    if entry.description:
        out += [_md(entry.description), ""]
    out += ["## What the caller should do", "", _md(_move(entry)), "", "## Fields", "", "| member | value |", "| --- | --- |"]
    out += [f"| `{name}` | {_md(value, cell=True)} |" for name, value in _rows(catalog, entry)]
    out += ["", "## Examples", ""]
    for dialect, data in examples.items():
        fence = "http" if dialect.startswith("http") else ("json" if dialect != "grpc" else "text")
        text = data.decode().rstrip("\n").replace("\r\n", "\n")
        ticks = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
        out += [f"### {dialect}", "", _LABELS[dialect] + ".", "", f"{ticks}{fence}", text, ticks, ""]
    out += [f"Generated by errconv from the catalog of {_md(catalog.domain)}."]
    return "\n".join(out) + "\n"


_STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}"
    "code,pre{font:14px/1.4 ui-monospace,monospace}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}"
    ".move{font-size:1.1rem;border-left:4px solid #555;padding-left:.75rem}"
)


def _html(title: str, body: list[str]) -> str:
    head = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
    )
    return head + "\n".join(body) + "\n</body>\n</html>\n"


_TICKS = re.compile(r"`([^`]+)`")


def _prose(text: str) -> str:
    """Escaped text, with Markdown's `code` spans as <code>."""
    return _TICKS.sub(r"<code>\1</code>", html.escape(text))


def html_page(catalog: Catalog, entry: Entry, examples: dict[str, bytes]) -> str:
    e = html.escape
    body = [
        f"<h1>{e(entry.title)}</h1>",
        f"<p><code>{e(entry.code)}</code>: HTTP {entry.status}, gRPC {e(entry.grpc_code_name)}, "
        f"<code>next_step</code> {e(entry.next_step.value)}.</p>",
    ]
    if entry.description:
        body.append(f"<p>{e(entry.description)}</p>")
    body += ["<h2>What the caller should do</h2>", f'<p class="move">{_prose(_move(entry))}</p>', "<h2>Fields</h2>", "<table>"]
    body.append("<tr><th>member</th><th>value</th></tr>")
    body += [f"<tr><td><code>{e(name)}</code></td><td>{e(value)}</td></tr>" for name, value in _rows(catalog, entry)]
    body += ["</table>", "<h2>Examples</h2>"]
    for dialect, data in examples.items():
        text = data.decode().rstrip("\n").replace("\r\n", "\n")
        body += [f"<h3>{e(dialect)}</h3>", f"<p>{e(_LABELS[dialect])}.</p>", f"<pre><code>{e(text)}</code></pre>"]
    body.append(f"<p><small>Generated by errconv from the catalog of {e(catalog.domain)}.</small></p>")
    return _html(f"{entry.title} ({entry.code})", body)


def _index(catalog: Catalog) -> tuple[str, str]:
    title = catalog.title or f"Errors of {catalog.domain}"
    md = [f"# {_md(title)}", ""]
    if catalog.description:
        md += [_md(catalog.description), ""]
    md += ["| code | status | next_step | title |", "| --- | --- | --- | --- |"]
    base = _index_path(catalog)
    rows = []
    for entry in catalog:
        rel = os.path.relpath(_page_path(entry), base or ".").replace(os.sep, "/")
        md.append(f"| [`{entry.code}`]({rel}/) | {entry.status} | {entry.next_step.value} | {_md(entry.title, cell=True)} |")
        rows.append(
            f'<tr><td><a href="{html.escape(rel)}/"><code>{html.escape(entry.code)}</code></a></td><td>{entry.status}</td>'
            f"<td>{entry.next_step.value}</td><td>{html.escape(entry.title)}</td></tr>"
        )
    body = [f"<h1>{html.escape(title)}</h1>"]
    if catalog.description:
        body.append(f"<p>{html.escape(catalog.description)}</p>")
    body += ["<table>", "<tr><th>code</th><th>status</th><th>next_step</th><th>title</th></tr>", *rows, "</table>"]
    return "\n".join(md) + "\n", _html(title, body)


def examples_of(catalog: Catalog, entry: Entry) -> dict[str, bytes]:
    """`entry`'s example, in every dialect the pages show."""
    from . import example_fault

    fault = example_fault(catalog, entry)
    return {dialect: rendering(fault, dialect) for dialect in EXAMPLE_DIALECTS}


def pages(catalog: Catalog) -> dict[str, bytes]:
    """Every page and example file, by its path under the output directory."""
    out: dict[str, bytes] = {}
    for entry in catalog:
        examples = examples_of(catalog, entry)
        where = _page_path(entry)
        out[f"{where}/index.md"] = markdown_page(catalog, entry, examples).encode()
        out[f"{where}/index.html"] = html_page(catalog, entry, examples).encode()
        for dialect, data in examples.items():
            out[f"examples/{entry.code}/{EXAMPLE_DIALECTS[dialect]}"] = data
    md, page = _index(catalog)
    base = _index_path(catalog)
    out[f"{base}/index.md" if base else "index.md"] = md.encode()
    out[f"{base}/index.html" if base else "index.html"] = page.encode()
    return out


# --------------------------------------------------------------------------- OpenAPI


def _problem_schema(catalog: Catalog) -> dict[str, Any]:
    codes = [e.code for e in catalog]
    if catalog.internal.code not in codes:
        codes.append(catalog.internal.code)
    return {
        "type": "object",
        "description": (
            "RFC 9457 problem details with the agent members: a stable `code`, the caller's `next_step`, "
            "and what that move needs (`param` and `violations`, `retry_after_seconds`, `alternatives`, `unblock_with`). "
            "Consumers ignore members they do not know (RFC 9457 section 3.2)."
        ),
        "required": ["type", "title", "status", "code", "next_step"],
        "properties": {
            "type": {"type": "string", "format": "uri-reference", "description": "The problem type: type_base + code."},
            "title": {"type": "string"},
            "status": {"type": "integer", "minimum": 400, "maximum": 599},
            "detail": {"type": "string", "description": "Prose for people; never parsed for meaning."},
            "instance": {"type": "string", "format": "uri-reference"},
            "code": {"type": "string", "enum": codes, "description": "The stable identifier a client switches on."},
            "domain": {"type": "string", "description": "Who owns the code (google.rpc.ErrorInfo domain)."},
            "grpc_code": {"type": "string", "description": "The google.rpc.Code name, where it is not the one the status implies."},
            "next_step": {
                "type": "string",
                "enum": [s.value for s in NextStep],
                "description": "fix_request: change `param`, call again; wait: wait `retry_after_seconds`, repeat the identical call; give_up: stop.",
            },
            "retry_after_seconds": {"type": "integer", "minimum": 0, "description": "Whole seconds; the same number as Retry-After."},
            "param": {"type": "string", "description": "The parameter at fault."},
            "violations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["field"],
                    "properties": {"field": {"type": "string"}, "description": {"type": "string"}, "reason": {"type": "string"}},
                },
            },
            "alternatives": {"type": "array", "maxItems": 3, "description": "What to offer instead, nearest first."},
            "alternatives_truncated": {"type": "boolean", "description": "More alternatives exist than the three sent."},
            "blocked_by": {"type": "string", "description": "The condition that blocks the call."},
            "unblock_with": {"type": "string", "description": "The tool that changes that condition."},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }


def _code_schema(entry: Entry) -> dict[str, Any]:
    props: dict[str, Any] = {
        "type": {"const": entry.type},
        "status": {"const": entry.status},
        "code": {"const": entry.code},
        "next_step": {"const": entry.next_step.value},
    }
    required = []
    if entry.next_step == NextStep.FIX_REQUEST:
        props["param"] = {"type": "string", "enum": list(entry.params)}
        required.append("param")
    elif entry.params:
        props["param"] = {"type": "string", "enum": list(entry.params)}
    if entry.next_step == NextStep.WAIT:
        delay: dict[str, Any] = {"type": "integer", "minimum": 0}
        if entry.retry_after_seconds is not None:
            delay["default"] = entry.retry_after_seconds
        if entry.max_retry_after_seconds is not None:
            delay["maximum"] = entry.max_retry_after_seconds
        props["retry_after_seconds"] = delay
        required.append("retry_after_seconds")
    else:
        props["retry_after_seconds"] = False
    if entry.unblock_with:
        props["unblock_with"] = {"const": entry.unblock_with}
    if entry.blocked_by:
        props["blocked_by"] = {"const": entry.blocked_by}
    if not entry.alternatives:
        props["alternatives"] = False
    props["metadata"] = {"type": "object", "propertyNames": {"enum": list(entry.metadata_keys)}} if entry.metadata_keys else {"maxProperties": 0}
    schema: dict[str, Any] = {"properties": props}
    if required:
        schema["required"] = required
    return {"title": entry.title, "description": entry.meaning(), "allOf": [{"$ref": "#/components/schemas/Problem"}, schema]}


def openapi(catalog: Catalog) -> dict[str, Any]:
    """The OpenAPI 3.1 document: components for every code (a path's responses `$ref` them)."""
    from . import example_fault

    schemas: dict[str, Any] = {"Problem": _problem_schema(catalog)}
    responses: dict[str, Any] = {}
    examples: dict[str, Any] = {}
    entries = list(catalog)
    if catalog.internal.code not in catalog.entries:
        entries.append(catalog.internal)
    for entry in entries:
        schemas[_checked(catalog, entry.code, _OPENAPI_NAME, "OpenAPI component name")] = _code_schema(entry)
        fault = example_fault(catalog, entry) if entry.code in catalog.entries else catalog.internal_fault()
        examples[entry.code] = {"summary": entry.title, "value": json.loads(rendering(fault, "problem"))}
        response: dict[str, Any] = {
            "description": f"{entry.title} (HTTP {entry.status}, next_step {entry.next_step.value}): {entry.meaning()}.",
            "content": {
                "application/problem+json": {
                    "schema": {"$ref": f"#/components/schemas/{entry.code}"},
                    "examples": {entry.code: {"$ref": f"#/components/examples/{entry.code}"}},
                }
            },
        }
        if entry.next_step == NextStep.WAIT:
            response["headers"] = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}
        responses[entry.code] = response
    return {
        "openapi": "3.1.0",
        "info": {
            "title": catalog.title or f"Errors of {catalog.domain}",
            "version": "1",
            "description": "Generated by errconv from the error catalog: one response and one example per code. " + catalog_contract(catalog),
        },
        "components": {
            "schemas": schemas,
            "responses": responses,
            "examples": examples,
            "headers": {
                "Retry-After": {
                    "description": "Whole seconds to wait (RFC 9110 delay-seconds): the body's retry_after_seconds.",
                    "schema": {"type": "integer", "minimum": 0},
                }
            },
        },
    }


def catalog_contract(catalog: Catalog) -> str:
    from . import TOOL_CONTRACT

    return TOOL_CONTRACT


# --------------------------------------------------------------------------- tool description and proto


def tool_description(catalog: Catalog, codes: Iterable[str] | None = None) -> str:
    """The text for a tool's description: the contract sentence, then each code the
    tool may return (all the catalog's, or `codes`) and what it means for the caller."""
    from . import TOOL_CONTRACT

    chosen = [catalog.entry(c) for c in codes] if codes is not None else list(catalog)
    lines = [TOOL_CONTRACT, "", "Codes it may return:"]
    for entry in chosen:
        lines.append(f"- {entry.code} ({entry.next_step.value}, HTTP {entry.status}): {entry.title}; {entry.meaning()}.")
    internal = catalog.internal
    if internal.code not in {e.code for e in chosen}:
        lines.append(f"- {internal.code} ({internal.next_step.value}, HTTP {internal.status}): {internal.title}; {internal.meaning()}.")
    return "\n".join(lines) + "\n"


# protobuf's grammar for a package (fullIdent) and an enum value (ident): what the
# generated file says must parse as exactly that, whatever the catalog held.
_PROTO_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# OpenAPI 3.1: the keys of components' maps.
_OPENAPI_NAME = re.compile(r"[a-zA-Z0-9.\-_]+")


def _checked(catalog: Catalog, value: str, grammar: re.Pattern[str], what: str) -> str:
    """`value`, refused (CatalogError) unless it is one `what` by `grammar`."""
    from . import CatalogError

    if not value.isascii() or not grammar.fullmatch(value):
        raise CatalogError(catalog.source, None, "domain" if "package" in what else "code", f"{value!r} is no {what}")
    return value


def _proto_package(domain: str) -> str:
    parts = [p for p in domain.lower().replace("-", "_").split(".") if p]
    parts = [p if p[0].isalpha() else f"_{p}" for p in reversed(parts)]
    return ".".join(parts) or "errors"


def _comment(text: str, indent: str) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > 76:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return [f"{indent}// {ln}" for ln in lines]


def proto(catalog: Catalog) -> str:
    """The codes as an AIP-193 reason enum with comments (as google/api/error_reason.proto)."""
    out = [
        'syntax = "proto3";',
        "",
        f"package {'.'.join(_checked(catalog, p, _PROTO_IDENT, 'proto package part') for p in _proto_package(catalog.domain).split('.'))};",
        "",
        "// Generated by errconv from the error catalog. Values follow the catalog's order:",
        "// add a code at the end, and never reuse the number of one removed.",
        "//",
        *_comment(f"Each value is the ErrorInfo.reason of one code, in the domain {catalog.domain!r}.", ""),
        "enum ErrorReason {",
        "  // Do not use this default value.",
        "  ERROR_REASON_UNSPECIFIED = 0;",
    ]
    entries = list(catalog)
    if catalog.internal.code not in catalog.entries:
        entries.append(catalog.internal)
    for number, entry in enumerate(entries, 1):
        out.append("")
        out += _comment(f"{entry.title}. {entry.description or ''}".strip(), "  ")
        out.append("  //")
        out += _comment(
            f"HTTP {entry.status}, gRPC {entry.grpc_code_name}, next_step {entry.next_step.value}: {entry.meaning()}.", "  "
        )
        out.append("  //")
        out.append("  // Example of an ErrorInfo:")
        out.append("  //")
        out.append("  //     { \"reason\": \"" + entry.reason + "\",")
        out.append(f'  //       "domain": "{entry.domain}",')
        meta = ", ".join(f'"{k}": "..."' for k in entry.metadata_keys)
        out.append(f"  //       \"metadata\": {{ {meta} }} }}" if meta else '  //       "metadata": {} }')
        out.append(f"  {_checked(catalog, entry.reason, _PROTO_IDENT, 'proto enum value')} = {number};")
    out.append("}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- all of it


def check_examples(catalog: Catalog, files: dict[str, bytes]) -> None:
    """Lint every example, with the catalog: a finding is the catalog's fault (its
    entry's example, or a rule the loader does not check), raised as a CatalogError."""
    from . import CatalogError

    for rel, data in files.items():
        if not rel.startswith("examples/"):
            continue
        code = rel.split("/")[1]
        for finding in errconv.lint_body(data, file=rel, catalog=catalog):
            raise CatalogError(catalog.source, code, finding.rule, f"its example {rel}: {finding.message}")


def build(catalog: Catalog) -> dict[str, bytes]:
    """Every generated file, by its path under the output directory. Raises
    CatalogError when an example has a lint finding (nothing is then written)."""
    out = pages(catalog)
    check_examples(catalog, out)
    out["openapi.json"] = (json.dumps(openapi(catalog), indent=2, ensure_ascii=False) + "\n").encode()
    out["tool-description.txt"] = tool_description(catalog).encode()
    out["error_reason.proto"] = proto(catalog).encode()
    return dict(sorted(out.items()))


def _safe_parts(rel: str, source: str) -> list[str]:
    """The components of a relative output path, refused (CatalogError) unless each is a
    plain name: no `..` or `.`, no empty part (an absolute path), no separator or
    control character of any system, so the path cannot name anything outside the output."""
    from . import CatalogError

    parts = rel.split("/")
    for part in parts:
        if part in ("", ".", "..") or any(c in part for c in "\\:") or any(ord(c) < 32 or ord(c) == 127 for c in part):
            raise CatalogError(source, None, "out-path", f"refusing to write {rel!r}: it is no plain path under the output")
    return parts


def write(files: dict[str, bytes], directory: str, *, source: str = "<catalog>") -> list[str]:
    """Write `files` under `directory`; the paths written, sorted.

    The catalog is untrusted input (it may come in a pull request and be built with CI's
    rights), so every path is proven to stay inside `directory` before anything is
    written: each is a plain relative path (see `_safe_parts`), no directory on the way
    may be a symbolic link (one could point anywhere), and each file is opened with
    O_NOFOLLOW so a link planted at its own name is refused too. `directory` itself may
    be a link (the caller chose it). A refused path raises CatalogError; the paths are
    all checked before the first byte is written."""
    from . import CatalogError

    checked = {rel: _safe_parts(rel, source) for rel in files}
    root = os.path.realpath(directory)
    os.makedirs(root, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for rel, data in files.items():
        parts = checked[rel]
        here = root
        for part in parts[:-1]:
            here = os.path.join(here, part)
            if os.path.islink(here):
                raise CatalogError(source, None, "out-path", f"refusing to write {rel!r}: {here} is a symbolic link")
            if not os.path.isdir(here):
                os.mkdir(here)
        path = os.path.join(here, parts[-1])
        if os.path.islink(path):
            raise CatalogError(source, None, "out-path", f"refusing to write {rel!r}: {path} is a symbolic link")
        fd = os.open(path, flags, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    return sorted(files)
