package io.mssqlcdc.sink;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mssqlcdc.connector.CdcColumns;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;

/**
 * What one micro-batch holds, counted from its rows (reference-behaviour §13 step 4): rows, the
 * LSN and commit-time range, and deletes (operation 1), inserts (2) and updates (4; the before
 * images, 3, are not counted). LSNs are canonical hex, so their text order is their numeric order.
 *
 * @param rows change rows
 * @param minLsn smallest {@code _start_lsn}; null without rows
 * @param maxLsn largest {@code _start_lsn}; null without rows
 * @param minCommitTs earliest {@code _commit_ts} (UTC); null without rows
 * @param maxCommitTs latest {@code _commit_ts} (UTC); null without rows
 * @param deletes operation-1 rows
 * @param inserts operation-2 rows
 * @param updates operation-4 rows
 */
public record BatchFacts(
    long rows, String minLsn, String maxLsn, LocalDateTime minCommitTs, LocalDateTime maxCommitTs,
    long deletes, long inserts, long updates) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");
  private static final List<String> NEEDED = List.of(CdcColumns.START_LSN, CdcColumns.COMMIT_TS, CdcColumns.OPERATION);

  /** The facts of an empty batch. */
  public static final BatchFacts EMPTY = new BatchFacts(0, null, null, null, null, 0, 0, 0);

  /**
   * Counts {@code batch} in a pass of its own that runs it to its end: one Spark job, no
   * shuffle (the figures are observed while the rows go to Spark's {@code noop} sink; an
   * aggregation, {@code batch.agg(...)}, would take three jobs with adaptive execution). The
   * sink counts with {@link #observe} during the bronze append instead, and calls this only for
   * a batch whose append Delta skipped.
   */
  public static BatchFacts of(Dataset<Row> batch) {
    Observation o = newObservation();
    observe(batch, o).write().format("noop").mode(SaveMode.Overwrite).save();
    try {
      return from(o.getAsJava()).orElseThrow(
          () -> new IllegalStateException("Spark collected no figures of a batch it ran to its end"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the batch's figures", e);
    }
  }

  /**
   * The figures of {@code rows} per value of {@code batchColumn} (an int column), in one grouped
   * pass: what {@link #of} counts for one batch, for several (rebuilding lost facts rows).
   */
  public static Map<Long, BatchFacts> byBatch(Dataset<Row> rows, String batchColumn) {
    Column[] figures = figures();
    Map<Long, BatchFacts> out = new java.util.HashMap<>();
    for (Row r : rows.groupBy(col(batchColumn).as("batch")).agg(figures[0],
        Arrays.copyOfRange(figures, 1, figures.length)).collectAsList()) {
      Map<String, Object> values = new java.util.HashMap<>();
      for (String n : FIGURE_NAMES) {
        values.put(n, r.getAs(n));
      }
      out.put(((Number) r.getAs("batch")).longValue(), from(values).orElseThrow());
    }
    return out;
  }

  /** A new observation, named uniquely (Spark keys observations by name and plan). */
  public static Observation newObservation() {
    return new Observation("mssql_cdc_batch_facts_" + UUID.randomUUID().toString().replace("-", ""));
  }

  /**
   * {@code batch} with its figures observed by {@code o}: whatever action runs the returned
   * Dataset to its end (the bronze append) fills {@code o}, in the same pass, no extra job. An
   * action that does not run it (Delta skipping an append whose {@code txnVersion} it recorded)
   * leaves {@code o} incomplete.
   */
  public static Dataset<Row> observe(Dataset<Row> batch, Observation o) {
    List<String> have = Arrays.asList(batch.columns());
    for (String c : NEEDED) {
      if (!have.contains(c)) {
        throw new IllegalArgumentException("The batch has no column " + c + ": DeltaSink writes the rows of"
            + " format(\"mssql_cdc\") (columns " + String.join(", ", NEEDED) + " and the captured columns). Columns: "
            + String.join(", ", have));
      }
    }
    Column[] figures = figures();
    return batch.observe(o, figures[0], Arrays.copyOfRange(figures, 1, figures.length));
  }

  /** The names {@link #figures()} gives its aggregates, which {@link #from} reads. */
  private static final List<String> FIGURE_NAMES = List.of("rows", "min_lsn", "max_lsn", "min_commit_ts",
      "max_commit_ts", "deletes", "inserts", "updates");

  /** A batch's figures as aggregates over its rows, named as {@link #from} reads them (observed or grouped). */
  private static Column[] figures() {
    return new Column[] {
        count(lit(1)).as("rows"),
        min(col(CdcColumns.START_LSN)).as("min_lsn"), max(col(CdcColumns.START_LSN)).as("max_lsn"),
        min(col(CdcColumns.COMMIT_TS)).as("min_commit_ts"), max(col(CdcColumns.COMMIT_TS)).as("max_commit_ts"),
        sum(when(col(CdcColumns.OPERATION).equalTo(1), 1L).otherwise(0L)).as("deletes"),
        sum(when(col(CdcColumns.OPERATION).equalTo(2), 1L).otherwise(0L)).as("inserts"),
        sum(when(col(CdcColumns.OPERATION).equalTo(4), 1L).otherwise(0L)).as("updates")};
  }

  /**
   * The figures an observation of {@link #observe} collected; empty when it collected none (Spark
   * completes an observation whose plan did not run with no values).
   */
  public static Optional<BatchFacts> from(Map<String, Object> r) {
    if (r == null || !r.containsKey("rows") || r.get("rows") == null) {
      return Optional.empty();
    }
    long rows = ((Number) r.get("rows")).longValue();
    if (rows == 0) {
      return Optional.of(EMPTY);
    }
    return Optional.of(new BatchFacts(rows, (String) r.get("min_lsn"), (String) r.get("max_lsn"),
        (LocalDateTime) r.get("min_commit_ts"), (LocalDateTime) r.get("max_commit_ts"),
        ((Number) r.get("deletes")).longValue(), ((Number) r.get("inserts")).longValue(),
        ((Number) r.get("updates")).longValue()));
  }

  /**
   * The bronze commit's {@code userMetadata}: compact JSON, keys in the reference's order
   * ({@code rows, min_lsn, max_lsn, min_commit_ts, max_commit_ts, deletes, inserts, updates,
   * batch_id, app_id}), times ISO-8601 with milliseconds.
   */
  public String userMetadata(long batchId, String sinkId) {
    ObjectNode n = JSON.createObjectNode();
    n.put("rows", rows);
    n.put("min_lsn", minLsn);
    n.put("max_lsn", maxLsn);
    n.put("min_commit_ts", minCommitTs == null ? null : MILLIS.format(minCommitTs));
    n.put("max_commit_ts", maxCommitTs == null ? null : MILLIS.format(maxCommitTs));
    n.put("deletes", deletes);
    n.put("inserts", inserts);
    n.put("updates", updates);
    n.put("batch_id", batchId);
    n.put("app_id", sinkId);
    return n.toString();
  }

  /**
   * The bronze commit's {@code userMetadata} when the figures are counted during the append
   * itself (as {@link DeltaSink} does): the same keys, {@code rows} to {@code updates} null; the
   * facts row holds the figures (the reference's metadata where it cannot persist a batch).
   */
  public static String uncountedMetadata(long batchId, String sinkId) {
    ObjectNode n = JSON.createObjectNode();
    for (String k : List.of("rows", "min_lsn", "max_lsn", "min_commit_ts", "max_commit_ts", "deletes", "inserts",
        "updates")) {
      n.putNull(k);
    }
    n.put("batch_id", batchId);
    n.put("app_id", sinkId);
    return n.toString();
  }
}
