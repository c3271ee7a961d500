"""Run by test_connect.py in a Connect-only environment (pyspark-client: no JVM, no gateway): the whole
pipeline with SQL and DataFrame operations only. Prints one JSON line of what it saw, for the test to check.
Arguments: the server's URL, the work directory."""

import json
import sys

from pyspark.sql import SparkSession

url, work = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()
out = {"session": f"{type(spark).__module__}.{type(spark).__name__}"}
try:
    import py4j  # noqa: F401
    out["py4j"] = True
except ImportError:
    out["py4j"] = False
p = {k: f"{work}/{k}" for k in ("bronze", "facts", "checkpoint", "control", "silver", "report")}

out["tables"] = sorted(r.tableName for r in spark.sql("SHOW TABLES IN cdc.dbo").collect())
out["snapshot"] = sorted([r.order_id, r.status, str(r.amount)]
                         for r in spark.table("cdc.dbo.orders").collect())

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
out["bronze_rows"] = spark.read.format("delta").load(p["bronze"]).count()

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

rec = spark.sql(f"""CALL cdc.system.reconcile(table => 'dbo.orders', silver => '{p["silver"]}',
    bronze => '{p["bronze"]}', controlTable => '{p["control"]}', reportTable => '{p["report"]}',
    seed => 7)""").first()
out["reconcile"] = {"clean": rec["clean"], "mismatch": rec["mismatch"], "silver_lsn": rec["silver_lsn"],
                    "summary": rec["summary"]}
out["active"] = len(spark.streams.active)
print("RESULT " + json.dumps(out), flush=True)
spark.stop()
