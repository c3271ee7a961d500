package io.mssqlcdc.connector;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.connector.stream.CdcTable;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code format("mssql_cdc")}: the streaming source (docs/SOURCE.md). Options are parsed and
 * validated when the DataFrame is created; without {@code columns} the schema is inferred from
 * CDC metadata there (one connection on the driver).
 */
public final class CdcTableProvider implements TableProvider, DataSourceRegister {
  @Override
  public String shortName() {
    return "mssql_cdc";
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    CdcReaderOptions o = CdcReaderOptions.parse(options, CdcReaderOptions.Reader.STREAM);
    StructType captured;
    if (o.columns().isPresent()) {
      captured = SchemaInference.capturedColumns(o, null);
    } else {
      try (CdcClient client = CdcClients.open(o)) {
        captured = SchemaInference.capturedColumns(o, client);
      }
    }
    return SchemaInference.withMetadata(captured, o.includeCommandId());
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    return new CdcTable(CdcReaderOptions.parse(properties, CdcReaderOptions.Reader.STREAM), schema);
  }
}
