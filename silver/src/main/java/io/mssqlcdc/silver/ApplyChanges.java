package io.mssqlcdc.silver;

import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * Silver: keeps a current-state Delta table (one row per key) equal to the source table, from the
 * bronze change log the stream writes (reference-behaviour §16, ADR 0019; docs/SILVER.md).
 *
 * <pre>{@code
 * ApplyResult r = ApplyChanges.builder(spark)
 *     .bronze("bronze.orders").target("silver.orders")
 *     .captureInstance("dbo_orders").keys(List.of("order_id"))
 *     .controlTable("ops.table_finalization").factsTable("ops.cdc_facts")
 *     .granularity("hour")
 *     .run();
 * }</pre>
 *
 * <p>Each call applies what bronze holds beyond silver's position ({@code applied_lsn} in the
 * control table): the latest image per key, in one MERGE. Deletes remove rows; a rerun applies
 * nothing; a crash at any point is repaired by the next call; a newer snapshot in bronze (a
 * bootstrap or a re-snapshot after CDC retention loss) rebuilds silver, so rows deleted while
 * changes were lost disappear. Silver's verdict ({@code finalized_until}) is bronze's verdict as it
 * was read before bronze: it never claims more than the call applied. Run one call per silver
 * table at a time (after the stream's batches, in the same job or another).
 *
 * <p>From PySpark, through the gateway (plain strings, lists and booleans; no overloads):
 * <pre>{@code
 * r = (spark._jvm.io.mssqlcdc.silver.ApplyChanges.builder(spark._jsparkSession)
 *      .bronze("bronze.orders").target("silver.orders").captureInstance("dbo_orders")
 *      .keys(["order_id"]).controlTable("ops.table_finalization").factsTable("ops.cdc_facts")
 *      .run())
 * r.rebuilt(), r.appliedLsn().orElse(None), r.finalizedUntil().orElse(None), r.bronzeFound()
 * }</pre>
 */
public final class ApplyChanges {
  private ApplyChanges() {}

  /** Every argument of {@link Builder}, in documentation order (docs/OPTIONS.md is generated from it). */
  public static final List<io.mssqlcdc.sink.pipeline.CdcStream.Argument> ARGUMENTS = List.of(
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("bronze", "string", "required",
          "The bronze table the stream writes, named exactly as the stream's `target` (name or path): its facts"
              + " rows and its verdict in the control table are found by that spelling."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("target", "string", "required",
          "The silver table (name or path); created on the first call. One call per silver table at a time."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("captureInstance", "string", "the options' `captureInstance`",
          "The stream's capture instance. Bronze rows of other capture instances of the same table (after a"
              + " switch) are applied too when `options` are given; rows of any other instance fail the call."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("keys", "list of strings", "the capture instance's unique index",
          "The columns that identify a row (matched null-safe: a unique index admits one NULL key). Without"
              + " them, the unique index CDC uses is read through `options`."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("controlTable", "string", "required",
          "The control table (name or path) the stream's tracking writes bronze's verdict to; silver's position"
              + " (`applied_lsn`, `snapshot_lsn`, `open_snapshot_lsn`, `snapshot_wave`) and verdict are kept there"
              + " under `target`. Created when missing."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("factsTable", "string", "none",
          "The stream's facts table: its `bootstrap`/`resnapshot` rows name the snapshots to rebuild from (an"
              + " emptied table's re-snapshot is there alone). Without it, silver's verdict is never advanced."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("option / options", "string → string", "none",
          "The stream's reader options (`format(\"mssql_cdc\")`): read the default keys and the table's other"
              + " capture instances from SQL Server. Validated as the stream validates them."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("granularity", "`minute`, `hour` or `day`", "`hour`",
          "The period silver's `finalized_until` is counted in; checked before anything is read or written."));

  /** A builder of one call. */
  public static Builder builder(SparkSession spark) {
    return new Builder(spark);
  }

  /** The steps after which a test may inject a crash (package-private hook). */
  enum Step {
    /** The control table was read; bronze not yet. */
    CONTROL_READ,
    /**
     * A first call read whether its target is empty, before its MERGE ({@code FirstMerge}), or wrote its first files
     * and has not committed them ({@code FirstWrite}); other calls skip it.
     */
    EMPTY_CHECKED,
    /** The MERGE committed; the position is not recorded yet. */
    MERGED,
    /** The position and the verdict are recorded (one commit of the control table); the call returns next. */
    POSITION_RECORDED
  }

  /** Collects the arguments of one call; {@link #run()} checks them all before reading anything. */
  public static final class Builder extends SilverCallBuilder<Builder> {
    private Consumer<Step> steps = s -> { };
    private boolean pruneByKeys = true;

    private Builder(SparkSession spark) {
      super(spark);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Test hook: called after each {@link Step} (a throw there simulates a crash). */
    Builder onStep(Consumer<Step> hook) {
      this.steps = hook;
      return this;
    }

    /** Benchmark baseline: MERGE without the key pruning predicate (package-private). */
    Builder pruneByKeys(boolean prune) {
      this.pruneByKeys = prune;
      return this;
    }

    /**
     * Applies bronze to silver (one call).
     *
     * @throws io.mssqlcdc.errors.CdcConfigException for an invalid argument, keys that are not
     *     captured columns, or bronze rows of another table's capture instance
     */
    public ApplyResult run() {
      CallArguments a = checked("silver");
      return new ApplyRun(spark, a.bronze(), a.target(), a.control(), a.facts(), a.captureInstance(), a.keys(),
          a.reader(), a.granularity(), steps, pruneByKeys).run();
    }
  }
}
