package io.mssqlcdc.sink;

import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.List;
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
 * ({@link FactsRebuild}).
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

  private final String sinkId;
  private ExecutorService thread;
  private Pending pending;

  private record Pending(long batchId, List<FactsRow> rows, Runnable beforeWrite, Future<?> done) {}

  FactsCommitter(String sinkId) {
    this.sinkId = sinkId;
  }

  /**
   * Commits {@code rows}, the facts of batch {@code batchId}, in the background, after the commit
   * in flight (which this waits for first). {@code beforeWrite} runs on the background thread first
   * (tests: a crash of the commit).
   */
  synchronized void submit(SparkSession spark, TableRef facts, long batchId, List<FactsRow> rows,
      Runnable beforeWrite) {
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
  synchronized void drain(SparkSession spark, TableRef facts) {
    Pending p = pending;
    if (p == null) {
      return;
    }
    try {
      p.done().get();
      pending = null;
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the facts commit of batch " + p.batchId()
          + " of " + sinkId + " (it goes on; the query's stop waits for it)", e);
    } catch (ExecutionException e) {
      LOG.warn("{}: the facts commit of batch {} failed ({}); writing it again", sinkId, p.batchId(),
          e.getCause().toString());
    }
    retry(spark, facts, p);
  }

  private void retry(SparkSession spark, TableRef facts, Pending p) {
    pending = null;
    try {
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
          LOG.warn("{}: the facts commit of batch {} failed ({}); writing it again", sinkId, p.batchId(),
              e.getCause().toString());
          try {
            retry(spark, facts, p);
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
