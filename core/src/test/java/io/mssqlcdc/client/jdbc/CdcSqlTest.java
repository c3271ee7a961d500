package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pins the text and parameter order of every statement (reference §20, Q1..Q29). */
class CdcSqlTest {
  private static final String L1 = "0x0000002A000001F00003";
  private static final String L2 = "0x0000002B000000100001";

  @Test
  void clockStatements() {
    assertThat(CdcSql.VERSION_PROBE).isEqualTo(
        "SELECT CASE WHEN CAST(SERVERPROPERTY('ProductMajorVersion') AS int) >= 16"
            + " OR CAST(SERVERPROPERTY('EngineEdition') AS int) IN (5, 8) THEN 1 ELSE 0 END");
    assertThat(CdcSql.ZONE_NAME).isEqualTo("SELECT CURRENT_TIMEZONE_ID()");
    assertThat(CdcSql.FIXED_OFFSET).isEqualTo("SELECT DATEPART(TZOFFSET, SYSDATETIMEOFFSET())");
  }

  @Test
  void lsnFunctionsBindLsnsAsHexText() {
    assertThat(CdcSql.MAX_LSN).isEqualTo("SELECT CONVERT(varchar(22), sys.fn_cdc_get_max_lsn(), 1)");
    assertThat(CdcSql.MIN_LSN).isEqualTo("SELECT CONVERT(varchar(22), sys.fn_cdc_get_min_lsn(?), 1)");
    assertThat(CdcSql.INCREMENT_LSN).isEqualTo(
        "SELECT CONVERT(varchar(22), sys.fn_cdc_increment_lsn(CONVERT(binary(10), ?, 1)), 1)");
    assertThat(CdcSql.DECREMENT_LSN).isEqualTo(
        "SELECT CONVERT(varchar(22), sys.fn_cdc_decrement_lsn(CONVERT(binary(10), ?, 1)), 1)");
    assertThat(CdcSql.ENTRY_AT_OR_BEFORE).isEqualTo(
        "SELECT TOP (1) CONVERT(varchar(22), m.start_lsn, 1) FROM cdc.lsn_time_mapping m"
            + " WHERE m.start_lsn <= CONVERT(binary(10), ?, 1) ORDER BY m.start_lsn DESC");
  }

  @Test
  void commitTimeUsesTheUtcExpressionThenTheLsn() {
    SqlText q = CdcSql.commitTime(SqlText.of(UtcConversion.plain(ServerClock.UTC, "m.tran_end_time")), L1);
    assertThat(q.sql()).isEqualTo(
        "SELECT TOP (1) CONVERT(varchar(23), CAST(m.tran_end_time AS datetime2(3)), 126) FROM cdc.lsn_time_mapping m"
            + " WHERE m.start_lsn = CONVERT(binary(10), ?, 1) ORDER BY m.start_lsn DESC");
    assertThat(q.params()).containsExactly(L1);
  }

  @Test
  void commitTimeWithDropsBindsDropsBeforeTheLsn() {
    ServerClock zone = ServerClock.parse("Central European Standard Time");
    SqlText utc = UtcConversion.corrected(zone, "m.tran_end_time", "m.start_lsn",
        List.of(new UtcConversion.Drop(io.mssqlcdc.lsn.Lsn.parse(L2), "2026-10-25T02:10:00")));
    SqlText q = CdcSql.commitTime(utc, L1);
    assertThat(q.params()).containsExactly(L2, "2026-10-25T02:10:00", L1);
  }

  @Test
  void nthCommitAfterInlinesTheCount() {
    assertThat(CdcSql.nthCommitAfter(5)).isEqualTo(
        "SELECT CONVERT(varchar(22), MAX(t.start_lsn), 1) FROM (SELECT TOP (5) start_lsn"
            + " FROM cdc.lsn_time_mapping WHERE start_lsn > CONVERT(binary(10), ?, 1) ORDER BY start_lsn) t");
    assertThatThrownBy(() -> CdcSql.nthCommitAfter(0)).hasMessageContaining("at least 1, not 0");
  }

  @Test
  void commitsBetweenCountsOneRangeSeekUpToTheLimit() {
    assertThat(CdcSql.commitsBetween(100_001)).isEqualTo(
        "SELECT COUNT_BIG(*) FROM (SELECT TOP (100001) start_lsn FROM cdc.lsn_time_mapping"
            + " WHERE start_lsn > CONVERT(binary(10), ?, 1) AND start_lsn <= CONVERT(binary(10), ?, 1)) t");
    assertThatThrownBy(() -> CdcSql.commitsBetween(0)).hasMessageContaining("at least 1, not 0");
  }

  @Test
  void splitPointsTileTheChangeTable() {
    assertThat(CdcSql.splitPoints("dbo_orders", 4)).isEqualTo(
        "SELECT CONVERT(varchar(22), MAX(y.l), 1) AS b,"
            + " CONVERT(varchar(22), sys.fn_cdc_increment_lsn(MAX(y.l)), 1) AS n, SUM(y.r) AS r"
            + " FROM (SELECT x.[__$start_lsn] AS l, MIN(x.g) AS g, COUNT_BIG(*) AS r"
            + " FROM (SELECT [__$start_lsn], NTILE(4) OVER (ORDER BY [__$start_lsn]) AS g"
            + " FROM cdc.[dbo_orders_CT]"
            + " WHERE [__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)) x"
            + " GROUP BY x.[__$start_lsn]) y"
            + " GROUP BY y.g ORDER BY b");
  }

  @Test
  void changesReadTheChangeTableInCommitOrder() {
    SqlText q = CdcSql.changes("dbo_orders", List.of("order_id", "status"), true,
        SqlText.of(UtcConversion.plain(ServerClock.UTC, "m.tran_end_time")), L1, L2);
    assertThat(q.sql()).isEqualTo(
        "SELECT c.[__$start_lsn] AS _start_lsn, c.[__$seqval] AS _seqval, c.[__$operation] AS _operation,"
            + " c.[__$command_id] AS _command_id, CONVERT(varchar(23), CAST(m.tran_end_time AS datetime2(3)), 126) AS _commit_ts,"
            + " c.[order_id], c.[status] FROM cdc.[dbo_orders_CT] c"
            + " JOIN cdc.lsn_time_mapping m ON m.start_lsn = c.[__$start_lsn]"
            + " WHERE c.[__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)"
            + " ORDER BY c.[__$start_lsn], c.[__$command_id], c.[__$seqval], c.[__$operation]");
    assertThat(q.params()).containsExactly(L1, L2);
  }

  /** Reconcile's unread keys: no mapping join, no conversion, ordered by the change table's clustered key. */
  @Test
  void changesWithoutCommitTimesJoinNothingAndFollowTheClusteredKey() {
    SqlText q = CdcSql.changes("dbo_orders", List.of("order_id"), true, null, L1, L2);
    assertThat(q.sql()).isEqualTo(
        "SELECT c.[__$start_lsn] AS _start_lsn, c.[__$seqval] AS _seqval, c.[__$operation] AS _operation,"
            + " c.[__$command_id] AS _command_id, CAST(NULL AS varchar(23)) AS _commit_ts,"
            + " c.[order_id] FROM cdc.[dbo_orders_CT] c"
            + " WHERE c.[__$start_lsn] BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)"
            + " ORDER BY c.[__$start_lsn], c.[__$command_id], c.[__$seqval], c.[__$operation]");
    assertThat(q.params()).containsExactly(L1, L2);
  }

  @Test
  void changesWithoutCommandIdNeitherSelectNorOrderByIt() {
    SqlText q = CdcSql.changes("dbo_orders", List.of(), false,
        SqlText.of(UtcConversion.withOffset(-180, "m.tran_end_time")), L1, L2);
    assertThat(q.sql()).doesNotContain("__$command_id")
        .contains("0 AS _command_id")
        .contains("CAST(DATEADD(minute, 180, m.tran_end_time) AS datetime2(3))")
        .endsWith("ORDER BY c.[__$start_lsn], c.[__$seqval], c.[__$operation]");
  }

  @Test
  void changesBindFallBackDropsBeforeTheLsnRange() {
    ServerClock zone = ServerClock.parse("Pacific Standard Time");
    SqlText utc = UtcConversion.corrected(zone, "m.tran_end_time", "m.start_lsn",
        List.of(new UtcConversion.Drop(io.mssqlcdc.lsn.Lsn.parse(L1), "2026-11-01T01:05:00")));
    SqlText q = CdcSql.changes("dbo_orders", List.of("a"), true, utc, L1, L2);
    assertThat(q.params()).containsExactly(L1, "2026-11-01T01:05:00", L1, L2);
  }

  @Test
  void metadataGoesThroughDocumentedProcedures() {
    assertThat(CdcSql.CAPTURED_COLUMNS).isEqualTo("EXEC sys.sp_cdc_get_captured_columns @capture_instance = ?");
    assertThat(CdcSql.DDL_HISTORY).isEqualTo("EXEC sys.sp_cdc_get_ddl_history @capture_instance = ?");
    assertThat(CdcSql.HELP_ALL).isEqualTo("EXEC sys.sp_cdc_help_change_data_capture");
    assertThat(CdcSql.HELP_TABLE).isEqualTo("EXEC sys.sp_cdc_help_change_data_capture @source_schema = ?, @source_name = ?");
    assertThat(CdcSql.TABLE_COLUMNS).isEqualTo(
        "SELECT c.name, c.column_id, c.is_computed, c.collation_name, TYPE_NAME(c.system_type_id) AS type_name,"
            + " c.max_length, c.precision, c.scale FROM sys.columns c"
            + " WHERE c.object_id = OBJECT_ID(QUOTENAME(?) + '.' + QUOTENAME(?)) ORDER BY c.column_id");
    assertThat(CdcSql.PERMISSION_PROBE).isEqualTo(
        "SELECT CASE WHEN sys.fn_cdc_get_min_lsn(?) > 0x00000000000000000000"
            + " THEN HAS_PERMS_BY_NAME(?, 'OBJECT', 'SELECT') END, USER_NAME()");
    assertThat(CdcSql.COMMAND_ID_PROBE).isEqualTo("SELECT COL_LENGTH(?, '__$command_id')");
    assertThat(SqlText.countMarks(CdcSql.COMMAND_ID_PROBE)).isEqualTo(1);
    assertThat(CdcSql.PING).isEqualTo("SELECT 1");
    assertThat(CdcSql.NETWORK_WAIT).isEqualTo("SELECT wait_time_ms FROM sys.dm_exec_session_wait_stats"
        + " WHERE session_id = @@SPID AND wait_type = 'ASYNC_NETWORK_IO'");
  }

  @Test
  void noStatementReadsCdcTablesOtherThanTheChangeTableAndTheMapping() {
    String all = String.join("\n", CdcSql.MAX_LSN, CdcSql.MIN_LSN, CdcSql.CAPTURED_COLUMNS, CdcSql.DDL_HISTORY,
        CdcSql.HELP_ALL, CdcSql.HELP_TABLE, CdcSql.TABLE_COLUMNS, CdcSql.PERMISSION_PROBE, CdcSql.CDC_ENABLED,
        CdcSql.CAPTURE_AGE_SECONDS, CdcSql.splitPoints("dbo_t", 2),
        CdcSql.drops(ServerClock.parse("UTC-03:00")), CdcSql.rangeOffset(ServerClock.parse("Tokyo Standard Time")),
        CdcSql.lastEntryAtOrBefore(SqlText.of("CAST(m.tran_end_time AS datetime2(3))"), L1, L2, "2019-01-01T00:00:00.000").sql(),
        CdcSql.ROW_ESTIMATE, CdcSql.countRows(new TableRef("dbo", "t")), CdcSql.keyMax(new TableRef("dbo", "t"), List.of("k")));
    assertThat(all).doesNotContain("cdc.change_tables", "cdc.captured_columns", "cdc.ddl_history", "cdc.index_columns",
        "msdb", "fn_cdc_get_all_changes");
  }

  @Test
  void preflightStatements() {
    assertThat(CdcSql.CDC_ENABLED).isEqualTo("SELECT is_cdc_enabled, DB_NAME() FROM sys.databases WHERE database_id = DB_ID()");
    assertThat(CdcSql.CAPTURE_AGE_SECONDS).isEqualTo(
        "SELECT DATEDIFF(second, m.tran_end_time, SYSDATETIME()) FROM cdc.lsn_time_mapping m"
            + " WHERE m.start_lsn = sys.fn_cdc_get_max_lsn()");
  }

  @Test
  void dropsQueryText() {
    ServerClock z = ServerClock.parse("Pacific Standard Time");
    assertThat(CdcSql.drops(z)).isEqualTo(
        "SELECT CONVERT(varchar(22), x.start_lsn, 1) AS l, CONVERT(varchar(23), x.tran_end_time, 126) AS t"
            + " FROM (SELECT m.start_lsn, m.tran_end_time, LAG(m.tran_end_time) OVER (ORDER BY m.start_lsn) AS prev"
            + " FROM (SELECT TOP (1) f.tran_end_time FROM cdc.lsn_time_mapping f"
            + " WHERE f.start_lsn >= CONVERT(binary(10), ?, 1) ORDER BY f.start_lsn) a"
            + " JOIN cdc.lsn_time_mapping m ON m.start_lsn >= ISNULL((SELECT TOP (1) e.start_lsn FROM cdc.lsn_time_mapping e"
            + " WHERE e.tran_end_time <= DATEADD(hour, -3, a.tran_end_time) ORDER BY e.tran_end_time DESC),"
            + " 0x00000000000000000000)"
            + " AND m.start_lsn <= CONVERT(binary(10), ?, 1)) x"
            + " WHERE x.tran_end_time < DATEADD(minute, -1, x.prev)"
            + " AND " + UtcConversion.repeated(z, "x.tran_end_time")
            + " ORDER BY x.start_lsn");
  }

  @Test
  void dropsOfARangePastTheLastMappingEntryScanNothing() {
    // The window starts 3 hours before the range's first entry. With no entry at or after the range
    // start (an LSN past the last mapping entry), the anchor row is missing and the join reads no
    // row, instead of falling back to 0x00.. and scanning the whole of cdc.lsn_time_mapping.
    String q = CdcSql.drops(ServerClock.parse("Eastern Standard Time"));
    assertThat(q).contains(" FROM (SELECT TOP (1) f.tran_end_time FROM cdc.lsn_time_mapping f"
        + " WHERE f.start_lsn >= CONVERT(binary(10), ?, 1) ORDER BY f.start_lsn) a JOIN cdc.lsn_time_mapping m ON ");
    assertThat(SqlText.countMarks(q)).isEqualTo(2);
  }

  @Test
  void sessionPrefixSetsIsolationAndLockTimeoutNeverNolock() {
    assertThat(CdcSql.sessionPrefix(Isolation.READ_COMMITTED, -1))
        .isEqualTo("SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCK_TIMEOUT -1;");
    assertThat(CdcSql.sessionPrefix(Isolation.SNAPSHOT, 5000))
        .isEqualTo("SET TRANSACTION ISOLATION LEVEL SNAPSHOT; SET LOCK_TIMEOUT 5000;");
  }

  @Test
  void keyMinMaxIsTwoSeeks() {
    TableRef t = new TableRef("dbo", "orders");
    KeyPredicates.Key k = new KeyPredicates.Key("order_id", "int", null);
    SqlText q = CdcSql.keyMinMax(t, "order_id", KeyPredicates.pieces(List.of(k), new KeyRange(List.of(10), List.of(20))));
    assertThat(q.sql()).isEqualTo(
        "SELECT (SELECT MIN([order_id]) FROM [dbo].[orders] WHERE [order_id] >= 10 AND ([order_id] < 20 OR [order_id] IS NULL))"
            + " AS lo, (SELECT MAX([order_id]) FROM [dbo].[orders] WHERE [order_id] >= 10 AND ([order_id] < 20 OR [order_id] IS NULL)) AS hi");
    assertThat(CdcSql.keyMinMax(t, "order_id", List.of()).sql()).isEqualTo(
        "SELECT (SELECT MIN([order_id]) FROM [dbo].[orders]) AS lo, (SELECT MAX([order_id]) FROM [dbo].[orders]) AS hi");
  }

  @Test
  void keyTilesUseNtileAndLag() {
    assertThat(CdcSql.keyTiles(new TableRef("dbo", "o"), List.of("a", "b"), 4)).isEqualTo(
        "SELECT [a], [b] FROM (SELECT [a], [b], [__$tile], LAG([__$tile]) OVER (ORDER BY [a], [b]) AS [__$prev]"
            + " FROM (SELECT [a], [b], NTILE(4) OVER (ORDER BY [a], [b]) AS [__$tile] FROM [dbo].[o]) a) b"
            + " WHERE [__$tile] <> [__$prev] ORDER BY [__$tile]");
  }

  @Test
  void lastEntryAtOrBeforeComparesTheReportedUtcTimeInAnLsnRange() {
    SqlText plain = SqlText.of(UtcConversion.plain(ServerClock.UTC, "m.tran_end_time"));
    SqlText q = CdcSql.lastEntryAtOrBefore(plain, L1, L2, "2019-06-03T10:00:05.500");
    assertThat(q.sql()).isEqualTo(
        "SELECT TOP (1) CONVERT(varchar(22), m.start_lsn, 1) FROM cdc.lsn_time_mapping m"
            + " WHERE m.start_lsn BETWEEN CONVERT(binary(10), ?, 1) AND CONVERT(binary(10), ?, 1)"
            + " AND CAST(m.tran_end_time AS datetime2(3)) <= CONVERT(datetime2(3), ?, 126) ORDER BY m.start_lsn DESC");
    assertThat(q.params()).containsExactly(L1, L2, "2019-06-03T10:00:05.500");
    assertThat(CdcSql.firstEntryAtOrBefore(plain, L1, L2, "2019-06-03T10:00:05.500").sql())
        .isEqualTo(q.sql().replace(" DESC", ""));
    // the fall-back corrected form's drops come between the range and the time
    SqlText corrected = UtcConversion.corrected(ServerClock.parse("E. South America Standard Time"), "m.tran_end_time",
        "m.start_lsn", List.of(new UtcConversion.Drop(io.mssqlcdc.lsn.Lsn.parse(L2), "2019-02-16T23:05:00")));
    assertThat(CdcSql.lastEntryAtOrBefore(corrected, L1, L2, "2019-02-17T01:50:00.000").params())
        .containsExactly(L1, L2, L2, "2019-02-16T23:05:00", "2019-02-17T01:50:00.000");
  }

  @Test
  void utcTimesAreTruncatedToTheMillisecondAndKeptInDatetime2sRange() {
    assertThat(UtcConversion.text(java.time.Instant.parse("2019-06-03T10:00:05.5009Z"))).contains("2019-06-03T10:00:05.500");
    assertThat(UtcConversion.text(java.time.Instant.parse("0001-01-01T00:00:00Z"))).contains("0001-01-01T00:00:00.000");
    assertThat(UtcConversion.text(java.time.Instant.parse("0000-12-31T23:59:59.999Z"))).isEmpty();
    assertThat(UtcConversion.text(java.time.Instant.MAX)).contains("9999-12-31T23:59:59.999");
  }

  @Test
  void keyBucketsGroupOnTheServerWithFloorDivision() {
    TableRef t = new TableRef("dbo", "orders");
    KeyPredicates.Key k = new KeyPredicates.Key("order_id", "bigint", null);
    SqlText q = CdcSql.keyBuckets(t, "order_id", io.mssqlcdc.client.KeyColumns.Ordinal.INTEGER, 1000,
        KeyPredicates.pieces(List.of(k), new KeyRange(List.of(-5000L), List.of(new java.math.BigInteger("9223372036854775808")))));
    String o = "CAST([order_id] AS bigint)";
    String w = "CAST(1000 AS bigint)";
    assertThat(q.sql()).isEqualTo(
        "SELECT [__$b] AS b, COUNT_BIG(*) AS n, SUM(CAST([__$o] AS decimal(38,0))) AS s FROM (SELECT " + o + " AS [__$o],"
            + " CASE WHEN " + o + " >= 0 THEN " + o + " / " + w + " ELSE (" + o + " + 1) / " + w + " - 1 END AS [__$b]"
            + " FROM [dbo].[orders] WHERE [order_id] IS NOT NULL AND [order_id] >= -5000"
            + " AND ([order_id] < 9223372036854775808 OR [order_id] IS NULL)) x GROUP BY [__$b] ORDER BY [__$b]");
    assertThat(q.params()).isEmpty();

    KeyPredicates.Key d = new KeyPredicates.Key("day", "date", null);
    SqlText days = CdcSql.keyBuckets(t, "day", io.mssqlcdc.client.KeyColumns.Ordinal.DATE, 7,
        KeyPredicates.pieces(List.of(d), new KeyRange(List.of(java.time.LocalDate.of(1969, 12, 31)), null)));
    String od = "CAST(DATEDIFF(day, CAST('19700101' AS date), [day]) AS bigint)";
    assertThat(days.sql()).isEqualTo(
        "SELECT [__$b] AS b, COUNT_BIG(*) AS n, SUM(CAST([__$o] AS decimal(38,0))) AS s FROM (SELECT " + od + " AS [__$o],"
            + " CASE WHEN " + od + " >= 0 THEN " + od + " / CAST(7 AS bigint) ELSE (" + od + " + 1) / CAST(7 AS bigint)"
            + " - 1 END AS [__$b] FROM [dbo].[orders] WHERE [day] IS NOT NULL AND [day] >= CAST(? AS date)) x"
            + " GROUP BY [__$b] ORDER BY [__$b]");
    assertThat(days.params()).containsExactly("1969-12-31");
    assertThat(CdcSql.keyBuckets(t, "day", io.mssqlcdc.client.KeyColumns.Ordinal.DATE, 7, List.of()).sql())
        .contains(" FROM [dbo].[orders] WHERE [day] IS NOT NULL) x GROUP BY");
    assertThatThrownBy(() -> CdcSql.keyBuckets(t, "day", io.mssqlcdc.client.KeyColumns.Ordinal.DATE, 0, List.of()))
        .hasMessageContaining("at least 1, not 0");
  }

  @Test
  void rowCountsAreCountBigAndSpSpaceused() {
    assertThat(CdcSql.countRows(new TableRef("sales", "a]b"))).isEqualTo("SELECT COUNT_BIG(*) FROM [sales].[a]]b]");
    assertThat(CdcSql.ROW_ESTIMATE).isEqualTo("EXEC sys.sp_spaceused @objname = ?");
  }

  @Test
  void keyMaxIsOneBackwardSeek() {
    assertThat(CdcSql.keyMax(new TableRef("dbo", "o"), List.of("a", "b"))).isEqualTo(
        "SELECT TOP (1) [a], [b] FROM [dbo].[o] ORDER BY [a] DESC, [b] DESC");
  }

  @Test
  void keyBoundTakesTopNPlusOneOfEachPieceAndOffsetsN() {
    TableRef t = new TableRef("dbo", "o");
    List<KeyPredicates.Key> keys = List.of(new KeyPredicates.Key("a", "int", null),
        new KeyPredicates.Key("b", "nvarchar(10)", "Latin1_General_100_BIN2"));
    SqlText q = CdcSql.keyBound(t, List.of("a", "b"), KeyPredicates.pieces(keys, new KeyRange(List.of(1, "x"), null)), 1000);
    assertThat(q.sql()).isEqualTo(
        "SELECT [a], [b] FROM (SELECT * FROM (SELECT TOP (CAST(1001 AS bigint)) [a], [b] FROM [dbo].[o]"
            + " WHERE [a] = 1 AND [b] >= CAST(? COLLATE Latin1_General_100_BIN2 AS nvarchar(10)) ORDER BY [a], [b]) p"
            + " UNION ALL SELECT * FROM (SELECT TOP (CAST(1001 AS bigint)) [a], [b] FROM [dbo].[o] WHERE [a] > 1"
            + " ORDER BY [a], [b]) p) u ORDER BY [a], [b] OFFSET CAST(1000 AS bigint) ROWS FETCH NEXT 1 ROWS ONLY");
    assertThat(q.params()).containsExactly("x");
    assertThat(CdcSql.keyBound(t, List.of("a"), List.of(), 0).sql()).isEqualTo(
        "SELECT [a] FROM (SELECT * FROM (SELECT TOP (CAST(1 AS bigint)) [a] FROM [dbo].[o] ORDER BY [a]) p) u"
            + " ORDER BY [a] OFFSET CAST(0 AS bigint) ROWS FETCH NEXT 1 ROWS ONLY");
    assertThatThrownBy(() -> CdcSql.keyBound(t, List.of("a"), List.of(), -1)).hasMessageContaining("not -1");
  }

  @Test
  void readTableJoinsPiecesWithUnionAll() {
    TableRef t = new TableRef("sales", "order lines");
    List<KeyPredicates.Key> keys = List.of(new KeyPredicates.Key("a", "int", null), new KeyPredicates.Key("b", "int", null));
    SqlText q = CdcSql.readTable(t, List.of("a", "b", "qty"),
        KeyPredicates.pieces(keys, new KeyRange(List.of(1, 5), List.of(3, 2))));
    assertThat(q.sql()).isEqualTo(
        "SELECT [a], [b], [qty] FROM [sales].[order lines] WHERE [a] = 1 AND [b] >= 5 AND (([a] < 3 OR [a] IS NULL) OR [a] = 3 AND ([b] < 2 OR [b] IS NULL))"
            + " UNION ALL SELECT [a], [b], [qty] FROM [sales].[order lines] WHERE [a] > 1 AND ([a] < 3 OR [a] IS NULL)"
            + " UNION ALL SELECT [a], [b], [qty] FROM [sales].[order lines] WHERE [a] = 3 AND ([b] < 2 OR [b] IS NULL) AND [a] > 1");
    assertThat(CdcSql.readTable(t, List.of("a"), List.of()).sql()).isEqualTo("SELECT [a] FROM [sales].[order lines]");
  }

  @Test
  void hostileNamesAreQuotedOrRejected() {
    assertThat(CdcSql.changeTable("x'--")).isEqualTo("cdc.[x'--_CT]");
    assertThat(CdcSql.changeTable("dbo_Situação")).isEqualTo("cdc.[dbo_Situação_CT]");
    assertThatThrownBy(() -> CdcSql.changeTable("a]b")).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Invalid capture instance 'a]b'").hasMessageContaining("']' is not allowed");
    assertThatThrownBy(() -> CdcSql.changeTable("a\u0000b")).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("a\\u0000b").hasMessageContaining("control character");
    assertThat(CdcSql.table(new TableRef("dbo", "a]b"))).isEqualTo("[dbo].[a]]b]");
    assertThat(CdcSql.table(new TableRef("x'--", "t; DROP TABLE t"))).isEqualTo("[x'--].[t; DROP TABLE t]");
    assertThat(CdcSql.quotedList(List.of("a]b", "c?d"))).isEqualTo("[a]]b], [c?d]");
    assertThatThrownBy(() -> CdcSql.table(new TableRef("dbo", "t\nx"))).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("control character");
    SqlText q = CdcSql.changes("dbo_t", List.of("we?ird]"), true, SqlText.of("CAST(m.tran_end_time AS datetime2(3))"), "0x00", "0x01");
    assertThat(q.sql()).contains("c.[we?ird]]]");
    assertThat(SqlText.countMarks(q.sql())).isEqualTo(2);
  }

  @Test
  void sqlTextRefusesMismatchedParameters() {
    assertThatThrownBy(() -> SqlText.of("SELECT ?")).hasMessageContaining("1 parameter marks but 0 values");
    assertThat(SqlText.countMarks("SELECT '?', N'it''s ?', [a?]]?], \"q?\" , ?")).isEqualTo(1);
  }

  @Test
  void aLockTimeoutSetLockTimeoutCannotTakeIsRefusedNamingTheOption() {
    assertThat(CdcSql.sessionPrefix(Isolation.READ_COMMITTED, Integer.MAX_VALUE))
        .endsWith("SET LOCK_TIMEOUT 2147483647;");
    assertThatThrownBy(() -> CdcSql.sessionPrefix(Isolation.READ_COMMITTED, 3_000_000_000L))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Option 'lockTimeoutMs' must be at most 2147483647 milliseconds")
        .hasMessageContaining("not '3000000000'")
        .hasMessageContaining("leave the option unset to wait forever");
    assertThatThrownBy(() -> new SqlCdcClient(() -> null, "UTC", 3_000_000_000L, DriverRetry.none()))
        .isInstanceOf(CdcConfigException.class).hasMessageContaining("lockTimeoutMs");
  }
}
