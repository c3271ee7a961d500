package io.mssqlcdc.it;

import static org.awaitility.Awaitility.await;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.contract.ContractHistory;
import io.mssqlcdc.client.jdbc.SqlCdcClient;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.options.Identifiers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;

/**
 * {@link ContractHistory} on a real SQL Server: creates the tables, enables CDC, commits
 * transactions and runs CDC cleanup through a sysadmin connection; {@link #client()} reads them
 * through {@link SqlCdcClient}. Every method returns only once capture has processed what it did,
 * found by polling (Awaitility), never by sleeping a fixed time.
 */
public final class SqlServerContractHistory implements ContractHistory {
  static final Duration CAPTURE_WAIT = Duration.ofSeconds(90);

  private final ItServer server;
  private final SqlCdcClient client;
  private final List<SqlCdcClient> others = new java.util.ArrayList<>();
  /** Column counts of the tables {@link #createTable} made. */
  private final Map<String, Integer> tableColumns = new java.util.HashMap<>();
  /** The last commit {@link #commitAt} rewrote. */
  private Lsn lastScripted;

  public SqlServerContractHistory(ItServer server) {
    this.server = server;
    this.client = SqlCdcClient.open(CdcReaderOptions.parse(
        Map.of("captureInstance", "dbo_any", "connectionString", server.url()), CdcReaderOptions.Reader.STREAM));
  }

  @Override
  public String createTrackedTable(String table) {
    server.exec("CREATE TABLE dbo." + Identifiers.quote(table)
        + " (id INT NOT NULL PRIMARY KEY, name NVARCHAR(50) NULL, amount DECIMAL(18,2) NULL)");
    server.exec("EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = ?, @role_name = NULL,"
        + " @supports_net_changes = 0", table);
    String ci = "dbo_" + table;
    awaitInstanceReady(ci);
    return ci;
  }

  @Override
  public Lsn commit(String table, List<RowOp> ops) {
    String ci = "dbo_" + table;
    String before = lastChange(ci);
    try (Connection c = server.connect()) {
      c.setAutoCommit(false);
      for (RowOp op : ops) {
        apply(c, table, op);
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("commit on " + table + " failed: " + e.getMessage(), e);
    }
    String[] after = new String[1];
    await("capture processes the commit on " + table).atMost(CAPTURE_WAIT).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          after[0] = lastChange(ci);
          return after[0] != null && (before == null || after[0].compareTo(before) > 0);
        });
    Lsn lsn = Lsn.parse(after[0]);
    await("max_lsn reaches " + lsn).atMost(CAPTURE_WAIT).pollInterval(Duration.ofMillis(200))
        .until(() -> client.maxLsn().map(m -> m.compareTo(lsn) >= 0).orElse(false));
    return lsn;
  }

  private static void apply(Connection c, String table, RowOp op) throws SQLException {
    String t = "dbo." + Identifiers.quote(table);
    String sql = switch (op.kind()) {
      case INSERT -> "INSERT INTO " + t + " (id, name, amount) VALUES (?, ?, ?)";
      case UPDATE -> "UPDATE " + t + " SET name = ?, amount = ? WHERE id = ?";
      case DELETE -> "DELETE FROM " + t + " WHERE id = ?";
    };
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      switch (op.kind()) {
        case INSERT -> {
          ps.setInt(1, op.id());
          ps.setString(2, op.name());
          ps.setBigDecimal(3, op.amount());
        }
        case UPDATE -> {
          ps.setString(1, op.name());
          ps.setBigDecimal(2, op.amount());
          ps.setInt(3, op.id());
        }
        case DELETE -> ps.setInt(1, op.id());
      }
      ps.executeUpdate();
    }
  }

  /**
   * Commits, then rewrites {@code tran_end_time} of the commit's mapping entry, and of the idle
   * entries since the previous {@code commitAt}, to {@code serverTime} (a sysadmin may update
   * {@code cdc.lsn_time_mapping}; capture only ever adds entries).
   */
  @Override
  public Lsn commitAt(String table, List<RowOp> ops, LocalDateTime serverTime) {
    Lsn lsn = commit(table, ops);
    Lsn from = lastScripted != null && lastScripted.isBefore(lsn) ? lastScripted : client.decrementLsn(lsn);
    server.exec("UPDATE cdc.lsn_time_mapping SET tran_end_time = CONVERT(datetime, ?, 126)"
        + " WHERE start_lsn > CONVERT(binary(10), ?, 1) AND start_lsn <= CONVERT(binary(10), ?, 1)",
        serverTime.toString(), from.hex(), lsn.hex());
    lastScripted = lsn;
    return lsn;
  }

  @Override
  public CdcClient clientWithClock(String ianaZone) {
    String windows = WINDOWS_ZONES.get(ianaZone);
    if (windows == null) {
      throw new IllegalArgumentException("No Windows zone name known here for " + ianaZone + ": add it to WINDOWS_ZONES");
    }
    SqlCdcClient c = SqlCdcClient.open(CdcReaderOptions.parse(Map.of("captureInstance", "dbo_any",
        "connectionString", server.url(), "sourceTimeZone", windows), CdcReaderOptions.Reader.STREAM));
    others.add(c);
    return c;
  }

  /** IANA id → the Windows name SQL Server's AT TIME ZONE takes (sys.time_zone_info). */
  static final Map<String, String> WINDOWS_ZONES = Map.of(
      "America/New_York", "Eastern Standard Time",
      "America/Sao_Paulo", "E. South America Standard Time",
      "Europe/Berlin", "W. Europe Standard Time",
      "UTC", "UTC");

  @Override
  public void addCaptureInstance(String table, String name, List<String> columns) {
    server.exec("EXEC sys.sp_cdc_enable_table @source_schema = N'dbo', @source_name = ?, @role_name = NULL,"
        + " @capture_instance = ?, @captured_column_list = ?, @supports_net_changes = 0",
        table, name, String.join(", ", columns.stream().map(Identifiers::quote).toList()));
    awaitInstanceReady(name);
  }

  @Override
  public void cleanup(String captureInstance, Lsn lowWatermark) {
    server.exec("DECLARE @l binary(10) = CONVERT(binary(10), ?, 1);"
        + " EXEC sys.sp_cdc_cleanup_change_table @capture_instance = ?, @low_water_mark = @l, @threshold = 100000",
        lowWatermark.hex(), captureInstance);
  }

  /** A heap with a unique nonclustered index on the key: NULL keys allowed once, as the contract needs. */
  @Override
  public void createTable(String table, List<String> columns, List<String> key) {
    StringBuilder ddl = new StringBuilder("CREATE TABLE dbo." + Identifiers.quote(table) + " (");
    for (int i = 0; i < columns.size(); i++) {
      String[] parts = columns.get(i).strip().split(" ", 2);
      String type = parts[1].strip();
      ddl.append(i == 0 ? "" : ", ").append(Identifiers.quote(parts[0])).append(' ').append(type)
          .append(type.toLowerCase(java.util.Locale.ROOT).contains("char") ? " COLLATE Latin1_General_100_BIN2" : "")
          .append(" NULL");
    }
    server.exec(ddl.append(")").toString());
    server.exec("CREATE UNIQUE INDEX " + Identifiers.quote("ux_" + table) + " ON dbo." + Identifiers.quote(table) + " ("
        + String.join(", ", key.stream().map(Identifiers::quote).toList()) + ")");
    tableColumns.put(table, columns.size());
  }

  @Override
  public void insert(String table, List<List<Object>> rows) {
    int n = tableColumns.get(table);
    String marks = String.join(", ", java.util.Collections.nCopies(n, "?"));
    try (Connection c = server.connect()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO dbo." + Identifiers.quote(table) + " VALUES (" + marks + ")")) {
        for (List<Object> row : rows) {
          for (int i = 0; i < n; i++) {
            Object v = row.get(i);
            if (v instanceof java.time.LocalDate d) {
              ps.setString(i + 1, d.toString()); // ISO text: java.sql.Date would shift dates before 1582
            } else if (v == null) {
              ps.setNull(i + 1, java.sql.Types.NVARCHAR);
            } else {
              ps.setObject(i + 1, v);
            }
          }
          ps.addBatch();
        }
        ps.executeBatch();
      }
      c.commit();
    } catch (SQLException e) {
      throw new IllegalStateException("insert into " + table + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public CdcClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    others.forEach(SqlCdcClient::close);
  }

  private String lastChange(String ci) {
    return server.scalar("SELECT CONVERT(varchar(22), MAX([__$start_lsn]), 1) FROM cdc." + Identifiers.quote(ci + "_CT"));
  }

  private void awaitInstanceReady(String ci) {
    await("capture processes the enable of " + ci).atMost(CAPTURE_WAIT).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          String min = server.scalar("SELECT CONVERT(varchar(22), sys.fn_cdc_get_min_lsn(?), 1)", ci);
          return min != null && !Lsn.parse(min).isZero();
        });
  }
}
