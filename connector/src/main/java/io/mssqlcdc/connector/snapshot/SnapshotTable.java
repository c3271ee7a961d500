package io.mssqlcdc.connector.snapshot;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The table behind {@code format("mssql_cdc_snapshot")}: batch reads only. */
public final class SnapshotTable implements SupportsRead {
  private final StructType schema;
  private final SnapshotOptions options;

  private SnapshotTable(StructType schema, SnapshotOptions options) {
    this.schema = schema;
    this.options = options;
  }

  /** Parses {@code options} (failing on bad ones) for a table of {@code schema}. */
  public static SnapshotTable of(StructType schema, Map<String, String> options) {
    return new SnapshotTable(schema, SnapshotOptions.parse(options));
  }

  @Override
  public String name() {
    return "mssql_cdc_snapshot[" + options.reader().captureInstance() + "]";
  }

  @Override
  @SuppressWarnings("deprecation") // Spark 4.2 still asks schema() of TableProvider tables
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return EnumSet.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
    return () -> new SnapshotScan(schema, options);
  }
}
