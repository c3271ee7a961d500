package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.get_json_object;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.errors.SilverErrors;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.LogTail;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the facts table says about bronze's snapshots (reference-behaviour §16 step 3, §33 O8, A4),
 * read before bronze is pinned: bronze commits a snapshot's rows before its facts rows, so the
 * bronze version read afterwards holds everything they point to. Rows are matched by {@code target}
 * exactly as the stream wrote them.
 *
 * @param newest the newest completed snapshot: the greatest {@code max_lsn} of the
 *     {@code bootstrap} and {@code resnapshot} rows (an emptied table's snapshot has only its row);
 *     null when none
 * @param hasSnapshotRows whether the facts hold a {@code bootstrap}, {@code resnapshot} or
 *     {@code snapshot_open} row for bronze
 * @param openLsn the newest chunked {@code snapshot_open} row's LSN S (any generation); null when none
 * @param chunkedOpens the LSNs of every chunked {@code snapshot_open} row (any generation; {@code openLsn} is the
 *     greatest): a snapshot at one of them was read in waves, even when they wrote no row ({@link #openedChunked})
 * @param openKeys the key columns that snapshot's chunks are cut on (its detail's {@code keys}); null
 *     when it names none
 * @param chunks when {@code openLsn} is newer than {@code newest}: the chunks its
 *     {@code snapshot_chunk} rows announce, by index; else empty
 * @param commitTimes per snapshot LSN, its commit time (UTC) as its {@code bootstrap}, {@code resnapshot} or
 *     {@code snapshot_open} rows record it ({@code end_commit_ts}); a snapshot whose rows have none is not there
 */
record SnapshotFacts(String newest, boolean hasSnapshotRows, String openLsn, Set<String> chunkedOpens,
    List<String> openKeys, Map<Integer, Chunk> chunks, Map<String, LocalDateTime> commitTimes) {

  static final String BOOTSTRAP = "bootstrap";
  static final String RESNAPSHOT = "resnapshot";
  static final String SNAPSHOT_OPEN = "snapshot_open";
  static final String SNAPSHOT_CHUNK = "snapshot_chunk";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** No facts table (or none given). */
  static final SnapshotFacts NONE = new SnapshotFacts(null, false, null, Set.of(), null, Map.of(), Map.of());

  /** Immutable: one answer is shared by every caller of the cached read. */
  SnapshotFacts {
    chunkedOpens = Set.copyOf(chunkedOpens);
    chunks = Map.copyOf(chunks);
    commitTimes = Map.copyOf(commitTimes);
  }

  /** The commit time (UTC) of the snapshot at {@code lsn} as its facts rows record it; null when unknown. */
  LocalDateTime commitTime(String lsn) {
    return lsn == null ? null : commitTimes.get(lsn);
  }

  /**
   * Whether the snapshot at {@code lsn} was opened chunked (a {@code snapshot_open} row not of mode {@code full}):
   * its rows are its waves' chunk rows, of which there may be none (the table was empty when they read it), and
   * {@code lsn} need not be {@link #openLsn} (a later snapshot may have opened since).
   */
  boolean openedChunked(String lsn) {
    return lsn != null && chunkedOpens.contains(lsn);
  }

  /**
   * What {@link #read} found in this JVM, by facts table and bronze, with the facts version taken before that read
   * (the read may have seen newer commits; checking from the older version covers them). Bounded: the least
   * recently used entry goes first.
   */
  private static final Map<String, Seen> SEEN = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
          return size() > 256;
        }
      });

  private record Seen(long version, SnapshotFacts facts) {}

  /**
   * Reads what {@code facts} says about {@code bronze}. The stream adds a facts row per micro-batch, and snapshot
   * events are rare: when this JVM read the same facts for the same bronze before, and every facts commit since
   * only added rows whose {@code event} is NULL (by the files' statistics in Delta's log, read on the driver,
   * {@link LogTail#onlyNullIn}), the answer is the same and the table is not read (issue 25: a Spark job and the
   * scan's planning over every facts file, per call). Anything else reads the table.
   */
  static SnapshotFacts read(SparkSession spark, TableRef facts, String bronze) {
    Optional<LogTail.Position> at = LogTail.position(spark, facts);
    String key = at.map(p -> p.table() + "\u0000" + bronze).orElse(null);
    if (key != null) {
      Seen before = SEEN.get(key);
      if (before != null
          && LogTail.onlyNullIn(spark, facts, before.version(), at.get().version(), FactsColumn.EVENT.column())) {
        SEEN.put(key, new Seen(at.get().version(), before.facts()));
        return before.facts();
      }
    }
    SnapshotFacts read = readTable(spark, facts, bronze);
    if (key != null) {
      SEEN.put(key, new Seen(at.get().version(), read));
    }
    return read;
  }

  private static SnapshotFacts readTable(SparkSession spark, TableRef facts, String bronze) {
    Dataset<Row> every = DeltaTables.read(spark, facts);
    List<String> columns = Arrays.asList(every.columns());
    if (!columns.contains(FactsColumn.EVENT.column())) {
      return NONE; // facts older than its migration 3: no snapshot events
    }
    Dataset<Row> mine = every.where(col(FactsColumn.TARGET.column()).equalTo(bronze));
    Column event = col(FactsColumn.EVENT.column());
    Column maxLsn = col(FactsColumn.MAX_LSN.column());
    boolean hasDetail = columns.contains(FactsColumn.DETAIL.column());
    // A full snapshot's open row only locks the mode: its rows come whole. A missing or unknown mode is
    // chunked. Facts older than their migration 6 have no detail, and no chunked snapshot.
    Column chunkedOpen = hasDetail
        ? event.equalTo(SNAPSHOT_OPEN).and(not(get_json_object(col(FactsColumn.DETAIL.column()), "$.mode")
            .eqNullSafe("full")))
        : lit(false);
    Column openDetail = hasDetail ? col(FactsColumn.DETAIL.column()) : lit(null).cast("string");
    Column commitTs = columns.contains(FactsColumn.END_COMMIT_TS.column()) ? col(FactsColumn.END_COMMIT_TS.column())
        : lit(null).cast("timestamp_ntz");
    // Only the snapshot events are read (a handful per snapshot), and collected rather than aggregated (one Spark
    // job, not two): a batch's row has no event, so Delta's file statistics skip the files of the stream's
    // batches (one facts row each).
    List<Row> events = mine.where(event.isin(BOOTSTRAP, RESNAPSHOT, SNAPSHOT_OPEN))
        .select(event.isin(BOOTSTRAP, RESNAPSHOT), maxLsn, chunkedOpen, openDetail, commitTs).collectAsList();
    String newest = null;
    String openLsn = null;
    String detail = null;
    Set<String> opens = new HashSet<>();
    Map<String, LocalDateTime> times = new HashMap<>();
    for (Row e : events) {
      String lsn = e.isNullAt(1) ? null : e.getString(1);
      if (lsn == null) {
        continue;
      }
      if (!e.isNullAt(4)) {
        times.putIfAbsent(lsn, (LocalDateTime) e.get(4));
      }
      if (e.getBoolean(0)) {
        newest = Lsns.max(newest, lsn);
      } else if (!e.isNullAt(2) && e.getBoolean(2)) {
        opens.add(lsn);
        if (Lsns.after(lsn, openLsn)) {
          openLsn = lsn;
          detail = e.isNullAt(3) ? null : e.getString(3);
        }
      }
    }
    boolean hasSnapshotRows = !events.isEmpty();
    if (openLsn == null) {
      return new SnapshotFacts(newest, hasSnapshotRows, null, Set.of(), null, Map.of(), times);
    }
    List<String> keys = openKeys(detail);
    Map<Integer, Chunk> chunks = Map.of();
    if (Lsns.after(openLsn, newest)) {
      chunks = chunks(mine, openLsn);
    }
    return new SnapshotFacts(newest, hasSnapshotRows, openLsn, opens, keys, chunks, times);
  }

  /** The chunks of snapshot {@code s} its {@code snapshot_chunk} rows announce (a duplicate index: the last wins). */
  private static Map<Integer, Chunk> chunks(Dataset<Row> mine, String s) {
    List<Row> rows = mine.where(col(FactsColumn.EVENT.column()).equalTo(SNAPSHOT_CHUNK)
            .and(get_json_object(col(FactsColumn.DETAIL.column()), "$.snapshot").equalTo(s)))
        .select(FactsColumn.DETAIL.column(), FactsColumn.MIN_LSN.column()).collectAsList();
    Map<Integer, Chunk> out = new HashMap<>();
    for (Row r : rows) {
      Chunk c = chunk(r.getString(0), r.isNullAt(1) ? null : r.getString(1));
      out.put(c.index(), c);
    }
    return out;
  }

  /** A chunk from a {@code snapshot_chunk} row's detail ({@code {snapshot, wave, chunk, lo, hi, last}}) and stamp. */
  static Chunk chunk(String detail, String stamp) {
    JsonNode d;
    try {
      d = JSON.readTree(detail);
    } catch (Exception e) {
      throw SilverErrors.badChunkFacts("A snapshot_chunk facts row has a detail that is not JSON: " + detail + ".");
    }
    if (d == null || !d.path("chunk").canConvertToInt() || !d.path("wave").canConvertToInt()) {
      throw SilverErrors.badChunkFacts("A snapshot_chunk facts row's detail lacks its chunk or wave (integers): "
          + detail + ".");
    }
    return new Chunk(d.get("chunk").asInt(), d.get("wave").asInt(), d.get("lo"), d.get("hi"), stamp);
  }

  /** The {@code keys} list of a {@code snapshot_open} detail; null when absent. */
  static List<String> openKeys(String detail) {
    if (detail == null) {
      return null;
    }
    try {
      JsonNode k = JSON.readTree(detail).get("keys");
      if (k == null || !k.isArray()) {
        return null;
      }
      List<String> out = new ArrayList<>();
      k.forEach(n -> out.add(n.asText()));
      return List.copyOf(out);
    } catch (Exception e) {
      return null;
    }
  }

  /** Whether {@code facts} holds any row for {@code bronze} (one row read at most). */
  static boolean anyRow(SparkSession spark, TableRef facts, String bronze) {
    return !DeltaTables.read(spark, facts).where(col(FactsColumn.TARGET.column()).equalTo(bronze)).limit(1)
        .collectAsList().isEmpty();
  }

  /** The targets of {@code facts}' rows with {@code event} (all rows when null), sorted, for messages. */
  static List<String> targets(SparkSession spark, TableRef facts, String event) {
    Dataset<Row> every = DeltaTables.read(spark, facts);
    if (event != null) {
      every = every.where(col(FactsColumn.EVENT.column()).equalTo(event));
    }
    TreeSet<String> out = new TreeSet<>();
    for (Row r : every.select(FactsColumn.TARGET.column()).distinct().collectAsList()) {
      if (!r.isNullAt(0)) {
        out.add(r.getString(0));
      }
    }
    return List.copyOf(out);
  }
}
