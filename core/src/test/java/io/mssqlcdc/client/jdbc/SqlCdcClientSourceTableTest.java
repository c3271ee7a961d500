package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.ScriptedJdbc.Result;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What {@link SqlCdcClient} sends and how it reads the answers for the statements reconcile and
 * chunked snapshots use (Q9, Q23, Q25-Q27), over a scripted connection. What the answers mean is
 * pinned against SQL Server by {@code CdcClientContractTest}.
 */
class SqlCdcClientSourceTableTest {
  private static final String L1 = "0x0000002A000001F00003";
  private static final String L2 = "0x0000002B000000100001";
  private static final String L3 = "0x0000002B000000200001";
  private static final String LAST_ENTRY = "SELECT TOP (1) CONVERT(varchar(22), m.start_lsn, 1) FROM cdc.lsn_time_mapping m";
  private static final TableRef ORDERS = new TableRef("dbo", "orders");

  private final ScriptedJdbc jdbc = new ScriptedJdbc();

  private SqlCdcClient client(String zone) {
    return new SqlCdcClient(jdbc::open, zone, 5000, Isolation.SNAPSHOT,
        new DriverRetry(3, Duration.ofSeconds(2), d -> {}, () -> 0.0));
  }

  /** {@code dbo.orders (OrderId int, Day date, Code nvarchar(10))} as {@code sys.columns} lists it. */
  private void ordersColumns() {
    jdbc.on("SELECT c.name, c.column_id", Result.rows(List.of("name", "column_id", "is_computed", "collation_name",
        "type_name", "max_length", "precision", "scale"), List.of(),
        new Object[] {"OrderId", 1, false, null, "int", 4, 10, 0},
        new Object[] {"Day", 2, false, null, "date", 3, 10, 0},
        new Object[] {"Code", 3, false, "SQL_Latin1_General_CP1_CI_AS", "nvarchar", 20, 0, 0}));
  }

  private List<String> sql() {
    return jdbc.executed.stream().map(ScriptedJdbc.Executed::sql).toList();
  }

  @Test
  void onAUtcClockTheLastEntryAtOrBeforeATimeIsOneStatement() {
    jdbc.on(LAST_ENTRY, Result.scalar(L2));
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.lsnAtOrBefore(Instant.parse("2019-06-03T10:00:05.5009Z"))).contains(Lsn.parse(L2));
      assertThat(c.lsnAtOrBefore(Instant.parse("0000-12-31T23:59:59Z"))).as("before datetime2 begins: nothing asked").isEmpty();
    }
    assertThat(jdbc.executed).singleElement().satisfies(e -> {
      assertThat(e.sql()).contains("AND CAST(m.tran_end_time AS datetime2(3)) <= CONVERT(datetime2(3), ?, 126)");
      assertThat(e.params()).containsExactly(Lsn.ZERO.hex(), Lsn.MAX.hex(), "2019-06-03T10:00:05.500");
    });
  }

  @Test
  void onANamedZoneTheFallBackCorrectedTimesOfAShortRangeDecide() {
    // 1: plain conversion over everything (the candidate, at or after the answer); 2: plain, 3 hours
    // earlier, below the candidate (the range's start); 3: corrected conversion of [start, candidate]
    AtomicInteger lastEntry = new AtomicInteger();
    jdbc.on(LAST_ENTRY, e -> Result.scalar(switch (lastEntry.incrementAndGet()) {
      case 1 -> L3;
      case 2 -> L1;
      default -> L2;
    }));
    jdbc.on("SELECT CASE WHEN DATEDIFF(day", Result.scalar(null)); // Q13: no single offset
    jdbc.on("SELECT CONVERT(varchar(22), x.start_lsn, 1) AS l", Result.rows(List.of("l", "t"), List.of("varchar", "varchar"),
        new Object[] {L2, "2019-02-16T23:05:00"})); // Q14: one drop
    try (SqlCdcClient c = client("E. South America Standard Time")) {
      assertThat(c.lsnAtOrBefore(Instant.parse("2019-02-17T01:50:00Z"))).contains(Lsn.parse(L2));
    }
    List<ScriptedJdbc.Executed> asked = jdbc.executed.stream().filter(e -> e.sql().startsWith(LAST_ENTRY)).toList();
    assertThat(asked).hasSize(3);
    String plain = "CAST((m.tran_end_time AT TIME ZONE N'E. South America Standard Time') AT TIME ZONE 'UTC' AS datetime2(3))";
    assertThat(asked.get(0).sql()).contains(" AND " + plain + " <= ");
    assertThat(asked.get(0).params()).containsExactly(Lsn.ZERO.hex(), Lsn.MAX.hex(), "2019-02-17T01:50:00.000");
    assertThat(asked.get(1).params()).containsExactly(Lsn.ZERO.hex(), L3, "2019-02-16T22:50:00.000");
    assertThat(asked.get(2).sql()).contains(" AND CASE WHEN EXISTS (SELECT 1 FROM (VALUES (CONVERT(binary(10), ?, 1),");
    assertThat(asked.get(2).params()).containsExactly(L1, L3, L2, "2019-02-16T23:05:00", "2019-02-17T01:50:00.000");
    assertThat(jdbc.executed.stream().filter(e -> e.sql().startsWith("SELECT CASE WHEN DATEDIFF(day")).toList())
        .singleElement().satisfies(e -> assertThat(e.params()).containsExactly(L1, L3));
  }

  @Test
  void withoutAnEntryThreeHoursOlderTheCorrectedRangeStartsAtTheFirstEntryAtOrBeforeTheTime() {
    // not at 0x00..: Q14 would then look for drops from the mapping's first entry on
    AtomicInteger call = new AtomicInteger();
    jdbc.on(LAST_ENTRY, e -> Result.scalar(switch (call.incrementAndGet()) {
      case 1 -> L3;   // plain, last at or before the time
      case 2 -> null; // plain, last at or before 3 hours earlier: none
      case 3 -> L1;   // plain, first at or before the time
      default -> L2;  // corrected, last at or before the time in [L1, L3]
    }));
    jdbc.on("SELECT CASE WHEN DATEDIFF(day", Result.scalar(-180)); // Q13: one offset for the range
    try (SqlCdcClient c = client("E. South America Standard Time")) {
      assertThat(c.lsnAtOrBefore(Instant.parse("2019-02-17T01:50:00Z"))).contains(Lsn.parse(L2));
    }
    List<ScriptedJdbc.Executed> asked = jdbc.executed.stream().filter(e -> e.sql().startsWith(LAST_ENTRY)).toList();
    assertThat(asked).extracting(e -> e.sql().endsWith("ORDER BY m.start_lsn DESC")).containsExactly(true, true, false, true);
    assertThat(asked.get(2).params()).containsExactly(Lsn.ZERO.hex(), L3, "2019-02-17T01:50:00.000");
    assertThat(asked.get(3).sql()).contains(" AND CAST(DATEADD(minute, 180, m.tran_end_time) AS datetime2(3)) <= ");
    assertThat(asked.get(3).params()).containsExactly(L1, L3, "2019-02-17T01:50:00.000");
  }

  @Test
  void rowEstimateReadsSpSpaceusedsPaddedText() {
    AtomicInteger call = new AtomicInteger();
    jdbc.on(CdcSql.ROW_ESTIMATE, e -> switch (call.incrementAndGet()) {
      case 1 -> Result.rows(List.of("name", "rows", "reserved"), List.of(), new Object[] {"orders", "  1234567      ", "72 KB"});
      case 2 -> Result.rows(List.of("name", "rows", "reserved"), List.of());
      default -> Result.fail(15009, "S0001");
    });
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.rowEstimate(new TableRef("dbo", "a]b"))).isEqualTo(1_234_567);
      assertThat(c.rowEstimate(ORDERS)).as("no row").isZero();
      assertThatThrownBy(() -> c.rowEstimate(ORDERS)).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("Table [dbo].[orders] not found");
    }
    assertThat(jdbc.executed.get(0).params()).containsExactly("[dbo].[a]]b]");
    assertThat(sql()).noneMatch(s -> s.startsWith("SET ")).as("metadata only: no session settings");
  }

  @Test
  void countRowsOfAMissingTableNamesIt() {
    jdbc.on("SELECT COUNT_BIG(*) FROM [dbo].[orders]", Result.fail(208, "S0002"));
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.countRows(ORDERS)).isInstanceOf(CdcConfigException.class)
          .hasMessageContaining("Table [dbo].[orders] not found");
    }
  }

  @Test
  void keyBucketsReadExactSumsUnderTheReadersIsolationWithSqlServersSpelling() {
    ordersColumns();
    jdbc.on("SELECT [__$b] AS b", Result.rows(List.of("b", "n", "s"), List.of("bigint", "bigint", "decimal"),
        new Object[] {-1L, 2L, new BigDecimal("-11")},
        new Object[] {1L, 2L, new BigDecimal("18446744073709551613")}));
    List<KeyBucket> buckets;
    try (SqlCdcClient c = client("UTC")) {
      buckets = c.keyBuckets(ORDERS, "orderid", 10, new KeyRange(List.of(-20), null));
    }
    assertThat(buckets).containsExactly(new KeyBucket(-1, 2, BigInteger.valueOf(-11)),
        new KeyBucket(1, 2, new BigInteger("18446744073709551613")));
    List<String> sql = sql();
    String read = sql.stream().filter(s -> s.startsWith("SELECT [__$b]")).findFirst().orElseThrow();
    assertThat(read).contains("CAST([OrderId] AS bigint)").contains("WHERE [OrderId] IS NOT NULL AND [OrderId] >= -20")
        .doesNotContain("[orderid]");
    assertThat(sql.indexOf("SET TRANSACTION ISOLATION LEVEL SNAPSHOT; SET LOCK_TIMEOUT 5000;")).isLessThan(sql.indexOf(read));
  }

  @Test
  void keyBucketsRefuseOtherTypesBeforeAskingTheServer() {
    ordersColumns();
    try (SqlCdcClient c = client("UTC")) {
      assertThatThrownBy(() -> c.keyBuckets(ORDERS, "code", 10, KeyRange.ALL)).isInstanceOf(CdcConfigException.class)
          .hasMessageStartingWith("MSSQL_CDC-120: Key buckets cannot use dbo.orders's key [code]: Code is nvarchar(10)");
      assertThatThrownBy(() -> c.keyBuckets(ORDERS, "day", 7, new KeyRange(List.of(3), null)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be a LocalDate, not Integer 3");
    }
    assertThat(sql()).noneMatch(s -> s.startsWith("SELECT [__$b]"));
  }

  @Test
  void keyMaxAndKeyBoundReadKeysAsTheirColumnTypes() {
    ordersColumns();
    jdbc.on("SELECT TOP (1) [OrderId], [Code] FROM [dbo].[orders] ORDER BY [OrderId] DESC, [Code] DESC",
        Result.rows(List.of("OrderId", "Code"), List.of("int", "nvarchar"), new Object[] {9, "z"}));
    jdbc.on("SELECT [OrderId], [Code] FROM (SELECT * FROM (SELECT TOP (CAST(4 AS bigint)) [OrderId], [Code]",
        Result.rows(List.of("OrderId", "Code"), List.of("int", "nvarchar"), new Object[] {4, null}));
    List<Object> bound;
    try (SqlCdcClient c = client("UTC")) {
      assertThat(c.keyMax(ORDERS, List.of("orderid", "CODE"))).contains(List.of(9, "z"));
      bound = c.keyBound(ORDERS, List.of("OrderId", "Code"), new KeyRange(List.of(1, "a"), List.of(9, "z")), 3).orElseThrow();
    }
    assertThat(bound).containsExactly(4, null);
    ScriptedJdbc.Executed read = jdbc.executed.stream().filter(e -> e.sql().contains("OFFSET CAST(3 AS bigint) ROWS")).findFirst().orElseThrow();
    assertThat(read.sql()).contains("CAST(? COLLATE SQL_Latin1_General_CP1_CI_AS AS nvarchar(10))");
    assertThat(read.params()).containsExactly("a", "z", "z");
    List<String> prefixes = new ArrayList<>(sql().stream().filter(s -> s.startsWith("SET ")).toList());
    assertThat(prefixes).containsExactly("SET TRANSACTION ISOLATION LEVEL SNAPSHOT; SET LOCK_TIMEOUT 5000;");
  }
}
