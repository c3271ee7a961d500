package io.mssqlcdc.sink;

import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The facts commits of steady micro-batches, off the batches' path (docs/decisions/0012 and 0013):
 * rows handed over by {@link #submit} are committed by a thread of its own, in batch order, in
 * groups: a commit starts once the previous one has ended and the commit interval has passed since
 * it started, and takes every row handed over by then. With batches further apart than the
 * interval each batch gets its own commit as soon as it is handed over; a stream catching up
 * gets one commit per interval instead of one per batch. One group in flight at most.
 *
 * <p>The sink waits for every row handed over ({@link #drain}) before a facts commit of its own
 * and before a run's rewind check, and the query's stop does ({@link #drainOnStop}), so rows land
 * in batch order and a query that ended leaves nothing behind. A group whose commit failed stops
 * the thread's commits until the query's thread wrote it again (first checking that it did not
 * land after all); if that fails too the caller's batch fails with the cause, and the next run
 * rebuilds the missing rows from bronze ({@link FactsRebuild}). So the sink id's facts rows always
 * run without a gap up to their last batch, which is what the rebuild relies on.
 *
 * <p>One committer serves a facts table and sink id per JVM ({@link #of}), so a later sink
 * instance of the same stream waits for what an earlier one still holds. The thread runs its
 * Spark jobs outside the query's job group (so stopping the query does not cancel a commit it
 * already owes) and marks them with {@link #JOB_PROPERTY}, the group's last batch id.
 */
final class FactsCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(FactsCommitter.class);
  /** The local property the background commit's Spark jobs carry: the last batch whose facts they write. */
  static final String JOB_PROPERTY = "mssql_cdc.facts.batchId";
  /** Local properties of the query's thread a background job must not inherit. */
  private static final List<String> QUERY_PROPERTIES = List.of("spark.sql.execution.id", "streaming.sql.batchId",
      "sql.streaming.queryId", "spark.sql.execution.root.id", "callSite.short", "callSite.long");

  /** How long the query's stop waits for the rows handed over. */
  static final long STOP_WAIT_SECONDS = 120;
  /** Batches held at most: handing over one more waits for their commit. */
  static final int MAX_HELD_BATCHES = 100;
  /** How long the thread stays without work before it ends (a pipeline of many streams holds no idle threads). */
  private static final long IDLE_MILLIS = 60_000;

  /**
   * One committer per facts table and sink id in this JVM: a new sink instance of the same stream
   * (a restart in the same driver) waits for what an earlier one still holds.
   */
  private static final Map<String, FactsCommitter> BY_SINK = new ConcurrentHashMap<>();

  private final String sinkId;

  /** Batches' rows handed over and not yet taken by the thread; guarded by this. */
  private Group held;
  /** The group the thread is writing; guarded by this. */
  private Group writing;
  /** A group the thread could not write, for the query's thread to write again; guarded by this. */
  private Group failed;
  private Throwable failure;
  /** Whether a waiter wants the held rows committed now, interval or not; guarded by this. */
  private boolean flushNow;
  private long lastStartNanos = Long.MIN_VALUE / 2;
  private Thread thread;
  private SparkSession spark;
  private TableRef facts;
  private long intervalNanos;

  /** Rows of consecutive batches, written in one commit; {@code beforeWrite} hooks run first (tests). */
  private record Group(long first, long last, List<FactsRow> rows, List<Runnable> beforeWrite) {
    Group plus(long batchId, List<FactsRow> more, Runnable hook) {
      List<FactsRow> r = new ArrayList<>(rows);
      r.addAll(more);
      List<Runnable> h = new ArrayList<>(beforeWrite);
      h.add(hook);
      return new Group(first, batchId, r, h);
    }

    int batches() {
      return (int) (last - first + 1);
    }

    String text() {
      return first == last ? "batch " + last : "batches " + first + " to " + last;
    }
  }

  private FactsCommitter(String sinkId) {
    this.sinkId = sinkId;
  }

  /** The committer of {@code sinkId}'s rows in {@code facts}. */
  static FactsCommitter of(TableRef facts, String sinkId) {
    return BY_SINK.computeIfAbsent(facts.text() + "\u0000" + sinkId, k -> new FactsCommitter(sinkId));
  }

  /**
   * Hands over {@code rows}, the facts of batch {@code batchId}, for a commit in the background
   * at most {@code interval} after the previous one started. A group that failed in the background
   * is written again here first (throwing the batch's facts failure if that fails too).
   * {@code beforeWrite} runs on the committing thread before the commit that holds the rows (tests:
   * a failed commit).
   */
  synchronized void submit(SparkSession spark, TableRef facts, long batchId, List<FactsRow> rows,
      java.time.Duration interval, Runnable beforeWrite) throws InterruptedException {
    rewriteFailed();
    if (held != null && held.batches() >= MAX_HELD_BATCHES) {
      awaitCommitted(FOREVER);
      rewriteFailed();
    }
    this.spark = spark;
    this.facts = facts;
    this.intervalNanos = interval.toNanos();
    held = held == null ? new Group(batchId, batchId, List.copyOf(rows), List.of(beforeWrite))
        : held.plus(batchId, rows, beforeWrite);
    if (thread == null) {
      thread = new Thread(this::commitLoop, "mssql-cdc-facts-" + sinkId);
      thread.setDaemon(true);
      thread.start();
    }
    notifyAll();
  }

  /**
   * Waits until every row handed over is committed; a group that failed is written again here,
   * and if that fails the batch's facts commit failure is thrown. An interrupt (the query's stop)
   * goes to Spark as it is, which ends the query as stopped; the commits go on, and the source's
   * stop waits for them.
   */
  synchronized void drain(SparkSession spark, TableRef facts) throws InterruptedException {
    // Rows held behind a failed group are committed after it is written again: wait for them too.
    while (true) {
      awaitCommitted(FOREVER);
      if (failed == null) {
        return;
      }
      rewriteFailed();
    }
  }

  /**
   * {@link #drain} for a query that stopped: waits through interrupts (a {@code stop()} interrupts
   * the query's thread) for at most {@link #STOP_WAIT_SECONDS}; a failure is logged, and the next
   * run rebuilds the rows.
   */
  synchronized void drainOnStop(SparkSession spark, TableRef facts) {
    boolean interrupted = false;
    long start = System.nanoTime();
    try {
      while (true) {
        try {
          long left = TimeUnit.SECONDS.toNanos(STOP_WAIT_SECONDS) - (System.nanoTime() - start);
          if (left <= 0 || !awaitCommitted(left)) {
            LOG.error("{}: the facts of {} were not committed within {} s of the query's stop; if they never land,"
                + " the next run rebuilds them from bronze", sinkId, pendingText(), STOP_WAIT_SECONDS);
            return;
          }
          if (failed == null) {
            return;
          }
          rewriteFailed();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (RuntimeException again) {
          LOG.error("{}: facts rows were not written ({}); the next run rebuilds them from bronze", sinkId,
              again.getMessage());
          return;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static final long FOREVER = Long.MAX_VALUE;

  /**
   * Waits (holding this monitor between waits) until nothing is held or being written, or a group
   * failed; asks the thread to commit now. False when {@code timeoutNanos} ({@link #FOREVER}: no
   * limit) passed first.
   */
  private boolean awaitCommitted(long timeoutNanos) throws InterruptedException {
    long start = System.nanoTime();
    flushNow = true;
    notifyAll();
    try {
      while (failed == null && (held != null || writing != null)) {
        if (thread == null) {
          // The thread ended (it does when idle, and never with rows held); start it again to be safe.
          thread = new Thread(this::commitLoop, "mssql-cdc-facts-" + sinkId);
          thread.setDaemon(true);
          thread.start();
        }
        long left = timeoutNanos == FOREVER ? Long.MAX_VALUE : timeoutNanos - (System.nanoTime() - start);
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
      }
      return true;
    } finally {
      flushNow = false;
    }
  }

  /**
   * Writes a group that failed in the background again on this thread; rows held after it stay held
   * (the thread commits them once this is done, so the rows still land in batch order).
   */
  private void rewriteFailed() {
    Group g = failed;
    if (g == null) {
      return;
    }
    LOG.warn("{}: the facts commit of {} failed ({}); writing it again", sinkId, g.text(), failure.toString());
    failed = null;
    failure = null;
    try {
      // A commit that reported a failure may have landed (an ambiguous storage response): written once only.
      OptionalLong last = FactsReader.lastBatch(spark, facts, sinkId);
      if (last.isPresent() && last.getAsLong() >= g.last()) {
        LOG.info("{}: the facts rows of {} landed after all; not written again", sinkId, g.text());
        return;
      }
      if (last.isPresent() && last.getAsLong() >= g.first()) {
        throw new IllegalStateException("the facts table holds part of " + g.text() + " (up to batch "
            + last.getAsLong() + ")");
      }
      g.beforeWrite().forEach(Runnable::run);
      FactsWriter.write(spark, facts, g.rows(), null, g.last());
    } catch (RuntimeException again) {
      // Rows held after the lost group must not land without it (the facts would have a gap below their last batch,
      // which the rebuild cannot see): dropped too; the next run rebuilds them all from bronze.
      long upTo = held == null ? g.last() : held.last();
      held = null;
      throw SinkErrors.factsCommitFailed(facts.text(), sinkId, g.first(), upTo, again);
    } finally {
      notifyAll();
    }
  }

  private String pendingText() {
    Group g = writing != null ? writing : held;
    return g == null ? "no batch" : g.text();
  }

  /** The committing thread: takes what is held when a commit is due, writes it, and so on; ends when idle. */
  private void commitLoop() {
    while (true) {
      Group g;
      SparkSession s;
      TableRef t;
      synchronized (this) {
        long idleSince = System.nanoTime();
        while (true) {
          if (held != null && failed == null) {
            long due = lastStartNanos + intervalNanos;
            long now = System.nanoTime();
            if (flushNow || now - due >= 0) {
              break;
            }
            waitNanos(due - now);
          } else {
            if (System.nanoTime() - idleSince > TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS)) {
              thread = null;
              return;
            }
            waitNanos(TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS));
          }
        }
        g = held;
        held = null;
        writing = g;
        lastStartNanos = System.nanoTime();
        s = spark;
        t = facts;
      }
      Throwable error = null;
      try {
        write(s, t, g);
      } catch (Throwable e) {
        error = e;
      }
      synchronized (this) {
        writing = null;
        if (error != null) {
          failed = g;
          failure = error;
          LOG.warn("{}: the facts commit of {} failed in the background ({}); the next batch or the query's stop"
              + " writes it again", sinkId, g.text(), error.toString());
        }
        notifyAll();
      }
    }
  }

  private void waitNanos(long nanos) {
    try {
      TimeUnit.NANOSECONDS.timedWait(this, Math.max(1, nanos));
    } catch (InterruptedException e) {
      // Nothing interrupts this thread on purpose; its work is owed, so go on.
    }
  }

  private void write(SparkSession spark, TableRef facts, Group g) {
    SparkContext sc = spark.sparkContext();
    sc.clearJobGroup();
    sc.clearJobTags();
    for (String p : QUERY_PROPERTIES) {
      sc.setLocalProperty(p, null);
    }
    sc.setLocalProperty(JOB_PROPERTY, Long.toString(g.last()));
    sc.setJobDescription("mssql_cdc " + sinkId + ": facts of " + g.text());
    SparkSession.setActiveSession(spark);
    try {
      g.beforeWrite().forEach(Runnable::run);
      FactsWriter.write(spark, facts, g.rows(), null, g.last());
    } finally {
      sc.setLocalProperty(JOB_PROPERTY, null);
      sc.setJobDescription(null);
    }
  }
}
