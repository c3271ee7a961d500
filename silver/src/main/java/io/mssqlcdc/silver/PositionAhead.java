package io.mssqlcdc.silver;

import io.mssqlcdc.finalization.ControlRowMerge;
import io.mssqlcdc.sink.tables.SparkThreads;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A call's position (and verdict) write to the control table, prepared on a thread of its own while
 * the call's MERGE runs, committed after it ({@link ControlRowMerge#prepare}): the rewritten file of the
 * control row is written beside the MERGE, so only the commit is left on the call's path. The values
 * are the call's (its newest change, its verdict): known before the MERGE, which does not change them.
 * The order is the contract's: nothing is committed to the control table before the MERGE is; a call
 * that fails (or crashes) before {@link #commit} leaves the control table as it was.
 */
final class PositionAhead {
  private static final Logger LOG = LoggerFactory.getLogger(PositionAhead.class);
  /** Nothing to write. */
  static final PositionAhead NONE = new PositionAhead(null, null, null, null);

  private final SparkSession spark;
  private final TableRef control;
  private final ControlRowMerge row;
  private final CompletableFuture<ControlRowMerge.Prepared> prepared;

  private PositionAhead(SparkSession spark, TableRef control, ControlRowMerge row,
      CompletableFuture<ControlRowMerge.Prepared> prepared) {
    this.spark = spark;
    this.control = control;
    this.row = row;
    this.prepared = prepared;
  }

  /**
   * Starts preparing the write of {@code row} (its Spark jobs named {@code description}): the UPDATE of the
   * row the call read, or the insert of the row a first call did not find ({@link ControlRowMerge#prepare}).
   */
  static PositionAhead start(SparkSession spark, TableRef control, ControlRowMerge row, String what,
      String description) {
    CompletableFuture<ControlRowMerge.Prepared> done = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        SparkThreads.detach(spark, description);
        done.complete(row.prepare(spark, control, what));
      } catch (Throwable e) {
        LOG.debug("{}: not prepared ahead ({}); written at its commit", what, e.toString());
        done.complete(null);
      }
    }, "mssql-cdc-position-" + control.text());
    t.setDaemon(true);
    t.start();
    return new PositionAhead(spark, control, row, done);
  }

  /** Commits the prepared write, or writes the row with {@code what} when nothing was prepared. */
  void commit(String what, long waitSeconds) {
    ControlRowMerge.Prepared p = await(waitSeconds);
    if (p != null) {
      p.commit();
    } else {
      row.execute(spark, control, what);
    }
  }

  /** Waits for the preparation to end (a failing call: its jobs are the call's); commits nothing. */
  void abandon(long waitSeconds) {
    if (prepared != null) {
      await(waitSeconds);
    }
  }

  private ControlRowMerge.Prepared await(long seconds) {
    try {
      return prepared.get(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (TimeoutException | ExecutionException e) {
      LOG.debug("the position's preparation did not end in {} s: written at its commit", seconds);
      return null;
    }
  }
}
