package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.silver.ApplyChanges;
import io.mssqlcdc.silver.ApplyResult;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

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
    return List.of(
        Param.table("the table bronze holds (its capture instance and the reader options for the keys)."),
        Param.required("bronze", DataTypes.StringType, "The bronze table, named exactly as `start_stream`'s `bronze`."),
        Param.required("silver", DataTypes.StringType,
            "The silver table (the builder's `target`), created on the first call."),
        Param.required("controlTable", DataTypes.StringType,
            "The control table: silver's position and verdict are kept there; created when missing."),
        Param.optional("factsTable", DataTypes.StringType, "NULL", "none",
            "The stream's facts table; without it silver's verdict is never advanced."),
        Param.optional("keys", Param.STRING_LIST, "NULL", "the capture instance's unique index",
            "The key columns: `array('order_id')`."),
        Param.optional("granularity", DataTypes.StringType, "'hour'", "`'hour'`",
            "`minute`, `hour` or `day`: the period silver's `finalized_until` counts in."),
        Param.options());
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
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    ApplyChanges.Builder b = ApplyChanges.builder(spark).bronze(a.string("bronze")).target(a.string("silver"))
        .captureInstance(t.captureInstance()).controlTable(a.string("controlTable"))
        .options(context.options(t, a.map("options"))).granularity(a.string("granularity"));
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    if (a.strings("keys") != null) {
      b.keys(a.strings("keys"));
    }
    ApplyResult r = b.run();
    return List.<Object[]>of(new Object[] {r.rebuilt(), r.appliedLsn().orElse(null),
        r.finalizedUntil().orElse(null), r.bronzeFound()});
  }
}
