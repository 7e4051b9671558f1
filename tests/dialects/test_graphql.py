"""The `graphql` dialect: failed GraphQL responses, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

import errconv
from ._captures import labelled, read_as
from errconv import dialects
from errconv.codes import Code
from errconv.dialects.graphql import path_of, spell_path


def body(value: Any) -> bytes:
    return json.dumps(value).encode()


def error(message: str = "m", **members: Any) -> dict[str, Any]:
    return {"message": message, **members}


def decode(value: Any, **kw: Any) -> errconv.Fault:
    return errconv.decode(body(value), **kw)


# --------------------------------------------------------------------------- decoding


@pytest.mark.parametrize(
    "code, grpc_code, status, step",
    [
        ("GRAPHQL_PARSE_FAILED", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("GRAPHQL_VALIDATION_FAILED", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("BAD_USER_INPUT", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("BAD_REQUEST", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("OPERATION_RESOLUTION_FAILURE", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("PERSISTED_QUERY_NOT_FOUND", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("PERSISTED_QUERY_NOT_SUPPORTED", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("INTROSPECTION_DISABLED", Code.PERMISSION_DENIED, 403, "give_up"),
        ("INTERNAL_SERVER_ERROR", Code.INTERNAL, 500, "give_up"),
        ("UNAUTHENTICATED", Code.UNAUTHENTICATED, 401, "give_up"),
        ("FORBIDDEN", Code.PERMISSION_DENIED, 403, "give_up"),
        ("NOT_FOUND", Code.NOT_FOUND, 404, "give_up"),
        ("THROTTLED", Code.RESOURCE_EXHAUSTED, 429, "wait"),
        ("RATE_LIMITED", Code.RESOURCE_EXHAUSTED, 429, "wait"),
        ("INSUFFICIENT_SCOPES", Code.PERMISSION_DENIED, 403, "give_up"),
        ("MAX_NODE_LIMIT_EXCEEDED", Code.INVALID_ARGUMENT, 400, "fix_request"),
        ("UNAVAILABLE", Code.UNAVAILABLE, 503, "wait"),
        ("ValidationError", Code.INVALID_ARGUMENT, 400, "fix_request"),
    ],
)
def test_the_code_table(code: str, grpc_code: int, status: int, step: str) -> None:
    fault = decode({"errors": [error(extensions={"code": code})]})
    assert (fault.code, fault.grpc_code, fault.status, str(fault.next_step)) == (code, grpc_code, status, step)
    assert "status" in fault.origin.inferred


@pytest.mark.parametrize(
    "first, where",
    [
        (error(extensions={"code": "NOT_FOUND"}), "extensions.code (Apollo)"),
        (error(extensions={"errorType": "NOT_FOUND", "errorDetail": "ENTITY"}), "extensions.errorType (DGS)"),
        (error(extensions={"classification": "NOT_FOUND"}), "extensions.classification (graphql-java)"),
        (error(type="NOT_FOUND"), "the error's type (GitHub)"),
    ],
)
def test_the_code_is_read_where_each_server_puts_it(first: dict[str, Any], where: str) -> None:
    fault = decode({"data": None, "errors": [first]})
    assert (fault.code, fault.grpc_code) == ("NOT_FOUND", Code.NOT_FOUND), where


def test_a_request_error_without_a_code_is_a_document_to_fix() -> None:
    # GitHub: a field that does not exist; locations, no path.
    fault = decode({"data": None, "errors": [error("Field 'bioHtml' doesn't exist on type 'User'", locations=[{"line": 3, "column": 5}])]})
    assert (fault.grpc_code, fault.status, fault.next_step) == (Code.INVALID_ARGUMENT, 400, "fix_request")
    assert fault.extensions == {"locations": [{"line": 3, "column": 5}]}
    # No data at all: the request never executed.
    assert decode({"errors": [error("Must provide query string.")]}).next_step == "fix_request"


def test_a_field_error_without_a_code_is_give_up_and_keeps_its_path() -> None:
    fault = decode({"errors": [error("could not be fetched", path=["hero", "heroFriends", 1, "name"])], "data": None})
    assert (fault.grpc_code, fault.next_step, fault.param) == (Code.UNKNOWN, "give_up", None)
    assert fault.metadata == {"path": "hero.heroFriends[1].name"}


def test_the_argument_is_the_param() -> None:
    fault = decode({"errors": [error("Invalid argument value", path=["userWithID"], extensions={"code": "BAD_USER_INPUT", "argumentName": "id"})]})
    assert (fault.param, fault.next_step) == ("id", "fix_request")
    assert "argumentName" not in fault.extensions
    fault = decode({"errors": [error("bad", extensions={"code": "BAD_USER_INPUT", "invalidArgs": ["email"]})]})
    assert fault.param == "email"


def test_a_partial_success_inside_a_2xx_is_no_failure() -> None:
    partial = {"data": {"repository": {"name": "probot", "ref": None}}, "errors": [error("invalid cursor", path=["repository", "ref"], type="INVALID_CURSOR_ARGUMENTS")]}
    with pytest.raises(errconv.DecodeError, match="partial success"):
        errconv.from_http(200, [("Content-Type", "application/json")], body(partial))
    with pytest.raises(errconv.DecodeError, match="partial success"):
        errconv.decode(body(partial), "graphql", status=200)
    # A bare body, handed over as an error, is read: its first error, noted as partial.
    fault = decode(partial)
    assert (fault.code, fault.next_step) == ("INVALID_CURSOR_ARGUMENTS", "fix_request")
    assert any("partial success" in note for note in fault.origin.notes)


def test_a_200_without_data_is_a_failure() -> None:
    failed = {"data": None, "errors": [error("rate limited", type="RATE_LIMITED")]}
    fault = errconv.from_http(200, [("Content-Type", "application/json")], body(failed))
    assert (fault.origin.body, fault.status, fault.next_step) == ("graphql", 429, "wait")
    assert any("HTTP 200 carried a GraphQL failure" in note for note in fault.origin.notes)


def test_an_error_status_wins() -> None:
    raw = body({"errors": [error("down", extensions={"code": "INTERNAL_SERVER_ERROR"})]})
    fault = errconv.from_http(503, [("Content-Type", "application/graphql-response+json"), ("Retry-After", "5")], raw)
    assert (fault.origin.body, fault.status, fault.grpc_code, fault.next_step, fault.retry_after_seconds) == ("graphql", 503, Code.INTERNAL, "wait", 5)


def test_several_errors_give_one_violation_each() -> None:
    fault = decode({"errors": [error("a", extensions={"code": "BAD_USER_INPUT", "argumentName": "x"}), error("b", extensions={"code": "NOT_FOUND"})]})
    assert [(v.field, v.description, v.reason) for v in fault.violations] == [("x", "a", "BAD_USER_INPUT"), ("", "b", "NOT_FOUND")]


def test_members_the_spec_does_not_define_are_kept() -> None:
    value = {"errors": [error("x", extensions={"code": "THROTTLED", "stacktrace": ["a"]}, level="warn")], "extensions": {"cost": {"requestedQueryCost": 101}}}
    fault = decode(value)
    assert fault.extensions == {"level": "warn", "stacktrace": ["a"], "extensions": {"cost": {"requestedQueryCost": 101}}}
    assert errconv.decode(errconv.encode(fault, "graphql")) == fault


@pytest.mark.parametrize("value", [{"errors": []}, {"errors": [1, "x"]}, {"errors": "x"}, [], {"data": None}])
def test_bad_input_is_a_decode_error(value: Any) -> None:
    with pytest.raises(errconv.DecodeError):
        errconv.decode(body(value), "graphql")


def test_paths_spell_both_ways() -> None:
    assert spell_path(["repository", "issues", 0, "title"]) == "repository.issues[0].title"
    assert path_of("repository.issues[0].title") == ["repository", "issues", 0, "title"]
    for bad in ([], [0, "a"], ["a.b"], ["a", -1], "a", ["a", True]):
        assert spell_path(bad) is None
    for bad in ("", ".a", "a..b", "a[01]", "a[x]", "[0]", "a b"):
        assert path_of(bad) is None


# --------------------------------------------------------------------------- detection


LOOK_ALIKES = {
    "jsonapi": {"errors": [{"status": "422", "title": "Invalid Attribute", "detail": "x", "source": {"pointer": "/data/attributes/a"}}]},
    "cloudflare": {"success": False, "errors": [{"code": 10000, "message": "Authentication error"}], "messages": [], "result": None},
    "github rest": {"message": "Validation Failed", "errors": [{"resource": "Issue", "field": "title", "code": "missing_field"}], "documentation_url": "https://docs.github.com/rest"},
    "twitter": {"errors": [{"code": 88, "message": "Rate limit exceeded"}]},
    "problem with errors": {"type": "about:blank", "title": "Bad", "status": 400, "errors": [{"detail": "x", "pointer": "#/a"}]},
    "laravel": {"message": "The given data was invalid.", "errors": {"email": ["The email field is required."]}},
    "strings": {"errors": ["Forbidden"]},
}


@pytest.mark.parametrize("name", list(LOOK_ALIKES))
def test_look_alikes_are_not_graphql(name: str) -> None:
    value = LOOK_ALIKES[name]
    assert dialects.get("graphql").recognise(value, None) == 0
    assert errconv.detect(body(value)) != "graphql"


@pytest.mark.parametrize(
    "value",
    [
        {"errors": [error()]},
        {"errors": [error(extensions={"code": "X"})], "data": None},
        {"data": None, "errors": [error(type="NOT_FOUND", path=["a"], locations=[{"line": 1, "column": 2}])]},
    ],
)
def test_graphql_bodies_are_claimed_by_nothing_else(value: Any) -> None:
    assert errconv.detect(body(value)) == "graphql"
    assert dialects.get("jsonapi").recognise(value, None) == 0


def test_the_graphql_media_type_settles_it() -> None:
    raw = body({"errors": [error("x")]})
    fault = errconv.from_http(400, [("Content-Type", "application/graphql-response+json")], raw)
    assert fault.origin.body == "graphql"


# --------------------------------------------------------------------------- encoding


def test_encoding_writes_an_errors_only_result() -> None:
    fault = errconv.Fault.build(status=400, code="BAD_USER_INPUT", detail="id must be positive", param="id", metadata={"path": "user.id"})
    out = errconv.encode(fault, "graphql")
    assert out == (
        b'{"errors":[{"message":"id must be positive","path":["user","id"],'
        b'"extensions":{"code":"BAD_USER_INPUT","status":400,"next_step":"fix_request","param":"id"}}]}'
    )
    assert errconv.decode(out) == fault


def test_a_title_without_a_detail_is_the_message_and_comes_back_as_the_title() -> None:
    fault = errconv.Fault.build(status=422, title="Validation failed", param="age")
    out = json.loads(errconv.encode(fault, "graphql"))
    assert out["errors"][0]["message"] == "Validation failed"
    assert errconv.decode(errconv.encode(fault, "graphql")) == fault


def test_a_class_the_code_does_not_imply_is_written() -> None:
    fault = errconv.Fault.build(status=403, grpc_code=Code.UNAUTHENTICATED, code="FORBIDDEN")
    ext = json.loads(errconv.encode(fault, "graphql"))["errors"][0]["extensions"]
    assert ext["grpc_code"] == "UNAUTHENTICATED"
    assert errconv.decode(errconv.encode(fault, "graphql")) == fault


def test_http_graphql() -> None:
    fault = errconv.Fault.build(status=401, code="UNAUTHENTICATED", detail="sign in")
    response = errconv.to_http(fault, "graphql")
    assert (response.status, response.content_type) == (401, "application/graphql-response+json")
    assert errconv.decode(bytes(response)) == fault


def test_a_round_trip_through_jsonapi_keeps_what_both_carry() -> None:
    start = decode({"errors": [error("Invalid argument value", extensions={"code": "BAD_USER_INPUT", "argumentName": "id"})]})
    back = errconv.decode(errconv.convert(errconv.convert(errconv.encode(start, "graphql"), "jsonapi"), "graphql"))
    assert (back.code, back.param, back.detail, back.next_step, back.status) == ("BAD_USER_INPUT", "id", "Invalid argument value", "fix_request", 400)


# --------------------------------------------------------------------------- the spec's response shape


def _check_response(doc: Any) -> None:
    """GraphQL spec, section 7 (Response): an independent check of the shape, written from
    the spec's text, not from errconv's encoder."""
    assert isinstance(doc, dict)
    assert set(doc) <= {"data", "errors", "extensions"}, "a response map holds only data, errors, extensions"
    assert "data" in doc or "errors" in doc
    if "data" not in doc:  # a request error: errors must be present and non-empty
        assert isinstance(doc.get("errors"), list) and doc["errors"]
    for err in doc.get("errors", []):
        assert isinstance(err, dict)
        assert isinstance(err.get("message"), str), "every error has a string message"
        assert set(err) <= {"message", "locations", "path", "extensions"}, "no entries beyond the spec's (extensions is the place)"
        if "locations" in err:
            assert all(set(loc) == {"line", "column"} and all(isinstance(v, int) and v >= 1 for v in loc.values()) for loc in err["locations"])
        if "path" in err:
            assert err["path"] and all(isinstance(p, str) or (isinstance(p, int) and p >= 0) for p in err["path"])
        if "extensions" in err:
            assert isinstance(err["extensions"], dict)


@pytest.mark.parametrize("case", [p.name for p in __import__("golden_corpus").cases()])
def test_every_golden_graphql_body_is_a_spec_response(case: str) -> None:
    import golden_corpus as gc

    _check_response(json.loads((gc.ROOT / case / "graphql.json").read_bytes()))


def test_graphql_core_formats_errors_as_we_read_them() -> None:
    graphql = pytest.importorskip("graphql")
    # graphql-core's own error formatting (what a Python GraphQL server sends), read by errconv.
    err = graphql.GraphQLError("Invalid argument value", extensions={"code": "BAD_USER_INPUT", "argumentName": "id"}, path=["userWithID"])
    fault = errconv.decode(json.dumps({"errors": [err.formatted], "data": None}).encode())
    assert (fault.code, fault.param, fault.metadata, fault.next_step) == ("BAD_USER_INPUT", "id", {"path": "userWithID"}, "fix_request")
    result = graphql.graphql_sync(graphql.build_schema("type Query { a: Int }"), "{ b }")
    fault = errconv.decode(json.dumps({"errors": [e.formatted for e in result.errors]}).encode())
    assert (fault.grpc_code, fault.next_step) == (Code.INVALID_ARGUMENT, "fix_request")  # a validation error: no path


# --------------------------------------------------------------------------- the real-world captures


@pytest.mark.parametrize("key, path, entry", [c for c in labelled("graphql", "jsonapi", "jsonrpc", "mcp") if c[2]["expected_dialect"] == "graphql"], ids=lambda c: c if isinstance(c, str) else "")
def test_each_capture_is_read_as_the_dialect_it_states(key: str, path: Any, entry: dict[str, Any]) -> None:
    assert read_as(path, entry) == "graphql", f"{key} ({entry['source']})"


def test_a_capture_of_no_graphql_shape_is_not_read_as_one() -> None:
    for key, path, entry in labelled("graphql", "jsonapi", "jsonrpc", "mcp"):
        if entry["expected_dialect"] == "unknown":
            assert read_as(path, entry) not in ("graphql", "jsonapi", "jsonrpc", "mcp"), key
