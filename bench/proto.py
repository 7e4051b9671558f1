#!/usr/bin/env python
"""The protobuf path against the same work written by hand, on every golden Status.

    python bench/proto.py                  # about half a minute on two cores
    python bench/proto.py --iterations 300 --repeats 3 --case rate_limited

For each golden case (golden/<case>/status.binpb) two pairs run interleaved, in one
process, garbage collection off while a loop runs and timed in process CPU time:

- decode: `errconv.convert(status, "problem", "status")` (the Status read into a
  Fault, the Fault written as problem JSON) against the hand-written read: the
  Status parsed with `FromString`, each detail's class looked up by its type URL in
  a dict and `FromString` run on its value, and every value read into Python
  (str, int, bool, dict, list; a Struct walked value by value), unknown types kept
  as their bytes. The issue's target: errconv within 2x of it. `+json` beside it is
  the hand-written read followed by `msgspec.json.encode` of what it read, for what
  writing JSON adds on the hand-written side;
- encode: `errconv.encode(fault, "status")` against the hand-written write of the
  values the hand-written read gave (each detail built by its class's constructor,
  nested messages and maps as dicts, a Struct with `update`, serialised, then the
  Status around them). Both give the golden bytes (checked).

Each ratio is printed twice: best of (the fastest round of each side) and the median
of the ratios taken within a round.
"""

from __future__ import annotations

import argparse
import gc
import pathlib
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec
from google.protobuf import struct_pb2
from google.rpc import error_details_pb2 as ed
from google.rpc import status_pb2

import errconv
from errconv._proto.errconv.v1 import problem_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
PREFIX = "type.googleapis.com/"

Fn = Callable[[], Any]


# --------------------------------------------------------------------------- the hand-written path


def _value(v: struct_pb2.Value) -> Any:
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        return v.string_value
    if kind == "number_value":
        return v.number_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return _struct(v.struct_value)
    if kind == "list_value":
        return [_value(x) for x in v.list_value.values]
    return None


def _struct(s: struct_pb2.Struct) -> dict[str, Any]:
    fields = s.fields
    return {k: _value(fields[k]) for k in fields}


def _link(m: Any) -> dict[str, Any]:
    return {"description": m.description, "url": m.url}


def _localized(m: Any) -> dict[str, Any]:
    return {"locale": m.locale, "message": m.message}


def _field_violation(m: Any) -> dict[str, Any]:
    out = {"field": m.field, "description": m.description, "reason": m.reason}
    if m.HasField("localized_message"):
        out["localized_message"] = _localized(m.localized_message)
    return out


def _quota_violation(m: Any) -> dict[str, Any]:
    out = {
        "subject": m.subject,
        "description": m.description,
        "api_service": m.api_service,
        "quota_metric": m.quota_metric,
        "quota_id": m.quota_id,
        "quota_dimensions": dict(m.quota_dimensions),
        "quota_value": m.quota_value,
    }
    if m.HasField("future_quota_value"):
        out["future_quota_value"] = m.future_quota_value
    return out


def _problem(m: Any) -> dict[str, Any]:
    out = {
        "type": m.type,
        "title": m.title,
        "instance": m.instance,
        "http_status": m.http_status,
        "code": m.code,
        "reason_synthesized": m.reason_synthesized,
        "message_is_title": m.message_is_title,
        "alternatives": [_value(v) for v in m.alternatives],
        "alternatives_truncated": m.alternatives_truncated,
    }
    if m.HasField("extensions"):
        out["extensions"] = _struct(m.extensions)
    return out


# type URL -> (the class, its reader into Python values)
READERS: dict[str, tuple[Any, Callable[[Any], dict[str, Any]]]] = {
    PREFIX + "google.rpc.ErrorInfo": (
        ed.ErrorInfo,
        lambda m: {"reason": m.reason, "domain": m.domain, "metadata": dict(m.metadata)},
    ),
    PREFIX + "google.rpc.RetryInfo": (
        ed.RetryInfo,
        lambda m: {"retry_delay": {"seconds": m.retry_delay.seconds, "nanos": m.retry_delay.nanos}},
    ),
    PREFIX + "google.rpc.BadRequest": (
        ed.BadRequest,
        lambda m: {"field_violations": [_field_violation(v) for v in m.field_violations]},
    ),
    PREFIX + "google.rpc.QuotaFailure": (
        ed.QuotaFailure,
        lambda m: {"violations": [_quota_violation(v) for v in m.violations]},
    ),
    PREFIX + "google.rpc.PreconditionFailure": (
        ed.PreconditionFailure,
        lambda m: {
            "violations": [
                {"type": v.type, "subject": v.subject, "description": v.description} for v in m.violations
            ]
        },
    ),
    PREFIX + "google.rpc.ResourceInfo": (
        ed.ResourceInfo,
        lambda m: {
            "resource_type": m.resource_type,
            "resource_name": m.resource_name,
            "owner": m.owner,
            "description": m.description,
        },
    ),
    PREFIX + "google.rpc.RequestInfo": (
        ed.RequestInfo,
        lambda m: {"request_id": m.request_id, "serving_data": m.serving_data},
    ),
    PREFIX + "google.rpc.Help": (ed.Help, lambda m: {"links": [_link(x) for x in m.links]}),
    PREFIX + "google.rpc.LocalizedMessage": (ed.LocalizedMessage, _localized),
    PREFIX + "google.rpc.DebugInfo": (
        ed.DebugInfo,
        lambda m: {"stack_entries": list(m.stack_entries), "detail": m.detail},
    ),
    PREFIX + "errconv.v1.Problem": (problem_pb2.Problem, _problem),
    PREFIX + "errconv.v1.OpaqueDetail": (
        problem_pb2.OpaqueDetail,
        lambda m: {"type_url": m.type_url, "fields": _struct(m.fields)},
    ),
}


def hand_read(data: bytes) -> dict[str, Any]:
    """The Status and every detail in it as Python values (unknown types as their bytes)."""
    status = status_pb2.Status.FromString(data)
    details = []
    for any_ in status.details:
        url = any_.type_url
        known = READERS.get(url)
        if known is None:
            details.append((url, any_.value))
        else:
            cls, read = known
            details.append((url, read(cls.FromString(any_.value))))
    return {"code": status.code, "message": status.message, "details": details}


def _json_ready(value: Any) -> Any:
    return {**value, "details": [[url, d if isinstance(d, dict) else d.hex()] for url, d in value["details"]]}


def hand_read_json(data: bytes) -> bytes:
    """hand_read, then the values written as JSON by msgspec (bytes as hex)."""
    return msgspec.json.encode(_json_ready(hand_read(data)))


# --------------------------------------------------------------------------- hand-written encode

_STRUCT_FIELDS = {PREFIX + "errconv.v1.Problem": "extensions", PREFIX + "errconv.v1.OpaqueDetail": "fields"}


def _pb_value(value: Any) -> struct_pb2.Value:
    """A google.protobuf.Value, containers filled by the well-known type's own helpers."""
    if isinstance(value, dict):
        out = struct_pb2.Value()
        out.struct_value.SetInParent()
        out.struct_value.update(value)
        return out
    if isinstance(value, list):
        out = struct_pb2.Value()
        out.list_value.SetInParent()
        out.list_value.extend(value)
        return out
    if value is None:
        return struct_pb2.Value(null_value=0)
    if isinstance(value, bool):
        return struct_pb2.Value(bool_value=value)
    if isinstance(value, (int, float)):
        return struct_pb2.Value(number_value=value)
    return struct_pb2.Value(string_value=value)


def hand_write(values: dict[str, Any]) -> bytes:
    """The Status bytes of what hand_read gave: each detail by its class's constructor."""
    packed = []
    for url, fields in values["details"]:
        known = READERS.get(url)
        if known is None:
            packed.append({"type_url": url, "value": fields})
            continue
        cls = known[0]
        struct_name = _STRUCT_FIELDS.get(url)
        if struct_name is not None:
            fields = dict(fields)
            struct = fields.pop(struct_name, None)
            if "alternatives" in fields:
                fields["alternatives"] = [_pb_value(v) for v in fields["alternatives"]]
            msg = cls(**fields)
            if struct is not None:
                getattr(msg, struct_name).update(struct)
                if not struct:
                    getattr(msg, struct_name).SetInParent()
        else:
            msg = cls(**fields)
        packed.append({"type_url": url, "value": msg.SerializeToString(deterministic=True)})
    status = status_pb2.Status(code=values["code"], message=values["message"], details=packed)
    return status.SerializeToString()


# --------------------------------------------------------------------------- timing


def per_call(fn: Fn, iterations: int) -> float:
    """CPU seconds per call, gc off as in timeit (see bench/run.py)."""
    loop = range(iterations)
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        for _ in loop:
            fn()
        return (time.process_time() - start) / iterations
    finally:
        if enabled:
            gc.enable()


def functions(case: str) -> dict[str, Fn]:
    data = (GOLDEN / case / "status.binpb").read_bytes()
    fault = errconv.decode(data, "status")
    values = hand_read(data)
    if hand_write(values) != data:
        raise AssertionError(f"{case}: the hand-written encode does not give the golden bytes")
    if errconv.encode(fault, "status") != data:
        raise AssertionError(f"{case}: errconv's encode does not give the golden bytes")
    # The golden problem in meaning (a Status holds metadata sorted, so its order may differ).
    golden_problem = errconv.decode((GOLDEN / case / "problem.json").read_bytes(), "problem")
    if errconv.decode(errconv.convert(data, "problem", "status"), "problem") != golden_problem:
        raise AssertionError(f"{case}: errconv's status -> problem is not the golden problem")
    return {
        "errconv:decode": partial(errconv.convert, data, "problem", "status"),
        "hand:decode": partial(hand_read, data),
        "hand:decode+json": partial(hand_read_json, data),
        "errconv:encode": partial(errconv.encode, fault, "status"),
        "hand:encode": partial(hand_write, values),
    }


def measure(case: str, iterations: int, repeats: int) -> dict[str, list[float]]:
    fns = functions(case)
    for fn in fns.values():
        for _ in range(3):
            fn()
    samples: dict[str, list[float]] = {key: [] for key in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            samples[key].append(per_call(fn, iterations))
    return samples


def ratios(samples: dict[str, list[float]], slow: str, fast: str) -> tuple[float, float]:
    """(best of, median of the per-round ratios) of time(slow) / time(fast)."""
    best = min(samples[slow]) / min(samples[fast])
    return best, statistics.median(s / f for s, f in zip(samples[slow], samples[fast]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--case", action="append", help="a golden case (default: every case with a status.binpb)")
    args = parser.parse_args(argv)
    cases = args.case or sorted(p.parent.name for p in GOLDEN.glob("*/status.binpb"))
    header = (
        f"{'case':24} {'errconv dec':>11} {'hand dec':>9} {'ratio best/med':>15} {'+json best/med':>15}"
        f" {'errconv enc':>11} {'hand enc':>9} {'ratio best/med':>15}"
    )
    print(header)
    print("-" * len(header))
    decode_ratios, encode_ratios, json_ratios = [], [], []
    for case in cases:
        s = measure(case, args.iterations, args.repeats)
        d = ratios(s, "errconv:decode", "hand:decode")
        j = ratios(s, "errconv:decode", "hand:decode+json")
        e = ratios(s, "errconv:encode", "hand:encode")
        decode_ratios.append(d[1])
        json_ratios.append(j[1])
        encode_ratios.append(e[1])
        us = {k: min(v) * 1e6 for k, v in s.items()}
        print(
            f"{case:24} {us['errconv:decode']:9.2f}us {us['hand:decode']:7.2f}us {d[0]:7.2f}/{d[1]:<7.2f}"
            f" {j[0]:7.2f}/{j[1]:<7.2f} {us['errconv:encode']:9.2f}us {us['hand:encode']:7.2f}us"
            f" {e[0]:7.2f}/{e[1]:<7.2f}"
        )
    print("-" * len(header))
    for name, values in (
        ("status -> problem / hand read", decode_ratios),
        ("status -> problem / hand read+json", json_ratios),
        ("status encode / hand encode", encode_ratios),
    ):
        print(
            f"{name:36} median {statistics.median(values):.2f}x, worst {max(values):.2f}x"
            f" ({cases[values.index(max(values))]}), best {min(values):.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
