"""Issue 27, item 4, as the contract: each syntax the deny-list missed, with a secret in
it, reaches no model; and what is not a secret stays as the service wrote it.

The corpus (test_secret_corpus.py) measures the same at scale; these name the cases.
"""

from __future__ import annotations

import pytest

import errconv
from errconv import Fault
from errconv._agent_text import redact, scrub, scrub_fault

SECRET = "Zq9xK2mW7pR4tY8v"  # random enough for no rule to need a name... but every case gives one

CASES = {
    "PHP var_export =>": f"array (\n  'api_key' => '{SECRET}',\n)",
    "PHP print_r =>": f"Array\n(\n    [password] => {SECRET}\n)",
    "Ruby hash inspect": f'{{"token"=>"{SECRET}"}}',
    "Ruby 3.4 inspect": f'{{secret: "{SECRET}"}}',
    "XML element": f"<error><password>{SECRET}</password></error>",
    "XML element with attributes": f'<ApiKey type="live">{SECRET}</ApiKey>',
    "XML attribute": f'<auth password="{SECRET}"/>',
    "a colon then nine spaces": f"password:         {SECRET}",
    "Python bytes repr": repr(f"passcode={SECRET}".encode()),
    "Python repr of a tuple": repr(("client_secret", SECRET)),
    "YAML list": f"tokens:\n  - {SECRET}\n  - other{SECRET[::-1]}",
    "key=": f"key={SECRET}",
    "pass=": f"pass={SECRET}",
    "passcode=": f"passcode={SECRET}",
    "pin=": f"pin={SECRET}",
    "otp=": f"otp={SECRET}",
    "the third cookie": f"Cookie: theme=dark; lang=en; sid={SECRET}",
    "Set-Cookie": f"Set-Cookie: session={SECRET}; Path=/; HttpOnly",
    "percent-encoded": f"password%3D{SECRET}",
    "\\uXXXX-escaped name": "{\"\\u0070\\u0061\\u0073\\u0073\\u0077\\u006f\\u0072\\u0064\": \"" + SECRET + '"}',
    "fullwidth colon": f"password\uff1a{SECRET}",
    "escaped JSON": '{\\"apiKey\\": \\"' + SECRET + '\\"}',
    "zero-width split name and value": f"pass\u200bword={SECRET[:8]}\u200b{SECRET[8:]}",
    "HTML entities": f"&quot;password&quot;: &quot;{SECRET}&quot;",
    "Markdown link": f"[token]({SECRET})",
}


@pytest.mark.parametrize("label", list(CASES))
def test_a_named_secret_in_any_syntax_is_redacted(label: str) -> None:
    text = CASES[label]
    for out in (scrub(text), redact(text), errconv.agent_message(Fault.build(status=400, next_step="give_up", detail=text))):
        assert SECRET not in out and SECRET[:8] not in out and SECRET[8:] not in out, (label, out)
        assert "[redacted]" in out


SHAPED = {
    # (text, what must not appear)
    "Telegram bot token in an Express 404": (
        "Cannot POST /bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1/sendMessage", "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"),
    "AWS secret with two slashes": ("secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY rejected", "K7MDENG"),
    "JWT whose header is not eyJ": ("got ewogICJhbGciOiAiSFMyNTYiCn0.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl", "c2lnbmF0dXJl"),
    "a key split by dashes": ("upstream refused AKIA4R-SMEEQ8-VQXZLP-P5", "SMEEQ8"),
    "PEM key, form-encoded": ("k=-----BEGIN+PRIVATE+KEY-----%0AMIIEvQIBADANBgkqhkiG9w0BAQEFAASC%0A-----END+PRIVATE+KEY-----", "MIIEvQIB"),
    "PEM key cut before its END": ('{"key": "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM', "MIIEpAIB"),
    "GitHub token in prose": ("token ghp_16C7e42F292c6912E7710c838347Ae178B4a is expired", "16C7e42F292c"),
    "database URL": ("could not connect to postgresql://app:s3cretPassw0rd@db:5432/prod", "s3cretPassw0rd"),
}  # fmt: skip


@pytest.mark.parametrize("label", list(SHAPED))
def test_a_secret_told_by_its_shape_is_redacted_with_no_name(label: str) -> None:
    text, gone = SHAPED[label]
    for out in (scrub(text), redact(text)):
        assert gone not in out, (label, out)


def test_a_name_at_the_end_of_a_cookie_line_still_has_its_list_redacted() -> None:
    # fuzz/long_run.py --surfaces redaction: the cookie's value (the rest of its line)
    # took the name after it, and the YAML list under that name on the next lines stayed.
    text = "Cookie: theme=dark&credentials\uff1a\n  - 74692332\n  - 23329647\n"
    out = scrub(text)
    assert "74692332" not in out and "23329647" not in out, out


def test_credential_named_members_lose_their_value_whatever_its_type() -> None:
    fault = Fault.build(
        status=400,
        next_step="give_up",
        extensions={"pin": 48213377, "tokens": ["a1", "b2"], "credentials": {"pass": "x9", "user": "bob"}, "apiKey": "k", "ok": 1},
    )
    ext = scrub_fault(fault).extensions
    assert ext == {"pin": "[redacted]", "tokens": "[redacted]", "credentials": "[redacted]", "apiKey": "[redacted]", "ok": 1}


def test_a_secret_split_across_a_violations_field_and_description_is_redacted() -> None:
    fault = Fault.build(status=400, next_step="fix_request", param="password", violations=[{"field": "password", "description": SECRET}])
    assert SECRET not in errconv.agent_message(fault)
    # A description in prose is what the model needs: it stays.
    prose = Fault.build(status=400, next_step="fix_request", param="password", violations=[{"field": "password", "description": "must be 8 characters or more"}])
    assert "must be 8 characters or more" in errconv.agent_message(prose)


def test_a_key_straddling_the_cut_is_not_shown_in_part() -> None:
    # Scrubbed first, cut after: the cut never falls inside a secret that is still there.
    for pad in range(0, 60, 7):
        text = "x" * pad + " api_key=" + SECRET + " and more words after it " * 4
        out = redact(text, 48)
        assert SECRET[:6] not in out and len(out) <= 48, out


HARMLESS = (
    "amount must be positive",
    "max_tokens: must be <= 4096",
    "The token is expired",
    "BucketAlreadyOwnedByYou",
    "RESOURCE_EXHAUSTED",
    "projects/my-project-123/locations/us-central1/queues/default",
    "/v1/customers/cus_4QFJOjw2pq8iKN/sources",
    "request 3fa85f64-5717-4562-b3fc-2c963f66afa6 failed",
    "see https://docs.stripe.com/error-codes/card-declined#section",
    "The field max_coordinating_and_primary_bytes is too large",
    "Invalid value for 'currency': must be one of usd, eur",
    "Request req_011CYK5mje9HkutJtmfPzzNC was throttled",
    "値が不正です: 金額は正の数でなければなりません",
    # Angle brackets that hold no credential.
    "limit=<10>", "a<b and x=<y", "x => <b>", "password=<",
    # What the rules for a broken separator or URL must leave.
    "password=&user=bob",  # an empty value, then the next pair
    "password=, and more",
    "http://[::1]/x and http://[::1]:8080/x",
    "http://localhost:8080/v1",
    "http://host:port/path",  # a placeholder port in documentation
    "see http://a.example.com: then mail foo@bar.example.com",
)


@pytest.mark.parametrize("text", HARMLESS)
def test_what_is_not_a_secret_stays_as_written(text: str) -> None:
    assert scrub(text) == text


@pytest.mark.parametrize(
    "text, secret",
    [
        # A value opening with `<` (a placeholder's form, `api_key=<YOUR_KEY>`) that no rule took.
        ("see https://api.example.com/v1/charges?access_token=<Tok3nSecretValue&x=1", "Tok3nSecretValue"),
        ("token=<Zq9SecretKey77> expired", "Zq9SecretKey77"),
        ("password = <hunter2 is mine> then", "hunter2"),
        ("filter api_key==Zq9SecretKey77 matched nothing", "Zq9SecretKey77"),
        ('where token == "abc123def"', "abc123def"),
        ("password=,Hunter2Secret", "Hunter2Secret"),
        ("password=}Hunter2Secret", "Hunter2Secret"),
        ("see https://user:Pa55wordX api.example.com/v1", "Pa55wordX"),  # the `@` cut off
        ('see https://user:Pa55wordX"api.example.com', "Pa55wordX"),
        ("see https://user:Pa55wordX:api.example.com/v1", "Pa55wordX"),
        ("see https://user: Pa55wordX@api.example.com/v1", "Pa55wordX"),  # parted by a space
        ("dsn postgres://app:\nPa55wordX@db:5432/x", "Pa55wordX"),
    ],
)
def test_a_secret_whose_separator_or_url_is_broken_is_redacted(text: str, secret: str) -> None:
    # fuzz/long_run.py --surfaces mutated planted phrases: a value in angle brackets, a
    # comparison, an empty value before a stray mark, a URL whose password lost its `@` (a
    # "port" that is no number).
    assert secret not in scrub(text)
