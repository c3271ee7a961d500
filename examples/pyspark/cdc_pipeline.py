"""The pipeline from PySpark: SQL Server CDC into Delta bronze + facts with ``mssql_cdc.CdcStream``, then
silver with ``mssql_cdc.ApplyChanges``, ``finalized_until`` of both kept by ``mssql_cdc.Finalization``.

Without arguments beyond WORKDIR it runs on the fake (a simulated CDC database on local files, from the
``mssql-cdc-fake`` jar): it scripts a table and some changes, bootstraps a snapshot into bronze, streams
the changes, restarts on the same checkpoint after more changes, applies bronze to silver after each
run, prints the facts and the verdicts, and checks that silver equals the source table. Against a real server, pass
``--connection-string`` and ``--capture-instance`` (nothing is written to the server).

Run (jars from a local build; docs/PYSPARK.md has the --packages form and Databricks)::

    spark-submit --jars spark-bundle/target/mssql-cdc-spark_2.13-<v>.jar,fake/target/mssql-cdc-fake-<v>.jar \\
        --packages io.delta:delta-spark_4.2_2.13:4.4.0 examples/pyspark/cdc_pipeline.py /tmp/cdc-demo

It ends with ``PYSPARK PIPELINE OK`` (or exits 1 saying what differs).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from pyspark.sql import SparkSession

from mssql_cdc import ApplyChanges, CdcStream, Finalization


def main(argv: list[str] | None = None) -> int:
    """Runs the example; ``argv`` as on the command line (the PySpark suite calls it in its own session:
    ``getOrCreate`` returns that one)."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("workdir", help="where the lake, the checkpoints (and the fake source) go")
    args.add_argument("--connection-string", help="a real SQL Server (JDBC URL or ODBC-style string)")
    args.add_argument("--capture-instance", default="dbo_orders")
    opts = args.parse_args(argv)

    work = Path(opts.workdir).absolute()
    shutil.rmtree(work, ignore_errors=True)
    spark = (SparkSession.builder.appName("mssql-cdc-pyspark-example")
             .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
             .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
             .getOrCreate())

    source = {"captureInstance": opts.capture_instance}
    db = None
    if opts.connection_string:
        source["connectionString"] = opts.connection_string
    else:
        from mssql_cdc.testing import FakeDatabase

        db = FakeDatabase.create(spark, str(work / "source"))
        db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id")
        db.enableCdc("dbo", "orders")
        db.commit(lambda tx: [tx.insert("dbo.orders", {"order_id": i, "status": "new", "amount": f"{i}.50"})
                              for i in range(1, 51)])
        source.update({"backend": "fake", "fakePath": db.path})

    lake = work / "lake"
    bronze, facts, silver, control = (str(lake / n) for n in ("bronze_orders", "cdc_facts", "silver_orders",
                                                                "table_finalization"))

    def run():
        """One availableNow run of the stream (its verdict tracked), then silver."""
        tracking = Finalization.tracking(spark, control, "hour")
        (CdcStream.builder(spark).options(source).option("maxCommitsPerBatch", 10)
         .target(bronze).appId("orders").checkpoint(str(work / "checkpoints" / "orders"))
         .factsTable(facts).bootstrap(True).trigger("availableNow").attach(tracking)
         .toDelta().awaitTermination())
        tracking.joinAll(300)                           # the run's last verdict is written
        r = (ApplyChanges.builder(spark).options(source).bronze(bronze).target(silver)
             .controlTable(control).factsTable(facts).run())   # keys: the capture instance's unique index
        print(f"silver: {r}")

    run()
    if db is not None:
        for i in range(1, 6):
            db.commit(lambda tx, i=i: tx.update("dbo.orders", {"order_id": i, "status": "paid"}))
        db.commit(lambda tx: tx.delete("dbo.orders", [50]).insert("dbo.orders", {"order_id": 51, "status": "new"}))
    run()   # the same checkpoint: only what is new

    spark.read.format("delta").load(facts).selectExpr(
        "app_id", "batch_id", "event", "rows", "inserts", "updates", "deletes", "end_lsn"
    ).orderBy("written_at", "batch_id").show(50, truncate=False)

    for t in (bronze, silver):
        print(f"finalized_until of {t}: {Finalization.finalizedUntil(spark, control, t)} UTC")

    # Check: silver equals the table now (read with the snapshot reader).
    current = spark.read.format("delta").load(silver).select("order_id", "status", "amount")
    table = spark.read.format("mssql_cdc_snapshot").options(**source).load().select("order_id", "status", "amount")
    missing, extra = table.exceptAll(current).count(), current.exceptAll(table).count()
    if missing or extra:
        print(f"PYSPARK PIPELINE FAILED: {missing} source rows not in silver, {extra} extra")
        return 1
    print(f"PYSPARK PIPELINE OK rows={table.count()} bronze={spark.read.format('delta').load(bronze).count()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
