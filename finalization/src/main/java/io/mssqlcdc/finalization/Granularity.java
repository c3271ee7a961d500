package io.mssqlcdc.finalization;

import io.mssqlcdc.errors.FinalizationErrors;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * The period {@code finalized_until} is counted in: a verdict is always the start of a minute, an
 * hour or a day (UTC), the period that holds the newest committed source commit, which is not
 * final yet because other transactions may share that commit time (reference-behaviour §15).
 */
public enum Granularity {
  MINUTE(ChronoUnit.MINUTES),
  HOUR(ChronoUnit.HOURS),
  DAY(ChronoUnit.DAYS);

  private final ChronoUnit unit;

  Granularity(ChronoUnit unit) {
    this.unit = unit;
  }

  /**
   * {@code minute}, {@code hour} or {@code day}, ignoring case and surrounding blanks.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the value and the three allowed
   */
  public static Granularity parse(String granularity) {
    if (granularity != null) {
      switch (granularity.strip().toLowerCase(Locale.ROOT)) {
        case "minute":
          return MINUTE;
        case "hour":
          return HOUR;
        case "day":
          return DAY;
        default:
          break;
      }
    }
    throw FinalizationErrors.invalidGranularity(granularity);
  }

  /** {@code ts} truncated to the start of its period: seconds and below zeroed, then minutes, then hours. */
  public LocalDateTime truncate(LocalDateTime ts) {
    return ts.truncatedTo(unit);
  }

  /** How it is spelled in options and logs: {@code minute}, {@code hour}, {@code day}. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }
}
