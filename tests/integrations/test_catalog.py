"""`errconv.Catalog`: loading checks every rule, `fault` refuses what an entry does not
allow, exception classes, `conform`, and `catalog diff` (function, git references)."""

from __future__ import annotations

import logging
import pathlib
import shutil
import subprocess

import pytest

import errconv
from errconv._catalog import RULES, CatalogError
from errconv._catalog._diff import diff, load_ref

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "catalog" / "errors.toml"
HEAD = 'domain = "api.example.com"\ntype_base = "https://api.example.com/problems/"\n'
ISSUE_FORM = HEAD + '''
[errors.rate_limited]
status = 429
next_step = "wait"
retry_after_seconds = 30          # the default delay
title = "Too many requests"
description = "60 requests per minute per key."
metadata_keys = ["quotaLimit"]

[errors.missing_parameter]
status = 400
next_step = "fix_request"
params = ["currency", "amount"]   # the parameters this code may name
title = "Missing parameter"

[errors.account_suspended]
status = 403
next_step = "give_up"
unblock_with = "contact_support"
title = "Account suspended"
'''


@pytest.fixture(scope="module")
def catalog() -> errconv.Catalog:
    return errconv.Catalog.load(SAMPLE)


def test_the_issues_form_loads() -> None:
    catalog = errconv.Catalog.loads(ISSUE_FORM)
    assert list(catalog.entries) == ["rate_limited", "missing_parameter", "account_suspended"]
    rate = catalog.entries["rate_limited"]
    assert (rate.status, rate.grpc_code_name, rate.retry_after_seconds, rate.metadata_keys) == (429, "RESOURCE_EXHAUSTED", 30, ("quotaLimit",))
    assert catalog.internal.code == "internal_error" and catalog.internal.next_step == "give_up"


# --------------------------------------------------------------------------- every rule, broken once

ONE = '\n[errors.{code}]\n'
BROKEN: dict[str, str] = {
    "toml": HEAD + "[errors.x\n",
    "unknown-key": HEAD + '[errors.slow]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = 5\nretry_afer = 5\ntitle = "Slow"\n',
    "domain": 'domain = "api example"\ntype_base = "https://api.example.com/problems/"\n[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\n',
    "type-base": 'domain = "api.example.com"\ntype_base = "/problems"\n[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\n',
    "aip193-reason": HEAD + '[errors.slow_]\nstatus = 429\nnext_step = "wait"\nretry_after_seconds = 1\ntitle = "Slow down"\n',
    "code": HEAD + '[errors.rate-limited]\nstatus = 429\nnext_step = "wait"\nretry_after_seconds = 1\ntitle = "Slow down"\n',
    "status": HEAD + '[errors.ok_really]\nstatus = 200\nnext_step = "give_up"\ntitle = "Fine"\n',
    "grpc-code": HEAD + '[errors.busy]\nstatus = 429\ngrpc_code = "UNAVAILABLE"\nnext_step = "wait"\nretry_after_seconds = 1\ntitle = "Busy"\n',
    "next-step-unstated": HEAD + '[errors.busy]\nstatus = 503\ntitle = "Busy"\n',
    "next-step": HEAD + '[errors.busy]\nstatus = 503\nnext_step = "retry"\ntitle = "Busy"\n',
    "title": HEAD + '[errors.busy]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = 1\ntitle = " "\n',
    "fix-without-param": HEAD + '[errors.bad_request]\nstatus = 400\nnext_step = "fix_request"\ntitle = "Bad request"\n',
    "params": HEAD + '[errors.bad_request]\nstatus = 400\nnext_step = "fix_request"\nparams = ["a", "a"]\ntitle = "Bad request"\n',
    "delay-not-whole-seconds": HEAD + '[errors.busy]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = 2.5\ntitle = "Busy"\n',
    "wait-without-delay": HEAD + '[errors.busy]\nstatus = 503\nnext_step = "wait"\ntitle = "Busy"\n',
    "delay-without-wait": HEAD + '[errors.gone]\nstatus = 410\nnext_step = "give_up"\nretry_after_seconds = 30\ntitle = "Gone"\n',
    "wait-on-bug": HEAD + '[errors.oops]\nstatus = 500\nnext_step = "wait"\nretry_after_seconds = 5\ntitle = "Oops"\n',
    "every-5xx-wait": HEAD
    + '[errors.not_yet]\nstatus = 501\nnext_step = "wait"\nretry_after_seconds = 5\ntitle = "Not yet"\n'
    + '[errors.busy]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = 5\ntitle = "Busy"\n',
    "retry-promised-in-prose": HEAD + '[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\ndescription = "Please try again later."\n',
    "give-up-only": HEAD + '[errors.busy]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = 5\nunblock_with = "pay"\ntitle = "Busy"\n',
    "aip193-metadata-key": HEAD + '[errors.busy]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = 5\nmetadata_keys = ["Quota-Limit"]\ntitle = "Busy"\n',
    "docs-url": HEAD + '[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\ndocs_url = "docs/gone"\n',
    "example": HEAD + '[errors.bad_request]\nstatus = 400\nnext_step = "fix_request"\nparams = ["a"]\ntitle = "Bad"\nexample = { param = "b" }\n',
    "internal": HEAD + 'internal = "gone"\n[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\n',
}


def test_every_rule_has_a_broken_catalog() -> None:
    assert set(BROKEN) == set(RULES)


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_a_broken_catalog_fails_naming_the_entry_and_the_rule(rule: str) -> None:
    with pytest.raises(CatalogError) as caught:
        errconv.Catalog.loads(BROKEN[rule], source="errors.toml")
    error = caught.value
    assert isinstance(error, errconv.ContractError)
    assert error.rule == rule
    assert str(error).startswith("errors.toml: ")
    assert f": {rule}: " in str(error)
    assert "\n" not in str(error)
    if rule not in ("toml", "domain", "type-base", "internal"):
        assert error.entry is not None and f"[errors.{error.entry}]" in str(error)


def test_an_example_outside_its_entry_fails_the_load() -> None:
    # An example's alternatives need alternatives = true, as catalog.fault's would.
    text = HEAD + '[errors.gone]\nstatus = 410\nnext_step = "give_up"\ntitle = "Gone"\nexample = { alternatives = [1, 2] }\n'
    with pytest.raises(CatalogError, match=r"\[errors.gone\]: example: .*offers no alternatives"):
        errconv.Catalog.loads(text)


def test_a_missing_file_is_a_catalog_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(CatalogError, match="cannot read the file"):
        errconv.Catalog.load(tmp_path / "nope.toml")


# --------------------------------------------------------------------------- faults


def test_fault_fills_the_entry(catalog: errconv.Catalog) -> None:
    fault = catalog.fault("rate_limited", detail="60 per minute", metadata={"quotaLimit": "60"})
    assert (fault.status, fault.grpc_code_name, fault.next_step, fault.retry_after_seconds) == (429, "RESOURCE_EXHAUSTED", "wait", 30)
    assert (fault.code, fault.domain, fault.type, fault.title) == (
        "rate_limited", "api.example.com", "https://api.example.com/problems/rate_limited", "Too many requests",
    )  # fmt: skip
    assert catalog.fault("rate_limited", retry_after_seconds=12).retry_after_seconds == 12
    assert catalog.fault("amount_over_limit").param == "amount"  # one param: the default
    assert catalog.fault("upstream_timeout").domain == "payments.api.example.com"
    funds = catalog.fault("insufficient_funds")
    assert (funds.blocked_by, funds.unblock_with, funds.next_step) == ("balance", "request_deposit", "give_up")
    slot = catalog.fault("slot_unavailable", alternatives=[{"start": "14:45"}], alternatives_truncated=True)
    assert slot.grpc_code_name == "ALREADY_EXISTS" and slot.alternatives == ({"start": "14:45"},)
    # A docs URL elsewhere than the type goes out as a google.rpc.Help link.
    assert catalog.fault("booking_not_found").details[0].links[0].url == "https://docs.example.com/errors/booking_not_found"
    # A violation names the param when none is given, and a path inside a param is within it.
    checked = catalog.fault("validation_failed", violations=[{"field": "items[2].quantity", "description": "at least 1"}])
    assert checked.param == "items[2].quantity"


@pytest.mark.parametrize(
    "code, values, message",
    [
        ("no_such_code", {}, "is not in the catalog"),
        ("maintenance", {}, "wait with no default delay"),
        ("maintenance", {"retry_after_seconds": 7201}, "past the entry's maximum 7200"),
        ("rate_limited", {"retry_after_seconds": 2.5}, "whole number of seconds"),
        ("account_suspended", {"retry_after_seconds": 5}, "carries no retry_after_seconds"),
        ("missing_parameter", {}, "must name the parameter"),
        ("missing_parameter", {"param": "recipient"}, "not one of the entry's params"),
        ("validation_failed", {"violations": [{"field": "password", "description": "short"}]}, "not one of the entry's params"),
        ("account_suspended", {"param": "account"}, "not one of the entry's params"),
        ("booking_not_found", {"alternatives": [1]}, "offers no alternatives"),
        ("slot_unavailable", {"alternatives": [1, 2, 3, 4]}, "at most 3 alternatives"),
        ("rate_limited", {"metadata": {"region": "eu"}}, "not one of the entry's metadata_keys"),
    ],
)
def test_fault_refuses_what_the_entry_does_not_allow(catalog: errconv.Catalog, code: str, values: dict[str, object], message: str) -> None:
    with pytest.raises(errconv.ContractError, match=message):
        catalog.fault(code, **values)  # type: ignore[arg-type]


def test_exception_classes_and_raise(catalog: errconv.Catalog) -> None:
    cls = catalog.exception("rate_limited")
    assert cls is catalog.errors.rate_limited
    assert cls.__name__ == "RateLimitedError" and issubclass(cls, catalog.Error) and issubclass(cls, errconv.FaultError)
    with pytest.raises(catalog.errors.maintenance) as caught:
        raise catalog.errors.maintenance(retry_after_seconds=900, detail="until 02:00")
    assert caught.value.fault == catalog.fault("maintenance", retry_after_seconds=900, detail="until 02:00")
    with pytest.raises(catalog.Error) as raised:
        catalog.raise_("missing_parameter", param="currency")
    assert isinstance(raised.value, catalog.errors.missing_parameter)
    assert raised.value.fault.param == "currency"
    with pytest.raises(errconv.ContractError):
        catalog.errors.maintenance()  # a wait with no default and no delay: refused at the raise site
    with pytest.raises(errconv.ContractError):
        catalog.exception("no_such_code")


def test_conform_keeps_catalogued_faults_and_replaces_the_rest(catalog: errconv.Catalog, caplog: pytest.LogCaptureFixture) -> None:
    good = catalog.fault("rate_limited")
    assert catalog.conform(good) is good
    bare = errconv.Fault.build(status=429, code="rate_limited", next_step="wait", retry_after_seconds=5)
    filled = catalog.conform(bare)
    assert (filled.type, filled.domain, filled.title) == ("https://api.example.com/problems/rate_limited", "api.example.com", "Too many requests")
    with caplog.at_level(logging.ERROR, logger="errconv.catalog"):
        stray = catalog.conform(errconv.Fault.build(status=418, code="teapot", next_step="give_up"))
        wrong = catalog.conform(errconv.Fault.build(status=503, code="rate_limited", next_step="wait", retry_after_seconds=5))
    internal = catalog.fault("internal_error", detail=catalog.internal.description)
    assert stray == internal and wrong == internal
    assert "teapot" in caplog.records[0].getMessage()
    assert "status 429 in the catalog, the body says 503" in caplog.records[1].getMessage()


def test_a_catalog_without_internal_has_the_built_in_one() -> None:
    catalog = errconv.Catalog.loads(ISSUE_FORM)
    fault = catalog.conform(errconv.Fault.build(status=500, code="boom", next_step="give_up"))
    assert (fault.status, fault.code, fault.next_step, fault.type) == (500, "internal_error", "give_up", "https://api.example.com/problems/internal_error")
    assert catalog.conform(fault) == fault  # the built-in internal error is itself catalogued


def test_lookup_by_aip193_reason(catalog: errconv.Catalog) -> None:
    assert catalog.lookup("RATE_LIMITED") is catalog.entries["rate_limited"]
    assert catalog.lookup("Rate_Limited") is None


# --------------------------------------------------------------------------- diff

HISTORY = ROOT / "tests" / "catalog" / "history"


def _changes(a: str, b: str) -> set[tuple[str, str | None, str]]:
    return {(c.severity, c.code, c.change) for c in diff(errconv.Catalog.load(HISTORY / a), errconv.Catalog.load(HISTORY / b))}


def test_the_history_covers_every_finding() -> None:
    seen = set()
    for a, b in zip(range(1, 6), range(2, 7)):
        seen |= {(sev, change) for sev, _, change in _changes(f"v{a}.toml", f"v{b}.toml")}
    for want in [
        ("breaking", "removed"), ("breaking", "next-step"), ("breaking", "status"), ("breaking", "grpc-code"),
        ("breaking", "params"), ("breaking", "domain"), ("breaking", "metadata-keys"), ("risky", "delay"),
        ("safe", "delay"), ("safe", "added"), ("risky", "params"), ("safe", "metadata-keys"),
    ]:  # fmt: skip
        assert want in seen, want


def test_diff_of_a_catalog_with_itself_is_empty() -> None:
    assert _changes("v3.toml", "v3.toml") == set()


def test_a_delay_at_exactly_twice_is_safe_and_past_it_risky() -> None:
    def cat(delay: int) -> errconv.Catalog:
        return errconv.Catalog.loads(HEAD + f'[errors.busy]\nstatus = 503\nnext_step = "wait"\nretry_after_seconds = {delay}\ntitle = "Busy"\n')

    assert [c.severity for c in diff(cat(30), cat(60))] == ["safe"]
    assert [c.severity for c in diff(cat(30), cat(61))] == ["risky"]
    assert [c.severity for c in diff(cat(30), cat(15))] == ["safe"]
    assert [c.severity for c in diff(cat(30), cat(14))] == ["risky"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_references(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    for version in ("v1", "v4"):
        shutil.copy(HISTORY / f"{version}.toml", tmp_path / "errors.toml")
        git("add", "errors.toml")
        git("commit", "-qm", version)
    monkeypatch.chdir(tmp_path)
    old = load_ref("git:HEAD~1:errors.toml")
    assert old.source == "git:HEAD~1:errors.toml" and old.entries["rate_limited"].retry_after_seconds == 30
    assert {c.change for c in diff(old, load_ref("errors.toml")) if c.severity == "breaking"} == {"params", "metadata-keys"}
    import io

    from errconv import _cli as cli

    out, err = io.BytesIO(), io.StringIO()
    assert cli.main(["catalog", "diff", "git:HEAD~1:errors.toml", "git:HEAD:errors.toml"], stdout=out, stderr=err) == 1
    assert b"breaking  rate_limited: metadata-keys: quotaValue removed" in out.getvalue()
    with pytest.raises(errconv.ErrconvError, match="git show failed"):
        load_ref("git:HEAD~5:errors.toml")
    with pytest.raises(errconv.ErrconvError, match="git:REV:path"):
        load_ref("git:HEAD")
