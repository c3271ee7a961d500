package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names resolve by the database collation, as on SQL Server: under a binary (or {@code _CS})
 * collation {@code [orderid]} does not find {@code OrderId}; under a {@code _CI} one it does. So a
 * client that sends a requested name in another case instead of SQL Server's spelling fails here
 * with error 207, as it would on such a server.
 */
class IdentifierCaseTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  SqlCdcClient client;
  Lsn commit;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "Orders", "OrderId int", "Status varchar(10)").key("OrderId");
    db.enableCdc("dbo", "Orders");
    commit = db.commit(tx -> tx.insert("dbo.Orders", row("OrderId", 1, "Status", "new")));
  }

  @AfterEach
  void tearDown() {
    client.close();
    standIn.close();
    db.close();
  }

  private void start(StandInOptions options) {
    standIn = SqlServerStandIn.start(dir, options);
    client = StandInClients.open(standIn, "");
  }

  private List<Object> read(TableRef table, String column) {
    List<Object> out = new ArrayList<>();
    try (RowCursor r = client.readTable(new TableQuery(table, List.of(column), List.of(), KeyRange.ALL,
        TableQuery.Isolation.READ_COMMITTED, -1, 10))) {
      while (r.next()) {
        out.add(r.value(0));
      }
    }
    return out;
  }

  @Test
  void underABinaryCollationNamesMatchExactly() {
    start(StandInOptions.defaults()); // Latin1_General_100_BIN2
    assertThat(read(new TableRef("dbo", "Orders"), "OrderId")).containsExactly(1);
    assertThatThrownBy(() -> read(new TableRef("dbo", "Orders"), "orderid")).hasMessageContaining("Invalid column name 'orderid'");
    assertThatThrownBy(() -> read(new TableRef("dbo", "orders"), "OrderId")).hasMessageContaining("Invalid object name 'dbo.orders'");
    // the client matches a requested change-table column to the captured one itself and selects SQL Server's spelling
    try (ChangeCursor c = client.changes(new ChangeQuery("dbo_Orders", commit, commit, List.of("status"), true, 10))) {
      assertThat(c.next()).isTrue();
      assertThat(c.value(0)).isEqualTo("new");
    }
    assertThat(standIn.executed()).filteredOn(e -> e.kind() == Statement.CHANGES).singleElement()
        .satisfies(e -> assertThat(e.sql()).contains(", c.[Status] FROM").doesNotContain("[status]"));
  }

  @Test
  void underACaseInsensitiveCollationNamesMatchIgnoringCase() {
    start(StandInOptions.defaults().withCollation("SQL_Latin1_General_CP1_CI_AS"));
    assertThat(read(new TableRef("dbo", "orders"), "ORDERID")).containsExactly(1);
  }
}
