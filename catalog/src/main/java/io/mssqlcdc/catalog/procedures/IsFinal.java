package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.finalization.Finalization;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/** {@code is_final}: {@code Finalization.isFinal(spark, controlTable, tableName, periodEnd)}. */
final class IsFinal extends CdcProcedure {
  IsFinal(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "is_final";
  }

  @Override
  public String description() {
    return "Whether the period ending at periodEnd (exclusive) is complete in a table (Finalization.isFinal):"
        + " exactly when periodEnd <= finalized_until.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.required("controlTable", DataTypes.StringType, "The control table (name or path)."),
        Param.required("tableName", DataTypes.StringType, "The table, spelled as its writer names it."),
        Param.required("periodEnd", DataTypes.StringType,
            "ISO-8601: with an offset or zone (`2026-03-01T12:00:00+02:00`: converted to UTC), without"
                + " (`2026-03-01T10:00:00`: UTC), or a date (`2026-03-01`: its midnight, UTC)."));
  }

  @Override
  List<Column> columns() {
    return List.of(column("is_final", BOOLEAN, "Whether every change of the period is in the table."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    return List.<Object[]>of(new Object[] {
        Finalization.isFinal(spark, a.string("controlTable"), a.string("tableName"), a.string("periodEnd"))});
  }
}
