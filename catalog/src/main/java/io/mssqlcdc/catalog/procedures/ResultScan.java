package io.mssqlcdc.catalog.procedures;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.StructType;
import scala.Function1;

/** A procedure's result rows: Java values ({@code String}, {@code LocalDateTime}, {@code Map}, ...) in {@code schema}. */
final class ResultScan implements LocalScan {
  private final StructType schema;
  private final InternalRow[] rows;

  ResultScan(StructType schema, List<Object[]> values) {
    this.schema = schema;
    Function1<Object, Object> toCatalyst = CatalystTypeConverters.createToCatalystConverter(schema);
    this.rows = values.stream().map(v -> {
      Row r = RowFactory.create(v);
      return (InternalRow) toCatalyst.apply(r);
    }).toArray(InternalRow[]::new);
  }

  @Override
  public InternalRow[] rows() {
    return rows;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return "procedure result " + schema.simpleString();
  }
}
