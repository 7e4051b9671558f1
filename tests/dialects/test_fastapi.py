"""fastapi: Pydantic's validation lists and HTTPException's text, read as FastAPI writes
them (real bodies from FastAPI's TestClient included), told apart from problem and DRF."""

from __future__ import annotations

from typing import Any

import pytest

import errconv
from errconv import Code, NextStep

from .adhoc import bare, captures, check_bad_input, check_capture_dialect, check_converts, detected, response


def v2(*items: dict[str, Any]) -> dict[str, Any]:
    return {"detail": list(items)}


@pytest.mark.parametrize(
    ("loc", "type_", "field"),
    [
        (["body", "name"], "missing", "name"),
        (["body", 0, "age"], "greater_than", "0.age"),
        (["query", "q", 0], "int_parsing", "q.0"),
        (["path", "item_id"], "int_parsing", "item_id"),
        (["header", "x-token"], "missing", "x-token"),
        (["cookie", "session"], "missing", "session"),
        (["body", "items", 2, "tags", 0], "int_parsing", "items.2.tags.0"),
        (["body"], "missing", "body"),  # the whole body missing: the location is the field
        (["name"], "missing", "name"),  # Pydantic outside FastAPI: no location word
        (["body", 1], "json_invalid", ""),  # a character position, not a field
        (["body", 12], "value_error.jsondecode", ""),  # Pydantic v1's spelling of the same
        (["body", None], "missing", ""),  # not a path errconv can spell
    ],
)
def test_loc_spells_the_field_as_pydantic_prints_it(loc: list[Any], type_: str, field: str) -> None:
    fault = bare(v2({"type": type_, "loc": loc, "msg": "m"}), status=422)
    assert fault.violations[0].field == field
    assert fault.param == (field or None)
    assert fault.code == type_ and fault.violations[0].reason == type_


def test_every_item_is_a_violation_and_the_first_gives_code_and_param() -> None:
    fault = bare(
        v2(
            {"type": "json_invalid", "loc": ["body", 1], "msg": "JSON decode error"},
            {"type": "missing", "loc": ["body", "price"], "msg": "Field required", "input": {}},
        ),
        status=422,
    )
    assert [(v.field, v.description, v.reason) for v in fault.violations] == [
        ("", "JSON decode error", "json_invalid"),
        ("price", "Field required", "missing"),
    ]
    # The code is the first item's type; the param the first field any item names.
    assert (fault.code, fault.param, fault.next_step) == ("json_invalid", "price", NextStep.FIX_REQUEST)
    assert "param" not in fault.origin.inferred  # the loc states it


def test_pydantic_v1_items() -> None:
    fault = bare(v2({"loc": ["body", "name"], "msg": "field required", "type": "value_error.missing"}), status=422)
    assert (fault.code, fault.param, fault.violations[0].description) == ("value_error.missing", "name", "field required")


def test_an_item_without_type_has_no_reason() -> None:
    fault = bare(v2({"loc": ["query", "q"], "msg": "bad"}), status=422)
    assert fault.code is None and fault.violations[0].reason is None and fault.param == "q"


def test_input_ctx_and_url_are_not_copied_but_other_members_are_kept() -> None:
    item = {"type": "greater_than", "loc": ["body", "age"], "msg": "m", "input": "secret", "ctx": {"gt": 0}, "url": "https://errors.pydantic.dev/2/v/greater_than"}
    fault = bare({"detail": [item], "body": {"age": -1}}, status=422)
    assert fault.extensions == {"body": {"age": -1}}  # a custom handler's echo of the body, verbatim
    assert "secret" not in repr(fault)


def test_a_bare_validation_list_is_a_422() -> None:
    fault = bare(v2({"type": "missing", "loc": ["body", "name"], "msg": "Field required"}))
    assert fault.status == 422 and "status" in fault.origin.inferred
    assert fault.origin.dialect == "fastapi"


def test_text_detail() -> None:
    fault = response(404, {"detail": "Item not found"}, (("x-error", "There goes my error"),))
    assert (fault.status, fault.detail, fault.code, fault.next_step) == (404, "Item not found", None, NextStep.GIVE_UP)
    assert fault.grpc_code == Code.NOT_FOUND


@pytest.mark.parametrize(("phrase", "status"), [("Not Found", 404), ("Method Not Allowed", 405), ("Unprocessable Entity", 422), ("Unprocessable Content", 422), ("Too Many Requests", 429)])
def test_a_bare_reason_phrase_is_the_status_starlette_wrote_it_for(phrase: str, status: int) -> None:
    fault = bare({"detail": phrase})
    assert fault.status == status and "status" in fault.origin.inferred


def test_a_bare_text_of_no_phrase_assumes_500_and_says_so() -> None:
    fault = bare({"detail": "Item not found"})
    assert fault.status == 500 and any("500 assumed" in note for note in fault.origin.notes)


def test_a_detail_of_another_kind_is_kept_verbatim() -> None:
    fault = errconv.decode(b'{"detail": {"code": "x"}}', "fastapi", status=400)
    assert fault.extensions == {"detail": {"code": "x"}} and fault.detail is None


def test_a_list_with_items_of_another_shape_is_kept_whole() -> None:
    detail = [{"loc": ["body", "a"], "msg": "m", "type": "missing"}, "stray"]
    fault = errconv.decode(body_of({"detail": detail}), "fastapi", status=422)
    assert fault.param == "a" and fault.extensions == {"detail": detail}


def body_of(obj: Any) -> bytes:
    import json

    return json.dumps(obj).encode()


def test_too_many_violations_is_a_decode_error() -> None:
    items = [{"loc": ["body", "a"], "msg": "m"}] * (errconv.Limits().max_violations + 1)
    with pytest.raises(errconv.DecodeError, match="violations"):
        errconv.decode(body_of({"detail": items}), "fastapi", status=422)


# --------------------------------------------------------------------------- look-alikes


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        ({"detail": "Not Found"}, "fastapi"),
        ({"detail": "Not authenticated"}, "fastapi"),
        ({"detail": [{"loc": ["body", "a"], "msg": "m", "type": "missing"}]}, "fastapi"),
        ({"detail": [{"loc": ["body", "a"], "msg": "m"}], "body": {}}, "fastapi"),
        ({"detail": "Not found."}, "drf"),  # DRF's wording
        ({"detail": "Something went wrong."}, "drf"),  # a sentence, as Django's messages are
        ({"type": "about:blank", "title": "Not Found", "status": 404, "detail": "Not Found"}, "problem"),
        ({"status": 404, "detail": "Not Found"}, "problem"),
        ({"title": "Bad", "detail": "x"}, "problem"),
        ({"detail": "x", "instance": "/a"}, "problem"),
        ({"errors": [{"loc": ["body", "a"], "msg": "m"}], "status": 400}, "general"),  # pydantic items under a member every format shares
    ],
)
def test_problem_fastapi_and_drf_are_told_apart(obj: dict[str, Any], want: str) -> None:
    assert detected(obj) == want
    assert detected(obj, status=422) == want


def test_problem_media_type_wins_over_the_shape() -> None:
    fault = response(404, {"detail": "Not Found"}, (("Content-Type", "application/problem+json"),))
    assert fault.origin.body == "problem"


def test_fastapi_does_not_claim_other_detail_values() -> None:
    for obj in ({"detail": []}, {"detail": [1]}, {"detail": [{"loc": "x", "msg": "m"}]}, {"detail": 5}, {"detail": None}):
        assert errconv.dialects.get("fastapi").recognise(obj, None) == 0.0


# --------------------------------------------------------------------------- the contract


def test_fastapi_is_read_not_written() -> None:
    fault = errconv.Fault.build(status=422, code="missing", param="name", next_step="fix_request")
    with pytest.raises(errconv.UnknownDialectError, match="fastapi is read, not written; errconv writes: .*problem"):
        errconv.encode(fault, "fastapi")
    with pytest.raises(errconv.ErrconvError):
        errconv.to_http(fault, "fastapi")


def test_bad_input_is_a_decode_error() -> None:
    check_bad_input("fastapi")


@pytest.mark.parametrize(("key", "path", "entry"), captures("fastapi"))
def test_captures_are_detected_as_their_facts_say_and_convert(key: str, path: Any, entry: dict[str, Any]) -> None:
    check_capture_dialect(key, path, entry)
    from .adhoc import read_capture

    check_converts(read_capture(path, entry))


# --------------------------------------------------------------------------- real FastAPI


fastapi = pytest.importorskip("fastapi")
pydantic = pytest.importorskip("pydantic")
# Starlette's TestClient asks for httpx2 over httpx; either drives the app in-process.
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def _app() -> Any:
    from .fastapi_app import app

    return app


REAL = [
    # (method, url, json body, the first field, the first type, how many violations)
    ("post", "/items/", {}, "name", "missing", 2),
    ("post", "/items/", {"name": "x", "price": -1}, "price", "greater_than", 1),
    ("post", "/items/", {"name": "x", "price": 1, "tags": [1, "two"]}, "tags.1", "int_parsing", 1),
    ("post", "/items/", {"name": "x", "price": 1, "address": {"city": "c", "zip": "x"}}, "address.zip", "string_pattern_mismatch", 1),
    ("post", "/people/", [{"age": 1}, {"age": 0}], "1.age", "greater_than", 1),
    ("post", "/items/", None, "body", "missing", 1),
    ("get", "/items/abc", None, "item_id", "int_parsing", 1),
    ("get", "/items/1?q=1&q=six", None, "q.1", "int_parsing", 1),
    ("get", "/secure/", None, "x-token", "missing", 2),
]


@pytest.mark.parametrize(("method", "url", "payload", "field", "type_", "count"), REAL)
def test_real_fastapi_422_bodies(method: str, url: str, payload: Any, field: str, type_: str, count: int) -> None:
    from fastapi.testclient import TestClient

    client = TestClient(_app())
    got = client.request(method, url, json=payload) if payload is not None else client.request(method, url)
    assert got.status_code == 422
    fault = errconv.from_http(got.status_code, got.headers, got.content)
    assert fault.origin.body == "fastapi"
    items = got.json()["detail"]
    assert len(fault.violations) == count == len(items)
    assert (fault.param, fault.code, fault.next_step) == (field, type_, NextStep.FIX_REQUEST)
    assert [v.reason for v in fault.violations] == [i["type"] for i in items]
    assert [v.description for v in fault.violations] == [i["msg"] for i in items]
    # Each field is the loc less FastAPI's location word, dotted as Pydantic prints it.
    assert [v.field for v in fault.violations] == [".".join(map(str, i["loc"][1:] or i["loc"])) for i in items]
    # The same body without its response: still FastAPI's, a 422.
    alone = errconv.decode(got.content)
    assert (alone.origin.dialect, alone.status, alone.param) == ("fastapi", 422, field)
    check_converts(fault)


def test_real_fastapi_broken_json_names_no_field() -> None:
    from fastapi.testclient import TestClient

    got = TestClient(_app()).post("/items/", content=b"{some broken json}", headers={"content-type": "application/json"})
    fault = errconv.from_http(got.status_code, got.headers, got.content)
    assert (fault.status, fault.code, fault.param) == (422, "json_invalid", None)
    assert fault.violations[0].field == ""


@pytest.mark.parametrize(("url", "status", "detail", "step"), [("/items/404", 404, "Not Found", NextStep.GIVE_UP), ("/items/403", 403, "Not enough permissions", NextStep.GIVE_UP), ("/nowhere", 404, "Not Found", NextStep.GIVE_UP)])
def test_real_fastapi_http_exceptions(url: str, status: int, detail: str, step: NextStep) -> None:
    from fastapi.testclient import TestClient

    got = TestClient(_app()).get(url)
    fault = errconv.from_http(got.status_code, got.headers, got.content)
    assert (fault.origin.body, fault.status, fault.detail, fault.next_step) == ("fastapi", status, detail, step)
    if detail == "Not Found":  # Starlette's own text: a bare body gives its status back
        assert errconv.decode(got.content).status == 404
