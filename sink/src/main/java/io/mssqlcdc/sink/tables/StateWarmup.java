package io.mssqlcdc.sink.tables;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delta's state of a table's newest snapshot (its file count and size, {@code Snapshot.computedState}),
 * computed on a thread of its own while the caller does other work, so that a later {@code UPDATE} of
 * the table finds it done. Delta 4.4's {@code UpdateCommand} asks the snapshot's file count first (a
 * metric), which costs two Spark jobs over the table's log state on every new version; for silver's
 * position, written right after silver's MERGE, those jobs can run beside the MERGE instead of after it.
 * Likewise silver's (or the history's) own state, which its MERGE needs first, beside the pass over bronze.
 *
 * <p>Only a head start: the snapshot is the same object the {@code UPDATE} then takes when no commit
 * landed in between (Delta keeps a table's newest snapshot and computes its state once, under the
 * snapshot's lock, so the two never compute it twice); when one did, the {@code UPDATE} computes the
 * newer state itself, as it would have. Nothing is written and nothing depends on the outcome: a
 * failure is logged at debug level and forgotten. The work is {@code DESCRIBE DETAIL} (public Delta
 * API), its jobs named {@code description} in the Spark UI.
 */
public final class StateWarmup {
  private static final Logger LOG = LoggerFactory.getLogger(StateWarmup.class);
  /** A started warm-up that was not needed (nothing was started). */
  public static final StateWarmup NONE = new StateWarmup(CompletableFuture.completedFuture(null));

  private final CompletableFuture<Void> done;

  private StateWarmup(CompletableFuture<Void> done) {
    this.done = done;
  }

  /** Starts computing the state of {@code ref}'s newest snapshot on a daemon thread. */
  public static StateWarmup start(SparkSession spark, TableRef ref, String description) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        SparkThreads.detach(spark, description);
        DeltaTables.table(spark, ref).detail().collectAsList();
      } catch (Exception | LinkageError e) {
        LOG.debug("Delta's state of {} was not computed ahead ({}): the next write computes it", ref, e.toString());
      } finally {
        done.complete(null);
      }
    }, "mssql-cdc-state-" + ref.text());
    t.setDaemon(true);
    t.start();
    return new StateWarmup(done);
  }

  /**
   * Waits for the warm-up to end (at most {@code seconds}), so that its jobs are the caller's, before
   * the write that uses its state; a warm-up still running then is left to finish on its own.
   */
  public void await(long seconds) {
    try {
      done.get(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      LOG.debug("Delta's state warm-up did not end in {} s: going on", seconds);
    }
  }
}
