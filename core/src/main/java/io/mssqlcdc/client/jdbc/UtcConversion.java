package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.lsn.Lsn;
import java.util.ArrayList;
import java.util.List;

/**
 * T-SQL expressions that turn {@code tran_end_time} (a zone-less {@code datetime} on the server
 * clock) into a UTC {@code datetime2(3)}, exactly as reference §9 (ADR 0008) does.
 *
 * <ul>
 *   <li>UTC: {@code CAST(t AS datetime2(3))}.
 *   <li>Fixed offset (servers before 2022): {@code CAST(DATEADD(minute, -offset, t) AS datetime2(3))}.
 *   <li>Named zone, plain: {@code CAST((t AT TIME ZONE N'<zone>') AT TIME ZONE 'UTC' AS datetime2(3))}.
 *       For a local time a fall-back repeats, SQL Server picks the offset in force before the
 *       change (daylight time): right for the first pass, an hour off for the second.
 *   <li>Named zone, fall-back corrected: the second pass of a repeated hour is recognised by a
 *       "drop" among the commits before it in LSN order: a commit whose time is more than
 *       {@value #DROP_MINUTES} minute before the previous commit's, at a repeated time, within
 *       the preceding {@value #WINDOW_HOURS} hours. Such commits are converted with the offset in
 *       force {@value #WINDOW_HOURS} hours later (standard time).
 * </ul>
 *
 * <p>"Repeated time" test: {@code offset(t+3h) < offset(t)} and {@code offset(t + (offset(t) -
 * offset(t+3h)) minutes) = offset(t+3h)}; offsets come from {@code DATEPART(TZOFFSET, x AT TIME
 * ZONE N'<zone>')}. The zone name is inlined (N'...') only after {@link ServerClock#parse}
 * validated it: it cannot hold a quote.
 *
 * <p>What these expressions give is pinned by {@code CdcClientContractTest}'s fall-back history,
 * run against SQL Server in {@code SqlCdcClientContractIT} and {@code DaylightSavingIT} (a New York
 * server clock), and against the fake, which applies the same rules in Java ({@code CommitTimes}).
 */
public final class UtcConversion {
  /** A commit more than this many minutes before its predecessor is a drop (clock set back). */
  public static final int DROP_MINUTES = 1;
  /** How far back a drop is looked for, and how far ahead the standard offset is read. */
  public static final int WINDOW_HOURS = 3;

  private UtcConversion() {}

  /** A fall-back drop: the commit {@code lsn} whose local time {@code time} went back. */
  public record Drop(Lsn lsn, String time) {}

  private static final java.time.format.DateTimeFormatter MILLIS =
      java.time.format.DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS", java.util.Locale.ROOT)
          .withZone(java.time.ZoneOffset.UTC);
  private static final java.time.Instant FIRST = java.time.Instant.parse("0001-01-01T00:00:00Z");
  private static final java.time.Instant LAST = java.time.Instant.parse("9999-12-31T23:59:59.999Z");

  /**
   * {@code utc} as the text {@code CONVERT(datetime2(3), ?, 126)} reads, truncated to the
   * millisecond (commit times are milliseconds, so an entry is at or before {@code utc} exactly
   * when it is at or before the truncation); past 9999-12-31 the last millisecond
   * {@code datetime2} holds. Empty before 0001-01-01, where no entry can be.
   */
  public static java.util.Optional<String> text(java.time.Instant utc) {
    if (utc.isBefore(FIRST)) {
      return java.util.Optional.empty();
    }
    java.time.Instant t = utc.isAfter(LAST) ? LAST : utc.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    return java.util.Optional.of(MILLIS.format(t));
  }

  /** {@code DATEPART(TZOFFSET, <t> AT TIME ZONE N'<zone>')}: minutes east of UTC at local time t. */
  static String offsetAt(ServerClock zone, String t) {
    return "DATEPART(TZOFFSET, " + t + " AT TIME ZONE N'" + zone.zone() + "')";
  }

  /** The conversion of {@code t} that needs no knowledge of neighbouring commits. */
  public static String plain(ServerClock clock, String t) {
    return switch (clock.kind()) {
      case UTC -> "CAST(" + t + " AS datetime2(3))";
      case FIXED_OFFSET -> withOffset(clock.offsetMinutes(), t);
      case NAMED -> "CAST((" + t + " AT TIME ZONE N'" + clock.zone() + "') AT TIME ZONE 'UTC' AS datetime2(3))";
    };
  }

  /** {@code CAST(DATEADD(minute, -<offset>, t) AS datetime2(3))}; the offset is an int, inlined. */
  public static String withOffset(int offsetMinutes, String t) {
    return "CAST(DATEADD(minute, " + (-offsetMinutes) + ", " + t + ") AS datetime2(3))";
  }

  /** The SQL "repeated time" test of {@code t} in {@code zone}. */
  static String repeated(ServerClock zone, String t) {
    String later = offsetAt(zone, "DATEADD(hour, " + WINDOW_HOURS + ", " + t + ")");
    String now = offsetAt(zone, t);
    return later + " < " + now + " AND "
        + offsetAt(zone, "DATEADD(minute, " + now + " - " + later + ", " + t + ")") + " = " + later;
  }

  /**
   * The fall-back corrected conversion of {@code t} (commit {@code lsn}) given the drops of the
   * range, passed as a {@code VALUES} list of parameters; the plain form when there are none.
   */
  public static SqlText corrected(ServerClock zone, String t, String lsn, List<Drop> drops) {
    if (drops.isEmpty()) {
      return SqlText.of(plain(zone, t));
    }
    StringBuilder values = new StringBuilder();
    List<String> params = new ArrayList<>();
    for (Drop d : drops) {
      values.append(values.length() == 0 ? "" : ", ").append("(CONVERT(binary(10), ?, 1), CONVERT(datetime, ?, 126))");
      params.add(d.lsn().hex());
      params.add(d.time());
    }
    String later = offsetAt(zone, "DATEADD(hour, " + WINDOW_HOURS + ", " + t + ")");
    String sql = "CASE WHEN EXISTS (SELECT 1 FROM (VALUES " + values + ") AS d(l, t) WHERE d.l <= " + lsn
        + " AND d.t >= DATEADD(hour, -" + WINDOW_HOURS + ", " + t + ")) AND " + repeated(zone, t)
        + " THEN CAST(DATEADD(minute, -" + later + ", " + t + ") AS datetime2(3)) ELSE " + plain(zone, t) + " END";
    return new SqlText(sql, params);
  }
}
