"""`aws`: the errors AWS services send, in every protocol botocore reads (decode only).

JSON (awsJson1_0/1_1, restJson1; `application/x-amz-json-1.x` or `application/json`):

    {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
     "message": "..."}

The code is `__type`, the `x-amzn-ErrorType` header, or the body's `code`/`Code`, with
anything after `:` (a URL) and anything up to `#` (the namespace, kept as the domain)
taken off, as botocore does. Which one wins follows botocore's parser for the protocol
the media type names: `__type` for awsJson (`BaseJSONParser`), the header, then
`code`/`Code`, then `__type` otherwise (`RestJSONParser._inject_error_code`). An
`x-amzn-query-error: <Code>;<Sender|Receiver>` header (awsQueryCompatible services)
gives the Query code, as botocore reads it. The message is `message`, else `Message`
(botocore's order), else `errorMessage` (a Lambda function error, whose `errorType`
is then the code), else the `x-amzn-ErrorMessage` header; an empty body (a HEAD) or
plain text under an `x-amzn-ErrorType` header is read from the headers (the text as the
message). Smithy's
`smithy.framework#ValidationException` (`fieldList: [{path, message}]`, and the
services' own `fieldList: [{name, message}]`) gives the violations, the first one's
path the param.

XML (Query, EC2, rest-xml and S3), parsed with the standard library after refusing a
DTD, an entity declaration or a processing instruction (anything but the XML
declaration), within `Limits.max_depth`:

    <ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>
    <Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>
    <Error><Code/><Message/><Key/>...<RequestId/><HostId/></Error>              (S3)

and the same under another root (`ItemSearchErrorResponse`, SimpleDB's
`<OperationNameResponse><Errors>`), or a root that is itself the error's name with a
`Message` inside. S3 reports some failures inside a 200 (`CopyObject`,
`CompleteMultipartUpload`), and its redirects as 3xx with an `<Error>` body: both are
errors here (`errors_on_success`), as botocore reads them. The XML namespace is the domain.

The status is the HTTP status; a bare body's comes from the code table where it
knows the code, else from the fault type (`Sender`/`User` 400, `Receiver`/`Service`
500), else 400 (AWS sends almost every client error as 400), marked inferred. The next
step: botocore's throttling and transient codes are waits whatever the status (an AWS
throttle is usually a 400), and so is a 500, which botocore retries; the code table's
other rows correct a status that misleads (an `AccessDenied` or a not-found sent as
400 is give_up, a `ValidationError` fix_request); everything else goes by the status.
Members the format does not define, and elements other than Code, Message and the
request id, are kept as extensions; a request id (body, else `x-amzn-RequestId` /
`x-amz-request-id`) is a RequestInfo detail.

errconv does not write AWS errors: only AWS itself and its emulators do.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from xml.parsers import expat

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from .._model.limits import DEFAULT_LIMITS
from ..codes import Code, NextStep, code_for_http
from ..details import RequestInfo
from ._base import CERTAIN, LIKELY, STRONG, WEAK, Dialect, HttpInfo
from ._common import Headers, Reading
from .._model.schema import check_depth

__all__ = ["Aws", "CODES", "code_row"]

_WAIT, _GIVE_UP, _FIX = NextStep.WAIT, NextStep.GIVE_UP, NextStep.FIX_REQUEST

# --------------------------------------------------------------------------- the code table

# AWS code -> (the next step whatever the status says, or None for the status to decide;
# the gRPC code; the HTTP status a bare body implies). Written once; every row whose step
# is not None says what the status cannot.
CODES: dict[str, tuple[NextStep | None, int, int]] = {
    # botocore 1.44.8, retries/standard.py, ThrottledRetryableChecker._THROTTLED_ERROR_CODES
    # ("the union of all error codes we've seen that represent a throttled error"): wait,
    # even on the 400 most of them come with. Bare statuses from data/_retry.json where it
    # names one, else the protocol's default for a client error (400).
    "Throttling": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),  # Query services (STS, IAM, CloudFormation)
    "ThrottlingException": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),  # JSON services; a 400 the ladder would call fix_request
    "ThrottledException": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),
    "RequestThrottledException": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),
    "TooManyRequestsException": (_WAIT, Code.RESOURCE_EXHAUSTED, 429),  # Lambda, API Gateway; Organizations sends it as 400
    "ProvisionedThroughputExceededException": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),  # DynamoDB, Kinesis: clears as the second passes
    "TransactionInProgressException": (_WAIT, Code.ABORTED, 400),  # DynamoDB: the same transaction is still running
    "RequestLimitExceeded": (_WAIT, Code.RESOURCE_EXHAUSTED, 503),  # EC2
    "BandwidthLimitExceeded": (_WAIT, Code.RESOURCE_EXHAUSTED, 509),  # CloudSearch
    # Kinesis's rate limit; other services spell a resource-count quota the same way, and
    # botocore retries those too (three attempts): errconv follows botocore.
    "LimitExceededException": (_WAIT, Code.RESOURCE_EXHAUSTED, 400),
    "RequestThrottled": (_WAIT, Code.RESOURCE_EXHAUSTED, 403),  # SQS sends it as 403; the Product Advertising API uses it too
    "SlowDown": (_WAIT, Code.RESOURCE_EXHAUSTED, 503),  # S3's 503 Slow Down, also inside a 200
    "PriorRequestNotComplete": (_WAIT, Code.UNAVAILABLE, 400),  # Route 53, still on a prior change; in both botocore lists
    "EC2ThrottledException": (_WAIT, Code.RESOURCE_EXHAUSTED, 503),
    # retries/standard.py, TransientRetryableChecker._TRANSIENT_ERROR_CODES: wait.
    "RequestTimeout": (_WAIT, Code.DEADLINE_EXCEEDED, 400),  # S3: the upload socket idled too long; sent as 400
    "RequestTimeoutException": (_WAIT, Code.DEADLINE_EXCEEDED, 408),
    # retries/special.py, RetryIDPCommunicationError (for STS, whose code it is alone).
    "IDPCommunicationError": (_WAIT, Code.UNAVAILABLE, 400),  # the identity provider did not answer; sent as 400
    # data/_retry.json (legacy mode, DynamoDB at 409), and retryable in DynamoDB's model.
    "ReplicatedWriteConflictException": (_WAIT, Code.ABORTED, 409),
    # Server faults: the status decides (botocore retries 500, 502, 503 and 504); the rows
    # give a bare body its status.
    "InternalFailure": (None, Code.INTERNAL, 500),
    "InternalError": (None, Code.INTERNAL, 500),  # S3
    "InternalServerError": (None, Code.INTERNAL, 500),
    "InternalServerException": (None, Code.INTERNAL, 500),
    "ServiceUnavailable": (None, Code.UNAVAILABLE, 503),
    "ServiceUnavailableException": (None, Code.UNAVAILABLE, 503),
    # Where the status misleads. Credentials the service does not accept: new ones are
    # needed, not other arguments, though most come as 400.
    "UnrecognizedClientException": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "InvalidClientTokenId": (_GIVE_UP, Code.UNAUTHENTICATED, 403),
    "InvalidAccessKeyId": (_GIVE_UP, Code.UNAUTHENTICATED, 403),  # S3
    "SignatureDoesNotMatch": (_GIVE_UP, Code.UNAUTHENTICATED, 403),
    "IncompleteSignature": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "MissingAuthenticationToken": (_GIVE_UP, Code.UNAUTHENTICATED, 403),  # Query services (STS)
    # API Gateway: no credentials, and also its answer to a path no route serves.
    "MissingAuthenticationTokenException": (_GIVE_UP, Code.UNAUTHENTICATED, 403),
    "ExpiredToken": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "ExpiredTokenException": (_GIVE_UP, Code.UNAUTHENTICATED, 400),
    "UnauthorizedOperation": (_GIVE_UP, Code.PERMISSION_DENIED, 403),  # EC2
    "AuthorizationError": (_GIVE_UP, Code.PERMISSION_DENIED, 403),  # SNS
    # Not found under another name, sent as 400.
    "UnknownResourceFault": (_GIVE_UP, Code.NOT_FOUND, 400),  # SWF
    "QueueDoesNotExist": (_GIVE_UP, Code.NOT_FOUND, 400),  # SQS (JSON)
    "AWS.SimpleQueueService.NonExistentQueue": (_GIVE_UP, Code.NOT_FOUND, 400),  # SQS (Query)
    "BucketAlreadyOwnedByYou": (_GIVE_UP, Code.ALREADY_EXISTS, 409),  # the create succeeded before: repeating it is no use
    # A quota, not a rate: it does not clear by waiting (botocore does not retry either),
    # though a 409 (IAM's LimitExceeded) would read as wait and a 400 as fix_request.
    "LimitExceeded": (_GIVE_UP, Code.RESOURCE_EXHAUSTED, 409),
    "ServiceQuotaExceededException": (_GIVE_UP, Code.RESOURCE_EXHAUSTED, 402),
    # The arguments are wrong, whatever status a service chose.
    "ValidationException": (_FIX, Code.INVALID_ARGUMENT, 400),
    "ValidationError": (_FIX, Code.INVALID_ARGUMENT, 400),  # the Query services' spelling
    "MissingParameter": (_FIX, Code.INVALID_ARGUMENT, 400),
    # S3: send the request to the endpoint the body names (a 3xx the ladder knows nothing of).
    "PermanentRedirect": (_FIX, Code.FAILED_PRECONDITION, 301),
    "TemporaryRedirect": (_FIX, Code.FAILED_PRECONDITION, 307),
}
# Families the table names by their shape, after the exact rows: botocore has no list
# for them, and their statuses vary by service (a not-found is 400 in DynamoDB and EC2,
# 404 in the REST services).
_ACCESS_DENIED = (_GIVE_UP, int(Code.PERMISSION_DENIED), 403)  # AccessDenied, AccessDeniedException, ...
_NOT_FOUND = (_GIVE_UP, int(Code.NOT_FOUND), 404)  # ResourceNotFoundException, InvalidInstanceID.NotFound, NoSuchKey, ...
_INVALID_PARAMETER = (_FIX, int(Code.INVALID_ARGUMENT), 400)  # InvalidParameter, InvalidParameterValue, ...
_ALREADY_EXISTS = (_GIVE_UP, int(Code.ALREADY_EXISTS), 400)  # AlreadyExists (SES), FileSystemAlreadyExists (EFS, 409), ...


def code_row(code: str) -> tuple[NextStep | None, int, int] | None:
    """What the code table says of an AWS code: (step or None, gRPC code, bare status)."""
    row = CODES.get(code)
    if row is not None:
        return row
    if code.startswith("AccessDenied"):
        return _ACCESS_DENIED
    if "NotFound" in code or code.startswith("NoSuch"):
        return _NOT_FOUND
    if code.startswith("InvalidParameter"):
        return _INVALID_PARAMETER
    if "AlreadyExists" in code:
        return _ALREADY_EXISTS
    return None


# botocore's TransientRetryableChecker._TRANSIENT_STATUS_CODES: 502, 503 and 504 are
# waits on errconv's ladder already; a 500 is give_up there (a bug does not clear with
# time), but botocore retries it and AWS's 500s (InternalFailure) do clear.
_TRANSIENT_STATUSES = frozenset((500, 502, 503, 504))
_FAULT_TYPES = {"Sender": 400, "User": 400, "Client": 400, "Receiver": 500, "Service": 500, "Server": 500}


def _clean(code: str) -> tuple[str, str | None]:
    """An AWS code as the service spells it, and its namespace: `ns#Name:url` -> Name, ns."""
    code = code.split(":", 1)[0]
    namespace, sep, name = code.rpartition("#")
    return name.strip(), (namespace or None) if sep else None


# --------------------------------------------------------------------------- XML


class _Node:
    """One XML element: its local name, its xmlns, its own text and its child elements."""

    __slots__ = ("name", "xmlns", "text", "parts", "children")

    def __init__(self, name: str, xmlns: str | None) -> None:
        self.name = name
        self.xmlns = xmlns
        self.text = ""
        self.parts: list[str] = []  # the text as the parser hands it over, joined at the end tag
        self.children: list[_Node] = []

    def child(self, name: str) -> _Node | None:
        return next((c for c in self.children if c.name == name), None)

    @property
    def leaf_text(self) -> str | None:
        """Its text when it has no child elements (`<Code>SlowDown</Code>`), else None."""
        return None if self.children else self.text


class _Refused(Exception):
    pass


class _Unreadable:
    """Why a body could not be read as XML: refused (a DTD, too deep) or not XML at all."""

    __slots__ = ("message", "refused")

    def __init__(self, message: str, refused: bool) -> None:
        self.message = message
        self.refused = refused


_UNSAFE = (b"<!doctype", b"<!entity", b"<!element", b"<!attlist", b"<!notation")
_WS = b" \t\r\n"


def _unsafe(raw: bytes) -> str | None:
    """Why `raw` must not be parsed (a DTD, an entity declaration, a processing
    instruction beyond the XML declaration), or None. A plain search: markup of that
    kind inside a comment or CDATA is refused too, which costs no real AWS body."""
    rest = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    rest = rest.lstrip(_WS)
    if rest.startswith(b"<?xml") and rest[5:6] in (b" ", b"\t", b"\r", b"\n", b"?"):
        end = rest.find(b"?>")
        rest = rest[end + 2 :] if end != -1 else b""
    if b"<?" in rest:
        return "a processing instruction"
    lowered = rest.lower() if b"<!" in rest else b""
    for marker in _UNSAFE:
        if marker in lowered:
            return "a DTD" if marker == b"<!doctype" else f"a {marker[2:].decode()} declaration"
    return None


def _parse(raw: bytes, max_depth: int) -> _Node | _Unreadable:
    """The XML document in `raw`, refusing, before parsing, what could make it costly or
    reach outside (a DTD, entities, processing instructions), and elements nested past
    `max_depth` as it parses."""
    why = _unsafe(raw)
    if why is not None:
        return _Unreadable(f"the XML body holds {why}, which errconv refuses (no DTDs, entities or processing instructions)", True)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return _Unreadable("the XML body is not valid UTF-8", False)
    parser = expat.ParserCreate(encoding="utf-8")  # whatever the declaration says: checked as UTF-8 above
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[_Node] = []
    roots: list[_Node] = []

    def refuse(*_: Any) -> None:  # the second line of defence: _unsafe lets none of these through
        raise _Refused("a DTD, an entity or a processing instruction")

    def start(name: str, attrs: dict[str, str]) -> None:
        if len(stack) >= max_depth:
            raise _Refused(f"elements nested deeper than {max_depth} levels (the limit is Limits.max_depth)")
        node = _Node(name.rpartition(":")[2], attrs.get("xmlns"))
        if stack:
            stack[-1].children.append(node)
        else:
            roots.append(node)
        stack.append(node)

    def end(name: str) -> None:
        node = stack.pop()
        node.text, node.parts = "".join(node.parts), []

    def text(data: str) -> None:
        if stack:
            stack[-1].parts.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.NotationDeclHandler = refuse
    parser.ProcessingInstructionHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]
    try:
        parser.Parse(raw, True)
    # Two names: compiled, one `exc` would be typed by the first clause and fail the second.
    except _Refused as refused:
        return _Unreadable(f"the XML body holds {refused}, which errconv refuses", True)
    except expat.ExpatError as bad:
        return _Unreadable(f"the body is not well-formed XML: {shorten(str(bad), 80)}", False)
    return roots[0]


# recognise parses what decode then reads: the few bodies last seen are remembered (bytes
# are immutable, and no caller changes a parsed tree).
_tree = lru_cache(maxsize=8)(_parse)


def _tree_or_raise(raw: bytes, max_depth: int) -> _Node:
    found = _tree(raw, max_depth)
    if isinstance(found, _Unreadable):
        raise DecodeError(found.message)
    return found


_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_.:-]{0,200}")
_SPACES = re.compile(rb"[ \t\r\n]*")


def _root_name(raw: bytes) -> str | None:
    """The local name of the root element, found without parsing (past the XML
    declaration, comments, processing instructions and a DOCTYPE), or None."""
    i = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    n = len(raw)
    for _ in range(32):  # a prolog of more parts than that is no AWS body
        i = _SPACES.match(raw, i).end()  # type: ignore[union-attr]  # (matches the empty string too)
        if not raw.startswith(b"<", i):
            return None
        if raw.startswith(b"<?", i):
            end = raw.find(b"?>", i)
            i = end + 2
        elif raw.startswith(b"<!--", i):
            end = raw.find(b"-->", i)
            i = end + 3
        elif raw.startswith(b"<!", i):
            close = raw.find(b">", i)
            bracket = raw.find(b"[", i, close if close != -1 else n)
            if bracket != -1:  # an internal subset: up to its `]>`
                close = raw.find(b"]", bracket)
                close = raw.find(b">", close) if close != -1 else -1
            end = close
            i = end + 1
        else:
            m = _NAME.match(raw, i + 1)
            return m.group().decode("ascii").rpartition(":")[2] if m else None
        if end == -1:
            return None
    return None


_ERROR_NAME = re.compile(r"[A-Z][A-Za-z0-9]*(?:Exception|Error|Fault)")


def _error_of(root: _Node) -> tuple[str, _Node, list[_Node]] | None:
    """The shape of an AWS XML error: its kind, the element holding Code and Message,
    and the root's other children (RequestId among them)."""
    name = root.name
    if name == "Error":
        return ("s3", root, []) if root.child("Code") is not None else None
    error = root.child("Error")
    if error is not None and error.child("Code") is not None:
        kind = "query" if name == "ErrorResponse" else "wrapped" if name.endswith("Response") else ""
        if kind:
            return kind, error, [c for c in root.children if c is not error]
    errors = root.child("Errors")
    if errors is not None:
        first = errors.child("Error")
        if first is not None and first.child("Code") is not None:
            kind = "ec2" if name == "Response" else "wrapped" if name.endswith("Response") else ""
            if kind:
                return kind, first, [c for c in root.children if c is not errors] + [errors]
    if (
        _ERROR_NAME.fullmatch(name)
        and root.child("Message") is not None
        and all(not c.children for c in root.children)
    ):
        return "named", root, []  # a root that is the error's own name (restJson services answering in XML)
    return None


_STRENGTH = {"query": STRONG, "ec2": STRONG, "s3": STRONG, "wrapped": LIKELY, "named": WEAK}
_PLAUSIBLE_ROOT = re.compile(r"Error|Response|ErrorResponse|.*Response|[A-Z][A-Za-z0-9]*(?:Exception|Error|Fault)")


def _json_of(node: _Node) -> Any:
    """An element as JSON: its text, or an object of its children (a repeated one as a list)."""
    if not node.children:
        return node.text
    grouped: dict[str, list[Any]] = {}
    for child in node.children:
        grouped.setdefault(child.name, []).append(_json_of(child))
    return {name: values[0] if len(values) == 1 else values for name, values in grouped.items()}


# --------------------------------------------------------------------------- JSON

_REQUEST_ID_HEADERS = ("x-amzn-requestid", "x-amz-request-id", "x-amz-apigw-id")
_REQUEST_ID_HEADER_SET = frozenset(_REQUEST_ID_HEADERS)
_MESSAGE_MEMBERS = ("message", "Message", "errorMessage")
# Members that mark another dialect's body: an API behind API Gateway (whose request id
# it then carries) answers in its own format, which is not AWS's.
_OTHERS = frozenset(
    ("error", "errors", "detail", "details", "status", "type", "title", "instance", "jsonrpc", "kind", "ok",
     "success", "documentation_url", "more_info")
)  # fmt: skip


def _markup(raw: bytes) -> bool:
    """Whether a body that is not JSON starts as XML (or HTML) does."""
    return raw.lstrip(b"\xef\xbb\xbf" + _WS)[:1] == b"<"


def _request_id(headers: Headers | None) -> str | None:
    if headers is None:
        return None
    for name in ("x-amzn-requestid", "x-amz-request-id"):
        value = headers.get(name)
        if value:
            return value
    return None


def _violations(items: Any, reading: Reading) -> tuple[Violation, ...] | None:
    """Smithy's `fieldList: [{path, message}]` (or a service's `[{name, message}]`)."""
    if type(items) is not list or not items:
        return None
    out = []
    for item in items:
        if type(item) is not dict:
            return None
        field = item.get("path", item.get("name", item.get("Name")))
        message = item.get("message", item.get("Message", ""))
        if type(field) is not str or not field or type(message) is not str:
            return None
        out.append(Violation(field=field, description=message))
    if len(out) > reading.limits.max_violations:
        raise DecodeError(f"{len(out)} violations, over the limit of {reading.limits.max_violations} (Limits.max_violations)")
    return tuple(out)


def _header_code(headers: Headers | None, name: str) -> str | None:
    value = headers.get(name) if headers is not None else None
    if value is None:
        return None
    code, _ = _clean(value)
    return code or None


class Aws(Dialect):
    """AWS's JSON and XML error bodies."""

    name = "aws"
    precedence = 50
    listed = 280
    media_type = "application/x-amz-json-1.1"
    media_types = ("application/x-amz-json-1.0",)
    encodes = False
    errors_on_success = True  # S3's errors inside a 200, and its 3xx redirects

    def non_json(self, body: bytes, http: HttpInfo | None) -> bytes | None:
        """The body itself: AWS's errors come as XML too, which `recognise` and `decode`
        read from the bytes."""
        return body

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """JSON: a string `__type`, the `x-amzn-ErrorType` (or `x-amzn-query-error`)
        header, or AWS's request-id headers around a top-level `message`; a Lambda
        function error (`errorType`, `errorMessage`). XML: the Query, EC2 and S3 error
        shapes (an S3 `<Error>` also inside a 2xx), the same under another `...Response`
        root, or a root named as an error holding a `Message`."""
        status = http.status if http is not None else None
        if type(value) is bytes:
            if http is not None and "x-amzn-errortype" in http.headers and (status or 400) >= 400 and not _markup(value):
                return CERTAIN  # no body, or plain text, under AWS's error-type header
            return self._recognise_xml(value, status)
        if type(value) is not dict or (status is not None and status < 400):
            return 0.0
        headers = http.headers if http is not None else None
        if headers is not None and ("x-amzn-errortype" in headers or "x-amzn-query-error" in headers):
            return CERTAIN
        if type(value.get("__type")) is str:
            return STRONG
        if type(value.get("errorMessage")) is str and type(value.get("errorType")) is str:
            return LIKELY
        if (
            headers is not None
            and headers.has_any(_REQUEST_ID_HEADER_SET)
            and (type(value.get("message")) is str or type(value.get("Message")) is str)
            and value.keys().isdisjoint(_OTHERS)
            and type(value.get("code", "")) is str
        ):
            return LIKELY  # API Gateway's and the REST services' {"message": ...}
        return 0.0

    def _recognise_xml(self, raw: bytes, status: int | None) -> float:
        root = _root_name(raw)
        if root is None or not _PLAUSIBLE_ROOT.fullmatch(root):
            return 0.0
        if status is not None and status < 301 and root != "Error":
            return 0.0  # only S3's <Error> comes inside a 2xx
        tree = _tree(raw, DEFAULT_LIMITS.max_depth)
        if isinstance(tree, _Unreadable):
            # Refused (a DTD, too deep): claimed, so that decoding says why; not XML at all: not ours.
            return WEAK if tree.refused else 0.0
        shape = _error_of(tree)
        if shape is None:
            return 0.0
        return _STRENGTH[shape[0]]

    def decode(self, value: Any, reading: Reading) -> Fault:
        if type(value) is bytes:
            if reading.headers is None or "x-amzn-errortype" not in reading.headers or _markup(value):
                return self._decode_xml(value, reading)
            # No body (a HEAD) or plain text: the headers say the rest.
            text = value.decode("utf-8", "replace").strip()
            value = {"message": text} if text else {}
        if type(value) is not dict:
            raise DecodeError(f"an aws error is a JSON object or an XML document, got {shorten(value)}")
        status = reading.status
        if status is not None and status < 400 and not reading.lenient:
            raise DecodeError(f"not an error response: {status}")
        return self._decode_json(value, reading)

    # ----------------------------------------------------------------------- JSON

    def _decode_json(self, obj: dict[str, Any], reading: Reading) -> Fault:
        headers = reading.headers
        media = ((headers.get("content-type") if headers is not None else None) or "").split(";")[0].strip().lower()
        read: set[str] = set()
        fields: dict[str, Any] = {}
        # The code's candidates, as botocore's parser for the protocol orders them.
        typed = obj.get("__type")
        from_type = _clean(typed) if type(typed) is str else None
        body_code_name = "code" if "code" in obj else "Code" if "Code" in obj else None
        body_code = obj.get(body_code_name) if body_code_name is not None else None
        if type(body_code) is int and not isinstance(body_code, bool):
            body_code = str(body_code)
        from_body = _clean(body_code) if type(body_code) is str else None
        from_header = _header_code(headers, "x-amzn-errortype")
        candidates: list[tuple[str, str | None, str]] = []  # (code, namespace, where)
        if media.startswith("application/x-amz-json") or headers is None:
            order = ("__type", "header", "body")  # awsJson: __type (BaseJSONParser); a bare body likewise
        else:
            order = ("header", "body", "__type")  # restJson1 (RestJSONParser._inject_error_code)
        for where in order:
            if where == "__type" and from_type is not None and from_type[0]:
                candidates.append((from_type[0], from_type[1], "__type"))
            elif where == "header" and from_header is not None:
                candidates.append((from_header, None, "x-amzn-ErrorType"))
            elif where == "body" and from_body is not None and from_body[0]:
                candidates.append((from_body[0], from_body[1], body_code_name or "code"))
        code: str | None = None
        if candidates:
            code, namespace, where = candidates[0]
            if namespace is not None:
                fields["domain"] = namespace
            for other, _, other_where in candidates[1:]:
                if other != code:
                    reading.notes += (f"{other_where} says {other!r}, {where} says {code!r}; {where} wins, as in botocore",)
            if where == "__type":
                read.add("__type")
                if type(typed) is str and ":" in typed:
                    reading.notes += ("the URL after ':' in __type is dropped, as botocore does",)
            elif where in ("code", "Code"):
                read.add(where)
        if "__type" not in read and from_type is not None and from_type[0] == code:
            read.add("__type")  # it says the same: read, not kept
        if body_code_name is not None and body_code_name not in read and from_body is not None and from_body[0] == code:
            read.add(body_code_name)
        query = headers.get("x-amzn-query-error") if headers is not None else None
        if query is not None:
            parts = query.split(";")
            if len(parts) == 2 and parts[0].strip():
                if code is not None and code != parts[0].strip():
                    reading.notes += (f"x-amzn-query-error gives the Query code {parts[0].strip()!r} for {code!r}",)
                code = parts[0].strip()
        if code is None and type(obj.get("errorType")) is str and obj["errorType"]:
            code = obj["errorType"]  # a Lambda function error
            read.add("errorType")
        if code is not None:
            fields["code"] = code
        # The message: message, else Message (botocore's order), else errorMessage, else the header.
        for member in _MESSAGE_MEMBERS:
            if type(obj.get(member)) is str:
                fields["detail"] = obj[member]
                read.add(member)
                reading.saw("text", f"/{member}", obj[member])
                break
        else:
            header_message = headers.get("x-amzn-errormessage") if headers is not None else None
            if header_message:
                fields["detail"] = header_message
        for member in ("fieldList", "FieldList"):
            found = _violations(obj.get(member), reading)
            if found is not None:
                fields["violations"] = found
                fields["param"] = found[0].field
                reading.inferred += ("param",)
                read.add(member)
                break
        reading.saw("body", "", "aws")
        request_id = _request_id(headers)
        if request_id is not None:
            fields["details"] = (RequestInfo(request_id=request_id),)
        if len(read) < len(obj):
            extensions = {name: item for name, item in obj.items() if name not in read}
            if reading.deep:
                check_depth(extensions, reading.limits.max_depth)
            fields["extensions"] = extensions
        fault_type = obj.get("Type")
        return self._finish(fields, code, fault_type if type(fault_type) is str else None, reading, in_success=False)

    # ----------------------------------------------------------------------- XML

    def _decode_xml(self, raw: bytes, reading: Reading) -> Fault:
        if len(raw) > reading.limits.max_bytes:
            raise DecodeError(f"the aws body is {len(raw)} bytes, over the limit of {reading.limits.max_bytes} (Limits.max_bytes)")
        if not raw.strip():
            raise DecodeError("the aws body is empty; give an error body (JSON or XML)")
        if raw.lstrip(b"\xef\xbb\xbf" + _WS)[:1] != b"<":
            raise DecodeError(f"an aws error is a JSON object or an XML document, got {shorten(raw[:30])}")
        root = _tree_or_raise(raw, reading.limits.max_depth)
        shape = _error_of(root)
        if shape is None:
            raise DecodeError(
                f"an aws XML error is <ErrorResponse><Error>, <Response><Errors><Error> or S3's <Error> with a <Code>, got <{shorten(root.name, 60)[1:-1]}>"
            )
        kind, error, others = shape
        # Where the error element is, as a path of element names (lint's pointers).
        at = {"s3": "/Error", "named": f"/{root.name}", "ec2": f"/{root.name}/Errors/Error"}.get(kind, f"/{root.name}/Error")
        status = reading.status
        if status is not None and status < 301 and kind != "s3" and not reading.lenient:
            raise DecodeError(f"not an error response: {status}")
        fields: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        code: str | None = None
        fault_type: str | None = None
        request_id: str | None = None
        if kind == "named":
            code = root.name  # the only machine name the body states
            reading.notes += (f"the code is the name of the root element <{root.name}>",)
        for child in error.children:
            name, text = child.name, child.leaf_text
            if name == "Code" and code is None and text and text.strip():
                code = text.strip()
            elif name == "Message" and "detail" not in fields and text is not None:
                fields["detail"] = text  # as written, as botocore keeps it
                reading.saw("text", f"{at}/Message", text)
            elif name == "Type" and fault_type is None and text is not None and text.strip() in _FAULT_TYPES:
                fault_type = text.strip()
                extensions.setdefault(name, text)  # kept too: the format's own member, read only for a bare status
            elif name in ("RequestId", "RequestID") and request_id is None and text and text.strip():
                request_id = text.strip()
            else:
                extensions.setdefault(name, _json_of(child))
        for child in others:
            name, text = child.name, child.leaf_text
            if name in ("RequestId", "RequestID") and request_id is None and text and text.strip():
                request_id = text.strip()
            elif name == "Errors":
                rest = [c for c in child.children if c is not error]
                if rest:  # EC2 can list several errors; the first is the fault, the rest are kept
                    extensions.setdefault("Errors", [_json_of(c) for c in rest])
            else:
                extensions.setdefault(name, _json_of(child))
        if code is not None:
            fields["code"] = code
        if root.xmlns:
            fields["domain"] = root.xmlns  # the service's own namespace (https://sts.amazonaws.com/doc/2011-06-15/)
        request_id = request_id or _request_id(reading.headers)
        if request_id is not None:
            fields["details"] = (RequestInfo(request_id=request_id),)
        reading.keep_extensions(fields, extensions)
        reading.saw("body", "", "aws")
        return self._finish(fields, code, fault_type, reading, in_success=status is not None and status < 300)

    # ----------------------------------------------------------------------- both

    def _finish(
        self, fields: dict[str, Any], code: str | None, fault_type: str | None, reading: Reading, *, in_success: bool
    ) -> Fault:
        row = code_row(code) if code is not None else None
        status = reading.http_status_wins(None)
        if status is None:
            if row is not None:
                status = row[2]
            else:
                status = _FAULT_TYPES.get(fault_type or "", 400)
            reading.inferred += ("status",)
        fields["status"] = status
        if row is not None:
            fields["grpc_code"] = row[1]
        elif in_success:
            fields["grpc_code"] = Code.INTERNAL  # botocore reads an S3 error inside a 200 as a 500
        else:
            fields["grpc_code"] = code_for_http(status)
        reading.inferred += ("grpc_code",)
        by_code: tuple[NextStep, str] | None = None
        if row is not None and row[0] is not None:
            by_code = (row[0], f"aws code {code!r}")
        elif in_success:
            by_code = (_WAIT, "an S3 error inside a 200, which botocore retries as a 500")
        elif status == 500:
            by_code = (_WAIT, "HTTP 500, a transient status to botocore")
        return reading.finish(fields, None, by_code=by_code)
