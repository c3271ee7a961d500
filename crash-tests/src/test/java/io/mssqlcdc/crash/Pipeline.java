package io.mssqlcdc.crash;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.TrackingAttachment;
import io.mssqlcdc.reconcile.Reconcile;
import io.mssqlcdc.silver.ApplyChanges;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * The real pipeline over one fake database, every table under one directory: {@code CdcStream} with
 * bootstrap and {@code onDataLoss=resnapshot} into bronze and facts, tracked by finalization into
 * the control table; {@code ApplyChanges} into silver; {@code Reconcile} of silver against the fake.
 * One shared SparkSession (the sink tests' one, a JVM's).
 */
final class Pipeline {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  final FakeCdcDatabase db;
  final String bronze;
  final String facts;
  final String control;
  final String silver;
  final String history;
  final String report;
  final String checkpoint;
  final TrackingAttachment tracking;

  Pipeline(Path dir) {
    this(dir, false);
  }

  /** @param existing the tables and database a killed JVM left in {@code dir} (opened, not created) */
  Pipeline(Path dir, boolean existing) {
    this.db = existing ? FakeCdcDatabase.open(dir.resolve("db")) : FakeCdcDatabase.create(dir.resolve("db"));
    this.bronze = dir.resolve("bronze").toString();
    this.facts = dir.resolve("facts").toString();
    this.control = dir.resolve("control").toString();
    this.silver = dir.resolve("silver").toString();
    this.history = dir.resolve("history").toString();
    this.report = dir.resolve("report").toString();
    this.checkpoint = dir.resolve("ckpt").toString();
    this.tracking = Finalization.tracking(control, "minute");
  }

  Map<String, String> options() {
    return Map.of("backend", "fake", "fakePath", db.path().toString(), "captureInstance", History.CAPTURE_INSTANCE);
  }

  /**
   * The stream, AvailableNow, up to {@code maxCommitsPerBatch} commits a micro-batch; {@code chunked}: its bootstrap
   * is a chunked snapshot (the open row at S; the rows come from {@link #backfill} waves).
   */
  StreamingQuery startStream(int maxCommitsPerBatch, boolean chunked) {
    return builder(chunked).option("maxCommitsPerBatch", Integer.toString(maxCommitsPerBatch)).attach(tracking)
        .toDelta();
  }

  /**
   * The stream as a running query (a 200 ms processing-time trigger) that the case drives with
   * {@code processAllAvailable()} and stops: the capture-instance switch is then made while it runs.
   */
  StreamingQuery startRunning(int maxCommitsPerBatch, boolean chunked) {
    return builder(chunked).trigger(org.apache.spark.sql.streaming.Trigger.ProcessingTime(200))
        .option("maxCommitsPerBatch", Integer.toString(maxCommitsPerBatch)).attach(tracking).toDelta();
  }

  private CdcStream.Builder builder(boolean chunked) {
    CdcStream.Builder b = CdcStream.builder(SPARK).options(options()).target(bronze).appId("orders")
        .checkpoint(checkpoint).factsTable(facts).trigger("availableNow").bootstrap(true).onDataLoss("resnapshot")
        .resnapshotIntervalDays(0);
    return chunked ? b.snapshot("chunked").option("numPartitions", "2") : b;
  }

  /** A backfill call of the chunked bootstrap: chunks of {@code chunkRows}, at most {@code maxWaves} (0: all). */
  io.mssqlcdc.sink.pipeline.BackfillStatus backfill(long chunkRows, int maxWaves) {
    io.mssqlcdc.sink.pipeline.Backfill b = builder(true).backfill().chunkRows(chunkRows).targetWaveSeconds(0);
    return (maxWaves > 0 ? b.maxWaves(maxWaves) : b).run();
  }

  /** Waits for the finalization trackers of the queries started so far. */
  void awaitTracking() {
    if (!tracking.joinAll(Duration.ofMinutes(3))) {
      throw new AssertionError("the finalization tracker did not finish within 3 minutes");
    }
  }

  ApplyChanges.Builder apply() {
    return ApplyChanges.builder(SPARK).bronze(bronze).target(silver).captureInstance(History.CAPTURE_INSTANCE)
        .controlTable(control).factsTable(facts).options(options()).granularity("minute");
  }

  /** The SCD type 2 history beside silver (issue 31), with tombstones. */
  io.mssqlcdc.silver.ApplyHistory.Builder history() {
    return io.mssqlcdc.silver.ApplyHistory.builder(SPARK).bronze(bronze).target(history)
        .captureInstance(History.CAPTURE_INSTANCE).controlTable(control).factsTable(facts).options(options())
        .granularity("minute").storeDeletes(true);
  }

    Reconcile.Builder reconcile() {
    return Reconcile.builder(SPARK).options(options()).silver(silver).bronze(bronze).controlTable(control)
        .factsTable(facts).reportTable(report).sample(0).seed(7);
  }
}
