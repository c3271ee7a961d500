package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.util.List;
import org.junit.jupiter.api.Test;

class UtcConversionTest {
  private static final ServerClock CET = ServerClock.parse("Central European Standard Time");

  @Test
  void expressionsPerClockKind() {
    assertThat(UtcConversion.plain(ServerClock.UTC, "m.tran_end_time")).isEqualTo("CAST(m.tran_end_time AS datetime2(3))");
    assertThat(UtcConversion.plain(ServerClock.parse("UTC-03:00"), "m.tran_end_time"))
        .isEqualTo("CAST(DATEADD(minute, 180, m.tran_end_time) AS datetime2(3))");
    assertThat(UtcConversion.plain(ServerClock.parse("UTC+05:30"), "t"))
        .isEqualTo("CAST(DATEADD(minute, -330, t) AS datetime2(3))");
    assertThat(UtcConversion.plain(CET, "m.tran_end_time")).isEqualTo(
        "CAST((m.tran_end_time AT TIME ZONE N'Central European Standard Time') AT TIME ZONE 'UTC' AS datetime2(3))");
  }

  @Test
  void repeatedTimeTestInSql() {
    assertThat(UtcConversion.repeated(CET, "t")).isEqualTo(
        "DATEPART(TZOFFSET, DATEADD(hour, 3, t) AT TIME ZONE N'Central European Standard Time')"
            + " < DATEPART(TZOFFSET, t AT TIME ZONE N'Central European Standard Time')"
            + " AND DATEPART(TZOFFSET, DATEADD(minute, DATEPART(TZOFFSET, t AT TIME ZONE N'Central European Standard Time')"
            + " - DATEPART(TZOFFSET, DATEADD(hour, 3, t) AT TIME ZONE N'Central European Standard Time'), t)"
            + " AT TIME ZONE N'Central European Standard Time')"
            + " = DATEPART(TZOFFSET, DATEADD(hour, 3, t) AT TIME ZONE N'Central European Standard Time')");
  }

  @Test
  void correctedFormUsesTheStandardOffsetAfterADrop() {
    SqlText q = UtcConversion.corrected(CET, "m.tran_end_time", "m.start_lsn",
        List.of(new UtcConversion.Drop(Lsn.parse("0x2A"), "2026-10-25T02:05:00")));
    assertThat(q.sql())
        .startsWith("CASE WHEN EXISTS (SELECT 1 FROM (VALUES (CONVERT(binary(10), ?, 1), CONVERT(datetime, ?, 126)))"
            + " AS d(l, t) WHERE d.l <= m.start_lsn AND d.t >= DATEADD(hour, -3, m.tran_end_time)) AND ")
        .contains(" THEN CAST(DATEADD(minute, -DATEPART(TZOFFSET, DATEADD(hour, 3, m.tran_end_time)"
            + " AT TIME ZONE N'Central European Standard Time'), m.tran_end_time) AS datetime2(3)) ELSE ")
        .endsWith(UtcConversion.plain(CET, "m.tran_end_time") + " END");
    assertThat(q.params()).containsExactly("0x0000000000000000002A", "2026-10-25T02:05:00");
    assertThat(UtcConversion.corrected(CET, "t", "l", List.of()).sql()).isEqualTo(UtcConversion.plain(CET, "t"));
  }

  @Test
  void rangeOffsetAndDropsQueries() {
    assertThat(CdcSql.rangeOffset(CET)).isEqualTo(
        "SELECT CASE WHEN DATEDIFF(day, MIN(tran_end_time), MAX(tran_end_time)) < 7"
            + " AND DATEPART(TZOFFSET, DATEADD(hour, -3, MIN(tran_end_time)) AT TIME ZONE N'Central European Standard Time')"
            + " = DATEPART(TZOFFSET, DATEADD(hour, 3, MAX(tran_end_time)) AT TIME ZONE N'Central European Standard Time')"
            + " THEN DATEPART(TZOFFSET, DATEADD(hour, 3, MAX(tran_end_time)) AT TIME ZONE N'Central European Standard Time')"
            + " END FROM cdc.lsn_time_mapping WHERE start_lsn BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)");
    String drops = CdcSql.drops(CET);
    assertThat(SqlText.countMarks(drops)).isEqualTo(2);
    assertThat(drops)
        .contains("LAG(m.tran_end_time) OVER (ORDER BY m.start_lsn) AS prev")
        .contains("WHERE e.tran_end_time <= DATEADD(hour, -3, a.tran_end_time)")
        .contains("ORDER BY e.tran_end_time DESC), 0x00000000000000000000)")
        .contains("WHERE x.tran_end_time < DATEADD(minute, -1, x.prev) AND " + UtcConversion.repeated(CET, "x.tran_end_time"))
        .endsWith("ORDER BY x.start_lsn");
  }

  @Test
  void serverClockParsing() {
    assertThat(ServerClock.parse("utc")).isSameAs(ServerClock.UTC);
    assertThat(ServerClock.parse("UTC+00:00")).isSameAs(ServerClock.UTC);
    assertThat(ServerClock.parse("UTC-03:00").offsetMinutes()).isEqualTo(-180);
    assertThat(ServerClock.parse("UTC-03:00").kind()).isEqualTo(ServerClock.Kind.FIXED_OFFSET);
    assertThat(ServerClock.parse("utc-0300")).isEqualTo(ServerClock.parse("UTC-03:00"));
    assertThat(ServerClock.parse(" E. South America Standard Time ").zone()).isEqualTo("E. South America Standard Time");
    assertThat(ServerClock.fixedOffset(330).optionValue()).isEqualTo("UTC+05:30");
    assertThat(ServerClock.fixedOffset(-570).optionValue()).isEqualTo("UTC-09:30");
    assertThatThrownBy(() -> ServerClock.parse("Pacific'; DROP TABLE x; --")).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Option 'sourceTimeZone'").hasMessageContaining("letters, digits, blanks");
    assertThatThrownBy(() -> ServerClock.parse("auto")).isInstanceOf(CdcConfigException.class);
    assertThatThrownBy(() -> ServerClock.parse("UTC+15:00")).hasMessageContaining("at most ±14:00");
  }

  @Test
  void autoDetectionAsksTheVersionFirst() {
    List<String> asked = new java.util.ArrayList<>();
    ServerClock c = ClockDetector.detect(sql -> {
      asked.add(sql);
      return sql.equals(CdcSql.VERSION_PROBE) ? "1" : "SE Asia Standard Time";
    });
    assertThat(c.zone()).isEqualTo("SE Asia Standard Time");
    assertThat(asked).containsExactly(CdcSql.VERSION_PROBE, CdcSql.ZONE_NAME);
  }

  @Test
  void olderServersFallBackToTodaysOffset() {
    List<String> asked = new java.util.ArrayList<>();
    ServerClock c = ClockDetector.detect(sql -> {
      asked.add(sql);
      return sql.equals(CdcSql.VERSION_PROBE) ? "0" : "-180";
    });
    assertThat(c.optionValue()).isEqualTo("UTC-03:00");
    assertThat(asked).containsExactly(CdcSql.VERSION_PROBE, CdcSql.FIXED_OFFSET);
  }

  @Test
  void aDetectedZoneIsValidatedToo() {
    assertThatThrownBy(() -> ClockDetector.detect(sql -> sql.equals(CdcSql.VERSION_PROBE) ? "1" : "Bad'Zone"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("CURRENT_TIMEZONE_ID() returned 'Bad'Zone'")
        .hasMessageContaining("set sourceTimeZone explicitly");
  }
}
