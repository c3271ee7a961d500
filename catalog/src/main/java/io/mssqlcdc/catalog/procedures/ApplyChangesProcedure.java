package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.silver.ApplyChanges;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/** {@code apply_changes}: {@code ApplyChanges.builder(spark)...run()}: bronze into the silver table, once. */
final class ApplyChangesProcedure extends CdcProcedure {
  ApplyChangesProcedure(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "apply_changes";
  }

  @Override
  public String description() {
    return "Applies bronze to the silver table once (ApplyChanges.run): one row per key, equal to the source table,"
        + " with silver's position and finalized_until in the control table.";
  }

  @Override
  List<Param> params() {
    return SilverCallParams.params("silver", "The silver table (the builder's `target`), created on the first call.",
        "silver's", "The stream's facts table; without it silver's verdict is never advanced.", List.of());
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("rebuilt", BOOLEAN, "Whether the call rebuilt silver from a snapshot in bronze (first call, or a newer"
            + " snapshot)."),
        column("applied_lsn", STRING, "Silver's position: the newest bronze change or snapshot LSN applied; NULL"
            + " before anything was."),
        column("finalized_until", TIMESTAMP_NTZ, "Silver's verdict (UTC): every period ending at or before it is"
            + " complete in silver; NULL when none."),
        column("bronze_found", BOOLEAN, "False when bronze does not exist yet: nothing was applied."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    return SilverCallParams.result(SilverCallParams.apply(ApplyChanges.builder(spark), context, a, "silver").run());
  }
}
