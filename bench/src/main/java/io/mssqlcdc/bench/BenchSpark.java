package io.mssqlcdc.bench;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The runner's SparkSession: local, two task slots (the machines have 2 cores), Delta enabled,
 * and, unlike the tests' sessions, Spark's production defaults for code generation (whole-stage
 * codegen on), so the figures are those of a real job.
 */
public final class BenchSpark {
  private BenchSpark() {}

  public static SparkSession session(Path warehouse) {
    SparkSession s = SparkSession.builder()
        .master("local[2]")
        .appName("mssql-cdc-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        // Delta's default of 50 partitions for log replay dominates small local tables alike on both sides
        .config("spark.databricks.delta.snapshotPartitions", "2")
        .config("spark.sql.warehouse.dir", warehouse.toAbsolutePath().toString())
        .getOrCreate();
    return s;
  }
}
