"""The typed read of google, status-json and problem bodies gives what the general read gives.

`dialects/_typed.py` decodes a body in the usual shape straight into msgspec Structs
and gives up on anything else. Whatever a body is, `decode` (typed first) must give
the same Fault, origin included, or the same error, as the general way
(`from_object(read_json(...))`). Every golden body and hundreds of mutants of each
(members dropped, nulled, retyped, renamed to snake_case, added; other type URLs)
are checked; a new check in a general reader that the typed Structs do not make
shows up here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import golden_corpus as gc
import pytest

from errconv import DecodeError
from errconv.dialects import _typed, google_error, problem, status_json
from errconv.dialects._common import read_json
from errconv.limits import DEFAULT_LIMITS, Limits

DIALECTS = {
    "google": (google_error, _typed.read_google, "the google error body"),
    "status-json": (status_json, _typed.read_status_json, "the status-json body"),
    "problem": (problem, _typed.read_problem, "the problem body"),
}
ODD_VALUES = [None, 0, -1, 99, 429, 2**70, 10**400, 1.5, 30.0, True, False, "", "x", "30s", "1.5s", "-3",
              "99999999999999999999", "wait", "transient", "NOT_FOUND", "#/a/0", "/a~1b", "next_step",
              [], {}, ["a"], {"k": "v"}, {"k": 1}, {"next_step": "x"}, {"detail": "d"}, {"field": ""},
              {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "5s"}]  # fmt: skip
TIGHT = Limits(max_details=2, max_violations=1, max_depth=2)


def _paths(node: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*path, i))


def _at(root: Any, path: tuple) -> Any:
    for part in path:
        root = root[part]
    return root


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _changed(obj: Any, path: tuple, edit: Callable[[Any, Any], None]) -> Any:
    """A copy of `obj` with `edit(parent, key)` applied where `path` ends."""
    new = copy.deepcopy(obj)
    edit(_at(new, path[:-1]), path[-1])
    return new


def _setter(value: Any) -> Callable[[Any, Any], None]:
    return lambda parent, key: parent.__setitem__(key, value)


def _rename(parent: dict[str, Any], key: str) -> None:
    parent[_snake(key)] = parent.pop(key)


def mutants(obj: Any) -> Iterator[Any]:
    for path in list(_paths(obj))[1:]:
        key = path[-1]
        yield _changed(obj, path, lambda parent, key: parent.__delitem__(key))
        for value in ODD_VALUES:
            yield _changed(obj, path, _setter(value))
        if isinstance(key, str):
            yield _changed(obj, path, lambda parent, key: parent.__setitem__("zz_unknown", 1))
            if _snake(key) != key:
                yield _changed(obj, path, _rename)
            if key == "@type":
                name = _at(obj, path).rsplit("/", 1)[-1]
                for url in (f"type.example.com/{name}", name, "type.googleapis.com/acme.v1.Unknown"):
                    yield _changed(obj, path, _setter(url))


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        fault = fn()
    except DecodeError as exc:
        return ("error", str(exc))
    return ("fault", fault, fault.origin)


def bodies(dialect: str) -> Iterator[bytes]:
    for case in gc.cases():
        data = (case / gc.FILES[dialect]).read_bytes()
        yield data
        for mutant in mutants(json.loads(data)):
            yield json.dumps(mutant).encode()


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_typed_read_matches_the_general_read(dialect: str) -> None:
    module, read_typed, what = DIALECTS[dialect]
    typed = 0
    for data in bodies(dialect):
        for limits in (DEFAULT_LIMITS, TIGHT):
            got = outcome(partial(module.decode, data, limits=limits))
            want = outcome(lambda data=data, limits=limits: module.from_object(read_json(data, limits, what), limits))
            assert got == want, data
        typed += read_typed(data, DEFAULT_LIMITS) is not None
    assert typed > 500  # the typed way is taken, not only the general one


@pytest.mark.parametrize("dialect", ["google", "status-json"])
def test_golden_bodies_take_the_typed_way(dialect: str) -> None:
    _, read_typed, _ = DIALECTS[dialect]
    for case in gc.cases():
        data = (case / gc.FILES[dialect]).read_bytes()
        unknown_type = "type.googleapis.com/example." in data.decode() or b"@bytes" in data
        assert (read_typed(data, DEFAULT_LIMITS) is None) == unknown_type, case.name


def test_golden_problem_bodies_take_the_typed_way_unless_they_have_extensions() -> None:
    for case in gc.cases():
        data = (case / gc.FILES["problem"]).read_bytes()
        body = json.loads(data)
        foreign = set(body) - set(_typed.ProblemBody.__struct_fields__)
        unknown_type = "type.googleapis.com/example." in data.decode() or b"@bytes" in data
        fast = _typed.read_problem(data, DEFAULT_LIMITS)
        assert (fast is None) == bool(foreign or unknown_type), case.name
        if fast is not None:  # and the typed Fault is the one decode gives
            assert problem.from_typed(fast) is not None, case.name


def test_http_reads_a_google_body_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    from errconv.dialects import http_response

    responses = []
    for case in gc.cases():
        data = (case / "http-google.http").read_bytes()
        head, _, body = data.partition(b"\r\n\r\n")
        responses.append(data)
        for mutant in list(mutants(json.loads(body)))[::7]:
            responses.append(head + b"\r\n\r\n" + json.dumps(mutant).encode())
    typed = [outcome(partial(http_response.decode, data, now=0.0)) for data in responses]
    monkeypatch.setattr(http_response, "read_google", lambda data, limits: None)
    general = [outcome(partial(http_response.decode, data, now=0.0)) for data in responses]
    assert typed == general


def test_http_reads_a_problem_body_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    from errconv.dialects import http_response

    responses = []
    for case in gc.cases():
        data = (case / "http-problem.http").read_bytes()
        head, _, body = data.partition(b"\r\n\r\n")
        responses.append(data)
        for mutant in list(mutants(json.loads(body)))[::5]:
            responses.append(head + b"\r\n\r\n" + json.dumps(mutant).encode())
    typed = [outcome(partial(http_response.decode, data, now=0.0)) for data in responses]
    assert sum(_typed.read_problem(r.partition(b"\r\n\r\n")[2], DEFAULT_LIMITS) is not None for r in responses) > 100
    monkeypatch.setattr(http_response, "read_problem", lambda data, limits: None)
    general = [outcome(partial(http_response.decode, data, now=0.0)) for data in responses]
    assert typed == general
