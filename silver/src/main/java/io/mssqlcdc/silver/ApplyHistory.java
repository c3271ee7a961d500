package io.mssqlcdc.silver;

import io.mssqlcdc.sink.pipeline.CdcStream.Argument;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * History (SCD type 2) beside silver: keeps a Delta table with one row per version of each key of the
 * source table, from the bronze change log (docs/HISTORY.md, decision 0016). A sibling of
 * {@link ApplyChanges}: the same arguments, control table and exactly-once rules.
 *
 * <pre>{@code
 * ApplyResult r = ApplyHistory.builder(spark)
 *     .bronze("bronze.orders").target("history.orders")
 *     .captureInstance("dbo_orders").keys(List.of("order_id"))
 *     .controlTable("ops.table_finalization").factsTable("ops.cdc_facts")
 *     .run();
 * }</pre>
 *
 * <p>Each call applies what bronze holds beyond the history's position ({@code applied_lsn} under
 * {@code target} in the control table): per key, one version per transaction whose tracked columns
 * changed, the current version closed where a delete or a new version begins. A rerun writes nothing;
 * a crash between the MERGE and the position is repaired by the next call (each key skips what its
 * versions already cover). A newer snapshot in bronze (a re-snapshot after retention loss) closes the
 * versions it contradicts at its LSN, flagged {@code __gap}. Run one call per history table at a time.
 */
public final class ApplyHistory {
  private ApplyHistory() {}

  /** Every argument of {@link Builder}, in documentation order (docs/OPTIONS.md is generated from it). */
  public static final List<Argument> ARGUMENTS = arguments();

  private static List<Argument> arguments() {
    List<Argument> out = new ArrayList<>();
    for (Argument a : ApplyChanges.ARGUMENTS) {
      out.add(switch (a.name()) {
        case "target" -> new Argument("target", "string", "required",
            "The history table (name or path); created on the first call. One call per history table at a time.");
        case "controlTable" -> new Argument("controlTable", "string", "required",
            "The control table (name or path) the stream's tracking writes bronze's verdict to; the history's"
                + " position (`applied_lsn`, `snapshot_lsn`) and verdict are kept there under `target`. Created when"
                + " missing.");
        case "factsTable" -> new Argument("factsTable", "string", "none",
            "The stream's facts table: its `bootstrap`/`resnapshot` rows name the snapshots to apply (an emptied"
                + " table's re-snapshot is there alone). Without it, the history's verdict is never advanced.");
        case "granularity" -> new Argument("granularity", a.type(), a.defaultText(),
            "The period the history's `finalized_until` is counted in; checked before anything is read or"
                + " written.");
        default -> a;
      });
    }
    out.add(new Argument("storeDeletes", "boolean", "`false`",
        "Whether a delete also writes a tombstone: a version with `__is_deleted` true from the delete until the key"
            + " comes back. Without it a delete only closes the key's current version."));
    out.add(new Argument("trackHistoryColumns", "list of strings", "every captured column",
        "The columns whose change opens a new version; a change of the others updates the current version in"
            + " place. Not with `exceptColumns`."));
    out.add(new Argument("exceptColumns", "list of strings", "none",
        "The columns whose change does not open a new version (updated in place); every other captured column"
            + " does. Not with `trackHistoryColumns`."));
    return List.copyOf(out);
  }

  /** A builder of one call. */
  public static Builder builder(SparkSession spark) {
    return new Builder(spark);
  }

  /** The steps after which a test may inject a crash (package-private hook). */
  enum Step {
    /** The history MERGE committed; the position is not recorded yet. */
    MERGED
  }

  /** Collects the arguments of one call; {@link #run()} checks them all before reading anything. */
  public static final class Builder extends SilverCallBuilder<Builder> {
    private boolean storeDeletes;
    private List<String> track;
    private List<String> except;
    private Consumer<Step> steps = s -> { };

    private Builder(SparkSession spark) {
      super(spark);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Whether deletes write tombstones ({@code __is_deleted}); default false. */
    public Builder storeDeletes(boolean store) {
      this.storeDeletes = store;
      return this;
    }

    /** The columns whose change opens a new version; default every captured column. */
    public Builder trackHistoryColumns(List<String> columns) {
      this.track = columns == null ? null : List.copyOf(columns);
      return this;
    }

    /** The columns whose change does not open a new version; default none. */
    public Builder exceptColumns(List<String> columns) {
      this.except = columns == null ? null : List.copyOf(columns);
      return this;
    }

    /** Test hook: called after each {@link Step} (a throw there simulates a crash). */
    Builder onStep(Consumer<Step> hook) {
      this.steps = hook;
      return this;
    }

    /**
     * Applies bronze to the history (one call).
     *
     * @return what the call did: {@code rebuilt()} is whether it applied a new snapshot
     * @throws io.mssqlcdc.errors.CdcConfigException for an invalid argument, keys or tracked columns that
     *     are not captured columns, or bronze rows of another table's capture instance
     */
    public ApplyResult run() {
      CallArguments a = checked("history");
      TrackedColumns.checkOneOf(track, except);
      return new HistoryRun(spark, a, storeDeletes, track, except, steps).run();
    }
  }
}
