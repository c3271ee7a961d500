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
 * The facts row of a batch whose background facts commit the process did not live to make
 * (docs/decisions/0012): Spark committed batch n, the process ended with n's facts in flight, and
 * the next run's first batch is n + 1 while the facts end at n - 1. The row is rebuilt from what
 * bronze holds of batch n: its rows ({@code _batch_id} = n, above every LSN the sink id's facts
 * name, which sets them apart from an older generation's batch n), counted in one pass, and checked
 * against the row count of bronze's commit of (sink id, n). Figures of the read (round trip, read
 * time, lags, headroom) are lost: NULL. A batch without a bronze commit and without rows was empty.
 * When the count and the commit disagree the row says so and leaves the figures NULL rather than
 * guess.
 */
public final class FactsRebuild {
  private static final Logger LOG = LoggerFactory.getLogger(FactsRebuild.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long NO_COMMIT = -1;
  private static final long UNCOUNTED = -2;

  private FactsRebuild() {}

  /**
   * For a stream that will not run again under {@code sinkId} (the pipeline opens a new checkpoint
   * generation): when its facts end one batch short of {@code lastCommitted}, the last batch Spark
   * committed, that batch's row rebuilt and appended. Returns whether it wrote one.
   */
  public static boolean closeGeneration(SparkSession spark, TableRef facts, TableRef bronze, String sinkId,
      long lastCommitted) {
    if (facts == null || !DeltaTables.exists(spark, facts)) {
      return false;
    }
    if (!lastRowLost(FactsReader.lastBatch(spark, facts, sinkId), lastCommitted)) {
      return false;
    }
    io.mssqlcdc.sink.facts.FactsWriter.write(spark, facts, List.of(row(spark, facts, bronze, sinkId, lastCommitted)),
        null, lastCommitted);
    return true;
  }

  /**
   * Whether the facts, whose last batch of the sink id is {@code lastFacts}, end exactly one batch
   * short of {@code lastCommitted}, the last batch Spark committed: that batch's facts commit was in
   * flight when the process ended (decision 0012), and its row is to be rebuilt.
   */
  static boolean lastRowLost(java.util.OptionalLong lastFacts, long lastCommitted) {
    return lastFacts.isPresent() && lastFacts.getAsLong() == lastCommitted - 1;
  }

  static FactsRow row(SparkSession spark, TableRef facts, TableRef bronze, String sinkId, long batchId) {
    String floor = FactsReader.lastLsn(spark, facts, sinkId);
    BatchFacts counted = BatchFacts.EMPTY;
    Commit committed = Commit.NONE;
    if (DeltaTables.exists(spark, bronze)) {
      Dataset<Row> all = DeltaTables.read(spark, bronze);
      List<String> columns = Arrays.asList(all.columns());
      Column of = col(CdcColumns.BATCH_ID).equalTo(lit(batchId));
      if (columns.contains(CdcColumns.SNAPSHOT)) {
        of = of.and(col(CdcColumns.SNAPSHOT).isNull());
      }
      if (floor != null) {
        of = of.and(col(CdcColumns.START_LSN).gt(lit(floor)));
      }
      counted = BatchFacts.of(all.where(of));
      committed = committedRows(spark, bronze, sinkId, batchId);
    }
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
   * Bronze's commit of ({@code sinkId}, {@code batchId}), searched in its whole history (a crash path:
   * backfill waves may have committed many times since): the rows it wrote and its time (UTC).
   */
  private static Commit committedRows(SparkSession spark, TableRef bronze, String sinkId, long batchId) {
    List<Row> history = DeltaTables.table(spark, bronze).history()
        .where(col("userMetadata").contains("\"app_id\":" + Json.quote(sinkId)))
        .select("userMetadata", "operationMetrics", "timestamp").collectAsList();
    for (Row h : history) {
      if (h.isNullAt(0) || !names(h.getString(0), sinkId, batchId)) {
        continue;
      }
      Map<String, String> metrics = h.isNullAt(1) ? Map.of() : h.getJavaMap(1);
      String n = metrics.get("numOutputRows");
      java.time.LocalDateTime at = h.isNullAt(2) ? null
          : java.time.LocalDateTime.ofInstant(h.getTimestamp(2).toInstant(), java.time.ZoneOffset.UTC);
      return new Commit(n == null ? UNCOUNTED : Long.parseLong(n), at);
    }
    return Commit.NONE;
  }

  private static boolean names(String userMetadata, String sinkId, long batchId) {
    try {
      JsonNode n = JSON.readTree(userMetadata);
      return n != null && sinkId.equals(n.path("app_id").asText(null)) && n.path("batch_id").asLong(-1) == batchId;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
