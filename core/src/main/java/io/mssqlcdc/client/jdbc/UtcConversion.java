package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

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
 * <p>The static {@code model*} methods are the same rules in Java over an offset function: the
 * executable specification the unit tests check the fall-back hour against.
 */
public final class UtcConversion {
  /** A commit more than this many minutes before its predecessor is a drop (clock set back). */
  public static final int DROP_MINUTES = 1;
  /** How far back a drop is looked for, and how far ahead the standard offset is read. */
  public static final int WINDOW_HOURS = 3;

  private UtcConversion() {}

  /** A fall-back drop: the commit {@code lsn} whose local time {@code time} went back. */
  public record Drop(Lsn lsn, String time) {}

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

  // ---- the same rules in Java (specification for the tests) ------------------------------

  /** Whether the local time {@code t} is one a fall-back repeats, by the SQL test above. */
  public static boolean modelIsRepeated(LocalDateTime t, ToIntFunction<LocalDateTime> offset) {
    int now = offset.applyAsInt(t);
    int later = offset.applyAsInt(t.plusHours(WINDOW_HOURS));
    return later < now && offset.applyAsInt(t.plusMinutes(now - later)) == later;
  }

  /**
   * The drops among {@code commits} (local times in LSN order): a commit more than
   * {@value #DROP_MINUTES} minute before the previous one, at a repeated time.
   */
  public static List<Integer> modelDrops(List<LocalDateTime> commits, ToIntFunction<LocalDateTime> offset) {
    List<Integer> drops = new ArrayList<>();
    for (int i = 1; i < commits.size(); i++) {
      LocalDateTime t = commits.get(i);
      if (t.isBefore(commits.get(i - 1).minusMinutes(DROP_MINUTES)) && modelIsRepeated(t, offset)) {
        drops.add(i);
      }
    }
    return drops;
  }

  /** The UTC time of each commit (local times in LSN order), by the corrected rule. */
  public static List<LocalDateTime> modelToUtc(List<LocalDateTime> commits, ToIntFunction<LocalDateTime> offset) {
    List<Integer> drops = modelDrops(commits, offset);
    List<LocalDateTime> utc = new ArrayList<>();
    for (int i = 0; i < commits.size(); i++) {
      LocalDateTime t = commits.get(i);
      boolean dropBefore = false;
      for (int d : drops) {
        dropBefore |= d <= i && !commits.get(d).isBefore(t.minusHours(WINDOW_HOURS));
      }
      int off = dropBefore && modelIsRepeated(t, offset)
          ? offset.applyAsInt(t.plusHours(WINDOW_HOURS))
          : offset.applyAsInt(t);
      utc.add(t.minusMinutes(off));
    }
    return utc;
  }

  /** An offset function of a java.time zone that, like SQL Server, takes the earlier offset in an overlap. */
  public static ToIntFunction<LocalDateTime> javaZone(java.time.ZoneId zone) {
    return t -> {
      ZoneOffset o = zone.getRules().getValidOffsets(t).isEmpty()
          ? zone.getRules().getOffset(t.atZone(zone).toInstant())
          : zone.getRules().getValidOffsets(t).get(0);
      return o.getTotalSeconds() / 60;
    };
  }
}
