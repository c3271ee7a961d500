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
import io.mssqlcdc.finalization.Granularity;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.tables.ChecksumFiles;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.KeyedRewrite;
import io.mssqlcdc.sink.tables.RowRewrite;
import io.mssqlcdc.sink.tables.StateWarmup;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import io.mssqlcdc.testing.CrashPoint;
import io.mssqlcdc.testing.CrashPoints;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link ApplyChanges} call (reference-behaviour §16 with §33's corrections). The order is what
 * makes it safe:
 * <ol>
 *   <li>the control table first: bronze's verdict and silver's position (bronze commits its rows
 *       before its verdict, so the bronze version read next holds every commit the verdict covers);
 *   <li>the facts (snapshots completed or open; bronze commits a snapshot's rows before its facts);
 *   <li>bronze, pinned at its latest version: every read of the call sees that one version; the call's
 *       rows are ranked in one pass ({@link RankedChanges}), which the snapshot probe rides along when
 *       the plan does not hang on it, and cached for the MERGE; a first call into an empty silver runs
 *       that pass inside the write of its inserts instead, checked before its commit ({@link FirstWrite});
 *   <li>the MERGE (one commit on silver), then the position and the verdict (one commit on the
 *       control table, none when neither moves: an UPDATE of the row read in step 1, an insert when
 *       there was none; its file written beside the MERGE, {@link PositionAhead}).
 * </ol>
 * A crash between any two steps leaves silver behind its recorded position or at it, never ahead
 * of its verdict; the next call repairs it.
 */
final class ApplyRun {
  private static final Logger LOG = LoggerFactory.getLogger(ApplyRun.class);
  private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
  /** How long the position's write waits for the control table's state computed beside the MERGE. */
  static final long WARMUP_WAIT_SECONDS = 120;

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
  /** Silver's state computed ahead, awaited before the MERGE, or when the call fails (its jobs are the call's). */
  private StateWarmup silverState = StateWarmup.NONE;
  /** The position's write prepared beside the MERGE; awaited, not committed, when the call fails before its commit. */
  private PositionAhead positionAhead = PositionAhead.NONE;

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
      silverState.await(WARMUP_WAIT_SECONDS);
      positionAhead.abandon(WARMUP_WAIT_SECONDS);
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
    ControlRows.Read first = label("control row", () -> ControlRows.read(spark, control, bronze.text(), silver.text()));
    SilverPosition position = first.silver();
    steps.accept(ApplyChanges.Step.CONTROL_READ);
    CrashPoints.hit(CrashPoint.SILVER_AFTER_CONTROL_READ);

    if (!DeltaTables.exists(spark, bronze)) {
      LOG.warn("bronze {} does not exist: nothing applied to {}. Expected until the stream writes its first batch;"
          + " otherwise check the name (a typo, or bronze and target swapped)", bronze, silver);
      return new ApplyResult(false, position.appliedLsn(), position.finalizedUntil(), false);
    }
    boolean factsExist = facts != null && DeltaTables.exists(spark, facts);
    SnapshotFacts seen = factsExist ? label("facts", () -> SnapshotFacts.read(spark, facts, bronze.text()))
        : SnapshotFacts.NONE;
    // Whether the facts have any row for bronze's name at all: checked once per JVM, when they have no snapshot
    // row for it (a misspelt target would miss every snapshot).
    if (factsExist && !seen.hasSnapshotRows() && WARNED.add("facts " + facts + " " + bronze)
        && !SnapshotFacts.anyRow(spark, facts, bronze.text())) {
      LOG.warn("{} has no row for target '{}': if the stream writes it under another name, snapshots are missed."
          + " Its targets: {}", facts, bronze, SnapshotFacts.targets(spark, facts, null));
    }

    long version = label("bronze version", () -> DeltaTables.version(spark, bronze));
    // Silver's state (its files, which the MERGE filters first), computed beside the ranking when the call will likely
    // MERGE: bronze has a newer version than at silver's last call in this JVM, or it is the JVM's first call for
    // silver (StateWarmup; BronzeMoves). Not when the batch is ranked on the driver, silver's checksum lists its
    // files and the one pass applies to silver: it reads their statistics there and needs no state (KeyedRewrite,
    // ChecksumFiles; a one pass that declines leaves Delta's MERGE to compute the state on the call's path).
    boolean warm = BronzeMoves.since(silver.text(), bronze.text(), version) && first.silverRow();
    Consumer<Boolean> warmUp = local -> {
      if (warm && !(local && pruneByKeys && KeyedRewrite.needsNoState(spark, silver))) {
        silverState = StateWarmup.start(spark, silver, JobLabel.text(silver.text(), "MERGE: silver's state, ahead"));
      }
    };
    Dataset<Row> pinned = DeltaTables.readVersion(spark, bronze, version);
    BronzeColumns columns = BronzeColumns.of(pinned.schema(), bronze.text(), source.keys());
    Column ours = lower(col(CdcColumns.CAPTURE_INSTANCE)).isin(source.instancesLower().toArray());
    Column op = col(CdcColumns.OPERATION);
    Column lsn = col(CdcColumns.START_LSN);
    Column snapshotId = columns.hasSnapshot() ? coalesce(col(CdcColumns.SNAPSHOT), lsn) : lsn;
    Column chunked = columns.hasChunk() ? col(CdcColumns.CHUNK).isNotNull() : lit(false);

    Column change = op.notEqual(0);
    // The newest whole snapshot in bronze, and whether chunk rows are there. Snapshots at or below
    // snapshot_lsn cannot change the decision: leaving them out lets Delta skip their files.
    Column probe = ours.and(op.equalTo(0));
    if (position.snapshotLsn() != null) {
      probe = probe.and(lsn.gt(lit(position.snapshotLsn())));
    }
    boolean prunable = pruneByKeys && columns.missingKeys().isEmpty();

    // The common call: no new snapshot in bronze. The plan it would have is known before the probe, so the probe
    // rides along the ranking's one pass over bronze; if it finds a snapshot that changes the plan (a rebuild),
    // the pass is done again for the plan it decides.
    ApplyPlan guess = ApplyPlan.decide(position, seen.newest(), null, seen.openLsn(), seen.chunks());
    RankedChanges ranked = null;
    ApplyPlan plan = null;
    FirstWrite.Outcome firstWrite = FirstWrite.Outcome.NOT_DONE;
    if (guess.newChunks().isEmpty() && columns.missingKeys().isEmpty()) {
      Column base = base(guess, op, lsn, change, snapshotId);
      Dataset<Row> read = pinned.where(base.or(probe));
      RankedChanges.Marks marks = new RankedChanges.Marks(base, probe, ours, change, snapshotId, chunked);
      if (!first.silverRow() && guess.rebuild()) {
        // A first call: into a silver with no row, the ranking runs inside the write of its inserts (FirstWrite).
        firstWrite = firstWrite(version, pinned, read, marks, columns, source, guess, first, seen,
            factsExist);
        if (firstWrite.done()) {
          ranked = firstWrite.ranked();
        }
        // Written or not, what the write observed decided the plan (null: nothing observed).
        plan = firstWrite.plan();
      }
      if (plan == null) {
        boolean stats = prunable && !guess.rebuild();
        ranked = label("ranking", () -> RankedChanges.rank(read, marks, null, columns, stats, warmUp));
        try {
          checkProbe(ranked.chunkRows(), factsExist, seen);
          plan = ApplyPlan.decide(position, seen.newest(), ranked.whole(), seen.openLsn(), seen.chunks());
        } catch (RuntimeException | Error e) {
          ranked.close();
          throw e;
        }
      }
      if (!plan.equals(guess) && ranked != null) {
        ranked.close();
        ranked = null;
      }
    } else {
      Row found = pinned.where(probe).agg(max(when(not(chunked), snapshotId)), count(when(chunked, lit(1)))).first();
      checkProbe(found.getLong(1), factsExist, seen);
      plan = ApplyPlan.decide(position, seen.newest(), found.isNullAt(0) ? null : found.getString(0),
          seen.openLsn(), seen.chunks());
    }
    boolean ensured = false;
    if (ranked == null) {
      Dataset<Row> rows = pinned.where(base(plan, op, lsn, change, snapshotId));
      Dataset<Row> waves = null;
      Dataset<Row> extras = null;
      if (!plan.newChunks().isEmpty()) {
        if (!columns.hasSnapshot() || !columns.hasChunk()) {
          throw SilverErrors.badChunkFacts(facts + " announces chunks of snapshot " + plan.openLsn() + ", but "
              + bronze + " has no _snapshot/_chunk columns to hold them.");
        }
        waves = pinned.where(op.equalTo(0).and(col(CdcColumns.SNAPSHOT).equalTo(plan.openLsn()))
            .and(col(CdcColumns.CHUNK).isin(plan.newChunks().keySet().toArray())));
        rows = rows.unionByName(waves);
      }
      if (!columns.missingKeys().isEmpty() || waves != null) {
        // The capture-instance check on a pass of its own: before the keys are required (rows of another table's
        // instance are the likelier mistake, and its message names it), and before silver is created for the
        // waves' range deletes (which read it).
        Row other = rows.agg(max(when(not(ours), col(CdcColumns.CAPTURE_INSTANCE)))).first();
        if (!other.isNullAt(0)) {
          throw SilverErrors.otherCaptureInstance(bronze.text(), other.getString(0), captureInstance, reader != null);
        }
        columns.requireKeys(bronze.text());
        ensureSilver(columns);
        ensured = true;
      }
      if (waves != null) {
        extras = waveExtras(pinned, waves, columns, ours.and(change).and(lsn.gt(lit(plan.openLsn()))), plan, seen);
      }
      if (silverState == StateWarmup.NONE) {
        warmUp.accept(false);
      }
      ranked = RankedChanges.rank(rows, new RankedChanges.Marks(lit(true), lit(false), ours, change, snapshotId,
          chunked), extras, columns, prunable && !plan.rebuild() && waves == null);
    }

    ApplyPlan chosen = plan;
    silverState.await(WARMUP_WAIT_SECONDS);
    try (RankedChanges r = ranked) {
      if (r.otherInstance() != null) {
        throw SilverErrors.otherCaptureInstance(bronze.text(), r.otherInstance(), captureInstance, reader != null);
      }
      String top = r.top();
      if (!ensured) {
        ensureSilver(columns);
      }
      if (!columns.hasCommandId()) {
        warnOnce("no _command_id " + bronze, "{} has no _command_id (includeCommandId=false): the changes of one"
            + " transaction are ordered by _seqval (__$seqval)", bronze);
      }
      Recorded recorded = recorded(plan, top, first);
      ApplyPlan.Outcome outcome = recorded.outcome();
      LocalDateTime verdict = recorded.verdict();
      boolean record = recorded.write();
      if (!firstWrite.done()) {
        // A first write that did not commit may have started the position for its plan: not committed.
        positionAhead.abandon(WARMUP_WAIT_SECONDS);
        positionAhead = startPosition(recorded, first);
      }
      String pruned = "-";
      Row metrics = null;
      if (firstWrite.done()) {
        metrics = firstWrite.metrics();
        pruned = "none (the first write)";
      } else if (outcome.merged()) {
        boolean byKeys = !plan.rebuild() && plan.newChunks().isEmpty();
        List<List<Object>> few = !byKeys || r.keysApplied() > KeyPruning.MAX_POINTS ? null
            : r.keysApplied() == 0 ? List.of() : label("keys", r::keys);
        KeyPruning.Plan prune = !pruneByKeys ? new KeyPruning.None("switched off")
            : KeyPruning.plan(plan.rebuild(), !plan.newChunks().isEmpty(), columns.keys(), few, r.ranges());
        pruned = describe(prune);
        if (byKeys && pruneByKeys && r.isLocal()) {
          // A small batch: the MERGE in one pass over the files that may hold its keys (decision 0020).
          KeyedRewrite.Outcome one = label("MERGE, one pass", () -> SilverMerge.rewrite(spark, silver, r, columns,
              prune));
          if (one.done()) {
            metrics = one.metrics();
            pruned += ", one pass";
          } else {
            pruned += ", Delta's MERGE (" + one.declined() + ")";
          }
        }
        if (metrics == null) {
          // A first call (no position recorded) into a silver that holds no row yet: insert only (FirstMerge).
          metrics = label("MERGE", () -> FirstMerge.run(spark, silver, !first.silverRow() && chosen.rebuild(),
              () -> steps.accept(ApplyChanges.Step.EMPTY_CHECKED), empty -> SilverMerge.merge(spark, silver,
                  r.latest(), columns.keys(), columns.written(), chosen.rebuild(), SilverMerge.pruning(prune, columns),
                  empty)));
        }
      }
      steps.accept(ApplyChanges.Step.MERGED);
      CrashPoints.hit(CrashPoint.SILVER_AFTER_MERGE);

      if (record) {
        PositionAhead ahead = positionAhead;
        positionAhead = PositionAhead.NONE;
        label("position", () -> {
          ahead.commit(ControlRows.what(silver.text(), control), WARMUP_WAIT_SECONDS);
          return null;
        });
      }
      steps.accept(ApplyChanges.Step.POSITION_RECORDED);
      CrashPoints.hit(CrashPoint.SILVER_AFTER_POSITION);
      LOG.info("ApplyChanges {} -> {} (bronze version {}): {}; {}; position {}, verdict {} ({} ms)", bronze, silver,
          version, what(plan, top), metrics == null ? "no MERGE" : "MERGE " + summary(metrics) + ", pruning " + pruned,
          outcome.next().appliedLsn(), verdict, (System.nanoTime() - t0) / 1_000_000);
      return new ApplyResult(outcome.rebuilt(), outcome.next().appliedLsn(), verdict, true);
    }
  }

  /**
   * A first call's write into an empty silver ({@link FirstWrite}). Another table's capture instance among the
   * call's rows fails the call before silver is created, as the ranking's check does on the other path (a silver
   * created for the wrong table would keep that table's columns): proven on the driver from bronze's file
   * statistics when its checksum lists its files ({@link ChecksumFiles#holdsOnly}), otherwise a read of the rows
   * of other instances, which the files' statistics skip when a file holds only this table's instance. The same
   * way, whether a probe row could change the plan ({@link #newerProbe}): when neither can be there, the write
   * ranks by a window ({@link RankedChanges#observed}, {@code byWindow}), cheaper than the aggregation. The
   * control table's state, which the position's insert asks first, is computed beside the write, and so is the
   * position's file when bronze's checksum gives its likely values ({@link ChecksumFiles#largest}); otherwise, or
   * when the write's statistics give other values, it is written once they are accepted, beside silver's commit.
   * Either way it is committed after silver's commit.
   */
  private FirstWrite.Outcome firstWrite(long version, Dataset<Row> pinned, Dataset<Row> read,
      RankedChanges.Marks marks, BronzeColumns columns, SourceTableInfo source, ApplyPlan guess, ControlRows.Read first,
      SnapshotFacts seen, boolean factsExist) {
    SilverPosition position = first.silver();
    java.util.Set<String> names = new java.util.LinkedHashSet<>(source.instancesLower());
    names.add(captureInstance);
    // Names matched exactly only when ASCII: Spark's lower() of other characters follows the JVM's locale (or ICU),
    // Java's lower case of the names here does not, so an exact match could pass a row the call's own test rejects.
    boolean ascii = names.stream().allMatch(n -> n.chars().allMatch(c -> c < 128));
    Column others = not(lower(col(CdcColumns.CAPTURE_INSTANCE)).isin(source.instancesLower().toArray()));
    for (String name : ascii ? names : java.util.Set.<String>of()) {
      // Implied by the line above; in this form Delta's data skipping drops files whose every row has that name.
      others = others.and(col(CdcColumns.CAPTURE_INSTANCE).notEqual(lit(name)));
    }
    Column otherRows = marks.base().and(others);
    Column newer = newerProbe(marks, columns, position, seen);
    // Proven on the driver when bronze's checksum lists its files: each holds only names of this table, and none may
    // hold a probe row that could change the plan (no query). Otherwise one read for both, which Delta's data skipping
    // empties when the files' statistics rule both out.
    boolean othersNone = ascii && ChecksumFiles.holdsOnly(spark, bronze, version, CdcColumns.CAPTURE_INSTANCE, names);
    java.util.Optional<Boolean> newerHeld = othersNone ? ChecksumFiles.mayHold(spark, bronze, version, newer)
        : java.util.Optional.empty();
    boolean byWindow;
    if (newerHeld.isPresent()) {
      byWindow = !newerHeld.get();
    } else {
      Row found = label("capture instance", () -> pinned.where(otherRows.or(newer))
          .agg(max(when(otherRows, col(CdcColumns.CAPTURE_INSTANCE))), max(when(newer, lit(true)))).first());
      if (!found.isNullAt(0)) {
        throw SilverErrors.otherCaptureInstance(bronze.text(), found.getString(0), captureInstance, reader != null);
      }
      byWindow = found.isNullAt(1);
    }
    LOG.debug("{}: the first write ranks by {}", silver, byWindow ? "a window" : "the aggregation");
    ensureSilver(columns);
    // The control table's state, for the new row's insert prepared beside the write: none needed when its checksum
    // lists its files and the insert's path applies (its read of them by their statistics is the driver's then).
    StateWarmup controlState = RowRewrite.needsNoState(spark, control) ? StateWarmup.NONE
        : StateWarmup.start(spark, control, JobLabel.text(silver.text(), "position: the control table's state, ahead"));
    // The position's likely values, the newest change taken as bronze's largest _start_lsn in its checksum's
    // statistics: its file written beside the write, kept when the write's statistics give the same row.
    // Not while the control table's state is computed: the preparation would compute it a second time.
    Recorded[] started = {null};
    (controlState == StateWarmup.NONE ? ChecksumFiles.largest(spark, bronze, version, CdcColumns.START_LSN)
        : java.util.Optional.<String>empty()).ifPresent(top -> {
      started[0] = recorded(guess, top, first);
      positionAhead = startPosition(started[0], first);
    });
    try {
      ApplyPlan[] decided = {null};
      FirstWrite.Outcome out = label("first write", () -> FirstWrite.run(spark, silver,
          () -> RankedChanges.observed(read, marks, columns, byWindow), r -> {
            if (r.otherInstance() != null) {
              throw SilverErrors.otherCaptureInstance(bronze.text(), r.otherInstance(), captureInstance,
                  reader != null);
            }
            checkProbe(r.chunkRows(), factsExist, seen);
            decided[0] = ApplyPlan.decide(position, seen.newest(), r.whole(), seen.openLsn(), seen.chunks());
            if (!decided[0].equals(guess)) {
              return false;
            }
            // The position's values are known now: unless they are the likely ones, its file is written while
            // silver's commit is made.
            Recorded known = recorded(decided[0], r.top(), first);
            if (started[0] == null || !known.sameRow(started[0])) {
              positionAhead.abandon(WARMUP_WAIT_SECONDS);
              controlState.await(WARMUP_WAIT_SECONDS);
              positionAhead = startPosition(known, first);
            }
            return true;
          }, () -> steps.accept(ApplyChanges.Step.EMPTY_CHECKED)));
      return out.withPlan(decided[0]);
    } finally {
      controlState.await(WARMUP_WAIT_SECONDS);
    }
  }

  /**
   * What the call records after its MERGE: the position and the verdict, in one commit of the control table (none
   * when neither moves, {@code write} false). The verdict is bronze's as read before bronze, never moved backwards.
   */
  private record Recorded(ApplyPlan.Outcome outcome, ControlRows.Verdict advance, LocalDateTime verdict,
      boolean write) {
    /** Whether the control table is written with the same row (position and verdict) as for {@code o}. */
    boolean sameRow(Recorded o) {
      return write == o.write && outcome.next().equals(o.outcome.next()) && java.util.Objects.equals(advance, o.advance);
    }
  }

  private Recorded recorded(ApplyPlan plan, String top, ControlRows.Read first) {
    ApplyPlan.Outcome outcome = plan.outcome(top, facts != null);
    LocalDateTime verdict = first.silver().finalizedUntil();
    ControlRows.Verdict advance = outcome.holdVerdict() ? null
        : ControlRows.advance(first.bronze(), verdict, granularity);
    if (advance != null) {
      verdict = advance.finalizedUntil();
    }
    return new Recorded(outcome, advance, verdict, outcome.writePosition() || advance != null);
  }

  /** The position's write for {@code recorded}, its file written from now on (PositionAhead), its commit after the MERGE's. */
  private PositionAhead startPosition(Recorded recorded, ControlRows.Read first) {
    return !recorded.write() ? PositionAhead.NONE : PositionAhead.start(spark, control,
        ControlRows.row(silver.text(), recorded.outcome().next(), recorded.advance(), first.silverRow()),
        ControlRows.what(silver.text(), control), JobLabel.text(silver.text(), "position, ahead"));
  }

  private <T> T label(String step, java.util.function.Supplier<T> work) {
    return JobLabel.of(spark, silver.text(), step, work);
  }

  /**
   * The probe rows that could change a first write's plan: chunk rows, and rows of a whole snapshot newer than the
   * ones the facts and the position know (an older or known one leaves {@link ApplyPlan#decide} as it is). Written
   * so that Delta's data skipping rules them out by the files' statistics ({@code _snapshot}, {@code _start_lsn},
   * {@code _chunk}).
   */
  private static Column newerProbe(RankedChanges.Marks marks, BronzeColumns columns, SilverPosition position,
      SnapshotFacts seen) {
    String known = Lsns.max(seen.newest(), position.snapshotLsn());
    Column lsn = col(CdcColumns.START_LSN);
    Column newerWhole = known == null ? lit(true) : !columns.hasSnapshot() ? lsn.gt(lit(known))
        : col(CdcColumns.SNAPSHOT).gt(lit(known)).or(col(CdcColumns.SNAPSHOT).isNull().and(lsn.gt(lit(known))));
    return marks.probe().and(columns.hasChunk() ? col(CdcColumns.CHUNK).isNotNull().or(newerWhole) : newerWhole);
  }

  /** Which bronze rows {@code plan} applies (besides new waves). */
  private static Column base(ApplyPlan plan, Column op, Column lsn, Column change, Column snapshotId) {
    return switch (plan.base().kind()) {
      // Every row of a snapshot S is stamped at or after S (a chunk's at its wave's stamp).
      case SNAPSHOT_AND_LATER_CHANGES -> lsn.geq(lit(plan.snapshot()))
          .and(change.and(lsn.gt(lit(plan.snapshot()))).or(op.equalTo(0).and(snapshotId.equalTo(plan.snapshot()))));
      case ALL_CHANGES -> change;
      case CHANGES_AFTER -> change.and(lsn.gt(lit(plan.base().lsn())));
    };
  }

  /** Chunk rows in bronze need the facts that announce them. */
  private void checkProbe(long chunkRows, boolean factsExist, SnapshotFacts seen) {
    if (chunkRows > 0 && !factsExist) {
      throw SilverErrors.chunksWithoutFacts(bronze.text());
    }
    if (chunkRows > 0 && seen.openLsn() == null) {
      throw SilverErrors.chunksWithoutOpen(bronze.text(), facts.text(),
          SnapshotFacts.targets(spark, facts, SnapshotFacts.SNAPSHOT_OPEN));
    }
  }

  private void ensureSilver(BronzeColumns columns) {
    String silverColumns = "silver " + silver.text() + " " + columns.capturedNames().stream()
        .map(BronzeColumns::lower).sorted().toList();
    if (!EnsuredTables.contains(spark, silverColumns)) {
      SilverMerge.ensure(spark, silver, columns.captured());
      EnsuredTables.add(spark, silverColumns);
    }
  }

  /**
   * The extra rows of new waves: every change after S of the waves' keys (applied or not: a chunk
   * row never outranks a delete the stream committed after its stamp), and the chunks' range
   * deletes when silver's key is the snapshot's cut key.
   */
  private Dataset<Row> waveExtras(Dataset<Row> pinned, Dataset<Row> waves, BronzeColumns columns,
      Column ourChangesAfterOpen, ApplyPlan plan, SnapshotFacts seen) {
    List<String> keyCols = columns.keys();
    Dataset<Row> held = waves.select(keyCols.stream().map(k -> col(MergeRules.quote(k))).toArray(Column[]::new));
    Dataset<Row> later = pinned.where(ourChangesAfterOpen);
    Dataset<Row> rows = KeyJoin.semi(later, held, keyCols, "left_semi");
    if (RangeDeletes.applies(keyCols, seen.openKeys())) {
      String k = keyCols.get(0);
      var gone = RangeDeletes.rows(spark, silver, k, columns.type(k), plan.newChunks().values(), held);
      if (gone.isPresent()) {
        rows = rows.unionByName(gone.get(), true);
      }
    }
    return rows;
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
