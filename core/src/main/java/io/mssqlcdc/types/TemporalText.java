package io.mssqlcdc.types;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text forms of SQL Server date and time values, read and written the same way everywhere (value
 * casts, snapshot chunk bounds, the fake):
 *
 * <ul>
 *   <li>date-times as SQL Server, ODBC and ISO 8601 write them: {@code 2026-03-01 10:20:30.1234567}
 *       or {@code 2026-03-01T10:20:30.1234567}, the seconds and up to 9 fractional digits
 *       optional;
 *   <li>{@code datetimeoffset}: the same with an offset, SQL Server's form {@code 2026-03-01
 *       10:20:30.1234567 -03:00} (a blank before the offset) or ISO's {@code ...-03:00} and
 *       {@code ...Z};
 *   <li>{@code time} values are rendered {@code HH:mm:ss.nnnnnnnnn}, nine fractional digits
 *       whatever the column's precision: the Python reference's form (its driver reads every
 *       {@code time(n)} as nanoseconds and Arrow writes those with nine digits), so the bronze rows
 *       of both agree for the same value (docs/decisions/0004-time-text.md).
 * </ul>
 */
public final class TemporalText {
  private static final Pattern DATE_TIME = Pattern.compile(
      "^(\\d{4}-\\d{2}-\\d{2})[ T](\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?)\\s*(Z|z|[+-]\\d{2}:\\d{2})?$");
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSSSSS", Locale.ROOT);

  private TemporalText() {}

  /** A parsed date-time: the local part and the offset, null when the text has none. */
  public record Parsed(LocalDateTime local, ZoneOffset offset) {
    /** The instant, reading a text without offset as UTC. */
    public java.time.Instant instant() {
      return local.toInstant(offset == null ? ZoneOffset.UTC : offset);
    }
  }

  /**
   * Parses a date-time with or without an offset.
   *
   * @throws DateTimeException when {@code text} is neither
   */
  public static Parsed parse(String text) {
    Matcher m = DATE_TIME.matcher(text == null ? "" : text.strip());
    if (!m.matches()) {
      throw new DateTimeException("Not a date-time: '" + text + "'");
    }
    LocalDateTime local = LocalDateTime.parse(m.group(1) + "T" + m.group(2));
    String o = m.group(3);
    ZoneOffset offset = o == null ? null : o.equalsIgnoreCase("Z") ? ZoneOffset.UTC : ZoneOffset.of(o);
    return new Parsed(local, offset);
  }

  /** A date-time without offset ({@code datetime}, {@code datetime2}, {@code smalldatetime}). */
  public static LocalDateTime localDateTime(String text) {
    Parsed p = parse(text);
    if (p.offset() != null) {
      throw new DateTimeException("A date-time without offset was expected, not '" + text + "'");
    }
    return p.local();
  }

  /** A {@code datetimeoffset}: the offset is required. */
  public static OffsetDateTime offsetDateTime(String text) {
    Parsed p = parse(text);
    if (p.offset() == null) {
      throw new DateTimeException("A date-time with an offset was expected, not '" + text + "'");
    }
    return OffsetDateTime.of(p.local(), p.offset());
  }

  /** {@code HH:mm:ss.nnnnnnnnn}: the text form of a {@code time} value. */
  public static String time(LocalTime t) {
    return TIME.format(t);
  }
}
