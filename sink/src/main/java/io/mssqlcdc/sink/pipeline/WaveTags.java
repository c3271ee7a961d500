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

  /** The tag of an earlier attempt's commit of {@code wave} under {@code key}, from the table's history. */
  static Optional<Tag> earlier(SparkSession spark, TableRef target, String key, int wave) {
    if (!DeltaTables.exists(spark, target)) {
      return Optional.empty();
    }
    List<Row> rows = DeltaTables.table(spark, target).history()
        .where(col("userMetadata").contains("\"backfill\": \"" + key + "\"")).select("userMetadata").collectAsList();
    for (Row r : rows) {
      JsonNode t = PyJson.parse(r.getString(0));
      if (!key.equals(t.path("backfill").asText()) || t.path("wave").asInt(-1) != wave) {
        continue;
      }
      List<ChunkResult> chunks = new ArrayList<>();
      for (JsonNode c : t.path("chunks")) {
        chunks.add(new ChunkResult(c.path("chunk").asInt(), c.get("lo"), c.get("hi"), c.path("last").asBoolean(false),
            c.path("rows").asLong(0), c.hasNonNull("high_lsn") ? Lsn.parse(c.get("high_lsn").asText())
                : Lsn.parse(t.path("lsn").asText()),
            c.hasNonNull("read_seconds") ? c.get("read_seconds").asDouble() : null,
            c.hasNonNull("read_mb") ? c.get("read_mb").asDouble() : null));
      }
      return Optional.of(new Tag(Lsn.parse(t.path("lsn").asText()), chunks));
    }
    return Optional.empty();
  }

  /** The wave rebuilt from its rows in bronze: counts and the smallest stamp per chunk; bounds from the plan. */
  static Optional<Tag> fromBronze(SparkSession spark, TableRef target, Lsn s, List<PlannedChunk> take) {
    if (!DeltaTables.exists(spark, target)
        || !Arrays.asList(DeltaTables.read(spark, target).columns()).contains(CdcColumns.CHUNK)) {
      return Optional.empty();
    }
    Object[] indexes = take.stream().map(PlannedChunk::index).toArray();
    List<Row> held = DeltaTables.read(spark, target)
        .where(col(CdcColumns.SNAPSHOT).equalTo(s.hex()).and(col(CdcColumns.CHUNK).isin(indexes)))
        .groupBy(col(CdcColumns.CHUNK)).agg(count(lit(1)), min(col(CdcColumns.START_LSN))).collectAsList();
    if (held.isEmpty()) {
      return Optional.empty();
    }
    Map<Integer, Long> rows = new HashMap<>();
    Lsn stamp = null;
    for (Row r : held) {
      rows.put(r.getInt(0), r.getLong(1));
      Lsn l = Lsn.parse(r.getString(2));
      stamp = stamp == null || l.isBefore(stamp) ? l : stamp;
    }
    List<ChunkResult> chunks = new ArrayList<>();
    for (PlannedChunk c : take) {
      chunks.add(new ChunkResult(c.index(), c.lo(), c.hi(), false, rows.getOrDefault(c.index(), 0L), stamp, null,
          null));
    }
    return Optional.of(new Tag(stamp, chunks));
  }
}
