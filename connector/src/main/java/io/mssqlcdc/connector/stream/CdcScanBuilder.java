package io.mssqlcdc.connector.stream;

import io.mssqlcdc.options.CdcReaderOptions;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;

/** No pushdown: every change row is read (a filter would break the prefix guarantee). */
final class CdcScanBuilder implements ScanBuilder {
  private final CdcReaderOptions options;
  private final StructType schema;
  private final StructType captured;

  CdcScanBuilder(CdcReaderOptions options, StructType schema, StructType captured) {
    this.options = options;
    this.schema = schema;
    this.captured = captured;
  }

  @Override
  public Scan build() {
    return new CdcScan(options, schema, captured);
  }
}
