package io.mssqlcdc.finalization;

import io.mssqlcdc.sink.pipeline.StartedStream;
import io.mssqlcdc.sink.pipeline.StreamAttachment;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * Tracks {@code finalized_until} of every stream {@code CdcStream} starts with it: each stream's
 * verdict is kept under its target's name (as given) in one control table. Made by
 * {@link Finalization#tracking}; one attachment may serve many streams (a fan-out) and
 * many runs (a restart after a re-snapshot starts a new run, and a new tracker).
 */
public final class TrackingAttachment implements StreamAttachment {
  private final TableRef control;
  private final Granularity granularity;
  private final List<FinalizationTracker> trackers = new CopyOnWriteArrayList<>();

  TrackingAttachment(TableRef control, Granularity granularity) {
    this.control = control;
    this.granularity = granularity;
  }

  @Override
  public void attach(SparkSession spark, StreamingQuery query, StartedStream stream) {
    trackers.add(Finalization.track(spark, query, control.text(), stream.target(), granularity.text()));
  }

  /** The control table, as given. */
  public String controlTable() {
    return control.text();
  }

  /** The granularity: {@code minute}, {@code hour} or {@code day}. */
  public String granularity() {
    return granularity.text();
  }

  /** The trackers started so far, oldest first. */
  public List<FinalizationTracker> trackers() {
    return List.copyOf(trackers);
  }

  /** Waits for every tracker started so far to stop (their queries terminated); false on timeout. */
  public boolean joinAll(Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    for (FinalizationTracker t : trackers) {
      if (!t.join(Duration.ofNanos(Math.max(1_000_000, end - System.nanoTime())))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return "finalization tracking in " + control + " (" + granularity.text() + ")";
  }
}
