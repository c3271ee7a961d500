package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * A snapshot scan, built once per query. It hands out one {@link SnapshotBatch}, which stamps and
 * plans once.
 *
 * <p>IMPORTANT: Spark copies {@code BatchScanExec} while it prepares the physical plan, and each
 * copy asks {@link #toBatch()} again (its batch is a lazy field, not copied). A new batch per call
 * would stamp and cut the table (MIN/MAX, NTILE) once per copy: twice per query on Spark 4.2.
 */
final class SnapshotScan implements Scan {
  private final StructType schema;
  private final SnapshotOptions options;
  private SnapshotBatch batch;

  SnapshotScan(StructType schema, SnapshotOptions options) {
    this.schema = schema;
    this.options = options;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return "mssql_cdc_snapshot " + options;
  }

  @Override
  public synchronized Batch toBatch() {
    if (batch == null) {
      batch = new SnapshotBatch(schema, options);
    }
    return batch;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return SnapshotMetrics.supported();
  }
}
