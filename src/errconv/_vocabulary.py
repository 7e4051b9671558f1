"""What services errconv has no dialect for call things: the tables the general reader
(`errconv.dialects.general`) reads a body by, written once, like `codes.py`.

Two kinds of table:

- member names for each fact (status, code, message, parameter, delay, a stated
  next step) and the containers they nest in, as real services spell them;
- `CODE_WORDS`: the words of a code (or, more weakly, of a message) mapped to the move
  a careful engineer makes on them, whatever the status says: a throttle sent as 400
  is a wait, a 429 whose monthly cap is spent is give_up. `PERIODS` decides a quota:
  one that refills within the minute is a wait, one that refills tomorrow, next month
  or on a plan change is give_up.

Every row with a surprise has a comment saying why. Nothing here knows a wire format.
"""

from __future__ import annotations

import re

from .codes import REASON_PHRASES, Code, NextStep

__all__ = [
    "CODE_MEMBERS",
    "CODE_WORDS",
    "CONTAINERS",
    "ENTRY_PARAM_MEMBERS",
    "DELAY_MEMBERS",
    "LIST_MEMBERS",
    "MESSAGE_MEMBERS",
    "PARAM_MEMBERS",
    "PERIODS",
    "RETRYABLE_MEMBERS",
    "STATUS_MEMBERS",
    "STEP_MEMBERS",
    "STEP_PHRASES",
    "Meaning",
    "is_generic",
    "is_strong",
    "status_in_prose",
    "status_stated",
    "step_stated",
    "meaning_of",
    "names_long_period",
    "period_of",
    "words",
]

_WAIT, _FIX, _GIVE_UP = NextStep.WAIT, NextStep.FIX_REQUEST, NextStep.GIVE_UP

# --------------------------------------------------------------------------- member names
# Each tuple is in order of trust: the first member found wins.

# The HTTP status, as an integer or a string of three digits.
STATUS_MEMBERS = (
    "status", "statusCode", "status_code", "StatusCode", "httpStatus", "http_status", "httpStatusCode",
    "http_status_code", "httpCode", "http_code", "HTTPStatus", "http", "Status", "statuscode", "HTTPStatusCode",
    # openHAB's `http-code`; OpenWeatherMap's `cod` (its spelling: `{"cod": 429, "message": ...}`).
    "http-code", "cod",
    # An integer `code` or `error_code` of 400 to 599 is the status more often than not
    # (`{"code": 404, "message": "Not Found"}`, Telegram's `{"error_code": 429}`): read as
    # the status when nothing above names one, and then no code (it only mirrors the
    # status). Beside another status it is the service's code (Postmark's 505 at 422), and
    # outside 400 to 599 always (Zoom's 124, Binance's -1021).
    "code", "error_code", "errorCode",
    # An integer `error` of 400 to 599 likewise (Icinga 2's {"error": 404, "status": "No
    # objects found."}); a token there is the code, a sentence the message.
    "error",
)  # fmt: skip

# The service's own machine code. `type`, `name` and `kind` only when they hold a token
# (no spaces): JavaScript errors serialise `name` ("ValidationError"), and many servers
# put the error class in `type`; a URI there is RFC 9457's, not a code.
CODE_MEMBERS = (
    # `Code` capitalised, as .NET serialisers write it (Monzo's `{"Code":
    # "bad_request.consent_status"}`, beside Errors[].ErrorCode, which only details it).
    "code", "Code",
    # A named tag beside a numbered code (Todoist's "error_tag": "LIMITS_REACHED" beside
    # "error_code": 35): the name says which error; the number only indexes it.
    "error_tag", "errorTag",
    "error_code", "errorCode", "ErrorCode", "err_code", "errCode",
    # `error` as a token (`{"error": "not_found", "reason": "..."}`, CouchDB's and npm's) is
    # the code; as a sentence it is the message.
    "error",
    # Dropbox's `error_summary` ("path/not_found/..") is a code written as a path.
    "error_summary",
    # A `reason` token says which error of the family a `type` names: GoCardless's
    # errors[].reason "rate_limit_exceeded" under type "invalid_api_usage", Reddit's
    # reason "SUBMIT_VALIDATION_BODY_BLACKLISTED_STRING" beside error_type
    # "SUBMIT_VALIDATION_ERROR", as Google's ErrorInfo.reason under its status. After
    # `error`, whose token CouchDB's reason ("missing") only qualifies.
    "reason",
    "error_type", "errorType",
    # The class of the exception the server raised (TfL's "exceptionType": "ApiException",
    # Liquid Web's "error_class": "LW::Exception::DuplicateRecord").
    "exceptionType", "exception_type", "error_class", "errorClass",
    # Capitalised, as Loqate writes it ([{"Error": "8", "Description": ...}]).
    "Error",
    "type", "Type",
    # `name` only when it names an error class (PayPal's INSTRUMENT_DECLINED, a
    # JavaScript ValidationError): elsewhere it is a field's or a resource's name.
    "error_name", "name", "kind", "subcode", "sub_code", "error_subcode", "status_text", "statusText",
    "error_id", "errorId",
    # Bitly's v3 `status_txt` beside its `status_code`; spellings of a service's error
    # number (`err-code` Huobi's, `errcode` WeChat's and DingTalk's, `errorNum` ArangoDB's,
    # `retCode` Bybit's, `errno`); Gate.io's `label` ("INVALID_KEY").
    "status_txt", "statusTxt", "err-code", "errcode", "errorcode", "errorNum", "error_num", "errno", "retCode", "ret_code",
    "returnCode", "return_code", "label",
    # A result code beside a message (Naver's `"resultcode": "024"`; all zeros is success).
    "resultcode", "resultCode", "result_code",
    # Kotak Neo's `stCode` (100022 beside its errMsg): a service's code, whatever "st" abbreviates.
    "stCode",
    # Heroku's and Coinbase's `id` is the code ("rate_limit", "authentication_error"); an
    # `id` with digits is a request's or a record's, never read.
    "id",
    # Pi-hole's {"error": {"key": "rate_limiting", ...}}: a `key` is the code only when its
    # words name an error; elsewhere it names the field at fault (PARAM_MEMBERS).
    "key",
)  # fmt: skip

# Human prose: kept as the detail, read for a delay, and (weakly) for words.
MESSAGE_MEMBERS = (
    "message", "error_description", "errorMessage", "error_message", "ErrorMessage", "Message", "msg", "errorSummary",
    "error_summary", "detail",
    "details", "description", "error_msg", "errorDescription", "title", "reason", "text", "info", "hint",
    # Deepgram's err_msg, Vonage's error_text and status_message, Reddit's explanation
    # (beside a `message` that is only the reason phrase).
    "err_msg", "errMsg", "error_text", "error-text", "errorText", "status_message", "statusMessage", "explanation",
    # Huobi's err-msg, WeChat's errmsg, Bybit's retMsg, Alpha Vantage's Note and Information.
    "err-msg", "errmsg", "retMsg", "ret_msg", "returnMsg", "return_msg", "Note", "Information", "note",
    # With a space, as Alpha Vantage and Financial Modeling Prep write it ({"Error Message": ...});
    # Excedo's `desc`, Liquid Web's `full_message`, Loqate's `Description`.
    "Error Message", "desc", "full_message", "Description",
)  # fmt: skip

# The parameter at fault: a field name, a JSON Pointer, or a path.
PARAM_MEMBERS = (
    "param", "parameter", "field", "fieldName", "field_name", "property", "propertyName", "property_name",
    "attribute", "path", "loc", "location", "pointer", "key", "argument", "arg", "source",
    # Scaleway's details[].argument_name; Zoho's details.api_name (the field's API name).
    "argument_name", "argumentName", "api_name",
    # A list of the fields at fault (Reddit's `"fields": ["title"]`, Excedo's `"missing":
    # ["domainname", ...]`): the first.
    "fields", "missing",
)  # fmt: skip

# A delay, in seconds unless the name says milliseconds. `estimated_time` is Hugging
# Face's model loading ("Model is currently loading"), in seconds.
DELAY_MEMBERS: tuple[tuple[str, float], ...] = (
    ("retry_after", 1.0), ("retryAfter", 1.0), ("retry_after_seconds", 1.0), ("retryAfterSeconds", 1.0),
    ("RetryAfter", 1.0), ("retry-after", 1.0), ("retry_in", 1.0), ("retryIn", 1.0), ("retry_in_seconds", 1.0),
    ("retry_after_ms", 0.001), ("retryAfterMs", 0.001), ("retry_after_millis", 0.001), ("retryAfterMillis", 0.001),
    ("retry_delay", 1.0), ("retryDelay", 1.0), ("wait_seconds", 1.0), ("waitSeconds", 1.0), ("wait", 1.0),
    ("estimated_time", 1.0), ("estimatedTime", 1.0), ("cooldown", 1.0), ("backoff", 1.0), ("backoff_seconds", 1.0),
    ("reset_after", 1.0), ("resetAfter", 1.0), ("seconds_until_reset", 1.0), ("secondsUntilReset", 1.0),
    ("retry_after_secs", 1.0), ("retryAfterSecs", 1.0), ("wait_time", 1.0), ("waitTime", 1.0), ("reset_in", 1.0),
    ("resetIn", 1.0), ("reset_in_seconds", 1.0), ("time_to_reset", 1.0), ("timeToReset", 1.0),
    ("retry_in_ms", 0.001), ("retryInMs", 0.001), ("retry_delay_ms", 0.001), ("retryDelayMs", 0.001),
    ("backoff_ms", 0.001), ("wait_ms", 0.001),
    # When to come back, as a time: epoch seconds (or milliseconds: any number within a
    # year of the clock once past 10**9 is a time, not a delay), RFC 3339, or an HTTP-date.
    ("retry_at", 1.0), ("retryAt", 1.0), ("reset_at", 1.0), ("resetAt", 1.0), ("resets_at", 1.0),
    ("available_at", 1.0), ("availableAt", 1.0),
)  # fmt: skip

# A next step the body states in its own words (errconv's and seed 000's vocabulary:
# fix_request, wait, give_up, invalid_request, transient, terminal).
STEP_MEMBERS = ("next_step", "nextStep", "class", "action")
# Whether the failure is worth retrying: true says wait; false says the same call fails again.
RETRYABLE_MEMBERS = (
    "retryable", "retriable", "isRetryable", "is_retryable", "isRetriable", "should_retry", "shouldRetry",
    "transient", "isTransient", "is_transient", "temporary", "can_retry", "canRetry", "is_retriable",
)  # fmt: skip

# Where the members above nest: `{"error": {...}}`, `{"errors": [{...}]}`, `{"data":
# {"error": ...}}`, `{"parameters": {"retry_after": 3}}` (Telegram's ResponseParameters).
CONTAINERS = (
    "error", "errors", "error_details", "errorDetails", "fault", "Error", "data", "response", "meta", "parameters",
    # Capitalised, as .NET and SOAP-minded services write them ({"Fault": {"Error": [...]}}).
    "Fault", "Errors",
    # Musixmatch's {"message": {"header": {"status_code": 401, "hint": "renew"}}}.
    "message", "header",
    # What a service adds beside its error: Todoist's error_extra.retry_after, ViCare's
    # extendedPayload.reason.
    "error_extra", "errorExtra", "extendedPayload", "extended_payload",
    "extensions", "details", "detail", "body", "result", "info", "validationResults",
    # A rate limiter's own block ({"rate_limit": {"retry_after": 3}}).
    "rate_limit", "ratelimit", "rateLimit", "throttle", "limit",
    # Box's context_info: {"errors": [{"name": "parent", "reason": "missing_parameter"}]}.
    "context_info", "contextInfo",
    # System metadata beside the message: Contentful's {"sys": {"type": "Error", "id": "NotFound"}}.
    "sys",
    # MercadoLibre's and Mercado Pago's {"error": "bad_request", "cause": [{"code": 2061, ...}]}:
    # the cause's code is the specific one beneath a status word.
    "cause",
    # Beget's {"status": "success", "answer": {"status": "error", "errors": [...]}}.
    "answer",
)  # fmt: skip
# Lists of errors (each an object or a string), read as violations when they name fields.
LIST_MEMBERS = (
    "errors", "details", "violations", "invalid_params", "invalid-params", "fieldErrors", "field_errors",
    "validationErrors", "validation_errors", "validationResults", "issues", "problems", "messages", "errorCauses",
)  # fmt: skip
# Inside one entry of such a list, `name` is the field (HubSpot's validationResults).
# Salesforce names them in a list, `fields`: the first is the one at fault.
ENTRY_PARAM_MEMBERS = (*PARAM_MEMBERS, "name", "propertyName", "fields")

# --------------------------------------------------------------------------- words of a code


def words(text: str) -> str:
    """A code or a message as lower-case words separated by single spaces:
    `rateLimitExceeded`, `RATE_LIMIT_EXCEEDED` and `rate-limit exceeded` all give
    `rate limit exceeded`.

    A link's words are not the message's ("see .../documentation/v3/rate_limiting" beside
    Yelp's "You've reached the access limit"): links are left out.

    >>> words("ERR_InsufficientFunds.Account")
    'err insufficient funds account'
    >>> words("Limit reached. See https://example.com/docs/rate_limiting")
    'limit reached see'
    """
    text = _URL.sub(" ", text[:512]) if "://" in text else text[:512]
    text = _CAMEL.sub(r"\1 \2", text)
    text = _ACRONYM.sub(r"\1 \2", text)
    return " ".join(_NON_WORD.split(text.lower())).strip()


_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,15}://\S*")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_ACRONYM = re.compile(r"([A-Z])([A-Z][a-z])")
_NON_WORD = re.compile(r"[^a-z0-9]+")


class Meaning:
    """What a code's words mean: the move, the gRPC code, the HTTP status a body that
    states none is taken to have, and the row's name (for notes and explain)."""

    __slots__ = ("step", "grpc", "status", "name")

    def __init__(self, step: NextStep | None, grpc: Code, status: int, name: str) -> None:
        self.step = step
        self.grpc = grpc
        self.status = status
        self.name = name

    def __repr__(self) -> str:
        return f"Meaning({self.name}: {self.step})"


def _row(pattern: str, step: NextStep | None, grpc: Code, status: int, name: str) -> tuple[re.Pattern[str], Meaning]:
    return re.compile(pattern), Meaning(step, grpc, status, name)


# The periods a quota refills over. A quota for a long period is give_up: the same call
# fails until tomorrow, next month or a plan change, longer than any caller sleeps
# (MAX_RETRY_AFTER_SECONDS is a day, and a daily cap spent at noon outlasts the day).
PERIODS: tuple[tuple[re.Pattern[str], str, NextStep], ...] = (
    (re.compile(r"\b(?:per |a |each |every |1 )?(?:second|sec|minute|min|hour|hr)s?\b|\b(?:secondly|minutely|hourly|rpm|rps|tpm|qps|burst|concurren\w*)\b|\b(?:try|retry) (?:again )?(?:later|shortly|soon|in a (?:moment|minute|few))\b"), "short", _WAIT),
    # (Half a day or more in hours is a day's window: NewsAPI's "500 requests over a 24 hour
    # period (250 requests available every 12 hours)".)
    (re.compile(r"\b(?:per |a |each |every )?(?:day|month|year|week)s?\b|\b(?:daily|monthly|yearly|annual|annually|weekly|billing (?:period|cycle))\b|\b(?:12|24|36|48|72) ?(?:hours?|hrs?|h)\b"), "long", _GIVE_UP),
    # A cap tied to the plan or the account, not to time: nothing refills it.
    (re.compile(r"\b(?:plan|tier|subscription|free|trial|account|lifetime|total|credits?|upgrade)\b"), "plan", _GIVE_UP),
)


def period_of(text: str) -> tuple[str, NextStep] | None:
    """The period a quota's words (code and message, as `words` gives them) name, and
    the move it means; None when they name none. A long period outranks a short one
    named beside it ("100 per minute, 1000 per day": the day is what ran out only if it
    says so, but waiting a minute cannot be promised either)."""
    found = None
    for pattern, name, step in PERIODS:
        if pattern.search(text):
            found = (name, step)
    return found


def names_long_period(text: str) -> bool:
    """Whether a quota's words name a day, a month or longer (beside a plan or not)."""
    return PERIODS[1][0].search(text) is not None


_QUOTA = r"\b(?:quota|usage (?:cap|limit)|cap (?:reached|exceeded|hit)|(?:monthly|daily|yearly|annual|weekly) (?:limit|cap|allowance)|(?:limit|allowance) (?:reached|exceeded|hit)|exceeded (?:the |your )?(?:\w+ )?(?:limit|allowance)|exceeding (?:of )?(?:the |your )?(?:\w+ )?(?:limit|limitation|allowance)|out of (?:quota|credits|requests))"

# Each row: a pattern over `words()` of a code, the move, the gRPC code, the status a
# body without one is taken to have, and a name. The first row that matches wins, so
# the narrow rows come before the wide ones ("invalid api key" is a credential, not a
# bad parameter; "insufficient quota" is billing, not a rate limit).
CODE_WORDS: tuple[tuple[re.Pattern[str], Meaning], ...] = (
    # Money first: a spent balance is not refilled by waiting (OpenAI's insufficient_quota
    # is billing too, not a rate limit, though sent as 429; 2captcha's ERROR_ZERO_BALANCE).
    _row(r"\binsufficient (?:funds|credits?|balance|quota)\b|\b(?:not enough|no|out of) (?:funds|credits?|balance)\b|\bzero balance\b|\bbalance (?:is )?zero\b|\bbalance (?:too low|insufficient|exhausted)|\b(?:credits?|balance) (?:exhausted|depleted|exceeded)\b|\bpayment (?:required|failed|declined|overdue)\b|\bcard declined\b|\bdeclined\b", _GIVE_UP, Code.FAILED_PRECONDITION, 402, "insufficient funds"),
    _row(r"\bbudget (?:has been |is )?(?:exceeded|reached|exhausted|spent)\b|\bover (?:the |your )?budget\b|\bexceeds? (?:the |your )?(?:\w+ )?budget\b|\bspend(?:ing)? limit\b|\bbilling\b|\bsubscription (?:required|expired|inactive|cancell?ed)\b|\bupgrade (?:your |the )?(?:plan|account|subscription)\b|\bplan (?:limit|restriction)\b|\bnot (?:included|available) (?:in|on) (?:your|the) plan\b|\bpaid plan\b|\b(?:active|paid|premium|pro) (?:\w+ ){0,2}subscription\b", _GIVE_UP, Code.FAILED_PRECONDITION, 402, "billing"),
    # Storage: freeing space is the caller's business, not the clock's (a 409 or 507).
    _row(r"\b(?:insufficient|not enough|no|out of) (?:\w+ )?(?:space|storage|disk)\b|\b(?:storage|disk|space) (?:\w+ )?(?:full|exceeded|exhausted|limit|quota)\b|\bquota (?:exceeded )?(?:for )?(?:storage|disk)\b", _GIVE_UP, Code.RESOURCE_EXHAUSTED, 507, "out of space"),
    # A signed request's clock (Binance's -1021 "Timestamp for this request was 1000ms ahead
    # of the server's time"): re-sign with the right time. Before the credential rows'
    # words would not help: this names no credential.
    _row(r"\btimestamp\b.*\b(?:ahead of|behind|outside)\b|\brecv ?window\b|\bclock skew\b|\b(?:invalid|bad|wrong|stale|used) nonce\b|\bnonce (?:is )?(?:too (?:small|low)|invalid|must|already used|reused)\b|\b(?:request )?timestamp (?:has |is )?(?:expired|too old|too far)\b", _FIX, Code.INVALID_ARGUMENT, 400, "request clock"),
    # A password that breaks policy is sent as 403 by some identity services: the request
    # can be fixed (another password), which a 403 alone would never say.
    _row(r"\bpassword\b.*\b(?:policy|weak|strength|short|long|complex\w*|requirements?|history|common|breached|pwned|invalid|mismatch)\b|\b(?:weak|invalid) password\b", _FIX, Code.INVALID_ARGUMENT, 400, "password policy"),
    # A field the request names that the service does not have (Jira's "Field 'resolution'
    # does not exist or you do not have permission to view it"): the request is wrong, before
    # the not-found and permission rows its words would also match.
    # (Also "No such column 'foo'" (Salesforce's), "external ID field does not exist: rid", and
    # "Field 'x' is not supported", TeamCity's at 404: the field is wrong, not the record.)
    _row(r"\b(?:field|parameter|param|property|column|attribute|argument|option)s? [`'\"]?[a-z0-9_.\[\]-]+[`'\"]? (?:does ?n[o' ]?t exist|is unknown|not found|is not (?:a )?(?:valid|known|recogni[sz]ed|supported))\b|\bno such (?:column|field|parameter|param|property|attribute|argument|option)\b|\b(?:field|column|parameter|property) (?:does ?n[o' ]?t exist|not found)\b", _FIX, Code.INVALID_ARGUMENT, 400, "unknown field"),
    # A part the request left out, named ("No valid crumb was included in the request",
    # Jenkins' CSRF header at 403): the request must carry it, whatever status carried it.
    _row(r"\b(?:no valid|no|missing(?: required)?) [a-z][a-z0-9_-]{1,40} (?:was |were )?(?:included|provided|supplied|given|specified|sent) (?:in|with) the request\b", _FIX, Code.INVALID_ARGUMENT, 400, "missing argument"),
    # Content a word list refuses (Reddit's BODY_BLACKLISTED_STRING): other words pass, so
    # the request is to change, not the caller's rights.
    # (A moderation filter's refusal, Stability AI's "Your request was flagged by our content
    # moderation system": other content passes it.)
    _row(r"\b(?:blacklist\w*|blocklist\w*|banned|prohibited|forbidden|disallowed) (?:string|word|words|phrase|content|text|characters?|terms?)\b|\bcontent (?:moderation|filter|policy)\b|\bflagged by\b", _FIX, Code.INVALID_ARGUMENT, 400, "refused content"),
    # A URL the service does not route (Contentful's UnknownRoute, an API version it no
    # longer serves): the caller built the request wrong; the resource is not missing.
    _row(r"\bunknown (?:route|endpoint|path|url|uri|method|action|api)\b|\bno (?:such )?route\b|\b(?:invalid|unknown|unsupported) api version\b", _FIX, Code.INVALID_ARGUMENT, 404, "unknown endpoint"),
    # Credentials: an agent cannot mint a new key, so every one of these is give_up.
    # (A key or token named with its owner, Pastebin's "invalid api_dev_key", Pushover's
    # "application token is invalid", Tuya's "token invalid", an "Invalid session" of a login
    # (not Transmission's "invalid session-id header": a header the request must carry), and
    # an "Invalid appid" (Wolfram|Alpha's): a credential, not a field to mend. Not a key of a
    # document, Tenable's "invalid key format", Rocket.Chat's "Unknown key in field", nor a
    # payment card's token, PagSeguro's "Credit card token is invalid".)
    _row(r"\b(?:token|session|credentials?|key|signature|jwt|cookie|certificate|license|licence|link|code|otp) (?:has |is |was )?expired\b|\bexpired (?:\w+ )?(?:token|session|credentials?|key|signature|jwt|cookie|certificate|license|licence)\b|\b(?:token|jwt) expired\b", _GIVE_UP, Code.UNAUTHENTICATED, 401, "expired credentials"),
    _row(r"\bunauthori[sz]ed\b(?! to\b)|\bunauthenticated\b|\bnot (?:authenticated|logged in|signed in)\b|\bauthentication\b|\bauth (?:failed|required|error)\b|\b(?:invalid|bad|missing|wrong|incorrect|unknown|revoked|no) (?:(?:api|access|auth|bearer|secret|client|app|private|public|application|session|dev|developer|user|account) ){0,2}(?:keys?\b(?! (?:format|in|name|names|field|fields|value|values|type|length|path|for)\b)|tokens?|credentials?|auth\w*|signature|secret|login|apikey|appid|app ?key)\b|\b(?:invalid|bad|missing|wrong|incorrect|unknown|revoked|no) (?:(?:api|access|auth|bearer|secret|client|app|private|public|application|session|dev|developer|user|account) ){1,2}keys?\b|\b(?:invalid|expired|unknown) session\b(?! (?:id )?(?:header|parameter|param|field|value|name)\b)|\b(?:api|access|auth|bearer|secret|private|app|application|client|user|session|dev|developer) ?(?:keys?|tokens?) (?:is |are |was )?(?:invalid|revoked|missing|not valid|incorrect|wrong|unknown)\b|(?<!card )\b(?:tokens?|app ?id|api ?id) (?:is |are |was )?(?:invalid|revoked|not valid|incorrect|wrong|unknown)\b|\b(?:invalid|bad|wrong|incorrect|unknown) (?:\w+ ){1,3}(?:api key|apikey|access token|secret key|private key)\b|\bapi key\b.*\b(?:invalid|missing|required|not valid|not provided)\b|\blogin (?:required|failed)\b|\bmust (?:be )?(?:logged|signed) in\b|\binvalid client\b|\bno auth\w*\b|\bsignature (?:is )?(?:not valid|invalid|mismatch|does ?n[o' ]?t match|verification failed)\b|\b(?:provided |supplied |your )?credentials? (?:are |is |was |were )?(?:missing|invalid|incorrect|wrong|not valid|revoked)\b", _GIVE_UP, Code.UNAUTHENTICATED, 401, "unauthorized"),
    # Rate limits and throttling: the same call succeeds later. ("too many request", singular,
    # as in SmartThings' TooManyRequestError.)
    # "Too many new orders; current limit is 50 orders per 10 SECOND", "Exceeded 4 calls per
    # second": a count per second or minute is a rate, whatever is counted.
    _row(r"\b(?:calls|requests|queries|operations|orders|messages|attempts|requests? weight)\b (?:per|a|/|every) (?:\d+ )?(?:second|sec|minute|min)s?\b|\btoo many\b.*\bper (?:\d+ )?(?:second|sec|minute|min)s?\b", _WAIT, Code.RESOURCE_EXHAUSTED, 429, "rate limit"),
    _row(r"\brate ?limit\w*|\bratelimit\w*|\brate (?:exceeded|limited)\b|\btoo many (?:requests?|calls|attempts|connections|concurrent|requests? in flight)|\bthrottl\w*|\bslow ?down\b|\brequest limit\b|\brequests? (?:per|a) (?:second|minute)\b|\bconcurren\w* (?:limit|requests)\b|\btoo many (?:\w+ )?(?:requests|calls|operations|writes|reads|visits|hits|queries)\b|\brpm\b|\btpm\b|\bqps\b|\btoo frequent\w*|\b(?:call|calling|request|requests|query|access|api) frequency\b|\bfrequency (?:limit|exceeded|too high)\b|\b(?:requests|calls) too quickly\b|\bmaking requests too (?:quickly|fast)\b|\bonly (?:one|\d+) (?:request|call|operation|query|job)s? (?:\w+ ){0,6}at a time\b", _WAIT, Code.RESOURCE_EXHAUSTED, 429, "rate limit"),
    # ("too_many_write_operations", Dropbox's: a count over a window is a rate limit, not a
    # request that is too big. NetSuite's "Only one request may be made against a session at
    # a time": a cap on concurrency, which clears when the other request ends.)
    # A quota for a period: the period decides (see period_of); the row's step is the
    # default when no period is named, left to the status and the wire.
    _row(_QUOTA, None, Code.RESOURCE_EXHAUSTED, 429, "quota"),
    # A cap on how many of a thing the account may hold (Twitch's "maximum subscriptions with
    # type and condition exceeded" sent as 429, Heroku's "reached your app limit of 100
    # apps"): the clock frees none of them; only removing some or a higher limit does. Not a
    # size ("maximum context length exceeded" is a request to shorten) nor a rate.
    _row(r"\b(?:maximum|max) (?:number of )?(?!(?:rate|requests?|calls?|queries|retries|attempts|context|length|size|tokens?|characters?|bytes|file|payload|body|input|content|upload|value)\b)[a-z]+ (?:\w+ ){0,4}(?:exceeded|reached)\b|\breached (?:the |your )?(?:maximum|max|\w+ limit of \d+)\b|\b(?:limit|maximum) of \d+ [a-z]+ (?:reached|exceeded)\b", _GIVE_UP, Code.RESOURCE_EXHAUSTED, 409, "count cap"),
    # (A device or gateway "offline", ViCare's DEVICE_OFFLINE sent as 400: it reconnects and
    # the same call succeeds, as with a server down. So does a connection the server could not
    # make, Renault's "Failed to forward request to remote service", Netatmo's "failed to
    # connect to server ... ECONNREFUSED".)
    _row(r"\boverload\w*|\bover ?capacity\b|\bcapacity\b|\b(?:server|service|system|backend|upstream) (?:is )?(?:busy|unavailable|overloaded|down)\b|\btemporar\w* (?:unavailable|error|failure|issue|problem)\b|\bservice unavailable\b|\bunavailable\b|\btry (?:again )?later\b|\bbad gateway\b|\bgateway\b|\bupstream\b|\bbusy\b|\b(?:model|engine) (?:is )?(?:currently )?(?:loading|warming|starting)\b|\b(?:is|currently|still) loading\b|\bcold start\b|\bwarming up\b|\bnot ready\b|\b(?:device|gateway|host|server|service|node|backend|hub|controller) (?:is )?offline\b|\b(?:failed|unable) to (?:connect|forward|reach)\b|\bconnection (?:refused|reset|failed|timed out)\b|\becon(?:nrefused|nreset|naborted)\b", _WAIT, Code.UNAVAILABLE, 503, "overloaded"),
    _row(r"\bmaintenance\b|\bdown for\b|\bscheduled downtime\b", _WAIT, Code.UNAVAILABLE, 503, "maintenance"),
    _row(r"\btime ?out\b|\btimed out\b|\btimeout\w*|\bdeadline exceeded\b|\btook too long\b", _WAIT, Code.DEADLINE_EXCEEDED, 504, "timeout"),
    # Permission: the caller holds credentials that do not reach this; asking again as-is
    # fails again, whatever status carried it (a 400 "permission denied" included).
    # ("Developer Inactive", Hotelbeds' whole body for a key whose account was switched off:
    # an inactive account or key, as a deactivated one.)
    _row(r"\bforbidden\b|(?<!parameter )(?<!field )(?<!param )\bpermission\w*|\baccess (?:is )?denied\b|\bdenied\b|\bnot (?:allowed|permitted|authori[sz]ed)\b|\bunauthori[sz]ed to\b|\binsufficient (?:scopes?|privileges?|permissions?|rights|access)\b|\bmissing (?:scopes?|permissions?)\b|\b(?:required|needed|necessary) scopes?\b|\bscopes? (?:required|missing|not granted)\b|\bout of scope\b|\bno access\b|\bprohibited\b|\brestricted\b|\bblocked\b|\bbanned\b|\bblacklist\w*|\bsuspended\b|\bdisabled\b|\bdeactivated\b|\b(?:account|developer|user|key|app|application|client|member) (?:is )?inactive\b|\binactive (?:account|developer|user|key|app|application|client)\b|\bnot verified\b|\bunverified\b", _GIVE_UP, Code.PERMISSION_DENIED, 403, "forbidden"),
    _row(r"\bnot found\b|\bnotfound\b|\bno such\b|\bdoes ?n[o' ]?t exist\b|\bdoes not exists?\b|\bnon ?existent\b|\bunknown (?:resource|object|user|account|channel|chat|model|repository|repo|project|item|record|id)\b|\bno (?:\w+ )?(?:with|for) (?:the )?(?:given |that |this )?(?:id|name)\b|\bgone\b|\b(?:has been |was )?deleted\b", _GIVE_UP, Code.NOT_FOUND, 404, "not found"),
    # The thing asked for is already under way or done, or the state it asks for already
    # holds (Postmark's "This DKIM is already being renewed", "captioning is already
    # enabled", a crate version "already uploaded", Mastodon's "already voted", Buildkite's
    # agent "already paused"): asking again changes nothing, and the request is not wrong.
    _row(r"\balready (?:being \w+|in progress|underway|under way|running|queued|scheduled|pending|(?:been )?(?:sent|processed|renewed|started|applied|verified|confirmed|completed|done|paid|refunded|captured|active|enabled|disabled|activated|deactivated|sticky|uploaded|published|submitted|subscribed|set|paused|resumed|voted|redeemed|claimed|merged|resolved|accepted|approved|joined|followed))\b", _GIVE_UP, Code.FAILED_PRECONDITION, 409, "already done"),
    # A name already taken: another name fixes the request (as GitHub's already_exists is read).
    _row(r"\balready (?:exists?|taken|in use|registered|used|defined|present|created)\b|\bexists already\b|\bduplicate\w*|\bnot unique\b|\buniqueness\b|\bunique (?:constraint|violation)\b|\bconflicts? with (?:an )?existing\b", _FIX, Code.ALREADY_EXISTS, 409, "already exists"),
    # A record in a state no request changes: closed, locked, archived, cancelled.
    _row(r"\b(?:is |was |has been |already )?(?:closed|locked|archived|frozen|finali[sz]ed|cancell?ed|terminated|expired|completed|immutable|read ?only)\b|\bno longer\b", _GIVE_UP, Code.FAILED_PRECONDITION, 409, "closed or locked"),
    # A family code for "the record's state does not allow this" (GoCardless's invalid_state):
    # the state is the server's, not the request's.
    # ("Invalid State Code", USPS's: a state's code is a region's, a field of the request.)
    _row(r"\b(?:invalid|wrong|incorrect|illegal) (?:\w+ )?state\b(?! (?:code|abbreviation|name)\b)|\bstate (?:does not|doesn t) allow\b|\bprevents? (?:\w+ )?(?:update|change|edit)\b", _GIVE_UP, Code.FAILED_PRECONDITION, 409, "invalid state"),
    # Work on the same thing under way: the identical call goes through once it is done.
    _row(r"\bin progress\b|\bbeing (?:processed|updated|modified|created|deleted)\b|\bnot (?:yet )?(?:ready|finished|complete)\b|\btry again (?:shortly|soon)\b", _WAIT, Code.ABORTED, 409, "in progress"),
    # A conflict with the resource's state (a stale version, an etag, a rival edit): the
    # identical call fails again; the caller re-reads and sends a request that fits.
    _row(r"\bconflict\w*\b|\bconcurrent (?:modification|update|change)s?\b|\bversion mismatch\b|\bstale\b|\betag\b|\bprecondition failed\b|\bmodified since\b", _FIX, Code.ABORTED, 409, "conflict"),
    _row(r"\bnot implemented\b|\bunimplemented\b|\bnot supported\b|\bunsupported (?:method|operation|endpoint|api|version)\b|\bdeprecated\b|\bmethod not allowed\b|\bno longer supported\b", _GIVE_UP, Code.UNIMPLEMENTED, 501, "not implemented"),
    # The request itself is wrong: change it. ("not enough" here is of what the request
    # carried, QuestDB's "not enough lines": funds, space and permissions have their rows above.
    # "Not provided" is a part left out, FYERS' "recaptcha token is not provided"; "bad" and
    # a noun, MEXC's "bad symbol", a value refused: a bad gateway or credential is read above.)
    _row(r"\binvalid\w*|\bmissing\b|\bnot enough\b|\brequired\b|\bmalformed\b|\bvalidation\b|\bvalidat\w+ (?:error|failed|failure)\b|\bbad request\b|\bunprocessable\b|\bmust (?:be|have|not|contain|include)\b|\bnot (?:a )?valid\b|\bunknown (?:field|parameter|param|argument|property|option|key|attribute|value)s?\b|\bunrecognized\b|\bunsupported\b|\btoo (?:long|short|large|big|small|many|few)\b|\bout of (?:range|bounds)\b|\bexceeds? (?:the )?(?:max\w*|min\w*|limit|length|size)\b|\bparse\w*|\bsyntax\b|\bwrong (?:type|format|value)\b|\bcannot be (?:empty|blank|null)\b|\bblank\b|\bempty\b|\bformat\b|\bbad (?:param\w*|argument|input|value|data|json)\b|\bincorrect\b|\bmismatch\b|\bnot (?:allowed|accepted) (?:value|character)s?\b|\billegal\b|\bunexpected (?:field|parameter|value|token)\b|\b(?:should|must|please) (?:specify|provide|supply|include|add|pass)\b|\bpayload too large\b|\bentity too large\b|\bcontent too large\b|\bnot (?:provided|supplied|specified)\b|\bbad [a-z]+\b|\b(?:cannot|can ?not|can t) (?:load|fetch|return|request|get|process|select) more than \d+\b|\b(?:value|parameter|argument|input) (?:is |are )?wrong\b|\bunknown (?!(?:error|errors|exception|failure|reason|issue|problem|cause)\b)[a-z]+\b", _FIX, Code.INVALID_ARGUMENT, 400, "invalid request"),
    # A bug on the server's side: no move of its own. The status decides (500 is give_up,
    # AIP-194; a 503 that says "internal error" is still unavailable); a body without a
    # status is taken to be a 500.
    _row(r"\binternal (?:server )?error\b|\binternal\b|\bunexpected (?:error|exception)\b|\bserver error\b|\bunknown error\b|\bpanic\b|\bexception\b", None, Code.INTERNAL, 500, "internal error"),
)


# A next step the prose states outright, over `words()` of a message: an instruction to the
# caller, not a description of what went wrong. It outranks a code's words and the wire
# (its basis stays inferred: prose, not a member): a RESOURCE_ACCESS_DENIED "Server busy, please
# try again later" is a wait; a 500 "Please wait a moment and try your request again" is
# a wait, though a 500 alone is give_up; "Access is denied. Retrying will not help" is
# give_up.
STEP_PHRASES: tuple[tuple[re.Pattern[str], NextStep], ...] = (
    (re.compile(r"\bretrying (?:will|would|does|can) not help\b|\bretrying (?:won|doesn|can) t help\b|\bdo(?: not|n t) retry\b|\bno (?:point|use) (?:in )?retrying\b"), _GIVE_UP),
    # ("Please retry your request.", MercadoLibre's internal error: an instruction to send the
    # same request again; not "please retry with ..." or "... after fixing", which change it.)
    (re.compile(r"\bplease (?:retry|try again)(?: (?:your|the|this) (?:request|call))?\b(?! (?:with|using|after|once|when|if|without|and)\b)"), _WAIT),
    (re.compile(r"\b(?:try|retry|send|resend)(?: (?:your|the|this) (?:request|call))? again later\b|\b(?:try|retry) again after (?:some time|a (?:while|moment|few \w+))\b|\bwait (?:some|a little|a short) (?:time|while) (?:and|then|before) (?:\w+ ){0,2}(?:try|retry)\b|\bretry later\b|\bwait a (?:moment|minute|few (?:seconds|minutes)|while|bit|little) (?:and|then|before) (?:\w+ ){0,2}(?:try|retry|resend)\b"), _WAIT),
    # A gone endpoint whose body names its successor ("please update your use case to rely
    # on the new API endpoints"): the changed request succeeds, the same one never does.
    (re.compile(r"\b(?:rely on|use|switch to|migrate to|move to) (?:the )?new (?:api )?(?:endpoints?|urls?|paths?|api|version)\b"), _FIX),
    # A refusal that lists what is taken instead (Matomo's "The period 'x' is not supported.
    # Try any of the following instead: day, week, ...", TeamCity's "Field 'x' is not
    # supported. Supported are: ...") or asks for a narrower query (Buildkite's "Please
    # narrow your query"): another request succeeds, though "not supported" alone is give_up.
    (re.compile(r"\btry (?:any|one) of (?:the following|these)\b|\b(?:supported|allowed|valid|accepted) (?:values |options |fields |ones |types )?are\b|\bplease (?:narrow|refine) (?:your|the) (?:query|request|search)\b"), _FIX),
    # An instruction to send a part the request lacks (Contentful's "Please pass the
    # X-Contentful-Organization header in which Organization to create the Space"): the request
    # changes, whatever words of permission stand beside it.
    (re.compile(r"\bplease (?:pass|provide|specify|supply|include|add|send|set) (?:the |a |an |your )?(?:[a-z0-9]+ ){0,3}(?:header|parameter|param|field|argument|query parameter)\b"), _FIX),
    # Only a person can help (Linode's "Please contact support describing your requirement"):
    # no change of the request and no wait gets the same call through. Last, so that "try
    # again later or contact support" stays a wait.
    (re.compile(r"\b(?:please )?contact (?:our |the )?(?:support|customer support|customer service)\b(?! if\b)"), _GIVE_UP),
)


def step_stated(text: str) -> tuple[NextStep, str] | None:
    """The next step a message's words (as `words` gives them) state outright, and the
    phrase; None when they state none.

    >>> step_stated(words("Server busy, please try again later."))[0]
    <NextStep.WAIT: 'wait'>
    >>> step_stated(words("Access is denied. Retrying will not help."))[0]
    <NextStep.GIVE_UP: 'give_up'>
    >>> step_stated(words("Rate limit exceeded")) is None
    True
    """
    for pattern, step in STEP_PHRASES:
        m = pattern.search(text)
        if m is not None:
            return step, m.group(0)
    return None


def meaning_of(text: str) -> Meaning | None:
    """The first row of CODE_WORDS that `text` (as `words` gives it) matches, or None.

    >>> meaning_of(words("RATE_LIMIT_EXCEEDED")).name
    'rate limit'
    >>> meaning_of(words("monthly usage limit exceeded")).name
    'quota'
    >>> meaning_of(words("insufficient_quota")).step
    <NextStep.GIVE_UP: 'give_up'>
    >>> meaning_of(words("InvalidApiKey")).name
    'unauthorized'
    >>> meaning_of(words("lorem")) is None
    True
    """
    for pattern, meaning in CODE_WORDS:
        if pattern.search(text):
            return meaning
    return None


# Rows whose every match, one word or several, names its meaning outright.
_STRONG_ROWS = frozenset(
    ("insufficient funds", "billing", "out of space", "request clock", "password policy", "unknown field", "refused content",
     "unknown endpoint", "expired credentials", "unauthorized", "rate limit", "quota", "count cap", "maintenance", "timeout",
     "missing argument"),
)  # fmt: skip
# Single words of the other rows that say their meaning alone.
_STRONG_WORDS = frozenset(
    ("forbidden", "overloaded", "notfound", "duplicate", "unimplemented", "deprecated", "throttled", "malformed",
     "unprocessable", "invalid", "terminated", "archived", "locked", "suspended", "deactivated", "banned", "cancelled",
     "canceled"),
)  # fmt: skip


def is_strong(text: str) -> bool:
    """Whether a message's words (as `words` gives them) name their meaning with a
    phrase, not one stray word: only such a message moves a stated 4xx off its own
    move (issue 27: a 400 "upstream said hi" is no wait, a 400 "server overloaded,
    try again later" is one).

    >>> is_strong("upstream said hi"), is_strong("upstream service unavailable"), is_strong("rate limited")
    (False, True, True)
    """
    for pattern, meaning in CODE_WORDS:
        m = pattern.search(text)
        if m is not None:
            span = m.group(0).strip()
            if meaning.name in _STRONG_ROWS or " " in span or span in _STRONG_WORDS:
                return True
            # Two words of the row ("permission denied") are a phrase too.
            return pattern.search(text, m.end()) is not None
    return False


# A code that only names a status class (`BAD_REQUEST_ERROR`, `not_found`, `Unauthorized`)
# says no more than the status: the message's words may say more (Razorpay's
# BAD_REQUEST_ERROR "The id provided does not exist" is a not-found, give_up).
_GENERIC = frozenset(words(phrase) for status, phrase in REASON_PHRASES.items() if status >= 400) | frozenset(
    ("invalid request", "request error", "client error", "api error", "server error", "validation error", "bad request error", "not found error",
     # Family words that name a class of errors, not one (Adyen's errorType "validation" and
     # "security" beside "Terminal not found").
     "validation", "security", "request", "validation failed",
     # A class of auth failures: the message says which (Coinbase's authentication_error
     # over "request timestamp expired").
     "authentication error", "authorization error", "auth error",
     # WSO2's "message": "Runtime Error" beside a description that says which ("Message
     # throttled out"): the class of any failure at run time, not one.
     "runtime error", "runtime")
)
_NOISE = re.compile(r"\b(?:error|err|exception|http|e)\b")


def is_generic(code: str) -> bool:
    """Whether a code's words only name a status class.

    >>> is_generic("BAD_REQUEST_ERROR"), is_generic("NotFound"), is_generic("rate_limit_exceeded")
    (True, True, False)
    """
    text = words(code)
    return text in _GENERIC or " ".join(_NOISE.sub(" ", text).split()) in _GENERIC


_STATUS_PROSE = re.compile(r"\s*(?:HTTP\s*)?([45][0-9][0-9])\b[\s:-]*([A-Za-z][A-Za-z -]{2,40})?")


def status_in_prose(text: str) -> int | None:
    """An error status a message opens with, written with its reason phrase ("401
    Unauthorized", "404: Not Found"); None otherwise (a number alone is no status).

    >>> status_in_prose("401 Unauthorized"), status_in_prose("500 items were skipped")
    (401, None)
    """
    m = _STATUS_PROSE.match(text[:64])
    if m is None or m.group(2) is None:
        return None
    status = int(m.group(1))
    said = words(m.group(2))
    phrases = (REASON_PHRASES.get(status), *_OLD_PHRASES.get(status, ()))
    if not any(phrase is not None and said.startswith(words(phrase)) for phrase in phrases):
        # A status with a label of its own in capitals, then a colon, as a status line
        # ("404 UNKNOWN LOCATION: Xyz", wttr.in's): the label is the server's reason phrase.
        label = m.group(2)
        if label.isupper() and len(label.strip()) >= 4 and text[m.end(2) : m.end(2) + 1] == ":":
            return status
        return None
    return status


# A status stated inside prose as a key and its value: "Responding with error, status
# code: 404 (Not Found)." (TeamCity), "errorCode=003001; statusCode=403" (QuickBooks).
_STATUS_STATED = re.compile(r"(?i)\bstatus[ _-]?code\s*[:=]\s*([45][0-9][0-9])\b")


def status_stated(text: str) -> int | None:
    """An error status prose states as `status code: 404` or `statusCode=403`; None
    otherwise.

    >>> status_stated("Responding with error, status code: 406 (Not Acceptable).")
    406
    >>> status_stated("code: 406") is None
    True
    """
    m = _STATUS_STATED.search(text[:2048])
    return None if m is None else int(m.group(1))


# Reason phrases of older RFCs (2616, 7231) that servers still write: nginx's error pages
# say "413 Request Entity Too Large" and "504 Gateway Time-out".
_OLD_PHRASES: dict[int, tuple[str, ...]] = {
    408: ("Request Time-out",),
    413: ("Request Entity Too Large", "Payload Too Large"),
    414: ("Request-URI Too Large", "Request-URI Too Long"),
    416: ("Requested Range Not Satisfiable",),
    422: ("Unprocessable Entity",),
    504: ("Gateway Time-out",),
}
