package io.mssqlcdc.client;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What {@link CdcClient#captureHealth()} read about SQL Server's capture process at one moment: the
 * probe that tells a quiet database from a dead capture job (issue 30). Every figure is optional: a
 * least-privilege login cannot read {@code msdb} or the dynamic management views, and what it could
 * not read is named in {@link #unreadable}, never an error.
 *
 * @param observedAt the server clock when the probe ran (UTC)
 * @param maxLsnTime commit time (UTC) of {@code sys.fn_cdc_get_max_lsn()}'s mapping entry: the newest
 *     commit or idle entry capture wrote; empty when capture never ran
 * @param jobRunning whether the database's capture job is running ({@code msdb.dbo.cdc_jobs} joined
 *     with {@code msdb.dbo.sysjobactivity}); empty when not readable
 * @param lastScanEnd end (UTC) of capture's latest log scan session ({@code
 *     sys.dm_cdc_log_scan_sessions}): a running capture job scans every few seconds even when the
 *     database is quiet; empty when not readable or never scanned
 * @param scanLatencySeconds that session's {@code latency}: seconds between its end and the commit
 *     time of the last transaction it captured (how far capture is behind the log); empty when not
 *     readable
 * @param recentErrors rows of {@code sys.dm_cdc_errors} in the hour before {@link #observedAt};
 *     empty when not readable
 * @param lastError the message of the newest of those errors, if any
 * @param cleanupRetention the cleanup job's {@code retention} ({@code msdb.dbo.cdc_jobs}); empty when
 *     not readable or no cleanup job exists
 * @param unreadable what the login could not read, each as {@code "<object>: <reason>"}
 */
public record CaptureHealth(
    Instant observedAt,
    Optional<Instant> maxLsnTime,
    Optional<Boolean> jobRunning,
    Optional<Instant> lastScanEnd,
    Optional<Double> scanLatencySeconds,
    Optional<Long> recentErrors,
    Optional<String> lastError,
    Optional<Duration> cleanupRetention,
    List<String> unreadable) {

  public CaptureHealth {
    unreadable = List.copyOf(unreadable);
  }

  /**
   * The probe's optional reads, as {@link #unreadable} names a refused one: both clients phrase it here, so
   * the fake's least-privilege login reads as SQL Server's does.
   */
  public enum Source {
    CDC_JOBS("msdb.dbo.cdc_jobs", "the capture job's state and the cleanup retention"),
    LOG_SCAN("sys.dm_cdc_log_scan_sessions", "capture's last log scan"),
    CDC_ERRORS("sys.dm_cdc_errors", "capture's errors");

    private final String object;
    private final String what;

    Source(String object, String what) {
      this.object = object;
      this.what = what;
    }

    /** The {@link #unreadable} entry of this read, refused for {@code reason}. */
    public String unreadable(String reason) {
      return object + ": " + reason + " (" + what + ")";
    }

    /** {@code reason} for a refusal with SQL Server error {@code number} (229, 300: a permission). */
    public static String permissionDenied(int number) {
      return "the permission was denied (error " + number + ")";
    }
  }

  /** Seconds from {@link #maxLsnTime} to {@link #observedAt}; empty when capture never ran. */
  public Optional<Double> maxLsnAgeSeconds() {
    return maxLsnTime.map(t -> Duration.between(t, observedAt).toMillis() / 1000.0);
  }

  /** Seconds from {@link #lastScanEnd} to {@link #observedAt}; empty when not read. */
  public Optional<Double> lastScanAgeSeconds() {
    return lastScanEnd.map(t -> Duration.between(t, observedAt).toMillis() / 1000.0);
  }
}
