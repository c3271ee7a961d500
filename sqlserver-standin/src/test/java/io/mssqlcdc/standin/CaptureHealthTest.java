package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture-health probe through the real mssql-jdbc driver (issue 30): the stand-in answers its four
 * reads from the fake's simulated jobs, and refuses msdb (229) and the DMVs (300) as SQL Server refuses a
 * least-privilege login, which the probe reports instead of failing.
 */
class CaptureHealthTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  SqlCdcClient client;
  Instant stopped;

  @BeforeEach
  void setUp() {
    stopped = Instant.now().minus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
    db = FakeCdcDatabase.create(dir).clock(Clock.fixed(stopped.minusSeconds(60), ZoneOffset.UTC));
    db.createTable("dbo", "orders", "order_id int", "status varchar(10)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1, "status", "new")));
    standIn = SqlServerStandIn.start(dir, StandInOptions.defaults());
    client = StandInClients.open(standIn, "");
  }

  @AfterEach
  void tearDown() {
    client.close();
    standIn.close();
    db.close();
  }

  @Test
  void aStoppedJobIsReadThroughTheDriver() {
    db.clock(Clock.fixed(stopped, ZoneOffset.UTC)).stopCapture();
    db.cleanupRetention(Duration.ofHours(6));
    CaptureHealth h = client.captureHealth();
    assertThat(h.jobRunning()).contains(false);
    assertThat(h.maxLsnTime()).contains(stopped.minusSeconds(60));
    assertThat(h.lastScanEnd()).contains(stopped);
    assertThat(h.scanLatencySeconds()).contains(0.0);
    assertThat(h.cleanupRetention()).contains(Duration.ofHours(6));
    assertThat(h.recentErrors()).contains(0L);
    assertThat(h.unreadable()).isEmpty();
    assertThat(Duration.between(h.observedAt(), Instant.now()).abs()).isLessThan(Duration.ofMinutes(1));
  }

  @Test
  void aLeastPrivilegeLoginGetsTheMappingAndNamesWhatItCannotRead() {
    db.hideCaptureState(true);
    CaptureHealth h = client.captureHealth();
    assertThat(h.maxLsnTime()).contains(stopped.minusSeconds(60));
    assertThat(h.jobRunning()).isEmpty();
    assertThat(h.lastScanEnd()).isEmpty();
    assertThat(h.cleanupRetention()).isEmpty();
    assertThat(h.unreadable()).containsExactly(
        "msdb.dbo.cdc_jobs: the permission was denied (error 229) (the capture job's state and the cleanup retention)",
        "sys.dm_cdc_log_scan_sessions: the permission was denied (error 300) (capture's last log scan)",
        "sys.dm_cdc_errors: the permission was denied (error 300) (capture's errors)");
  }
}
