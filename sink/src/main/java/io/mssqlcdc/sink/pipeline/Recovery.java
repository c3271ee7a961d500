package io.mssqlcdc.sink.pipeline;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.StartingPosition;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.FactsRebuild;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.pipeline.GenerationState.StartOffset;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code onDataLoss=resnapshot} pre-flight (reference-behaviour §10.2, with the corrections of
 * §33): before the query starts, find whether CDC still holds the changes after the checkpoint's
 * last committed offset; when it does not, take a full snapshot into bronze and open the next
 * checkpoint generation, whose stream starts at the snapshot's stamp under the sink id
 * {@code <app_id>.g<n+1>}. The gap is recorded in facts ({@code resnapshot} row with
 * {@code lost_from_ts}/{@code lost_to_ts}). At most one automatic re-snapshot (or failed attempt)
 * per {@code resnapshotIntervalDays}. The state file is the commit point: a crash before it is
 * written leaves the recovery open ({@code recovering}), and the next start resumes it, reusing a
 * snapshot already in bronze.
 */
final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final SparkSession spark;
  private final CheckpointDir checkpoint;
  private final AppIds ids;
  private final TableRef target;
  private final TableRef facts;
  private final Map<String, String> readerOptions;
  private final String captureInstance;
  private final CdcClient client;

  Recovery(SparkSession spark, CheckpointDir checkpoint, AppIds ids, TableRef target, TableRef facts,
      Map<String, String> readerOptions, String captureInstance, CdcClient client) {
    this.spark = spark;
    this.checkpoint = checkpoint;
    this.ids = ids;
    this.target = target;
    this.facts = facts;
    this.readerOptions = readerOptions;
    this.captureInstance = captureInstance;
    this.client = client;
  }

  /** Runs the pre-flight; returns the state the stream starts in (a new generation after a recovery). */
  GenerationState run(GenerationState state, boolean bootstrap, StartingPosition startingLsn, double intervalDays,
      boolean chunked) {
    int n = state.generation();
    Optional<StartOffset> start = start(state, bootstrap, startingLsn);
    if (start.isEmpty()) {
      return state;
    }
    Lsn from = start.get().lsn();
    Optional<Lsn> max = client.maxLsn();
    if (max.isEmpty() || !max.get().isAfter(from)) {
      return state;
    }
    Optional<RetentionCheck.Loss> loss = RetentionCheck.after(client, captureInstance, from);
    if (loss.isEmpty()) {
      return state;
    }
    String lost = loss.get().describe(from);
    Instant now = Instant.now();
    // Reuse: an opened chunked snapshot of a next generation (a crash after the open, before the state file),
    // walking forward over ones whose own changes are purged too; in full mode, a whole snapshot above the start.
    int g = n + 1;
    Optional<io.mssqlcdc.sink.chunked.ChunkedOpen> reusedOpen = Optional.empty();
    io.mssqlcdc.sink.chunked.ChunkedFacts chunkedFacts = DeltaTables.exists(spark, facts)
        ? io.mssqlcdc.sink.chunked.ChunkedFacts.read(spark, facts, target.text(), ids) : null;
    while (chunkedFacts != null) {
      Optional<io.mssqlcdc.sink.chunked.ChunkedOpen> o = chunkedFacts.openOf(g);
      if (o.isEmpty() || !o.get().s().isAfter(from)) {
        break;
      }
      if (RetentionCheck.after(client, captureInstance, o.get().s()).isEmpty()) {
        reusedOpen = o;
        break;
      }
      g++;
    }
    Optional<TakenSnapshot> reuse = reusedOpen.isPresent() || chunked ? Optional.empty()
        : Snapshots.last(spark, target, Snapshots.instancesLower(client, captureInstance), false)
            .filter(s -> s.lsn().isAfter(from));
    if (reuse.isEmpty() && reusedOpen.isEmpty()) {
      Optional<Instant> last = state.lastAttempt();
      if (last.isPresent() && Duration.between(last.get(), now).toMillis() < intervalDays * 86_400_000.0) {
        throw SinkErrors.resnapshotTooSoon(lost, last.get().toString(), intervalDays);
      }
    }
    LOG.warn("{}. Re-snapshotting {} into generation {} ({}).", lost, target, g, ids.sinkId(g));
    checkpoint.writeState(state.recovering(start.get()));
    io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.RESNAPSHOT_AFTER_RECOVERING);
    // Generation n will not run again: facts rows its last batches did not live to commit (decisions 0012, 0013)
    // are rebuilt now, as its own next batch would have.
    OptionalLong lastBatch = checkpoint.lastCommittedBatch(n);
    int rebuilt = lastBatch.isPresent()
        ? FactsRebuild.closeGeneration(spark, facts, target, ids.sinkId(n), lastBatch.getAsLong()) : 0;
    if (rebuilt > 0) {
      LOG.info("{}: rebuilt the facts rows of the last {} batch(es) (to batch {}) of {} from bronze before closing"
          + " its generation", target, rebuilt, lastBatch.getAsLong(), ids.sinkId(n));
    }

    Instant lostFrom = start.get().commitInstant().orElse(null);
    Instant lostTo = client.commitTime(loss.get().low()).or(() -> client.commitTimeAtOrBefore(loss.get().low()))
        .orElse(null);
    String sinkId = ids.sinkId(g);
    final int openAt = g;   // past opens whose own changes are purged too
    if (chunked || reusedOpen.isPresent()) {
      io.mssqlcdc.sink.chunked.ChunkedOpen o = reusedOpen.orElseGet(() -> io.mssqlcdc.sink.chunked.ChunkedSnapshots
          .open(spark, facts, target.text(), ids, openAt, SnapshotEvents.RESNAPSHOT, lostFrom, lostTo, client,
              captureInstance));
      GenerationState next = GenerationState.opened(o.generation(), o.s(),
          o.commitTs() == null ? "" : Times.millis(o.commitTs()), Instant.now());
      checkpoint.writeState(next);
      LOG.info("{}: generation {} opened at {} with a chunked snapshot: the stream resumes there as {}; run backfill()"
          + " to read the table", target, o.generation(), o.s(), ids.sinkId(o.generation()));
      return next;
    }
    TakenSnapshot snapshot;
    if (reuse.isPresent()) {
      snapshot = reuse.get();
      LOG.info("Reusing the snapshot at {} in {} for generation {}", snapshot.lsn(), target, g);
    } else {
      FactsWriter.ensure(spark, facts);
      TakenSnapshot stamp = Snapshots.stampOnly(client, captureInstance);
      FactsWriter.write(spark, facts, List.of(SnapshotEvents.event(sinkId, SnapshotEvents.OPEN, stamp, lostFrom, lostTo,
          SnapshotEvents.openDetail(ModeLock.FULL, SnapshotEvents.RESNAPSHOT, g, lostFrom, lostTo), target.text())),
          null, 0);
      snapshot = Snapshots.take(spark, readerOptions, target, captureInstance, client);
    }
    if (RetentionCheck.after(client, captureInstance, snapshot.lsn()).isPresent()) {
      checkpoint.writeState(state.failed(start.get(), now));
      throw SinkErrors.resnapshotOutrunByCleanup(lost, snapshot.lsn().hex());
    }
    FactsWriter.ensure(spark, facts);
    FactsWriter.write(spark, facts, List.of(SnapshotEvents.event(sinkId, SnapshotEvents.RESNAPSHOT, snapshot, lostFrom,
        lostTo, null, target.text())), ids.eventsKey(), g);
    io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.RESNAPSHOT_BEFORE_SWITCH);
    GenerationState next = GenerationState.opened(g, snapshot.lsn(), snapshot.commitTsText(), Instant.now());
    checkpoint.writeState(next);
    LOG.info("{}: generation {} opened at {}; the stream resumes there as {}", target, g, snapshot.lsn(), sinkId);
    return next;
  }

  /** Where the changes must be held from: an open recovery's offset, else the checkpoint's last commit. */
  private Optional<StartOffset> start(GenerationState state, boolean bootstrap, StartingPosition startingLsn) {
    if (state.recovering() != null) {
      return Optional.of(state.recovering());
    }
    int n = state.generation();
    Optional<String> committed = checkpoint.lastCommittedOffset(n);
    if (committed.isPresent()) {
      CdcOffset o = CdcOffset.fromJson(committed.get());
      return Optional.of(new StartOffset(o.lsn(), o.commitTsText()));
    }
    String sinkId = ids.sinkId(n);
    if (!checkpoint.hasSparkMetadata(n) && DeltaTables.exists(spark, facts)
        && FactsReader.lastBatch(spark, facts, sinkId).isPresent()) {
      throw SinkErrors.checkpointNotVisible(facts.text(), sinkId, checkpoint.generation(n));
    }
    if (n > 0) {
      return Optional.of(new StartOffset(state.snapshotLsn(), state.commitTs()));
    }
    if (bootstrap) {
      return Snapshots.last(spark, target, Snapshots.instancesLower(client, captureInstance), false)
          .map(s -> new StartOffset(s.lsn(), s.commitTsText()));
    }
    if (startingLsn.kind() == StartingPosition.Kind.LSN) {
      return Optional.of(new StartOffset(startingLsn.lsn(), ""));
    }
    return Optional.empty();
  }
}
