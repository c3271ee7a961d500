package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated capture and cleanup jobs (issue 30): a stopped or lagging job holds commits back. */
class FakeCaptureJobTest {
  static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
  static final TableRef ORDERS = new TableRef("dbo", "orders");

  @TempDir
  Path dir;

  FakeCdcDatabase db;
  String ci;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir).clock(at(0));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    ci = db.enableCdc("dbo", "orders");
  }

  static Clock at(long seconds) {
    return Clock.fixed(T0.plusSeconds(seconds), ZoneOffset.UTC);
  }

  private List<Lsn> changeLsns(FakeCdcClient client) {
    List<Lsn> out = new ArrayList<>();
    Lsn max = client.maxLsn().orElseThrow();
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, client.minLsn(ci), max, List.of("order_id"), true, 100))) {
      while (c.next()) {
        out.add(c.startLsn());
      }
    }
    return out;
  }

  @Test
  void aStoppedJobHoldsCommitsUntilItStartsAndThenPublishesThemWithTheirCommitTimes() {
    Lsn first = db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new")));
    db.clock(at(60)).stopCapture();
    Lsn held1 = db.clock(at(120)).commit(tx -> tx.insert("dbo.orders", row("order_id", 2, "status", "new")));
    Lsn held2 = db.clock(at(180)).commit(tx -> tx.insert("dbo.orders", row("order_id", 3, "status", "new")));
    try (FakeCdcClient client = FakeCdcClient.open(dir).clock(at(600))) {
      assertThat(held1).isGreaterThan(first);
      assertThat(client.maxLsn()).contains(first); // capture wrote nothing since it stopped
      assertThat(changeLsns(client)).containsExactly(first);
      assertThat(client.countRows(ORDERS)).isEqualTo(3); // the table has them
      CaptureHealth h = client.captureHealth();
      assertThat(h.jobRunning()).contains(false);
      assertThat(h.lastScanEnd()).contains(T0.plusSeconds(60));
      assertThat(h.maxLsnTime()).contains(T0);
      assertThat(h.scanLatencySeconds()).contains(0.0); // the stopped job's last scan was not behind
      assertThat(h.observedAt()).isEqualTo(T0.plusSeconds(600));
      assertThatThrownBy(() -> db.idle()).isInstanceOf(CdcConfigException.class).hasMessageContaining(
          "cannot write an idle mapping entry (capture writes them only when it runs and is idle) while its capture"
              + " job is stopped or behind");
      assertThatThrownBy(() -> db.addColumn("dbo.orders", "note varchar(10)"))
          .isInstanceOf(CdcConfigException.class).hasMessageContaining("cannot apply DDL");
    }
    assertThatThrownBy(() -> db.cleanup(ci, held2)).isInstanceOf(CdcConfigException.class).hasMessageContaining(
        "is past " + held1.hex() + ", the oldest commit capture has not processed yet");
    db.clock(at(900)).startCapture();
    try (FakeCdcClient client = FakeCdcClient.open(dir).clock(at(901))) {
      assertThat(client.maxLsn()).contains(held2);
      assertThat(changeLsns(client)).containsExactly(first, held1, held2);
      assertThat(client.commitTime(held1)).contains(T0.plusSeconds(120)); // its own commit time, not the start's
      assertThat(client.captureHealth().jobRunning()).contains(true);
      assertThat(client.captureHealth().lastScanEnd()).contains(T0.plusSeconds(901));
    }
    Lsn idle = db.clock(at(960)).idle(); // a running, idle job writes idle entries again
    assertThat(idle).isGreaterThan(held2);
  }

  @Test
  void aLaggingJobRunsButPublishesNothingUntilItCatchesUp() {
    Lsn first = db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new")));
    db.lagCapture();
    Lsn held = db.clock(at(100)).commit(tx -> tx.update("dbo.orders", row("order_id", 1, "status", "paid")));
    try (FakeCdcClient client = FakeCdcClient.open(dir).clock(at(500))) {
      assertThat(client.maxLsn()).contains(first);
      CaptureHealth h = client.captureHealth();
      assertThat(h.jobRunning()).contains(true);
      assertThat(h.lastScanEnd()).contains(T0.plusSeconds(500));
      assertThat(h.scanLatencySeconds()).contains(400.0); // the oldest held commit has waited 400 s
    }
    db.catchUpCapture();
    try (FakeCdcClient client = db.client()) {
      assertThat(client.maxLsn()).contains(held);
      assertThat(client.captureHealth().scanLatencySeconds()).contains(0.0);
    }
  }

  @Test
  void cleanupRetentionErrorsAndALeastPrivilegeLogin() {
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new")));
    try (FakeCdcClient client = db.client()) {
      assertThat(client.captureHealth().cleanupRetention()).isEmpty(); // a new fake has no cleanup job
      assertThat(client.captureHealth().recentErrors()).contains(0L);
    }
    db.cleanupRetention(Duration.ofHours(12));
    db.clock(at(30)).captureError("The log scan failed");
    try (FakeCdcClient client = FakeCdcClient.open(dir).clock(at(60))) {
      CaptureHealth h = client.captureHealth();
      assertThat(h.cleanupRetention()).contains(Duration.ofHours(12));
      assertThat(h.recentErrors()).contains(1L);
      assertThat(h.lastError()).contains("The log scan failed");
      assertThat(h.unreadable()).isEmpty();
    }
    try (FakeCdcClient client = FakeCdcClient.open(dir).clock(at(30 + 3601))) {
      assertThat(client.captureHealth().recentErrors()).contains(0L); // older than an hour
    }
    db.cleanupRetention(null);
    db.hideCaptureState(true);
    try (FakeCdcClient client = db.client()) {
      CaptureHealth h = client.captureHealth();
      assertThat(h.maxLsnTime()).contains(T0); // the mapping stays readable
      assertThat(h.jobRunning()).isEmpty();
      assertThat(h.lastScanEnd()).isEmpty();
      assertThat(h.cleanupRetention()).isEmpty();
      assertThat(h.unreadable()).as("as SqlCdcClient reads SQL Server's refusals").containsExactly(
          "msdb.dbo.cdc_jobs: the permission was denied (error 229) (the capture job's state and the cleanup retention)",
          "sys.dm_cdc_log_scan_sessions: the permission was denied (error 300) (capture's last log scan)",
          "sys.dm_cdc_errors: the permission was denied (error 300) (capture's errors)");
    }
    assertThatThrownBy(() -> db.cleanupRetention(Duration.ZERO)).isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: The cleanup retention must be a positive duration, or null for none, not 'PT0S'"
            + " (Duration).");
  }

  @Test
  void theHeldCommitsSurviveAReopen() {
    db.stopCapture();
    Lsn held = db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new")));
    FakeCdcDatabase reopened = FakeCdcDatabase.open(dir);
    try (FakeCdcClient client = reopened.client()) {
      assertThat(client.maxLsn()).isEmpty(); // the only commit is held
      assertThat(client.captureHealth().jobRunning()).contains(false);
    }
    reopened.startCapture();
    try (FakeCdcClient client = reopened.client()) {
      assertThat(client.maxLsn()).contains(held);
    }
  }
}
