package io.mssqlcdc.sink;

import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.SparkThreads;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
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
 * the thread's commits until a waiter asks for it to be written again; the thread then checks that
 * it did not land after all and writes it once more. If that fails too, the group and every row held
 * behind it are dropped and the waiter throws the batches' facts failure; the next run rebuilds
 * them from bronze ({@link FactsRebuild}). So the sink id's facts rows never have a gap below their
 * last batch, which is what the rebuild relies on. Every Spark job of a facts commit runs on the
 * thread: the query's stop, which cancels the query's job group and interrupts its thread, ends a
 * wait, never a commit.
 *
 * <p>One committer serves a facts table and sink id per JVM ({@link #of}), so a later sink
 * instance of the same stream (and the pipeline closing a generation) waits for what an earlier
 * one still holds. The thread runs its Spark jobs outside the query's job group and marks them with
 * {@link #JOB_PROPERTY}, the group's last batch id. Rows carry the time they were handed over as
 * {@code written_at}.
 */
final class FactsCommitter {
  private static final Logger LOG = LoggerFactory.getLogger(FactsCommitter.class);
  /** The local property the background commit's Spark jobs carry: the last batch whose facts they write. */
  static final String JOB_PROPERTY = "mssql_cdc.facts.batchId";
  /** How long the query's stop waits for the rows handed over. */
  static final long STOP_WAIT_SECONDS = 120;
  /** Batches held at most: handing over one more waits for their commit. */
  static final int MAX_HELD_BATCHES = 100;
  /** How long the thread stays without work before it ends (a pipeline of many streams holds no idle threads). */
  private static final long IDLE_MILLIS = 60_000;
  private static final long FOREVER = Long.MAX_VALUE;

  /**
   * One committer per facts table and sink id in this JVM: a new sink instance of the same stream
   * (a restart in the same driver) waits for what an earlier one still holds.
   */
  private static final Map<String, FactsCommitter> BY_SINK = new ConcurrentHashMap<>();

  private final String sinkId;

  // Guarded by this.
  /** Batches' rows handed over and not yet taken by the thread. */
  private Group held;
  /** The group the thread is writing. */
  private Group writing;
  /** A group the thread could not write; nothing later is committed until it is. */
  private Group failed;
  private Throwable failure;
  /** Whether a waiter asked for {@link #failed} to be written again. */
  private boolean retry;
  /** A group written twice without success (and the rows held behind it), for the next waiter to report. */
  private RuntimeException lost;
  /** Waiters that want the held rows committed now, interval or not. */
  private int flushing;
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
   * is written again first (throwing the batches' facts failure if that fails too).
   * {@code beforeWrite} runs on the committing thread before the commit that holds the rows (tests:
   * a failed commit).
   */
  synchronized void submit(SparkSession spark, TableRef facts, long batchId, List<FactsRow> rows,
      java.time.Duration interval, Runnable beforeWrite) throws InterruptedException {
    use(spark, facts);
    rewriteFailed(FOREVER);
    if (held != null && held.batches() >= MAX_HELD_BATCHES) {
      drain(spark, facts);
    }
    this.intervalNanos = interval.toNanos();
    LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
    List<FactsRow> stamped = new ArrayList<>();
    for (FactsRow r : rows) {
      FactsRow c = r.copy();
      if (c.get(FactsColumn.WRITTEN_AT) == null) {
        c.set(FactsColumn.WRITTEN_AT, now);
      }
      stamped.add(c);
    }
    held = held == null ? new Group(batchId, batchId, List.copyOf(stamped), List.of(beforeWrite))
        : held.plus(batchId, stamped, beforeWrite);
    ensureThread();
    notifyAll();
  }

  /**
   * Waits until every row handed over is committed; a group that failed is written again (by the
   * thread), and if that fails the batches' facts commit failure is thrown. An interrupt (the
   * query's stop) goes to Spark as it is, which ends the query as stopped; the commits go on, and
   * the source's stop waits for them.
   */
  synchronized void drain(SparkSession spark, TableRef facts) throws InterruptedException {
    use(spark, facts);
    // Rows held behind a failed group are committed after it is written again: wait for them too.
    while (!awaitIdle(FOREVER)) {
      rewriteFailed(FOREVER);
    }
  }

  /**
   * {@link #drain} before the facts are read to be checked (a run's first batch, a generation
   * closed): rows that could not be written are rebuilt from bronze right after, so their loss is
   * logged, not thrown.
   */
  synchronized void drainBeforeCheck(SparkSession spark, TableRef facts) throws InterruptedException {
    try {
      drain(spark, facts);
    } catch (io.mssqlcdc.errors.CdcStateException e) {
      if (e.code() != io.mssqlcdc.errors.CdcErrorCode.FACTS_COMMIT_FAILED) {
        throw e;
      }
      LOG.warn("{}: {} They are rebuilt from bronze now.", sinkId, e.getMessage());
    }
  }

  /**
   * {@link #drain} for a query that stopped: waits through interrupts (a {@code stop()} interrupts
   * the query's thread) for at most {@link #STOP_WAIT_SECONDS}; a failure is logged, and the next
   * run rebuilds the rows.
   */
  synchronized void drainOnStop(SparkSession spark, TableRef facts) {
    use(spark, facts);
    boolean interrupted = false;
    long start = System.nanoTime();
    long limit = TimeUnit.SECONDS.toNanos(STOP_WAIT_SECONDS);
    try {
      while (true) {
        long left = limit - (System.nanoTime() - start);
        try {
          if (left <= 0) {
            LOG.error("{}: the facts of {} were not committed within {} s of the query's stop; if they never land,"
                + " the next run rebuilds them from bronze", sinkId, pendingText(), STOP_WAIT_SECONDS);
            return;
          }
          if (awaitIdle(left)) {
            return;
          }
          if (failed != null) {
            rewriteFailed(limit - (System.nanoTime() - start));
          }
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

  private void use(SparkSession spark, TableRef facts) {
    this.spark = spark;
    this.facts = facts;
  }

  /**
   * Waits (holding this monitor between waits) until nothing is held or being written (true), or a
   * group failed or {@code timeoutNanos} ({@link #FOREVER}: no limit) passed (false); asks the thread
   * to commit now. A group lost since the last wait is thrown first.
   */
  private boolean awaitIdle(long timeoutNanos) throws InterruptedException {
    throwLost();
    long start = System.nanoTime();
    flushing++;
    notifyAll();
    try {
      while (failed == null && (held != null || writing != null)) {
        ensureThread();
        long left = timeoutNanos == FOREVER ? Long.MAX_VALUE : timeoutNanos - (System.nanoTime() - start);
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
      }
      return failed == null;
    } finally {
      flushing--;
    }
  }

  /**
   * Has the thread write the failed group again and waits for it (at most {@code timeoutNanos});
   * throws the batches' facts failure if that fails too. The thread, not the caller, runs the
   * commit: a stop that interrupts the caller ends the wait, and the commit goes on.
   */
  private void rewriteFailed(long timeoutNanos) throws InterruptedException {
    throwLost();
    if (failed == null) {
      return;
    }
    retry = true;
    ensureThread();
    notifyAll();
    long start = System.nanoTime();
    while (failed != null && lost == null) {
      long left = timeoutNanos == FOREVER ? Long.MAX_VALUE : timeoutNanos - (System.nanoTime() - start);
      if (left <= 0) {
        return;
      }
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
    }
    throwLost();
  }

  private void throwLost() {
    RuntimeException e = lost;
    if (e != null) {
      lost = null;
      throw e;
    }
  }

  private void ensureThread() {
    if (thread == null || !thread.isAlive()) {
      thread = new Thread(this::commitLoop, "mssql-cdc-facts-" + sinkId);
      thread.setDaemon(true);
      thread.start();
    }
  }

  private String pendingText() {
    Group g = failed != null ? failed : writing != null ? writing : held;
    return g == null ? "no batch" : g.text();
  }

  /** The committing thread: takes what is held when a commit is due (or a failed group to retry), writes it. */
  private void commitLoop() {
    try {
      while (true) {
        Group g;
        boolean again;
        synchronized (this) {
          long idleSince = System.nanoTime();
          while (true) {
            if (failed != null && retry) {
              g = failed;
              again = true;
              break;
            }
            if (held != null && failed == null) {
              long due = lastStartNanos + intervalNanos;
              long now = System.nanoTime();
              if (flushing > 0 || now - due >= 0) {
                g = held;
                held = null;
                again = false;
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
          writing = g;
          lastStartNanos = System.nanoTime();
        }
        Throwable error = null;
        try {
          if (again) {
            writeAgain(g);
          } else {
            write(g);
          }
        } catch (Throwable e) {
          error = e;
        }
        synchronized (this) {
          writing = null;
          if (again) {
            retry = false;
            failed = null;
            failure = null;
            if (error != null) {
              // Rows held after the lost group must not land without it (the facts would have a gap below their last
              // batch, which the rebuild cannot see): dropped too; the next run rebuilds them all from bronze.
              long upTo = held == null ? g.last() : held.last();
              held = null;
              lost = SinkErrors.factsCommitFailed(facts.text(), sinkId, g.first(), upTo,
                  error instanceof RuntimeException r ? r : new IllegalStateException(error));
            }
          } else if (error != null) {
            failed = g;
            failure = error;
            LOG.warn("{}: the facts commit of {} failed in the background ({}); the next batch or the query's stop"
                + " writes it again", sinkId, g.text(), error.toString());
          }
          notifyAll();
        }
      }
    } finally {
      synchronized (this) {
        if (thread == Thread.currentThread()) {
          thread = null;
        }
        notifyAll();
      }
    }
  }

  /** The second attempt at a failed group: first checks it did not land after all (an ambiguous storage response). */
  private void writeAgain(Group g) {
    LOG.warn("{}: the facts commit of {} failed ({}); writing it again", sinkId, g.text(), String.valueOf(failure));
    withJobProperties(g, () -> {
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
    });
  }

  private void write(Group g) {
    withJobProperties(g, () -> {
      g.beforeWrite().forEach(Runnable::run);
      FactsWriter.write(spark, facts, g.rows(), null, g.last());
    });
  }

  private void withJobProperties(Group g, Runnable r) {
    SparkSession s;
    synchronized (this) {
      s = spark;
    }
    SparkContext sc = s.sparkContext();
    SparkThreads.detach(s, "mssql_cdc " + sinkId + ": facts of " + g.text());
    sc.setLocalProperty(JOB_PROPERTY, Long.toString(g.last()));
    try {
      r.run();
    } finally {
      sc.setLocalProperty(JOB_PROPERTY, null);
      sc.setJobDescription(null);
    }
  }

  private void waitNanos(long nanos) {
    try {
      TimeUnit.NANOSECONDS.timedWait(this, Math.max(1, nanos));
    } catch (InterruptedException e) {
      // Nothing interrupts this thread on purpose; its work is owed, so go on.
    }
  }
}
