package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.CaptureHealth;
import io.mssqlcdc.client.CaptureHealth.Source;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@link io.mssqlcdc.client.CdcClient#captureHealth()} over T-SQL: four reads ({@link CdcSql#HEALTH_CLOCK},
 * {@link CdcSql#CDC_JOBS}, {@link CdcSql#LOG_SCAN}, {@link CdcSql#CDC_ERRORS}), each on its own, so a
 * login refused one still gets the others; a refused or failed read is named in {@link
 * CaptureHealth#unreadable()}. Times come back as ages on the server clock, so no zone conversion is
 * involved: an instant is the server's UTC clock minus the age.
 */
final class CaptureHealthProbe {

  /** Runs one statement, returning every row as text. */
  @FunctionalInterface
  interface Rows {
    List<String[]> rows(String sql) throws SQLException;
  }

  private final Rows server;
  private final Function<SQLException, RuntimeException> translate;

  /** {@code translate}: the client's error for a failed read of the mapping, which the stream needs anyway. */
  CaptureHealthProbe(Rows server, Function<SQLException, RuntimeException> translate) {
    this.server = server;
    this.translate = translate;
  }

  CaptureHealth probe() {
    List<String> unreadable = new ArrayList<>();
    Instant now;
    Optional<Instant> maxLsnTime;
    try {
      String[] clock = server.rows(CdcSql.HEALTH_CLOCK).get(0);
      now = utc(clock[0]);
      maxLsnTime = millis(clock[1]).map(age -> ago(now, age));
    } catch (SQLException e) {
      throw translate.apply(e); // cdc.lsn_time_mapping is the stream's own read: no health without it
    }
    Optional<Boolean> running = Optional.empty();
    Optional<Duration> retention = Optional.empty();
    try {
      for (String[] job : server.rows(CdcSql.CDC_JOBS)) {
        String type = job[0] == null ? "" : job[0].strip().toLowerCase(Locale.ROOT);
        if (type.equals("capture")) {
          // a scheduled job (continuous = 0) is idle between its runs: its state says nothing; its scans do
          String c = job.length < 4 || job[3] == null ? "1" : job[3].strip();
          boolean continuous = !c.equals("0") && !c.equalsIgnoreCase("false");
          running = continuous ? Optional.of("1".equals(job[1])) : Optional.empty();
        } else if (type.equals("cleanup") && job[2] != null) {
          retention = Optional.of(Duration.ofMinutes(Long.parseLong(job[2].strip())));
        }
      }
    } catch (SQLException e) {
      unreadable.add(Source.CDC_JOBS.unreadable(reason(e)));
    }
    Optional<Instant> scanEnd = Optional.empty();
    Optional<Double> latency = Optional.empty();
    try {
      List<String[]> scan = server.rows(CdcSql.LOG_SCAN);
      if (!scan.isEmpty()) {
        Instant scanNow = utc(scan.get(0)[0]); // each statement's own clock: ages are relative to it
        scanEnd = millis(scan.get(0)[1]).map(age -> ago(scanNow, age));
        latency = Optional.ofNullable(scan.get(0)[2]).map(v -> Double.parseDouble(v.strip()));
      }
    } catch (SQLException e) {
      unreadable.add(Source.LOG_SCAN.unreadable(reason(e)));
    }
    Optional<Long> errors = Optional.empty();
    Optional<String> lastError = Optional.empty();
    try {
      String[] row = server.rows(CdcSql.CDC_ERRORS).get(0);
      errors = Optional.of(Long.parseLong(row[0].strip()));
      lastError = Optional.ofNullable(row[1]);
    } catch (SQLException e) {
      unreadable.add(Source.CDC_ERRORS.unreadable(reason(e)));
    }
    return new CaptureHealth(now, maxLsnTime, running, scanEnd, latency, errors, lastError, retention, unreadable);
  }

  /** {@code now} minus an age in whole ms (the server counts ms boundaries), to the ms as the mapping records. */
  private static Instant ago(Instant now, long ageMillis) {
    return now.minusMillis(ageMillis).truncatedTo(ChronoUnit.MILLIS);
  }

  private static Instant utc(String iso) {
    return LocalDateTime.parse(iso.strip()).toInstant(ZoneOffset.UTC);
  }

  private static Optional<Long> millis(String v) {
    return v == null ? Optional.empty() : Optional.of(Long.parseLong(v.strip()));
  }

  /** The refusal's kind and SQL Server's number, not the text (which may quote names but never secrets). */
  private static String reason(SQLException e) {
    return SqlServerErrors.classify(e) == SqlServerErrors.Kind.PERMISSION
        ? Source.permissionDenied(e.getErrorCode())
        : "not readable (error " + e.getErrorCode() + ": " + firstLine(e.getMessage()) + ")";
  }

  private static String firstLine(String m) {
    if (m == null) {
      return "";
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
