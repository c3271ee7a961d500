package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.jdbc.CdcSql;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stand-in's TDS behaviour as mssql-jdbc sees it: login, RPC forms, unknown statements, cancels. */
class StandInProtocolTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  Lsn first;
  Lsn last;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "note nvarchar(200)").key("order_id");
    db.enableCdc("dbo", "orders");
    for (int c = 0; c < 20; c++) {
      int base = c * 500;
      Lsn l = db.commit(tx -> {
        for (int i = 0; i < 500; i++) {
          tx.insert("orders", row("order_id", base + i, "note", "row " + (base + i) + " with some padding text"));
        }
      });
      first = first == null ? l : first;
      last = l;
    }
    standIn = SqlServerStandIn.start(dir);
  }

  @AfterEach
  void tearDown() {
    if (standIn != null) {
      standIn.close();
    }
    db.close();
  }

  private Connection connect(String extra) throws SQLException {
    return DriverManager.getConnection(standIn.jdbcUrl(extra));
  }

  @Test
  void theDriverLogsInAndRunsPreparedStatementsAsSpExecutesqlByDefault() throws SQLException {
    try (Connection c = connect("")) {
      assertThat(c.getCatalog()).isEqualTo("cdc_standin");
      assertThat(c.getMetaData().getDatabaseProductVersion()).startsWith("16.0");
      for (int i = 0; i < 2; i++) {
        try (PreparedStatement ps = c.prepareStatement(CdcSql.MIN_LSN)) {
          ps.setString(1, "dbo_orders");
          try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("0x0000002A000001000001");
            assertThat(rs.getMetaData().getColumnTypeName(1)).isEqualTo("varchar");
          }
        }
      }
    }
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::via).containsExactly("sp_executesql", "sp_executesql");
    assertThat(standIn.executed().get(0).params()).containsExactly("dbo_orders");
    assertThat(standIn.logins()).singleElement().satisfies(l -> {
      assertThat(l.appName()).isEqualTo("Microsoft JDBC Driver for SQL Server");
      assertThat(l.toString()).doesNotContain(standIn.options().password());
    });
  }

  @Test
  void preparedOnFirstCallTheDriverUsesSpPrepexecThenSpExecuteAndUnpreparesOnClose() throws SQLException {
    try (Connection c = connect("enablePrepareOnFirstPreparedStatementCall=true;serverPreparedStatementDiscardThreshold=1");
        PreparedStatement ps = c.prepareStatement(CdcSql.INCREMENT_LSN)) {
      for (String lsn : List.of("0x0000002A000001000001", "0x0000002A0000010000FF")) {
        ps.setString(1, lsn);
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getString(1)).isEqualTo(Lsn.parse(lsn).increment().hex());
        }
      }
    }
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::via)
        .containsExactly("sp_prepexec", "sp_execute", "sp_unprepare");
  }

  @Test
  void aStatementNoShapeKnowsFailsNamingItsTextAndFailsTheStandInAtClose() throws SQLException {
    try (Connection c = connect("")) {
      assertThatThrownBy(() -> c.createStatement().executeQuery("SELECT 42 AS answer"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("knows no statement of this shape")
          .hasMessageContaining("SELECT 42 AS answer")
          .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(50000));
      try (ResultSet rs = c.createStatement().executeQuery(CdcSql.PING)) {
        assertThat(rs.next()).as("the connection stays usable").isTrue();
      }
    }
    SqlServerStandIn s = standIn;
    standIn = null;
    assertThatThrownBy(s::close).isInstanceOf(AssertionError.class).hasMessageContaining("SELECT 42 AS answer");
  }

  @Test
  void aWrongPasswordIsLoginFailed18456() {
    String url = standIn.jdbcUrl("").replace(standIn.options().password(), "wrong");
    assertThatThrownBy(() -> DriverManager.getConnection(url))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("Login failed for user 'cdc_reader'")
        .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(18456));
  }

  @Test
  void closingAChangeCursorEarlyCancelsAndTheConnectionStaysUsable() {
    try (SqlCdcClient client = StandInClients.open(standIn, "")) {
      int read = 0;
      try (ChangeCursor c = client.changes(new ChangeQuery("dbo_orders", first, last, List.of("order_id", "note"), true, 100))) {
        while (read < 3 && c.next()) {
          read++;
        }
      }
      assertThat(read).isEqualTo(3);
      assertThat(standIn.attentions()).as("the close sent an attention, acknowledged with DONE(ATTN)").isEqualTo(1);
      assertThat(client.maxLsn()).contains(last);
      int all = 0;
      try (ChangeCursor c = client.changes(new ChangeQuery("dbo_orders", first, last, List.of("order_id", "note"), true, 100))) {
        while (c.next()) {
          assertThat(c.value(0)).isEqualTo(all);
          assertThat(c.value(1)).isEqualTo("row " + all + " with some padding text");
          all++;
        }
      }
      assertThat(all).isEqualTo(10_000);
    }
    assertThat(standIn.connections()).isEqualTo(1);
  }
}
