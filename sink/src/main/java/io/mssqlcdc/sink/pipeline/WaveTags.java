package io.mssqlcdc.sink.pipeline;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.min;

import com.fasterxml.jackson.databind.JsonNode;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.chunked.ChunkedSnapshots.PlannedChunk;
import io.mssqlcdc.sink.chunked.PyJson;
import io.mssqlcdc.sink.pipeline.Backfill.ChunkResult;
import io.mssqlcdc.sink.pipeline.Backfill.Tag;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Finding what a chunked snapshot's wave committed (reference-behaviour §12.10 step 9 and its
 * verified details, W6): this attempt's own commit (by its exact {@code userMetadata}), an earlier
 * attempt's commit of the same wave (its tag in the history), or, when the history no longer has
 * it, the wave's rows in bronze.
 */
final class WaveTags {
  private WaveTags() {}

  /** Whether a commit after {@code before} carries exactly {@code tag}. */
  static Optional<Long> commitAfter(SparkSession spark, TableRef target, long before, String tag) {
    List<Row> r = DeltaTables.table(spark, target).history()
        .where(col("version").gt(before).and(col("userMetadata").equalTo(tag))).select("version").collectAsList();
    return r.isEmpty() ? Optional.empty() : Optional.of(r.get(0).getLong(0));
  }

  /**
   * The tag of an earlier attempt's commit of {@code wave} under {@code key} (snapshot {@code s}),
   * from the table's history. A tag with chunks whose {@code rows} is null (an attempt that appended
   * while reading, ADR 0032) keeps its chunk list and stamp; those chunks are recounted from bronze.
   */
  static Optional<Tag> earlier(SparkSession spark, TableRef target, String key, Lsn s, int wave) {
    if (!DeltaTables.exists(spark, target)) {
      return Optional.empty();
    }
    List<Row> rows = DeltaTables.table(spark, target).history()
        .where(col("userMetadata").contains("\"backfill\": " + PyJson.write(PyJson.NODES.textNode(key))))
        .select("userMetadata").collectAsList();
    for (Row r : rows) {
      JsonNode t = PyJson.parse(r.getString(0));
      if (!key.equals(t.path("backfill").asText()) || t.path("wave").asInt(-1) != wave) {
        continue;
      }
      Lsn stamp = Lsn.parse(t.path("lsn").asText());
      List<Integer> uncounted = new ArrayList<>();
      for (JsonNode c : t.path("chunks")) {
        if (!c.hasNonNull("rows")) {
          uncounted.add(c.path("chunk").asInt());
        }
      }
      Map<Integer, Long> recounted = uncounted.isEmpty() ? Map.of() : held(spark, target, s,
          col(CdcColumns.CHUNK).isin(uncounted.toArray())).rows();
      List<ChunkResult> chunks = new ArrayList<>();
      for (JsonNode c : t.path("chunks")) {
        int i = c.path("chunk").asInt();
        chunks.add(new ChunkResult(i, c.get("lo"), c.get("hi"), c.path("last").asBoolean(false),
            c.hasNonNull("rows") ? c.get("rows").asLong() : recounted.getOrDefault(i, 0L),
            c.hasNonNull("high_lsn") ? Lsn.parse(c.get("high_lsn").asText()) : stamp,
            c.hasNonNull("read_seconds") ? c.get("read_seconds").asDouble() : null,
            c.hasNonNull("read_mb") ? c.get("read_mb").asDouble() : null));
      }
      return Optional.of(new Tag(stamp, chunks));
    }
    return Optional.empty();
  }

  /** Snapshot rows of {@code s} in bronze matching {@code where}: rows per chunk and the smallest stamp. */
  private record Held(Map<Integer, Long> rows, Lsn stamp) {}

  private static Held held(SparkSession spark, TableRef target, Lsn s, org.apache.spark.sql.Column where) {
    if (!DeltaTables.exists(spark, target)
        || !Arrays.asList(DeltaTables.read(spark, target).columns()).contains(CdcColumns.CHUNK)) {
      return new Held(Map.of(), null);
    }
    List<Row> held = DeltaTables.read(spark, target)
        .where(col(CdcColumns.OPERATION).equalTo(0).and(col(CdcColumns.SNAPSHOT).equalTo(s.hex())).and(where))
        .groupBy(col(CdcColumns.CHUNK)).agg(count(lit(1)), min(col(CdcColumns.START_LSN))).collectAsList();
    Map<Integer, Long> rows = new HashMap<>();
    Lsn stamp = null;
    for (Row r : held) {
      rows.put(r.getInt(0), r.getLong(1));
      Lsn l = Lsn.parse(r.getString(2));
      stamp = stamp == null || l.isBefore(stamp) ? l : stamp;
    }
    return new Held(rows, stamp);
  }

  /**
   * The wave rebuilt from its rows in bronze (its tag no longer in the history): the chunks from
   * {@code first} up to the highest one bronze holds, whatever the rerun planned to take (an earlier
   * attempt's wave may have been wider or narrower); bounds from the plan, the stamp the smallest
   * {@code _start_lsn}. Only the unrecorded wave can hold chunks at or above {@code first}: waves
   * commit one after the other, each after the previous one's facts.
   */
  static Optional<Tag> fromBronze(SparkSession spark, TableRef target, Lsn s, List<PlannedChunk> plan, int first) {
    Held h = held(spark, target, s, col(CdcColumns.CHUNK).geq(first));
    if (h.rows().isEmpty()) {
      return Optional.empty();
    }
    int top = h.rows().keySet().stream().mapToInt(Integer::intValue).max().getAsInt();
    List<ChunkResult> chunks = new ArrayList<>();
    for (PlannedChunk c : plan) {
      if (c.index() >= first && c.index() <= top) {
        chunks.add(new ChunkResult(c.index(), c.lo(), c.hi(), c.index() == plan.size() - 1,
            h.rows().getOrDefault(c.index(), 0L), h.stamp(), null, null));
      }
    }
    return Optional.of(new Tag(h.stamp(), chunks));
  }
}
