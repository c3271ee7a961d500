package io.mssqlcdc.sink.pipeline;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Waiting for and stopping the queries of {@link CdcStream.Builder#startMany} (reference-behaviour §18). */
public final class CdcStreams {
  private static final Logger LOG = LoggerFactory.getLogger(CdcStreams.class);

  private CdcStreams() {}

  /**
   * Waits for every query to end, at most {@code timeoutSeconds} in all (0 or less: no limit),
   * and returns the errors of the queries that failed, by capture instance. Never throws for a
   * query's failure; queries still running at the deadline are not waited on, but one that had
   * already failed is reported.
   */
  public static Map<String, Throwable> awaitAll(Map<String, StreamingQuery> queries, long timeoutSeconds) {
    long deadline = timeoutSeconds > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds) : Long.MAX_VALUE;
    Map<String, Throwable> failed = new LinkedHashMap<>();
    for (Map.Entry<String, StreamingQuery> e : queries.entrySet()) {
      StreamingQuery q = e.getValue();
      try {
        if (deadline == Long.MAX_VALUE) {
          q.awaitTermination();
        } else {
          long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          if (left > 0) {
            q.awaitTermination(left);
          }
        }
      } catch (StreamingQueryException ex) {
        // reported below from q.exception()
      } catch (RuntimeException ex) {
        failed.put(e.getKey(), ex);
        continue;
      }
      if (q.exception().isDefined()) {
        failed.put(e.getKey(), q.exception().get());
      }
    }
    return failed;
  }

  /** Waits for every query to end; returns the failed ones' errors. */
  public static Map<String, Throwable> awaitAll(Map<String, StreamingQuery> queries) {
    return awaitAll(queries, 0);
  }

  /** Stops every query (running or not); a failure to stop one is logged and the others are still stopped. */
  public static void stopAll(Map<String, StreamingQuery> queries) {
    for (Map.Entry<String, StreamingQuery> e : queries.entrySet()) {
      try {
        e.getValue().stop();
      } catch (Exception ex) {
        LOG.warn("Stopping the stream of {} failed: {}", e.getKey(), ex.toString());
      }
    }
  }
}
