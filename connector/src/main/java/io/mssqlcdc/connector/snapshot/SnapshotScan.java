package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/** A snapshot scan: one {@link SnapshotBatch} per physical plan, which stamps and plans once. */
final class SnapshotScan implements Scan {
  private final StructType schema;
  private final SnapshotOptions options;

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
  public Batch toBatch() {
    return new SnapshotBatch(schema, options);
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return SnapshotMetrics.supported();
  }
}
