package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lower;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.when;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.StateWarmup;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.testing.CrashPoint;
import io.mssqlcdc.testing.CrashPoints;
import java.time.LocalDateTime;
import java.util.List;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link ApplyHistory} call (docs/HISTORY.md, "What a call does"), in {@link ApplyRun}'s order:
 * the control table first (bronze's verdict, the history's position), then the facts, then bronze
 * pinned at its newest version; one MERGE into the history; then the position and the verdict in one
 * commit of the control table. A crash between the MERGE and the position is repaired by the next
 * call through the keys' watermarks ({@link HistoryRules}).
 */
final class HistoryRun {
  private static final Logger LOG = LoggerFactory.getLogger(HistoryRun.class);

  private final SparkSession spark;
  private final CallArguments args;
  private final boolean storeDeletes;
  private final List<String> track;
  private final List<String> except;
  private final Consumer<ApplyHistory.Step> steps;
  /** The history's state computed ahead, awaited before the MERGE, or when the call fails (its jobs are the call's). */
  private StateWarmup historyState = StateWarmup.NONE;
  /** The position's write prepared beside the MERGE; awaited, not committed, when the call fails before its commit. */
  private PositionAhead positionAhead = PositionAhead.NONE;

  HistoryRun(SparkSession spark, CallArguments args, boolean storeDeletes, List<String> track, List<String> except,
      Consumer<ApplyHistory.Step> steps) {
    this.spark = spark;
    this.args = args;
    this.storeDeletes = storeDeletes;
    this.track = track;
    this.except = except;
    this.steps = steps;
  }

  ApplyResult run() {
    try {
      return apply();
    } catch (RuntimeException | Error e) {
      historyState.await(ApplyRun.WARMUP_WAIT_SECONDS);
      positionAhead.abandon(ApplyRun.WARMUP_WAIT_SECONDS);
      EnsuredTables.forget(spark, "control " + args.control().text());
      EnsuredTables.forget(spark, "history " + args.target().text());
      throw e;
    }
  }

  private ApplyResult apply() {
    long t0 = System.nanoTime();
    TableRef bronze = args.bronze();
    TableRef history = args.target();
    TableRef control = args.control();
    TableRef facts = args.facts();
    SourceTableInfo source = SourceTableInfo.resolve(args.captureInstance(), args.keys(), args.reader(), true);
    if (!EnsuredTables.contains(spark, "control " + control.text())) {
      Finalization.ensureControlTable(spark, control.text());
      EnsuredTables.add(spark, "control " + control.text());
    }
    ControlRows.Read first = ControlRows.read(spark, control, bronze.text(), history.text());
    SilverPosition position = first.silver();
    if (!DeltaTables.exists(spark, bronze)) {
      LOG.warn("bronze {} does not exist: nothing applied to {}. Expected until the stream writes its first batch",
          bronze, history);
      return new ApplyResult(false, position.appliedLsn(), position.finalizedUntil(), false);
    }
    boolean factsExist = facts != null && DeltaTables.exists(spark, facts);
    SnapshotFacts seen = factsExist ? SnapshotFacts.read(spark, facts, bronze.text()) : SnapshotFacts.NONE;
    // A completed chunked snapshot not applied yet: how far the stream has read, and how far each snapshot's waves
    // saw, read before bronze is pinned (a batch the facts show is then in the pinned bronze). Not while the snapshot
    // is still open: nothing could be applied.
    boolean chunkedPending = seen.openLsn() != null && Lsns.after(seen.openLsn(), position.snapshotLsn())
        && Lsns.after(seen.newest(), position.snapshotLsn());
    StreamProgress progress = factsExist && chunkedPending ? StreamProgress.read(spark, facts, bronze.text())
        : StreamProgress.NONE;

    long bronzeVersion = DeltaTables.version(spark, bronze);
    // The history's state (its files, which the MERGE's source reads and the MERGE filters), computed beside the pass
    // over bronze when the call will likely MERGE: bronze has a newer version than at the last call in this JVM, or it
    // is the JVM's first call for the history (StateWarmup).
    historyState = BronzeMoves.since(history.text(), bronze.text(), bronzeVersion) && first.silverRow()
        ? StateWarmup.start(spark, history, "ApplyHistory " + history.text() + ": the history's state, ahead")
        : StateWarmup.NONE;
    Dataset<Row> pinned = DeltaTables.readVersion(spark, bronze, bronzeVersion);
    BronzeColumns columns = BronzeColumns.of(pinned.schema(), bronze.text(), source.keys());
    boolean[] tracked = TrackedColumns.mask(columns.capturedNames(), track, except);
    Column ours = lower(col(CdcColumns.CAPTURE_INSTANCE)).isin(source.instancesLower().toArray());
    Column op = col(CdcColumns.OPERATION);
    Column lsn = col(CdcColumns.START_LSN);
    Column snapshotId = columns.hasSnapshot() ? coalesce(col(CdcColumns.SNAPSHOT), lsn) : lsn;
    Column chunked = columns.hasChunk() ? col(CdcColumns.CHUNK).isNotNull() : lit(false);

    // The newest whole snapshot in bronze above the one recorded (those at or below cannot change the plan).
    Column probe = ours.and(op.equalTo(0)).and(not(chunked));
    // Chunk rows of a snapshot newer than the one recorded: they need the facts that announce them.
    Column chunkProbe = ours.and(op.equalTo(0)).and(chunked);
    if (position.snapshotLsn() != null) {
      probe = probe.and(lsn.gt(lit(position.snapshotLsn())));
      chunkProbe = chunkProbe.and(snapshotId.gt(lit(position.snapshotLsn())));
    }
    // One pass over bronze for the plan it would have without a new snapshot in bronze (the facts name it when the
    // stream wrote one), the probe riding along; again only when the probe finds a snapshot that changes the plan.
    HistoryPlan plan = HistoryPlan.decide(position, seen.newest(), null, seen.openLsn());
    Row stats = stats(pinned, base(plan, op, lsn, snapshotId), probe, chunkProbe, ours, op, lsn, chunked, snapshotId);
    HistoryPlan decided = HistoryPlan.decide(position, seen.newest(), stats.isNullAt(4) ? null : stats.getString(4),
        seen.openLsn());
    if (!decided.equals(plan)) {
      plan = decided;
      stats = stats(pinned, base(plan, op, lsn, snapshotId), lit(false), chunkProbe, ours, op, lsn, chunked,
          snapshotId);
    }
    if (!stats.isNullAt(0)) {
      throw SilverErrors.otherCaptureInstance(bronze.text(), stats.getString(0), args.captureInstance(),
          args.reader() != null);
    }
    columns.requireKeys(bronze.text());
    if (stats.getLong(6) > 0 && !factsExist) {
      throw SilverErrors.chunksWithoutFacts(bronze.text());
    }
    if (stats.getLong(6) > 0 && seen.openLsn() == null) {
      throw SilverErrors.chunksWithoutOpen(bronze.text(), facts.text(),
          SnapshotFacts.targets(spark, facts, SnapshotFacts.SNAPSHOT_OPEN));
    }
    // Chunked from the facts, not only from chunk rows: waves that read an emptied table write none, and the state
    // at S of a key deleted since is still its delete's before image (HistoryRules.atSnapshot), not absent.
    boolean chunks = plan.applySnapshot() && (stats.getLong(2) > 0 || seen.openedChunked(plan.snapshot()));
    String stamp = stats.isNullAt(5) ? null : stats.getString(5);
    if (chunks && !progress.hasRead(plan.snapshot(), stamp, first.bronze().endLsn())) {
      // A chunked snapshot's rows are its keys' states when their waves read them; the state at S is known once
      // bronze holds every change they may show (HistoryRules.atSnapshot), with or without chunk rows.
      LOG.info("ApplyHistory {}: chunked snapshot {} waits until the stream has read past its waves (to {})",
          history, plan.snapshot(), progress.bound(plan.snapshot(), stamp));
      plan = plan.waitingFor();
      stats = stats(pinned, base(plan, op, lsn, snapshotId), lit(false), chunkProbe, ours, op, lsn, chunked,
          snapshotId);
      chunks = false;
    }
    Dataset<Row> read = pinned.where(base(plan, op, lsn, snapshotId));
    String top = stats.isNullAt(1) ? null : stats.getString(1);
    HistoryRules.Snapshot snapshot = null;
    if (plan.applySnapshot()) {
      // A chunked snapshot's rows carry their waves' commit times: S's own is in its facts rows.
      LocalDateTime at = chunks || stats.isNullAt(3) ? snapshotTime(seen, plan.snapshot())
          : (LocalDateTime) stats.get(3);
      snapshot = new HistoryRules.Snapshot(plan.snapshot(), at, chunks);
    }

    String ensured = "history " + history.text() + " " + columns.capturedNames().stream().map(BronzeColumns::lower)
        .sorted().toList();
    if (!EnsuredTables.contains(spark, ensured)) {
      HistoryMerge.ensure(spark, history, columns.captured());
      EnsuredTables.add(spark, ensured);
    }
    historyState.await(ApplyRun.WARMUP_WAIT_SECONDS);
    SilverPosition next = plan.next(top);
    LocalDateTime verdict = position.finalizedUntil();
    // While changes wait for a chunked snapshot the history is not complete up to bronze's verdict: it waits too.
    ControlRows.Verdict advance = facts == null || plan.waits() ? null
        : ControlRows.advance(first.bronze(), verdict, args.granularity());
    if (advance != null) {
      verdict = advance.finalizedUntil();
    }
    boolean record = !next.samePosition(position) || advance != null;
    // The position's rewritten file written beside the MERGE (PositionAhead), its commit after it.
    positionAhead = !record ? PositionAhead.NONE : PositionAhead.start(spark, control,
        ControlRows.row(history.text(), next, advance, first.silverRow()),
        ControlRows.what(history.text(), control), "ApplyHistory " + history.text() + ": position, ahead");
    String merged = "no MERGE";
    if (plan.merges(top)) {
      // A whole snapshot's rows at its LSN; a chunk row keeps its wave's stamp (HistoryRules.atSnapshot takes the
      // earliest read of a key).
      Dataset<Row> mine = read.where(ours).withColumn(CdcColumns.START_LSN, when(op.equalTo(0).and(not(chunked)),
          snapshotId).otherwise(lsn));
      Dataset<Row> versions = HistoryVersions.compute(mine, DeltaTables.read(spark, history), columns,
          new HistoryRules(tracked, storeDeletes, position.snapshotLsn(),
              seen.commitTime(position.snapshotLsn()), source.uncarriedMask(columns.capturedNames())), snapshot);
      // A first call (no position recorded) into a history that holds no row yet: insert only (FirstMerge).
      Row m = FirstMerge.run(spark, history, !first.silverRow(), () -> { }, empty -> HistoryMerge.merge(spark,
          history, versions, columns.keys(), columns.capturedNames(), empty));
      merged = "MERGE updated " + m.getAs("num_updated_rows") + ", deleted " + m.getAs("num_deleted_rows")
          + ", inserted " + m.getAs("num_inserted_rows");
    }
    steps.accept(ApplyHistory.Step.MERGED);
    CrashPoints.hit(CrashPoint.HISTORY_AFTER_MERGE);

    if (record) {
      PositionAhead ahead = positionAhead;
      positionAhead = PositionAhead.NONE;
      ahead.commit(ControlRows.what(history.text(), control), ApplyRun.WARMUP_WAIT_SECONDS);
    }
    CrashPoints.hit(CrashPoint.HISTORY_AFTER_POSITION);
    LOG.info("ApplyHistory {} -> {}: {}{}, position {}, verdict {} ({} ms)", bronze, history,
        merged, plan.applySnapshot() ? " with " + (chunks ? "chunked " : "") + "snapshot " + plan.snapshot()
            : plan.waits() ? " (changes after " + plan.changesUpTo() + " wait for its chunked snapshot)" : "",
        next.appliedLsn(), verdict,
        (System.nanoTime() - t0) / 1_000_000);
    return new ApplyResult(plan.applySnapshot(), next.appliedLsn(), verdict, true);
  }

  /** Which bronze rows {@code plan} reads: the changes after its LSN, and the snapshot it applies. */
  private static Column base(HistoryPlan plan, Column op, Column lsn, Column snapshotId) {
    Column change = op.notEqual(0);
    Column base = plan.changesAfter() == null ? change : change.and(lsn.gt(lit(plan.changesAfter())));
    if (plan.changesUpTo() != null) {
      base = base.and(lsn.leq(lit(plan.changesUpTo())));
    }
    if (plan.applySnapshot()) {
      base = base.or(op.equalTo(0).and(snapshotId.equalTo(plan.snapshot())));
    }
    return base;
  }

  /**
   * One pass over bronze: of the rows of {@code base}, another table's capture instance (0), the newest change (1),
   * this table's chunk rows (2), the snapshot rows' commit time (3), the chunk rows' newest wave stamp (5); of the
   * rows of {@code probe}, the newest snapshot id (4); the rows of {@code chunkProbe} (6).
   */
  private static Row stats(Dataset<Row> pinned, Column base, Column probe, Column chunkProbe, Column ours, Column op,
      Column lsn, Column chunked, Column snapshotId) {
    Column mine = base.and(ours);
    Column chunkRows = mine.and(op.equalTo(0)).and(chunked);
    return pinned.where(base.or(probe).or(chunkProbe)).agg(
        max(when(base.and(not(ours)), col(CdcColumns.CAPTURE_INSTANCE))),
        max(when(mine.and(op.notEqual(0)), lsn)), count(when(chunkRows, lit(1))),
        max(when(mine.and(op.equalTo(0)), col(CdcColumns.COMMIT_TS))), max(when(probe, snapshotId)),
        max(when(chunkRows, lsn)), count(when(chunkProbe, lit(1)))).first();
  }

  /**
   * The commit time of snapshot {@code s} from its facts rows, as the call read them ({@link SnapshotFacts#commitTime}:
   * its {@code bootstrap}, {@code resnapshot} or {@code snapshot_open} rows' {@code end_commit_ts}); an emptied table's
   * snapshot has no bronze row.
   */
  private LocalDateTime snapshotTime(SnapshotFacts seen, String s) {
    LocalDateTime at = seen.commitTime(s);
    if (at != null) {
      return at;
    }
    throw SilverErrors.conflict("the commit time of snapshot " + s + " is neither in " + args.bronze() + " nor in"
        + " the facts' end_commit_ts: the history cannot date the versions it closes.");
  }
}
