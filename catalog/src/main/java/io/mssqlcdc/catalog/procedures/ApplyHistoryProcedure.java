package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.silver.ApplyHistory;
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
    return SilverCallParams.params("history", "The history table (the builder's `target`), created on the first call.",
        "the history's", "The stream's facts table: its snapshots (a re-snapshot closes versions with `__gap`);"
            + " without it the verdict is never advanced.", List.of(
        Param.optional("storeDeletes", DataTypes.BooleanType, "false", "`false`",
            "Whether a delete also writes a tombstone version (`__is_deleted` true); else it only closes the key's"
                + " version."),
        Param.optional("trackHistoryColumns", Param.STRING_LIST, "NULL", "every captured column",
            "The columns whose changes open a new version; a change of only other columns updates the current"
                + " version in place. Not with `exceptColumns`."),
        Param.optional("exceptColumns", Param.STRING_LIST, "NULL", "none",
            "The columns whose changes do not open a new version (every other does). Not with"
                + " `trackHistoryColumns`.")));
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
    ApplyHistory.Builder b = SilverCallParams.apply(ApplyHistory.builder(spark), context, a, "history")
        .storeDeletes(Boolean.TRUE.equals(a.bool("storeDeletes")));
    if (a.strings("trackHistoryColumns") != null) {
      b.trackHistoryColumns(a.strings("trackHistoryColumns"));
    }
    if (a.strings("exceptColumns") != null) {
      b.exceptColumns(a.strings("exceptColumns"));
    }
    return SilverCallParams.result(b.run());
  }
}
