package io.mssqlcdc.connector.stream;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.spark.sql.SparkSession;

/**
 * The driver-side registry a {@code foreachBatch} sink reads a batch's events and read metrics
 * from, without side files:
 *
 * <pre>{@code
 * df.writeStream().foreachBatch((batch, batchId) -> {
 *   batch.write()...save();                       // the source reads here
 *   BatchEvents.forBatch(batchId).ifPresent(r -> { r.events(); r.rowsRead(); });
 * })
 * }</pre>
 *
 * <p>The stream registers a {@link BatchReport} when it plans a batch, keyed by the query id and
 * the batch id Spark sets on the query's thread ({@code sql.streaming.queryId},
 * {@code streaming.sql.batchId}). {@link #forBatch(long)} looks up the calling thread's query,
 * which is the query's own thread inside {@code foreachBatch}. The last {@link #KEEP_BATCHES}
 * batches of the last {@link #KEEP_QUERIES} queries are kept.
 */
public final class BatchEvents {
  static final int KEEP_BATCHES = 100;
  static final int KEEP_QUERIES = 64;
  static final String QUERY_ID_KEY = "sql.streaming.queryId";
  static final String BATCH_ID_KEY = "streaming.sql.batchId";

  private static final Map<String, ConcurrentSkipListMap<Long, BatchReport>> REPORTS = new ConcurrentHashMap<>();
  private static final ConcurrentSkipListMap<Long, String> QUERY_ORDER = new ConcurrentSkipListMap<>();
  private static long sequence;

  private BatchEvents() {}

  /** The report of batch {@code batchId} of the query running on this thread. */
  public static Optional<BatchReport> forBatch(long batchId) {
    String q = currentProperty(QUERY_ID_KEY);
    return q == null ? Optional.empty() : forBatch(q, batchId);
  }

  /** The report of batch {@code batchId} of query {@code queryId} ({@code StreamingQuery.id()}). */
  public static Optional<BatchReport> forBatch(String queryId, long batchId) {
    Map<Long, BatchReport> m = REPORTS.get(queryId);
    return m == null ? Optional.empty() : Optional.ofNullable(m.get(batchId));
  }

  static synchronized void register(BatchReport report) {
    ConcurrentSkipListMap<Long, BatchReport> m = REPORTS.computeIfAbsent(report.queryId(), q -> {
      QUERY_ORDER.put(sequence++, q);
      return new ConcurrentSkipListMap<>();
    });
    m.put(report.batchId(), report);
    while (m.size() > KEEP_BATCHES) {
      m.pollFirstEntry();
    }
    while (QUERY_ORDER.size() > KEEP_QUERIES) {
      REPORTS.remove(QUERY_ORDER.pollFirstEntry().getValue());
    }
  }

  static String currentProperty(String key) {
    try {
      return SparkSession.active().sparkContext().getLocalProperty(key);
    } catch (IllegalStateException e) {
      return null; // no active session on this thread
    }
  }
}
