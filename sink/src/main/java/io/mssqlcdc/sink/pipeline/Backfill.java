package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.sink.facts.FactsColumn.*;
import static org.apache.spark.sql.functions.col;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.connector.snapshot.ChunkFigures;
import io.mssqlcdc.connector.snapshot.SnapshotReport;
import io.mssqlcdc.connector.snapshot.SnapshotReports;
import io.mssqlcdc.connector.snapshot.SnapshotStamp;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.BronzeTable;
import io.mssqlcdc.sink.chunked.ChunkedFacts;
import io.mssqlcdc.sink.chunked.ChunkedFacts.DoneChunk;
import io.mssqlcdc.sink.chunked.ChunkedOpen;
import io.mssqlcdc.sink.chunked.ChunkedSnapshots;
import io.mssqlcdc.sink.chunked.ChunkedSnapshots.PlannedChunk;
import io.mssqlcdc.sink.chunked.JsonKeys;
import io.mssqlcdc.sink.chunked.KeysetChunkPlanner;
import io.mssqlcdc.sink.chunked.PyJson;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.DeltaConflicts;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a chunked snapshot into bronze beside the running stream, wave by wave
 * (reference-behaviour §12.10, ADR 0028): each wave stamps L ({@code max_lsn} now, at or after
 * the snapshot's S), reads its chunks through {@code format("mssql_cdc_snapshot")} with
 * {@code snapshotChunks} at that stamp, appends them to bronze in one commit keyed
 * {@code <app_id>#snap.<S>} / wave (Delta skips a replayed wave), then writes one
 * {@code snapshot_chunk} facts row per chunk (keyed {@code <app_id>#snapchunks.<S>} / wave, after
 * every lower wave's: silver applies waves above its high-water mark). After the plan's last chunk
 * the completion row ({@code bootstrap} or {@code resnapshot}) tells downstream the snapshot is
 * whole. A call stops at {@code maxWaves}/{@code maxSeconds}, or while the stream's retention
 * headroom is below {@code minHeadroomHours}, and the next call resumes where it stopped: a crash
 * at any point resumes without writing anything twice.
 */
public final class Backfill {
  private static final Logger LOG = LoggerFactory.getLogger(Backfill.class);

  /** Every argument of a backfill call, in documentation order (docs/OPTIONS.md is generated from it). */
  public static final List<CdcStream.Argument> ARGUMENTS = List.of(
      new CdcStream.Argument("chunkRows", "long ≥ 1", "`1000000`",
          "Rows per chunk when the snapshot is first planned (the plan is recorded once as a `snapshot_plan` facts"
              + " row; later calls keep it and ignore this)."),
      new CdcStream.Argument("maxWaves", "int ≥ 1", "none",
          "Stop after this many waves (state `running`); the next call resumes."),
      new CdcStream.Argument("maxSeconds", "seconds > 0", "none",
          "Take no new wave after this many seconds (the wave under way and its commit finish, so a call can"
              + " overrun); state `running`."),
      new CdcStream.Argument("minHeadroomHours", "hours ≥ 0", "none",
          "Take no wave while the stream's newest micro-batch shows less retention headroom than this, minus the"
              + " batch's age (state `waiting_headroom`); before the stream has written a batch with one, the headroom"
              + " is read from the source (`waiting_metrics` only when the source has no commit time for it)."),
      new CdcStream.Argument("isolation", "`snapshot` or `readCommitted`", "the stream's `isolationLevel`",
          "How each chunk is read. SNAPSHOT needs `ALLOW_SNAPSHOT_ISOLATION ON`; never uncommitted reads."),
      new CdcStream.Argument("targetWaveSeconds", "seconds ≥ 0", "`300`",
          "How long a wave should read: a wave takes whole rounds of `numPartitions` chunks, as many as the last"
              + " wave's pace fits in this; `0` = one round per wave. The next wave is read while the previous one"
              + " commits."));

  private final SparkSession spark;
  private final Map<String, String> readerOptions;
  private final CdcReaderOptions reader;
  private final TableRef target;
  private final TableRef facts;
  private final AppIds ids;

  private Long chunkRows;
  private Integer maxWaves;
  private Double maxSeconds;
  private Double minHeadroomHours;
  private String isolation;
  private Double targetWaveSeconds;
  /** Test hook: called with each step's name ("read", "appended", "facts"); a throw simulates a crash there. */
  private java.util.function.Consumer<String> step = s -> {};
  /** The snapshot's plan, once the call has read it (the commit thread rebuilds replayed waves from it). */
  private volatile List<PlannedChunk> plan;

  Backfill(SparkSession spark, Map<String, String> readerOptions, CdcReaderOptions reader, TableRef target,
      TableRef facts, AppIds ids) {
    this.spark = spark;
    this.readerOptions = readerOptions;
    this.reader = reader;
    this.target = target;
    this.facts = facts;
    this.ids = ids;
  }

  /** Rows per chunk when the snapshot is first planned (default 1,000,000); ignored once planned. */
  public Backfill chunkRows(long rows) {
    if (rows < 1) {
      throw CdcErrors.invalidOption("chunkRows", Long.toString(rows), "at least 1", null);
    }
    this.chunkRows = rows;
    return this;
  }

  /** Stop after this many waves. */
  public Backfill maxWaves(int waves) {
    if (waves < 1) {
      throw CdcErrors.invalidOption("maxWaves", Integer.toString(waves), "at least 1", null);
    }
    this.maxWaves = waves;
    return this;
  }

  /** Take no new wave after this many seconds (the wave under way finishes). */
  public Backfill maxSeconds(double seconds) {
    if (!(seconds > 0)) {
      throw CdcErrors.invalidOption("maxSeconds", Double.toString(seconds), "a positive number of seconds", null);
    }
    this.maxSeconds = seconds;
    return this;
  }

  /**
   * Take no wave while the stream's newest batch shows less retention headroom than this (hours,
   * minus the batch's age): the snapshot must not push the stream into data loss.
   */
  public Backfill minHeadroomHours(double hours) {
    if (!(hours >= 0)) {
      throw CdcErrors.invalidOption("minHeadroomHours", Double.toString(hours), "0 or more hours", null);
    }
    this.minHeadroomHours = hours;
    return this;
  }

  /** {@code snapshot} or {@code readCommitted}; default the stream's {@code isolationLevel}. */
  public Backfill isolation(String level) {
    String l = level == null ? "" : level.strip();
    if (!l.equalsIgnoreCase("snapshot") && !l.equalsIgnoreCase("readCommitted")) {
      throw CdcErrors.invalidOption("isolation", level, "'snapshot' or 'readCommitted'",
          "a snapshot never reads uncommitted rows (NOLOCK)");
    }
    this.isolation = l.equalsIgnoreCase("snapshot") ? "snapshot" : "readCommitted";
    return this;
  }

  /** How long a wave should read, in seconds (default 300; 0 = one round of partitions per wave). */
  public Backfill targetWaveSeconds(double seconds) {
    if (!(seconds >= 0)) {
      throw CdcErrors.invalidOption("targetWaveSeconds", Double.toString(seconds), "0 or more seconds", null);
    }
    this.targetWaveSeconds = seconds;
    return this;
  }

  /** Tests: {@code hook} runs after each step of a wave; throwing from it simulates a crash after that step. */
  Backfill onStep(java.util.function.Consumer<String> hook) {
    this.step = hook;
    return this;
  }

  /** Runs waves until the snapshot is complete or a limit stops it. */
  public BackfillStatus run() {
    String ci = reader.captureInstance();
    long rowsPerChunk = chunkRows == null ? ChunkedSnapshots.DEFAULT_CHUNK_ROWS : chunkRows;
    String iso = isolation != null ? isolation : reader.isolationLevel() == Isolation.SNAPSHOT ? "snapshot"
        : "readCommitted";
    long started = System.nanoTime();
    // Planning, stamps and the re-sought last end run under the backfill's isolation too, not only the wave reads.
    try (CdcClient client = CdcClients.open(reader.with(CdcReaderOptions.ISOLATION_LEVEL, iso))) {
      ModeLock.check(spark, facts, target.text(), ids, ModeLock.CHUNKED, client, ci);
      ChunkedFacts f = ChunkedFacts.read(spark, facts, target.text(), ids);
      Optional<ChunkedOpen> newest = f.newestOpen();
      if (newest.isEmpty()) {
        return new BackfillStatus(null, 0, null, false, true, "no_snapshot",
            target + " has no chunked snapshot opened by " + ids.base() + "'s stream");
      }
      ChunkedOpen open = newest.get();
      TreeMap<Integer, DoneChunk> done = f.chunks(open.s());
      if (f.completed(open.s())) {
        return new BackfillStatus(open.s().hex(), done.size(), (long) done.size(), true, false, "done",
            "the snapshot at " + open.s() + " is complete");
      }
      if (!done.isEmpty() && done.lastEntry().getValue().last()) {
        // Every chunk is in, the completion row is not: a crash came between them. Complete first, before
        // the throttle and the unique-index check, which only guard reads still to come.
        complete(open, client);
        return completed(open, done.size());
      }
      Long plannedChunks = f.plan(open.s()).map(p -> (long) p.path("chunks").size()).orElse(null);
      ChunkedSnapshots.Key key = ChunkedSnapshots.key(client, ci);
      if (!sameKeys(key.names(), open.keys())) {
        throw SinkErrors.conflict("The unique index of " + key.table() + " is now on " + key.names() + ", not on "
            + open.keys() + " as when the snapshot at " + open.s() + " opened: its chunks no longer tile the table."
            + " Take a new snapshot.");
      }
      int next = done.isEmpty() ? 0 : done.lastKey() + 1;
      // The throttle comes before planning: a stream short of headroom is not loaded with the planning reads.
      Optional<BackfillStatus> early = throttle(open, next, plannedChunks, client, ci);
      if (early.isPresent()) {
        return early.get();
      }
      List<PlannedChunk> plan = ChunkedSnapshots.plan(spark, facts, target.text(), ids, open, rowsPerChunk, client, ci);
      this.plan = plan;
      int wave = done.values().stream().mapToInt(DoneChunk::wave).max().orElse(-1) + 1;
      int k = Math.max(1, reader.numPartitions().orElse(spark.sparkContext().defaultParallelism()));
      double waveSeconds = targetWaveSeconds == null ? 300 : targetWaveSeconds;
      Double pace = lastWavePace(done, k); // seconds per round of k chunks, from the last wave
      boolean throttleChecked = true;
      int waves = 0;
      // Read-ahead (ADR 0028 amendment 3): wave w+1 is stamped and read while a background thread
      // appends wave w and writes its facts; at most one read while one commits, commits in order.
      java.util.concurrent.ExecutorService committer = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "mssql-cdc-backfill-commit-" + target.text());
        t.setDaemon(true);
        return t;
      });
      java.util.concurrent.Future<List<ChunkResult>> pending = null;
      try {
        while (true) {
          if (next >= plan.size()) {
            if (pending == null) {
              break;
            }
            next = afterCommitted(settle(pending), next);
            pending = null;
            continue;
          }
          double elapsed = (System.nanoTime() - started) / 1e9;
          String stop = maxWaves != null && waves >= maxWaves ? "stopped after maxWaves=" + maxWaves + " wave(s)"
              : maxSeconds != null && elapsed >= maxSeconds ? "stopped after maxSeconds=" + maxSeconds : null;
          Optional<BackfillStatus> throttled = stop == null && !throttleChecked
              ? throttle(open, next, (long) plan.size(), client, ci)
              : Optional.empty();
          throttleChecked = false;
          if (stop != null || throttled.isPresent()) {
            if (pending != null) {
              next = afterCommitted(settle(pending), next);
              pending = null;
            }
            return stop != null ? status(open, next, (long) plan.size(), "running", stop)
                : throttled.get().withDone(next);
          }
          Lsn l = SnapshotStamp.takeFor(client, ci).lsn();
          if (l.isBefore(open.s())) {
            throw new IllegalStateException("sys.fn_cdc_get_max_lsn() is " + l + ", below the snapshot's " + open.s()
                + ": is this the database the snapshot was opened on (not a readable secondary)?");
          }
          int rounds = 1;
          if (pace != null && pace > 0 && waveSeconds > 0) {
            double budget = waveSeconds;
            if (maxSeconds != null) {
              budget = Math.min(budget, maxSeconds - elapsed);
            }
            rounds = (int) Math.max(1, Math.min(budget / pace, plan.size()));
          }
          List<PlannedChunk> take = new ArrayList<>(plan.subList(next, Math.min(plan.size(), next + rounds * k)));
          boolean last = next + take.size() == plan.size();
          if (last && !open.isInt() && isNull(take.get(take.size() - 1).hi())) {
            take.set(take.size() - 1, reseekLastEnd(take.get(take.size() - 1), open, key, client));
          }
          ReadWave read = read(open, wave, l, take, plan.size() - 1, k, iso, client);
          pace = read.seconds() / Math.max(1, (take.size() + k - 1) / k);
          if (pending != null) {
            int settled;
            try {
              settled = afterCommitted(settle(pending), next);
            } catch (RuntimeException | Error e) {
              read.release();
              throw e;
            } finally {
              pending = null;
            }
            if (settled != next) {
              // The previous wave's commit was an earlier attempt's with other chunks: this read is not the next one.
              LOG.info("{}: wave {} of an earlier attempt holds other chunks; the wave read ahead is released",
                  target, wave - 1);
              read.release();
              next = settled;
              continue;
            }
          }
          step.accept("read");
          io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.BACKFILL_AFTER_READ);
          pending = committer.submit(() -> commit(open, read));
          next += take.size();
          wave++;
          waves++;
          LOG.info("{}: wave {} of the snapshot at {} read chunks {}..{} ({} rows) in {} s; committing it while the next"
              + " is read", target, wave - 1, open.s(), take.get(0).index(), take.get(take.size() - 1).index(),
              read.results().stream().mapToLong(ChunkResult::rows).sum(),
              String.format(Locale.ROOT, "%.1f", read.seconds()));
        }
      } finally {
        if (pending != null) {
          try {
            pending.get();
          } catch (Exception ignored) {
            // the error that ends the call is the one being raised
          }
        }
        committer.shutdown();
      }
      complete(open, client);
      return completed(open, plan.size());
    }
  }

  /** The status of a call that wrote the completion row: every one of the snapshot's {@code chunks} is in. */
  private BackfillStatus completed(ChunkedOpen open, int chunks) {
    return new BackfillStatus(open.s().hex(), chunks, (long) chunks, true, false, "done",
        "all " + chunks + " chunks of the snapshot at " + open.s() + " are in " + target);
  }

  /** A call that stopped before the end: {@code running} (a limit: call again) is not paused, a wait is. */
  private static BackfillStatus status(ChunkedOpen open, int done, Long total, String state, String reason) {
    return new BackfillStatus(open.s().hex(), done, total, false, !state.equals("running"), state, reason);
  }

  /**
   * The pace a call's first wave is sized by: the last wave's facts {@code duration_ms} (its read
   * and commit) per round of {@code k} chunks; {@code null} (one round) before any wave.
   */
  static Double lastWavePace(TreeMap<Integer, DoneChunk> done, int k) {
    if (done.isEmpty()) {
      return null;
    }
    int last = done.values().stream().mapToInt(DoneChunk::wave).max().getAsInt();
    List<DoneChunk> chunks = done.values().stream().filter(c -> c.wave() == last).toList();
    Long ms = chunks.get(0).durationMs();
    return ms == null ? null : ms / 1000.0 / Math.max(1, (chunks.size() + k - 1) / k);
  }

  /**
   * The stream's retention headroom check before a wave: its newest micro-batch's
   * {@code retention_headroom_hours} less that row's age; when the stream has written no batch
   * with one (an empty first batch, a snapshot the reference left open), the same figure read
   * from the source now: the stream's position (its newest batch's end, else S, where it starts)
   * less the capture instance's retention watermark.
   */
  private Optional<BackfillStatus> throttle(ChunkedOpen open, int done, Long total, CdcClient client, String ci) {
    if (minHeadroomHours == null) {
      return Optional.empty();
    }
    List<Row> newest = FactsReader.rows(spark, facts)
        .where(col(APP_ID.column()).equalTo(open.appId()).and(col(EVENT.column()).isNull()))
        .orderBy(col(BATCH_ID.column()).desc()).limit(1)
        .select(col(RETENTION_HEADROOM_HOURS.column()), col(WRITTEN_AT.column()), col(END_LSN.column()),
            col(MAX_LSN.column()))
        .collectAsList();
    double headroom;
    double age;
    String from;
    if (!newest.isEmpty() && !newest.get(0).isNullAt(0) && !newest.get(0).isNullAt(1)) {
      headroom = newest.get(0).getDouble(0);
      age = Duration.between((LocalDateTime) newest.get(0).get(1), LocalDateTime.now(ZoneOffset.UTC)).toMillis()
          / 3_600_000.0;
      from = String.format(Locale.ROOT, "the stream's newest batch, %.2f h ago", age);
    } else {
      // The stream's position: its newest batch's end (else its newest change), else S, where it starts.
      Lsn position = open.s();
      if (!newest.isEmpty()) {
        Row r = newest.get(0);
        position = !r.isNullAt(2) ? Lsn.parse(r.getString(2)) : !r.isNullAt(3) ? Lsn.parse(r.getString(3)) : position;
      }
      Optional<Double> fromSource = SourceHeadroom.hours(client, ChunkedSnapshots.resolvedInstance(client, ci),
          position);
      if (fromSource.isEmpty()) {
        return Optional.of(status(open, done, total, "waiting_metrics", "the stream " + open.appId()
            + " has written no micro-batch with a retention headroom yet, and the source has no commit time for its"
            + " position " + position + " or for " + ci + "'s retention watermark: run the stream until it writes"
            + " one, or call backfill() without minHeadroomHours"));
      }
      headroom = fromSource.get();
      age = 0;
      from = "read from the source at the stream's position " + position
          + " (the stream has written no micro-batch with one)";
    }
    if (headroom - age < minHeadroomHours) {
      return Optional.of(status(open, done, total, "waiting_headroom", String.format(Locale.ROOT,
          "the stream's retention headroom is %.2f h (%s), below minHeadroomHours=%s: let it catch up, then run"
              + " backfill() again", headroom - age, from, minHeadroomHours)));
    }
    return Optional.empty();
  }

  /** The last chunk of a keyset plan ends at the first key after the extent's MAX now (open when none). */
  private PlannedChunk reseekLastEnd(PlannedChunk c, ChunkedOpen open, ChunkedSnapshots.Key key, CdcClient client) {
    JsonNode maxJson = open.extent().get("max");
    if (maxJson == null || maxJson.isNull() || !key.bindable()) {
      return c;
    }
    List<Object> max = JsonKeys.values(maxJson, key.types());
    List<Object> end = new KeysetChunkPlanner(boundsOf(client, key), 1).lastEnd(max);
    return new PlannedChunk(c.index(), c.lo(), JsonKeys.of(end));
  }

  private static KeysetChunkPlanner.Bounds boundsOf(CdcClient client, ChunkedSnapshots.Key key) {
    return new KeysetChunkPlanner.Bounds() {
      @Override
      public Optional<List<Object>> keyBound(List<Object> lo, List<Object> top, long n) {
        return client.keyBound(key.table(), key.names(), new io.mssqlcdc.client.KeyRange(lo, top), n);
      }

      @Override
      public Optional<List<Object>> after(List<Object> max) {
        return client.keyBound(key.table(), key.names(), new io.mssqlcdc.client.KeyRange(max, null), 1);
      }
    };
  }

  /** What a wave wrote of one chunk. */
  record ChunkResult(int chunk, JsonNode lo, JsonNode hi, boolean last, long rows, Lsn high, Double readSeconds,
      Double readMb) {}

  private static boolean isNull(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode();
  }

  /** A wave read and cached, not yet committed. */
  private record ReadWave(int wave, Lsn stamp, List<PlannedChunk> take, Dataset<Row> rows, List<ChunkResult> results,
      LocalDateTime startedAt, long t0, double seconds) {
    void release() {
      rows.unpersist(false);
    }
  }

  /** Unwraps a commit's failure so the caller sees the error the commit raised. */
  private static List<ChunkResult> settle(java.util.concurrent.Future<List<ChunkResult>> pending) {
    try {
      return pending.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while a backfill wave was committing", e);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) {
        throw re;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(c);
    }
  }

  /** The chunk after the ones a commit holds. */
  private static int afterCommitted(List<ChunkResult> committed, int fallback) {
    return committed.stream().mapToInt(ChunkResult::chunk).max().stream().map(m -> m + 1).findFirst().orElse(fallback);
  }

  /**
   * Stamps nothing (the caller did), reads one wave's chunks at {@code l} and caches them. Chunks
   * are ordered so partition p reads p, p+k, ...; more than k chunks are coalesced to k partitions
   * (never more than {@code numPartitions} connections).
   */
  private ReadWave read(ChunkedOpen open, int wave, Lsn l, List<PlannedChunk> take, int lastIndex, int k, String iso,
      CdcClient client) {
    LocalDateTime startedAt = LocalDateTime.now(ZoneOffset.UTC);
    long t0 = System.nanoTime();
    String readId = "backfill-" + UUID.randomUUID();
    Map<String, String> o = new LinkedHashMap<>(readerOptions);
    o.keySet().removeIf(x -> List.of("snapshotchunks", "snapshotkeys", "snapshotlsn", "isolationlevel", "readid",
        "startinglsn").contains(x.toLowerCase(Locale.ROOT)));
    List<PlannedChunk> ordered = new ArrayList<>(take);
    ordered.sort(java.util.Comparator.comparingInt((PlannedChunk c) -> (c.index() - take.get(0).index()) % k)
        .thenComparingInt(PlannedChunk::index));
    ArrayNode chunks = PyJson.array();
    for (PlannedChunk c : ordered) {
      ArrayNode a = chunks.addArray();
      a.add(c.index());
      a.add(c.lo() == null ? PyJson.NODES.nullNode() : c.lo());
      a.add(c.hi() == null ? PyJson.NODES.nullNode() : c.hi());
    }
    ArrayNode keys = PyJson.array();
    open.keys().forEach(keys::add);
    o.put("snapshotChunks", chunks.toString());
    o.put("snapshotKeys", keys.toString());
    o.put("snapshotLsn", l.hex());
    o.put("isolationLevel", iso);
    o.put("readId", readId);
    Dataset<Row> loaded = spark.read().format("mssql_cdc_snapshot").options(o).load();
    if (take.size() > k) {
      loaded = loaded.coalesce(k);
    }
    Dataset<Row> rows = BronzeTable.snapshotRows(loaded, open.s().hex()).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      Map<Integer, Long> counts = new HashMap<>();
      for (Row r : rows.groupBy(CdcColumns.CHUNK).count().collectAsList()) {
        counts.put(r.getInt(0), r.getLong(1));
      }
      Optional<SnapshotReport> report = SnapshotReports.forRead(readId);
      Lsn highAfter = client.maxLsn().orElse(l);
      List<ChunkResult> results = new ArrayList<>();
      for (PlannedChunk c : take) {
        Optional<ChunkFigures> fig = report.flatMap(r -> r.chunk(c.index()));
        results.add(new ChunkResult(c.index(), c.lo(), c.hi(), c.index() == lastIndex,
            counts.getOrDefault(c.index(), 0L), fig.flatMap(ChunkFigures::highLsn).orElse(highAfter),
            fig.map(ChunkFigures::readSeconds).orElse(null), fig.map(ChunkFigures::readMb).orElse(null)));
      }
      return new ReadWave(wave, l, take, rows, results, startedAt, t0, (System.nanoTime() - t0) / 1e9);
    } catch (RuntimeException e) {
      rows.unpersist(false);
      throw e;
    }
  }

  /**
   * Appends a read wave (Delta skips a replayed one) and records its chunks; returns what its
   * commit holds. Runs on the commit thread, with its own connection for the commit times.
   */
  private List<ChunkResult> commit(ChunkedOpen open, ReadWave w) {
    int wave = w.wave();
    try (CdcClient client = CdcClients.open(reader)) {
      String tagKey = ids.snapKey(open.s());
      String tag = PyJson.write(tag(tagKey, wave, w.stamp(), w.results()));
      long total = w.results().stream().mapToLong(ChunkResult::rows).sum();
      Tag committed;
      if (total > 0) {
        TableRunner.ensure(spark, target, BronzeTable.KIND, BronzeTable.creationSchema(w.rows().schema()));
        long before = DeltaTables.version(spark, target);
        appendOnce(w.rows(), wave, tag);
        committed = WaveTags.commitAfter(spark, target, before, tag).map(t -> new Tag(w.stamp(), w.results()))
            .orElseGet(() -> earlier(open, wave, w.take()));
      } else {
        committed = WaveTags.earlier(spark, target, tagKey, open.s(), wave)
            .or(() -> WaveTags.fromBronze(spark, target, open.s(), plan, w.take().get(0).index()))
            .orElse(new Tag(w.stamp(), w.results()));
      }
      step.accept("appended");
      io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.BACKFILL_AFTER_APPEND);
      long durationMs = (System.nanoTime() - w.t0()) / 1_000_000;
      List<FactsRow> factsRows = new ArrayList<>();
      for (ChunkResult c : committed.chunks()) {
        ObjectNode d = PyJson.object();
        d.put("snapshot", open.s().hex());
        d.put("wave", wave);
        d.put("chunk", c.chunk());
        d.set("lo", c.lo() == null ? PyJson.NODES.nullNode() : c.lo());
        d.set("hi", c.hi() == null ? PyJson.NODES.nullNode() : c.hi());
        d.put("last", c.last());
        factsRows.add(new FactsRow()
            .set(APP_ID, open.appId()).set(ROWS, c.rows())
            .set(MIN_LSN, committed.stamp().hex()).set(MAX_LSN, c.high().hex()).set(END_LSN, c.high().hex())
            .set(MIN_COMMIT_TS, client.commitTime(committed.stamp()).orElse(null))
            .set(MAX_COMMIT_TS, client.commitTime(c.high()).orElse(null))
            .set(END_COMMIT_TS, client.commitTime(c.high()).orElse(null))
            .set(DELETES, 0L).set(INSERTS, 0L).set(UPDATES, 0L)
            .set(STARTED_AT, w.startedAt()).set(DURATION_MS, durationMs)
            .set(READ_SECONDS, c.readSeconds()).set(READ_MB, c.readMb())
            .set(EVENT, ChunkedFacts.CHUNK).set(DETAIL, PyJson.write(d)).set(TARGET, target.text()));
      }
      FactsWriter.write(spark, facts, factsRows, ids.snapChunksKey(open.s()), wave);
      step.accept("facts");
      return committed.chunks();
    } finally {
      w.release();
    }
  }

  /** A committed wave: its stamp and chunks. */
  record Tag(Lsn stamp, List<ChunkResult> chunks) {}

  private void appendOnce(Dataset<Row> rows, int wave, String tag) {
    Map<String, String> opts = Map.of("txnAppId", ids.snapKey(Lsn.parse(rowsSnapshot(rows))), "txnVersion",
        Integer.toString(wave), "userMetadata", tag, "mergeSchema", "true");
    try {
      DeltaTables.append(rows, target, opts);
    } catch (RuntimeException e) {
      String m = String.valueOf(e.getMessage()).replace("_", "").toLowerCase(Locale.ROOT);
      if (!(m.contains("metadatachanged") || m.contains("protocolchanged") || DeltaConflicts.isConflict(e))) {
        throw e;
      }
      LOG.info("{}: wave {} lost a race with another commit (the stream creating or changing the table); once more",
          target, wave);
      DeltaTables.append(rows, target, opts);
    }
  }

  private static String rowsSnapshot(Dataset<Row> rows) {
    return rows.select(CdcColumns.SNAPSHOT).first().getString(0);
  }

  /** Delta skipped the append: an earlier attempt committed the wave. */
  private Tag earlier(ChunkedOpen open, int wave, List<PlannedChunk> take) {
    return WaveTags.earlier(spark, target, ids.snapKey(open.s()), open.s(), wave)
        .or(() -> WaveTags.fromBronze(spark, target, open.s(), plan, take.get(0).index()))
        .orElseThrow(() -> new IllegalStateException("Delta skipped wave " + wave + " of " + ids.snapKey(open.s())
            + " as written already, but neither " + target + "'s history nor its rows hold it"));
  }

  private static ObjectNode tag(String key, int wave, Lsn l, List<ChunkResult> chunks) {
    ObjectNode t = PyJson.object();
    t.put("backfill", key);
    t.put("wave", wave);
    t.put("lsn", l.hex());
    t.put("attempt", UUID.randomUUID().toString().replace("-", ""));
    ArrayNode a = t.putArray("chunks");
    for (ChunkResult c : chunks) {
      ObjectNode o = a.addObject();
      o.put("chunk", c.chunk());
      o.set("lo", c.lo() == null ? PyJson.NODES.nullNode() : c.lo());
      o.set("hi", c.hi() == null ? PyJson.NODES.nullNode() : c.hi());
      o.put("last", c.last());
      o.put("rows", c.rows());
      o.put("high_lsn", c.high().hex());
      if (c.readSeconds() == null) {
        o.putNull("read_seconds");
      } else {
        o.put("read_seconds", c.readSeconds());
      }
      if (c.readMb() == null) {
        o.putNull("read_mb");
      } else {
        o.put("read_mb", c.readMb());
      }
    }
    return t;
  }

  /** The completion row, once every chunk is in (Delta skips it when written already). */
  private void complete(ChunkedOpen open, CdcClient client) {
    ChunkedFacts f = ChunkedFacts.read(spark, facts, target.text(), ids);
    TreeMap<Integer, DoneChunk> done = f.chunks(open.s());
    long rows = done.values().stream().mapToLong(c -> c.rows() == null ? 0 : c.rows()).sum();
    Lsn lastLsn = done.values().stream().map(DoneChunk::stamp).filter(java.util.Objects::nonNull)
        .max(Lsn::compareTo).orElse(open.s());
    ObjectNode d = PyJson.object();
    d.put("snapshot", open.s().hex());
    d.put("chunks", done.size());
    d.put("rows", rows);
    d.put("last_lsn", lastLsn.hex());
    FactsRow r = new FactsRow()
        .set(APP_ID, open.appId()).set(ROWS, rows)
        .set(MIN_LSN, open.s().hex()).set(MAX_LSN, open.s().hex()).set(END_LSN, open.s().hex())
        .set(MIN_COMMIT_TS, open.commitTs()).set(MAX_COMMIT_TS, open.commitTs()).set(END_COMMIT_TS, open.commitTs())
        .set(DELETES, 0L).set(INSERTS, 0L).set(UPDATES, 0L)
        .set(STARTED_AT, open.writtenAt())
        .set(DURATION_MS, open.writtenAt() == null ? null
            : Duration.between(open.writtenAt(), LocalDateTime.now(ZoneOffset.UTC)).toMillis())
        .set(RETENTION_WATERMARK_TS, open.lostTo())
        .set(RETENTION_HEADROOM_HOURS, ChunkedSnapshots.headroomHours(open.lostTo(), open.commitTs()))
        .set(EVENT, open.kind()).set(LOST_FROM_TS, open.lostFrom()).set(LOST_TO_TS, open.lostTo())
        .set(DETAIL, PyJson.write(d)).set(TARGET, target.text());
    if (open.generation() == 0 && SnapshotEvents.BOOTSTRAP.equals(open.kind())) {
      SnapshotEvents.writeBootstrap(spark, facts, ids, r);
    } else {
      FactsWriter.write(spark, facts, List.of(r), ids.eventsKey(), open.generation());
    }
    LOG.info("{}: the chunked snapshot at {} is complete ({} chunks, {} rows)", target, open.s(), done.size(), rows);
  }

  private static boolean sameKeys(List<String> a, List<String> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).equalsIgnoreCase(b.get(i))) {
        return false;
      }
    }
    return true;
  }
}
