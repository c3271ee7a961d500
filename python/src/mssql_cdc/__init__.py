"""PySpark API of mssql-cdc-spark.

Thin wrappers over the connector's JVM classes, reached through the session's Py4J gateway (the way
delta-spark's Python API wraps Delta's): every call goes to the JVM and returns what it returns. The jar
must be on the Spark classpath (``spark.jars``, ``--packages io.mssqlcdc:mssql-cdc-spark_2.13:<v>`` or a
Databricks cluster library); see docs/PYSPARK.md.

The source itself needs no Python at all::

    spark.readStream.format("mssql_cdc").option("connectionString", url) \\
        .option("captureInstance", "dbo_orders").load()

The pipeline (bootstrap snapshot, re-snapshot generations, bronze + facts exactly once)::

    from mssql_cdc import CdcStream
    q = (CdcStream.builder(spark)
         .option("connectionString", url).option("captureInstance", "dbo_orders")
         .target("bronze.orders").appId("orders").checkpoint("/chk/orders")
         .factsTable("ops.cdc_facts").bootstrap(True).trigger("availableNow")
         .toDelta())

Silver, the current state, after the stream's batches (docs/SILVER.md)::

    from mssql_cdc import ApplyChanges
    r = (ApplyChanges.builder(spark).bronze("bronze.orders").target("silver.orders")
         .captureInstance("dbo_orders").keys(["order_id"])
         .controlTable("ops.table_finalization").factsTable("ops.cdc_facts").run())

Reconcile, the proof that silver equals the source table (docs/RECONCILE.md)::

    from mssql_cdc import Reconcile
    r = (Reconcile.builder(spark).option("connectionString", url).option("captureInstance", "dbo_orders")
         .silver("silver.orders").bronze("bronze.orders").controlTable("ops.table_finalization")
         .factsTable("ops.cdc_facts").reportTable("ops.reconcile_report").run())
    r.clean(), r.mismatch(), r.failures()
"""

# Kept in step with the Maven version (X.Y.Z-SNAPSHOT is X.Y.Z.dev0): tests/test_version.py checks it.
__version__ = "0.1.0.dev0"

from mssql_cdc.errors import CdcError
from mssql_cdc.finalization import Finalization, FinalizationTracker, TrackingAttachment
from mssql_cdc.history import ApplyHistory, ApplyHistoryBuilder
from mssql_cdc.reconcile import Reconcile, ReconcileBuilder, ReconcileResult
from mssql_cdc.silver import ApplyChanges, ApplyChangesBuilder, ApplyResult
from mssql_cdc.stream import Backfill, CdcStream, CdcStreamBuilder, CdcStreams, Seed

__all__ = ["ApplyChanges", "ApplyChangesBuilder", "ApplyHistory", "ApplyHistoryBuilder", "ApplyResult", "Backfill", "CdcError", "CdcStream",
           "CdcStreamBuilder", "CdcStreams", "Finalization", "FinalizationTracker", "Reconcile", "ReconcileBuilder",
           "ReconcileResult", "Seed", "TrackingAttachment", "__version__"]
