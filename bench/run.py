#!/usr/bin/env python
"""errconv benchmarks: ratios measured side by side in one process.

    python bench/run.py                          # one to three minutes on two cores
    python bench/run.py --iterations 200 --repeats 3 --output /tmp/quick.json
    python bench/run.py --compare bench/results-before.json

Every figure is a median over `--repeats` rounds. In each round every function
runs `--iterations` times in turn (garbage collection off while a loop runs, as
timeit does, and timed in process CPU time), so whatever the machine is doing
weighs on all of them alike, and each ratio is the median of the ratios taken
within a round.

What is measured, for the golden cases in CASES:

- decode, encode and convert per second, for every dialect and every ordered pair
  of DIALECTS (`convert(data, to, source)` with the source named);
- the floor: `msgspec.json.decode` + `msgspec.json.encode` of the input bytes, and
  every JSON-to-JSON conversion as a multiple of it (target: at most 5x, issue 9);
- the usual alternative (json + google.protobuf.json_format, bench/alternatives.py)
  against errconv on the same conversion (target: errconv at least 7x faster);
- google-api-core's `from_http_response` on a Google error response against
  `errconv.decode(..., "http")` on the same response bytes (target: at least 6x
  faster): requests builds api-core's Response from the bytes as it does off a
  socket, since errconv's figure includes reading the status line and headers.
  Beside it, api-core given a Response built once by hand (HTTP parsing left out);
- Status bytes -> problem JSON and back;
- memory: the peak bytes tracemalloc sees allocated during one conversion.

Both builds side by side. Run by an interpreter whose errconv is the compiled build
(ERRCONV_COMPILE=1, docs/compiled.md), every errconv function is timed
twice in each round, once compiled and once as the pure-Python build (the package's
Python sources, copied and imported as `errconv_pure`), so each compiled/pure ratio
is taken within a round as the others are; the compiled build has targets of its own
(COMPILED_TARGETS). Run by the pure build, it hands the run to `.venv-compiled` (or
`--compiled-python`) when that holds a compiled build of these very sources, and
otherwise measures the pure build alone and says how to get the other. `--pure-only`
measures only the pure build.

The results go to `--output` as JSON (bench/results.json by default, not
committed); `--compare` prints the change against an earlier results file.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from importlib import metadata
from typing import Any

import msgspec

import errconv

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import alternatives

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
CASES = ("rate_limited", "validation_failed", "quota_failure")
DIALECTS = ("problem", "google", "status-json", "status", "grpc", "stripe", "http+problem")
JSON_DIALECTS = ("problem", "google", "status-json", "stripe")
STATUS_PATH = (("status", "problem"), ("problem", "status"))
# The pure build's targets (issue 9, the open core), worst case over every case and pair.
TARGETS = {
    "floor": "JSON-to-JSON convert at most 5x the msgspec floor",
    "json_format": "errconv at least 7x faster than json + json_format",
    "api_core": "errconv.decode(http) at least 6x faster than api_core.from_http_response, from the same bytes",
}
# The compiled build's targets (issue 14), worst case over every case and pair.
COMPILED_TARGETS = {
    "floor": "JSON-to-JSON convert at most 3.5x the msgspec floor",
    "json_format": "errconv at least 10x faster than json + json_format",
    "api_core": "errconv.decode(http) at least 8x faster than api_core.from_http_response, from the same bytes",
    "status_path": "Status bytes -> problem at most 2x the hand-written protobuf path",
}
LIMITS = {"floor": 5.0, "json_format": 7.0, "api_core": 6.0}
COMPILED_LIMITS = {"floor": 3.5, "json_format": 10.0, "api_core": 8.0, "status_path": 2.0}
DEFAULT_OUTPUT = ROOT / "bench" / "results.json"
# Calls per function per round: fewer when both builds are timed (twice the functions),
# so that a run stays within two to three minutes on two cores.
ITERATIONS, ITERATIONS_TWO_BUILDS = 1500, 800
COMPILED_VENV = ROOT / ".venv-compiled"
# The keys of the functions that call errconv (timed once per build); the rest are the baselines.
ERRCONV_KINDS = ("decode:", "encode:", "convert:", "api_core:errconv")

Fn = Callable[[], Any]


def source_name(dialect: str) -> str:
    """The name `decode` takes for what `dialect` writes (every http+ body reads as `http`)."""
    return "http" if dialect.startswith("http+") else dialect


# --------------------------------------------------------------------------- inputs


def inputs(case: str) -> dict[str, Any]:
    """What each dialect writes for a golden case (grpc as the pairs grpcio hands over)."""
    fault = errconv.Fault.from_json((GOLDEN / case / "fault.json").read_bytes())
    out = {d: errconv.encode(fault, d) for d in DIALECTS}
    out["http+google"] = errconv.encode(fault, "http+google")
    return out


def functions(case: str, api: Any = errconv) -> dict[str, Fn]:
    """Every timed function of one case, by a stable key (`kind:detail`); `api` is the
    errconv build the errconv functions call."""
    return {**errconv_functions(case, api), **baseline_functions(case)}


def errconv_functions(case: str, api: Any = errconv) -> dict[str, Fn]:
    """The functions that call errconv (`api`: either build), on the same input bytes."""
    data = inputs(case)
    fault = api.decode(data["problem"], "problem")
    fns: dict[str, Fn] = {}
    for d in DIALECTS:
        fns[f"decode:{d}"] = partial(api.decode, data[d], source_name(d))
        fns[f"encode:{d}"] = partial(api.encode, fault, d)
    for a in DIALECTS:
        for b in DIALECTS:
            fns[f"convert:{a}->{b}"] = partial(api.convert, data[a], b, source_name(a))
    fns["api_core:errconv"] = partial(api.decode, data["http+google"], "http")
    return fns


def baseline_functions(case: str) -> dict[str, Fn]:
    """The floor and the alternatives, which do not depend on the build."""
    data = inputs(case)
    fns: dict[str, Fn] = {}
    for d in JSON_DIALECTS:
        fns[f"floor:{d}"] = partial(_floor, data[d])
    for (a, b), alt in alternatives.CONVERSIONS.items():
        fns[f"json_format:{a}->{b}"] = partial(alt, data[a])
    for (a, b), alt in alternatives.PROTOBUF.items():
        fns[f"protobuf:{a}->{b}"] = partial(alt, data[a])
    response = alternatives.api_core_response(data["http+google"])
    fns["api_core:from_http_response"] = partial(alternatives.api_core_from_bytes, data["http+google"])
    fns["api_core:given_response"] = partial(alternatives.from_http_response, response)
    return fns


def _floor(data: bytes) -> bytes:
    return msgspec.json.encode(msgspec.json.decode(data))


def check(case: str) -> None:
    """Every alternative did the same work errconv did (same codes, same delay), or the ratio means nothing."""
    data = inputs(case)
    want = errconv.decode(data["problem"], "problem")
    for (a, b), alt in {**alternatives.CONVERSIONS, **alternatives.PROTOBUF}.items():
        got = errconv.decode(alt(data[a]), b)
        if (got.grpc_code, got.retry_after_seconds, got.detail or got.title) != (
            want.grpc_code,
            want.retry_after_seconds,
            want.detail or want.title,
        ):
            raise AssertionError(f"{case}: the json_format {a}->{b} conversion lost meaning: {got!r}")
    for exc in (
        alternatives.from_http_response(alternatives.api_core_response(data["http+google"])),
        alternatives.api_core_from_bytes(data["http+google"]),
    ):
        if exc.code != want.status or exc.details != json.loads(data["google"])["error"]["details"]:
            raise AssertionError(f"{case}: api_core read {exc.code} and details {exc.details!r}, not what errconv wrote")


# --------------------------------------------------------------------------- timing


def per_call(fn: Fn, iterations: int) -> float:
    """CPU seconds per call of `fn`, over `iterations` calls, gc off as in timeit.

    CPU time of this process, not wall time: on a shared two-core machine another
    process taking the core would otherwise count against whichever function was
    running. The code measured is single-threaded, so the two agree on a quiet machine.
    """
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


def rounds(fns: dict[str, Fn], iterations: int, repeats: int) -> dict[str, list[float]]:
    """`repeats` rounds; in each, every function runs `iterations` times in turn."""
    for fn in fns.values():  # warm up: caches, first-call imports
        for _ in range(3):
            fn()
    samples: dict[str, list[float]] = {key: [] for key in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            samples[key].append(per_call(fn, iterations))
    return samples


def ratio(samples: dict[str, list[float]], slow: str, fast: str) -> float:
    """The median over rounds of time(slow) / time(fast), each pair from one round."""
    return statistics.median(s / f for s, f in zip(samples[slow], samples[fast]))


def peak_bytes(fn: Fn) -> int:
    """Peak bytes allocated during one call (tracemalloc must be tracing)."""
    fn()  # anything cached on a first call stays out of the figure
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1] - before
    del result
    return peak


# --------------------------------------------------------------------------- one case


def run_case(case: str, iterations: int, repeats: int, builds: dict[str, Any] | None = None) -> dict[str, Any]:
    """One case measured; `builds` maps a build's name ("pure", "compiled") to its errconv.
    The first build's figures are the result itself (as before there were two builds);
    with two, the result also holds "compiled" (the same figures for the compiled
    build) and "speedup" (pure time / compiled time, per errconv function, in-round)."""
    builds = builds or {"pure": errconv}
    check(case)
    fns = baseline_functions(case)
    for name, api in builds.items():
        fns.update({f"{key}@{name}": fn for key, fn in errconv_functions(case, api).items()})
    samples = rounds(fns, iterations, repeats)
    # One collection before, none between: in a large process (the test suite) each
    # gc.collect() costs a tenth of a second, and garbage left between calls does not
    # move a peak measured from the bytes traced before the call.
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        memory = {key: peak_bytes(fn) for key, fn in fns.items() if not key.startswith(("decode:", "encode:"))}
    finally:
        tracemalloc.stop()
        if enabled:
            gc.enable()
    names = list(builds)
    result = summary(samples, memory, names[0])
    if len(names) > 1:
        result["compiled"] = summary(samples, memory, names[1])
        result["speedup"] = {
            key.split("@", 1)[0]: ratio(samples, key, key.replace(f"@{names[0]}", f"@{names[1]}"))
            for key in samples
            if key.endswith(f"@{names[0]}")
        }
    return result


def summary(samples: dict[str, list[float]], memory: dict[str, int], build: str) -> dict[str, Any]:
    """One build's figures of a case, from the samples of a run (keys `kind:detail@build`
    for errconv's functions, `kind:detail` for the baselines)."""

    def k(key: str) -> str:
        return f"{key}@{build}" if key.startswith(ERRCONV_KINDS) else key

    median = {key: statistics.median(values) for key, values in samples.items()}

    def per_second(key: str) -> float:
        return 1.0 / median[k(key)]

    def r(slow: str, fast: str) -> float:
        return ratio(samples, k(slow), k(fast))

    result: dict[str, Any] = {
        "decode": {d: per_second(f"decode:{d}") for d in DIALECTS},
        "encode": {d: per_second(f"encode:{d}") for d in DIALECTS},
        "convert": {f"{a}->{b}": per_second(f"convert:{a}->{b}") for a in DIALECTS for b in DIALECTS},
        "floor": {
            "per_second": {d: per_second(f"floor:{d}") for d in JSON_DIALECTS},
            "ratio": {f"{a}->{b}": r(f"convert:{a}->{b}", f"floor:{a}") for a in JSON_DIALECTS for b in JSON_DIALECTS},
        },
        "json_format": {
            f"{a}->{b}": {
                "errconv_per_second": per_second(f"convert:{a}->{b}"),
                "json_format_per_second": per_second(f"json_format:{a}->{b}"),
                "speedup": r(f"json_format:{a}->{b}", f"convert:{a}->{b}"),
            }
            for a, b in alternatives.CONVERSIONS
        },
        "api_core": {
            "errconv_per_second": per_second("api_core:errconv"),
            "api_core_per_second": per_second("api_core:from_http_response"),
            "speedup": r("api_core:from_http_response", "api_core:errconv"),
            "given_response_per_second": per_second("api_core:given_response"),
            "given_response_speedup": r("api_core:given_response", "api_core:errconv"),
        },
        "status_path": {
            f"{a}->{b}": {
                "errconv_per_second": per_second(f"convert:{a}->{b}"),
                "protobuf_per_second": per_second(f"protobuf:{a}->{b}"),
                "speedup": r(f"protobuf:{a}->{b}", f"convert:{a}->{b}"),
            }
            for a, b in STATUS_PATH
        },
    }
    keys = [f"convert:{a}->{b}" for a in DIALECTS for b in DIALECTS]
    keys += [f"floor:{d}" for d in JSON_DIALECTS]
    keys += [f"json_format:{a}->{b}" for a, b in alternatives.CONVERSIONS]
    keys += [f"protobuf:{a}->{b}" for a, b in alternatives.PROTOBUF]
    keys += ["api_core:from_http_response", "api_core:given_response", "api_core:errconv"]
    result["memory"] = {key: memory[k(key)] for key in keys}
    return result


# --------------------------------------------------------------------------- the whole run


def machine() -> dict[str, Any]:
    from google.protobuf.internal import api_implementation

    cpu = platform.processor() or platform.machine()
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for package in ("errconv", "msgspec", "protobuf", "googleapis-common-protos", "google-api-core", "mypy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "protobuf_backend": api_implementation.Type(),
        "versions": versions,
    }


def targets(cases: dict[str, dict[str, Any]], compiled: bool = False) -> dict[str, dict[str, Any]]:
    """Each target with its worst case over every case and pair, and whether it holds
    (the compiled build's targets with `compiled`)."""
    names, limits = (COMPILED_TARGETS, COMPILED_LIMITS) if compiled else (TARGETS, LIMITS)
    floor = max(
        ((r, f"{case} {pair}") for case, res in cases.items() for pair, r in res["floor"]["ratio"].items()),
    )
    fmt = min(
        ((v["speedup"], f"{case} {pair}") for case, res in cases.items() for pair, v in res["json_format"].items()),
    )
    api = min((res["api_core"]["speedup"], case) for case, res in cases.items())
    out = {
        "floor": {"target": names["floor"], "limit": limits["floor"], "worst": floor[0], "where": floor[1], "holds": floor[0] <= limits["floor"]},
        "json_format": {
            "target": names["json_format"],
            "limit": limits["json_format"],
            "worst": fmt[0],
            "where": fmt[1],
            "holds": fmt[0] >= limits["json_format"],
        },
        "api_core": {"target": names["api_core"], "limit": limits["api_core"], "worst": api[0], "where": api[1], "holds": api[0] >= limits["api_core"]},
    }
    if compiled:
        # errconv's time over the hand-written protobuf path's, Status bytes -> problem.
        slowest = max((1 / res["status_path"]["status->problem"]["speedup"], case) for case, res in cases.items())
        out["status_path"] = {
            "target": names["status_path"],
            "limit": limits["status_path"],
            "worst": slowest[0],
            "where": slowest[1],
            "holds": slowest[0] <= limits["status_path"],
        }
    return out


def run(
    iterations: int = 1500,
    repeats: int = 7,
    cases: tuple[str, ...] = CASES,
    builds: dict[str, Any] | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """Run the whole benchmark and return its results (what --output holds): the pure
    build's figures at the top level, the compiled build's under "compiled" when
    `builds` has it (see `builds_here`)."""
    builds = builds or {"pure": errconv}
    started = time.perf_counter()
    per_case = {case: run_case(case, iterations, repeats, builds) for case in cases}
    results: dict[str, Any] = {
        "machine": machine(),
        "settings": {"iterations": iterations, "repeats": repeats, "cases": list(cases), "builds": list(builds), "note": note},
        "seconds": 0.0,
        "targets": targets(per_case),
        "cases": per_case,
    }
    if "compiled" in builds:
        compiled = {case: res.pop("compiled") for case, res in per_case.items()}
        results["compiled"] = {
            "targets": targets(compiled, compiled=True),
            "cases": compiled,
            "speedup": {case: res.pop("speedup") for case, res in per_case.items()},
        }
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


# --------------------------------------------------------------------------- the two builds


def pure_build() -> Any:
    """The pure-Python build beside the compiled one, in this process: the package's
    Python sources (src/errconv, no extension module), copied and imported as
    `errconv_pure`. Every import inside errconv is relative, so the copy is whole."""
    if "errconv_pure" in sys.modules:
        return sys.modules["errconv_pure"]
    where = pathlib.Path(tempfile.mkdtemp(prefix="errconv-pure-"))
    atexit.register(shutil.rmtree, where, True)
    ignore = shutil.ignore_patterns("*.so", "*.pyd", "__pycache__")
    shutil.copytree(ROOT / "src" / "errconv", where / "errconv_pure", ignore=ignore)
    sys.path.insert(0, str(where))
    try:
        module = importlib.import_module("errconv_pure")
    finally:
        sys.path.remove(str(where))
    if module.__compiled__:
        raise AssertionError("the copy of the sources runs compiled code")
    return module


def stale_sources(installed: pathlib.Path) -> list[str]:
    """The modules of src/errconv that the errconv installed at `installed` (its package
    directory) does not hold as they are: a build of other sources than these."""
    source = ROOT / "src" / "errconv"
    if installed.resolve() == source.resolve():
        return []
    return [
        str(path.relative_to(source))
        for path in sorted(source.rglob("*.py"))
        if not (installed / path.relative_to(source)).is_file()
        or (installed / path.relative_to(source)).read_bytes() != path.read_bytes()
    ]


def builds_here() -> tuple[dict[str, Any], str | None]:
    """The builds this process can time side by side, and a note when it is one only."""
    if not getattr(errconv, "__compiled__", False):
        return {"pure": errconv}, None
    stale = stale_sources(pathlib.Path(errconv.__file__).parent)
    if stale:
        note = f"the compiled build in this interpreter was built from other sources ({', '.join(stale[:3])} differ): rebuild it"
        return {"pure": pure_build()}, note
    return {"pure": pure_build(), "compiled": errconv}, None


def compiled_python(explicit: str | None) -> tuple[str | None, str]:
    """An interpreter whose errconv is a compiled build of these very sources (to hand
    the run to), or None and why not."""
    python = explicit or (str(COMPILED_VENV / "bin" / "python") if (COMPILED_VENV / "bin" / "python").exists() else None)
    if python is None:
        return None, (
            "no compiled build: `python3 -m venv .venv-compiled && ERRCONV_COMPILE=1 .venv-compiled/bin/pip install "
            "'.[test]'` (docs/compiled.md) to see it beside the pure build"
        )
    probe = "import errconv, json; print(json.dumps([getattr(errconv, '__compiled__', False), errconv.__file__]))"
    proc = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        return None, f"{python} cannot import errconv"
    compiled, where = json.loads(proc.stdout)
    if not compiled:
        return None, f"the errconv of {python} is the pure build"
    stale = stale_sources(pathlib.Path(where).parent)
    if stale:
        return None, f"the compiled build in {python} was built from other sources ({', '.join(stale[:3])} differ): rebuild it"
    return python, ""


# --------------------------------------------------------------------------- report


def _k(per_second: float) -> str:
    return f"{per_second / 1000:,.0f}k" if per_second >= 10_000 else f"{per_second / 1000:,.1f}k"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def report(results: dict[str, Any]) -> str:
    """The results as Markdown tables (what docs/performance.md includes, from docs/figures/bench-run.md)."""
    m, s = results["machine"], results["settings"]
    out = [
        (
            f"Machine: {m['cores']} cores ({m['cpu']}), {m['python']}, protobuf {m['versions']['protobuf']} "
            f"({m['protobuf_backend']} backend), msgspec {m['versions']['msgspec']}, "
            f"google-api-core {m['versions']['google-api-core']}."
        ),
        f"Median of {s['repeats']} rounds of {s['iterations']} calls each; the run took {results['seconds']} s.",
        (
            "Builds: pure Python and compiled (mypyc), side by side in every round; the tables up to the "
            "memory table are the pure build's, the compiled build's follow."
            if "compiled" in results
            else f"Build: pure Python only ({s.get('note') or 'as asked'})."
        ),
        "",
        "**Targets** (pure-Python build; worst case over every case and pair)",
        "",
    ]
    rows = []
    for t in results["targets"].values():
        unit = f"{t['worst']:.2f}x"
        rows.append([t["target"], unit, t["where"], "holds" if t["holds"] else "**MISSED**"])
    out += _table(["target", "worst", "where", "status"], rows)
    cases = results["cases"]

    out += ["", "**Decode and encode per second**, by dialect and case", ""]
    header = ["dialect"] + [f"decode {c}" for c in cases] + [f"encode {c}" for c in cases]
    rows = [
        [d] + [_k(cases[c]["decode"][d]) for c in cases] + [_k(cases[c]["encode"][d]) for c in cases] for d in DIALECTS
    ]
    out += _table(header, rows)

    for case, res in cases.items():
        out += ["", f"**Conversions per second, {case}** (rows: from, columns: to)", ""]
        rows = [[a] + [_k(res["convert"][f"{a}->{b}"]) for b in DIALECTS] for a in DIALECTS]
        out += _table(["from \\ to", *DIALECTS], rows)

    out += [
        "",
        "**JSON-to-JSON convert as a multiple of the floor** (msgspec decode + encode of the input; target <= 5x)",
        "",
    ]
    header = ["case", "from", "floor/s"] + [f"to {b}" for b in JSON_DIALECTS]
    rows = []
    for case, res in cases.items():
        for a in JSON_DIALECTS:
            rows.append(
                [case, a, _k(res["floor"]["per_second"][a])]
                + [f"{res['floor']['ratio'][f'{a}->{b}']:.2f}x" for b in JSON_DIALECTS]
            )
    out += _table(header, rows)

    out += ["", "**errconv against json + json_format** (speedup = json_format time / errconv time; target >= 7x)", ""]
    header = ["conversion"] + [f"{c}" for c in cases]
    pairs = list(next(iter(cases.values()))["json_format"])
    rows = []
    for pair in pairs:
        cells = []
        for c in cases:
            v = cases[c]["json_format"][pair]
            cells.append(f"{v['speedup']:.1f}x ({_k(v['errconv_per_second'])} vs {_k(v['json_format_per_second'])})")
        rows.append([pair, *cells])
    out += _table(header, rows)

    out += [
        "",
        (
            "**errconv.decode(http) against google-api-core from_http_response** on the same response bytes "
            "(api-core's Response built by requests from them; target >= 6x), and beside it api-core given a "
            "Response built by hand once (no HTTP parsing on its side)"
        ),
        "",
    ]
    rows = []
    for c, res in cases.items():
        a = res["api_core"]
        rows.append(
            [
                c,
                _k(a["errconv_per_second"]),
                _k(a["api_core_per_second"]),
                f"{a['speedup']:.1f}x",
                _k(a["given_response_per_second"]),
                f"{a['given_response_speedup']:.1f}x",
            ]
        )
    out += _table(
        ["case", "errconv/s", "api_core from bytes/s", "speedup", "api_core given a Response/s", "speedup"], rows
    )

    out += [
        "",
        (
            "**Status bytes -> problem JSON and back**, per second (beside: the same written with the protobuf "
            "classes, `FromString`/`Unpack`/`Pack`, and the speedup; no target)"
        ),
        "",
    ]
    rows = []
    for c, res in cases.items():
        cells = []
        for a, b in STATUS_PATH:
            v = res["status_path"][f"{a}->{b}"]
            cells.append(
                f"{_k(v['errconv_per_second'])} (protobuf {_k(v['protobuf_per_second'])}, {v['speedup']:.1f}x)"
            )
        rows.append([c, *cells])
    out += _table(["case", *(f"{a} -> {b}" for a, b in STATUS_PATH)], rows)

    out += ["", "**Memory**: peak bytes allocated during one call (tracemalloc)", ""]
    keys = [
        ("floor:google", "floor (google)"),
        ("convert:google->problem", "errconv google -> problem"),
        ("json_format:google->problem", "json_format google -> problem"),
        ("convert:problem->google", "errconv problem -> google"),
        ("json_format:problem->google", "json_format problem -> google"),
        ("convert:status->problem", "errconv status -> problem"),
        ("protobuf:status->problem", "protobuf status -> problem"),
        ("convert:problem->status", "errconv problem -> status"),
        ("protobuf:problem->status", "protobuf problem -> status"),
        ("api_core:errconv", "errconv decode http+google"),
        ("api_core:from_http_response", "api_core from_http_response, from bytes"),
        ("api_core:given_response", "api_core from_http_response, given a Response"),
    ]
    rows = [[label, *(f"{cases[c]['memory'][key]:,}" for c in cases)] for key, label in keys]
    out += _table(["call", *cases], rows)
    if "compiled" in results:
        out += report_compiled(results)
    return "\n".join(out) + "\n"


def report_compiled(results: dict[str, Any]) -> list[str]:
    """The compiled build's tables: its targets, and each figure beside the pure build's."""
    compiled, pure = results["compiled"]["cases"], results["cases"]
    speedup = results["compiled"]["speedup"]
    cases = list(compiled)
    out = ["", "**Targets of the compiled build** (mypyc; worst case over every case and pair)", ""]
    rows = []
    for t in results["compiled"]["targets"].values():
        rows.append([t["target"], f"{t['worst']:.2f}x", t["where"], "holds" if t["holds"] else "**MISSED**"])
    out += _table(["target", "worst", "where", "status"], rows)

    out += [
        "",
        (
            "**Compiled against pure Python**: speedup = pure time / compiled time, the median of the ratios "
            "taken within a round (beside it: the compiled build's calls per second)"
        ),
        "",
    ]
    rows = []
    for kind in ("decode", "encode"):
        for d in DIALECTS:
            rows.append(
                [f"{kind} {d}"]
                + [f"{speedup[c][f'{kind}:{d}']:.2f}x ({_k(compiled[c][kind][d])})" for c in cases]
            )
    for pair in ("google->problem", "problem->google", "google->status-json", "stripe->google", "status->problem", "problem->status", "grpc->http+problem"):
        rows.append([f"convert {pair}"] + [f"{speedup[c][f'convert:{pair}']:.2f}x ({_k(compiled[c]['convert'][pair])})" for c in cases])
    cells = []
    for c in cases:
        values = [speedup[c][f"convert:{a}->{b}"] for a in DIALECTS for b in DIALECTS]
        cells.append(f"{statistics.median(values):.2f}x ({min(values):.2f}x to {max(values):.2f}x)")
    rows.append([f"convert, all {len(DIALECTS) ** 2} pairs: median (min to max)", *cells])
    rows.append(["decode http+google (the api-core row)"] + [f"{speedup[c]['api_core:errconv']:.2f}x" for c in cases])
    out += _table(["function", *cases], rows)

    out += ["", "**JSON-to-JSON convert as a multiple of the floor**, pure / compiled (targets: <= 5x pure, <= 3.5x compiled)", ""]
    rows = []
    for c in cases:
        for a in JSON_DIALECTS:
            rows.append(
                [c, a]
                + [f"{pure[c]['floor']['ratio'][f'{a}->{b}']:.2f}x / {compiled[c]['floor']['ratio'][f'{a}->{b}']:.2f}x" for b in JSON_DIALECTS]
            )
    out += _table(["case", "from", *(f"to {b}" for b in JSON_DIALECTS)], rows)

    out += ["", "**Against json + json_format**, speedup pure / compiled (targets: >= 7x pure, >= 10x compiled)", ""]
    pairs = list(next(iter(compiled.values()))["json_format"])
    rows = [[pair] + [f"{pure[c]['json_format'][pair]['speedup']:.1f}x / {compiled[c]['json_format'][pair]['speedup']:.1f}x" for c in cases] for pair in pairs]
    out += _table(["conversion", *cases], rows)

    out += [
        "",
        (
            "**decode(http) against api-core's from_http_response** from the same bytes, and **Status bytes -> problem "
            "against the hand-written protobuf path** (errconv's time / protobuf's; compiled target <= 2x), pure / compiled"
        ),
        "",
    ]
    rows = []
    for c in cases:
        rows.append(
            [
                c,
                f"{pure[c]['api_core']['speedup']:.1f}x / {compiled[c]['api_core']['speedup']:.1f}x",
                f"{1 / pure[c]['status_path']['status->problem']['speedup']:.2f}x / {1 / compiled[c]['status_path']['status->problem']['speedup']:.2f}x",
                f"{1 / pure[c]['status_path']['problem->status']['speedup']:.2f}x / {1 / compiled[c]['status_path']['problem->status']['speedup']:.2f}x",
            ]
        )
    out += _table(["case", "api-core speedup", "status -> problem, x protobuf", "problem -> status, x protobuf"], rows)

    keys = [("convert:google->problem", "errconv google -> problem"), ("convert:status->problem", "errconv status -> problem"), ("api_core:errconv", "errconv decode http+google")]
    out += ["", "**Memory**, pure / compiled: peak bytes allocated during one call", ""]
    rows = [[label, *(f"{pure[c]['memory'][key]:,} / {compiled[c]['memory'][key]:,}" for c in cases)] for key, label in keys]
    out += _table(["call", *cases], rows)
    return out


def compare(new: dict[str, Any], old: dict[str, Any]) -> str:
    """How the targets and every conversion moved since an earlier run (new / old throughput)."""
    out = ["", "**Against the earlier run**", ""]
    rows = []
    for name, t in new["targets"].items():
        before = old.get("targets", {}).get(name)
        cell = f"{before['worst']:.2f}x" if before else "-"
        if before and before.get("target") != t["target"]:
            cell += " (measured as: " + before["target"] + ")"
        rows.append([t["target"], cell, f"{t['worst']:.2f}x"])
    out += _table(["target", "before", "now"], rows)
    changes = []
    for case, res in new["cases"].items():
        prev = old.get("cases", {}).get(case)
        if not prev:
            continue
        for pair, ops in res["convert"].items():
            if pair in prev["convert"]:
                changes.append(ops / prev["convert"][pair])
    if changes:
        out += [
            "",
            (
                f"convert throughput now / before over {len(changes)} case-pairs: median {statistics.median(changes):.2f}x, "
                f"min {min(changes):.2f}x, max {max(changes):.2f}x"
            ),
        ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--iterations",
        "-n",
        type=int,
        help=f"calls per function per round (default {ITERATIONS}, or {ITERATIONS_TWO_BUILDS} when both builds are timed)",
    )
    parser.add_argument("--repeats", "-r", type=int, default=7, help="rounds; figures are medians (default 7)")
    parser.add_argument(
        "--output", "-o", type=pathlib.Path, default=DEFAULT_OUTPUT, help="results JSON (default bench/results.json)"
    )
    parser.add_argument("--compare", type=pathlib.Path, help="an earlier results JSON to compare against")
    parser.add_argument("--case", action="append", choices=CASES, help="only this golden case (repeatable)")
    parser.add_argument("--pure-only", action="store_true", help="measure the pure-Python build alone")
    parser.add_argument(
        "--compiled-python",
        help="an interpreter with the compiled build, to hand the run to (default .venv-compiled/bin/python when it exists)",
    )
    args = parser.parse_args(argv)
    if (args.iterations is not None and args.iterations < 1) or args.repeats < 1:
        parser.error("--iterations and --repeats must be at least 1")
    note = None
    if args.pure_only:
        builds: dict[str, Any] = {"pure": pure_build() if getattr(errconv, "__compiled__", False) else errconv}
    elif getattr(errconv, "__compiled__", False):
        builds, note = builds_here()
    else:
        python, note = compiled_python(args.compiled_python)
        if python is not None:  # the compiled interpreter times both builds, in one process
            rest = list(sys.argv[1:] if argv is None else argv)
            proc = subprocess.run([python, str(pathlib.Path(__file__).resolve()), *rest], capture_output=True, text=True, check=False)
            print(proc.stdout, end="")
            print(proc.stderr, end="", file=sys.stderr)
            return proc.returncode
        builds = {"pure": errconv}
    iterations = args.iterations or (ITERATIONS_TWO_BUILDS if len(builds) > 1 else ITERATIONS)
    results = run(iterations, args.repeats, tuple(args.case or CASES), builds, note)
    text = report(results)
    if args.compare is not None:
        text += compare(results, json.loads(args.compare.read_text()))
    print(text, end="")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nresults written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
