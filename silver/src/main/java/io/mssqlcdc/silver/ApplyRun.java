package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.approx_count_distinct;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lower;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.Granularity;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link ApplyChanges} call (reference-behaviour §16 with §33's corrections). The order is what
 * makes it safe:
 * <ol>
 *   <li>the control table first: bronze's verdict and silver's position (bronze commits its rows
 *       before its verdict, so the bronze version read next holds every commit the verdict covers);
 *   <li>the facts (snapshots completed or open; bronze commits a snapshot's rows before its facts);
 *   <li>bronze, pinned at its latest version: every read of the call sees that one version;
 *   <li>the MERGE (one commit on silver), then the position, then the verdict.
 * </ol>
 * A crash between any two steps leaves silver behind its recorded position or at it, never ahead
 * of its verdict; the next call repairs it.
 */
final class ApplyRun {
  private static final Logger LOG = LoggerFactory.getLogger(ApplyRun.class);
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
  private static final String RANK = "_mssql_cdc_rank";

  private final SparkSession spark;
  private final TableRef bronze;
  private final TableRef silver;
  private final TableRef control;
  private final TableRef facts;
  private final String captureInstance;
  private final List<String> keys;
  private final CdcReaderOptions reader;
  private final Granularity granularity;
  private final Consumer<ApplyChanges.Step> steps;
  private final boolean pruneByKeys;

  ApplyRun(SparkSession spark, TableRef bronze, TableRef silver, TableRef control, TableRef facts,
      String captureInstance, List<String> keys, CdcReaderOptions reader, Granularity granularity,
      Consumer<ApplyChanges.Step> steps, boolean pruneByKeys) {
    this.spark = spark;
    this.bronze = bronze;
    this.silver = silver;
    this.control = control;
    this.facts = facts;
    this.captureInstance = captureInstance;
    this.keys = keys;
    this.reader = reader;
    this.granularity = granularity;
    this.steps = steps;
    this.pruneByKeys = pruneByKeys;
  }

  ApplyResult run() {
    try {
      return apply();
    } catch (RuntimeException | Error e) {
      EnsuredTables.forget(spark, "control " + control.text());
      EnsuredTables.forget(spark, "silver " + silver.text());
      throw e;
    }
  }

  private ApplyResult apply() {
    long t0 = System.nanoTime();
    if (facts == null) {
      warnOnce("no facts " + silver, "ApplyChanges into {} without factsTable: its finalized_until is not advanced"
          + " (pass the stream's facts table)", silver);
    }
    SourceTableInfo source = SourceTableInfo.resolve(captureInstance, keys, reader);
    if (!EnsuredTables.contains(spark, "control " + control.text())) {
      Finalization.ensureControlTable(spark, control.text());
      EnsuredTables.add(spark, "control " + control.text());
    }
    ControlRows.Read first = ControlRows.read(spark, control, bronze.text(), silver.text());
    SilverPosition position = first.silver();
    steps.accept(ApplyChanges.Step.CONTROL_READ);

    if (!DeltaTables.exists(spark, bronze)) {
      LOG.warn("bronze {} does not exist: nothing applied to {}. Expected until the stream writes its first batch;"
          + " otherwise check the name (a typo, or bronze and target swapped)", bronze, silver);
      return new ApplyResult(false, position.appliedLsn(), position.finalizedUntil(), false);
    }
    boolean factsExist = facts != null && DeltaTables.exists(spark, facts);
    SnapshotFacts seen = factsExist ? SnapshotFacts.read(spark, facts, bronze.text()) : SnapshotFacts.NONE;
    if (factsExist && !seen.hasRows() && WARNED.add("facts " + facts + " " + bronze)) {
      LOG.warn("{} has no row for target '{}': if the stream writes it under another name, snapshots are missed."
          + " Its targets: {}", facts, bronze, SnapshotFacts.targets(spark, facts, null));
    }

    long version = DeltaTables.version(spark, bronze);
    Dataset<Row> pinned = DeltaTables.readVersion(spark, bronze, version);
    BronzeColumns columns = BronzeColumns.of(pinned.schema(), bronze.text(), source.keys());
    Column ours = lower(col(CdcColumns.CAPTURE_INSTANCE)).isin(source.instancesLower().toArray());
    Column op = col(CdcColumns.OPERATION);
    Column lsn = col(CdcColumns.START_LSN);
    Column snapshotId = columns.hasSnapshot() ? coalesce(col(CdcColumns.SNAPSHOT), lsn) : lsn;
    Column chunked = columns.hasChunk() ? col(CdcColumns.CHUNK).isNotNull() : lit(false);

    // The newest whole snapshot in bronze, and whether chunk rows are there. Snapshots at or below
    // snapshot_lsn cannot change the decision: leaving them out lets Delta skip their files.
    Column probe = ours.and(op.equalTo(0));
    if (position.snapshotLsn() != null) {
      probe = probe.and(lsn.gt(lit(position.snapshotLsn())));
    }
    Row found = pinned.where(probe).agg(max(when(not(chunked), snapshotId)), count(when(chunked, lit(1)))).first();
    String whole = found.isNullAt(0) ? null : found.getString(0);
    long chunkRows = found.getLong(1);
    if (chunkRows > 0 && !factsExist) {
      throw SilverErrors.chunksWithoutFacts(bronze.text());
    }
    if (chunkRows > 0 && seen.openLsn() == null) {
      throw SilverErrors.chunksWithoutOpen(bronze.text(), facts.text(),
          SnapshotFacts.targets(spark, facts, SnapshotFacts.SNAPSHOT_OPEN));
    }

    ApplyPlan plan = ApplyPlan.decide(position, seen.newest(), whole, seen.openLsn(), seen.chunks());
    Column change = op.notEqual(0);
    Column base = switch (plan.base().kind()) {
      // Every row of a snapshot S is stamped at or after S (a chunk's at its wave's stamp).
      case SNAPSHOT_AND_LATER_CHANGES -> lsn.geq(lit(plan.snapshot()))
          .and(change.and(lsn.gt(lit(plan.snapshot()))).or(op.equalTo(0).and(snapshotId.equalTo(plan.snapshot()))));
      case ALL_CHANGES -> change;
      case CHANGES_AFTER -> change.and(lsn.gt(lit(plan.base().lsn())));
    };
    Dataset<Row> rows = pinned.where(base);
    Dataset<Row> waves = null;
    if (!plan.newChunks().isEmpty()) {
      if (!columns.hasSnapshot() || !columns.hasChunk()) {
        throw new IllegalStateException(facts + " announces chunks of snapshot " + plan.openLsn() + ", but " + bronze
            + " has no _snapshot/_chunk columns to hold them");
      }
      waves = pinned.where(op.equalTo(0).and(col(CdcColumns.SNAPSHOT).equalTo(plan.openLsn()))
          .and(col(CdcColumns.CHUNK).isin(plan.newChunks().keySet().toArray())));
      rows = rows.unionByName(waves);
    }

    // One pass over the call's rows: another table's instance, the newest change, and the keys' spread.
    boolean mayPrune = pruneByKeys && !plan.rebuild() && plan.newChunks().isEmpty()
        && columns.missingKeys().isEmpty();
    List<Column> aggs = new ArrayList<>();
    aggs.add(max(when(not(ours), col(CdcColumns.CAPTURE_INSTANCE))));
    aggs.add(max(when(ours.and(change), lsn)));
    List<String> keyCols = columns.keys();
    if (mayPrune) {
      for (String k : keyCols) {
        Column kc = col(MergeRules.quote(k));
        aggs.add(min(when(ours, kc)));
        aggs.add(max(when(ours, kc)));
        aggs.add(max(when(ours.and(kc.isNull()), lit(true))));
      }
      aggs.add(approx_count_distinct(when(ours, struct(keyCols.stream().map(k -> col(MergeRules.quote(k)))
          .toArray(Column[]::new)))));
    }
    Row stats = rows.agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(Column[]::new)).first();
    if (!stats.isNullAt(0)) {
      throw SilverErrors.otherCaptureInstance(bronze.text(), stats.getString(0), captureInstance, reader != null);
    }
    String top = stats.isNullAt(1) ? null : stats.getString(1);
    columns.requireKeys(bronze.text());
    rows = rows.where(ours);

    String silverColumns = "silver " + silver.text() + " " + columns.capturedNames().stream()
        .map(BronzeColumns::lower).sorted().toList();
    if (!EnsuredTables.contains(spark, silverColumns)) {
      SilverMerge.ensure(spark, silver, columns.captured());
      EnsuredTables.add(spark, silverColumns);
    }
    ApplyPlan.Outcome outcome = plan.outcome(top, facts != null);
    String pruned = "-";
    Row metrics = null;
    if (outcome.merged()) {
      if (waves != null) {
        rows = withWaveExtras(pinned, rows, waves, columns, ours.and(change).and(lsn.gt(lit(plan.openLsn()))), plan,
            seen);
      }
      KeyPruning.Plan prune = mayPrune ? prunePlan(stats, rows, columns)
          : pruneByKeys ? KeyPruning.plan(plan.rebuild(), waves != null, keyCols, null, List.of())
          : new KeyPruning.None("switched off");
      pruned = describe(prune);
      metrics = SilverMerge.merge(spark, silver, latest(rows, columns), keyCols, columns.written(), plan.rebuild(),
          SilverMerge.pruning(prune, columns));
    }
    steps.accept(ApplyChanges.Step.MERGED);
    if (outcome.writePosition()) {
      ControlRows.write(spark, control, silver.text(), outcome.next());
    }
    steps.accept(ApplyChanges.Step.POSITION_RECORDED);

    LocalDateTime verdict;
    if (outcome.holdVerdict()) {
      verdict = position.finalizedUntil();
    } else {
      verdict = Finalization.advance(spark, control.text(), silver.text(), offset(first.bronze()), granularity.text())
          .orElse(null);
    }
    LOG.info("ApplyChanges {} -> {} (bronze version {}): {}; {}; position {}, verdict {} ({} ms)", bronze, silver,
        version, what(plan, top), metrics == null ? "no MERGE" : "MERGE " + summary(metrics) + ", pruning " + pruned,
        outcome.next().appliedLsn(), verdict, (System.nanoTime() - t0) / 1_000_000);
    return new ApplyResult(outcome.rebuilt(), outcome.next().appliedLsn(), verdict, true);
  }

  /**
   * The extra rows of new waves: every change after S of the waves' keys (applied or not: a chunk
   * row never outranks a delete the stream committed after its stamp), and the chunks' range
   * deletes when silver's key is the snapshot's cut key.
   */
  private Dataset<Row> withWaveExtras(Dataset<Row> pinned, Dataset<Row> rows, Dataset<Row> waves,
      BronzeColumns columns, Column ourChangesAfterOpen, ApplyPlan plan, SnapshotFacts seen) {
    List<String> keyCols = columns.keys();
    Dataset<Row> held = waves.select(keyCols.stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new));
    Dataset<Row> later = pinned.where(ourChangesAfterOpen);
    rows = rows.unionByName(semi(later, held, keyCols, "left_semi"));
    if (RangeDeletes.applies(keyCols, seen.openKeys())) {
      String k = keyCols.get(0);
      var gone = RangeDeletes.rows(spark, silver, k, columns.type(k), plan.newChunks().values(), held);
      if (gone.isPresent()) {
        rows = rows.unionByName(gone.get(), true);
      }
    }
    return rows;
  }

  /** {@code a}'s rows whose key is ({@code left_semi}) or is not ({@code left_anti}) in {@code b}, null-safe. */
  private static Dataset<Row> semi(Dataset<Row> a, Dataset<Row> b, List<String> keys, String how) {
    Dataset<Row> x = a.as("a");
    Dataset<Row> y = b.as("b");
    Column on = null;
    for (String k : keys) {
      Column c = col("a." + MergeRules.quote(k)).eqNullSafe(col("b." + MergeRules.quote(k)));
      on = on == null ? c : on.and(c);
    }
    return x.join(y, on, how);
  }

  /** The latest image per key: rank 1 by {@link ImageOrder}, the written columns and {@code _operation}. */
  private Dataset<Row> latest(Dataset<Row> rows, BronzeColumns columns) {
    if (!columns.hasCommandId()) {
      warnOnce("no _command_id " + bronze, "{} has no _command_id (includeCommandId=false): the changes of one"
          + " transaction are ordered by _seqval (__$seqval)", bronze);
    }
    List<Column> order = new ArrayList<>();
    for (ImageOrder.SortKey s : ImageOrder.newestFirst(columns.hasCommandId())) {
      order.add(s.nullsLast() ? col(s.column()).desc_nulls_last() : col(s.column()).desc());
    }
    WindowSpec w = Window.partitionBy(columns.keys().stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new))
        .orderBy(order.toArray(Column[]::new));
    List<Column> out = new ArrayList<>();
    for (String c : columns.written()) {
      out.add(col(MergeRules.quote(c)));
    }
    out.add(col(CdcColumns.OPERATION));
    return rows.withColumn(RANK, row_number().over(w)).where(col(RANK).equalTo(1))
        .select(out.toArray(Column[]::new));
  }

  /** The pruning plan from the pass's statistics (and, for a few keys, the keys themselves). */
  private KeyPruning.Plan prunePlan(Row stats, Dataset<Row> rows, BronzeColumns columns) {
    List<String> keyCols = columns.keys();
    int i = 2;
    List<KeyPruning.Range> ranges = new ArrayList<>();
    for (String k : keyCols) {
      Object lo = stats.get(i);
      Object hi = stats.get(i + 1);
      boolean nulls = !stats.isNullAt(i + 2);
      i += 3;
      if (rangeable(columns.type(k))) {
        ranges.add(new KeyPruning.Range(k, lo, hi, nulls));
      }
    }
    long approx = stats.getLong(i);
    List<List<Object>> distinct = null;
    if (approx <= KeyPruning.MAX_POINTS * 2L) {
      List<Row> ks = rows.select(keyCols.stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new))
          .distinct().limit(KeyPruning.MAX_POINTS + 1).collectAsList();
      if (ks.size() <= KeyPruning.MAX_POINTS) {
        distinct = new ArrayList<>();
        for (Row r : ks) {
          List<Object> tuple = new ArrayList<>();
          for (int j = 0; j < keyCols.size(); j++) {
            tuple.add(r.get(j));
          }
          distinct.add(tuple);
        }
      }
    }
    return KeyPruning.plan(false, false, keyCols, distinct, ranges);
  }

  /** Types whose order Delta's statistics and Spark's comparisons share. */
  private static boolean rangeable(DataType t) {
    return t instanceof NumericType || t instanceof StringType || t instanceof DateType || t instanceof TimestampType
        || t instanceof TimestampNTZType || t instanceof BooleanType;
  }

  /** Bronze's verdict as an end offset; null when it has none (the verdict then stays). */
  private static CdcOffset offset(ControlRows.BronzeVerdict v) {
    if (v.endLsn() == null || v.endCommitTs() == null) {
      return null;
    }
    return CdcOffset.of(Lsn.parse(v.endLsn()), v.endCommitTs().toInstant(ZoneOffset.UTC), null);
  }

  private static String what(ApplyPlan plan, String top) {
    String applied = switch (plan.base().kind()) {
      case SNAPSHOT_AND_LATER_CHANGES -> "rebuilt from snapshot " + plan.snapshot() + " and the changes after it";
      case ALL_CHANGES -> (plan.rebuild() ? "rebuilt from " : "") + "every change";
      case CHANGES_AFTER -> "changes after " + plan.base().lsn();
    };
    if (!plan.newChunks().isEmpty()) {
      applied += ", waves of snapshot " + plan.openLsn() + " (chunks " + plan.newChunks().keySet() + ")";
    }
    return applied + (top == null ? ", no new change" : " up to " + top);
  }

  private static String describe(KeyPruning.Plan p) {
    if (p instanceof KeyPruning.Points pts) {
      return pts.tuples().size() + " key(s) by point";
    }
    if (p instanceof KeyPruning.Ranges r) {
      return "by range of " + r.ranges().stream().map(KeyPruning.Range::column).toList();
    }
    return "none (" + ((KeyPruning.None) p).why() + ")";
  }

  private static String summary(Row m) {
    StringBuilder sb = new StringBuilder();
    for (String f : m.schema().fieldNames()) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(f.replace("num_", "").replace("_rows", "")).append('=').append(m.getAs(f).toString());
    }
    return sb.toString();
  }

  private static void warnOnce(String what, String message, Object arg) {
    if (WARNED.add(what)) {
      LOG.warn(message, arg);
    }
  }
}
