package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key-range snapshots through the driver: the client's NTILE bounds (Q22), MIN/MAX (Q21) and the
 * seekable range predicates of its reads (Q24, {@code KeyPredicates}) arrive as text, and the
 * stand-in evaluates that text over the rows. Each range's rows equal the fake's own answer for
 * the same range, and the tiles cover the table exactly once.
 */
class KeyRangeTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  SqlCdcClient client;
  FakeCdcClient fake;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    standIn = SqlServerStandIn.start(dir);
    client = StandInClients.open(standIn, "");
  }

  @AfterEach
  void tearDown() {
    client.close();
    if (fake != null) {
      fake.close();
    }
    standIn.close();
    db.close();
  }

  static Stream<Arguments> keys() {
    return Stream.of(
        Arguments.of("int", (IntFunction<Object>) i -> i * 7 - 300),
        Arguments.of("bigint", (IntFunction<Object>) i -> (long) i * 1_000_000_007L),
        Arguments.of("decimal(18,3)", (IntFunction<Object>) i -> new BigDecimal(i).movePointLeft(2).negate()),
        Arguments.of("varchar(20)", (IntFunction<Object>) i -> String.format("k%04d", (i * 37) % 1000)),
        Arguments.of("nvarchar(20)", (IntFunction<Object>) i -> "\u00e9" + String.format("%03d", i)),
        Arguments.of("date", (IntFunction<Object>) i -> LocalDate.of(2020, 1, 1).plusDays(i * 3L)),
        Arguments.of("datetime2(3)", (IntFunction<Object>) i -> LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(i * 61L)),
        Arguments.of("datetime2(7)", (IntFunction<Object>) i -> LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(i * 1100L)),
        Arguments.of("uniqueidentifier", (IntFunction<Object>) i -> String.format("%08X-%04X-%04X-%04X-%012X", i * 7919, 61 - i, i * 3, i % 7, (long) (61 - i) * 104729)),
        Arguments.of("binary(4)", (IntFunction<Object>) i -> new byte[] {(byte) (i >> 8), (byte) i, 1, 2}),
        Arguments.of("varbinary(8)", (IntFunction<Object>) i -> Arrays.copyOf(new byte[] {(byte) (i % 50), (byte) i}, 1 + i % 3)),
        // bound as CONVERT(binary(8), ?, 1) from the hex: a CAST(? AS timestamp) would cast the text's characters
        Arguments.of("rowversion", (IntFunction<Object>) i -> java.nio.ByteBuffer.allocate(8).putLong(i * 40_009L + 0xF0L).array()));
  }

  private List<List<Object>> rows(CdcClient c, TableRef t, List<String> columns, List<String> keys, KeyRange range) {
    List<List<Object>> out = new ArrayList<>();
    try (RowCursor r = c.readTable(new TableQuery(t, columns, keys, range, TableQuery.Isolation.READ_COMMITTED, 5000, 100))) {
      while (r.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
          Object v = r.value(i);
          row.add(v instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : v);
        }
        out.add(row);
      }
    }
    return out;
  }

  /**
   * The fake orders uniqueidentifier keys as text; SQL Server (and the stand-in) compare the last
   * byte group first (bytes 10-15, then 8-9, 6-7, 4-5, 0-3). Tiles and ranges then differ from the
   * fake's, but through the driver they still cover the table exactly once.
   */
  private static boolean fakeOrdersLikeSqlServer(String type) {
    return !type.equals("uniqueidentifier");
  }

  @Test
  void uniqueidentifierKeysAreOrderedAsSqlServerOrdersThem() {
    db.createTable("dbo", "g", "k uniqueidentifier", "v int").key("k");
    db.enableCdc("dbo", "g");
    List<String> guids = List.of("00000000-0000-0000-0000-000000000002", "00000000-0000-0000-0001-000000000001",
        "00000002-0000-0000-0000-000000000001", "01000000-0000-0000-0000-000000000001",
        "00000001-0000-0000-0000-000000000001");
    db.commit(tx -> {
      for (int i = 0; i < guids.size(); i++) {
        tx.insert("dbo.g", row("k", guids.get(i), "v", i));
      }
    });
    TableRef t = new TableRef("dbo", "g");
    // last group first (…01 before …02), then group 4, ..., group 1 last and in stored (little-endian)
    // order, so 01000000 (stored 00 00 00 01) sorts before 00000001 (stored 01 00 00 00)
    assertThat(client.keyTiles(t, List.of("k"), 5)).containsExactly(List.of("00000001-0000-0000-0000-000000000001"),
        List.of("00000002-0000-0000-0000-000000000001"), List.of("00000000-0000-0000-0001-000000000001"),
        List.of("00000000-0000-0000-0000-000000000002"));
    assertThat(client.keyMinMax(t, "k", KeyRange.ALL)).contains(List.of("01000000-0000-0000-0000-000000000001",
        "00000000-0000-0000-0000-000000000002"));
  }

  /**
   * Issue 26 item 11: a change-table read after a SNAPSHOT source read with no lock timeout runs
   * under READ COMMITTED again (the reset covers the isolation level, not only the lock timeout).
   */
  @Test
  void aChangeReadAfterASnapshotSourceReadRunsUnderReadCommitted() {
    db.createTable("dbo", "t", "k int", "v int").key("k");
    String ci = db.enableCdc("dbo", "t");
    db.commit(tx -> tx.insert("dbo.t", row("k", 1, "v", 1)));
    TableRef t = new TableRef("dbo", "t");
    try (RowCursor r = client.readTable(new TableQuery(t, List.of("k"), List.of("k"), KeyRange.ALL,
        TableQuery.Isolation.SNAPSHOT, -1, 10))) {
      while (r.next()) {
        // drain
      }
    }
    io.mssqlcdc.lsn.Lsn min = client.minLsn(ci);
    io.mssqlcdc.lsn.Lsn max = client.maxLsn().orElseThrow();
    try (io.mssqlcdc.client.ChangeCursor c = client.changes(
        new io.mssqlcdc.client.ChangeQuery(ci, min, max, List.of("k"), true, 10))) {
      while (c.next()) {
        // drain
      }
    }
    String prefix = null;
    String atChanges = null;
    for (SqlServerStandIn.Executed e : standIn.executed()) {
      if (e.kind() == Statement.SESSION_PREFIX) {
        prefix = e.sql();
      } else if (e.kind() == Statement.CHANGES) {
        atChanges = prefix;
      }
    }
    assertThat(atChanges).isEqualTo("SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCK_TIMEOUT -1;");
  }

  /**
   * With {@code isolationLevel=snapshot}, planning a snapshot (MIN/MAX, NTILE) reads the source
   * table under snapshot isolation too, as the read does: each planning statement runs after a
   * session prefix that set it, and a database that refuses snapshot isolation fails the planning
   * (3952), naming the option, instead of planning under READ COMMITTED and failing at the read.
   */
  @Test
  void snapshotPlanningRunsUnderTheReadersIsolation() {
    db.createTable("dbo", "t", "k int", "v int").key("k");
    db.enableCdc("dbo", "t");
    db.commit(tx -> {
      for (int i = 0; i < 10; i++) {
        tx.insert("dbo.t", row("k", i, "v", i));
      }
    });
    TableRef t = new TableRef("dbo", "t");
    try (SqlCdcClient snap = SqlCdcClient.open(io.mssqlcdc.options.CdcReaderOptions.parse(
        StandInClients.options(standIn, "", "isolationLevel", "snapshot"), io.mssqlcdc.options.CdcReaderOptions.Reader.SNAPSHOT))) {
      assertThat(snap.keyMinMax(t, "k", KeyRange.ALL)).contains(List.of(0, 9));
      assertThat(snap.keyTiles(t, List.of("k"), 2)).containsExactly(List.of(5));
    }
    String prefix = null;
    List<Statement> planned = new ArrayList<>();
    for (SqlServerStandIn.Executed e : standIn.executed()) {
      if (e.kind() == Statement.SESSION_PREFIX) {
        prefix = e.sql();
      } else if (e.kind() == Statement.KEY_MIN_MAX || e.kind() == Statement.KEY_TILES) {
        assertThat(prefix).as("the session prefix %s ran under", e.kind()).startsWith("SET TRANSACTION ISOLATION LEVEL SNAPSHOT;");
        planned.add(e.kind());
      }
    }
    assertThat(planned).containsExactly(Statement.KEY_MIN_MAX, Statement.KEY_TILES);

    try (SqlServerStandIn refusing = SqlServerStandIn.start(dir, StandInOptions.defaults().withSnapshotIsolationAllowed(false));
        SqlCdcClient snap = SqlCdcClient.open(io.mssqlcdc.options.CdcReaderOptions.parse(
            StandInClients.options(refusing, "", "isolationLevel", "snapshot"), io.mssqlcdc.options.CdcReaderOptions.Reader.SNAPSHOT))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> snap.keyMinMax(t, "k", KeyRange.ALL))
          .isInstanceOf(io.mssqlcdc.errors.CdcConfigException.class)
          .hasMessageContaining("isolationLevel")
          .hasMessageContaining("ALLOW_SNAPSHOT_ISOLATION");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keys")
  void tilesOfASingleKeyCoverTheTableOnceAndEachRangeMatchesTheFake(String type, IntFunction<Object> value) {
    db.createTable("dbo", "t", "k " + type, "v int").key("k");
    db.enableCdc("dbo", "t");
    int n = 61;
    db.commit(tx -> {
      for (int i = 0; i < n; i++) {
        tx.insert("dbo.t", row("k", value.apply(i), "v", i));
      }
    });
    fake = db.client();
    TableRef t = new TableRef("dbo", "t");
    List<List<Object>> tiles = client.keyTiles(t, List.of("k"), 5);
    assertThat(tiles).hasSize(4);
    if (fakeOrdersLikeSqlServer(type)) {
      assertThat(tiles).as("same NTILE bounds as the fake").usingRecursiveComparison().isEqualTo(fake.keyTiles(t, List.of("k"), 5));
    }
    List<List<Object>> bounds = new ArrayList<>();
    bounds.add(null);
    bounds.addAll(tiles);
    bounds.add(null);
    List<Object> seen = new ArrayList<>();
    for (int i = 0; i + 1 < bounds.size(); i++) {
      KeyRange range = new KeyRange(bounds.get(i), bounds.get(i + 1));
      List<List<Object>> viaDriver = rows(client, t, List.of("k", "v"), List.of("k"), range);
      viaDriver.forEach(r -> seen.add(r.get(1)));
      if (!fakeOrdersLikeSqlServer(type)) {
        continue;
      }
      assertThat(viaDriver).as("range %s", range).containsExactlyInAnyOrderElementsOf(rows(fake, t, List.of("k", "v"), List.of("k"), range));
      Object lo = client.keyMinMax(t, "k", range).orElseThrow().get(0);
      Object fakeLo = fake.keyMinMax(t, "k", range).orElseThrow().get(0);
      assertThat(lo instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : lo)
          .isEqualTo(fakeLo instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : fakeLo);
    }
    Collections.sort(seen, (a, b) -> Integer.compare((Integer) a, (Integer) b));
    assertThat(seen).as("every row exactly once").hasSize(n).doesNotHaveDuplicates();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keys")
  void compositeKeysWithANullableLeadingColumnCoverTheTableOnce(String type, IntFunction<Object> value) {
    db.createTable("dbo", "c", "a int", "b " + type, "v int").key("a", "b");
    db.enableCdc("dbo", "c");
    int n = 47;
    db.commit(tx -> {
      for (int i = 0; i < n; i++) {
        tx.insert("dbo.c", row("a", i % 4 == 0 ? null : i % 3, "b", value.apply(i), "v", i));
      }
    });
    fake = db.client();
    TableRef t = new TableRef("dbo", "c");
    List<String> keys = List.of("a", "b");
    List<List<Object>> tiles = client.keyTiles(t, keys, 6);
    if (fakeOrdersLikeSqlServer(type)) {
      assertThat(tiles).usingRecursiveComparison().isEqualTo(fake.keyTiles(t, keys, 6));
    }
    List<List<Object>> bounds = new ArrayList<>();
    bounds.add(null);
    bounds.addAll(tiles);
    bounds.add(null);
    List<Object> seen = new ArrayList<>();
    for (int i = 0; i + 1 < bounds.size(); i++) {
      KeyRange range = new KeyRange(bounds.get(i), bounds.get(i + 1));
      List<List<Object>> viaDriver = rows(client, t, List.of("a", "b", "v"), keys, range);
      if (fakeOrdersLikeSqlServer(type)) {
        assertThat(viaDriver).as("range %s", range).containsExactlyInAnyOrderElementsOf(rows(fake, t, List.of("a", "b", "v"), keys, range));
      }
      viaDriver.forEach(r -> seen.add(r.get(2)));
    }
    assertThat(seen).as("every row exactly once").hasSize(n).doesNotHaveDuplicates();
    assertThat(client.keyMinMax(t, "a", KeyRange.ALL)).contains(Arrays.asList(0, 2));
    assertThat(standIn.executed().stream().map(SqlServerStandIn.Executed::kind).distinct())
        .contains(Statement.KEY_TILES, Statement.READ_TABLE, Statement.KEY_MIN_MAX, Statement.SESSION_PREFIX);
  }
}
