#!/usr/bin/env python
"""Issue 29's speed targets, every row of its table that one process can measure, interleaved.

    python bench/targets29.py                        # this tree's errconv alone
    python bench/targets29.py --base /tmp/base29/src # and an older tree's, copied as errconv_base

The model is bench/targets18.py: each timed function runs N calls per round (process CPU
time, gc off), R rounds, the functions of both builds in turns within a round; each ratio
is the median of the ratios taken within a round. Rows, per build:

- convert / floor: `convert(data, to, source)` over every JSON dialect pair errconv both
  reads and writes (form "json" and `encodes`, from the registry) on every golden fault
  (`--cases`), over the msgspec I/O floor: msgspec decode of the input plus msgspec encode
  of the output's parsed value. Worst pair, median, and the worst pair by target
  (targets: worst <= 8x, median <= 4x);
- json_format: json + protobuf json_format (bench/alternatives.py) over errconv on
  google <-> problem and google <-> status-json (target: >= 6x at worst, google<->problem);
- from_http: google-api-core `from_http_response` over `errconv.from_http`, each given a
  requests.Response set by hand inside the timed call (target: >= 1.5x);
- detect: `detect` on a whole HTTP response over a msgspec parse of its body (target: <= 3x);
- import: `python -c "import errconv"` over `python -c "import <its dependencies>"`
  (msgspec and the protobuf modules errconv imports), bytecode cached, wall time of the
  child, median of `--imports` runs each, in turns (target: <= 1.3x); printed beside it,
  import plus a first decode, which a lazy import defers but does not remove;
- --lines: `errconv convert --lines --to google` run in process (`errconv._cli.main`
  on a BytesIO) over `--lines` lines that never repeat (every golden JSON body of the
  readable dialects, a counter in its detail), over a per-line msgspec floor (decode
  the line, encode the output line's parsed value, join) (target: <= 3.5x);
- batch.rows: `list(batch.rows(lines, to="problem"))` on the same kind of rows over the
  same floor (target: <= 4x);
- gateway: ProblemMiddleware on a 200 against bench/gateway.py's minimal correct
  middleware, microseconds a request (target: <= +0.2 us).

Not measured here: the compiled build (bench/run.py times it in an interpreter that has it).
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import io
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time
from functools import partial
from typing import Any

import msgspec

ROOT = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[1])
parser.add_argument("--base", type=pathlib.Path, help="an older tree's src/ to measure beside this one")
parser.add_argument("--iterations", "-n", type=int, default=100)
parser.add_argument("--repeats", "-r", type=int, default=5)
parser.add_argument("--cases", default="all", help="golden cases, comma-separated, or all")
parser.add_argument("--lines", type=int, default=20000, help="unique lines for --lines and batch.rows")
parser.add_argument("--imports", type=int, default=9, help="import runs of each kind")
parser.add_argument("--output", type=pathlib.Path, help="write the ratios as JSON here")
parser.add_argument("-v", action="store_true", help="also the twelve worst pairs")
args = parser.parse_args()

SRC = {"new": ROOT / "src"}
if args.base is not None:
    import atexit
    import tempfile

    where = pathlib.Path(tempfile.mkdtemp(prefix="errconv-base-"))
    atexit.register(shutil.rmtree, where, True)
    shutil.copytree(args.base / "errconv", where / "errconv_base", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    sys.path.insert(0, str(where))
    SRC["base"] = args.base.resolve()
sys.path.insert(0, str(ROOT / "src"))
import errconv  # noqa: E402
from errconv import batch as _batch_new  # noqa: E402
from errconv import dialects as _dialects  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
import alternatives  # noqa: E402
import gateway as _gw  # noqa: E402

builds: dict[str, Any] = {"new": errconv}
if args.base is not None:
    builds["base"] = importlib.import_module("errconv_base")
for _api in builds.values():  # the submodules a lazy package only imports when asked
    importlib.import_module(_api.__name__ + ".batch")
    importlib.import_module(_api.__name__ + "._cli")
    importlib.import_module(_api.__name__ + ".gateway")

from google.api_core import exceptions as gexc  # noqa: E402

JSON = tuple(d.name for d in _dialects.registered() if d.form == "json" and d.encodes)
ALL_CASES = sorted(p.name for p in (ROOT / "golden").iterdir() if (p / "fault.json").is_file())
CASES = ALL_CASES if args.cases == "all" else args.cases.split(",")


by_hand = alternatives.response_builder()


def floor_of(data: bytes, parsed_out: Any) -> bytes:
    msgspec.json.decode(data)
    return msgspec.json.encode(parsed_out)


fns: dict[str, Any] = {}
pairs: list[str] = []
skipped: list[str] = []
faults = {case: errconv.Fault.from_json((ROOT / "golden" / case / "fault.json").read_bytes()) for case in CASES}
for case, fault in faults.items():
    data = {}
    for d in JSON:
        try:
            data[d] = errconv.encode(fault, d)
        except errconv.ErrconvError:
            pass
    for a in data:
        for b in JSON:
            key = f"{case}:{a}->{b}"
            try:
                outs = {name: api.convert(data[a], b, a) for name, api in builds.items()}
            except Exception as exc:  # noqa: BLE001 - a pair one build cannot convert is left out, and counted
                skipped.append(f"{key} ({type(exc).__name__})")
                continue
            pairs.append(key)
            fns[f"floor:{key}"] = partial(floor_of, data[a], msgspec.json.decode(outs["new"]))
            for name, api in builds.items():
                fns[f"conv@{name}:{key}"] = partial(api.convert, data[a], b, a)
    for a, b in alternatives.CONVERSIONS:
        if a in data:
            try:
                alternatives.CONVERSIONS[(a, b)](data[a])
            except Exception as exc:  # noqa: BLE001 - json_format refuses what its pool lacks (an unknown detail type)
                skipped.append(f"json_format {case}:{a}->{b} ({type(exc).__name__})")
                continue
            fns[f"jf:{case}:{a}->{b}"] = partial(alternatives.CONVERSIONS[(a, b)], data[a])
    resp = errconv.to_http(fault, "google")
    whole = errconv.encode(fault, "http+google")
    hdrs = [(k, v) for k, v in resp.headers]
    fns[f"apicore:{case}"] = lambda s=resp.status, h=hdrs, b=resp.body: gexc.from_http_response(by_hand(s, h, b))
    fns[f"msgparse:{case}"] = partial(msgspec.json.decode, resp.body)
    for name, api in builds.items():
        fns[f"fromhttp@{name}:{case}"] = lambda s=resp.status, h=hdrs, b=resp.body, api=api: api.from_http(by_hand(s, h, b))
        fns[f"detect@{name}:{case}"] = partial(api.detect, whole)


# --------------------------------------------------------------------------- unique lines


def unique_lines(n: int) -> list[bytes]:
    """`n` JSON bodies, none repeated: the golden JSON bodies of every readable dialect in
    turn, a counter inside their detail (the shapes repeat, the bytes never)."""
    templates = []
    for fault in (errconv.Fault.from_json(p.read_bytes()) for p in sorted((ROOT / "golden").glob("*/fault.json"))):
        if not fault.detail:
            continue
        marker = msgspec.json.encode(fault.detail)[1:-1]
        for d in JSON:
            try:
                body = errconv.encode(fault, d)
            except errconv.ErrconvError:
                continue
            body = msgspec.json.encode(msgspec.json.decode(body))  # one line
            if marker in body:
                templates.append((body, marker))
    out = []
    for i in range(n):
        body, marker = templates[i % len(templates)]
        out.append(body.replace(marker, marker + b" #" + str(i).encode()))
    return out


LINES = unique_lines(args.lines)
LINES_IN = b"\n".join(LINES) + b"\n"
for name, api in builds.items():  # every line must convert, in both builds
    out = io.BytesIO()
    code = api._cli.main(["convert", "--lines", "--to", "google"], stdin=io.BytesIO(LINES_IN), stdout=out, stderr=io.StringIO())
    if code != 0:
        raise SystemExit(f"{name}: convert --lines failed ({code})")
    if name == "new":
        OUT_PARSED = [msgspec.json.decode(line) for line in out.getvalue().splitlines()]
    if name == "new":
        ROWS_PARSED = [msgspec.json.decode(row.body) for row in api.batch.rows(LINES, to="problem")]


def lines_floor(parsed_out: list[Any]) -> None:
    decode, encode = msgspec.json.decode, msgspec.json.encode
    out = io.BytesIO()
    for line, value in zip(io.BytesIO(LINES_IN), parsed_out):
        decode(line)
        out.write(encode(value) + b"\n")


def lines_run(api: Any) -> None:
    api._cli.main(["convert", "--lines", "--to", "google"], stdin=io.BytesIO(LINES_IN), stdout=io.BytesIO(), stderr=io.StringIO())


def rows_run(api: Any) -> None:
    for row in api.batch.rows(LINES, to="problem"):
        pass


BIG = {"floor-lines": partial(lines_floor, OUT_PARSED), "floor-rows": partial(lines_floor, ROWS_PARSED)}
for name, api in builds.items():
    BIG[f"lines@{name}"] = partial(lines_run, api)
    BIG[f"rows@{name}"] = partial(rows_run, api)

# --------------------------------------------------------------------------- gateway

_loop = asyncio.new_event_loop()
GW_N = max(args.iterations * 20, 2000)
GATE = {"minimal": _gw.driver(_gw.MinimalMiddleware(_gw.ok_app), "/ok", 200)}
for name, api in builds.items():
    GATE[f"gateway@{name}"] = _gw.driver(api.gateway.ProblemMiddleware(_gw.ok_app), "/ok", 200)

# --------------------------------------------------------------------------- timing


def per_call(fn: Any, n: int) -> float:
    gc.disable()
    t = time.process_time()
    for _ in range(n):
        fn()
    t = time.process_time() - t
    gc.enable()
    return t / n


def once(fn: Any) -> float:
    gc.collect()
    t = time.process_time()
    fn()
    return time.process_time() - t


def gate(serve: Any) -> float:
    gc.disable()
    t = time.process_time()
    _loop.run_until_complete(serve(GW_N))
    t = time.process_time() - t
    gc.enable()
    return t / GW_N


N, R = args.iterations, args.repeats
for f in fns.values():
    for _ in range(3):
        f()
S: dict[str, list[float]] = {k: [] for k in (*fns, *BIG, *GATE)}
started = time.time()
for _ in range(R):
    for k, f in fns.items():
        S[k].append(per_call(f, N))
    for k, f in BIG.items():
        S[k].append(once(f))
    for k, f in GATE.items():
        S[k].append(gate(f))

# --------------------------------------------------------------------------- imports

DEPS = "import msgspec, google.protobuf.any_pb2, google.protobuf.struct_pb2, google.protobuf.duration_pb2, google.rpc.status_pb2, google.rpc.error_details_pb2"


def child(code: str, src: pathlib.Path | None) -> float:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(src) if src is not None else ""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - t


FIRST = "import errconv; errconv.decode(b'{\"error\": {\"code\": 429, \"message\": \"slow\", \"status\": \"RESOURCE_EXHAUSTED\"}}')"
IMP: dict[str, list[float]] = {"deps": []}
for name, src in SRC.items():
    IMP[f"import@{name}"] = []
    IMP[f"first@{name}"] = []
for _ in range(2):  # bytecode written, caches warm
    child(DEPS, None)
    for name, src in SRC.items():
        child(FIRST, src)
for _ in range(args.imports):
    IMP["deps"].append(child(DEPS, None))
    for name, src in SRC.items():
        IMP[f"import@{name}"].append(child("import errconv", src))
        IMP[f"first@{name}"].append(child(FIRST, src))
elapsed = time.time() - started

# --------------------------------------------------------------------------- report


def ratio(a: str, b: str) -> float:
    return statistics.median(x / y for x, y in zip(S[a], S[b]))


def med(k: str) -> float:
    return statistics.median(S[k])


print(
    f"targets29: {len(CASES)} golden cases, {len(JSON)} JSON dialects read and written ({', '.join(JSON)}), "
    f"{len(pairs)} case-pairs ({len(skipped)} left out: one build raised), N={N}, R={R}, {len(LINES)} unique lines, "
    f"{args.imports} import runs; {elapsed:.0f} s"
)
out: dict[str, Any] = {}
dm = statistics.median(IMP["deps"])
for name in builds:
    fl = {k: ratio(f"conv@{name}:{k}", f"floor:{k}") for k in pairs}
    worst = max(fl.items(), key=lambda kv: kv[1])
    by_target: dict[str, float] = {}
    for k, v in fl.items():
        t = k.rsplit("->", 1)[1]
        by_target[t] = max(by_target.get(t, 0.0), v)
    top = sorted(by_target.items(), key=lambda kv: -kv[1])[:6]
    jf = {k[3:]: ratio(k, f"conv@{name}:{k[3:]}") for k in fns if k.startswith("jf:") and f"conv@{name}:{k[3:]}" in fns}
    gp = {k: v for k, v in jf.items() if "problem" in k}
    jw = min(jf.items(), key=lambda kv: kv[1])
    gw = min(gp.items(), key=lambda kv: kv[1])
    ac = {c: ratio(f"apicore:{c}", f"fromhttp@{name}:{c}") for c in CASES}
    dt = {c: ratio(f"detect@{name}:{c}", f"msgparse:{c}") for c in CASES}
    im = statistics.median(IMP[f"import@{name}"])
    fi = statistics.median(IMP[f"first@{name}"])
    ln = ratio(f"lines@{name}", "floor-lines")
    rw = ratio(f"rows@{name}", "floor-rows")
    gd = statistics.median((x - y) * 1e6 for x, y in zip(S[f"gateway@{name}"], S["minimal"]))
    conv_us = statistics.median(statistics.median(S[f"conv@{name}:{k}"]) for k in pairs) * 1e6
    print(f"[{name}]")
    print(f"  convert/floor          worst {worst[1]:.2f}x ({worst[0]}), median {statistics.median(fl.values()):.2f}x "
          f"(median convert {conv_us:.1f} us); worst by target: {', '.join(f'{t} {v:.1f}x' for t, v in top)}   [target worst <= 8x, median <= 4x]")
    print(f"  json_format/errconv    google<->problem worst {gw[1]:.2f}x ({gw[0]}); all four pairs worst {jw[1]:.2f}x ({jw[0]})   [target >= 6x]")
    print(f"  api-core/from_http     min {min(ac.values()):.2f}x, median {statistics.median(ac.values()):.2f}x   [target >= 1.5x]")
    print(f"  detect/msgspec parse   max {max(dt.values()):.2f}x, median {statistics.median(dt.values()):.2f}x   [target <= 3x]")
    print(f"  import/dependencies    {im / dm:.2f}x ({im * 1e3:.1f} ms vs {dm * 1e3:.1f} ms); import + first decode {fi / dm:.2f}x ({fi * 1e3:.1f} ms)   [target <= 1.3x]")
    print(f"  --lines/floor          {ln:.2f}x ({med(f'lines@{name}') / len(LINES) * 1e6:.1f} us a line, floor {med('floor-lines') / len(LINES) * 1e6:.2f} us)   [target <= 3.5x]")
    print(f"  batch.rows/floor       {rw:.2f}x ({med(f'rows@{name}') / len(LINES) * 1e6:.1f} us a row, floor {med('floor-rows') / len(LINES) * 1e6:.2f} us)   [target <= 4x]")
    print(f"  gateway success        {gd:+.2f} us a request over a minimal middleware   [target <= +0.2 us]")
    out[name] = {"floor": fl, "json_format": jf, "api_core": ac, "detect": dt, "import": im / dm, "import_first": fi / dm,
                 "lines": ln, "rows": rw, "gateway_us": gd}
if args.v:
    for k, v in sorted(out["new"]["floor"].items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {k}: new {v:.2f}x" + (f" base {out['base']['floor'][k]:.2f}x" if "base" in out else ""))
if skipped:
    print(f"left out ({len(skipped)}): {', '.join(skipped[:6])}{' ...' if len(skipped) > 6 else ''}")
if args.output is not None:
    args.output.write_text(json.dumps(out, indent=1))
