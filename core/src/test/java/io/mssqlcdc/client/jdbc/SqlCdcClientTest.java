package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.jdbc.ScriptedJdbc.Result;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcPermissionException;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The wiring of SqlCdcClient over a scripted JDBC connection: which statements run, with which parameters, and how failures map. */
class SqlCdcClientTest {
  private static final String L1 = "0x0000002A000001F00003";
  private static final String L2 = "0x0000002B000000100001";

  private final ScriptedJdbc jdbc = new ScriptedJdbc();
  private final List<Duration> slept = new ArrayList<>();

  private SqlCdcClient client(String zone) {
    return new SqlCdcClient(jdbc::open, zone, -1, new DriverRetry(3, Duration.ofSeconds(2), slept::add, () -> 0.0));
  }

  private void capturedColumns() {
    jdbc.on(CdcSql.CAPTURED_COLUMNS, Result.rows(
        List.of("source_schema", "source_table", "column_name", "column_ordinal", "column_id", "data_type",
            "character_maximum_length", "numeric_precision", "numeric_scale", "datetime_precision"),
        List.of(),
        new Object[] {"dbo", "orders", "id", 1, 1, "int", null, 10, 0, null},
        new Object[] {"dbo", "orders", "amount", 2, 3, "decimal", null, 18, 2, null}));
    jdbc.on("SELECT c.name, c.column_id", Result.rows(List.of("name", "column_id", "is_computed", "collation_name", "type_name",
        "max_length", "precision", "scale"), List.of(),
        new Object[] {"id", 1, false, null, "int", 4, 10, 0},
        new Object[] {"amount", 3, false, null, "decimal", 9, 18, 2}));
  }

  @Test
  void maxLsnIsRetriedOnANewConnectionAfterADeadlock() {
    AtomicInteger calls = new AtomicInteger();
    jdbc.on(CdcSql.MAX_LSN, e -> calls.incrementAndGet() == 1 ? Result.fail(1205, "40001") : Result.scalar(L1));
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.maxLsn()).contains(Lsn.parse(L1));
    }
    assertThat(jdbc.connectionsOpened).isEqualTo(2);
    assertThat(slept).containsExactly(Duration.ofSeconds(1));
  }

  @Test
  void aNullMaxLsnIsEmptyAndAZeroMinLsnIsNotReady() {
    jdbc.on(CdcSql.MAX_LSN, Result.scalar(null)).on(CdcSql.MIN_LSN, Result.scalar("0x00000000000000000000"));
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.maxLsn()).isEmpty();
      assertThatThrownBy(() -> c.minLsn("dbo_orders")).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("Capture instance 'dbo_orders' not found")
          .hasMessageContaining("0x00000000000000000000");
    }
    assertThat(jdbc.executed.get(1).params()).containsExactly("dbo_orders");
  }

  @Test
  void changesBindTheRangeAndStreamTypedValues() {
    capturedColumns();
    jdbc.on("SELECT c.[__$start_lsn]", Result.rows(
        List.of("_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts", "id", "amount"),
        List.of("binary", "binary", "int", "int", "varchar", "int", "decimal"),
        new Object[] {ScriptedJdbc.lsnBytes(L1), ScriptedJdbc.lsnBytes(L1), 2, 1, "2026-09-28T14:03:12.117", 7, new BigDecimal("1.50")},
        new Object[] {ScriptedJdbc.lsnBytes(L2), ScriptedJdbc.lsnBytes(L2), 1, 1, "2026-09-28T14:03:13", 7, null}));
    List<String> seen = new ArrayList<>();
    try (SqlCdcClient c = client("UTC");
        ChangeCursor cur = c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("id", "status", "amount"), true, 500))) {
      while (cur.next()) {
        seen.add(cur.startLsn() + " " + cur.operation() + " " + cur.commitTime() + " " + cur.value(0) + " " + cur.value(1) + " " + cur.value(2));
      }
    }
    assertThat(seen).containsExactly(
        L1 + " 2 2026-09-28T14:03:12.117Z 7 null 1.50",
        L2 + " 1 2026-09-28T14:03:13Z 7 null null");
    ScriptedJdbc.Executed read = jdbc.executed.get(jdbc.executed.size() - 1);
    assertThat(read.sql()).contains("c.[id], c.[amount] FROM cdc.[dbo_orders_CT] c").doesNotContain("[status]");
    assertThat(read.params()).containsExactly(L1, L2);
  }

  @Test
  void aDeniedChangeTableNamesTheExactGrant() {
    capturedColumns();
    jdbc.on("SELECT c.[__$start_lsn]", Result.fail(229, "S0005"));
    jdbc.on(CdcSql.PERMISSION_PROBE, Result.rows(List.of("p", "u"), List.of("int", "nvarchar"), new Object[] {0, "cdc_reader"}));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("id"), true, 10)))
          .isInstanceOf(CdcPermissionException.class)
          .hasMessageContaining("GRANT SELECT ON cdc.[dbo_orders_CT] TO [cdc_reader];");
    }
    ScriptedJdbc.Executed probe = jdbc.executed.get(jdbc.executed.size() - 1);
    assertThat(probe.params()).containsExactly("dbo_orders", "cdc.[dbo_orders_CT]");
    assertThat(slept).isEmpty();
  }

  @Test
  void aMissingCommandIdColumnSaysWhichOptionToSet() {
    capturedColumns();
    jdbc.on("SELECT c.[__$start_lsn]", Result.fail(207, "S0001"));
    jdbc.on(CdcSql.COMMAND_ID_PROBE, Result.scalar(null));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("id"), true, 10)))
          .isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("has no column __$command_id")
          .hasMessageContaining("includeCommandId=false");
    }
  }

  @Test
  void transientFailuresOutlivingTheRetriesAreSourceUnavailable() {
    jdbc.on(CdcSql.MAX_LSN, Result.fail(10054, "08S01"));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(c::maxLsn).isInstanceOf(CdcSourceUnavailableException.class)
          .hasMessageContaining("after 4 attempt(s)").hasMessageContaining("error 10054");
    }
    assertThat(jdbc.connectionsOpened).isEqualTo(4);
    assertThat(slept).hasSize(3);
  }

  @Test
  void autoDetectsTheZoneOnceAndAnExplicitZoneNeverAsks() {
    jdbc.on(CdcSql.VERSION_PROBE, Result.scalar(1)).on(CdcSql.ZONE_NAME, Result.scalar("Tokyo Standard Time"));
    try (SqlCdcClient c = client("auto")) {
      assertThat(c.sourceTimeZone()).isEqualTo("Tokyo Standard Time");
      assertThat(c.sourceTimeZone()).isEqualTo("Tokyo Standard Time");
    }
    assertThat(jdbc.executed).hasSize(2);
    try (SqlCdcClient c = client("UTC-03:00")) {
      assertThat(c.sourceTimeZone()).isEqualTo("UTC-03:00");
    }
    assertThat(jdbc.executed).hasSize(2);
  }

  @Test
  void commitTimeInANamedZoneUsesOneOffsetWhenTheRangeAllows() {
    jdbc.on("SELECT CASE WHEN DATEDIFF(day", Result.scalar(540));
    jdbc.on("SELECT TOP (1) CONVERT(varchar(23)", Result.scalar("2026-09-28T05:03:12.117"));
    try (SqlCdcClient c = client("Tokyo Standard Time")) {
      assertThat(c.commitTime(Lsn.parse(L1))).contains(Instant.parse("2026-09-28T05:03:12.117Z"));
    }
    assertThat(jdbc.executed.get(0).params()).containsExactly(L1, L1);
    assertThat(jdbc.executed.get(1).sql()).contains("CAST(DATEADD(minute, -540, m.tran_end_time) AS datetime2(3))");
    assertThat(jdbc.executed.get(1).params()).containsExactly(L1);
  }

  @Test
  void commitTimeAcrossAFallBackPassesTheDrops() {
    jdbc.on("SELECT CASE WHEN DATEDIFF(day", Result.scalar(null));
    jdbc.on("SELECT CONVERT(varchar(22), x.start_lsn", Result.rows(List.of("l", "t"), List.of("varchar", "varchar"),
        new Object[] {L2, "2026-11-01T01:05:00"}));
    jdbc.on("SELECT TOP (1) CONVERT(varchar(23)", Result.scalar("2026-11-01T09:10:00"));
    try (SqlCdcClient c = client("Pacific Standard Time")) {
      assertThat(c.commitTime(Lsn.parse(L1))).contains(Instant.parse("2026-11-01T09:10:00Z"));
    }
    assertThat(jdbc.executed.get(1).params()).containsExactly(L1, L1);
    assertThat(jdbc.executed.get(2).params()).containsExactly(L2, "2026-11-01T01:05:00", L1);
  }

  @Test
  void preflightNamesTheFixForADatabaseWithoutCdc() {
    jdbc.on(CdcSql.CDC_ENABLED, Result.rows(List.of("e", "d"), List.of("bit", "nvarchar"), new Object[] {false, "sales"}));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.preflight("dbo_orders")).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("not enabled on database 'sales'")
          .hasMessageContaining("EXEC sys.sp_cdc_enable_db;");
    }
  }

  @Test
  void preflightFailsWhenCaptureNeverRan() {
    jdbc.on(CdcSql.CDC_ENABLED, Result.rows(List.of("e", "d"), List.of("bit", "nvarchar"), new Object[] {true, "sales"}));
    jdbc.on(CdcSql.HELP_ALL, Result.rows(List.of("capture_instance", "source_schema", "source_table", "start_lsn",
        "index_column_list", "create_date"), List.of(),
        new Object[] {"dbo_orders", "dbo", "orders", Lsn.parse(L1).toBytes(), "[id]", null}));
    jdbc.on(CdcSql.MIN_LSN, Result.scalar(L1));
    jdbc.on(CdcSql.CAPTURE_AGE_SECONDS, Result.scalar(null));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.preflight("dbo_orders")).isInstanceOf(CdcSourceUnavailableException.class)
          .hasMessageContaining("capture has never written")
          .hasMessageContaining("EXEC sys.sp_cdc_start_job @job_type = N'capture';");
    }
  }

  private static Result helpRows(String instance, String schema, String table) {
    return Result.rows(List.of("capture_instance", "source_schema", "source_table", "start_lsn", "index_column_list",
        "create_date"), List.of(), new Object[] {instance, schema, table, Lsn.parse(L1).toBytes(), "[id]", null});
  }

  @Test
  void aResolvedTableThatWasRenamedFallsBackToTheFullListing() {
    // sp_cdc_help_change_data_capture @source_schema/@source_name fails when the table is no longer
    // there under that name (it must exist, per its documentation); CDC keeps capturing a renamed table.
    AtomicInteger all = new AtomicInteger();
    jdbc.on(CdcSql.HELP_TABLE, e -> e.params().get(1).equals("orders")
        ? Result.fail(22981, "S0001") : helpRows("dbo_orders", "dbo", "orders_v2"));
    jdbc.on(CdcSql.HELP_ALL, e -> all.incrementAndGet() == 1
        ? helpRows("dbo_orders", "dbo", "orders") : helpRows("dbo_orders", "dbo", "orders_v2"));
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.captureInstances("dbo_orders")).extracting(i -> i.sourceTable()).containsExactly("orders");
      assertThat(c.captureInstances("dbo_orders")).extracting(i -> i.sourceTable()).containsExactly("orders_v2");
      assertThat(c.sourceTable("dbo_orders").table().table()).isEqualTo("orders_v2");
    }
    assertThat(jdbc.executed).extracting(ScriptedJdbc.Executed::sql).containsExactly(
        CdcSql.HELP_ALL, CdcSql.HELP_TABLE, CdcSql.HELP_ALL, CdcSql.HELP_TABLE);
    assertThat(jdbc.executed.get(1).params()).containsExactly("dbo", "orders");
    assertThat(jdbc.executed.get(3).params()).containsExactly("dbo", "orders_v2");
    assertThat(slept).isEmpty();
  }

  @Test
  void aZoneNameAtTimeZoneRefusesNamesTheOptionAndTheWindowsName() {
    // IANA names pass the option's syntax check; SQL Server's AT TIME ZONE refuses them (Msg 9820).
    jdbc.on("SELECT CASE WHEN DATEDIFF(day", Result.fail(9820, "S0001"));
    try (SqlCdcClient c = client("America/Sao_Paulo")) {
      assertThatThrownBy(() -> c.commitTime(Lsn.parse(L1))).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("Option 'sourceTimeZone' must be a time zone this SQL Server knows"
              + " (SELECT name FROM sys.time_zone_info), UTC±HH:MM or 'auto', not 'America/Sao_Paulo'")
          .hasMessageContaining("'E. South America Standard Time'");
    }
    assertThat(slept).isEmpty();
  }

  @Test
  void aCursorClosedBeforeItsLastRowCancelsTheStatementSoCloseDoesNotDrainTheRest() {
    // mssql-jdbc's ResultSet.close() reads and discards every remaining row (microsoft/mssql-jdbc#1460):
    // a LIMIT or a killed task would otherwise pull the rest of the range or table over the network.
    capturedColumns();
    jdbc.on("SELECT c.[__$start_lsn]", Result.rows(
        List.of("_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts", "id"),
        List.of("binary", "binary", "int", "int", "varchar", "int"),
        new Object[] {ScriptedJdbc.lsnBytes(L1), ScriptedJdbc.lsnBytes(L1), 2, 1, "2026-09-28T14:03:12.117", 7},
        new Object[] {ScriptedJdbc.lsnBytes(L2), ScriptedJdbc.lsnBytes(L2), 1, 1, "2026-09-28T14:03:13", 8}));
    jdbc.on("SELECT [id] FROM [dbo].[orders]", Result.rows(List.of("id"), List.of("int"), new Object[] {7}, new Object[] {8}));
    ChangeQuery q = new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("id"), true, 10);
    io.mssqlcdc.client.TableQuery t = new io.mssqlcdc.client.TableQuery(new io.mssqlcdc.client.TableRef("dbo", "orders"),
        List.of("id"), List.of(), io.mssqlcdc.client.KeyRange.ALL, io.mssqlcdc.client.TableQuery.Isolation.READ_COMMITTED, -1, 10);
    try (SqlCdcClient c = client("UTC")) {
      try (ChangeCursor cur = c.changes(q)) {
        assertThat(cur.next()).isTrue();
      }
      assertThat(jdbc.statementsCancelled).isEqualTo(1);
      List<Object> ids = new ArrayList<>();
      try (ChangeCursor cur = c.changes(q)) {
        while (cur.next()) {
          ids.add(cur.value(0));
        }
      }
      assertThat(ids).as("read to the end").containsExactly(7, 8);
      assertThat(jdbc.statementsCancelled).isEqualTo(1);
      try (io.mssqlcdc.client.RowCursor rows = c.readTable(t)) {
        assertThat(rows.next()).isTrue();
      }
      assertThat(jdbc.statementsCancelled).isEqualTo(2);
      ids.clear();
      try (io.mssqlcdc.client.RowCursor rows = c.readTable(t)) {
        while (rows.next()) {
          ids.add(rows.value(0));
        }
      }
      assertThat(ids).as("read to the end").containsExactly(7, 8);
      assertThat(jdbc.statementsCancelled).isEqualTo(2);
    }
  }

  @Test
  void aSnapshotReadWhereTheDatabaseForbidsItNamesTheOptionAndTheAlterDatabase() {
    jdbc.on("SELECT [id] FROM [dbo].[orders]", Result.fail(3952, "S0001"));
    io.mssqlcdc.client.TableQuery t = new io.mssqlcdc.client.TableQuery(new io.mssqlcdc.client.TableRef("dbo", "orders"),
        List.of("id"), List.of(), io.mssqlcdc.client.KeyRange.ALL, io.mssqlcdc.client.TableQuery.Isolation.SNAPSHOT, -1, 10);
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.readTable(t)).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("Option 'isolationLevel' must be readCommitted, or snapshot on a database that allows"
              + " snapshot isolation, not 'snapshot'")
          .hasMessageContaining("ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON;");
    }
    assertThat(jdbc.executed.get(0).sql()).isEqualTo("SET TRANSACTION ISOLATION LEVEL SNAPSHOT; SET LOCK_TIMEOUT -1;");
    assertThat(slept).isEmpty();
  }
}
