package io.mssqlcdc.catalog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Changelog;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The changes of a catalog table over a commit-LSN range, as Spark's change-data API wants them:
 * the change stream's rows ({@code format("mssql_cdc")}, read by the stream's own partitions, see
 * {@link ChangelogScan}) with {@code _change_type} (from {@code _operation}), {@code _commit_version}
 * (the commit LSN, {@code _start_lsn}), {@code _commit_timestamp} (the commit time) and
 * {@code _row_version} ({@code _start_lsn} + {@code _seqval}: an update's pre- and post-image share it).
 * Every change is there (intermediate ones too), never a carry-over, and updates are pre/post-image
 * pairs; Spark computes the deduplication modes and {@code computeUpdates} from the row id (the
 * capture instance's unique index) and the row version.
 */
final class CdcChangelog implements Changelog {
  static final String ROW_VERSION = "_row_version";

  private final CatalogTable table;
  private final ChangeRange range;
  private final Map<String, String> streamOptions;
  private final StructType schema;

  CdcChangelog(CatalogTable table, ChangeRange range, Map<String, String> streamOptions) {
    this.table = table;
    this.range = range;
    this.streamOptions = streamOptions;
    @SuppressWarnings("deprecation")
    StructType stream = table.schema();
    this.schema = stream
        .add(new StructField(CHANGE_TYPE, DataTypes.StringType, false, org.apache.spark.sql.types.Metadata.empty()))
        .add(new StructField(COMMIT_VERSION, DataTypes.StringType, false, org.apache.spark.sql.types.Metadata.empty()))
        .add(new StructField(COMMIT_TIMESTAMP, DataTypes.TimestampType, true, org.apache.spark.sql.types.Metadata.empty()))
        .add(new StructField(ROW_VERSION, DataTypes.StringType, false, org.apache.spark.sql.types.Metadata.empty()));
  }

  static final String CHANGE_TYPE = "_change_type";
  static final String COMMIT_VERSION = "_commit_version";
  static final String COMMIT_TIMESTAMP = "_commit_timestamp";

  @Override
  public String name() {
    return table.name() + " changes (" + range.after().hex() + ", " + range.upTo().hex() + "]";
  }

  @Override
  public Column[] columns() {
    List<Column> c = new ArrayList<>();
    for (StructField f : schema.fields()) {
      c.add(Column.create(f.name(), f.dataType(), f.nullable()));
    }
    return c.toArray(Column[]::new);
  }

  @Override
  public boolean containsCarryoverRows() {
    return false;
  }

  @Override
  public boolean containsIntermediateChanges() {
    return true;
  }

  @Override
  public boolean representsUpdateAsDeleteAndInsert() {
    return false;
  }

  @Override
  public NamedReference[] rowId() {
    return table.keyColumns().stream().map(k -> Expressions.column(k)).toArray(NamedReference[]::new);
  }

  @Override
  public NamedReference rowVersion() {
    return Expressions.column(ROW_VERSION);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    @SuppressWarnings("deprecation")
    StructType stream = table.schema();
    return () -> new ChangelogScan(table.name(), stream, schema, range, streamOptions);
  }

  @Override
  public String toString() {
    return name() + Arrays.toString(schema.fieldNames());
  }
}
