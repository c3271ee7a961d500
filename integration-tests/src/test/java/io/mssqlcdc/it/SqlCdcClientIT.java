package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SqlCdcClient behaviour beyond the contract: ordering, metadata, snapshots, preflight. */
class SqlCdcClientIT {
  private ItServer server;
  private SqlServerContractHistory history;

  @BeforeEach
  void open() {
    server = ItServer.get();
    history = new SqlServerContractHistory(server);
  }

  @AfterEach
  void close() {
    if (history != null) {
      history.close();
    }
  }

  @Test
  void updatesReadAsBeforeAndAfterImagesInCommitOrder() {
    String table = ItTables.unique("ord");
    String ci = history.createTrackedTable(table);
    Lsn first = history.commit(table, List.of(RowOp.insert(1, "a", "1.00"), RowOp.insert(2, "b", "2.00")));
    Lsn second = history.commit(table, List.of(RowOp.update(1, "a2", "1.50"), RowOp.delete(2)));
    List<ItTables.Change> rows = ItTables.readAll(history.client(), ci, first, second, List.of("id", "name", "amount"), true);
    assertThat(rows).extracting(ItTables.Change::operation).containsExactly(2, 2, 3, 4, 1);
    assertThat(rows.get(2).seqval()).isEqualTo(rows.get(3).seqval());
    assertThat(rows.get(3).values()).containsExactly(1, "a2", new BigDecimal("1.50"));
    assertThat(rows).extracting(ItTables.Change::startLsn).containsExactly(first, first, second, second, second);
    List<ItTables.Change> noCommandId = ItTables.readAll(history.client(), ci, first, second, List.of("id"), false);
    assertThat(noCommandId).extracting(ItTables.Change::commandId).containsOnly(0);
  }

  @Test
  void commitTimesAreUtcAndMatchTheRows() {
    String table = ItTables.unique("ts");
    String ci = history.createTrackedTable(table);
    Instant before = Instant.now().minusSeconds(5);
    Lsn lsn = history.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
    Instant after = Instant.now().plusSeconds(5);
    Instant t = history.client().commitTime(lsn).orElseThrow();
    assertThat(t).isBetween(before, after);
    try (ChangeCursor c = history.client().changes(new ChangeQuery(ci, lsn, lsn, List.of("id"), true, 10))) {
      assertThat(c.next()).isTrue();
      assertThat(c.commitTime()).isEqualTo(t);
    }
    assertThat(history.client().commitTime(history.client().incrementLsn(lsn))).isEmpty();
    assertThat(history.client().commitTimeAtOrBefore(history.client().incrementLsn(lsn))).contains(t);
  }

  @Test
  void splitPointsEndOnCommits() {
    String table = ItTables.unique("split");
    String ci = history.createTrackedTable(table);
    List<Lsn> commits = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      commits.add(history.commit(table, List.of(RowOp.insert(i, "n" + i, "1.00"))));
    }
    List<SplitPoint> points = history.client().splitPoints(ci, commits.get(0), commits.get(5), 3);
    assertThat(points).hasSize(3);
    assertThat(points).extracting(SplitPoint::bound).allMatch(commits::contains);
    assertThat(points.get(2).bound()).isEqualTo(commits.get(5));
    assertThat(points.stream().mapToLong(SplitPoint::rows).sum()).isEqualTo(6);
    assertThat(points.get(0).next()).isEqualTo(history.client().incrementLsn(points.get(0).bound()));
  }

  @Test
  void ddlHistoryAndCapturedColumns() {
    String table = ItTables.unique("ddl");
    String ci = history.createTrackedTable(table);
    Lsn start = history.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
    server.exec("ALTER TABLE dbo.[" + table + "] ADD note NVARCHAR(10) NULL");
    Lsn end = history.commit(table, List.of(RowOp.insert(2, "b", "2.00")));
    assertThat(history.client().ddlHistory(ci, start, end)).singleElement()
        .satisfies(e -> assertThat(e.command()).containsIgnoringCase("add note"));
    assertThat(history.client().capturedColumns(ci)).extracting(c -> c.name()).containsExactly("id", "name", "amount");
    assertThat(history.client().capturedColumns(ci).get(2).type().declaration()).isEqualTo("decimal(18,2)");
  }

  @Test
  void snapshotReadsByKeyRange() {
    String table = ItTables.unique("snap");
    String ci = history.createTrackedTable(table);
    List<RowOp> ops = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      ops.add(RowOp.insert(i, "n" + i, i + ".00"));
    }
    history.commit(table, ops);
    SourceTable source = history.client().sourceTable(ci);
    assertThat(source.table()).isEqualTo(new TableRef("dbo", table));
    assertThat(source.keyColumns()).containsExactly("id");
    assertThat(history.client().tableColumns(source.table())).extracting(c -> c.name()).containsExactly("id", "name", "amount");
    assertThat(history.client().keyMinMax(source.table(), "id", KeyRange.ALL)).contains(List.of(1, 20));
    assertThat(history.client().keyMinMax(source.table(), "id", new KeyRange(List.of(5), List.of(9)))).contains(List.of(5, 8));
    assertThat(history.client().keyTiles(source.table(), List.of("id"), 4)).containsExactly(List.of(6), List.of(11), List.of(16));
    List<Object> ids = new ArrayList<>();
    try (RowCursor r = history.client().readTable(new TableQuery(source.table(), List.of("id", "name"), List.of("id"),
        new KeyRange(List.of(3), List.of(6)), TableQuery.Isolation.SNAPSHOT, 5_000, 100))) {
      while (r.next()) {
        ids.add(r.value(0));
      }
    }
    assertThat(ids).containsExactlyInAnyOrder(3, 4, 5);
  }

  @Test
  void preflightPassesForALiveInstanceAndNamesTheFixOtherwise() {
    String table = ItTables.unique("pre");
    String ci = history.createTrackedTable(table);
    history.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
    history.client().preflight(ci);
    assertThatThrownBy(() -> history.client().preflight("dbo_no_such_table"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("EXEC sys.sp_cdc_enable_table");
  }

  /**
   * The detected zone is the server's own answer, asked once: after the client's login is
   * disabled and its sessions killed, the client still reports it (asking again would fail).
   */
  @Test
  void timeZoneIsDetectedOnce() {
    String expected = serverClock();
    String login = ItTables.unique("tz_reader");
    String password = "It-" + Long.toHexString(System.nanoTime()) + "-Aa1!";
    server.exec("CREATE LOGIN [" + login + "] WITH PASSWORD = N'" + password + "', CHECK_POLICY = OFF");
    server.exec("CREATE USER [" + login + "] FOR LOGIN [" + login + "]");
    try (SqlCdcClient c = SqlCdcClient.open(CdcReaderOptions.parse(Map.of("captureInstance", "dbo_any",
        "connectionString", server.urlAs(login, password)), CdcReaderOptions.Reader.STREAM))) {
      assertThat(c.sourceTimeZone()).isEqualTo(expected);
      server.exec("ALTER LOGIN [" + login + "] DISABLE");
      server.exec("DECLARE @kill nvarchar(max) = N''; SELECT @kill += N'KILL ' + CAST(session_id AS nvarchar(10)) + N';'"
          + " FROM sys.dm_exec_sessions WHERE login_name = ?; EXEC (@kill);", login);
      assertThat(c.sourceTimeZone()).as("not asked again").isEqualTo(expected);
    } finally {
      server.exec("DECLARE @kill nvarchar(max) = N''; SELECT @kill += N'KILL ' + CAST(session_id AS nvarchar(10)) + N';'"
          + " FROM sys.dm_exec_sessions WHERE login_name = ?; EXEC (@kill);", login);
      server.exec("DROP USER [" + login + "]");
      server.exec("DROP LOGIN [" + login + "]");
    }
    assertThat(history.client().pingMillis()).isPresent();
    assertThat(history.client().networkWaitMillis()).isPresent();
    assertThat(Duration.ofMillis((long) history.client().pingMillis().getAsDouble())).isLessThan(Duration.ofSeconds(5));
  }

  /** What the server says its clock is, as the sourceTimeZone option spells it. */
  private String serverClock() {
    boolean named = "1".equals(server.scalar("SELECT CASE WHEN CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 16"
        + " OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8) THEN 1 ELSE 0 END"));
    if (named) {
      String zone = server.scalar("SELECT CURRENT_TIMEZONE_ID()");
      return zone.equalsIgnoreCase("Coordinated Universal Time") || zone.equalsIgnoreCase("UTC") ? "UTC" : zone;
    }
    int minutes = Integer.parseInt(server.scalar("SELECT DATEPART(TZOFFSET, SYSDATETIMEOFFSET())").strip());
    return minutes == 0 ? "UTC" : String.format(java.util.Locale.ROOT, "UTC%s%02d:%02d", minutes < 0 ? "-" : "+",
        Math.abs(minutes) / 60, Math.abs(minutes) % 60);
  }
}
