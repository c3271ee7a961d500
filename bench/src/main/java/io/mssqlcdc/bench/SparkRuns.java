package io.mssqlcdc.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/** Runs a query to its end and times it. */
public final class SparkRuns {
  private SparkRuns() {}

  /**
   * A finished streaming query: {@code nanos}, the time of its micro-batches (the sum of their
   * {@code triggerExecution} durations: the source's offsets and planning, the read, the sink,
   * the offset and commit logs), without starting and stopping the query, which costs every
   * source the same; {@code wallNanos} from {@code start()} to termination; the rows its batches
   * read; {@code progress}, each micro-batch's id, rows and {@code triggerExecution}, in batch order;
   * {@code phaseMillis}, Spark's {@code durationMs} of the micro-batches summed per phase
   * ({@code latestOffset}, {@code walCommit}, {@code queryPlanning}, {@code addBatch},
   * {@code commitOffsets}, ...: where the trigger's time went); {@code startMs} and {@code endMs},
   * the wall clock at {@code start()} and at termination (for the jobs the run started);
   * {@code tailNanos}, from the end of the last micro-batch to termination: stopping the query, and
   * whatever a sink still owes then (DeltaSink's last facts commit, made off the batch's path).
   */
  public record StreamRun(long nanos, long wallNanos, long rows, int batches, String queryId, long lastBatchId,
      List<Batch> progress, Map<String, Long> phaseMillis, long startMs, long endMs, long tailNanos) {}

  /** One micro-batch's progress: its id, the rows it read, its {@code triggerExecution} in nanoseconds. */
  public record Batch(long id, long rows, long nanos) {
    /** The sum of {@code batches}' times. */
    public static long nanos(List<Batch> batches) {
      return batches.stream().mapToLong(Batch::nanos).sum();
    }

    /** The sum of {@code batches}' rows. */
    public static long rows(List<Batch> batches) {
      return batches.stream().mapToLong(Batch::rows).sum();
    }
  }

  /** {@code df} (a streaming Dataset) into Spark's {@code noop} sink with Trigger.AvailableNow. */
  public static StreamRun availableNowToNoop(Dataset<Row> df, Path checkpoint) {
    long startMs = System.currentTimeMillis();
    long t0 = System.nanoTime();
    StreamingQuery q;
    try {
      q = df.writeStream().format("noop").trigger(Trigger.AvailableNow())
          .option("checkpointLocation", checkpoint.toString()).start();
    } catch (TimeoutException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return await(q, t0, startMs);
  }

  /** {@code df} into {@code sink} ({@code foreachBatch}) with Trigger.AvailableNow. */
  public static StreamRun availableNowForeach(Dataset<Row> df, Path checkpoint, VoidFunction2<Dataset<Row>, Long> sink) {
    long startMs = System.currentTimeMillis();
    long t0 = System.nanoTime();
    StreamingQuery q;
    try {
      q = df.writeStream().foreachBatch(sink).trigger(Trigger.AvailableNow())
          .option("checkpointLocation", checkpoint.toString()).start();
    } catch (TimeoutException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return await(q, t0, startMs);
  }

  /**
   * {@code df} into Delta's own streaming sink ({@code format("delta")}, exactly-once through the
   * checkpoint's batch id written as the table's {@code txn} of the query) at {@code path} with
   * Trigger.AvailableNow.
   */
  public static StreamRun availableNowToDelta(Dataset<Row> df, Path checkpoint, String path) {
    long startMs = System.currentTimeMillis();
    long t0 = System.nanoTime();
    StreamingQuery q;
    try {
      q = df.writeStream().format("delta").outputMode("append").trigger(Trigger.AvailableNow())
          .option("checkpointLocation", checkpoint.toString()).option("path", path).start();
    } catch (TimeoutException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return await(q, t0, startMs);
  }

  private static StreamRun await(StreamingQuery q, long t0, long startMs) {
    try {
      q.awaitTermination();
    } catch (StreamingQueryException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    long nanos = System.nanoTime() - t0;
    long endMs = System.currentTimeMillis();
    List<Batch> progress = new ArrayList<>();
    Map<String, Long> phases = new TreeMap<>();
    long lastEndMs = startMs;
    for (StreamingQueryProgress p : q.recentProgress()) {
      p.durationMs().forEach((phase, ms) -> phases.merge(phase, ms, Long::sum));
      Long trigger = p.durationMs().get("triggerExecution");
      progress.add(new Batch(p.batchId(), p.numInputRows(), (trigger == null ? 0 : trigger) * 1_000_000L));
      lastEndMs = Math.max(lastEndMs, java.time.Instant.parse(p.timestamp()).toEpochMilli() + (trigger == null ? 0
          : trigger));
    }
    progress.sort(Comparator.comparingLong(Batch::id));
    int batches = (int) progress.stream().filter(b -> b.rows() > 0).count();
    long last = progress.isEmpty() ? -1 : progress.get(progress.size() - 1).id();
    return new StreamRun(Batch.nanos(progress), nanos, Batch.rows(progress), batches, q.id().toString(), last,
        List.copyOf(progress), java.util.Collections.unmodifiableMap(phases), startMs, endMs,
        Math.max(0, endMs - lastEndMs) * 1_000_000L);
  }

  /** A batch Dataset into {@code noop}: every row read, nothing kept. */
  public static long batchToNoop(Dataset<Row> df) {
    long t0 = System.nanoTime();
    df.write().format("noop").mode("overwrite").save();
    return System.nanoTime() - t0;
  }
}
