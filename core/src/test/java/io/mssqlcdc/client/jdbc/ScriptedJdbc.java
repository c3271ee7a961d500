package io.mssqlcdc.client.jdbc;

import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A scripted stand-in for a JDBC connection (dynamic proxies, no server): each statement is
 * answered by the first rule whose key its SQL starts with; every executed statement is recorded
 * with its parameters. Only what {@link SqlCdcClient} calls is implemented.
 */
final class ScriptedJdbc {
  /** An LSN as a change table's {@code binary(10)} column answers it (Q12's {@code _start_lsn}, {@code _seqval}). */
  static byte[] lsnBytes(String hex) {
    return io.mssqlcdc.lsn.Lsn.parse(hex).toBytes();
  }

  /** An answer: a result (columns, type names, rows) or an error. */
  record Result(List<String> columns, List<String> types, List<Object[]> rows, SQLException error) {
    static Result rows(List<String> columns, List<String> types, Object[]... rows) {
      return new Result(columns, types, List.of(rows), null);
    }

    static Result scalar(Object v) {
      return rows(List.of("v"), List.of("varchar"), new Object[] {v});
    }

    static Result fail(int number, String state) {
      return new Result(List.of(), List.of(), List.of(), new SQLException("scripted error " + number, state, number));
    }
  }

  /** A statement the client ran and its parameters. */
  record Executed(String sql, List<String> params) {}

  final List<Executed> executed = new ArrayList<>();
  final List<Function<Executed, Result>> rules = new ArrayList<>();
  int connectionsOpened;
  int connectionsClosed;
  int statementsCancelled;

  /** Answers statements starting with {@code prefix} with {@code answer} (checked in order). */
  ScriptedJdbc on(String prefix, Function<Executed, Result> answer) {
    rules.add(e -> e.sql().startsWith(prefix) ? answer.apply(e) : null);
    return this;
  }

  ScriptedJdbc on(String prefix, Result answer) {
    return on(prefix, e -> answer);
  }

  Connection open() {
    connectionsOpened++;
    return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
      switch (m.getName()) {
        case "prepareStatement":
          return statement((String) a[0]);
        case "createStatement":
          return statement(null);
        case "close":
          connectionsClosed++;
          return null;
        case "setAutoCommit":
          return null;
        default:
          throw new UnsupportedOperationException("Connection." + m.getName());
      }
    });
  }

  private PreparedStatement statement(String preparedSql) {
    List<String> params = new ArrayList<>();
    ResultSet[] current = new ResultSet[1];
    return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class},
        (p, m, a) -> {
          switch (m.getName()) {
            case "setString":
              while (params.size() < (int) a[0]) {
                params.add(null);
              }
              params.set((int) a[0] - 1, (String) a[1]);
              return null;
            case "setFetchSize":
            case "close":
              return null;
            case "cancel":
              statementsCancelled++;
              return null;
            case "executeQuery":
              current[0] = run(a == null ? preparedSql : (String) a[0], params);
              return current[0];
            case "execute":
              current[0] = run(a == null ? preparedSql : (String) a[0], params);
              return current[0] != null;
            case "getResultSet":
              return current[0];
            case "getUpdateCount":
              return -1;
            case "getMoreResults":
              return false;
            default:
              throw new UnsupportedOperationException("Statement." + m.getName());
          }
        });
  }

  private ResultSet run(String sql, List<String> params) throws SQLException {
    Executed e = new Executed(sql, List.copyOf(params));
    executed.add(e);
    for (Function<Executed, Result> rule : rules) {
      Result r = rule.apply(e);
      if (r != null) {
        if (r.error() != null) {
          throw r.error();
        }
        return resultSet(r);
      }
    }
    if (sql.startsWith("SET ")) {
      return null;
    }
    throw new AssertionError("unscripted statement: " + sql);
  }

  private ResultSet resultSet(Result r) {
    int[] row = {-1};
    boolean[] wasNull = {false};
    ResultSetMetaData md = (ResultSetMetaData) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {ResultSetMetaData.class}, (p, m, a) -> switch (m.getName()) {
          case "getColumnCount" -> r.columns().size();
          case "getColumnTypeName" -> r.types().get((int) a[0] - 1);
          default -> throw new UnsupportedOperationException("ResultSetMetaData." + m.getName());
        });
    return (ResultSet) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ResultSet.class}, (p, m, a) -> {
      if (m.getName().equals("next")) {
        return ++row[0] < r.rows().size();
      }
      if (m.getName().equals("close")) {
        return null;
      }
      if (m.getName().equals("getMetaData")) {
        return md;
      }
      if (m.getName().equals("wasNull")) {
        return wasNull[0];
      }
      int col = a[0] instanceof Integer i ? i - 1 : r.columns().indexOf((String) a[0]);
      Object v = r.rows().get(row[0])[col];
      wasNull[0] = v == null;
      return switch (m.getName()) {
        case "getString" -> v == null ? null : v.toString();
        case "getInt" -> v == null ? 0 : ((Number) v).intValue();
        case "getShort" -> v == null ? (short) 0 : ((Number) v).shortValue();
        case "getLong" -> v == null ? 0L : ((Number) v).longValue();
        case "getBoolean" -> v != null && (Boolean) v;
        case "getBigDecimal" -> (BigDecimal) v;
        case "getBytes", "getObject" -> v;
        default -> throw new UnsupportedOperationException("ResultSet." + m.getName());
      };
    });
  }
}
