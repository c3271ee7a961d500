package io.mssqlcdc.standin;

import io.mssqlcdc.client.jdbc.ServerClock;
import io.mssqlcdc.client.jdbc.UtcConversion;
import io.mssqlcdc.lsn.Lsn;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link UtcConversion} expression of {@code m.tran_end_time} as the client sent it, recognised
 * by rebuilding it with {@link UtcConversion}'s own methods, and evaluated the way SQL Server
 * evaluates it: {@code AT TIME ZONE} takes the earlier offset for a local time a fall-back
 * repeats and moves a time in a spring-forward gap forward.
 */
final class UtcExpression {
  static final String T = "m.tran_end_time";
  static final String L = "m.start_lsn";
  private static final Pattern OFFSET = Pattern.compile(
      Pattern.quote("CAST(DATEADD(minute, ") + "(-?\\d+)" + Pattern.quote(", " + T + ") AS datetime2(3))"));
  private static final Pattern NAMED = Statement.template(
      UtcConversion.plain(ServerClock.parse(Statement.Placeholders.ZONE), T), Map.of(Statement.Placeholders.ZONE, "zone:[^']+"));
  private static final Pattern FIRST_ZONE = Pattern.compile("AT TIME ZONE N'([^']+)'");

  enum Kind { UTC, OFFSET, NAMED, CORRECTED }

  private record Drop(Lsn lsn, LocalDateTime time) {}

  private final Kind kind;
  private final int offsetMinutes;
  private final String zoneName;
  private final List<Drop> drops;

  private UtcExpression(Kind kind, int offsetMinutes, String zoneName, List<Drop> drops) {
    this.kind = kind;
    this.offsetMinutes = offsetMinutes;
    this.zoneName = zoneName;
    this.drops = drops;
  }

  /**
   * The expression {@code sql} with its parameters {@code params} (the drops of a corrected form).
   *
   * @throws IllegalArgumentException when it is none of {@link UtcConversion}'s forms
   */
  static UtcExpression parse(String sql, List<String> params) {
    if (sql.equals(UtcConversion.plain(ServerClock.UTC, T)) && params.isEmpty()) {
      return new UtcExpression(Kind.UTC, 0, null, List.of());
    }
    Matcher m = OFFSET.matcher(sql);
    if (m.matches() && params.isEmpty()) {
      int offset = -Integer.parseInt(m.group(1));
      if (sql.equals(UtcConversion.withOffset(offset, T))) {
        return new UtcExpression(Kind.OFFSET, offset, null, List.of());
      }
    }
    m = NAMED.matcher(sql);
    if (m.matches() && params.isEmpty()) {
      return new UtcExpression(Kind.NAMED, 0, m.group("zone"), List.of());
    }
    m = FIRST_ZONE.matcher(sql);
    if (m.find() && params.size() % 2 == 0 && !params.isEmpty()) {
      String zone = m.group(1);
      List<UtcConversion.Drop> given = new ArrayList<>();
      List<Drop> drops = new ArrayList<>();
      for (int i = 0; i < params.size(); i += 2) {
        given.add(new UtcConversion.Drop(Lsn.parse(params.get(i)), params.get(i + 1)));
        drops.add(new Drop(Lsn.parse(params.get(i)), LocalDateTime.parse(params.get(i + 1))));
      }
      if (UtcConversion.corrected(ServerClock.parse(zone), T, L, given).sql().equals(sql)) {
        return new UtcExpression(Kind.CORRECTED, 0, zone, drops);
      }
    }
    throw new IllegalArgumentException("not a UtcConversion expression of " + T + " (with " + params.size()
        + " parameters): " + sql);
  }

  Kind kind() {
    return kind;
  }

  /** The UTC time (datetime2(3)) of the entry {@code lsn} written at local time {@code local}. */
  LocalDateTime toUtc(LocalDateTime local, Lsn lsn) {
    return switch (kind) {
      case UTC -> local;
      case OFFSET -> local.minusMinutes(offsetMinutes);
      case NAMED -> viaZone(zone(zoneName), local);
      case CORRECTED -> {
        ZoneId z = zone(zoneName);
        boolean dropBefore = drops.stream().anyMatch(d -> !d.lsn().isAfter(lsn) && !d.time().isBefore(local.minusHours(UtcConversion.WINDOW_HOURS)));
        yield dropBefore && repeated(z, local)
            ? local.minusMinutes(offsetAt(z, local.plusHours(UtcConversion.WINDOW_HOURS)))
            : viaZone(z, local);
      }
    };
  }

  /** The zone of a Windows name, or SQL Server's error 9820. */
  static ZoneId zone(String windowsName) {
    return WindowsZones.zone(windowsName).orElseThrow(() -> SqlError.unknownTimeZone(windowsName));
  }

  /** {@code CAST((t AT TIME ZONE z) AT TIME ZONE 'UTC' AS datetime2(3))}. */
  static LocalDateTime viaZone(ZoneId z, LocalDateTime local) {
    return ZonedDateTime.ofLocal(local, z, null).withZoneSameInstant(ZoneOffset.UTC).toLocalDateTime();
  }

  /** {@code DATEPART(TZOFFSET, t AT TIME ZONE z)}. */
  static int offsetAt(ZoneId z, LocalDateTime local) {
    return ZonedDateTime.ofLocal(local, z, null).getOffset().getTotalSeconds() / 60;
  }

  /** {@link UtcConversion}'s "repeated time" test, evaluated. */
  static boolean repeated(ZoneId z, LocalDateTime t) {
    int later = offsetAt(z, t.plusHours(UtcConversion.WINDOW_HOURS));
    int now = offsetAt(z, t);
    return later < now && offsetAt(z, t.plusMinutes(now - later)) == later;
  }
}
