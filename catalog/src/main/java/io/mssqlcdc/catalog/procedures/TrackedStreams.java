package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.finalization.TrackingAttachment;
import io.mssqlcdc.sink.pipeline.StartedStream;
import io.mssqlcdc.sink.pipeline.StreamAttachment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * The finalization tracking of the streams this server's {@code start_stream} and {@code start_many} started,
 * by query id: what {@code await_tracking} waits for (a Spark Connect client cannot reach the trackers, which
 * live in the server's JVM). The newest {@link #MAX} queries are kept; a server restart forgets them all, as
 * it forgets the queries.
 */
final class TrackedStreams {
  static final int MAX = 1000;

  /** One started query's tracking: the attachment (every run's tracker) and the table it writes. */
  record Entry(TrackingAttachment tracking, String target) {}

  private static final Map<String, Entry> BY_QUERY = new LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
      return size() > MAX;
    }
  };

  private TrackedStreams() {}

  /** {@code tracking}, attached as it is, recording each query it follows under the query's id. */
  static StreamAttachment registering(TrackingAttachment tracking) {
    return new StreamAttachment() {
      @Override
      public void attach(SparkSession spark, StreamingQuery query, StartedStream stream) {
        tracking.attach(spark, query, stream);
        register(query.id().toString(), new Entry(tracking, stream.target()));
      }

      @Override
      public String toString() {
        return tracking.toString();
      }
    };
  }

  static synchronized void register(String queryId, Entry entry) {
    BY_QUERY.put(queryId, entry);
  }

  /** The tracking of the query {@code queryId} (its text form, ignoring case), if this server started it so. */
  static synchronized Optional<Entry> find(String queryId) {
    return Optional.ofNullable(queryId == null ? null : BY_QUERY.get(queryId.strip().toLowerCase(java.util.Locale.ROOT)));
  }
}
