package io.mssqlcdc.connector;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** {@code format("mssql_cdc_snapshot")}: the snapshot reader. */
public final class CdcSnapshotTableProvider implements TableProvider, DataSourceRegister {
  @Override
  public String shortName() {
    return "mssql_cdc_snapshot";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    throw new UnsupportedOperationException("format(\"mssql_cdc_snapshot\") is not implemented yet");
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    throw new UnsupportedOperationException("format(\"mssql_cdc_snapshot\") is not implemented yet");
  }
}
