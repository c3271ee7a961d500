package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commit times on a server clock that is not UTC, through the driver: the client detects the zone
 * ({@code CURRENT_TIMEZONE_ID()}, or today's offset before SQL Server 2022), sends its
 * {@code UtcConversion} expressions, and the stand-in evaluates them as SQL Server's
 * {@code AT TIME ZONE} does. Expected instants are literals.
 */
class TimeZoneTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  SqlCdcClient client;

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    standIn.close();
    db.close();
  }

  private void database(String zone) {
    db = FakeCdcDatabase.create(dir);
    db.serverTimeZone(zone);
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
  }

  private Lsn commitAt(String local, int id) {
    return db.commitAt(LocalDateTime.parse(local), tx -> tx.insert("dbo.t", row("id", id)));
  }

  private List<Instant> commitTimes(Lsn from, Lsn to) {
    List<Instant> out = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery("dbo_t", from, to, List.of("id"), true, 100))) {
      while (c.next()) {
        out.add(c.commitTime());
      }
    }
    return out;
  }

  /** New York's fall-back on 2025-11-02: 01:00-02:00 happens twice, first EDT (-4 h), then EST (-5 h). */
  @Test
  void theRepeatedHourOfAFallBackConvertsBothPassesRight() {
    database("America/New_York");
    Lsn c1 = commitAt("2025-11-02T00:50:00", 1);
    Lsn c2 = commitAt("2025-11-02T01:20:00", 2);
    commitAt("2025-11-02T01:50:00", 3);
    Lsn c4 = commitAt("2025-11-02T01:10:00", 4); // the clock went back: the second pass, EST
    commitAt("2025-11-02T01:40:00", 5);
    Lsn c6 = commitAt("2025-11-02T02:30:00", 6);
    standIn = SqlServerStandIn.start(dir);
    client = StandInClients.open(standIn, "");
    assertThat(client.sourceTimeZone()).isEqualTo("Eastern Standard Time");
    assertThat(commitTimes(c1, c6)).containsExactly(Instant.parse("2025-11-02T04:50:00Z"),
        Instant.parse("2025-11-02T05:20:00Z"), Instant.parse("2025-11-02T05:50:00Z"), Instant.parse("2025-11-02T06:10:00Z"),
        Instant.parse("2025-11-02T06:40:00Z"), Instant.parse("2025-11-02T07:30:00Z"));
    assertThat(client.commitTime(c2)).contains(Instant.parse("2025-11-02T05:20:00Z"));
    assertThat(client.commitTime(c4)).contains(Instant.parse("2025-11-02T06:10:00Z"));
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::kind)
        .contains(Statement.ZONE_NAME, Statement.RANGE_OFFSET, Statement.DROPS);
  }

  @Test
  void aRangeWithoutADaylightSavingChangeConvertsWithOneOffset() {
    database("America/New_York");
    Lsn a = commitAt("2025-06-01T12:00:00", 1);
    Lsn b = commitAt("2025-06-03T08:30:00.250", 2);
    standIn = SqlServerStandIn.start(dir);
    client = StandInClients.open(standIn, "");
    assertThat(commitTimes(a, b)).containsExactly(Instant.parse("2025-06-01T16:00:00Z"), Instant.parse("2025-06-03T12:30:00.250Z"));
    assertThat(standIn.executed().stream().filter(e -> e.kind() == Statement.CHANGES).findFirst().orElseThrow().sql())
        .as("one DATEADD for the whole range").contains("DATEADD(minute, 240, m.tran_end_time)");
  }

  @Test
  void beforeSqlServer2022TheClientReadsTodaysOffset() {
    database("Asia/Tokyo");
    Lsn a = commitAt("2025-06-01T12:00:00", 1);
    standIn = SqlServerStandIn.start(dir, StandInOptions.defaults().withSqlServer2022(false));
    client = StandInClients.open(standIn, "");
    assertThat(client.sourceTimeZone()).isEqualTo("UTC+09:00");
    assertThat(client.commitTime(a)).contains(Instant.parse("2025-06-01T03:00:00Z"));
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::kind).contains(Statement.FIXED_OFFSET)
        .doesNotContain(Statement.ZONE_NAME);
  }

  @Test
  void anIanaZoneNameIsRefusedByAtTimeZoneAndReportedAsTheOption() {
    database("America/Sao_Paulo");
    Lsn a = commitAt("2025-06-01T12:00:00", 1);
    standIn = SqlServerStandIn.start(dir);
    client = StandInClients.open(standIn, "", "sourceTimeZone", "America/Sao_Paulo");
    assertThatThrownBy(() -> client.commitTime(a))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("sourceTimeZone")
        .hasMessageContaining("E. South America Standard Time");
    SqlCdcClient windows = StandInClients.open(standIn, "", "sourceTimeZone", "E. South America Standard Time");
    assertThat(windows.commitTime(a)).contains(Instant.parse("2025-06-01T15:00:00Z"));
    windows.close();
  }
}
