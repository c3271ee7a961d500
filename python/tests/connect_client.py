"""Run by test_connect.py in a Connect-only environment (pyspark-client: no JVM, no gateway). Part
``pipeline``: the whole pipeline with SQL and DataFrame operations only, the change stream and the ``CHANGES``
of the table. Part ``notebook``: the same notebook code as the classic test (notebook_scenario.py: the
pipeline, then startMany and backfill of a chunked bootstrap) through the ``mssql_cdc`` package, which takes the
``CALL`` route here. Prints one JSON line of what it saw, for the test to check.
Arguments: the server's URL, the work directory, the fake's directory, the history's commit LSNs (JSON), the
part."""

import json
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession

url, work, source, lsns, part = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5]
if part not in ("pipeline", "notebook"):
    sys.exit(f"unknown part {part!r}: pipeline or notebook")
t0 = time.monotonic()
seconds = {}


def lap(name):
    """The seconds since the previous lap (or the start), for the test's log."""
    seconds[name] = round(time.monotonic() - t0 - sum(seconds.values()), 1)


spark = SparkSession.builder.remote(url).getOrCreate()
out = {"session": f"{type(spark).__module__}.{type(spark).__name__}"}
try:
    import py4j  # noqa: F401
    out["py4j"] = True
except ImportError:
    out["py4j"] = False
p = {k: f"{work}/{k}" for k in ("bronze", "facts", "checkpoint", "control", "silver", "report")}


def pipeline():
    out["tables"] = sorted(r.tableName for r in spark.sql("SHOW TABLES IN cdc.dbo").collect())
    out["snapshot"] = sorted([r.order_id, r.status, str(r.amount)]
                             for r in spark.table("cdc.dbo.orders").collect())
    lap("catalog")

    started = spark.sql(f"""CALL cdc.system.start_stream(table => 'dbo.orders', bronze => '{p["bronze"]}',
        checkpoint => '{p["checkpoint"]}', appId => 'orders-bronze', factsTable => '{p["facts"]}',
        controlTable => '{p["control"]}', bootstrap => true, trigger => 'availableNow',
        options => map('maxCommitsPerBatch', '1'))""").first()
    out["started"] = {"name": started["name"], "table": started["table"],
                      "capture_instance": started["capture_instance"]}
    try:
        q = spark.streams.get(started["query_id"])
        q.awaitTermination()
        out["exception"] = str(q.exception()) if q.exception() else None
    except Exception as e:  # noqa: BLE001 - an availableNow query that already finished is no longer listed
        if "STREAMING_QUERY_NOT_FOUND" not in str(e):
            raise
    awaited = spark.sql(f"CALL cdc.system.await_tracking(queryId => '{started['query_id']}', timeoutSeconds => 300)").first()
    out["awaited"] = {"done": awaited["done"], "table_name": awaited["table_name"],
                      "has_verdict": awaited["finalized_until"] is not None, "error": awaited["tracking_error"]}
    out["bronze_rows"] = spark.read.format("delta").load(p["bronze"]).count()
    lap("stream")

    applied = spark.sql(f"""CALL cdc.system.apply_changes(table => 'dbo.orders', bronze => '{p["bronze"]}',
        silver => '{p["silver"]}', controlTable => '{p["control"]}', factsTable => '{p["facts"]}')""").first()
    out["applied"] = {"rebuilt": applied["rebuilt"], "bronze_found": applied["bronze_found"],
                      "applied_lsn": applied["applied_lsn"],
                      "finalized_until": str(applied["finalized_until"])}
    out["silver"] = sorted([r.order_id, r.status, str(r.amount)]
                           for r in spark.read.format("delta").load(p["silver"])
                           .select("order_id", "status", "amount").collect())
    fin = spark.sql(f"""CALL cdc.system.finalized_until(controlTable => '{p["control"]}',
        tableName => '{p["silver"]}')""").first()
    out["finalized_until"] = str(fin["finalized_until"])
    lap("silver")

    rec = spark.sql(f"""CALL cdc.system.reconcile(table => 'dbo.orders', silver => '{p["silver"]}',
        bronze => '{p["bronze"]}', controlTable => '{p["control"]}', reportTable => '{p["report"]}',
        seed => 7)""").first()
    out["reconcile"] = {"clean": rec["clean"], "mismatch": rec["mismatch"], "silver_lsn": rec["silver_lsn"],
                        "summary": rec["summary"]}
    out["active"] = len(spark.streams.active)
    lap("reconcile")

    # The change stream (readStream.table) into a memory sink, and the CHANGES clause over the history's range
    changes = (spark.readStream.table("cdc.dbo.orders").writeStream.format("memory").queryName("orders_changes")
               .trigger(availableNow=True).start())
    changes.awaitTermination()
    out["stream_rows"] = sorted([r.order_id, r._operation, r._start_lsn]
                                for r in spark.table("orders_changes").collect())
    changes.stop()
    out["changes"] = sorted([r.order_id, r._change_type, r._commit_version] for r in spark.sql(
        f"SELECT * FROM cdc.dbo.orders CHANGES FROM VERSION '{lsns[1]}' TO VERSION '{lsns[2]}'").collect())
    out["net_changes"] = sorted([r.order_id, r._change_type] for r in spark.sql(
        f"SELECT * FROM cdc.dbo.orders CHANGES FROM VERSION '{lsns[0]}' WITH ('deduplicationMode' = 'netChanges')")
        .collect())

    lap("changes")


def notebook():
    # The same notebook code as on a classic session, through the package
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import notebook_scenario

    from mssql_cdc import CdcError, Finalization

    out["notebook"] = notebook_scenario.run(spark, source, f"{work}/notebook")
    out["join_all"] = Finalization.tracking(spark, f"{work}/control", "hour").joinAll(10)
    try:
        Finalization.tracking(spark, f"{work}/control", "hour").trackers()
        out["trackers"] = None
    except CdcError as e:
        out["trackers"] = str(e)
    try:
        Finalization.finalizedUntil(spark, f"{work}/control", "x", catalog="nope")
        out["unknown_catalog"] = None
    except Exception as e:  # noqa: BLE001 - Spark's own error, not ours
        out["unknown_catalog"] = type(e).__name__ + ": " + str(e).splitlines()[0]
    lap("notebook")
    out["many"] = notebook_scenario.run_many_chunked(spark, source, f"{work}/many")
    lap("many")


(pipeline if part == "pipeline" else notebook)()
print("SECONDS " + json.dumps(seconds), flush=True)
print("RESULT " + json.dumps(out, default=str), flush=True)
spark.stop()
