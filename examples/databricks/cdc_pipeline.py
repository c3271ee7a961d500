# Databricks notebook source
# MAGIC %md
# MAGIC # SQL Server CDC → Delta bronze + facts → silver with mssql-cdc-spark
# MAGIC
# MAGIC Streams one or more SQL Server CDC capture instances into Delta bronze tables (the change log, exactly
# MAGIC once) with a facts row per micro-batch, bootstrapping each table with a snapshot first.
# MAGIC
# MAGIC **Cluster**: dedicated (single user) access mode, with the cluster library (Maven)
# MAGIC `io.mssqlcdc:mssql-cdc-spark_2.13:<version>` on DBR 19, `io.mssqlcdc:mssql-cdc-spark_2.13:<version>-spark4.1`
# MAGIC on DBR 18, or the matching jar from a volume. The `mssql_cdc` Python package is optional (cell 2); without it the same
# MAGIC builder is reached through `spark._jvm`. See docs/DATABRICKS.md for access modes and docs/OPERATIONS.md
# MAGIC for the alerts of the last cells.
# MAGIC
# MAGIC It also keeps `finalized_until` per bronze table in a control table (finalization), so downstream
# MAGIC jobs gate on complete periods, and a silver table per source table (the current state per key,
# MAGIC `ApplyChanges`) with its own `finalized_until`.

# COMMAND ----------

dbutils.widgets.text("host", "sqlserver.example.com", "SQL Server host")
dbutils.widgets.text("database", "shop", "Database")
dbutils.widgets.text("user", "cdc_reader", "Login")
dbutils.widgets.text("secret_scope", "cdc", "Secret scope holding the password (key: reader-password)")
dbutils.widgets.text("capture_instances", "dbo_orders", "Capture instances (comma separated)")
dbutils.widgets.text("catalog_schema", "main.cdc", "Catalog.schema for bronze and facts")
dbutils.widgets.text("checkpoints", "/Volumes/main/cdc/checkpoints", "Checkpoint root (a volume path)")

# COMMAND ----------

# Optional: the thin Python wrappers (a wheel built from python/ of the repository, put on a volume).
# %pip install /Volumes/main/cdc/libs/mssql_cdc_spark-0.1.0-py3-none-any.whl

# COMMAND ----------

host = dbutils.widgets.get("host")
database = dbutils.widgets.get("database")
user = dbutils.widgets.get("user")
password = dbutils.secrets.get(dbutils.widgets.get("secret_scope"), "reader-password")
instances = [ci.strip() for ci in dbutils.widgets.get("capture_instances").split(",") if ci.strip()]
schema = dbutils.widgets.get("catalog_schema")
checkpoints = dbutils.widgets.get("checkpoints")

# The password is masked by the connector in every log line, error, plan and facts row.
url = f"jdbc:sqlserver://{host}:1433;databaseName={database};user={user};password={password};encrypt=true"
facts = f"{schema}.cdc_facts"

# COMMAND ----------

# MAGIC %md
# MAGIC ## The source alone (optional look)
# MAGIC The current rows of the first table, as the snapshot reader sees them (stamped with the LSN read first).

# COMMAND ----------

display(spark.read.format("mssql_cdc_snapshot")
        .option("connectionString", url).option("captureInstance", instances[0]).load().limit(20))

# COMMAND ----------

# MAGIC %md
# MAGIC ## The pipeline: bootstrap, then the changes, one stream per capture instance
# MAGIC `availableNow` reads what is there and stops: schedule the notebook as a job. For a continuous stream use
# MAGIC `trigger("processingTime=1 minute")` and keep the cell running.

# COMMAND ----------

try:
    from mssql_cdc import CdcStream, CdcStreams

    builder = CdcStream.builder(spark)
    start_many = builder.startMany
except ImportError:  # the package is not installed: the JVM builder directly
    CdcStream, CdcStreams = None, None
    builder = spark._jvm.io.mssqlcdc.sink.pipeline.CdcStream.builder(spark._jsparkSession)
    start_many = None

(builder.option("connectionString", url)
 .option("maxCommitsPerBatch", "1000")
 .target(f"{schema}.bronze_{{ci}}")
 .appId("cdc-{ci}")
 .checkpoint(f"{checkpoints}/{{ci}}")
 .factsTable(facts)
 .bootstrap(True)
 .onDataLoss("resnapshot")
 .trigger("availableNow"))

control = f"{schema}.table_finalization"
if start_many is not None:
    from mssql_cdc import Finalization

    tracking = Finalization.tracking(spark, control, "hour")
    builder.attach(tracking)
    queries = start_many(instances)                                  # {capture instance: StreamingQuery}
    failed = CdcStreams.awaitAll(spark, queries)                     # never raises
    tracking.joinAll(300)                                            # the last verdicts are written
    for ci, error in failed.items():
        print(f"{ci} failed: {error.code}: {error}")
    assert not failed, f"{len(failed)} stream(s) failed"
else:
    jtracking = spark._jvm.io.mssqlcdc.finalization.Finalization.tracking(control, "hour")
    builder.attach(jtracking)
    jqueries = builder.startMany(instances)
    failed = spark._jvm.io.mssqlcdc.sink.pipeline.CdcStreams.awaitAll(jqueries, 0)
    jtracking.joinAll(spark._jvm.java.time.Duration.ofMinutes(5))
    assert failed.isEmpty(), str(failed)

# COMMAND ----------

# MAGIC %md
# MAGIC ## Finalization: until when is each bronze table complete?
# MAGIC A downstream job for the hour `[start, end)` runs only once `end <= finalized_until` (docs/FINALIZATION.md).

# COMMAND ----------

display(spark.sql(f"SELECT * FROM {control} ORDER BY table_name"))

# COMMAND ----------

# MAGIC %md
# MAGIC ## What the last runs did (facts)

# COMMAND ----------

display(spark.sql(f"""
  SELECT app_id, batch_id, event, rows, inserts, updates, deletes, end_lsn, end_commit_ts,
         retention_headroom_hours, capture_lag_seconds, ingestion_lag_seconds, duration_ms, written_at
  FROM {facts} ORDER BY written_at DESC LIMIT 100"""))

# COMMAND ----------

# MAGIC %md
# MAGIC ## Alerts (docs/OPERATIONS.md): each query returns the streams that need attention

# COMMAND ----------

display(spark.sql(f"""
  SELECT app_id,
         max_by(retention_headroom_hours, written_at) AS headroom_h,
         max_by(capture_lag_seconds, written_at)      AS capture_lag_s,
         max_by(ingestion_lag_seconds, written_at)    AS ingestion_lag_s,
         max(written_at)                              AS last_batch
  FROM {facts} WHERE event IS NULL
  GROUP BY app_id
  HAVING headroom_h < 24 OR capture_lag_s > 300 OR ingestion_lag_s > 900
      OR last_batch < current_timestamp() - INTERVAL 1 DAY"""))

# COMMAND ----------

# MAGIC %md
# MAGIC ## Silver: the current state of each table (docs/SILVER.md)
# MAGIC One `ApplyChanges` call per table after the stream's batches: the latest image per key in one MERGE, keys
# MAGIC from the capture instance's unique index (read through the connection), silver's `finalized_until` next to
# MAGIC bronze's in the control table. A rerun with nothing new writes nothing.

# COMMAND ----------

for ci in instances:
    bronze_t, silver_t = f"{schema}.bronze_{ci}", f"{schema}.silver_{ci}"
    if CdcStream is not None:
        from mssql_cdc import ApplyChanges

        r = (ApplyChanges.builder(spark).bronze(bronze_t).target(silver_t).captureInstance(ci)
             .controlTable(control).factsTable(facts).option("connectionString", url).granularity("hour")
             .run())
        print(ci, "rebuilt" if r.rebuilt() else "applied", r.appliedLsn(), "finalized_until", r.finalizedUntil())
    else:
        jr = (spark._jvm.io.mssqlcdc.silver.ApplyChanges.builder(spark._jsparkSession)
              .bronze(bronze_t).target(silver_t).captureInstance(ci)
              .controlTable(control).factsTable(facts).options({"connectionString": url}).granularity("hour")
              .run())
        print(ci, jr.toString())

# COMMAND ----------

display(spark.sql(f"SELECT * FROM {schema}.silver_{instances[0]} LIMIT 100"))
display(spark.sql(f"SELECT table_name, finalized_until FROM {control} ORDER BY table_name"))
