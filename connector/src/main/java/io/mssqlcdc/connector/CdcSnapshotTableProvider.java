package io.mssqlcdc.connector;

import io.mssqlcdc.connector.snapshot.SnapshotSchema;
import io.mssqlcdc.connector.snapshot.SnapshotTable;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("mssql_cdc_snapshot")}: the table's current rows in the stream's
 * schema, stamped with an LSN taken before the read (docs/SNAPSHOT.md). Options are parsed and
 * validated in {@link #inferSchema} and {@link #getTable}, so a bad option fails when the
 * DataFrame is created.
 */
public final class CdcSnapshotTableProvider implements TableProvider, DataSourceRegister {
  @Override
  public String shortName() {
    return "mssql_cdc_snapshot";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    return SnapshotSchema.infer(options.asCaseSensitiveMap());
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return SnapshotTable.of(schema, properties);
  }
}
