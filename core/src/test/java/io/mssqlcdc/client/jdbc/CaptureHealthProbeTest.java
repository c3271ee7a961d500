package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CaptureHealth;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe's reading of its four statements' rows (no server): a scheduled capture job, a refused read. */
class CaptureHealthProbeTest {
  private static CaptureHealth probe(List<String[]> jobs, boolean scansRefused) {
    return new CaptureHealthProbe(sql -> {
      if (sql.equals(CdcSql.HEALTH_CLOCK)) {
        return List.<String[]>of(new String[] {"2026-12-04T12:00:00.1234567", "60000", null});
      }
      if (sql.equals(CdcSql.CDC_JOBS)) {
        return jobs;
      }
      if (sql.equals(CdcSql.LOG_SCAN)) {
        if (scansRefused) {
          throw new SQLException("VIEW DATABASE STATE permission denied in database 'db'.", "S0001", 300);
        }
        return List.<String[]>of(new String[] {"2026-12-04T12:00:00", "5000", "2"});
      }
      return List.<String[]>of(new String[] {"0", null, null});
    }, e -> new IllegalStateException(e)).probe();
  }

  @Test
  void aScheduledCaptureJobBetweenItsRunsIsNotReadAsStopped() {
    CaptureHealth continuous = probe(List.of(new String[] {"capture", "0", "0", "1"},
        new String[] {"cleanup", "0", "4320", "0"}), false);
    assertThat(continuous.jobRunning()).contains(false);
    assertThat(continuous.cleanupRetention()).contains(Duration.ofDays(3));
    CaptureHealth scheduled = probe(List.<String[]>of(new String[] {"capture", "0", "0", "0"}), false);
    assertThat(scheduled.jobRunning()).as("its state says nothing between runs; its scans do").isEmpty();
    assertThat(scheduled.lastScanEnd()).contains(Instant.parse("2026-12-04T11:59:55Z"));
    assertThat(scheduled.maxLsnTime()).contains(Instant.parse("2026-12-04T11:59:00.123Z"));
  }

  @Test
  void aRefusedReadIsNamedNotThrown() {
    CaptureHealth h = probe(List.<String[]>of(new String[] {"capture", "1", "0", "1"}), true);
    assertThat(h.jobRunning()).contains(true);
    assertThat(h.lastScanEnd()).isEmpty();
    assertThat(h.unreadable()).containsExactly(
        "sys.dm_cdc_log_scan_sessions: the permission was denied (error 300) (capture's last log scan)");
  }
}
