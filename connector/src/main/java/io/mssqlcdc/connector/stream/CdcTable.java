package io.mssqlcdc.connector.stream;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.Arrays;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The change feed of one table's capture instances, readable as a micro-batch stream. */
public final class CdcTable implements SupportsRead {
  private final CdcReaderOptions options;
  private final StructType schema;

  public CdcTable(CdcReaderOptions options, StructType schema) {
    this.options = options;
    this.schema = schema;
  }

  @Override
  public String name() {
    return "mssql_cdc(" + options.captureInstance() + ")";
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.MICRO_BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap ignored) {
    int metadata = CdcColumns.metadataFields(options.includeCommandId()).size();
    StructField[] fields = schema.fields();
    StructType captured = new StructType(Arrays.copyOfRange(fields, metadata, fields.length));
    return new CdcScanBuilder(options, schema, captured);
  }
}
