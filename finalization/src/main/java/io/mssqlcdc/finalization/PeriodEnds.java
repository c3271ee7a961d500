package io.mssqlcdc.finalization;

import io.mssqlcdc.errors.FinalizationErrors;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.Temporal;
import java.util.regex.Pattern;

/**
 * Turns the end of a period, as a caller has it, into the UTC wall-clock time the verdict is kept
 * in ({@code finalized_until} is TIMESTAMP_NTZ, UTC). A time with an offset or a zone is converted
 * to UTC; a time without one is taken as UTC already (reference-behaviour §15); a date is its
 * midnight, UTC.
 */
public final class PeriodEnds {
  private static final Pattern SPACE_SEPARATED = Pattern.compile("^\\d{4}-\\d{2}-\\d{2} \\d.*");

  private PeriodEnds() {}

  /**
   * {@code periodEnd} in UTC: an {@link Instant}, {@link OffsetDateTime} or {@link ZonedDateTime}
   * converted; a {@link LocalDateTime} as it is; a {@link LocalDate} at its midnight.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException for null or another kind of temporal
   */
  public static LocalDateTime toUtc(Temporal periodEnd) {
    if (periodEnd instanceof LocalDateTime t) {
      return t;
    }
    if (periodEnd instanceof OffsetDateTime t) {
      return t.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }
    if (periodEnd instanceof ZonedDateTime t) {
      return LocalDateTime.ofInstant(t.toInstant(), ZoneOffset.UTC);
    }
    if (periodEnd instanceof Instant t) {
      return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
    }
    if (periodEnd instanceof LocalDate d) {
      return d.atStartOfDay();
    }
    if (periodEnd == null) {
      throw FinalizationErrors.invalidPeriodEnd(null, "is missing");
    }
    throw FinalizationErrors.invalidPeriodEnd(periodEnd.toString(),
        "is a " + periodEnd.getClass().getSimpleName() + ", which names no point in time");
  }

  /**
   * {@code periodEnd} in UTC, from ISO-8601 text: {@code 2026-03-01T12:00:00+02:00},
   * {@code 2026-03-01T10:00:00Z}, {@code 2026-03-01T11:00:00+01:00[Europe/Paris]} (converted),
   * {@code 2026-03-01T10:00:00} (UTC), {@code 2026-03-01} (midnight UTC). A space may stand for
   * the {@code T}, as Python's {@code str(datetime)} writes it.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the text when it is none of these
   */
  public static LocalDateTime toUtc(String periodEnd) {
    if (periodEnd == null || periodEnd.isBlank()) {
      throw FinalizationErrors.invalidPeriodEnd(periodEnd, "is missing");
    }
    String t = periodEnd.strip();
    if (SPACE_SEPARATED.matcher(t).matches()) {
      t = t.substring(0, 10) + "T" + t.substring(11);
    }
    try {
      if (t.length() == 10) {
        return LocalDate.parse(t).atStartOfDay();
      }
      if (t.endsWith("]")) {
        return toUtc(ZonedDateTime.parse(t));
      }
      if (t.endsWith("Z") || t.endsWith("z") || hasOffset(t)) {
        return toUtc(OffsetDateTime.parse(t.endsWith("z") ? t.substring(0, t.length() - 1) + "Z" : t));
      }
      return LocalDateTime.parse(t);
    } catch (DateTimeParseException e) {
      throw FinalizationErrors.invalidPeriodEnd(periodEnd, "is not an ISO-8601 date-time");
    }
  }

  private static boolean hasOffset(String t) {
    int time = t.indexOf('T');
    return time >= 0 && (t.indexOf('+', time) >= 0 || t.indexOf('-', time) >= 0);
  }
}
