"""`errconv catalog build` over the sample catalog: goldens, and independent checks of what it wrote.

tests/catalog/build/ holds everything generated from tests/catalog/errors.toml; it
changes only with `pytest --update-goldens` (review the diff). The checks do not trust
errconv: the OpenAPI document goes through openapi-spec-validator, each example through
the schema of its code (jsonschema) and `errconv lint --catalog`, the proto through
protoc (grpcio-tools).
"""

from __future__ import annotations

import html.parser
import io
import json
import pathlib
import re

import pytest

import errconv
from errconv import _cli as cli
from errconv._catalog._build import EXAMPLE_DIALECTS, build

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "catalog" / "errors.toml"
GOLDEN = ROOT / "tests" / "catalog" / "build"


@pytest.fixture(scope="module")
def catalog() -> errconv.Catalog:
    return errconv.Catalog.load(SAMPLE)


@pytest.fixture(scope="module")
def files(catalog: errconv.Catalog, request: pytest.FixtureRequest) -> dict[str, bytes]:
    built = build(catalog)
    if request.config.getoption("--update-goldens"):
        for old in GOLDEN.rglob("*"):
            if old.is_file() and old.relative_to(GOLDEN).as_posix() not in built:
                old.unlink()
        for rel, data in built.items():
            path = GOLDEN / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_bytes() != data:
                path.write_bytes(data)
                print(f"updated {path.relative_to(ROOT)}")
    return built


def test_the_sample_has_the_seed_failures(catalog: errconv.Catalog) -> None:
    seeds = {"missing_parameter", "rate_limited", "maintenance", "account_suspended", "insufficient_funds", "slot_unavailable"}
    assert seeds <= set(catalog.entries)
    assert {e.next_step.value for e in catalog} == {"fix_request", "wait", "give_up"}


def test_goldens_are_what_build_writes(files: dict[str, bytes]) -> None:
    on_disk = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    assert on_disk == set(files), "run pytest --update-goldens and review the diff"
    for rel, data in files.items():
        assert (GOLDEN / rel).read_bytes() == data, f"{rel} differs; run pytest --update-goldens and review the diff"


def test_the_command_writes_the_same_files(tmp_path: pathlib.Path, files: dict[str, bytes]) -> None:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(["catalog", "build", str(SAMPLE), "--out", str(tmp_path / "site")], stdout=out, stderr=err)
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().decode().startswith("13 codes: 13 pages")
    written = {p.relative_to(tmp_path / "site").as_posix(): p.read_bytes() for p in (tmp_path / "site").rglob("*") if p.is_file()}
    assert written == files


def test_a_page_per_code_at_the_path_of_its_type(catalog: errconv.Catalog, files: dict[str, bytes]) -> None:
    for entry in catalog:
        assert entry.type == f"https://api.example.com/problems/{entry.code}"
        md = files[f"problems/{entry.code}/index.md"].decode()
        page = files[f"problems/{entry.code}/index.html"].decode()
        assert md.startswith(f"# {entry.title}\n")
        assert "## What the caller should do" in md and entry.meaning()[1:] in md
        for dialect in EXAMPLE_DIALECTS:
            assert f"### {dialect}\n" in md
            assert f"<h3>{dialect}</h3>" in page
        assert f"`next_step` | {entry.next_step.value} |" in md
    assert "problems/index.md" in files and "problems/index.html" in files


class _Assets(html.parser.HTMLParser):
    """Every attribute that could fetch something: no page may have one."""

    def __init__(self) -> None:
        super().__init__()
        self.fetches: list[tuple[str, str, str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "srcset") or (tag == "link" and name == "href") or (name == "href" and value and "//" in value):
                self.fetches.append((tag, name, value or ""))


def test_html_pages_have_no_external_assets_and_escape_the_text(files: dict[str, bytes]) -> None:
    pages = [rel for rel in files if rel.endswith(".html")]
    assert len(pages) == 14
    for rel in pages:
        text = files[rel].decode()
        parser = _Assets()
        parser.feed(text)
        assert parser.fetches == [], rel
        assert "script" not in parser.tags and "@import" not in text and "url(" not in text, rel
    # The JSON of the examples is escaped, not markup.
    page = files["problems/rate_limited/index.html"].decode()
    assert "{&quot;type&quot;:&quot;https://api.example.com/problems/rate_limited&quot;" in page


def test_every_example_passes_lint_with_the_catalog(tmp_path: pathlib.Path) -> None:
    examples = GOLDEN / "examples"
    report = errconv.lint_paths([str(examples)], catalog=errconv.Catalog.load(SAMPLE))
    assert len(report.files) == 13 * len(EXAMPLE_DIALECTS)
    assert report.findings == []
    # And each decodes to the fault the catalog builds for the code.
    for path in sorted(examples.glob("*/http-problem.http")):
        fault = errconv.decode(path.read_bytes())
        assert fault.code == path.parent.name


def test_openapi_is_valid_for_an_independent_validator(files: dict[str, bytes], catalog: errconv.Catalog) -> None:
    from openapi_spec_validator import validate
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

    doc = json.loads(files["openapi.json"])
    validate(doc)  # raises on an invalid document
    assert doc["openapi"] == "3.1.0"
    components = doc["components"]
    assert set(components["responses"]) == set(catalog.entries)
    assert set(components["examples"]) == set(catalog.entries)
    for name in ("next_step", "retry_after_seconds", "param", "violations", "alternatives", "alternatives_truncated", "unblock_with", "blocked_by"):
        assert name in components["schemas"]["Problem"]["properties"], name
    assert components["responses"]["rate_limited"]["headers"]["Retry-After"] == {"$ref": "#/components/headers/Retry-After"}
    # The validator does fail: a response with no description is refused.
    broken = json.loads(files["openapi.json"])
    del broken["components"]["responses"]["rate_limited"]["description"]
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


def test_each_example_fits_its_codes_schema_and_no_other(files: dict[str, bytes]) -> None:
    import jsonschema

    doc = json.loads(files["openapi.json"])
    schemas = doc["components"]["schemas"]

    def validator(code: str) -> jsonschema.Draft202012Validator:
        schema = {**schemas[code], "$defs": {}}
        resolver_doc = {"components": {"schemas": schemas}, **schema}
        return jsonschema.Draft202012Validator(resolver_doc)

    for code, example in doc["components"]["examples"].items():
        body = example["value"]
        assert body == json.loads(files[f"examples/{code}/problem.json"])
        assert list(validator(code).iter_errors(body)) == [], code
        others = [other for other in schemas if other not in ("Problem", code) and not list(validator(other).iter_errors(body))]
        assert others == [], f"the example of {code} also fits {others}"


def test_the_tool_description_states_the_contract_and_every_code(files: dict[str, bytes], catalog: errconv.Catalog) -> None:
    text = files["tool-description.txt"].decode()
    assert text.startswith(errconv._catalog.TOOL_CONTRACT)
    assert "will not succeed on repetition" in text  # seed 000's sentence
    for entry in catalog:
        assert f"- {entry.code} ({entry.next_step.value}, HTTP {entry.status}): " in text
    assert "call `request_deposit` (it changes the balance)" in text
    assert "offer one of `alternatives`" in text
    subset = errconv._catalog._build.tool_description(catalog, ["rate_limited"])
    assert "- rate_limited " in subset and "missing_parameter" not in subset and "- internal_error " in subset


def test_the_proto_enum_compiles_with_protoc(files: dict[str, bytes], tmp_path: pathlib.Path, catalog: errconv.Catalog) -> None:
    from grpc_tools import protoc

    (tmp_path / "error_reason.proto").write_bytes(files["error_reason.proto"])
    status = protoc.main(["protoc", f"-I{tmp_path}", f"--descriptor_set_out={tmp_path / 'out.pb'}", str(tmp_path / "error_reason.proto")])
    assert status == 0
    from google.protobuf import descriptor_pb2

    fds = descriptor_pb2.FileDescriptorSet.FromString((tmp_path / "out.pb").read_bytes())
    enum = fds.file[0].enum_type[0]
    names = [v.name for v in enum.value]
    assert names == ["ERROR_REASON_UNSPECIFIED", *(e.reason for e in catalog)]
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]+[A-Z0-9]", n) for n in names)
    assert fds.file[0].package == "com.example.api"


@pytest.mark.parametrize(
    "example, rule",
    [
        ('{ detail = "Please try again later." }', "retry-promised-in-prose"),
        ('{ alternatives = [1, 2, 3] }', "alternatives-truncation-unstated"),
    ],
)
def test_build_refuses_an_example_lint_finds_fault_with(tmp_path: pathlib.Path, example: str, rule: str) -> None:
    text = (
        'domain = "api.example.com"\ntype_base = "https://api.example.com/problems/"\n'
        f'[errors.gone]\nstatus = 410\nnext_step = "give_up"\nalternatives = true\ntitle = "Gone"\nexample = {example}\n'
    )
    (tmp_path / "errors.toml").write_text(text)
    catalog = errconv.Catalog.load(tmp_path / "errors.toml")  # loads: the entry itself keeps the rules
    with pytest.raises(errconv._catalog.CatalogError) as caught:
        build(catalog)
    assert (caught.value.entry, caught.value.rule) == ("gone", rule)
    out, err = io.BytesIO(), io.StringIO()
    status = cli.main(["catalog", "build", str(tmp_path / "errors.toml"), "--out", str(tmp_path / "site")], stdout=out, stderr=err)
    assert status == 2 and f"[errors.gone]: {rule}: its example examples/gone/" in err.getvalue()
    assert not (tmp_path / "site").exists()
