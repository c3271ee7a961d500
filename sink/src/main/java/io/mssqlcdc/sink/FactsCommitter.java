package io.mssqlcdc.sink;

import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The facts commit of a steady micro-batch, off the batch's path (docs/decisions/0012): one commit
 * in flight at most, on a thread of its own, while Spark commits the batch and the next one reads.
 * The sink waits for it ({@link #drain}) before its next facts commit, before a run's rewind check
 * and when the query's source stops, so commits land in batch order and a query that ended leaves
 * nothing behind. A commit that failed is tried once more on the waiting thread; if that fails too
 * the caller's batch fails with the cause, and the next run rebuilds the row from bronze
 * ({@link FactsRebuild}). The retry first checks that the row did not land after all. One
 * committer serves a facts table and sink id per JVM ({@link #of}), so a later sink instance of
 * the same stream waits for an earlier one's commit before its rewind check.
 *
 * <p>The thread runs its Spark jobs outside the query's job group (so stopping the query does not
 * cancel a commit it already owes) and marks them with {@link #JOB_PROPERTY}, the batch id.
 */
final class FactsCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(FactsCommitter.class);
  /** The local property the background commit's Spark jobs carry: the batch whose facts they write. */
  static final String JOB_PROPERTY = "mssql_cdc.facts.batchId";
  /** Local properties of the query's thread a background job must not inherit. */
  private static final List<String> QUERY_PROPERTIES = List.of("spark.sql.execution.id", "streaming.sql.batchId",
      "sql.streaming.queryId", "spark.sql.execution.root.id", "callSite.short", "callSite.long");

  /** How long the query's stop waits for a facts commit in flight. */
  static final long STOP_WAIT_SECONDS = 120;

  /**
   * One committer per facts table and sink id in this JVM: a new sink instance of the same stream
   * (a restart in the same driver) waits for what an earlier one still has in flight.
   */
  private static final Map<String, FactsCommitter> BY_SINK = new ConcurrentHashMap<>();

  private final String sinkId;
  private ExecutorService thread;
  private Pending pending;

  private record Pending(long batchId, List<FactsRow> rows, Runnable beforeWrite, Future<?> done) {}

  private FactsCommitter(String sinkId) {
    this.sinkId = sinkId;
  }

  /** The committer of {@code sinkId}'s rows in {@code facts}. */
  static FactsCommitter of(TableRef facts, String sinkId) {
    return BY_SINK.computeIfAbsent(facts.text() + "\u0000" + sinkId, k -> new FactsCommitter(sinkId));
  }

  /**
   * Commits {@code rows}, the facts of batch {@code batchId}, in the background, after the commit
   * in flight (which this waits for first). {@code beforeWrite} runs on the background thread first
   * (tests: a crash of the commit).
   */
  synchronized void submit(SparkSession spark, TableRef facts, long batchId, List<FactsRow> rows,
      Runnable beforeWrite) throws InterruptedException {
    drain(spark, facts);
    if (thread == null) {
      // One thread at most, gone after a minute idle (a pipeline of many streams holds no idle threads).
      thread = new ThreadPoolExecutor(0, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, "mssql-cdc-facts-" + sinkId);
        t.setDaemon(true);
        return t;
      });
    }
    Future<?> done = thread.submit(() -> {
      SparkContext sc = spark.sparkContext();
      sc.clearJobGroup();
      sc.clearJobTags();
      for (String p : QUERY_PROPERTIES) {
        sc.setLocalProperty(p, null);
      }
      sc.setLocalProperty(JOB_PROPERTY, Long.toString(batchId));
      sc.setJobDescription("mssql_cdc " + sinkId + ": facts of batch " + batchId);
      SparkSession.setActiveSession(spark);
      try {
        beforeWrite.run();
        FactsWriter.write(spark, facts, rows, null, batchId);
      } finally {
        sc.setLocalProperty(JOB_PROPERTY, null);
        sc.setJobDescription(null);
      }
    });
    pending = new Pending(batchId, rows, beforeWrite, done);
  }

  /**
   * Waits for the commit in flight, if any; one that failed is written again here, and if that
   * fails the batch's facts commit failure is thrown.
   */
  synchronized void drain(SparkSession spark, TableRef facts) throws InterruptedException {
    Pending p = pending;
    if (p == null) {
      return;
    }
    try {
      // An interrupt (the query's stop) goes to Spark as it is, which ends the query as stopped; the commit goes
      // on, and the source's stop waits for it.
      p.done().get();
      pending = null;
      return;
    } catch (ExecutionException e) {
      retryFailed(spark, facts, p, e.getCause());
    }
  }

  /** Writes a failed background commit again on this thread; throws the batch's failure if that fails too. */
  private void retryFailed(SparkSession spark, TableRef facts, Pending p, Throwable cause) {
    LOG.warn("{}: the facts commit of batch {} failed ({}); writing it again", sinkId, p.batchId(), cause.toString());
    pending = null;
    try {
      // A commit that reported a failure may have landed (an ambiguous storage response): written once only.
      OptionalLong last = FactsReader.lastBatch(spark, facts, sinkId);
      if (last.isPresent() && last.getAsLong() >= p.batchId()) {
        LOG.info("{}: the facts row of batch {} landed after all; not written again", sinkId, p.batchId());
        return;
      }
      p.beforeWrite().run();
      FactsWriter.write(spark, facts, p.rows(), null, p.batchId());
    } catch (RuntimeException again) {
      throw SinkErrors.factsCommitFailed(facts.text(), sinkId, p.batchId(), again);
    }
  }

  /**
   * {@link #drain} for a query that stopped: waits through interrupts (a {@code stop()} interrupts
   * the query's thread) for at most {@link #STOP_WAIT_SECONDS}; a failure is logged, and the next
   * run rebuilds the row.
   */
  synchronized void drainOnStop(SparkSession spark, TableRef facts) {
    Pending p = pending;
    if (p == null) {
      return;
    }
    boolean interrupted = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_WAIT_SECONDS);
    try {
      while (true) {
        try {
          p.done().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          pending = null;
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (java.util.concurrent.TimeoutException e) {
          LOG.error("{}: the facts commit of batch {} did not end within {} s of the query's stop; if it never"
              + " lands, the next run rebuilds the row from bronze", sinkId, p.batchId(), STOP_WAIT_SECONDS);
          return;
        } catch (ExecutionException e) {
          try {
            retryFailed(spark, facts, p, e.getCause());
          } catch (RuntimeException again) {
            LOG.error("{}: the facts row of batch {} was not written ({}); the next run rebuilds it from bronze",
                sinkId, p.batchId(), again.getMessage());
          }
          return;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
