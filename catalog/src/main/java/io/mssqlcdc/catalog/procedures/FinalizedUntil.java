package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.finalization.Finalization;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/** {@code finalized_until}: {@code Finalization.finalizedUntil(spark, controlTable, tableName)}. */
final class FinalizedUntil extends CdcProcedure {
  FinalizedUntil(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "finalized_until";
  }

  @Override
  public String description() {
    return "A Delta table's verdict in the control table (Finalization.finalizedUntil): every period ending at or"
        + " before it is complete in the table.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.required("controlTable", DataTypes.StringType, "The control table (name or path)."),
        Param.required("tableName", DataTypes.StringType,
            "The table whose verdict to read, spelled as its writer names it (bronze as `start_stream`'s `bronze`,"
                + " silver as `apply_changes`'s `silver`)."));
  }

  @Override
  List<Column> columns() {
    return List.of(column("finalized_until", TIMESTAMP_NTZ,
        "The verdict (UTC); NULL when the table has none yet."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    return List.<Object[]>of(new Object[] {
        Finalization.finalizedUntil(spark, a.string("controlTable"), a.string("tableName")).orElse(null)});
  }
}
