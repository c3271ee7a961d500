package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyColumns;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.CdcSql;
import io.mssqlcdc.client.jdbc.KeyPredicates;
import io.mssqlcdc.client.jdbc.ServerClock;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.client.jdbc.SqlText;
import io.mssqlcdc.client.jdbc.UtcConversion;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcPermissionException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every statement {@code SqlCdcClient} can send reaches the stand-in and is answered: each public
 * method of the client runs at least once, on a UTC server, a server in a zone with daylight
 * saving, and a server older than 2022; the kinds the stand-in recognised are all of
 * {@link Statement}. A statement the client sends that no shape knows fails here too (the
 * stand-in's close).
 */
class EveryStatementTest {
  @TempDir Path dir;

  private static void commitSome(FakeCdcDatabase db, LocalDateTime base) {
    for (int c = 0; c < 4; c++) {
      int id = c;
      db.commitAt(base.plusMinutes(40L * c), tx -> tx.insert("dbo.orders", row("order_id", id, "status", "s" + id)));
    }
  }

  private Set<Statement> run(Path path, String zone, LocalDateTime base, StandInOptions options) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(path)) {
      db.serverTimeZone(zone);
      db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
      db.enableCdc("dbo", "orders");
      commitSome(db, base);
      Lsn ddl = db.addColumn("dbo.orders", "note nvarchar(10)");
      db.enableCdc("dbo", "orders", "dbo_orders_v2", "order_id");
      db.commitAt(base.plusHours(4), tx -> tx.insert("dbo.orders", row("order_id", 10, "status", "late", "note", "n")));
      SqlServerStandIn standIn = SqlServerStandIn.start(path, options);
      try (SqlCdcClient c = StandInClients.open(standIn, "")) {
        exercise(c, ddl);
      }
      Set<Statement> seen = EnumSet.noneOf(Statement.class);
      standIn.executed().forEach(e -> {
        if (e.kind() != null) {
          seen.add(e.kind());
        }
      });
      standIn.close();
      return seen;
    }
  }

  private static void exercise(SqlCdcClient c, Lsn ddl) {
    c.preflight("dbo_orders");
    Lsn max = c.maxLsn().orElseThrow();
    Lsn min = c.minLsn("dbo_orders");
    assertThat(c.captureInstances("dbo_orders")).hasSize(2);
    assertThat(c.captureInstances("dbo_orders_v2")).as("second resolution, by table").hasSize(2);
    SourceTable t = c.sourceTable("dbo_orders");
    assertThat(t.keyColumns()).containsExactly("order_id");
    assertThat(c.tableColumns(new TableRef("dbo", "orders"))).extracting(TableColumn::name)
        .containsExactly("order_id", "status", "note");
    assertThat(c.capturedColumns("dbo_orders")).hasSize(2);
    List<DdlEvent> events = c.ddlHistory("dbo_orders", min, max);
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.lsn()).isEqualTo(ddl);
      assertThat(e.command()).contains("note");
      assertThat(e.commitTime()).isNotNull();
    });
    assertThat(c.incrementLsn(min)).isGreaterThan(min);
    assertThat(c.decrementLsn(max)).isLessThan(max);
    assertThat(c.commitTime(max)).isPresent();
    assertThat(c.commitTimeAtOrBefore(ddl)).isPresent();
    assertThat(c.nthCommitAfter(min, 2)).isPresent();
    assertThat(c.commitsBetween(min, max, 2)).as("capped at the limit").isEqualTo(2);
    assertThat(c.commitsBetween(c.decrementLsn(max), max, 5)).as("max_lsn is the last entry").isEqualTo(1);
    assertThat(c.commitsBetween(max, min, 5)).as("an empty range asks nothing").isZero();
    String zone = c.sourceTimeZone();
    assertThat(c.refreshSourceTimeZone()).isEqualTo(zone);
    assertThat(c.splitPoints("dbo_orders", min, max, 2)).isNotEmpty();
    int rows = 0;
    try (ChangeCursor cursor = c.changes(new ChangeQuery("dbo_orders", min, max, List.of("order_id", "status"), true, 10))) {
      while (cursor.next()) {
        rows++;
      }
    }
    assertThat(rows).isEqualTo(5);
    assertThat(c.keyMinMax(new TableRef("dbo", "orders"), "order_id", KeyRange.ALL)).contains(List.of(0, 10));
    assertThat(c.keyTiles(new TableRef("dbo", "orders"), List.of("order_id"), 2)).hasSize(1);
    int read = 0;
    try (RowCursor r = c.readTable(new TableQuery(new TableRef("dbo", "orders"), List.of("order_id", "status"),
        List.of("order_id"), new KeyRange(List.of(1), List.of(10)), TableQuery.Isolation.SNAPSHOT, -1, 10))) {
      while (r.next()) {
        read++;
      }
    }
    assertThat(read).as("order_id in [1, 10)").isEqualTo(3);
    // reconcile and chunked backfill (Q23, Q25-Q27): keys 0, 1, 2, 3, 10
    TableRef orders = new TableRef("dbo", "orders");
    assertThat(c.countRows(orders)).isEqualTo(5);
    assertThat(c.rowEstimate(orders)).isEqualTo(5);
    assertThat(c.keyBuckets(orders, "order_id", 5, KeyRange.ALL)).containsExactly(
        new KeyBucket(0, 4, BigInteger.valueOf(6)), new KeyBucket(2, 1, BigInteger.TEN));
    assertThat(c.keyBuckets(orders, "order_id", 5, new KeyRange(List.of(1), List.of(10))))
        .containsExactly(new KeyBucket(0, 3, BigInteger.valueOf(6)));
    assertThat(c.keyMax(orders, List.of("order_id"))).contains(List.of(10));
    assertThat(c.keyBound(orders, List.of("order_id"), new KeyRange(List.of(1), null), 2)).contains(List.of(3));
    assertThat(c.keyBound(orders, List.of("order_id"), KeyRange.ALL, 5)).isEmpty();
    // From 2^31 a bare literal is numeric, which SQL Server's TOP and OFFSET refuse (1060, 10060): cast to bigint.
    assertThat(c.keyBound(orders, List.of("order_id"), KeyRange.ALL, 3_000_000_000L)).isEmpty();
    // time to LSN: on a zone with daylight saving, the first commit has no entry 3 hours before it (Q9b)
    Lsn first = c.nthCommitAfter(Lsn.ZERO, 1).orElseThrow();
    Instant firstAt = c.commitTime(first).orElseThrow();
    assertThat(c.lsnAtOrBefore(firstAt)).contains(first);
    assertThat(c.lsnAtOrBefore(firstAt.minusMillis(1))).isEmpty();
    assertThat(c.lsnAtOrBefore(c.commitTime(max).orElseThrow())).contains(max);
    assertThat(c.pingMillis()).isPresent();
    assertThat(c.networkWaitMillis()).isPresent();
    io.mssqlcdc.client.CaptureHealth health = c.captureHealth();
    assertThat(health.jobRunning()).contains(true);
    assertThat(health.unreadable()).isEmpty();
  }

  @Test
  void everyStatementIsAnsweredOnTheServersTheClientSupports() {
    Set<Statement> seen = EnumSet.noneOf(Statement.class);
    seen.addAll(run(dir.resolve("utc"), "UTC", LocalDateTime.of(2026, 3, 1, 9, 0), StandInOptions.defaults()));
    seen.addAll(run(dir.resolve("dst"), "America/New_York", LocalDateTime.of(2025, 11, 2, 0, 0),
        StandInOptions.defaults().withNetworkWaitMs(42)));
    seen.addAll(run(dir.resolve("old"), "Asia/Tokyo", LocalDateTime.of(2026, 3, 1, 9, 0),
        StandInOptions.defaults().withSqlServer2022(false)));
    seen.addAll(permissionProbe(dir.resolve("denied")));
    seen.addAll(commandIdProbe(dir.resolve("no-command-id")));
    assertThat(seen).containsExactlyInAnyOrderElementsOf(EnumSet.allOf(Statement.class));
  }

  private Set<Statement> permissionProbe(Path path) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(path)) {
      db.createTable("dbo", "orders", "order_id int").key("order_id");
      db.enableCdc("dbo", "orders");
      commitSomeIds(db);
      SqlServerStandIn standIn = SqlServerStandIn.start(path, StandInOptions.defaults().withDeniedChangeTables(Set.of("dbo_orders")));
      try (SqlCdcClient c = StandInClients.open(standIn, "")) {
        Lsn max = c.maxLsn().orElseThrow();
        assertThatThrownBy(() -> c.splitPoints("dbo_orders", Lsn.ZERO, max, 2)).isInstanceOf(CdcPermissionException.class);
      }
      Set<Statement> seen = EnumSet.noneOf(Statement.class);
      standIn.executed().forEach(e -> seen.add(e.kind()));
      standIn.close();
      return seen;
    }
  }

  /** A change table without {@code __$command_id}: the read that selected it fails with 207, and COL_LENGTH (Q29) confirms. */
  private Set<Statement> commandIdProbe(Path path) {
    try (FakeCdcDatabase db = FakeCdcDatabase.create(path)) {
      db.createTable("dbo", "orders", "order_id int").key("order_id");
      db.enableCdc("dbo", "orders");
      commitSomeIds(db);
      SqlServerStandIn standIn = SqlServerStandIn.start(path, StandInOptions.defaults().withChangeTablesHaveCommandId(false));
      try (SqlCdcClient c = StandInClients.open(standIn, "")) {
        Lsn max = c.maxLsn().orElseThrow();
        assertThatThrownBy(() -> c.changes(new ChangeQuery("dbo_orders", Lsn.ZERO, max, List.of("order_id"), true, 10)))
            .isInstanceOf(CdcConfigException.class).hasMessageContaining("includeCommandId=false");
      }
      Set<Statement> seen = EnumSet.noneOf(Statement.class);
      standIn.executed().forEach(e -> seen.add(e.kind()));
      standIn.close();
      return seen;
    }
  }

  /**
   * Every statement {@link CdcSql} can build has exactly one {@link Statement} shape: each public
   * constant, and each public builder called with sample arguments (a builder added to {@code
   * CdcSql} fails here until it is listed, recognised and answered).
   */
  @Test
  void everyStatementOfCdcSqlHasOneShape() throws ReflectiveOperationException {
    Map<String, Statement> constants = new TreeMap<>();
    for (Field f : CdcSql.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        String sql = (String) f.get(null);
        constants.put(f.getName(), Statement.recognise(sql)
            .orElseThrow(() -> new AssertionError("CdcSql." + f.getName() + " has no Statement shape: " + sql)).kind());
      }
    }
    assertThat(constants).containsOnlyKeys("VERSION_PROBE", "ZONE_NAME", "FIXED_OFFSET", "MAX_LSN", "MIN_LSN",
        "INCREMENT_LSN", "DECREMENT_LSN", "ENTRY_AT_OR_BEFORE", "PERMISSION_PROBE", "COMMAND_ID_PROBE", "CAPTURED_COLUMNS",
        "DDL_HISTORY", "HELP_ALL", "HELP_TABLE", "TABLE_COLUMNS", "PING", "NETWORK_WAIT", "CDC_ENABLED", "CAPTURE_AGE_SECONDS",
        "ROW_ESTIMATE", "HEALTH_CLOCK", "CDC_JOBS", "LOG_SCAN", "CDC_ERRORS");
    constants.forEach((name, kind) -> assertThat(kind.name()).as("CdcSql.%s", name).isEqualTo(name));

    ServerClock ny = ServerClock.parse("Eastern Standard Time");
    TableRef t = new TableRef("dbo", "orders");
    SqlText utc = UtcConversion.corrected(ny, "m.tran_end_time", "m.start_lsn",
        List.of(new UtcConversion.Drop(Lsn.parse("0x0000002A000000100003"), "2025-11-02T01:10:00")));
    List<SqlText> range = KeyPredicates.pieces(List.of(new KeyPredicates.Key("order_id", "int", null)),
        new KeyRange(List.of(1), List.of(10)));
    Map<String, Statement> built = new TreeMap<>(Map.ofEntries(
        Map.entry("commitTime", recognised(CdcSql.commitTime(utc, Lsn.ZERO.hex()).sql())),
        Map.entry("nthCommitAfter", recognised(CdcSql.nthCommitAfter(7))),
        Map.entry("commitsBetween", recognised(CdcSql.commitsBetween(100001))),
        Map.entry("rangeOffset", recognised(CdcSql.rangeOffset(ny))),
        Map.entry("drops", recognised(CdcSql.drops(ny))),
        Map.entry("splitPoints", recognised(CdcSql.splitPoints("dbo_orders", 4))),
        Map.entry("changes", recognised(CdcSql.changes("dbo_orders", List.of("order_id", "status"), true, utc,
            Lsn.ZERO.hex(), Lsn.MAX.hex()).sql())),
        Map.entry("sessionPrefix", recognised(CdcSql.sessionPrefix(TableQuery.Isolation.SNAPSHOT, 5000))),
        Map.entry("keyMinMax", recognised(CdcSql.keyMinMax(t, "order_id", range).sql())),
        Map.entry("keyTiles", recognised(CdcSql.keyTiles(t, List.of("order_id"), 4))),
        Map.entry("readTable", recognised(CdcSql.readTable(t, List.of("order_id", "status"), range).sql())),
        Map.entry("lastEntryAtOrBefore", recognised(CdcSql.lastEntryAtOrBefore(utc, Lsn.ZERO.hex(), Lsn.MAX.hex(),
            "2025-11-02T05:00:00.000").sql())),
        Map.entry("firstEntryAtOrBefore", recognised(CdcSql.firstEntryAtOrBefore(utc, Lsn.ZERO.hex(), Lsn.MAX.hex(),
            "2025-11-02T05:00:00.000").sql())),
        Map.entry("keyBuckets", recognised(CdcSql.keyBuckets(t, "order_id", KeyColumns.Ordinal.INTEGER, 10, range).sql())),
        Map.entry("countRows", recognised(CdcSql.countRows(t))),
        Map.entry("keyMax", recognised(CdcSql.keyMax(t, List.of("order_id", "status")))),
        Map.entry("keyBound", recognised(CdcSql.keyBound(t, List.of("order_id"), range, 3).sql()))));
    assertThat(recognised(CdcSql.keyBuckets(t, "day", KeyColumns.Ordinal.DATE, 7, List.of()).sql()))
        .isEqualTo(Statement.KEY_BUCKETS);
    assertThat(recognised(CdcSql.keyBound(t, List.of("order_id"), List.of(), 0).sql())).isEqualTo(Statement.KEY_BOUND);
    Set<String> builders = new TreeSet<>();
    for (Method m : CdcSql.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() == CdcSql.class
          && (m.getReturnType() == String.class || m.getReturnType() == SqlText.class)) {
        builders.add(m.getName());
      }
    }
    assertThat(builders).as("CdcSql's public builders (changeTable and table build names, not statements)")
        .containsExactlyInAnyOrderElementsOf(concat(built.keySet(), List.of("changeTable", "table")));
    assertThat(built).containsEntry("commitTime", Statement.COMMIT_TIME).containsEntry("nthCommitAfter", Statement.NTH_COMMIT_AFTER)
        .containsEntry("commitsBetween", Statement.COMMITS_BETWEEN).containsEntry("rangeOffset", Statement.RANGE_OFFSET)
        .containsEntry("drops", Statement.DROPS).containsEntry("splitPoints", Statement.SPLIT_POINTS)
        .containsEntry("changes", Statement.CHANGES).containsEntry("sessionPrefix", Statement.SESSION_PREFIX)
        .containsEntry("keyMinMax", Statement.KEY_MIN_MAX).containsEntry("keyTiles", Statement.KEY_TILES)
        .containsEntry("readTable", Statement.READ_TABLE)
        .containsEntry("lastEntryAtOrBefore", Statement.LAST_ENTRY_AT_OR_BEFORE)
        .containsEntry("firstEntryAtOrBefore", Statement.FIRST_ENTRY_AT_OR_BEFORE)
        .containsEntry("keyBuckets", Statement.KEY_BUCKETS).containsEntry("countRows", Statement.COUNT_ROWS)
        .containsEntry("keyMax", Statement.KEY_MAX).containsEntry("keyBound", Statement.KEY_BOUND);
    Set<Statement> all = EnumSet.copyOf(constants.values());
    all.addAll(built.values());
    assertThat(all).as("no Statement shape without a CdcSql statement").containsExactlyInAnyOrderElementsOf(
        EnumSet.allOf(Statement.class));
  }

  private static Statement recognised(String sql) {
    return Statement.recognise(sql).orElseThrow(() -> new AssertionError("no Statement shape for " + sql)).kind();
  }

  private static List<String> concat(Set<String> a, List<String> b) {
    List<String> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  private static void commitSomeIds(FakeCdcDatabase db) {
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1)));
  }
}
