"""The `jsonapi` dialect: JSON:API error documents, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

import errconv
from ._captures import labelled, read_as
from errconv import dialects
from errconv.codes import Code


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


def decode(value: Any, **kw: Any) -> errconv.Fault:
    return errconv.decode(body(value), **kw)


# --------------------------------------------------------------------------- decoding


def test_an_error_object_gives_the_fault() -> None:
    value = {
        "errors": [
            {
                "id": "e-1",
                "links": {"about": "https://api.example.com/errors/e-1", "type": "https://api.example.com/problems/invalid"},
                "status": "422",
                "code": "EMAIL_INVALID",
                "title": "Invalid Attribute",
                "detail": "must be a valid email",
                "source": {"pointer": "/data/attributes/email"},
                "meta": {"hint": "user@example.com"},
            }
        ]
    }
    fault = decode(value)
    assert fault.origin.dialect == "jsonapi"
    assert (fault.status, fault.grpc_code, fault.code, fault.title, fault.detail) == (422, Code.INVALID_ARGUMENT, "EMAIL_INVALID", "Invalid Attribute", "must be a valid email")
    assert (fault.type, fault.instance, fault.param, fault.next_step) == (
        "https://api.example.com/problems/invalid", "https://api.example.com/errors/e-1", "data.attributes.email", "fix_request",
    )  # fmt: skip
    assert fault.extensions == {"hint": "user@example.com", "id": "e-1"}
    assert fault.violations == ()  # one error object: its source is the param, no list of one
    assert errconv.decode(errconv.encode(fault, "jsonapi")) == fault


@pytest.mark.parametrize(
    "source, param",
    [
        ({"pointer": "/data/attributes/firstName"}, "data.attributes.firstName"),
        ({"pointer": "/data/relationships/author/data/0/id"}, "data.relationships.author.data[0].id"),
        ({"pointer": "/data"}, "data"),
        ({"pointer": ""}, None),  # the whole document names no parameter
        ({"parameter": "include"}, "include"),
        ({"header": "If-Match"}, "If-Match"),
    ],
)
def test_the_param_comes_from_the_source(source: dict[str, str], param: str | None) -> None:
    fault = decode({"errors": [{"status": "400", "detail": "x", "source": source}]})
    assert fault.param == param
    assert "source" not in fault.extensions


def test_several_errors_give_violations_and_the_most_general_status() -> None:
    value = {
        "errors": [
            {"status": "403", "source": {"pointer": "/data/attributes/secretPowers"}, "detail": "not on Sundays"},
            {"status": "422", "source": {"pointer": "/data/attributes/volume"}, "detail": "does not go to 11", "code": "TOO_LOUD"},
        ]
    }
    fault = decode(value)
    assert fault.status == 400  # several 4xx
    assert "status" in fault.origin.inferred
    assert [(v.field, v.description, v.reason) for v in fault.violations] == [
        ("data.attributes.secretPowers", "not on Sundays", None),
        ("data.attributes.volume", "does not go to 11", "TOO_LOUD"),
    ]
    assert fault.param == "data.attributes.secretPowers"
    assert errconv.decode(errconv.encode(fault, "jsonapi")) == fault
    value["errors"].append({"status": "500", "detail": "backend down"})
    assert decode(value).status == 500  # a 5xx among them


def test_the_http_status_wins_over_the_error_objects() -> None:
    raw = body({"errors": [{"status": "404", "title": "Not found"}]})
    fault = errconv.from_http(410, [("Content-Type", "application/vnd.api+json")], raw)
    assert (fault.origin.body, fault.status) == ("jsonapi", 410)
    assert any("differs from HTTP status 410" in note for note in fault.origin.notes)


def test_a_document_without_a_status_assumes_one() -> None:
    fault = decode({"errors": [{"code": "X", "title": "bad", "source": {"parameter": "sort"}}]})
    assert (fault.status, fault.next_step) == (400, "fix_request")
    assert decode({"errors": [{"title": "boom"}]}).status == 500


def test_an_integer_status_and_code_are_read_too() -> None:
    fault = errconv.decode(body({"errors": [{"status": 429, "code": 123, "title": "slow"}]}), "jsonapi")
    assert (fault.status, fault.code, fault.next_step) == (429, "123", "wait")


def test_the_document_members_are_kept() -> None:
    fault = decode({"jsonapi": {"version": "1.1"}, "meta": {"requestId": "r1"}, "errors": [{"status": "400", "detail": "x"}]})
    assert fault.extensions == {"jsonapi": {"version": "1.1"}, "meta": {"requestId": "r1"}}
    out = json.loads(errconv.encode(fault, "jsonapi"))
    assert out["jsonapi"] == {"version": "1.1"}  # back at the top
    assert errconv.decode(errconv.encode(fault, "jsonapi")) == fault


def test_a_link_object_is_read() -> None:
    fault = decode({"errors": [{"status": "400", "links": {"type": {"href": "https://x.test/t"}}}]})
    assert fault.type == "https://x.test/t"


@pytest.mark.parametrize("value", [{"errors": []}, {"errors": [1]}, {"errors": {"a": 1}}, [], {"data": {}}])
def test_bad_input_is_a_decode_error(value: Any) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body(value), "jsonapi")


def test_a_jsonapi_200_is_no_error() -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body({"errors": [{"status": "400", "detail": "x"}]}), "jsonapi", status=200)


# --------------------------------------------------------------------------- detection


LOOK_ALIKES = {
    "graphql": {"errors": [{"message": "x", "extensions": {"code": "BAD_USER_INPUT"}}]},
    "cloudflare": {"success": False, "errors": [{"code": 10000, "message": "Authentication error"}], "messages": [], "result": None},
    "github rest": {"message": "Validation Failed", "errors": [{"resource": "Issue", "field": "title", "code": "missing_field"}], "documentation_url": "https://docs.github.com/rest"},
    "problem with errors": {"type": "about:blank", "title": "Bad", "status": 400, "errors": [{"detail": "x", "pointer": "#/a"}]},
    "integer status": {"errors": [{"status": 400, "detail": "x"}]},
    "data beside errors": {"data": {"id": "1"}, "errors": [{"status": "400", "detail": "x"}]},
    "strings": {"errors": ["Forbidden"]},
}


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_are_not_jsonapi(name: str) -> None:
    value = LOOK_ALIKES[name]
    assert dialects.get("jsonapi").recognise(value, None) == 0
    assert errconv.detect(body(value)) != "jsonapi"


@pytest.mark.parametrize(
    "value",
    [
        {"errors": [{"status": "422", "detail": "x", "source": {"pointer": "/data/attributes/a"}}]},
        {"jsonapi": {"version": "1.1"}, "errors": [{"code": "123", "title": "Value is too short"}]},
        {"errors": [{"id": "1", "meta": {"a": 1}}]},
    ],
)
def test_jsonapi_documents_are_claimed_by_nothing_else(value: Any) -> None:
    assert errconv.detect(body(value)) == "jsonapi"
    assert dialects.get("graphql").recognise(value, None) == 0


def test_the_media_type_settles_it() -> None:
    raw = body({"errors": [{"detail": "x", "status": 400}]})  # an integer status: not claimed by shape
    fault = errconv.from_http(400, [("Content-Type", "application/vnd.api+json")], raw)
    assert fault.origin.body == "jsonapi"


# --------------------------------------------------------------------------- encoding


def test_encoding_writes_one_error_object_and_meta() -> None:
    fault = errconv.Fault.build(status=422, code="EMAIL_INVALID", title="Invalid Attribute", detail="must be a valid email", param="data.attributes.email")
    out = errconv.encode(fault, "jsonapi")
    assert out == (
        b'{"errors":[{"status":"422","code":"EMAIL_INVALID","title":"Invalid Attribute","detail":"must be a valid email",'
        b'"source":{"pointer":"/data/attributes/email"},"meta":{"next_step":"fix_request"}}]}'
    )
    assert errconv.decode(out) == fault


def test_violations_are_error_objects() -> None:
    fault = errconv.Fault.build(
        status=422,
        code="invalid",
        detail="Enter a valid email address.",
        param="email",
        violations=[
            {"field": "email", "description": "Enter a valid email address.", "reason": "invalid"},
            {"field": "first-name", "description": "There's a problem with first name", "reason": "invalid"},
        ],
    )
    doc = json.loads(errconv.encode(fault, "jsonapi"))
    assert [e.get("source") for e in doc["errors"]] == [{"pointer": "/email"}, {"pointer": "/first-name"}]
    assert "errors" not in doc["errors"][0]["meta"]  # the error objects say them
    assert errconv.decode(errconv.encode(fault, "jsonapi")) == fault


def test_violations_the_objects_cannot_say_go_in_meta_too() -> None:
    fault = errconv.Fault.build(status=400, param="items[0][price]", violations=[{"field": "items[0][price]", "description": "No such price"}])
    doc = json.loads(errconv.encode(fault, "jsonapi"))
    assert doc["errors"][0]["meta"]["errors"][0]["field"] == "items[0][price]"
    assert errconv.decode(errconv.encode(fault, "jsonapi")) == fault


def test_http_jsonapi() -> None:
    fault = errconv.Fault.build(status=429, code="throttled", detail="slow down", next_step="wait", retry_after_seconds=9)
    response = errconv.to_http(fault, "jsonapi")
    assert (response.status, response.content_type, ("Retry-After", "9") in response.headers) == (429, "application/vnd.api+json", True)
    assert errconv.decode(bytes(response)) == fault


def test_a_round_trip_through_problem_keeps_the_pointer() -> None:
    start = decode({"errors": [{"status": "422", "title": "Invalid Attribute", "source": {"pointer": "/data/attributes/firstName"}}]})
    back = errconv.decode(errconv.convert(errconv.convert(errconv.encode(start, "jsonapi"), "problem"), "jsonapi", "problem"))
    assert (back.param, back.status, back.title, back.next_step) == ("data.attributes.firstName", 422, "Invalid Attribute", "fix_request")


# --------------------------------------------------------------------------- the real-world captures


@pytest.mark.parametrize("key, path, entry", [c for c in labelled("graphql", "jsonapi", "jsonrpc", "mcp") if c[2]["expected_dialect"] == "jsonapi"], ids=lambda c: c if isinstance(c, str) else "")
def test_each_capture_is_read_as_the_dialect_it_states(key: str, path: Any, entry: dict[str, Any]) -> None:
    assert read_as(path, entry) == "jsonapi", f"{key} ({entry['source']})"
