"""The batch API inside the data engines people run: DuckDB, Polars, Dask on a local cluster, Spark.

Each engine calls `errconv.batch.table` on its own batches of a column; the answer must be
the table one process makes of the whole column, row for row. The Dask cluster runs
worker processes on 127.0.0.1 and is closed by the test that started it.
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import random
import shutil
import sys
from typing import Any

import pytest

from errconv import batch

pa = pytest.importorskip("pyarrow", reason="pyarrow is in the test extra; this guards a bare install")


def _engine(name: str) -> Any:
    """The engine's module; skipped, naming the extra, where the test-engines extra is not
    installed (the README's test command), and an error where .ci/run says it is
    (ERRCONV_TEST_ENGINES=1), so that CI cannot skip these."""
    if os.environ.get("ERRCONV_TEST_ENGINES"):
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"{name} is in the test-engines extra, which .ci/run installs and runs these with")

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOW = 1_800_000_000.0


def _corpus() -> list[tuple[str, int | None]]:
    """Every real-world capture as text, with the status a bare body came with."""
    out: list[tuple[str, int | None]] = []
    for facts in sorted((ROOT / "tests/realworld").glob("*/facts.json")):
        for name, entry in json.loads(facts.read_text()).items():
            path = facts.parent / name
            out.append((path.read_bytes().decode("utf-8", "replace"), None if path.suffix == ".http" else entry["facts"]["status"]))
    out += [("nonsense", None), ('{"error": ', None), ("upstream connect error", 503)]
    return out


CORPUS = _corpus()


def _logs(n: int, seed: int = 7) -> pa.Table:
    rng = random.Random(seed)
    picked = [rng.choice(CORPUS) for _ in range(n)]
    return pa.table({"body": pa.array([b for b, _ in picked], pa.string()), "status": pa.array([s for _, s in picked], pa.int32())})


def _whole(logs: pa.Table, to: str | None = "problem") -> list[dict[str, object]]:
    return list(batch.table(logs["body"], status=logs["status"], to=to, now=NOW).to_pylist())


def test_duckdb_arrow_scan_and_udf() -> None:
    duckdb = _engine("duckdb")
    logs = _logs(3000)
    con = duckdb.connect()
    con.register("logs", logs)
    # an Arrow scan: a query's column in, a table DuckDB queries by name out
    column = con.sql("select body, status from logs").to_arrow_table()
    faults = batch.table(column["body"], status=column["status"], now=NOW)
    con.register("faults", faults)
    counted = dict(con.sql("select next_step, count(*) from faults group by next_step").fetchall())
    want = _whole(logs, to=None)
    for step in ("wait", "fix_request", "give_up", None):
        assert counted.get(step, 0) == sum(1 for r in want if r["next_step"] == step)

    # a vectorised UDF over the column, DuckDB choosing the batches
    def fault(body: pa.Array, status: pa.Array) -> pa.Array:
        t = batch.table(body, status=status, now=NOW)
        return pa.StructArray.from_arrays([t.column(c).combine_chunks() for c in ("next_step", "retry_after_seconds", "error")], names=["next_step", "retry_after_seconds", "error"])

    kind = duckdb.struct_type({"next_step": "VARCHAR", "retry_after_seconds": "BIGINT", "error": "VARCHAR"})
    con.create_function("errconv_fault", fault, ["VARCHAR", "INTEGER"], kind, type="arrow", null_handling="special")
    got = con.sql("select f.next_step, f.retry_after_seconds, f.error from (select errconv_fault(body, status) as f from logs)").fetchall()
    assert got == [(r["next_step"], r["retry_after_seconds"], r["error"]) for r in want]


def test_polars_map_batches() -> None:
    pl = _engine("polars")
    logs = _logs(3000, seed=11)
    df = pl.from_arrow(logs)
    out = df.with_columns(
        pl.struct("body", "status")
        .map_batches(lambda s: pl.from_arrow(batch.table(s.struct.field("body"), status=s.struct.field("status"), to="problem", now=NOW)).to_struct())
        .alias("fault")
    ).select(pl.col("fault").struct.field(*batch.COLUMNS))
    assert out.to_dicts() == [{**r, "lost": list(r["lost"]) if r["lost"] is not None else None} for r in _whole(logs)]


def test_dask_on_a_local_cluster_of_two_worker_processes() -> None:
    dask_bag = _engine("dask.bag")
    distributed = _engine("distributed")
    logs = _logs(100_000, seed=3)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            pairs = list(zip(logs["body"].to_pylist(), logs["status"].to_pylist()))
            bag = dask_bag.from_sequence(pairs, npartitions=16)

            def part(items: list[tuple[str, int | None]]) -> list[dict[str, object]]:
                body = pa.array([b for b, _ in items], pa.string())
                status = pa.array([s for _, s in items], pa.int32())
                return list(batch.table(body, status=status, to="problem", now=NOW).to_pylist())

            got = bag.map_partitions(part).compute()
            workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2
    assert got == _whole(logs)


@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("ERRCONV_TEST_ENGINES"), reason="Spark needs a JVM (Debian: default-jre-headless); the recipe is the Dask test's function")
def test_spark_map_in_arrow(monkeypatch: pytest.MonkeyPatch) -> None:
    pyspark_sql = _engine("pyspark.sql")
    # Spark's Python workers start `python3` from PATH unless told: this interpreter has errconv.
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
    logs = _logs(5000, seed=5)
    spark = (
        pyspark_sql.SparkSession.builder.master("local[2]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    try:
        numbered = logs.append_column("id", pa.array(range(logs.num_rows), pa.int64()))
        df = spark.createDataFrame(numbered).repartition(4)  # from Arrow: an int column with nulls stays int

        def faults(batches):  # type: ignore[no-untyped-def]
            for b in batches:
                t = batch.table(b.column("body"), status=b.column("status"), to="problem", now=NOW)
                yield from t.append_column("id", b.column("id")).to_batches()

        schema = pyspark_sql.types.StructType.fromDDL(
            "dialect string, status int, grpc_code int, code string, next_step string, retry_after_seconds long, "
            "param string, body binary, lost array<string>, error string, id long"
        )
        got = df.mapInArrow(faults, schema).toArrow().sort_by("id").drop_columns(["id"])
    finally:
        spark.stop()
    assert got.to_pylist() == _whole(logs)
