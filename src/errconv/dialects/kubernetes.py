"""`kubernetes`: the Kubernetes API's `Status` object (read, not written).

    {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
     "message": "...", "reason": "NotFound",
     "details": {"name", "group", "kind", "uid", "causes": [{"reason", "message", "field"}],
                 "retryAfterSeconds": N},
     "code": 404}

What every API server, aggregated API and admission webhook answers a failed call with
(k8s.io/apimachinery `pkg/apis/meta/v1/types.go`: Status, StatusDetails, StatusCause,
StatusReason). Also read: a watch stream's ERROR event, `{"type": "ERROR", "object":
<Status>}`, which arrives inside an HTTP 200 (the Status's own `code` is then the
status), and the Status bodies older servers and tests send without `kind`.

Reading: `reason` is the code, spelled as sent; `message` the detail; `code` the HTTP
status (the status line wins when there is one, with a note; a `code` that is no HTTP
status is kept as an extension); `details.causes[]` the violations (field, message,
reason), the first cause with a field the param; `details.retryAfterSeconds` the delay;
`details.name`/`kind`/`group` a ResourceInfo. The gRPC code comes from the reason
(`_REASONS`, after apimachinery's list: "a Reason clarifies an HTTP status code but does
not override it"), else from the body's `code`, else from the status. Members errconv
does not read (`metadata` with a list's `continue` token, a detail's `uid`, anything
unknown) are kept, in order, as extensions.

Encoding is refused: errconv names the dialects it writes.
"""

from __future__ import annotations

from typing import Any

from .._model.errors import DecodeError, shorten
from .._model.fault import Fault, Violation
from ..codes import Code, NextStep, code_for_http
from ..details import ResourceInfo
from ._base import CERTAIN, STRONG, Dialect, HttpInfo
from ._common import Reading, whole_seconds
from .._model.schema import counted

__all__ = ["Kubernetes", "REASONS"]

_C = Code
# StatusReason -> (its HTTP status, the gRPC code errconv reads it as). apimachinery says
# each reason maps to one status; the gRPC codes follow code.proto's meanings.
REASONS: dict[str, tuple[int, int]] = {
    "Unauthorized": (401, _C.UNAUTHENTICATED),
    "Forbidden": (403, _C.PERMISSION_DENIED),
    "NotFound": (404, _C.NOT_FOUND),
    "AlreadyExists": (409, _C.ALREADY_EXISTS),
    "Conflict": (409, _C.ABORTED),  # optimistic concurrency: the object changed under the caller
    "Gone": (410, _C.NOT_FOUND),
    "Invalid": (422, _C.INVALID_ARGUMENT),
    "ServerTimeout": (500, _C.UNAVAILABLE),  # "the client should retry the request": 500 only for want of a better status
    "StorageReadError": (500, _C.INTERNAL),  # StatusReasonStoreReadError's wire value
    "Timeout": (504, _C.DEADLINE_EXCEEDED),
    "TooManyRequests": (429, _C.RESOURCE_EXHAUSTED),
    "BadRequest": (400, _C.INVALID_ARGUMENT),
    "MethodNotAllowed": (405, _C.UNIMPLEMENTED),
    "NotAcceptable": (406, _C.INVALID_ARGUMENT),  # the Accept header must change
    "RequestEntityTooLarge": (413, _C.INVALID_ARGUMENT),  # the request must get smaller
    "UnsupportedMediaType": (415, _C.INVALID_ARGUMENT),  # the Content-Type must change
    "InternalError": (500, _C.INTERNAL),
    "Expired": (410, _C.NOT_FOUND),
    "ServiceUnavailable": (503, _C.UNAVAILABLE),
}
# Reasons whose next step is not what their gRPC code's ladder gives.
_STEP_FOR_REASON: dict[str, NextStep] = {
    # ABORTED waits, but repeating the identical write fails again: the caller must re-read
    # the object and apply its change to the latest version, which is a new request.
    "Conflict": NextStep.GIVE_UP,
    # NOT_FOUND turns fix_request when a cause names a field; a resourceVersion or continue
    # token that is gone never comes back: re-list (a new request), do not repeat this one.
    "Gone": NextStep.GIVE_UP,
    "Expired": NextStep.GIVE_UP,
}
_READ = frozenset(("kind", "apiVersion", "status", "message", "reason", "code", "details"))
_RESOURCE = ("name", "group", "kind")


def _status_object(value: Any) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """The Status, where it sits, and the watch event's other members."""
    if type(value) is not dict:
        raise DecodeError(f"a kubernetes Status is a JSON object, got {shorten(value)}")
    if value.get("type") == "ERROR" and "object" in value:
        obj = value["object"]
        if type(obj) is not dict:
            raise DecodeError(f"a watch ERROR event holds a Status object, got {shorten(obj)}")
        return obj, "/object", {k: v for k, v in value.items() if k not in ("type", "object")}
    return value, "", {}


def _is_failure(obj: dict[str, Any]) -> bool:
    return obj.get("status") != "Success"


class Kubernetes(Dialect):
    """The Kubernetes API's Status (and a watch ERROR event around it)."""

    name = "kubernetes"
    precedence = 40
    listed = 270
    keys = frozenset(("kind", "status", "type"))
    media_type = "application/json"
    encodes = False
    errors_on_success = True  # a watch ERROR event arrives inside the stream's HTTP 200

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        """`kind: Status`; a watch event of type ERROR; or, without `kind`, a `status` of
        "Failure" beside an integer `code`, `apiVersion`, `metadata` or a `reason`."""
        if type(value) is not dict:
            return 0.0
        if value.get("type") == "ERROR" and type(value.get("object")) is dict:
            obj = value["object"]
            if obj.get("kind") == "Status" or type(obj.get("code")) is int or type(obj.get("reason")) is str:
                return CERTAIN
            return 0.0
        if value.get("kind") == "Status":
            if http is not None and http.status is not None and http.status < 400 and not _is_failure(value):
                return 0.0  # a Status of Success in a 2xx: no error at all
            return CERTAIN
        if "kind" in value:
            return 0.0  # some other Kubernetes object
        if value.get("status") == "Failure" and (
            type(value.get("code")) is int or "apiVersion" in value or type(value.get("metadata")) is dict or "reason" in value
        ):
            return STRONG
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Fault:
        obj, at, around = _status_object(value)
        in_success = reading.status is not None and reading.status < 400
        if not _is_failure(obj) and (reading.status is None or in_success):
            raise DecodeError("not an error: a kubernetes Status of status Success")
        fields: dict[str, Any] = {}
        extensions: dict[str, Any] = {}
        reason = obj.get("reason")
        if type(reason) is str and reason:
            fields["code"] = reason
        message = obj.get("message")
        if type(message) is str and message:
            fields["detail"] = message
        body_code = obj.get("code")
        body_status = body_code if type(body_code) is int and 100 <= body_code <= 599 else None
        delay: int | None = None
        for name, item in obj.items():
            if name == "metadata" and item == {}:
                continue  # an empty ListMeta, as every Status carries: says nothing
            if name not in _READ:
                extensions[name] = item  # metadata (a list's continue token), unknown members
            elif name == "kind" and item != "Status" or name == "apiVersion" and type(item) is not str:
                extensions[name] = item
            elif name == "status" and item not in ("Failure", "Success"):
                extensions[name] = item
            elif name in ("message", "reason") and type(item) is not str:
                extensions[name] = item
            elif name == "code" and body_status is None and item != 0:  # 0: "not set"
                extensions[name] = item  # no HTTP status (kopf's tests send 666): kept, for no meaning
            elif name == "details":
                if type(item) is dict:
                    delay = self._details(item, fields, extensions, reading, at)
                elif item is not None:
                    extensions[name] = item
        extensions.update(around)

        # The status: the status line's (a watch event's 200 is the stream's, not the error's).
        known = REASONS.get(reason) if type(reason) is str else None
        status: int
        if reading.status is not None and not in_success:
            reading.http_status_wins(body_status)  # notes a body that says otherwise
            status = reading.status
        elif body_status is not None:
            status = body_status
            if in_success:
                reading.notes += (f"the Status inside the HTTP {reading.status} says {body_status}; the Status's is taken",)
        elif known is not None:
            status = known[0]
        else:
            status = 500  # StatusReasonUnknown's
            reading.inferred += ("status",)
        if known is not None:
            grpc_code = known[1]
        else:
            grpc_code = code_for_http(body_status if body_status is not None else status)
        reading.inferred += ("grpc_code",)  # Kubernetes has none: errconv's reading of the reason
        fields["status"] = status
        fields["grpc_code"] = int(grpc_code)

        if delay is not None:
            fields["retry_after_seconds"] = delay
        reading.keep_extensions(fields, extensions)
        step = _STEP_FOR_REASON.get(reason) if type(reason) is str else None
        if reading.seen is not None:
            reading.saw("body", at, "kubernetes")
            if "detail" in fields:
                reading.saw("text", f"{at}/message", message)
            if type(body_code) is int:
                reading.saw("status", f"{at}/code", body_code)
        return reading.finish(
            fields,
            None,
            body_wait="details.retryAfterSeconds" if delay is not None else None,
            by_code=None if step is None else (step, f"kubernetes reason {reason!r}"),
        )

    def _details(
        self, details: dict[str, Any], fields: dict[str, Any], extensions: dict[str, Any], reading: Reading, at: str
    ) -> int | None:
        """StatusDetails into fields: causes, the delay, the resource; the rest kept."""
        delay: int | None = None
        left: dict[str, Any] = {}
        resource = {name: details[name] for name in _RESOURCE if type(details.get(name)) is str and details[name]}
        for name, item in details.items():
            if name == "causes" and type(item) is list and all(type(c) is dict for c in item):
                counted(item, reading.limits, "causes")
                violations = [
                    Violation(
                        field=c["field"] if type(c.get("field")) is str else "",
                        description=c["message"] if type(c.get("message")) is str else "",
                        reason=c["reason"] if type(c.get("reason")) is str and c["reason"] else None,
                    )
                    for c in item
                ]
                if violations:
                    fields["violations"] = tuple(violations)
                    param = next((v.field for v in violations if v.field), None)
                    if param:
                        fields["param"] = param
                others = [{k: v for k, v in c.items() if k not in ("field", "message", "reason")} for c in item]
                if any(others):
                    left["causes"] = item  # members a violation has no room for: the list kept whole too
            elif name == "retryAfterSeconds" and item == 0 and type(item) is int:
                continue  # Go's zero value: "not set" (the field is omitempty)
            elif name == "retryAfterSeconds" and whole_seconds(item) is not None and item > 0:
                delay = whole_seconds(item)
                reading.saw("delay:retryAfterSeconds", f"{at}/details/retryAfterSeconds", item)
            elif name in resource:
                continue
            else:
                left[name] = item
        if resource:
            kind, group = resource.get("kind", ""), resource.get("group", "")
            fields["details"] = (
                ResourceInfo(resource_type=f"{kind}.{group}" if kind and group else kind or group, resource_name=resource.get("name", "")),
            )
        if left:
            extensions["details"] = left
        return delay
