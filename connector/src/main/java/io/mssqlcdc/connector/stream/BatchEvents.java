package io.mssqlcdc.connector.stream;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * which is the query's own thread inside {@code foreachBatch}. Each query keeps its last
 * {@link #KEEP_BATCHES} batches for as long as it runs, however many queries run beside it (a
 * fan-out over hundreds of tables); when a query stops (its source's {@code stop()}) its reports
 * stay readable among the last {@link #KEEP_TERMINATED} stopped queries', then are dropped.
 */
public final class BatchEvents {
  private static final Logger LOG = LoggerFactory.getLogger(BatchEvents.class);
  static final int KEEP_BATCHES = 100;
  static final int KEEP_TERMINATED = 16;
  static final String QUERY_ID_KEY = "sql.streaming.queryId";
  static final String BATCH_ID_KEY = "streaming.sql.batchId";

  private static final Map<String, ConcurrentSkipListMap<Long, BatchReport>> REPORTS = new ConcurrentHashMap<>();
  /** Stopped queries, oldest first: their reports are dropped beyond {@link #KEEP_TERMINATED}. */
  private static final LinkedHashSet<String> TERMINATED = new LinkedHashSet<>();
  /** What runs when a query's source stops, by query id and then by the caller's key (run once, then dropped). */
  private static final Map<String, Map<Object, Runnable>> ON_STOP = new ConcurrentHashMap<>();

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
    TERMINATED.remove(report.queryId()); // a restarted query runs again
    ConcurrentSkipListMap<Long, BatchReport> m =
        REPORTS.computeIfAbsent(report.queryId(), q -> new ConcurrentSkipListMap<>());
    m.put(report.batchId(), report);
    while (m.size() > KEEP_BATCHES) {
      m.pollFirstEntry();
    }
  }

  /**
   * Runs {@code hook} when query {@code queryId}'s source stops: on the query's own thread, before
   * {@code awaitTermination()} returns (Spark stops a query's sources before it counts the query
   * terminated), whether the query ended, failed or was stopped. One hook per {@code key}: a second
   * registration under the same key replaces the first; hooks run in the order they were first
   * registered, each whatever the others do. A sink that hands work to another thread
   * waits for it here ({@code DeltaSink}'s facts commit).
   */
  public static void whenStopped(String queryId, Object key, Runnable hook) {
    Map<Object, Runnable> hooks = ON_STOP.computeIfAbsent(queryId, q -> new LinkedHashMap<>());
    synchronized (hooks) {
      hooks.put(key, hook);
    }
  }

  /** Query {@code queryId} stopped: its stop hooks run, its reports go once {@link #KEEP_TERMINATED} later queries stopped. */
  static void terminated(String queryId) {
    if (queryId == null) {
      return;
    }
    Map<Object, Runnable> hooks = ON_STOP.remove(queryId);
    List<Runnable> run = new ArrayList<>();
    if (hooks != null) {
      synchronized (hooks) {
        run.addAll(hooks.values());
      }
    }
    try {
      for (Runnable r : run) { // in the order they were registered; one that fails does not keep the others from running
        try {
          r.run();
        } catch (RuntimeException e) {
          LOG.error("mssql_cdc: a stop hook of query {} failed: {}", queryId, e.toString());
        }
      }
    } finally {
      forget(queryId);
    }
  }

  private static synchronized void forget(String queryId) {
    if (!REPORTS.containsKey(queryId)) {
      return;
    }
    TERMINATED.remove(queryId);
    TERMINATED.add(queryId);
    while (TERMINATED.size() > KEEP_TERMINATED) {
      Iterator<String> oldest = TERMINATED.iterator();
      REPORTS.remove(oldest.next());
      oldest.remove();
    }
  }

  /** Whether query {@code queryId} stopped and its reports are still held: for tests. */
  static synchronized boolean isTerminated(String queryId) {
    return TERMINATED.contains(queryId);
  }

  static String currentProperty(String key) {
    try {
      return SparkSession.active().sparkContext().getLocalProperty(key);
    } catch (IllegalStateException e) {
      return null; // no active session on this thread
    }
  }
}
