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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Statements and values of {@link SqlCdcClient} over a scripted JDBC connection, for the read-side
 * fixes of issue 8: each test names the behaviour it pins and failed before its fix.
 */
class SqlCdcClientReadSideTest {
  private static final String L1 = "0x0000002A000001F00003";
  private static final String L2 = "0x0000002B000000100001";

  private final ScriptedJdbc jdbc = new ScriptedJdbc();
  private final List<Duration> slept = new ArrayList<>();

  private SqlCdcClient client(String zone) {
    return new SqlCdcClient(jdbc::open, zone, -1, new DriverRetry(3, Duration.ofSeconds(2), slept::add, () -> 0.0));
  }

  /** Captured columns {@code OrderId int, Amount decimal(18,2)} of {@code dbo.orders} (SQL Server's spelling). */
  private void capturedOrderIdAndAmount() {
    jdbc.on(CdcSql.CAPTURED_COLUMNS, Result.rows(
        List.of("source_schema", "source_table", "column_name", "column_ordinal", "column_id", "data_type",
            "character_maximum_length", "numeric_precision", "numeric_scale", "datetime_precision"),
        List.of(),
        new Object[] {"dbo", "orders", "OrderId", 1, 1, "int", null, 10, 0, null},
        new Object[] {"dbo", "orders", "Amount", 2, 3, "decimal", null, 18, 2, null}));
    jdbc.on("SELECT c.name, c.column_id", Result.rows(List.of("name", "column_id", "is_computed", "collation_name",
        "type_name", "max_length", "precision", "scale"), List.of(),
        new Object[] {"OrderId", 1, false, null, "int", 4, 10, 0},
        new Object[] {"Amount", 3, false, null, "decimal", 9, 18, 2}));
  }

  @Test
  void requestedColumnsInAnotherCaseSelectSqlServersSpellingAndReadTheValues() {
    capturedOrderIdAndAmount();
    jdbc.on("SELECT c.[__$start_lsn]", Result.rows(
        List.of("_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts", "Amount", "OrderId"),
        List.of("binary", "binary", "int", "int", "varchar", "decimal", "int"),
        new Object[] {ScriptedJdbc.lsnBytes(L1), ScriptedJdbc.lsnBytes(L1), 2, 1, "2026-09-28T14:03:12.117", new BigDecimal("1.50"), 7}));
    List<Object> values = new ArrayList<>();
    try (SqlCdcClient c = client("UTC");
        ChangeCursor cur = c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2),
            List.of("amount", "ORDERID", "status"), true, 500))) {
      assertThat(cur.next()).isTrue();
      values.add(cur.value(0));
      values.add(cur.value(1));
      values.add(cur.value(2));
    }
    assertThat(values).containsExactly(new BigDecimal("1.50"), 7, null);
    ScriptedJdbc.Executed read = jdbc.executed.get(jdbc.executed.size() - 1);
    assertThat(read.sql()).contains(", c.[Amount], c.[OrderId] FROM cdc.[dbo_orders_CT] c")
        .doesNotContain("[amount]", "[ORDERID]", "[status]");
  }

  @Test
  void snapshotPlanningReadsUnderTheReadersIsolation() {
    // keyMinMax and keyTiles plan a snapshot; under isolationLevel=snapshot they must not block behind
    // writers (or fail with 1222 under lockTimeoutMs) any more than the read itself.
    capturedOrderIdAndAmount();
    jdbc.on("SELECT (SELECT MIN([OrderId])", Result.rows(List.of("lo", "hi"), List.of("int", "int"), new Object[] {1, 9}));
    jdbc.on("SELECT [OrderId] FROM (SELECT [OrderId], [__$tile]", Result.rows(List.of("OrderId"), List.of("int"), new Object[] {5}));
    io.mssqlcdc.client.TableRef orders = new io.mssqlcdc.client.TableRef("dbo", "orders");
    try (SqlCdcClient c = new SqlCdcClient(jdbc::open, "UTC", 5000, io.mssqlcdc.client.TableQuery.Isolation.SNAPSHOT,
        new DriverRetry(3, Duration.ofSeconds(2), slept::add, () -> 0.0))) {
      assertThat(c.keyMinMax(orders, "OrderId", io.mssqlcdc.client.KeyRange.ALL)).contains(List.of(1, 9));
      assertThat(c.keyTiles(orders, List.of("OrderId"), 2)).containsExactly(List.of(5));
    }
    List<String> sql = jdbc.executed.stream().map(ScriptedJdbc.Executed::sql).toList();
    assertThat(sql).filteredOn(q -> q.startsWith("SET ")).containsExactly(
        "SET TRANSACTION ISOLATION LEVEL SNAPSHOT; SET LOCK_TIMEOUT 5000;");
    assertThat(sql.indexOf("SET TRANSACTION ISOLATION LEVEL SNAPSHOT; SET LOCK_TIMEOUT 5000;"))
        .isLessThan(sql.indexOf(sql.stream().filter(q -> q.startsWith("SELECT (SELECT MIN")).findFirst().orElseThrow()));
  }

  @Test
  void commitsBetweenIsOneCountingStatement() {
    // pendingCommits of a lagging stream's progress report: one COUNT_BIG over TOP (limit), not ~35
    // nthCommitAfter probes each prepared anew and reading up to 1.5 M mapping rows.
    jdbc.on("SELECT COUNT_BIG(*) FROM (SELECT TOP (100001) start_lsn FROM cdc.lsn_time_mapping", Result.scalar(100001));
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.commitsBetween(Lsn.parse(L1), Lsn.parse(L2), 100_001)).isEqualTo(100_001);
      assertThat(c.commitsBetween(Lsn.parse(L2), Lsn.parse(L1), 100_001)).isZero();
    }
    assertThat(jdbc.executed).hasSize(1);
    assertThat(jdbc.executed.get(0).sql()).isEqualTo(CdcSql.commitsBetween(100_001));
    assertThat(jdbc.executed.get(0).params()).containsExactly(L1, L2);
  }

  @Test
  void aDetectedFixedOffsetIsReadAgainOnTheOpenConnection() {
    // SQL Server before 2022 tells only today's offset; the driver re-reads it before batches with new
    // commits. It asks again on the connection it has, not on a new one.
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    jdbc.on(CdcSql.VERSION_PROBE, Result.scalar(0))
        .on(CdcSql.FIXED_OFFSET, e -> Result.scalar(asked.incrementAndGet() == 1 ? -180 : -120));
    try (SqlCdcClient c = client("auto")) {
      assertThat(c.sourceTimeZone()).isEqualTo("UTC-03:00");
      assertThat(c.refreshSourceTimeZone()).isEqualTo("UTC-02:00");
      assertThat(c.sourceTimeZone()).isEqualTo("UTC-02:00");
    }
    assertThat(jdbc.connectionsOpened).isEqualTo(1);
    assertThat(jdbc.executed).extracting(ScriptedJdbc.Executed::sql)
        .containsExactly(CdcSql.VERSION_PROBE, CdcSql.FIXED_OFFSET, CdcSql.VERSION_PROBE, CdcSql.FIXED_OFFSET);
    try (SqlCdcClient c = client("UTC-03:00")) {
      assertThat(c.refreshSourceTimeZone()).isEqualTo("UTC-03:00");
    }
    assertThat(jdbc.executed).hasSize(4);
  }

  @Test
  void timeValuesReadInTheReferencesForm() {
    // reference §4.1: time is STRING '13:50:01.123456700' (nine digits, for every precision); bronze rows
    // from the reference and from us agree (docs/decisions/0004-time-text.md)
    capturedOrderIdAndAmount();
    jdbc.on("SELECT c.[__$start_lsn]", Result.rows(
        List.of("_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts", "OrderId"),
        List.of("binary", "binary", "int", "int", "varchar", "time"),
        new Object[] {ScriptedJdbc.lsnBytes(L1), ScriptedJdbc.lsnBytes(L1), 2, 1, "2026-09-28T14:03:12.117", java.time.LocalTime.parse("13:50:01.1234567")},
        new Object[] {ScriptedJdbc.lsnBytes(L1), ScriptedJdbc.lsnBytes(L2), 2, 1, "2026-09-28T14:03:12.117", java.time.LocalTime.parse("13:50:01")}));
    List<Object> values = new ArrayList<>();
    try (SqlCdcClient c = client("UTC");
        ChangeCursor cur = c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("OrderId"), true, 10))) {
      while (cur.next()) {
        values.add(cur.value(0));
      }
    }
    assertThat(values).containsExactly("13:50:01.123456700", "13:50:01.000000000");
  }

  @Test
  void aFailedPermissionProbeKeepsTheReadsOwnError() {
    capturedOrderIdAndAmount();
    jdbc.on("SELECT c.[__$start_lsn]", Result.fail(229, "S0005"));
    jdbc.on(CdcSql.PERMISSION_PROBE, Result.fail(4060, "S0001"));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("OrderId"), true, 10)))
          .isInstanceOf(CdcPermissionException.class)
          .hasMessageContaining("change rows of dbo_orders")
          .hasMessageContaining("error 229")
          .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
              .satisfies(p -> assertThat(p.getMessage()).contains("the permission probe").contains("error 4060")));
    }
  }

  /**
   * A probe whose every attempt fails transiently (the server flaps, or the probe is the deadlock
   * victim each time) gives up on the probe, not on the read: the user still reads the read's own
   * error (a missing grant, a missing __$command_id), not "SQL Server did not answer".
   */
  @Test
  void aProbeThatFailsTransientlyOnEveryAttemptKeepsTheReadsOwnError() {
    capturedOrderIdAndAmount();
    jdbc.on("SELECT c.[__$start_lsn]", Result.fail(229, "S0005"));
    jdbc.on(CdcSql.PERMISSION_PROBE, Result.fail(1205, "40001"));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("OrderId"), true, 10)))
          .isInstanceOf(CdcPermissionException.class)
          .hasMessageContaining("change rows of dbo_orders")
          .hasMessageContaining("error 229")
          .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
              .isInstanceOf(CdcSourceUnavailableException.class)
              .satisfies(p -> assertThat(p.getMessage()).contains("the permission probe after 4 attempt(s)").contains("error 1205")));
    }
    assertThat(slept).as("the probe was retried with the standard backoff").containsExactly(
        Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
    jdbc.rules.clear();
    capturedOrderIdAndAmount();
    jdbc.on("SELECT c.[__$start_lsn]", Result.fail(207, "S0001"));
    jdbc.on(CdcSql.COMMAND_ID_PROBE, Result.fail(1205, "40001"));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.changes(new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("OrderId"), true, 10)))
          .hasMessageContaining("error 207")
          .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
              .satisfies(p -> assertThat(p.getMessage()).contains("the __$command_id probe after 4 attempt(s)")));
    }
  }

  @Test
  void error207SuggestsIncludeCommandIdOnlyWhereTheMissingColumnIsCommandId() {
    capturedOrderIdAndAmount();
    jdbc.on("SELECT c.[__$start_lsn]", Result.fail(207, "S0001"));
    jdbc.on("SELECT CONVERT(varchar(22), MAX(y.l), 1)", Result.fail(207, "S0001"));
    java.util.concurrent.atomic.AtomicReference<Object> length = new java.util.concurrent.atomic.AtomicReference<>(8);
    jdbc.on(CdcSql.COMMAND_ID_PROBE, e -> Result.scalar(length.get()));
    ChangeQuery withCommandId = new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("OrderId"), true, 10);
    ChangeQuery without = new ChangeQuery("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), List.of("OrderId"), false, 10);
    try (SqlCdcClient c = client("UTC")) {
      // the change table has __$command_id (length 8): another column is missing
      assertThatThrownBy(() -> c.changes(withCommandId)).isInstanceOf(CdcSourceUnavailableException.class)
          .hasMessageContaining("error 207").hasMessageNotContaining("includeCommandId");
      // the statement does not select __$command_id: it cannot be the cause (and is not probed)
      assertThatThrownBy(() -> c.changes(without)).hasMessageContaining("error 207").hasMessageNotContaining("includeCommandId");
      assertThatThrownBy(() -> c.splitPoints("dbo_orders", Lsn.parse(L1), Lsn.parse(L2), 2))
          .hasMessageContaining("error 207").hasMessageNotContaining("includeCommandId");
      length.set(null);
      assertThatThrownBy(() -> c.changes(withCommandId)).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("has no column __$command_id").hasMessageContaining("includeCommandId=false");
    }
    assertThat(jdbc.executed).filteredOn(e -> e.sql().equals(CdcSql.COMMAND_ID_PROBE)).hasSize(2)
        .allSatisfy(e -> assertThat(e.params()).containsExactly("cdc.[dbo_orders_CT]"));
  }
}
