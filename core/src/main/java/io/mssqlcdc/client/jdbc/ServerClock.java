package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.errors.CdcErrors;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The clock {@code cdc.lsn_time_mapping.tran_end_time} is written in: UTC, a fixed offset
 * ({@code UTC-03:00}, what servers before 2022 can tell us) or a named zone (a Windows name such
 * as {@code E. South America Standard Time}, as {@code CURRENT_TIMEZONE_ID()} returns it, which
 * SQL Server's {@code AT TIME ZONE} understands). Immutable; {@link #optionValue()} is what the
 * driver ships to executors in the {@code sourceTimeZone} option so they never detect it again.
 */
public final class ServerClock {
  /** Kinds of clock, each with its own UTC expression ({@link UtcConversion}). */
  public enum Kind { UTC, FIXED_OFFSET, NAMED }

  /** The validator of the reference: names inlined as {@code N'<zone>'} can hold no quote. */
  private static final Pattern ZONE_NAME = Pattern.compile("^[A-Za-z0-9 ._+\\-/()]+$");
  /** {@code UTC±HH:MM}, and {@code UTC±HHMM} (the same without the colon). */
  private static final Pattern OFFSET = Pattern.compile("^UTC([+-])(\\d{2}):?(\\d{2})$", Pattern.CASE_INSENSITIVE);

  private final Kind kind;
  private final String zone;
  private final int offsetMinutes;

  private ServerClock(Kind kind, String zone, int offsetMinutes) {
    this.kind = kind;
    this.zone = zone;
    this.offsetMinutes = offsetMinutes;
  }

  public static final ServerClock UTC = new ServerClock(Kind.UTC, "UTC", 0);

  /**
   * Reads a {@code sourceTimeZone} value other than {@code auto}: {@code UTC} (any case), a fixed
   * offset {@code UTC±HH:MM}, or a zone name made of letters, digits, blanks and {@code . _ + - /
   * ( )} only.
   *
   * @throws io.mssqlcdc.errors.CdcConfigException naming the option and the value otherwise
   */
  public static ServerClock parse(String value) {
    String v = value == null ? "" : value.strip();
    if (v.equalsIgnoreCase("UTC") || v.equalsIgnoreCase("Coordinated Universal Time")) {
      return UTC;
    }
    Matcher m = OFFSET.matcher(v);
    if (m.matches()) {
      int h = Integer.parseInt(m.group(2));
      int min = Integer.parseInt(m.group(3));
      if (h > 14 || min > 59) {
        throw CdcErrors.invalidOption("sourceTimeZone", value, "a time zone name, UTC±HH:MM (at most ±14:00) or 'auto'", null);
      }
      int offset = (m.group(1).equals("-") ? -1 : 1) * (h * 60 + min);
      return offset == 0 ? UTC : new ServerClock(Kind.FIXED_OFFSET, formatOffset(offset), offset);
    }
    if (v.equalsIgnoreCase("auto") || !ZONE_NAME.matcher(v).matches()) {
      throw CdcErrors.invalidOption("sourceTimeZone", value, "a time zone name, UTC±HH:MM or 'auto'",
          "letters, digits, blanks and . _ + - / ( ) only");
    }
    return new ServerClock(Kind.NAMED, v, 0);
  }

  /** A fixed offset clock of {@code minutes} east of UTC. */
  public static ServerClock fixedOffset(int minutes) {
    return minutes == 0 ? UTC : new ServerClock(Kind.FIXED_OFFSET, formatOffset(minutes), minutes);
  }

  /** {@code UTC±HH:MM}. */
  public static String formatOffset(int minutes) {
    int abs = Math.abs(minutes);
    return String.format(Locale.ROOT, "UTC%s%02d:%02d", minutes < 0 ? "-" : "+", abs / 60, abs % 60);
  }

  public Kind kind() {
    return kind;
  }

  /** The zone name for {@link Kind#NAMED}; {@code UTC} or {@code UTC±HH:MM} otherwise. */
  public String zone() {
    return zone;
  }

  /** Minutes east of UTC of a fixed-offset clock (0 for the other kinds). */
  public int offsetMinutes() {
    return offsetMinutes;
  }

  /** The {@code sourceTimeZone} option value that reproduces this clock. */
  public String optionValue() {
    return zone;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerClock c && c.kind == kind && c.zone.equals(zone) && c.offsetMinutes == offsetMinutes;
  }

  @Override
  public int hashCode() {
    return zone.hashCode();
  }

  @Override
  public String toString() {
    return zone;
  }
}
