package io.mssqlcdc.finalization;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.DeltaSink;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.pipeline.StartedStream;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tracking a real stream: fake source → foreachBatch(DeltaSink) → bronze, with the tracker's
 * listener advancing the verdict in a Delta control table after each batch.
 */
@Tag("slow")
@Tag("spark")
class TrackTest {
  private static final Duration WAIT = Duration.ofMinutes(3);

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();
  FakeCdcDatabase db;
  String bronze;
  String control;
  StreamingQuery running;

  @BeforeEach
  void setUp() {
    db = database("db", "UTC");
    bronze = tmp.resolve("bronze").toString();
    control = tmp.resolve("control").toString();
  }

  @AfterEach
  void stopQuery() throws Exception {
    if (running != null && running.isActive()) {
      running.stop();
    }
  }

  private FakeCdcDatabase database(String dir, String zone) {
    FakeCdcDatabase d = FakeCdcDatabase.create(tmp.resolve(dir));
    d.serverTimeZone(zone);
    d.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    d.enableCdc("dbo", "orders");
    return d;
  }

  /** Inserts order {@code id} committed at {@code at} (server-local time). */
  private static Lsn insertAt(FakeCdcDatabase d, int id, String at) {
    return d.commitAt(LocalDateTime.parse(at), tx -> tx.insert("orders", row("order_id", id, "status", "new")));
  }

  private StreamingQuery start(FakeCdcDatabase d, String target, String checkpoint, Trigger trigger, String... options) {
    var r = spark.readStream().format("mssql_cdc").option("backend", "fake").option("fakePath", d.path().toString())
        .option("captureInstance", "dbo_orders");
    for (int i = 0; i < options.length; i += 2) {
      r = r.option(options[i], options[i + 1]);
    }
    DeltaSink sink = DeltaSink.builder().target(target).appId("app-" + Math.abs(target.hashCode())).build();
    try {
      return r.load().writeStream().foreachBatch(sink).trigger(trigger)
          .option("checkpointLocation", tmp.resolve(checkpoint).toString()).start();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  private Row controlRow(String table) {
    List<Row> rows = DeltaTables.read(spark, TableRef.of(control)).where("table_name = '" + table + "'").collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  private boolean listening(FinalizationTracker t) {
    return Arrays.stream(spark.streams().listListeners()).anyMatch(l -> l.toString().contains("run " + t.runId()));
  }

  @Test
  void anAvailableNowRunAdvancesTheVerdictToItsLastBatchThenStops() throws Exception {
    FakeCdcDatabase sp = database("db-sp", "America/Sao_Paulo");
    insertAt(sp, 1, "2026-03-01T07:05:10");
    insertAt(sp, 2, "2026-03-01T07:20:00");
    Lsn last = insertAt(sp, 3, "2026-03-01T08:42:17.123"); // 11:42:17.123 UTC

    StreamingQuery q = start(sp, bronze, "ckpt", Trigger.AvailableNow(), "maxCommitsPerBatch", "1");
    FinalizationTracker t = Finalization.track(spark, q, control, bronze, "hour");
    q.awaitTermination();
    assertThat(t.join(WAIT)).isTrue();

    // The verdict is UTC whatever the server's zone: 11:42 UTC truncated to the hour.
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 11, 0));
    assertThat(t.lastVerdict()).contains(LocalDateTime.of(2026, 3, 1, 11, 0));
    Row r = controlRow(bronze);
    assertThat(r.<String>getAs("end_lsn")).isEqualTo(last.toString());
    assertThat(r.<LocalDateTime>getAs("end_commit_ts")).isEqualTo(LocalDateTime.of(2026, 3, 1, 11, 42, 17, 123_000_000));
    assertThat(Finalization.isFinal(spark, control, bronze, "2026-03-01T08:00:00-03:00")).isTrue();
    assertThat(Finalization.isFinal(spark, control, bronze, "2026-03-01T09:00:00-03:00")).isFalse();
    // Three batches, two periods: at most one MERGE per period.
    assertThat(q.recentProgress()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(t.advances()).isBetween(1L, 2L);
    assertThat(t.failures()).isZero();
    assertThat(t.isStopped()).isTrue();
    assertThat(listening(t)).isFalse();
  }

  @Test
  void idleEntriesAdvanceTheVerdictThroughZeroRowBatches() throws Exception {
    insertAt(db, 1, "2026-03-01T10:05:10");
    StreamingQuery q1 = start(db, bronze, "ckpt", Trigger.AvailableNow());
    FinalizationTracker t1 = Finalization.track(spark, q1, control, bronze, "minute");
    q1.awaitTermination();
    assertThat(t1.join(WAIT)).isTrue();
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 5));
    long bronzeVersion = DeltaTables.version(spark, TableRef.of(bronze));

    // A quiet database: capture writes only idle mapping entries, no change rows.
    db.idleAt(LocalDateTime.parse("2026-03-01T10:09:00"));
    Lsn idle = db.idleAt(LocalDateTime.parse("2026-03-01T10:12:40"));
    StreamingQuery q2 = start(db, bronze, "ckpt", Trigger.AvailableNow()); // the same checkpoint: a new run
    FinalizationTracker t2 = Finalization.track(spark, q2, control, bronze, "minute");
    q2.awaitTermination();
    assertThat(t2.join(WAIT)).isTrue();

    assertThat(q2.lastProgress().numInputRows()).isZero();
    assertThat(DeltaTables.version(spark, TableRef.of(bronze))).isEqualTo(bronzeVersion); // no bronze commit
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 12));
    assertThat(controlRow(bronze).<String>getAs("end_lsn")).isEqualTo(idle.toString());
    assertThat(t2.runId()).isNotEqualTo(t1.runId());
    assertThat(q2.id()).isEqualTo(q1.id());
  }

  @Test
  void aLiveProcessingTimeQueryIsFollowedAndTheTrackerStopsWithIt() throws Exception {
    insertAt(db, 1, "2026-03-01T10:00:30");
    running = start(db, bronze, "ckpt", Trigger.ProcessingTime(200));
    FinalizationTracker t = Finalization.track(spark, running, control, bronze, "minute");
    for (int minute = 1; minute <= 4; minute++) {
      insertAt(db, 100 + minute, String.format("2026-03-01T10:%02d:30", minute));
      running.processAllAvailable();
      LocalDateTime expected = LocalDateTime.of(2026, 3, 1, 10, minute);
      assertThat(t.awaitVerdict(expected, WAIT)).as("verdict reaches %s", expected).isTrue();
      assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(expected);
    }
    assertThat(t.failures()).isZero();
    assertThat(listening(t)).isTrue();

    running.stop();
    assertThat(t.join(WAIT)).isTrue();
    assertThat(t.isStopped()).isTrue();
    assertThat(listening(t)).isFalse();
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 4));
  }

  @Test
  void twoTrackersShareOneControlTableAndAnUntrackedQueryLeavesNoVerdict() throws Exception {
    // Three sources (max_lsn is database-wide, so one database each), two tracked into one control
    // table at the same time, one batch per commit: concurrent MERGEs from two workers.
    FakeCdcDatabase other = database("db-other", "UTC");
    FakeCdcDatabase untrackedDb = database("db-untracked", "UTC");
    for (int i = 0; i < 4; i++) {
      insertAt(db, i, String.format("2026-03-01T10:%02d:10", i));
      insertAt(other, i, String.format("2026-03-01T11:%02d:40", 10 * i));
    }
    insertAt(untrackedDb, 1, "2026-03-01T12:30:00");
    String otherBronze = tmp.resolve("bronze-other").toString();
    String untrackedBronze = tmp.resolve("bronze-untracked").toString();
    StreamingQuery q1 = start(db, bronze, "ckpt", Trigger.AvailableNow(), "maxCommitsPerBatch", "1");
    StreamingQuery q2 = start(other, otherBronze, "ckpt-other", Trigger.AvailableNow(), "maxCommitsPerBatch", "1");
    StreamingQuery q3 = start(untrackedDb, untrackedBronze, "ckpt-untracked", Trigger.AvailableNow());
    FinalizationTracker t1 = Finalization.track(spark, q1, control, bronze, "minute");
    FinalizationTracker t2 = Finalization.track(spark, q2, control, otherBronze, "minute");
    q1.awaitTermination();
    q2.awaitTermination();
    q3.awaitTermination();
    assertThat(t1.join(WAIT)).isTrue();
    assertThat(t2.join(WAIT)).isTrue();

    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 3));
    assertThat(Finalization.finalizedUntil(spark, control, otherBronze)).contains(LocalDateTime.of(2026, 3, 1, 11, 30));
    assertThat(DeltaTables.read(spark, TableRef.of(control)).count()).isEqualTo(2);
    assertThat(t1.failures() + t2.failures()).isZero();
    // At every version of the control table, neither verdict is older than at the one before.
    TableRef ref = TableRef.of(control);
    java.util.Map<String, LocalDateTime> seen = new java.util.HashMap<>();
    for (long v = 0; v <= DeltaTables.version(spark, ref); v++) {
      for (Row r : DeltaTables.readVersion(spark, ref, v).collectAsList()) {
        LocalDateTime fu = r.getAs("finalized_until");
        LocalDateTime before = seen.put(r.getAs("table_name"), fu);
        assertThat(before == null || !fu.isBefore(before)).as("%s at version %d", r.getAs("table_name"), v).isTrue();
      }
    }
  }

  @Test
  void aQueryThatStoppedBeforeTrackingStartedStillHasItsLastProgressApplied() throws Exception {
    insertAt(db, 1, "2026-03-01T10:05:10");
    StreamingQuery q = start(db, bronze, "ckpt", Trigger.AvailableNow());
    q.awaitTermination();
    FinalizationTracker t = Finalization.track(spark, q, control, bronze, "minute");
    assertThat(t.join(WAIT)).isTrue();
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 5));
    assertThat(listening(t)).isFalse();
  }

  @Test
  void aFailedAdvanceIsCountedAndRetriedWhenTheQueryReportsIdle() throws Exception {
    String named = "control_" + Math.abs(tmp.hashCode());
    control = named;
    insertAt(db, 1, "2026-03-01T10:00:30");
    running = start(db, bronze, "ckpt", Trigger.ProcessingTime(200));
    FinalizationTracker t = Finalization.track(spark, running, named, bronze, "minute");
    assertThat(t.awaitVerdict(LocalDateTime.of(2026, 3, 1, 10, 0), WAIT)).isTrue();
    long before = t.attempts();

    spark.sql("DROP TABLE " + named); // e.g. dropped by mistake while the stream runs
    insertAt(db, 2, "2026-03-01T10:01:30");
    running.processAllAvailable();
    assertThat(t.awaitAttempts(before + 1, WAIT)).isTrue();
    assertThat(t.failures()).isEqualTo(1);
    assertThat(t.lastError()).get().asString().contains("MSSQL_CDC-762");

    // No batch runs now; the query's next idle report (about 10 s later) retries: the table is created again.
    assertThat(t.awaitAttempts(before + 2, WAIT)).isTrue();
    assertThat(t.failures()).isZero();
    assertThat(t.lastError()).isEmpty();
    assertThat(Finalization.finalizedUntil(spark, named, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 1));

    insertAt(db, 3, "2026-03-01T10:02:30"); // and the next batch advances it as usual
    running.processAllAvailable();
    assertThat(t.awaitVerdict(LocalDateTime.of(2026, 3, 1, 10, 2), WAIT)).isTrue();
    assertThat(t.failures()).isZero();
  }

  @Test
  void theAttachmentTracksEachStreamUnderItsTarget() throws Exception {
    insertAt(db, 1, "2026-03-01T10:05:10");
    TrackingAttachment tracking = Finalization.tracking(control, "minute");
    StreamingQuery q = start(db, bronze, "ckpt", Trigger.AvailableNow());
    tracking.attach(spark, q, new StartedStream(bronze, "orders", "orders", 0, "dbo_orders", Optional.empty()));
    q.awaitTermination();
    assertThat(tracking.joinAll(WAIT)).isTrue();
    assertThat(tracking.trackers()).hasSize(1);
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 5));
    assertThatThrownBy(() -> Finalization.tracking(control, "second")).hasMessageContaining("MSSQL_CDC-760");
    assertThatThrownBy(() -> Finalization.tracking(null)).hasMessageContaining("MSSQL_CDC-765");
    assertThatThrownBy(() -> Finalization.track(spark, null, control, bronze, "hour"))
        .hasMessageStartingWith("MSSQL_CDC-765: query must be a started StreamingQuery (the stream writing " + bronze);
  }
}
