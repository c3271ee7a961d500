package io.mssqlcdc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureHealthRules.Event;
import io.mssqlcdc.client.CaptureHealthRules.State;
import io.mssqlcdc.client.CaptureHealthRules.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CaptureHealthRulesTest {
  static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
  final CaptureHealthRules rules =
      new CaptureHealthRules(Duration.ofMinutes(15), Duration.ofMinutes(5), Duration.ofHours(24));

  static CaptureHealth health(Optional<Instant> maxLsnTime, Optional<Boolean> running, Optional<Instant> scanEnd,
      Optional<Double> latency, Optional<Duration> retention, List<String> unreadable) {
    return new CaptureHealth(NOW, maxLsnTime, running, scanEnd, latency, Optional.of(0L), Optional.empty(), retention,
        unreadable);
  }

  @Test
  void aQuietDatabaseWithARunningJobRaisesNothing() {
    // no commit for two hours, but the job runs and scanned a second ago
    Verdict v = rules.judge(health(Optional.of(NOW.minusSeconds(7200)), Optional.of(true),
        Optional.of(NOW.minusSeconds(1)), Optional.of(0.0), Optional.of(Duration.ofDays(3)), List.of()),
        Optional.of(NOW.minusSeconds(7200)));
    assertThat(v.state()).isEqualTo(State.RUNNING);
    assertThat(v.events()).isEmpty();
    assertThat(v.jobRunning()).contains(true);
    assertThat(v.retentionHeadroomSeconds()).contains(3 * 86400.0 - 7200);
  }

  @Test
  void aStoppedJobIsStoppedSinceItsLastScan() {
    Verdict v = rules.judge(health(Optional.of(NOW.minusSeconds(600)), Optional.of(false),
        Optional.of(NOW.minusSeconds(120)), Optional.of(0.0), Optional.empty(), List.of()), Optional.empty());
    assertThat(v.state()).isEqualTo(State.STOPPED);
    assertThat(v.stoppedForSeconds()).contains(120.0);
    assertThat(v.jobRunning()).contains(false);
    assertThat(v.events()).containsExactly(new Event("capture_stopped", "the capture job is not running (threshold"
        + " 900 s): start SQL Server Agent and EXEC sys.sp_cdc_start_job @job_type = N'capture'"));
  }

  @Test
  void anOldScanMeansStoppedWhenTheJobStateIsUnreadable() {
    Verdict v = rules.judge(health(Optional.of(NOW.minusSeconds(3600)), Optional.empty(),
        Optional.of(NOW.minusSeconds(1000)), Optional.of(0.0), Optional.empty(), List.of("msdb.dbo.cdc_jobs: denied")),
        Optional.empty());
    assertThat(v.state()).isEqualTo(State.STOPPED);
    assertThat(v.events()).extracting(Event::detail).containsExactly("the capture job's last log scan ended 1000 s ago"
        + " (threshold 900 s): start SQL Server Agent and EXEC sys.sp_cdc_start_job @job_type = N'capture'");
    // a recent scan with the job unreadable: running
    assertThat(rules.judge(health(Optional.of(NOW.minusSeconds(3600)), Optional.empty(), Optional.of(NOW.minusSeconds(5)),
        Optional.of(0.0), Optional.empty(), List.of()), Optional.empty()).state()).isEqualTo(State.RUNNING);
  }

  @Test
  void aLeastPrivilegeLoginJudgesByTheMappingAlone() {
    List<String> unreadable = List.of("msdb.dbo.cdc_jobs: denied", "sys.dm_cdc_log_scan_sessions: denied");
    Verdict stale = rules.judge(health(Optional.of(NOW.minusSeconds(901)), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), unreadable), Optional.empty());
    assertThat(stale.state()).isEqualTo(State.STOPPED);
    assertThat(stale.events().get(0).detail()).isEqualTo("the newest cdc.lsn_time_mapping entry is 901 s old and the"
        + " login cannot read the capture job's state (msdb.dbo.cdc_jobs: denied; sys.dm_cdc_log_scan_sessions: denied)"
        + " (threshold 900 s): start SQL Server Agent and EXEC sys.sp_cdc_start_job @job_type = N'capture'");
    assertThat(stale.captureLagSeconds()).contains(901.0);
    Verdict fresh = rules.judge(health(Optional.of(NOW.minusSeconds(60)), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), unreadable), Optional.empty());
    assertThat(fresh.state()).isEqualTo(State.RUNNING);
    assertThat(fresh.jobRunning()).contains(true);
    Verdict never = rules.judge(health(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), unreadable), Optional.empty());
    assertThat(never.state()).isEqualTo(State.UNKNOWN);
    assertThat(never.jobRunning()).isEmpty();
    assertThat(never.events()).isEmpty();
  }

  @Test
  void aRunningJobBehindTheLogIsLagging() {
    Verdict v = rules.judge(health(Optional.of(NOW.minusSeconds(400)), Optional.of(true), Optional.of(NOW),
        Optional.of(400.0), Optional.empty(), List.of()), Optional.empty());
    assertThat(v.state()).isEqualTo(State.LAGGING);
    assertThat(v.captureLagSeconds()).contains(400.0);
    assertThat(v.events()).containsExactly(new Event("capture_lagging",
        "the capture job's last log scan was 400 s behind the log (threshold 300 s)"));
  }

  @Test
  void aPositionCloseToCleanupIsAtRisk() {
    // retention 3 days, the stream's position 2.5 days old: 12 h left, threshold 24 h
    Verdict v = rules.judge(health(Optional.of(NOW), Optional.of(true), Optional.of(NOW), Optional.of(0.0),
        Optional.of(Duration.ofDays(3)), List.of()), Optional.of(NOW.minus(Duration.ofHours(60))));
    assertThat(v.retentionHeadroomSeconds()).contains(12 * 3600.0);
    assertThat(v.events()).containsExactly(new Event("retention_at_risk", "cleanup (retention 4320 min) removes the"
        + " stream's position in 43200 s (threshold 86400 s): the stream must catch up, or the retention grow"));
  }

  @Test
  void thresholdsMustBePositive() {
    assertThatThrownBy(() -> new CaptureHealthRules(Duration.ZERO, Duration.ofMinutes(5), Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("stoppedAfter must be a positive duration, got PT0S");
  }
}
