package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.TableQuery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link SqlCdcClient}'s one connection: opened lazily (autocommit on), replaced after a transient
 * failure by {@link DriverRetry}'s reset, with the session settings a source-table read sent
 * (isolation level and lock timeout) remembered so each is sent only when it changes and undone
 * before a change-table read. Statements bind every parameter as text. Used by one thread at a time.
 */
final class JdbcSession {
  private final SqlCdcClient.ConnectionFactory factory;
  private final DriverRetry retry;
  private Connection connection;
  /** The isolation and lock timeout prefix last sent on this connection; null: the defaults. */
  private String sessionPrefix;

  JdbcSession(SqlCdcClient.ConnectionFactory factory, DriverRetry retry) {
    this.factory = factory;
    this.retry = retry;
  }

  Connection connection() throws SQLException {
    if (connection == null) {
      connection = factory.open();
      connection.setAutoCommit(true);
      sessionPrefix = null;
    }
    return connection;
  }

  /** Drops the connection (the next statement opens a new one). */
  void reset() {
    JdbcRowCursor.closeQuietly(connection);
    connection = null;
    sessionPrefix = null;
  }

  void close() {
    reset();
  }

  /** {@code body} with {@link DriverRetry}'s retries, a new connection before each retry. */
  <T> T run(String what, DriverRetry.SqlCall<T> body) throws SQLException {
    return retry.run(what, body, this::reset);
  }

  /** Isolation and lock timeout for a source-table read, sent only when they change. */
  void applySession(TableQuery.Isolation isolation, long lockTimeout) throws SQLException {
    String prefix = CdcSql.sessionPrefix(isolation, lockTimeout);
    if (!prefix.equals(sessionPrefix)) {
      try (Statement st = connection().createStatement()) {
        st.execute(prefix);
      }
      sessionPrefix = prefix;
    }
  }

  /**
   * Change-table reads run under READ COMMITTED and are not subject to {@code lockTimeoutMs}: undo
   * a source read's isolation level and lock timeout (either one; applySession skips a no-op).
   */
  void resetLockTimeout() throws SQLException {
    if (sessionPrefix != null) {
      applySession(TableQuery.Isolation.READ_COMMITTED, -1);
    }
  }

  PreparedStatement prepare(SqlText q) throws SQLException {
    PreparedStatement ps = connection().prepareStatement(q.sql());
    for (int i = 0; i < q.params().size(); i++) {
      ps.setString(i + 1, q.params().get(i));
    }
    return ps;
  }

  /** The first result set of a procedure call, skipping row counts; null when it returns none. */
  static ResultSet firstResultSet(PreparedStatement ps) throws SQLException {
    boolean isResult = ps.execute();
    while (true) {
      if (isResult) {
        return ps.getResultSet();
      }
      if (ps.getUpdateCount() == -1) {
        return null;
      }
      isResult = ps.getMoreResults();
    }
  }

  /** The first row as text (at least 3 columns wide), or a row of NULLs when there is none. */
  String[] row(SqlText q) throws SQLException {
    List<String[]> rows = readRows(q, -1);
    return rows.isEmpty() ? new String[] {null, null, null} : rows.get(0);
  }

  /** Every row as text: {@code width} columns (every one when not positive), at least 3 wide. */
  List<String[]> readRows(SqlText q, int width) throws SQLException {
    try (PreparedStatement ps = prepare(q); ResultSet rs = ps.executeQuery()) {
      int n = width > 0 ? width : rs.getMetaData().getColumnCount();
      List<String[]> out = new ArrayList<>();
      while (rs.next()) {
        String[] r = new String[Math.max(n, 3)];
        for (int i = 0; i < n; i++) {
          r[i] = rs.getString(i + 1);
        }
        out.add(r);
      }
      return out;
    }
  }
}
