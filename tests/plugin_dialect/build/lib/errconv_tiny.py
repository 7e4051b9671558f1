"""The Tiny error format, an errconv dialect that lives outside errconv.

    {"tiny": {"code": "out_of_coffee", "why": "The pot is empty", "status": 503, "wait": 30}}

`application/vnd.tiny+json` in HTTP. Tiny has no home for a domain, metadata,
violations or details: errconv.losses() names them.
"""

from __future__ import annotations

import json
from typing import Any

from errconv.codes import code_for_http
from errconv.dialects import CERTAIN, Dialect, HttpInfo, Reading, Writing

MEMBERS = ("code", "why", "status", "wait", "param", "next")


class Tiny(Dialect):
    name = "tiny"
    media_type = "application/vnd.tiny+json"
    reserved = frozenset(MEMBERS)

    def recognise(self, value: Any, http: HttpInfo | None) -> float:
        if http is not None and http.media_type == self.media_type:
            return CERTAIN
        if isinstance(value, dict) and list(value) == ["tiny"] and isinstance(value["tiny"], dict):
            return CERTAIN
        return 0.0

    def decode(self, value: Any, reading: Reading) -> Any:
        inner = value["tiny"]
        status = inner.get("status") if isinstance(inner.get("status"), int) else None
        status = reading.http_status_wins(status) or 500
        fields: dict[str, Any] = {"status": status, "grpc_code": code_for_http(status)}
        for member, field in (("code", "code"), ("why", "detail"), ("param", "param")):
            if isinstance(inner.get(member), str):
                fields[field] = inner[member]
        if isinstance(inner.get("wait"), int):
            fields["retry_after_seconds"] = inner["wait"]
        extensions = {k: v for k, v in inner.items() if k not in MEMBERS}
        if extensions:
            fields["extensions"] = extensions
        stated = inner.get("next") if inner.get("next") in ("fix_request", "wait", "give_up") else None
        return reading.finish(fields, stated)

    def encode(self, fault: Any, writing: Writing) -> bytes:
        inner: dict[str, Any] = {"status": fault.status}
        if fault.code is not None:
            inner["code"] = fault.code
        if fault.detail is not None:
            inner["why"] = fault.detail
        if fault.param is not None:
            inner["param"] = fault.param
        if fault.retry_after_seconds is not None:
            inner["wait"] = fault.retry_after_seconds
        if fault.next_step is not None:
            inner["next"] = str(fault.next_step)
        for name, item in fault.extensions.items():
            if name not in MEMBERS:
                inner[name] = item
        return json.dumps({"tiny": inner}, separators=(",", ":"), ensure_ascii=False).encode()
