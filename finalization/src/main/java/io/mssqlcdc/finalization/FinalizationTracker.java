package io.mssqlcdc.finalization;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.sink.tables.TableRef;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Advances {@code finalized_until} of one table after the batches of one run of a streaming
 * query, until the run terminates (reference-behaviour §15, ADR 0026). Started by
 * {@link Finalization#track}.
 *
 * <p>Spark posts a query's progress after the batch's sink write and its checkpoint commit, so the
 * verdict follows the data (ADR 0005). A {@link StreamingQueryListener} registered on the session
 * hears the progress of every query on the listener bus's one thread; it keeps only this run's
 * ({@code runId}, not the query {@code id}, which a restart keeps) and hands the newest progress
 * to one worker thread, so a slow MERGE never holds up the bus or other listeners. A progress that
 * arrives while the worker is busy replaces the one still waiting: the newest end offset implies
 * the older ones. The worker skips an end offset that does not move the verdict past the last one
 * it wrote, so the control table gets one commit per period, not one per batch.
 *
 * <p>A failed advance is counted ({@link #failures()}, {@link #lastError()}) and logged: the first
 * of a streak at ERROR with its stack trace, then a WARNING at most every 10 minutes. The next
 * progress tries again, or, when no batch runs, the query's next idle report (Spark posts one about
 * every 10 s, {@code spark.sql.streaming.noDataProgressEventInterval}). When the run terminates
 * the worker applies what is left (the query's last progress), removes the listener and stops.
 * Should the termination event be missed (the listener bus drops events when its queue overflows),
 * the worker notices the inactive query within {@value #POLL_SECONDS} s and does the same.
 */
public final class FinalizationTracker {
  private static final Logger LOG = LoggerFactory.getLogger(FinalizationTracker.class);
  /** How often a streak of failures is logged again after its first ERROR. */
  static final Duration REPEAT = Duration.ofMinutes(10);
  /** How often the idle worker checks the query is still active. */
  static final long POLL_SECONDS = 5;

  private final SparkSession spark;
  private final StreamingQuery query;
  private final TableRef control;
  private final String tableName;
  private final Granularity granularity;
  private final UUID runId;
  private final LatestSlot<StreamingQueryProgress> slot = new LatestSlot<>();
  private final FailureStreak streak = new FailureStreak(REPEAT, System::nanoTime);
  private final Listener listener = new Listener();
  private final Thread worker;

  // Guarded by this.
  private LocalDateTime verdict;
  private long advances;
  private long attempts;
  private boolean finished;

  FinalizationTracker(SparkSession spark, StreamingQuery query, TableRef control, String tableName,
      Granularity granularity) {
    this.spark = spark;
    this.query = query;
    this.control = control;
    this.tableName = tableName;
    this.granularity = granularity;
    this.runId = query.runId();
    this.worker = new Thread(this::run, "mssql-cdc-finalization " + tableName);
    this.worker.setDaemon(true);
  }

  /** Registers the listener, hands over the query's last progress, and starts the worker. */
  FinalizationTracker start() {
    // The query's own session: its manager's bus is the one that carries the query's events.
    query.sparkSession().streams().addListener(listener);
    // Progress posted before the listener was added is missed: the last one implies it.
    slot.offer(query.lastProgress());
    if (!query.isActive()) {
      // Terminated before the listener could hear it: apply the last progress and stop.
      slot.close();
    }
    LOG.info("Tracking finalized_until of {} in {} ({} granularity) after each batch of query {} (run {})",
        tableName, control, granularity.text(), describe(query), runId);
    worker.start();
    return this;
  }

  // ---- what callers see -------------------------------------------------------------------

  /** The table whose verdict this advances. */
  public String tableName() {
    return tableName;
  }

  /** The control table, as given. */
  public String controlTable() {
    return control.text();
  }

  /** The granularity: {@code minute}, {@code hour} or {@code day}. */
  public String granularity() {
    return granularity.text();
  }

  /** The run of the query this follows. */
  public UUID runId() {
    return runId;
  }

  /**
   * The verdict stored after this tracker's last successful advance (it may be later than the
   * one this tracker wrote, when another writer moved it further); empty before the first.
   */
  public synchronized Optional<LocalDateTime> lastVerdict() {
    return Optional.ofNullable(verdict);
  }

  /** How many MERGEs this tracker ran successfully. */
  public synchronized long advances() {
    return advances;
  }

  /** Failed advances in a row; 0 after a success. */
  public int failures() {
    return streak.failures();
  }

  /** The error of the last attempt; empty once one succeeds. */
  public Optional<Throwable> lastError() {
    return Optional.ofNullable(streak.lastError());
  }

  /** Whether the worker has stopped (the run terminated, or {@link #stop()}) and the listener is removed. */
  public synchronized boolean isStopped() {
    return finished;
  }

  /**
   * Stops tracking while the query keeps running: what is left is applied, then the listener is
   * removed. {@link #join} waits for it.
   */
  public void stop() {
    slot.close();
  }

  /**
   * Waits until the run has terminated and its last verdict is written (or failed, and logged:
   * see {@link #lastError()}).
   *
   * @return false when {@code timeout} passed first
   */
  public boolean join(Duration timeout) {
    try {
      worker.join(Math.max(1, timeout.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !worker.isAlive();
  }

  /** {@link #join(Duration)} with the timeout in milliseconds (for PySpark through the gateway). */
  public boolean join(long timeoutMillis) {
    return join(Duration.ofMillis(timeoutMillis));
  }

  /**
   * Waits until this tracker has stored a verdict at or after {@code atLeast} (UTC), e.g. the end
   * of the period a job is about to read.
   *
   * @return false when {@code timeout} passed first, or the tracker stopped before
   */
  public synchronized boolean awaitVerdict(LocalDateTime atLeast, Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    while (!reached(atLeast) && !finished) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return reached(atLeast);
  }

  /** Waits until the worker has tried {@code n} advances in all (succeeded or failed); for tests. */
  synchronized boolean awaitAttempts(long n, Duration timeout) {
    long end = System.nanoTime() + timeout.toNanos();
    while (attempts < n && !finished) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return attempts >= n;
  }

  synchronized long attempts() {
    return attempts;
  }

  private boolean reached(LocalDateTime atLeast) {
    return verdict != null && !verdict.isBefore(atLeast);
  }

  @Override
  public String toString() {
    return "FinalizationTracker[" + tableName + " in " + control + ", run " + runId
        + (isStopped() ? ", stopped]" : "]");
  }

  // ---- the worker -------------------------------------------------------------------------

  private void run() {
    LocalDateTime last = null; // the candidate this worker last advanced to
    try {
      while (true) {
        StreamingQueryProgress progress = slot.take(TimeUnit.SECONDS.toNanos(POLL_SECONDS));
        if (progress != null) {
          last = apply(progress, last);
        } else if (slot.drained() || Thread.currentThread().isInterrupted()) {
          break;
        } else if (!query.isActive()) {
          LOG.info("Query {} (run {}) is no longer active; applying its last progress to {}", describe(query), runId,
              tableName);
          slot.offer(query.lastProgress());
          slot.close();
        }
      }
    } finally {
      try {
        query.sparkSession().streams().removeListener(listener);
      } catch (RuntimeException e) {
        LOG.warn("could not remove the finalization listener of {}: {}", tableName, e.toString());
      }
      synchronized (this) {
        finished = true;
        notifyAll();
      }
      LOG.info("Stopped tracking finalized_until of {} (run {}); verdict {}", tableName, runId,
          lastVerdict().map(Object::toString).orElse("none"));
    }
  }

  /** Advances to {@code progress}'s candidate if it is past {@code last}; returns the new last. */
  private LocalDateTime apply(StreamingQueryProgress progress, LocalDateTime last) {
    try {
      Optional<CdcOffset> end = Finalization.endOffsetFromProgress(progress, 0);
      Optional<LocalDateTime> cand = end.flatMap(o -> Verdicts.candidate(o, granularity));
      if (cand.isEmpty() || (last != null && !cand.get().isAfter(last))) {
        return last;
      }
      Optional<LocalDateTime> stored = Finalization.advance(spark, control, tableName, end.get(), granularity);
      streak.succeeded();
      synchronized (this) {
        advances++;
        attempts++;
        verdict = stored.orElse(null);
        notifyAll();
      }
      return cand.get();
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) { // the worker must survive anything an advance throws
      Level level = streak.failed(e);
      synchronized (this) {
        attempts++;
        notifyAll();
      }
      if (level == Level.ERROR) {
        LOG.error("finalized_until of {} not advanced (batch {} of query {}); the next progress tries again", tableName,
            progress.batchId(), describe(query), e);
      } else if (level == Level.WARN) {
        LOG.warn("finalized_until of {} still not advanced ({} failures in a row): {}", tableName, streak.failures(),
            e.toString());
      }
      return last;
    }
  }

  private static String describe(StreamingQuery q) {
    return q.name() == null ? q.id().toString() : "'" + q.name() + "' (" + q.id() + ")";
  }

  /** Hears the listener bus; keeps this run's progress and termination only. */
  private final class Listener extends StreamingQueryListener {
    @Override
    public void onQueryStarted(QueryStartedEvent event) {}

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
      if (runId.equals(event.progress().runId())) {
        slot.offer(event.progress());
      }
    }

    @Override
    public void onQueryIdle(QueryIdleEvent event) {
      // No batch ran, so no progress came; retry a failed advance now rather than at the next batch
      // (on a quiet database without the heartbeat, ~5 minutes away).
      if (runId.equals(event.runId()) && streak.failures() > 0) {
        slot.offer(query.lastProgress());
      }
    }

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {
      if (runId.equals(event.runId())) {
        // The bus may have dropped a progress event; the query's last progress is the newest.
        slot.offer(query.lastProgress());
        slot.close();
      }
    }

    @Override
    public String toString() {
      return "mssql-cdc finalization listener of " + tableName + " (run " + runId + ")";
    }
  }
}
