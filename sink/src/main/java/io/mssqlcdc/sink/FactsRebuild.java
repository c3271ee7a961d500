package io.mssqlcdc.sink;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The facts rows of batches whose background facts commit the process did not live to make
 * (docs/decisions/0012, 0013): Spark committed batches up to n, the process ended with the facts of
 * m..n held or in flight, and the next run finds the sink id's facts ending at m - 1 (they never
 * have a gap: the committer writes in batch order and stops at a failure). Each row is rebuilt from
 * what bronze holds of its batch: the rows of {@code _batch_id} = k above every LSN the sink id's
 * facts name (which sets them apart from an older generation's batch k), counted in one grouped
 * pass, and checked against the row count of bronze's commit of (sink id, k). Figures of the read
 * (round trip, read time, lags, headroom) are lost: NULL. A batch without a bronze commit and without
 * rows was empty. When the count and the commit disagree the row says so and leaves the figures NULL
 * rather than guess.
 */
public final class FactsRebuild {
  private static final Logger LOG = LoggerFactory.getLogger(FactsRebuild.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long NO_COMMIT = -1;
  private static final long UNCOUNTED = -2;

  private FactsRebuild() {}

  /**
   * For a stream that will not run again under {@code sinkId} (the pipeline opens a new checkpoint
   * generation): when its facts end short of {@code lastCommitted}, the last batch Spark committed,
   * the missing batches' rows rebuilt and appended. Returns how many it wrote.
   */
  public static int closeGeneration(SparkSession spark, TableRef facts, TableRef bronze, String sinkId,
      long lastCommitted) {
    if (facts == null || !DeltaTables.exists(spark, facts)) {
      return 0;
    }
    try {
      // Rows this JVM still holds for the generation (a stop that gave up waiting) land first, or are given up.
      FactsCommitter.of(facts, sinkId).drainBeforeCheck(spark, facts);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the facts commits of " + sinkId, e);
    }
    java.util.OptionalLong first = firstLost(FactsReader.lastBatch(spark, facts, sinkId), lastCommitted);
    if (first.isEmpty()) {
      return 0;
    }
    List<FactsRow> rows = rows(spark, facts, bronze, sinkId, first.getAsLong(), lastCommitted);
    io.mssqlcdc.sink.facts.FactsWriter.write(spark, facts, rows, null, lastCommitted);
    return rows.size();
  }

  /**
   * The first batch whose facts row is lost: the one after {@code lastFacts}, the sink id's last
   * facts batch, when Spark committed batches after it (up to {@code lastCommitted}); empty when the
   * facts reach {@code lastCommitted} or the sink id has no facts row (nothing to rebuild from).
   */
  static java.util.OptionalLong firstLost(java.util.OptionalLong lastFacts, long lastCommitted) {
    return lastFacts.isPresent() && lastFacts.getAsLong() < lastCommitted
        ? java.util.OptionalLong.of(lastFacts.getAsLong() + 1) : java.util.OptionalLong.empty();
  }

  /** The rebuilt facts rows of batches {@code from} to {@code to}, in batch order. */
  static List<FactsRow> rows(SparkSession spark, TableRef facts, TableRef bronze, String sinkId, long from, long to) {
    String floor = FactsReader.lastLsn(spark, facts, sinkId);
    Map<Long, BatchFacts> counted = new java.util.HashMap<>();
    Map<Long, Commit> commits = Map.of();
    if (DeltaTables.exists(spark, bronze)) {
      Dataset<Row> all = DeltaTables.read(spark, bronze);
      List<String> columns = Arrays.asList(all.columns());
      Column of = col(CdcColumns.BATCH_ID).between(lit((int) from), lit((int) to));
      if (columns.contains(CdcColumns.SNAPSHOT)) {
        of = of.and(col(CdcColumns.SNAPSHOT).isNull());
      }
      if (floor != null) {
        of = of.and(col(CdcColumns.START_LSN).gt(lit(floor)));
      }
      counted = BatchFacts.byBatch(all.where(of), CdcColumns.BATCH_ID);
      commits = committedRows(spark, bronze, sinkId, from, to);
    }
    if (to - from + 1 > 2L * FactsCommitter.MAX_HELD_BATCHES + 1) {
      LOG.warn("{}: rebuilding the facts rows of {} batches ({} to {}) from {}: more than the sink ever holds back"
          + " (was the facts table restored to an older version?)", sinkId, to - from + 1, from, to, bronze);
    }
    List<FactsRow> out = new java.util.ArrayList<>();
    for (long k = from; k <= to; k++) {
      out.add(row(bronze, sinkId, k, counted.getOrDefault(k, BatchFacts.EMPTY), commits.getOrDefault(k, Commit.NONE)));
    }
    return out;
  }

  private static FactsRow row(TableRef bronze, String sinkId, long batchId, BatchFacts counted, Commit committed) {
    String detail;
    long n = committed.rows();
    boolean agrees = n == UNCOUNTED || (n == NO_COMMIT ? counted.rows() == 0 : n == counted.rows());
    if (agrees) {
      detail = "facts row rebuilt from " + bronze.text() + " after the process ended before its facts commit:"
          + " figures of the read unknown";
    } else {
      detail = "facts row rebuilt after the process ended before its facts commit, but " + bronze.text() + " holds "
          + counted.rows() + " rows of batch " + batchId + " where its commit of the batch says "
          + (n == NO_COMMIT ? "nothing (no commit of it found)" : n + " rows") + ": figures left NULL";
      LOG.warn("{}: {}", sinkId, detail);
    }
    FactsRow r = new FactsRow().set(FactsColumn.APP_ID, sinkId).set(FactsColumn.BATCH_ID, batchId)
        .set(FactsColumn.TARGET, bronze.text())
        .set(FactsColumn.DETAIL, BatchFactsRows.warningsJson(List.of(detail)))
        // when bronze committed the batch (not now): readers that take a sink's newest row by written_at still see the
        // batch after this one as the newest
        .set(FactsColumn.WRITTEN_AT, committed.at());
    if (agrees) {
      r.set(FactsColumn.ROWS, counted.rows()).set(FactsColumn.MIN_LSN, counted.minLsn())
          .set(FactsColumn.MAX_LSN, counted.maxLsn()).set(FactsColumn.MIN_COMMIT_TS, counted.minCommitTs())
          .set(FactsColumn.MAX_COMMIT_TS, counted.maxCommitTs()).set(FactsColumn.DELETES, counted.deletes())
          .set(FactsColumn.INSERTS, counted.inserts()).set(FactsColumn.UPDATES, counted.updates());
    }
    LOG.info("{} batch {}: rebuilt its facts row from {} ({} rows)", sinkId, batchId, bronze, counted.rows());
    return r;
  }

  /** Bronze's commit of a batch: the rows it wrote ({@link #NO_COMMIT}, {@link #UNCOUNTED}) and when. */
  private record Commit(long rows, java.time.LocalDateTime at) {
    static final Commit NONE = new Commit(NO_COMMIT, null);
  }

  /**
   * Bronze's commits of ({@code sinkId}, {@code from..to}), searched in its whole history (a crash
   * path: backfill waves may have committed many times since): the rows each wrote and its time (UTC).
   */
  private static Map<Long, Commit> committedRows(SparkSession spark, TableRef bronze, String sinkId, long from,
      long to) {
    List<Row> history = DeltaTables.table(spark, bronze).history()
        .where(col("userMetadata").contains("\"app_id\":" + Json.quote(sinkId)))
        .select("userMetadata", "operationMetrics", "timestamp").collectAsList();
    Map<Long, Commit> out = new java.util.HashMap<>();
    for (Row h : history) {
      long batchId = h.isNullAt(0) ? -1 : batchOf(h.getString(0), sinkId);
      if (batchId < from || batchId > to || out.containsKey(batchId)) {
        continue;
      }
      Map<String, String> metrics = h.isNullAt(1) ? Map.of() : h.getJavaMap(1);
      String n = metrics.get("numOutputRows");
      java.time.LocalDateTime at = h.isNullAt(2) ? null
          : java.time.LocalDateTime.ofInstant(h.getTimestamp(2).toInstant(), java.time.ZoneOffset.UTC);
      out.put(batchId, new Commit(n == null ? UNCOUNTED : Long.parseLong(n), at));
    }
    return out;
  }

  /** The batch id a bronze commit's {@code userMetadata} names for {@code sinkId}; -1 for none. */
  private static long batchOf(String userMetadata, String sinkId) {
    try {
      JsonNode n = JSON.readTree(userMetadata);
      return n != null && sinkId.equals(n.path("app_id").asText(null)) ? n.path("batch_id").asLong(-1) : -1;
    } catch (java.io.IOException e) {
      return -1;
    }
  }
}
