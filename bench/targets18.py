#!/usr/bin/env python
"""Issue 18's speed targets not printed by bench/run.py, measured in one process, interleaved.

    python bench/targets18.py                      # this tree's errconv alone
    python bench/targets18.py --base /tmp/base/src # and an older tree's, copied as errconv_base

Each function runs N calls per round (process CPU time, gc off), R rounds; each ratio is
the median of the ratios taken within a round. Printed per build:

- JSON->JSON convert over the msgspec I/O floor (decode of the input, encode of the
  parsed value), worst pair and median over problem, google, status-json and stripe
  on the three golden cases of bench/run.py (targets: 8x every pair, 5x median);
- json + json_format time over errconv's on the same conversions (target: 5x at worst);
- google-api-core's from_http_response time over errconv.from_http's, each given a
  requests.Response set by hand inside the timed call from the same status, headers
  and body (target: at least 1x);
- detect on a whole HTTP response over a msgspec parse of its body (target: a third of
  the ratio before).
"""
import argparse
import gc, importlib, json, pathlib, shutil, statistics, sys, time
from functools import partial
import msgspec
ROOT = pathlib.Path(__file__).resolve().parent.parent
parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
parser.add_argument("--base", type=pathlib.Path, help="an older tree's src/ to measure beside this one")
parser.add_argument("--iterations", "-n", type=int, default=300)
parser.add_argument("--repeats", "-r", type=int, default=5)
parser.add_argument("--output", type=pathlib.Path, help="write the ratios as JSON here")
parser.add_argument("-v", action="store_true", help="also the twelve worst pairs")
args = parser.parse_args()
if args.base is not None:
    import tempfile
    import atexit
    where = pathlib.Path(tempfile.mkdtemp(prefix="errconv-base-"))
    atexit.register(shutil.rmtree, where, True)
    shutil.copytree(args.base / "errconv", where / "errconv_base", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    sys.path.insert(0, str(where))
import errconv
sys.path.insert(0, str(ROOT / "bench"))
import alternatives
builds = {"new": errconv}
if args.base is not None:
    builds["base"] = importlib.import_module("errconv_base")
CASES = ("rate_limited", "validation_failed", "quota_failure")
JSON = ("problem", "google", "status-json", "stripe")
from google.api_core import exceptions as gexc

by_hand = alternatives.response_builder()

fns = {}
for case in CASES:
    fault = errconv.Fault.from_json((ROOT / "golden" / case / "fault.json").read_bytes())
    data = {d: errconv.encode(fault, d) for d in JSON}
    resp = errconv.to_http(fault, "google")
    whole = errconv.encode(fault, "http+google")
    hdrs = [(k, v) for k, v in resp.headers]
    for d in JSON:
        fns[f"floor:{case}:{d}"] = partial(lambda b: msgspec.json.encode(msgspec.json.decode(b)), data[d])
    for (a, b), alt in alternatives.CONVERSIONS.items():
        fns[f"jf:{case}:{a}->{b}"] = partial(alt, data[a])
    fns[f"apicore:{case}"] = lambda s=resp.status, h=hdrs, b=resp.body: gexc.from_http_response(by_hand(s, h, b))
    body_only = resp.body
    fns[f"msgparse:{case}"] = partial(msgspec.json.decode, body_only)
    for name, api in builds.items():
        for a in JSON:
            for b in JSON:
                fns[f"conv@{name}:{case}:{a}->{b}"] = partial(api.convert, data[a], b, a)
        fns[f"fromhttp@{name}:{case}"] = lambda s=resp.status, h=hdrs, b=resp.body, api=api: api.from_http(by_hand(s, h, b))
        fns[f"detect@{name}:{case}"] = partial(api.detect, whole)

def per_call(fn, n):
    gc.disable()
    t = time.process_time()
    for _ in range(n):
        fn()
    t = time.process_time() - t
    gc.enable()
    return t / n

N, R = args.iterations, args.repeats
for f in fns.values():
    for _ in range(3): f()
S = {k: [] for k in fns}
for _ in range(R):
    for k, f in fns.items():
        S[k].append(per_call(f, N))
def ratio(a, b):
    return statistics.median(x / y for x, y in zip(S[a], S[b]))
out = {}
for name in builds:
    fl = {f"{c}:{a}->{b}": ratio(f"conv@{name}:{c}:{a}->{b}", f"floor:{c}:{a}") for c in CASES for a in JSON for b in JSON}
    worst = max(fl.items(), key=lambda kv: kv[1])
    jf = {f"{c}:{a}->{b}": ratio(f"jf:{c}:{a}->{b}", f"conv@{name}:{c}:{a}->{b}") for c in CASES for (a, b) in alternatives.CONVERSIONS}
    jw = min(jf.items(), key=lambda kv: kv[1])
    ac = {c: ratio(f"apicore:{c}", f"fromhttp@{name}:{c}") for c in CASES}
    dt = {c: ratio(f"detect@{name}:{c}", f"msgparse:{c}") for c in CASES}
    print(f"[{name}] floor worst {worst[1]:.2f}x ({worst[0]}), median {statistics.median(fl.values()):.2f}x; "
          f"json_format worst {jw[1]:.2f}x ({jw[0]}); from_http vs api_core(by hand) min {min(ac.values()):.2f}x {', '.join(f'{v:.2f}' for v in ac.values())}; "
          f"detect/msgparse max {max(dt.values()):.1f}x")
    out[name] = {"floor": fl, "json_format": jf, "api_core": ac, "detect": dt}
if args.v:
    for k, v in sorted(out["new"]["floor"].items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {k}: new {v:.2f}x" + (f" base {out['base']['floor'][k]:.2f}x" if 'base' in out else ""))
if args.output is not None:
    args.output.write_text(json.dumps(out, indent=1))
