package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.silver.ApplyHistory;
import io.mssqlcdc.silver.ApplyResult;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code apply_history}: {@code ApplyHistory.builder(spark)...run()}: bronze into the history table (one row per
 * version of each key, docs/HISTORY.md), once.
 */
final class ApplyHistoryProcedure extends CdcProcedure {
  ApplyHistoryProcedure(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "apply_history";
  }

  @Override
  public String description() {
    return "Applies bronze to the history table once (ApplyHistory.run, docs/HISTORY.md): one row per version of"
        + " each key with `__valid_from`/`__valid_to`, its position and finalized_until in the control table.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.table("the table bronze holds (its capture instance and the reader options for the keys)."),
        Param.required("bronze", DataTypes.StringType, "The bronze table, named exactly as `start_stream`'s `bronze`."),
        Param.required("history", DataTypes.StringType,
            "The history table (the builder's `target`), created on the first call."),
        Param.required("controlTable", DataTypes.StringType,
            "The control table: the history's position and verdict are kept there; created when missing."),
        Param.optional("factsTable", DataTypes.StringType, "NULL", "none",
            "The stream's facts table: its snapshots (a re-snapshot closes versions with `__gap`); without it the"
                + " verdict is never advanced."),
        Param.optional("keys", Param.STRING_LIST, "NULL", "the capture instance's unique index",
            "The key columns: `array('order_id')`."),
        Param.optional("granularity", DataTypes.StringType, "'hour'", "`'hour'`",
            "`minute`, `hour` or `day`: the period the history's `finalized_until` counts in."),
        Param.optional("storeDeletes", DataTypes.BooleanType, "false", "`false`",
            "Whether a delete also writes a tombstone version (`__is_deleted` true); else it only closes the key's"
                + " version."),
        Param.optional("trackHistoryColumns", Param.STRING_LIST, "NULL", "every captured column",
            "The columns whose changes open a new version; a change of only other columns updates the current"
                + " version in place. Not with `exceptColumns`."),
        Param.optional("exceptColumns", Param.STRING_LIST, "NULL", "none",
            "The columns whose changes do not open a new version (every other does). Not with"
                + " `trackHistoryColumns`."),
        Param.options());
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("rebuilt", BOOLEAN, "Whether the call applied a snapshot in bronze (first call, or a newer one)."),
        column("applied_lsn", STRING, "The history's position: the newest bronze change or snapshot LSN applied;"
            + " NULL before anything was."),
        column("finalized_until", TIMESTAMP_NTZ, "The history's verdict (UTC): every period ending at or before it"
            + " is complete in the history; NULL when none."),
        column("bronze_found", BOOLEAN, "False when bronze does not exist yet: nothing was applied."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    CatalogContext.ResolvedTable t = context.table(a.string("table"));
    ApplyHistory.Builder b = ApplyHistory.builder(spark).bronze(a.string("bronze")).target(a.string("history"))
        .captureInstance(t.captureInstance()).controlTable(a.string("controlTable"))
        .options(context.options(t, a.map("options"))).granularity(a.string("granularity"))
        .storeDeletes(Boolean.TRUE.equals(a.bool("storeDeletes")));
    if (a.string("factsTable") != null) {
      b.factsTable(a.string("factsTable"));
    }
    if (a.strings("keys") != null) {
      b.keys(a.strings("keys"));
    }
    if (a.strings("trackHistoryColumns") != null) {
      b.trackHistoryColumns(a.strings("trackHistoryColumns"));
    }
    if (a.strings("exceptColumns") != null) {
      b.exceptColumns(a.strings("exceptColumns"));
    }
    ApplyResult r = b.run();
    return List.<Object[]>of(new Object[] {r.rebuilt(), r.appliedLsn().orElse(null),
        r.finalizedUntil().orElse(null), r.bronzeFound()});
  }
}
