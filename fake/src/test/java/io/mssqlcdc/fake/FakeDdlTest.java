package io.mssqlcdc.fake;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableQuery.Isolation;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ADD, DROP and ALTER COLUMN: DDL history, captured columns, change rows and the table. */
class FakeDdlTest {
  @TempDir
  Path dir;

  FakeCdcDatabase db;
  FakeCdcClient client;
  String ci;
  final TableRef orders = new TableRef("dbo", "orders");

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id");
    ci = db.enableCdc("dbo", "orders");
    client = db.client();
  }

  private List<List<Object>> changes(Lsn from, Lsn to, String... columns) {
    List<List<Object>> out = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery(ci, from, to, List.of(columns), true, 10))) {
      while (c.next()) {
        List<Object> r = new ArrayList<>();
        r.add(c.operation());
        for (int i = 0; i < columns.length; i++) {
          r.add(c.value(i));
        }
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void ddlHistoryIsReadInTheHalfOpenWindowWithTheCommitTimeBeforeIt() {
    Lsn l1 = db.commitAt(LocalDateTime.parse("2026-05-01T08:00:00"), tx -> tx.insert("orders", row("order_id", 1)));
    Lsn add = db.addColumn("dbo.orders", "note nvarchar(100)");
    Lsn alter = db.alterColumn("dbo.orders", "amount", "decimal(19,4)");
    Lsn drop = db.dropColumn("dbo.orders", "status");
    assertThat(add).isGreaterThan(l1);
    assertThat(client.commitTime(add)).as("a DDL LSN is no commit's").isEmpty();

    List<DdlEvent> all = client.ddlHistory(ci, l1, drop);
    assertThat(all).extracting(DdlEvent::command).containsExactly(
        "ALTER TABLE [dbo].[orders] ADD [note] nvarchar(100)",
        "ALTER TABLE [dbo].[orders] ALTER COLUMN [amount] decimal(19,4)",
        "ALTER TABLE [dbo].[orders] DROP COLUMN [status]");
    assertThat(all).extracting(DdlEvent::commitTime)
        .containsOnly(LocalDateTime.parse("2026-05-01T08:00:00").toInstant(ZoneOffset.UTC));
    assertThat(client.ddlHistory(ci, add, alter)).extracting(DdlEvent::lsn).containsExactly(alter);
    assertThat(client.ddlHistory(ci, drop, Lsn.MAX)).isEmpty();
  }

  @Test
  void alterChangesTheCapturedTypeAndCoercesLaterValues() {
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "amount", "1.25")));
    db.alterColumn("orders", "amount", "decimal(19,4)");
    Lsn l = db.commit(tx -> tx.update("orders", row("order_id", 1, "amount", "2.5")));
    assertThat(client.capturedColumns(ci)).extracting(c -> c.type().declaration())
        .containsExactly("int", "varchar(20)", "decimal(19,4)");
    assertThat(changes(l, l, "amount")).containsExactly(
        List.of(3, new BigDecimal("1.2500")), List.of(4, new BigDecimal("2.5000")));
  }

  @Test
  void dropKeepsTheColumnCapturedButNullAndRemovesItFromTheTable() {
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new")));
    db.dropColumn("orders", "status");
    Lsn l = db.commit(tx -> tx.insert("orders", row("order_id", 2)));
    assertThat(client.capturedColumns(ci)).extracting(CapturedColumn::name).containsExactly("order_id", "status", "amount");
    assertThat(changes(l, l, "order_id", "status")).containsExactly(java.util.Arrays.asList(2, 2, null));
    assertThat(client.tableColumns(orders)).extracting(TableColumn::name).containsExactly("order_id", "amount");
    assertThatThrownBy(() -> db.commit(tx -> tx.insert("orders", row("order_id", 3, "status", "x"))))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Invalid column name 'status'. dbo.orders has columns order_id, amount.");
    assertThatThrownBy(() -> client.readTable(new TableQuery(orders, List.of("order_id", "status"), List.of("order_id"),
        KeyRange.ALL, Isolation.SNAPSHOT, -1, 100)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-100: Invalid column name 'status' (dbo.orders has order_id, amount). Leave dropped and"
            + " computed columns out of the read.");
  }

  @Test
  void addAddsToTheTableButNotToExistingInstances() {
    db.addColumn("orders", "note nvarchar(100)");
    assertThat(client.capturedColumns(ci)).extracting(CapturedColumn::name).containsExactly("order_id", "status", "amount");
    assertThat(client.tableColumns(orders)).extracting(TableColumn::name, TableColumn::columnId)
        .containsExactly(org.assertj.core.api.Assertions.tuple("order_id", 1), org.assertj.core.api.Assertions.tuple("status", 2),
            org.assertj.core.api.Assertions.tuple("amount", 3), org.assertj.core.api.Assertions.tuple("note", 4));
    assertThat(client.tableColumns(orders).get(1).collation()).isEqualTo("Latin1_General_100_BIN2");
    String v2 = db.enableCdc("dbo", "orders", "dbo_orders_v2");
    assertThat(client.capturedColumns(v2)).extracting(CapturedColumn::name).containsExactly("order_id", "status", "amount", "note");
    db.dropColumn("orders", "status");
    db.addColumn("orders", "status nvarchar(5)");
    assertThat(client.tableColumns(orders)).extracting(TableColumn::name, TableColumn::columnId)
        .contains(org.assertj.core.api.Assertions.tuple("status", 5));
  }
}
