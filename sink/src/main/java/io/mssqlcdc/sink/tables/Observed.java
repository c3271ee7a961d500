package io.mssqlcdc.sink.tables;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;

/**
 * Waiting for a Spark {@link Observation}: Spark completes it when the execution that ran its plan
 * ends, through the listener bus, so it can complete a moment after the action returned; an
 * execution that did not run the plan (or failed) never completes it.
 */
public final class Observed {
  private Observed() {}

  /** The observation's row once complete, waiting at most {@code seconds}; empty when not complete by then. */
  public static Optional<Row> within(Observation o, long seconds) throws InterruptedException {
    scala.concurrent.Future<Row> f = o.future();
    if (!f.isCompleted()) {
      try {
        scala.concurrent.Await.ready(f, scala.concurrent.duration.Duration.create(seconds, TimeUnit.SECONDS));
      } catch (java.util.concurrent.TimeoutException e) {
        return Optional.empty();
      }
    }
    return Optional.of(o.getRow());
  }
}
