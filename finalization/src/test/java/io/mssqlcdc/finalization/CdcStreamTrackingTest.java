package io.mssqlcdc.finalization;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.pipeline.CdcStream;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CdcStream tracking on its own when asked: {@code attach(Finalization.tracking(control, granularity))}. */
@Tag("spark")
class CdcStreamTrackingTest {
  private static final Duration WAIT = Duration.ofMinutes(3);

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();
  FakeCdcDatabase db;
  String control;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    for (String t : List.of("orders", "customers")) {
      db.createTable("dbo", t, "id int", "name varchar(20)").key("id");
      db.enableCdc("dbo", t);
    }
    control = tmp.resolve("control").toString();
  }

  private Lsn insertAt(String table, int id, String at) {
    return db.commitAt(LocalDateTime.parse(at), tx -> tx.insert(table, row("id", id, "name", "n" + id)));
  }

  private CdcStream.Builder builder(TrackingAttachment tracking) {
    return CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .trigger("availableNow").attach(tracking);
  }

  @Test
  void aBootstrappedStreamAndItsRestartMoveTheTargetsVerdict() throws Exception {
    String bronze = tmp.resolve("bronze").toString();
    insertAt("orders", 1, "2026-03-01T10:05:10");
    insertAt("orders", 2, "2026-03-01T10:20:00");
    TrackingAttachment tracking = Finalization.tracking(control, "minute");
    StreamingQuery q = builder(tracking).option("captureInstance", "dbo_orders").target(bronze).appId("orders")
        .checkpoint(tmp.resolve("ckpt").toString()).bootstrap(true).toDelta();
    q.awaitTermination();
    assertThat(tracking.joinAll(WAIT)).isTrue();
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 20));

    // The next run (a new query run, a new tracker) reads a commit and then only an idle entry.
    insertAt("orders", 3, "2026-03-01T10:31:00");
    Lsn idle = db.idleAt(LocalDateTime.parse("2026-03-01T10:36:30"));
    StreamingQuery q2 = builder(tracking).option("captureInstance", "dbo_orders").target(bronze).appId("orders")
        .checkpoint(tmp.resolve("ckpt").toString()).toDelta();
    q2.awaitTermination();
    assertThat(tracking.joinAll(WAIT)).isTrue();
    assertThat(tracking.trackers()).hasSize(2);
    assertThat(tracking.trackers().get(1).runId()).isEqualTo(q2.runId());
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 36));
    Row r = DeltaTables.read(spark, TableRef.of(control)).first();
    assertThat(r.<String>getAs("end_lsn")).isEqualTo(idle.toString());
  }

  /**
   * Issue 30 item 3: a stopped capture job holds commits back from the change tables and the mapping (they
   * appear later with their own, older commit times), so the verdict must not pass the last entry capture
   * wrote. It moves on quiet databases only through idle entries, which a stopped job does not write.
   */
  @Test
  void noPeriodIsFinalWhileCaptureIsStoppedAndHoldsCommits() throws Exception {
    String bronze = tmp.resolve("bronze").toString();
    insertAt("orders", 1, "2026-03-01T10:05:10");
    insertAt("orders", 2, "2026-03-01T10:20:00");
    TrackingAttachment tracking = Finalization.tracking(control, "minute");
    runOrders(tracking, bronze, true);
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 20));

    db.stopCapture();
    insertAt("orders", 3, "2026-03-01T10:31:00"); // committed, not captured
    insertAt("orders", 4, "2026-03-01T10:40:00");
    runOrders(tracking, bronze, false);
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).as("held at the last captured commit")
        .contains(LocalDateTime.of(2026, 3, 1, 10, 20));

    db.startCapture(); // the held commits appear with their own times, inside periods after the verdict
    runOrders(tracking, bronze, false);
    assertThat(Finalization.finalizedUntil(spark, control, bronze)).contains(LocalDateTime.of(2026, 3, 1, 10, 40));
    assertThat(DeltaTables.read(spark, TableRef.of(bronze)).where("id IN (3, 4)").count()).isEqualTo(2);
  }

  /** One availableNow run of dbo_orders into {@code bronze} on the shared checkpoint, its tracking joined. */
  private void runOrders(TrackingAttachment tracking, String bronze, boolean bootstrap) throws Exception {
    CdcStream.Builder b = builder(tracking).option("captureInstance", "dbo_orders").target(bronze).appId("orders")
        .checkpoint(tmp.resolve("ckpt").toString());
    (bootstrap ? b.bootstrap(true) : b).toDelta().awaitTermination();
    assertThat(tracking.joinAll(WAIT)).isTrue();
  }

  @Test
  void aFanOutKeepsOneVerdictPerTarget() throws Exception {
    insertAt("orders", 1, "2026-03-01T10:05:10");
    insertAt("customers", 1, "2026-03-01T10:09:59");
    TrackingAttachment tracking = Finalization.tracking(control, "minute");
    Map<String, StreamingQuery> started = builder(tracking).target(tmp.resolve("bronze_{ci}").toString())
        .appId("app_{ci}").checkpoint(tmp.resolve("ckpt/{ci}").toString())
        .startMany(List.of("dbo_orders", "dbo_customers"));
    for (StreamingQuery q : started.values()) {
      q.awaitTermination();
    }
    assertThat(tracking.joinAll(WAIT)).isTrue();
    assertThat(tracking.trackers()).hasSize(2);
    // max_lsn is database-wide: both streams end at the database's last commit.
    for (String ci : List.of("dbo_orders", "dbo_customers")) {
      assertThat(Finalization.finalizedUntil(spark, control, tmp.resolve("bronze_" + ci).toString()))
          .contains(LocalDateTime.of(2026, 3, 1, 10, 9));
    }
    assertThat(DeltaTables.read(spark, TableRef.of(control)).count()).isEqualTo(2);
  }
}
