package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.microsoft.sqlserver.jdbc.SQLServerDriver;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.client.jdbc.ConnectionStrings;
import io.mssqlcdc.client.jdbc.DriverRetry;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcPermissionException;
import io.mssqlcdc.errors.CdcSourceUnavailableException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The faults a network and a server produce, injected by the stand-in and met by the real driver
 * and {@code SqlCdcClient}: how each is classified (retried on a new connection or not), what the
 * user reads, and that a read either returns every row of its range once or fails.
 *
 * <p>The client's retry schedule is the standard one (3 retries, 2 s base) with the waits
 * recorded instead of slept.
 */
class FaultInjectionTest {
  @TempDir Path dir;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;
  final List<Duration> waits = new CopyOnWriteArrayList<>();
  final List<SqlCdcClient> clients = new ArrayList<>();
  Lsn first;
  Lsn last;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    for (int c = 0; c < 4; c++) {
      int base = c * 5;
      Lsn l = db.commit(tx -> {
        for (int i = 0; i < 5; i++) {
          tx.insert("orders", row("order_id", base + i, "status", "s" + (base + i)));
        }
      });
      first = first == null ? l : first;
      last = l;
    }
  }

  @AfterEach
  void tearDown() {
    clients.forEach(SqlCdcClient::close);
    if (standIn != null) {
      standIn.close();
    }
    db.close();
  }

  private void start(StandInOptions options) {
    standIn = SqlServerStandIn.start(dir, options);
  }

  /** A client as {@code SqlCdcClient.open} builds it, with the standard retries, waits recorded. */
  private SqlCdcClient client(String urlProperties) {
    if (standIn == null) {
      start(StandInOptions.defaults());
    }
    ConnectionStrings.Target target = ConnectionStrings.toJdbc(standIn.jdbcUrl(urlProperties), 30, false);
    SQLServerDriver driver = new SQLServerDriver();
    DriverRetry retry = new DriverRetry(DriverRetry.DEFAULT_RETRIES, DriverRetry.DEFAULT_BASE, waits::add, () -> 0.0);
    SqlCdcClient c = new SqlCdcClient(() -> driver.connect(target.url(), target.properties()), "auto", -1, retry);
    clients.add(c);
    return c;
  }

  private SqlCdcClient client() {
    return client("");
  }

  private static List<Integer> ids(SqlCdcClient c, Lsn from, Lsn to) {
    List<Integer> ids = new ArrayList<>();
    try (ChangeCursor cursor = c.changes(new ChangeQuery("dbo_orders", from, to, List.of("order_id", "status"), true, 100))) {
      while (cursor.next()) {
        ids.add((Integer) cursor.value(0));
      }
    }
    return ids;
  }

  private static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }

  // ---- connection resets ----

  @Test
  void aResetBeforeTheCursorsFirstRowIsRetriedOnANewConnection() {
    SqlCdcClient c = client();
    c.capturedColumns("dbo_orders");
    var fault = standIn.faults().on(Statement.CHANGES).reset();
    assertThat(ids(c, first, last)).containsExactlyElementsOf(range(0, 20));
    assertThat(fault.hits()).isEqualTo(1);
    assertThat(waits).as("one retry after 1 s (the 1-2 s backoff at its low end)").containsExactly(Duration.ofSeconds(1));
    assertThat(standIn.connections()).isEqualTo(2);
  }

  @Test
  void aResetInTheMiddleOfACursorFailsTheReadAndIsNotRetriedThere() {
    SqlCdcClient c = client();
    c.capturedColumns("dbo_orders");
    standIn.faults().on(Statement.CHANGES).afterRows(3).reset();
    List<Integer> seen = new ArrayList<>();
    assertThatThrownBy(() -> {
      try (ChangeCursor cursor = c.changes(new ChangeQuery("dbo_orders", first, last, List.of("order_id"), true, 100))) {
        while (cursor.next()) {
          seen.add((Integer) cursor.value(0));
        }
      }
    }).isInstanceOf(CdcSourceUnavailableException.class)
        .hasMessageStartingWith("MSSQL_CDC-")
        .hasMessageContaining("reading change rows of dbo_orders")
        .hasMessageContaining("SQLState 08S01");
    assertThat(seen).as("the rows before the reset, never a row twice").containsExactly(0, 1, 2);
    assertThat(waits).as("a cursor half read is not retried by the client (the Spark task is)").isEmpty();
    assertThat(c.maxLsn()).as("the next statement runs on a new connection").contains(last);
    assertThat(waits).hasSize(1);
    assertThat(ids(c, first, last)).containsExactlyElementsOf(range(0, 20));
  }

  @Test
  void aDroppedIdleConnectionIsReplacedAtTheNextStatement() {
    SqlCdcClient c = client();
    assertThat(c.maxLsn()).contains(last);
    standIn.dropConnections();
    assertThat(c.maxLsn()).contains(last);
    assertThat(waits).hasSize(1);
    assertThat(standIn.connections()).isEqualTo(2);
  }

  // ---- server errors ----

  @Test
  void aRefusedWaitStatsViewIsAskedOncePerLoginThenNoMore() {
    SqlCdcClient bare = client();   // starts the stand-in; a client of a bare factory knows no login
    var fault = standIn.faults().on(Statement.NETWORK_WAIT).times(1_000).error(300);
    SqlCdcClient a = StandInClients.open(standIn, "");
    SqlCdcClient b = StandInClients.open(standIn, "");
    clients.add(a);
    clients.add(b);
    assertThat(a.networkWaitMillis()).isEmpty();
    assertThat(a.networkWaitMillis()).isEmpty();
    assertThat(b.networkWaitMillis()).as("another client of the same login, as the next range's reader").isEmpty();
    assertThat(fault.hits()).as("one probe sent for the login (before: one per call)").isEqualTo(1);
    assertThat(bare.networkWaitMillis()).isEmpty();
    assertThat(bare.networkWaitMillis()).isEmpty();
    assertThat(fault.hits()).as("a client without a login key remembers the refusal itself").isEqualTo(2);
    assertThat(a.maxLsn()).as("the refusal leaves the client working").contains(last);
  }

  @Test
  void aDeadlockVictim1205IsRetriedWithBackoff() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.MAX_LSN).times(2).error(1205);
    assertThat(c.maxLsn()).contains(last);
    assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  @Test
  void aDeadlockOutlivingTheRetriesSaysSoNamingTheErrorAndTheAttempts() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.MAX_LSN).times(4).error(1205);
    assertThatThrownBy(c::maxLsn)
        .isInstanceOf(CdcSourceUnavailableException.class)
        .hasMessageContaining("SQL Server did not answer sys.fn_cdc_get_max_lsn() after 4 attempt(s)")
        .hasMessageContaining("error 1205 (SQLState 40001)")
        .hasMessageContaining("chosen as the deadlock victim");
    assertThat(waits).hasSize(3);
  }

  @Test
  void aLockTimeout1222OnASourceReadIsRetriedAndReadsEveryRowOnce() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.READ_TABLE).error(1222);
    List<Integer> ids = new ArrayList<>();
    try (RowCursor r = c.readTable(new TableQuery(new TableRef("dbo", "orders"), List.of("order_id"), List.of("order_id"),
        KeyRange.ALL, TableQuery.Isolation.READ_COMMITTED, 500, 100))) {
      while (r.next()) {
        ids.add((Integer) r.value(0));
      }
    }
    assertThat(ids).containsExactlyElementsOf(range(0, 20));
    assertThat(waits).hasSize(1);
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::sql)
        .contains("SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCK_TIMEOUT 500;");
  }

  @Test
  void aKilledSession596IsRetriedOnANewConnection() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.MAX_LSN).error(596);
    assertThat(c.maxLsn()).contains(last);
    assertThat(waits).hasSize(1);
    assertThat(standIn.connections()).as("class 21 ends the session").isEqualTo(2);
  }

  @Test
  void aMissingGrantOnTheChangeTable229NamesTheGrant() {
    start(StandInOptions.defaults().withDeniedChangeTables(java.util.Set.of("dbo_orders")));
    SqlCdcClient c = client();
    assertThatThrownBy(() -> ids(c, first, last))
        .isInstanceOf(CdcPermissionException.class)
        .hasMessageContaining("GRANT SELECT ON cdc.[dbo_orders_CT] TO [cdc_reader];");
    assertThatThrownBy(() -> c.splitPoints("dbo_orders", first, last, 2))
        .isInstanceOf(CdcPermissionException.class)
        .hasMessageContaining("GRANT SELECT ON cdc.[dbo_orders_CT] TO [cdc_reader];");
    assertThat(waits).isEmpty();
  }

  /**
   * The probe that would name the GRANT is the deadlock victim on every attempt: the retries give
   * up on the probe, and the user still reads the read's own 229, not "SQL Server did not answer".
   */
  @Test
  void aPermissionProbeThatFailsTransientlyEveryTimeKeepsTheReadsOwn229() {
    start(StandInOptions.defaults().withDeniedChangeTables(java.util.Set.of("dbo_orders")));
    SqlCdcClient c = client();
    var fault = standIn.faults().on(Statement.PERMISSION_PROBE).times(4).error(1205);
    assertThatThrownBy(() -> ids(c, first, last))
        .isInstanceOf(CdcPermissionException.class)
        .hasMessageContaining("error 229")
        .hasMessageContaining("The SELECT permission was denied on the object 'dbo_orders_CT'")
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(CdcSourceUnavailableException.class)
            .satisfies(p -> assertThat(p.getMessage()).contains("the permission probe after 4 attempt(s)").contains("error 1205")));
    assertThat(fault.hits()).isEqualTo(4);
    assertThat(waits).as("the probe's retries").hasSize(3);
  }

  /** The same for the __$command_id probe, whose connection is reset on every attempt. */
  @Test
  void aCommandIdProbeWhoseConnectionIsResetEveryTimeKeepsTheReadsOwn207() {
    start(StandInOptions.defaults().withChangeTablesHaveCommandId(false));
    SqlCdcClient c = client();
    var fault = standIn.faults().on(Statement.COMMAND_ID_PROBE).times(4).reset();
    assertThatThrownBy(() -> ids(c, first, last))
        .hasMessageContaining("error 207")
        .hasMessageContaining("Invalid column name '__$command_id'")
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(CdcSourceUnavailableException.class)
            .satisfies(p -> assertThat(p.getMessage()).contains("the __$command_id probe after 4 attempt(s)")));
    assertThat(fault.hits()).isEqualTo(4);
  }

  @Test
  void aColumnPermissionDenied230OnTheSourceTableIsAPermissionError() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.READ_TABLE).error(230);
    assertThatThrownBy(() -> c.readTable(new TableQuery(new TableRef("dbo", "orders"), List.of("order_id"), List.of(),
        KeyRange.ALL, TableQuery.Isolation.READ_COMMITTED, -1, 100)))
        .isInstanceOf(CdcPermissionException.class)
        .hasMessageContaining("The login cannot read rows of dbo.orders")
        .hasMessageContaining("error 230")
        .hasMessageContaining("The SELECT permission was denied on the column");
    assertThat(waits).isEmpty();
  }

  @Test
  void changeTablesWithoutCommandIdAskForIncludeCommandIdFalse() {
    start(StandInOptions.defaults().withChangeTablesHaveCommandId(false));
    SqlCdcClient c = client();
    assertThatThrownBy(() -> ids(c, first, last))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("has no column __$command_id")
        .hasMessageContaining("includeCommandId=false");
    assertThat(standIn.executed()).filteredOn(e -> e.kind() == Statement.COMMAND_ID_PROBE).singleElement()
        .satisfies(e -> assertThat(e.params()).containsExactly("cdc.[dbo_orders_CT]"));
    List<Integer> ids = new ArrayList<>();
    try (ChangeCursor cursor = c.changes(new ChangeQuery("dbo_orders", first, last, List.of("order_id"), false, 100))) {
      while (cursor.next()) {
        ids.add((Integer) cursor.value(0));
        assertThat(cursor.commandId()).isZero();
      }
    }
    assertThat(ids).containsExactlyElementsOf(range(0, 20));
  }

  /**
   * Error 207 on a change-table read that selected {@code __$command_id} but names another column
   * (a column dropped from the change table by hand): COL_LENGTH finds {@code __$command_id}, so
   * the user reads SQL Server's own error, not the includeCommandId=false advice.
   */
  @Test
  void anInvalidColumnOtherThanTheCommandIdKeepsSqlServersError() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.CHANGES).error(SqlError.invalidColumn("status"));
    assertThatThrownBy(() -> ids(c, first, last))
        .hasMessageContaining("Invalid column name 'status'")
        .hasMessageNotContaining("includeCommandId");
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::kind).containsSubsequence(Statement.CHANGES,
        Statement.COMMAND_ID_PROBE);
    assertThat(waits).as("207 is not retried").isEmpty();
    assertThat(ids(c, first, last)).containsExactlyElementsOf(range(0, 20));
  }

  @Test
  void snapshotIsolationOnADatabaseThatDoesNotAllowItNamesTheOption() {
    start(StandInOptions.defaults().withSnapshotIsolationAllowed(false));
    SqlCdcClient c = client();
    assertThatThrownBy(() -> c.readTable(new TableQuery(new TableRef("dbo", "orders"), List.of("order_id"), List.of(),
        KeyRange.ALL, TableQuery.Isolation.SNAPSHOT, -1, 100)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("isolationLevel")
        .hasMessageContaining("ALLOW_SNAPSHOT_ISOLATION");
  }

  // ---- logins ----

  @Test
  void loginFailed18456IsNotRetriedAndNeverShowsThePassword() {
    SqlCdcClient c = client();
    standIn.faults().onLogin().error(18456);
    assertThatThrownBy(c::maxLsn)
        .isInstanceOf(CdcSourceUnavailableException.class)
        .hasMessageContaining("error 18456")
        .hasMessageContaining("Login failed for user 'cdc_reader'")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(standIn.options().password()));
    assertThat(waits).isEmpty();
  }

  @ParameterizedTest(name = "error {0}")
  @ValueSource(ints = {4060, 40613})
  void aDatabaseUnavailableOnceAtLoginIsRetriedByTheDriverItself(int number) {
    SqlCdcClient c = client();
    standIn.faults().onLogin().error(number);
    assertThat(c.maxLsn()).contains(last);
    assertThat(standIn.logins()).as("mssql-jdbc logged in again on its own").hasSize(2);
    assertThat(waits).as("the client never saw it").isEmpty();
  }

  @ParameterizedTest(name = "error {0}")
  @ValueSource(ints = {4060, 40613})
  void aDatabaseUnavailableForLongerIsRetriedByTheClientThenNamedWithTheDatabase(int number) {
    SqlCdcClient c = client();
    standIn.faults().onLogin().times(Integer.MAX_VALUE).error(number);
    assertThatThrownBy(c::maxLsn)
        .isInstanceOf(CdcSourceUnavailableException.class)
        .hasMessageContaining("after 4 attempt(s): error " + number + " (SQLState S0001)")
        .hasMessageContaining("cdc_standin")
        .hasMessageContaining("Restart the query");
    assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
  }

  // ---- timeouts and slow answers ----

  @Test
  void aSlowAnswerWithinTheTimeoutsIsJustSlow() {
    SqlCdcClient c = client();
    standIn.faults().on(Statement.MAX_LSN).delay(Duration.ofMillis(300));
    assertThat(c.maxLsn()).contains(last);
    assertThat(waits).isEmpty();
  }

  @Test
  void aQueryTimeoutCancelsTheStatementAndIsRetried() {
    SqlCdcClient c = client("queryTimeout=1");
    var fault = standIn.faults().on(Statement.MAX_LSN).delay(Duration.ofSeconds(30));
    assertThat(c.maxLsn()).contains(last);
    assertThat(fault.hits()).isEqualTo(1);
    assertThat(standIn.attentions()).as("the driver's timeout sent an attention").isEqualTo(1);
    assertThat(waits).hasSize(1);
  }

  @Test
  void aSocketTimeoutDropsTheConnectionAndIsRetried() {
    SqlCdcClient c = client("socketTimeout=1000");
    standIn.faults().on(Statement.MAX_LSN).delay(Duration.ofSeconds(30));
    assertThat(c.maxLsn()).contains(last);
    assertThat(waits).hasSize(1);
    assertThat(standIn.connections()).isEqualTo(2);
  }

}
