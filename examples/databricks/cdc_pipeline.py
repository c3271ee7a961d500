# Databricks notebook source
# MAGIC %md
# MAGIC # SQL Server CDC → Delta bronze + facts with mssql-cdc-spark
# MAGIC
# MAGIC Streams one or more SQL Server CDC capture instances into Delta bronze tables (the change log, exactly
# MAGIC once) with a facts row per micro-batch, bootstrapping each table with a snapshot first.
# MAGIC
# MAGIC **Cluster**: dedicated (single user) access mode, DBR 19 for the default build or DBR 18 for the
# MAGIC `-Pspark-4.1` build, with the cluster library `io.mssqlcdc:mssql-cdc-spark_2.13:<version>` (Maven) or
# MAGIC the jar from a volume. The `mssql_cdc` Python package is optional (cell 2); without it the same
# MAGIC builder is reached through `spark._jvm`. See docs/DATABRICKS.md for access modes and docs/OPERATIONS.md
# MAGIC for the alerts of the last cells.
# MAGIC
# MAGIC It also keeps `finalized_until` per bronze table in a control table (finalization), so downstream
# MAGIC jobs gate on complete periods. Silver (current state per key) comes with its module.

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
# MAGIC ## The latest image per key (what silver will hold), from bronze

# COMMAND ----------

display(spark.sql(f"""
  SELECT * EXCEPT (n) FROM (
    SELECT *, row_number() OVER (PARTITION BY order_id   -- the table's key
             ORDER BY _start_lsn DESC, _command_id DESC, _seqval DESC, _operation DESC) AS n
    FROM {schema}.bronze_{instances[0]})
  WHERE n = 1 AND _operation <> 1 LIMIT 100"""))
