package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.CaptureHealthRules;
import io.mssqlcdc.client.CaptureHealthRules.State;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The capture-health probe's statements ({@code CdcSql.HEALTH_CLOCK}, {@code CDC_JOBS}, {@code LOG_SCAN},
 * {@code CDC_ERRORS}) on a real SQL Server (issue 30): a running capture job reads as running with its
 * scans and the cleanup retention; a stopped one reads as stopped while commits wait in the log; a
 * least-privilege login reads what it may and names the rest, without an error.
 */
class CaptureHealthIT {
  private static final CaptureHealthRules RULES =
      new CaptureHealthRules(Duration.ofSeconds(30), Duration.ofSeconds(300), Duration.ofHours(24));

  @Test
  void runningStoppedAndRestartedCaptureJob() {
    ItServer server = ItServer.get();
    String table = ItTables.unique("health");
    try (SqlServerContractHistory history = new SqlServerContractHistory(server)) {
      String ci = history.createTrackedTable(table);
      Lsn first = history.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      CdcClient client = history.client();

      CaptureHealth running = client.captureHealth();
      assertThat(running.unreadable()).as("a sysadmin reads every source").isEmpty();
      assertThat(running.jobRunning()).contains(true);
      assertThat(running.lastScanEnd()).isPresent();
      assertThat(running.lastScanAgeSeconds()).hasValueSatisfying(age -> assertThat(age).isBetween(-5.0, 30.0));
      assertThat(running.maxLsnTime()).isPresent();
      assertThat(running.cleanupRetention()).as("sp_cdc_enable_db's cleanup job: 4320 minutes unless changed")
          .hasValueSatisfying(r -> assertThat(r).isPositive());
      assertThat(running.recentErrors()).contains(0L);
      assertThat(running.observedAt()).isBetween(Instant.now().minusSeconds(300), Instant.now().plusSeconds(300));
      assertThat(RULES.judge(running, client.commitTime(first)).state()).isEqualTo(State.RUNNING);

      server.exec("EXEC sys.sp_cdc_stop_job @job_type = N'capture'");
      try {
        await("the probe sees the capture job stopped").atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(500))
            .until(() -> client.captureHealth().jobRunning().equals(Optional.of(false)));
        Lsn maxBefore = client.maxLsn().orElseThrow();
        server.exec("UPDATE dbo.[" + table + "] SET name = N'held' WHERE id = 1");
        CaptureHealth stopped = client.captureHealth();
        CaptureHealthRules.Verdict verdict = RULES.judge(stopped, client.commitTime(first));
        assertThat(verdict.state()).isEqualTo(State.STOPPED);
        assertThat(verdict.events()).extracting(CaptureHealthRules.Event::name)
            .contains(CaptureHealthRules.CAPTURE_STOPPED);
        assertThat(verdict.events().get(0).detail()).startsWith("the capture job is not running")
            .endsWith("EXEC sys.sp_cdc_start_job @job_type = N'capture'");
        assertThat(client.maxLsn()).as("the commit made while capture is stopped is not in the change log")
            .contains(maxBefore);
      } finally {
        server.exec("EXEC sys.sp_cdc_start_job @job_type = N'capture'");
      }
      await("capture runs again and writes the held commit").atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> client.captureHealth().jobRunning().equals(Optional.of(true))
              && "held".equals(server.scalar("SELECT TOP (1) name FROM cdc.[" + ci + "_CT] WHERE __$operation = 4 ORDER BY __$start_lsn DESC")));
      assertThat(RULES.judge(client.captureHealth(), client.commitTime(first)).state()).isEqualTo(State.RUNNING);
    }
  }

  @Test
  void leastPrivilegeLoginNamesWhatItCannotRead() {
    ItServer server = ItServer.get();
    String table = ItTables.unique("healthpriv");
    try (SqlServerContractHistory admin = new SqlServerContractHistory(server)) {
      String ci = admin.createTrackedTable(table);
      admin.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      ItServer.Login login = server.tableReader("cdc_health", table);
      String password = login.password();
      try (SqlCdcClient reader = SqlCdcClient.open(CdcReaderOptions.parse(
          Map.of("captureInstance", ci, "connectionString", login.url()), CdcReaderOptions.Reader.STREAM))) {
        CaptureHealth h = reader.captureHealth();
        assertThat(h.maxLsnTime()).as("cdc.lsn_time_mapping is readable by any user of a CDC database").isPresent();
        assertThat(h.jobRunning()).isEmpty();
        assertThat(h.lastScanEnd()).isEmpty();
        assertThat(h.recentErrors()).isEmpty();
        assertThat(h.cleanupRetention()).isEmpty();
        // msdb refuses with 229 (SELECT denied, the login maps to msdb's guest), the views with 300 (VIEW
        // DATABASE STATE); the number is SQL Server's, the wording the probe's own
        assertThat(h.unreadable()).hasSize(3).satisfiesExactlyInAnyOrder(
            e -> assertThat(e).startsWith("msdb.dbo.cdc_jobs: the permission was denied (error ")
                .endsWith(") (the capture job's state and the cleanup retention)"),
            e -> assertThat(e).startsWith("sys.dm_cdc_log_scan_sessions: the permission was denied (error ")
                .endsWith(") (capture's last log scan)"),
            e -> assertThat(e).startsWith("sys.dm_cdc_errors: the permission was denied (error ")
                .endsWith(") (capture's errors)"));
        assertThat(String.join("\n", h.unreadable())).doesNotContain(password);
        assertThat(RULES.judge(h, Optional.empty()).state()).as("a fresh mapping entry: no evidence against capture")
            .isEqualTo(State.RUNNING);
      }
    }
  }
}
