package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.SourceTable;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.errors.CdcPermissionException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
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
    assertThat(c.pingMillis()).isPresent();
    assertThat(c.networkWaitMillis()).isPresent();
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

  private static void commitSomeIds(FakeCdcDatabase db) {
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 1)));
  }
}
