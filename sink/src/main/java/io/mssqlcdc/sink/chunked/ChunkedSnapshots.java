package io.mssqlcdc.sink.chunked;

import static io.mssqlcdc.sink.facts.FactsColumn.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.connector.snapshot.KeyValues;
import io.mssqlcdc.connector.snapshot.SnapshotStamp;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.AppIds;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.types.SqlServerType;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening and planning a chunked snapshot (reference-behaviour §12.8, §12.9): the stamp S first,
 * then the key's extent, then the {@code snapshot_open} row (txn {@code <app_id>#snapshots},
 * version = generation). The stream generation starts at S at once; nothing is read. The plan is
 * made by the first {@code backfill()} call and recorded in a {@code snapshot_plan} row (txn
 * {@code <app_id>#snapplan.<S>}, version 0); later calls reuse it.
 */
public final class ChunkedSnapshots {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkedSnapshots.class);
  /** Default rows per chunk. */
  public static final long DEFAULT_CHUNK_ROWS = 1_000_000;

  private ChunkedSnapshots() {}

  /** The key columns CDC uses for the table and their types; types null where unknown. */
  public record Key(TableRef table, List<String> names, List<SqlServerType> types) {
    public boolean singleInteger() {
      return names.size() == 1 && types.get(0) != null
          && types.get(0).name().matches("tinyint|smallint|int|bigint");
    }

    public boolean bindable() {
      if (names.isEmpty()) {
        return false;
      }
      for (int i = 0; i < names.size(); i++) {
        if (types.get(i) == null || KeyValues.unrangeable(names.get(i), types.get(i), i == names.size() - 1).isPresent()) {
          return false;
        }
      }
      return true;
    }
  }

  /** The table's unique index CDC uses, with the captured types of its columns. */
  public static Key key(CdcClient client, String captureInstance) {
    SourceTable t = client.sourceTable(captureInstance);
    List<CapturedColumn> captured = client.capturedColumns(resolvedInstance(client, captureInstance));
    List<SqlServerType> types = new ArrayList<>();
    for (String k : t.keyColumns()) {
      types.add(captured.stream().filter(c -> c.name().equalsIgnoreCase(k)).map(CapturedColumn::type).findFirst()
          .orElse(null));
    }
    return new Key(t.table(), t.keyColumns(), types);
  }

  /**
   * The capture instance's own name, as the server lists it: {@code sys.sp_cdc_get_captured_columns}
   * and the per-instance functions take only that, and the configured name may differ in case or
   * name a disabled default instance, so the resolved (newest) instance answers.
   */
  public static String resolvedInstance(CdcClient client, String captureInstance) {
    return io.mssqlcdc.client.CaptureInstance.pick(client.captureInstances(captureInstance), captureInstance).name();
  }

  /**
   * Opens a chunked snapshot for {@code generation}: stamps S, reads the extent, writes the open
   * row, and returns the open the facts hold for the generation (a concurrent run's may have won).
   */
  public static ChunkedOpen open(SparkSession spark, io.mssqlcdc.sink.tables.TableRef facts, String target,
      AppIds ids, int generation, String kind, Instant lostFrom, Instant lostTo, CdcClient client,
      String captureInstance) {
    SnapshotStamp stamp = SnapshotStamp.takeFor(client, captureInstance);
    Key key = key(client, captureInstance);
    ObjectNode extent = extent(client, key);
    String sinkId = ids.sinkId(generation);
    ObjectNode detail = PyJson.object();
    detail.put("mode", "chunked");
    detail.put("kind", kind);
    detail.put("generation", generation);
    detail.set("lost_from_ts", time(lostFrom));
    detail.set("lost_to_ts", time(lostTo));
    ArrayNode keys = detail.putArray("keys");
    key.names().forEach(keys::add);
    detail.set("plan", extent);
    FactsRow row = event(sinkId, OPEN_EVENT, 0L, stamp.lsn(), stamp.commitTs(), lostFrom, lostTo,
        PyJson.write(detail), target);
    row.set(STARTED_AT, LocalDateTime.now(ZoneOffset.UTC));
    FactsWriter.ensure(spark, facts);
    FactsWriter.write(spark, facts, List.of(row), ids.snapshotsKey(), generation);
    io.mssqlcdc.testing.CrashPoints.hit(io.mssqlcdc.testing.CrashPoint.CHUNKED_AFTER_OPEN);
    Optional<ChunkedOpen> stored = ChunkedFacts.read(spark, facts, target, ids).openOf(generation);
    ChunkedOpen mine = new ChunkedOpen(sinkId, stamp.lsn(), stamp.commitTs(), kind, generation, key.names(), extent,
        lostFrom, lostTo, LocalDateTime.now(ZoneOffset.UTC));
    LOG.info("{}: chunked {} snapshot opened at {} (generation {}, key {}, extent {})", target, kind,
        stored.map(ChunkedOpen::s).orElse(stamp.lsn()), generation, key.names(), PyJson.write(extent));
    return stored.orElse(mine);
  }

  static final String OPEN_EVENT = ChunkedFacts.OPEN;

  /** The extent: {@code {"kind": "int", "lo", "hi", "rows"}} for one integer key, else {@code {"kind": "keyset", "max"}}. */
  static ObjectNode extent(CdcClient client, Key key) {
    ObjectNode e = PyJson.object();
    if (key.singleInteger()) {
      Optional<List<Object>> mm = client.keyMinMax(key.table(), key.names().get(0), KeyRange.ALL);
      if (mm.isPresent()) {
        e.put("kind", "int");
        e.set("lo", JsonKeys.scalar(mm.get().get(0)));
        e.set("hi", JsonKeys.scalar(mm.get().get(1)));
        e.put("rows", client.rowEstimate(key.table()));
        return e;
      }
    }
    e.put("kind", "keyset");
    if (key.bindable()) {
      Optional<List<Object>> max = client.keyMax(key.table(), key.names());
      e.set("max", max.map(JsonKeys::of).orElse(PyJson.NODES.nullNode()));
    } else {
      e.putNull("max");
    }
    return e;
  }

  /** A planned chunk as JSON bounds ({@code null} = open). */
  public record PlannedChunk(int index, JsonNode lo, JsonNode hi) {}

  /**
   * The plan of {@code open}: the stored one, else a new one (under the backfill's isolation),
   * recorded in a {@code snapshot_plan} row. A stored plan with another {@code chunk_rows} is
   * used as it is, with a warning.
   */
  public static List<PlannedChunk> plan(SparkSession spark, io.mssqlcdc.sink.tables.TableRef facts, String target,
      AppIds ids, ChunkedOpen open, long chunkRows, CdcClient client, String captureInstance) {
    ChunkedFacts f = ChunkedFacts.read(spark, facts, target, ids);
    Optional<JsonNode> stored = f.plan(open.s());
    if (stored.isEmpty()) {
      LocalDateTime startedAt = LocalDateTime.now(ZoneOffset.UTC);
      long t0 = System.nanoTime();
      Key key = key(client, captureInstance);
      ArrayNode chunks = PyJson.array();
      if (open.isInt()) {
        IntChunkPlanner p = new IntChunkPlanner(counts(client, key), chunkRows);
        for (IntChunkPlanner.Chunk c : p.plan(big(open.extent().get("lo")), big(open.extent().get("hi")),
            open.extent().path("rows").asLong(0))) {
          ArrayNode pair = chunks.addArray();
          pair.add(c.lo() == null ? PyJson.NODES.nullNode() : PyJson.NODES.numberNode(c.lo()));
          pair.add(c.hi() == null ? PyJson.NODES.nullNode() : PyJson.NODES.numberNode(c.hi()));
        }
      } else {
        JsonNode maxJson = open.extent().get("max");
        List<Object> max = maxJson == null || maxJson.isNull() ? null : JsonKeys.values(maxJson, key.types());
        KeysetChunkPlanner p = new KeysetChunkPlanner(bounds(client, key), chunkRows);
        for (KeysetChunkPlanner.Chunk c : p.plan(max)) {
          ArrayNode pair = chunks.addArray();
          pair.add(JsonKeys.of(c.lo()));
          pair.add(JsonKeys.of(c.hi()));
        }
      }
      ObjectNode detail = PyJson.object();
      detail.put("snapshot", open.s().hex());
      detail.put("kind", open.isInt() ? "int" : "keyset");
      ArrayNode keys = detail.putArray("keys");
      open.keys().forEach(keys::add);
      detail.put("chunk_rows", chunkRows);
      detail.set("chunks", chunks);
      FactsRow row = event(open.appId(), ChunkedFacts.PLAN, 0L, open.s(), open.commitTs(), null, null,
          PyJson.write(detail), target);
      row.set(STARTED_AT, startedAt).set(DURATION_MS, (System.nanoTime() - t0) / 1_000_000);
      FactsWriter.write(spark, facts, List.of(row), ids.snapPlanKey(open.s()), 0);
      LOG.info("{}: planned {} chunks of at most {} rows for the snapshot at {}", target, chunks.size(), chunkRows,
          open.s());
      stored = ChunkedFacts.read(spark, facts, target, ids).plan(open.s()).or(() -> Optional.of(detail));
    } else if (stored.get().path("chunk_rows").asLong(chunkRows) != chunkRows) {
      LOG.warn("{}: the snapshot at {} was planned with chunk_rows={}; chunk_rows={} is ignored", target, open.s(),
          stored.get().path("chunk_rows").asLong(), chunkRows);
    }
    List<PlannedChunk> out = new ArrayList<>();
    JsonNode chunks = stored.get().path("chunks");
    for (int i = 0; i < chunks.size(); i++) {
      out.add(new PlannedChunk(i, chunks.get(i).get(0), chunks.get(i).get(1)));
    }
    return out;
  }

  /** The source's answers for the integer planner. */
  static IntChunkPlanner.Counts counts(CdcClient client, Key key) {
    return new IntChunkPlanner.Counts() {
      @Override
      public SortedMap<BigInteger, Long> buckets(BigInteger lo, BigInteger hi, long width) {
        SortedMap<BigInteger, Long> m = new TreeMap<>();
        for (KeyBucket b : client.keyBuckets(key.table(), key.names().get(0), width,
            new KeyRange(lo == null ? null : List.of(lo), hi == null ? null : List.of(hi)))) {
          m.put(BigInteger.valueOf(b.bucket()), b.rows());
        }
        return m;
      }

      @Override
      public Optional<BigInteger[]> minMax(BigInteger lo, BigInteger hi) {
        return client.keyMinMax(key.table(), key.names().get(0), new KeyRange(List.of(lo), List.of(hi)))
            .map(v -> new BigInteger[] {new BigInteger(v.get(0).toString()), new BigInteger(v.get(1).toString())});
      }
    };
  }

  /** The source's answers for the keyset planner. */
  static KeysetChunkPlanner.Bounds bounds(CdcClient client, Key key) {
    return new KeysetChunkPlanner.Bounds() {
      @Override
      public Optional<List<Object>> keyBound(List<Object> lo, List<Object> top, long n) {
        return client.keyBound(key.table(), key.names(), new KeyRange(lo, top), n);
      }

      @Override
      public Optional<List<Object>> after(List<Object> max) {
        return client.keyBound(key.table(), key.names(), new KeyRange(max, null), 1);
      }
    };
  }

  /** A snapshot event row ({@code snapshot_open}, {@code snapshot_plan}, completion). */
  static FactsRow event(String appId, String event, Long rows, Lsn lsn, Instant commitTs, Instant lostFrom,
      Instant lostTo, String detail, String target) {
    FactsRow r = new FactsRow()
        .set(APP_ID, appId).set(ROWS, rows)
        .set(MIN_LSN, lsn.hex()).set(MAX_LSN, lsn.hex()).set(END_LSN, lsn.hex())
        .set(MIN_COMMIT_TS, commitTs).set(MAX_COMMIT_TS, commitTs).set(END_COMMIT_TS, commitTs)
        .set(DELETES, 0L).set(INSERTS, 0L).set(UPDATES, 0L)
        .set(RETENTION_WATERMARK_TS, lostTo)
        .set(EVENT, event).set(LOST_FROM_TS, lostFrom).set(LOST_TO_TS, lostTo)
        .set(DETAIL, detail).set(TARGET, target);
    r.set(RETENTION_HEADROOM_HOURS, headroomHours(lostTo, commitTs));
    return r;
  }

  /**
   * A snapshot event's retention headroom: hours from the end of the purged gap ({@code lostTo})
   * to the snapshot's commit time, to 0.01 h; {@code null} without a gap.
   */
  public static Double headroomHours(Instant lostTo, Instant commitTs) {
    if (commitTs == null || lostTo == null) {
      return null;
    }
    double hours = java.time.Duration.between(lostTo, commitTs).toMillis() / 3_600_000.0;
    return java.math.BigDecimal.valueOf(hours).setScale(2, java.math.RoundingMode.HALF_EVEN).doubleValue();
  }

  static JsonNode time(Instant t) {
    if (t == null) {
      return PyJson.NODES.nullNode();
    }
    return PyJson.NODES.textNode(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS")
        .format(LocalDateTime.ofInstant(t, ZoneOffset.UTC)));
  }

  private static BigInteger big(JsonNode n) {
    if (n == null || n.isNull()) {
      throw SinkErrors.conflict("The snapshot's integer extent has no bounds: " + n);
    }
    return n.bigIntegerValue();
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }
}
