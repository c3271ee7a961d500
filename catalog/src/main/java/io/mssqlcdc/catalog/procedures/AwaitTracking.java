package io.mssqlcdc.catalog.procedures;

import io.mssqlcdc.errors.CatalogErrors;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.FinalizationTracker;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code await_tracking}: waits until a stream started with {@code controlTable} has ended and its tracking
 * has written its last verdict ({@code TrackingAttachment.joinAll} on the server), then reads the verdict.
 * What a Spark Connect client runs after an {@code availableNow} stream before it gates on
 * {@code finalized_until}: the tracking writes after each batch on a thread of its own, so the query's end
 * alone does not say the verdict is written.
 */
final class AwaitTracking extends CdcProcedure {
  AwaitTracking(CatalogContext context) {
    super(context);
  }

  @Override
  public String name() {
    return "await_tracking";
  }

  @Override
  public String description() {
    return "Waits until a stream `start_stream` or `start_many` started with `controlTable` has ended and its"
        + " finalization tracking has written its last verdict (TrackingAttachment.joinAll on the server), then"
        + " returns bronze's verdict: what a client runs after an `availableNow` stream before it gates on"
        + " `finalized_until`.";
  }

  @Override
  List<Param> params() {
    return List.of(
        Param.required("queryId", DataTypes.StringType,
            "The `query_id` `start_stream` or `start_many` returned, on this server since it started."),
        Param.optional("timeoutSeconds", DataTypes.DoubleType, "600", "`600`",
            "How long to wait at most, in seconds; a continuous stream never ends, so the call returns"
                + " `done = false` then."));
  }

  @Override
  List<Column> columns() {
    return List.of(
        column("done", BOOLEAN, "Whether the stream ended and its tracking wrote its last verdict in time."),
        column("table_name", STRING, "The bronze table whose verdict it is, as `start_stream`'s `bronze` (with"
            + " `{ci}` replaced for `start_many`)."),
        column("finalized_until", TIMESTAMP_NTZ, "Bronze's verdict in the control table (UTC) after the wait;"
            + " NULL when it has none."),
        column("tracking_error", STRING, "The last failed verdict write of the tracking, if it has not succeeded"
            + " since; NULL otherwise."));
  }

  @Override
  List<Object[]> run(SparkSession spark, Args a) {
    String id = a.string("queryId");
    TrackedStreams.Entry e = TrackedStreams.find(id).orElseThrow(() -> CatalogErrors.invalidArgument(name(),
        "queryId", id, "the query_id of a stream this server started with controlTable (start_stream or"
            + " start_many) since it started"));
    Double seconds = a.doubleValue("timeoutSeconds");
    double timeout = seconds == null ? 600 : seconds;
    if (!(timeout >= 0) || Double.isInfinite(timeout)) {
      throw CatalogErrors.invalidArgument(name(), "timeoutSeconds", String.valueOf(seconds),
          "a number of seconds, 0 or more");
    }
    long end = System.nanoTime() + (long) (timeout * 1e9);
    boolean done = true;
    Optional<Throwable> error = Optional.empty();
    for (FinalizationTracker t : e.tracking().trackers()) {
      if (!t.tableName().equals(e.target())) {
        continue;
      }
      done &= t.join(Duration.ofNanos(Math.max(1_000_000, end - System.nanoTime())));
      if (t.lastError().isPresent()) {
        error = t.lastError();
      }
    }
    return List.<Object[]>of(new Object[] {done, e.target(),
        Finalization.finalizedUntil(spark, e.tracking().controlTable(), e.target()).orElse(null),
        error.map(Throwable::getMessage).orElse(null)});
  }
}
