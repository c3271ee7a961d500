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
final class FactsRebuild {
  private static final Logger LOG = LoggerFactory.getLogger(FactsRebuild.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How far back bronze's history is searched for the batch's commit (backfill waves commit beside it). */
  static final int HISTORY_DEPTH = 100;
  private static final long NO_COMMIT = -1;
  private static final long UNCOUNTED = -2;

  private FactsRebuild() {}

  static FactsRow row(SparkSession spark, TableRef facts, TableRef bronze, String sinkId, long batchId) {
    String floor = FactsReader.lastLsn(spark, facts, sinkId);
    BatchFacts counted = BatchFacts.EMPTY;
    long committed = NO_COMMIT;
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
    boolean agrees = committed == UNCOUNTED || (committed == NO_COMMIT ? counted.rows() == 0 : committed == counted.rows());
    if (agrees) {
      detail = "facts row rebuilt from " + bronze.text() + " after the process ended before its facts commit:"
          + " figures of the read unknown";
    } else {
      detail = "facts row rebuilt after the process ended before its facts commit, but " + bronze.text() + " holds "
          + counted.rows() + " rows of batch " + batchId + " where its commit of the batch says "
          + (committed == NO_COMMIT ? "nothing (no commit of it found)" : committed + " rows") + ": figures left NULL";
      LOG.warn("{}: {}", sinkId, detail);
    }
    FactsRow r = new FactsRow().set(FactsColumn.APP_ID, sinkId).set(FactsColumn.BATCH_ID, batchId)
        .set(FactsColumn.TARGET, bronze.text())
        .set(FactsColumn.DETAIL, BatchFactsRows.warningsJson(List.of(detail)));
    if (agrees) {
      r.set(FactsColumn.ROWS, counted.rows()).set(FactsColumn.MIN_LSN, counted.minLsn())
          .set(FactsColumn.MAX_LSN, counted.maxLsn()).set(FactsColumn.MIN_COMMIT_TS, counted.minCommitTs())
          .set(FactsColumn.MAX_COMMIT_TS, counted.maxCommitTs()).set(FactsColumn.DELETES, counted.deletes())
          .set(FactsColumn.INSERTS, counted.inserts()).set(FactsColumn.UPDATES, counted.updates());
    }
    LOG.info("{} batch {}: rebuilt its facts row from {} ({} rows)", sinkId, batchId, bronze, counted.rows());
    return r;
  }

  /**
   * The rows bronze's commit of ({@code sinkId}, {@code batchId}) wrote; {@link #NO_COMMIT} when no
   * such commit is found, {@link #UNCOUNTED} when it is but carries no row count.
   */
  private static long committedRows(SparkSession spark, TableRef bronze, String sinkId, long batchId) {
    List<Row> history = DeltaTables.table(spark, bronze).history(HISTORY_DEPTH)
        .select("userMetadata", "operationMetrics").collectAsList();
    for (Row h : history) {
      if (h.isNullAt(0) || !names(h.getString(0), sinkId, batchId)) {
        continue;
      }
      Map<String, String> metrics = h.isNullAt(1) ? Map.of() : h.getJavaMap(1);
      String n = metrics.get("numOutputRows");
      return n == null ? UNCOUNTED : Long.parseLong(n);
    }
    return NO_COMMIT;
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
