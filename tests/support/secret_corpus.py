"""A generated corpus of credentials, for the redaction's tests (issue 27).

`secrets()` gives at least 1,000 credentials in more than 60 real formats: the shapes of
gitleaks' rules (cmd/generate/config/rules/*.go) and detect-secrets' plugins, with fresh
random values from a fixed seed (never a live key, never one copied from their examples).
Each is a `Secret`: its format, its whole value, the part of it that is random (what must
never reach a model, in whole or in any 8-character piece), the name a service would give
it, and whether its value alone can be told from data (`shaped`: a vendor prefix, a
structure, a random run). `SYNTAXES` embeds a secret in a text the way a service echoes
it: JSON, nested and escaped JSON, PHP, Ruby, Python and bytes reprs, YAML, XML, form and
percent encoding, headers, cookies, URLs and paths, prose, `\\uXXXX` escapes, zero-width
splits, a fullwidth colon, a key split by separators. `syntaxes_for(secret)` are those that
apply: the ones that carry the value with no name only for a shaped secret (a password
alone in a sentence is a word like any other, and nobody can redact it).
"""

from __future__ import annotations

import base64
import html
import json
import random
import string
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass

SEED = 27
PER_FORMAT = 11

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
LOWER = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
DIGITS = string.digits
SYMBOLS = ALNUM + "!#$*+-.:=?@^_~"


@dataclass(frozen=True)
class Secret:
    """One credential: `value` as a service would echo it, `part` its random part."""

    format: str
    value: str
    part: str
    name: str
    shaped: bool = True
    # Known by a structure a split destroys (a URL's user info): a password of 12
    # characters cut into pieces is a few short words, and nobody can tell it from data.
    splits: bool = True


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _mixed(rng: random.Random, alphabet: str, n: int) -> str:
    """A random string that has a digit, a lower-case and an upper-case letter where the
    alphabet has them (real generators' output nearly always does; a key without any
    digit is as random, but a 20-character one is rarer than 1 in 30)."""
    while True:
        s = _rand(rng, alphabet, n)
        if (not any(c.isdigit() for c in alphabet) or any(c.isdigit() for c in s)) and (
            not any(c.isupper() for c in alphabet) or any(c.isupper() for c in s)
        ):
            return s


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(rng: random.Random, header: bytes) -> tuple[str, str]:
    payload = json.dumps({"sub": _rand(rng, LOWER, 12), "iat": rng.randint(1_600_000_000, 1_900_000_000), "scope": "read"}).encode()
    sig = _mixed(rng, B64URL, 43)
    token = f"{_b64url(header)}.{_b64url(payload)}.{sig}"
    return token, f"{_b64url(payload)}.{sig}"


def _pem(rng: random.Random, label: str, lines: int = 6) -> tuple[str, str]:
    body = "\n".join(_mixed(rng, B64, 64) for _ in range(lines))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body


# Each format: (name a service gives it, maker of (value, random part), shaped).
Maker = Callable[[random.Random], tuple[str, str]]


def _prefixed(prefix: str, alphabet: str, n: int, suffix: str = "") -> Maker:
    def make(rng: random.Random) -> tuple[str, str]:
        part = _mixed(rng, alphabet, n)
        return prefix + part + suffix, part

    return make


def _url_password(template: str) -> Maker:
    def make(rng: random.Random) -> tuple[str, str]:
        pw = _mixed(rng, ALNUM, rng.randint(12, 24))
        return template.format(pw=pw), pw

    return make


def _aws_secret(rng: random.Random) -> tuple[str, str]:
    while True:
        s = _mixed(rng, B64, 40)
        if s.count("/") >= 1 or rng.random() < 0.3:
            return s, s


def _telegram(rng: random.Random) -> tuple[str, str]:
    part = "AA" + _mixed(rng, B64URL, 33)
    return f"{rng.randint(100_000_000, 9_999_999_999)}:{part}", part


def _discord(rng: random.Random) -> tuple[str, str]:
    user = base64.b64encode(str(rng.randint(10**17, 10**18)).encode()).decode().rstrip("=")
    tail = _mixed(rng, B64URL, 6) + "." + _mixed(rng, B64URL, 38)
    return f"{user}.{tail}", tail


def _slack_bot(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, ALNUM, 24)
    return f"xoxb-{rng.randint(10**10, 10**12)}-{rng.randint(10**10, 10**12)}-{part}", part


def _slack_user(rng: random.Random) -> tuple[str, str]:
    part = _rand(rng, HEX, 32)
    return f"xoxp-{rng.randint(10**10, 10**12)}-{rng.randint(10**10, 10**12)}-{rng.randint(10**10, 10**12)}-{part}", part


def _slack_app(rng: random.Random) -> tuple[str, str]:
    part = _rand(rng, HEX, 64)
    return f"xapp-1-A{_rand(rng, UPPER, 10)}-{rng.randint(10**12, 10**13)}-{part}", part


def _slack_webhook(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, ALNUM, 24)
    return f"https://hooks.slack.com/services/T{_rand(rng, UPPER, 8)}/B{_rand(rng, UPPER, 8)}/{part}", part


def _discord_webhook(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, B64URL, 68)
    return f"https://discord.com/api/webhooks/{rng.randint(10**17, 10**18)}/{part}", part


def _github_fine(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, ALNUM, 22) + "_" + _mixed(rng, ALNUM, 59)
    return "github_pat_" + part, part


def _openai_legacy(rng: random.Random) -> tuple[str, str]:
    a, b = _mixed(rng, ALNUM, 20), _mixed(rng, ALNUM, 20)
    return f"sk-{a}T3BlbkFJ{b}", a + "T3BlbkFJ" + b


def _braintree(rng: random.Random) -> tuple[str, str]:
    part = _rand(rng, LOWER, 16) + "$" + _rand(rng, HEX, 32)
    return "access_token$production$" + part, part


def _azure_ad(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, ALNUM, 3) + str(rng.randint(0, 9)) + "Q~" + _mixed(rng, ALNUM + "_~.-", 34)
    return part, part


def _azure_sas(rng: random.Random) -> tuple[str, str]:
    sig = _mixed(rng, B64, 43) + "="
    quoted = urllib.parse.quote(sig, safe="")
    return f"sv=2022-11-02&ss=b&srt=co&sp=rl&se=2031-01-01T00:00:00Z&spr=https&sig={quoted}", sig[:-1]


def _azure_conn(rng: random.Random) -> tuple[str, str]:
    key = _mixed(rng, B64, 86) + "=="
    return f"DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey={key};EndpointSuffix=core.windows.net", key[:-2]


def _basic(rng: random.Random) -> tuple[str, str]:
    pw = _mixed(rng, ALNUM, 16)
    encoded = base64.b64encode(f"svc-{_rand(rng, LOWER, 6)}:{pw}".encode()).decode()
    return f"Basic {encoded}", encoded.rstrip("=")


def _express_sid(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, B64URL, 32) + "." + _mixed(rng, B64, 43)
    return "s:" + part, part


def _rails(rng: random.Random) -> tuple[str, str]:
    part = _mixed(rng, B64, 120) + "--" + _rand(rng, HEX, 40)
    return part, part


def _age(rng: random.Random) -> tuple[str, str]:
    part = _rand(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
    return "AGE-SECRET-KEY-1" + part, part


def _mapbox(rng: random.Random) -> tuple[str, str]:
    payload = _b64url(json.dumps({"u": _rand(rng, LOWER, 8), "a": _rand(rng, LOWER, 25)}).encode())
    part = _mixed(rng, B64URL, 22)
    return f"sk.{payload}.{part}", part


def _password(rng: random.Random) -> tuple[str, str]:
    while True:
        part = _mixed(rng, SYMBOLS, rng.randint(14, 22))
        if part[-1] in ALNUM and part[0] in ALNUM:
            return part, part


def _pin(rng: random.Random) -> tuple[str, str]:
    part = str(rng.randint(10_000_000, 99_999_999))
    return part, part


def _uuid_key(rng: random.Random) -> tuple[str, str]:
    h = _rand(rng, HEX, 32)
    value = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"
    return value, value


FORMATS: dict[str, tuple[str, Maker, bool]] = {
    # cloud
    "aws_access_key_id": ("aws_access_key_id", _prefixed("AKIA", UPPER, 16), True),
    "aws_secret_access_key": ("aws_secret_access_key", _aws_secret, True),
    "aws_session_token": ("aws_session_token", _prefixed("FwoGZXIvYXdzE", B64, 180), True),
    "gcp_api_key": ("key", _prefixed("AIza", B64URL, 35), True),
    "gcp_oauth_client_secret": ("client_secret", _prefixed("GOCSPX-", B64URL, 28), True),
    "gcp_oauth_access_token": ("access_token", _prefixed("ya29.", B64URL, 120), True),
    "gcp_service_account_key": ("private_key", lambda rng: _pem(rng, "PRIVATE KEY", 8), True),
    "azure_storage_connection": ("connection_string", _azure_conn, True),
    "azure_ad_client_secret": ("client_secret", _azure_ad, True),
    "azure_sas_token": ("sas", _azure_sas, True),
    "digitalocean_token": ("token", _prefixed("dop_v1_", HEX, 64), True),
    "alibaba_access_key": ("access_key_id", _prefixed("LTAI", ALNUM, 20), True),
    # payment
    "stripe_secret_key": ("api_key", _prefixed("sk_live_", ALNUM, 24), True),
    "stripe_restricted_key": ("api_key", _prefixed("rk_live_", ALNUM, 24), True),
    "stripe_webhook_secret": ("webhook_secret", _prefixed("whsec_", ALNUM, 32), True),
    "square_access_token": ("access_token", _prefixed("EAAA", B64URL, 60), True),
    "square_oauth_secret": ("client_secret", _prefixed("sq0csp-", B64URL, 43), True),
    "paypal_braintree_token": ("access_token", _braintree, True),
    "adyen_api_key": ("x-api-key", _prefixed("AQE", B64, 100), True),
    "flutterwave_secret": ("secret_key", _prefixed("FLWSECK-", HEX, 32, "-X"), True),
    # chat
    "slack_bot_token": ("token", _slack_bot, True),
    "slack_user_token": ("token", _slack_user, True),
    "slack_app_token": ("app_token", _slack_app, True),
    "slack_webhook": ("webhook_url", _slack_webhook, True),
    "discord_bot_token": ("authorization", _discord, True),
    "discord_webhook": ("webhook", _discord_webhook, True),
    "telegram_bot_token": ("bot_token", _telegram, True),
    # version control
    "github_pat": ("token", _prefixed("ghp_", ALNUM, 36), True),
    "github_oauth": ("access_token", _prefixed("gho_", ALNUM, 36), True),
    "github_app_token": ("token", _prefixed("ghs_", ALNUM, 36), True),
    "github_fine_grained_pat": ("github_token", _github_fine, True),
    "gitlab_pat": ("private_token", _prefixed("glpat-", B64URL, 20), True),
    "gitlab_runner_token": ("runner_token", _prefixed("glrt-", B64URL, 20), True),
    "gitlab_deploy_token": ("deploy_token", _prefixed("gldt-", B64URL, 20), True),
    "bitbucket_app_password": ("app_password", _prefixed("ATBB", ALNUM, 32), True),
    "atlassian_api_token": ("api_token", _prefixed("ATATT3xFfGF0", B64URL, 180), True),
    # AI
    "openai_project_key": ("api_key", _prefixed("sk-proj-", B64URL, 120), True),
    "openai_legacy_key": ("api_key", _openai_legacy, True),
    "openai_service_account": ("api_key", _prefixed("sk-svcacct-", B64URL, 120), True),
    "anthropic_api_key": ("x-api-key", _prefixed("sk-ant-api03-", B64URL, 93, "AA"), True),
    "anthropic_admin_key": ("x-api-key", _prefixed("sk-ant-admin01-", B64URL, 93, "AA"), True),
    "huggingface_token": ("hf_token", _prefixed("hf_", string.ascii_letters, 34), True),
    "huggingface_org_token": ("token", _prefixed("api_org_", string.ascii_letters, 34), True),
    "groq_key": ("api_key", _prefixed("gsk_", ALNUM, 52), True),
    "replicate_token": ("api_token", _prefixed("r8_", ALNUM, 37), True),
    "perplexity_key": ("api_key", _prefixed("pplx-", ALNUM, 48), True),
    "xai_key": ("api_key", _prefixed("xai-", ALNUM, 80), True),
    # messaging, email
    "twilio_api_key": ("api_key", _prefixed("SK", HEX, 32), True),
    "twilio_auth_token": ("auth_token", _prefixed("", HEX, 32), True),
    "sendgrid_key": ("api_key", lambda rng: ("SG." + (p := _mixed(rng, B64URL, 22) + "." + _mixed(rng, B64URL, 43)), p), True),
    "mailgun_key": ("api_key", _prefixed("key-", HEX, 32), True),
    "mailchimp_key": ("apikey", lambda rng: ((p := _rand(rng, HEX, 32)) + f"-us{rng.randint(1, 20)}", p), True),
    "brevo_key": ("api-key", lambda rng: ("xkeysib-" + (p := _rand(rng, HEX, 64) + "-" + _mixed(rng, ALNUM, 16)), p), True),
    # tokens by structure
    "jwt_hs256": ("id_token", lambda rng: _jwt(rng, b'{"alg":"HS256","typ":"JWT"}'), True),
    "jwt_spaced_header": ("token", lambda rng: _jwt(rng, b'{ "alg": "RS256", "typ": "JWT" }'), True),
    "jwt_newline_header": ("jwt", lambda rng: _jwt(rng, b'{\n  "alg": "ES256",\n  "kid": "k1"\n}'), True),
    "pem_rsa_private_key": ("private_key", lambda rng: _pem(rng, "RSA PRIVATE KEY"), True),
    "pem_ec_private_key": ("private_key", lambda rng: _pem(rng, "EC PRIVATE KEY", 3), True),
    "pem_openssh_private_key": ("ssh_key", lambda rng: _pem(rng, "OPENSSH PRIVATE KEY", 7), True),
    "pem_encrypted_private_key": ("key", lambda rng: _pem(rng, "ENCRYPTED PRIVATE KEY", 8), True),
    "pgp_private_key": ("private_key", lambda rng: _pem(rng, "PGP PRIVATE KEY BLOCK", 9), True),
    "age_secret_key": ("age_key", _age, True),
    "basic_auth_header": ("authorization", _basic, True),
    "bearer_opaque_token": ("access_token", _prefixed("", B64URL, 40), True),
    # URLs with credentials
    "url_basic_auth": ("url", _url_password("https://deploy:{pw}@api.example.com/v1/hooks"), True),
    "postgres_url": ("database_url", _url_password("postgresql://app:{pw}@db.internal:5432/prod"), True),
    "mysql_url": ("dsn", _url_password("mysql://root:{pw}@10.0.0.12:3306/shop"), True),
    "mongodb_url": ("mongo_uri", _url_password("mongodb+srv://admin:{pw}@cluster0.ab1cd.mongodb.net/app?retryWrites=true"), True),
    "redis_url": ("redis_url", _url_password("redis://:{pw}@cache.internal:6379/0"), True),
    "amqp_url": ("broker_url", _url_password("amqp://worker:{pw}@mq.internal:5672/jobs"), True),
    # sessions
    "express_session_cookie": ("connect.sid", _express_sid, True),
    "php_session_cookie": ("PHPSESSID", _prefixed("", LOWER, 26), True),
    "django_session_cookie": ("sessionid", _prefixed("", LOWER, 32), True),
    "rails_session_cookie": ("_shop_session", _rails, True),
    "aspnet_auth_cookie": (".AspNetCore.Cookies", _prefixed("CfDJ8", B64URL, 200), True),
    # registries, platforms
    "npm_token": ("npm_token", _prefixed("npm_", ALNUM, 36), True),
    "pypi_token": ("password", _prefixed("pypi-AgEIcHlwaS5vcmc", B64URL, 70), True),
    "rubygems_key": ("api_key", _prefixed("rubygems_", HEX, 48), True),
    "shopify_access_token": ("X-Shopify-Access-Token", _prefixed("shpat_", HEX, 32), True),
    "vault_token": ("X-Vault-Token", _prefixed("hvs.", B64URL, 90), True),
    "doppler_token": ("token", _prefixed("dp.pt.", ALNUM, 43), True),
    "linear_key": ("api_key", _prefixed("lin_api_", ALNUM, 40), True),
    "databricks_token": ("token", _prefixed("dapi", HEX, 32), True),
    "grafana_cloud_token": ("token", _prefixed("glc_", B64, 60), True),
    "new_relic_key": ("Api-Key", _prefixed("NRAK-", UPPER, 27), True),
    "postman_key": ("x-api-key", lambda rng: ("PMAK-" + (p := _rand(rng, HEX, 24) + "-" + _rand(rng, HEX, 34)), p), True),
    "notion_token": ("token", _prefixed("ntn_", ALNUM, 46), True),
    "airtable_pat": ("token", lambda rng: ((p := "pat" + _mixed(rng, ALNUM, 14) + "." + _rand(rng, HEX, 64)), p[3:]), True),
    "figma_token": ("X-Figma-Token", _prefixed("figd_", B64URL, 40), True),
    "datadog_api_key": ("DD-API-KEY", _prefixed("", HEX, 32), True),
    "cloudflare_api_token": ("api_token", _prefixed("", B64URL, 40), True),
    "okta_api_token": ("authorization", lambda rng: ("SSWS " + (p := "00" + _mixed(rng, B64URL, 40)), p), True),
    "meta_access_token": ("access_token", _prefixed("EAA", ALNUM, 160), True),
    "mapbox_secret_token": ("access_token", _mapbox, True),
    "algolia_admin_key": ("X-Algolia-API-Key", _prefixed("", HEX, 32), True),
    # by name only: nothing in the value tells it from any other word
    "password": ("password", _password, False),
    "passphrase": ("passphrase", _password, False),
    "pin_code": ("pin", _pin, False),
    "otp_code": ("otp", _pin, False),
    "heroku_api_key": ("HEROKU_API_KEY", _uuid_key, False),
}


_URL_PASSWORDS = frozenset(("url_basic_auth", "postgres_url", "mysql_url", "mongodb_url", "redis_url", "amqp_url"))


def secrets(per_format: int = PER_FORMAT) -> list[Secret]:
    """The corpus: `per_format` fresh credentials of each format, from a fixed seed."""
    rng = random.Random(SEED)
    out = []
    for fmt, (name, make, shaped) in FORMATS.items():
        for _ in range(per_format):
            value, part = make(rng)
            out.append(Secret(fmt, value, part, name, shaped, splits=fmt not in _URL_PASSWORDS))
    return out


# --------------------------------------------------------------------------- syntaxes

ZWSP = "\u200b"


def _php_str(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _ruby_str(s: str) -> str:
    return json.dumps(s)


def _u_escaped(s: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in s)


def _zero_width(s: str) -> str:
    return ZWSP.join(s[i : i + 4] for i in range(0, len(s), 4))


def _split(s: str, sep: str) -> str:
    return sep.join(s[i : i + 6] for i in range(0, len(s), 6))


def _header_name(name: str) -> str:
    lowered = name.lower()
    if lowered in ("authorization", "x-api-key", "x-vault-token", "x-shopify-access-token", "dd-api-key", "api-key", "x-figma-token", "x-algolia-api-key"):
        return name
    return "X-" + "-".join(p.capitalize() for p in name.replace(".", "_").replace("-", "_").split("_") if p)


Syntax = Callable[[Secret], str]

SYNTAXES: dict[str, tuple[Syntax, bool]] = {
    # name: (embed, needs a shaped value: carries the value with no name)
    "json": (lambda s: json.dumps({"error": {"message": "request refused", "type": "invalid_request_error", s.name: s.value}}), False),
    "nested_json": (lambda s: json.dumps({"errors": [{"status": "401", "meta": {"request": {"headers": {s.name: s.value}}}}]}), False),
    "escaped_json": (lambda s: json.dumps({"error": json.dumps({"upstream": {s.name: s.value, "ok": False}})}), False),
    "php_var_export": (lambda s: f"array (\n  'status' => 401,\n  {_php_str(s.name)} => {_php_str(s.value)},\n)", False),
    "php_print_r": (lambda s: f"Array\n(\n    [status] => 401\n    [{s.name}] => {s.value}\n)\n", False),
    "ruby_inspect": (lambda s: '{"status"=>401, ' + _ruby_str(s.name) + "=>" + _ruby_str(s.value) + "}", False),
    "python_repr": (lambda s: repr({"status": 401, s.name: s.value}), False),
    "bytes_repr": (lambda s: repr(f"{s.name}={s.value}".encode()), False),
    "yaml": (lambda s: f"status: 401\n{s.name}: {s.value}\nretry: false\n", False),
    "yaml_list": (lambda s: f"credentials:\n  - {s.value}\n  - {s.value[::-1]}\n", False),
    "xml_element": (lambda s: f"<error><code>401</code><{s.name.strip('.')}>{html.escape(s.value)}</{s.name.strip('.')}></error>", False),
    "xml_attribute": (lambda s: f'<auth user="svc" {s.name.strip(".")}="{html.escape(s.value)}"/>', False),
    "form": (lambda s: urllib.parse.urlencode({"grant_type": "client_credentials", s.name: s.value, "scope": "read"}), False),
    "percent_encoded": (lambda s: "error=" + urllib.parse.quote(f"upstream refused {s.name}={s.value}", safe=""), False),
    "http_header": (lambda s: f"HTTP/1.1 401 Unauthorized\r\n{_header_name(s.name)}: {s.value}\r\nContent-Type: text/plain\r\n", False),
    "cookie_header": (lambda s: f"Cookie: theme=dark; lang=en; {s.name}={urllib.parse.quote(s.value, safe='')}; consent=yes", False),
    "set_cookie": (lambda s: f"Set-Cookie: {s.name}={urllib.parse.quote(s.value, safe='')}; Path=/; HttpOnly; Secure", False),
    "url_query": (lambda s: f"GET https://api.example.com/v1/items?page=2&{s.name}={urllib.parse.quote(s.value, safe='')} failed", False),
    "markdown_link": (lambda s: f"see [{s.name}]({s.value}) in the config", False),
    "colon_spaces": (lambda s: f"{s.name}:          {s.value}", False),
    "fullwidth_colon": (lambda s: f"{s.name}\uff1a{s.value}", False),
    "html_entities": (lambda s: html.escape(json.dumps({s.name: s.value}), quote=True), False),
    "unicode_escaped": (lambda s: '{"' + _u_escaped(s.name) + '": "' + _u_escaped(s.value) + '"}', False),
    "zero_width_split": (lambda s: f"{_zero_width(s.name)}={_zero_width(s.value)}", False),
    "prose_named": (lambda s: f"The upstream rejected the {s.name} {s.value} for this account.", False),
    # The value with no name: only a value that can be told from data.
    "prose": (lambda s: f"Request failed: upstream said {s.value} is not valid for this account.", True),
    "url_path": (lambda s: f"Cannot POST /bot{s.value}/sendMessage", True),
    "split_dash": (lambda s: f"upstream refused {_split(s.value, '-')}", True),
    "split_underscore": (lambda s: f"{s.name}={_split(s.value, '_')}", False),
    "split_slash": (lambda s: f"path /keys/{_split(s.value, '/')}/rotate", True),
}


def syntaxes_for(secret: Secret) -> Iterator[tuple[str, str]]:
    """(syntax, text) for each syntax that applies to `secret`."""
    for name, (embed, needs_shape) in SYNTAXES.items():
        if needs_shape and not secret.shaped:
            continue
        if name.startswith("split_") and not secret.splits:
            continue
        yield name, embed(secret)
