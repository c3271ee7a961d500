package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.KeyBucket;
import io.mssqlcdc.client.KeyColumns;
import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.client.TableColumn;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.options.Identifiers;
import io.mssqlcdc.types.SqlServerType;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link SqlCdcClient}'s statements on the source table (reference-behaviour §20 Q20-Q27): its
 * columns, the snapshot reads, and the key planning of snapshots, chunked backfill and reconcile,
 * each under the reader's isolation level and lock timeout (sent on the shared session only when
 * they change). Failures are the client's ({@link SqlCdcClient#call}).
 */
final class SourceTableReads {
  private final SqlCdcClient client;
  private final JdbcSession session;
  private final TableQuery.Isolation isolation;
  private final long lockTimeoutMs;

  SourceTableReads(SqlCdcClient client, JdbcSession session, TableQuery.Isolation isolation, long lockTimeoutMs) {
    this.client = client;
    this.session = session;
    this.isolation = isolation;
    this.lockTimeoutMs = lockTimeoutMs;
  }

  public List<TableColumn> tableColumns(TableRef table) {
    List<TableColumn> out = new ArrayList<>();
    for (ColumnInfo c : columnInfo(table)) {
      out.add(new TableColumn(c.name, c.columnId, c.computed, c.collation));
    }
    return out;
  }

  /** A row of {@link CdcSql#TABLE_COLUMNS}. */
  record ColumnInfo(String name, int columnId, boolean computed, String collation, SqlServerType type) {}

  private List<ColumnInfo> columnInfo(TableRef table) {
    Identifiers.name("schema", table.schema());
    Identifiers.name("table", table.table());
    List<ColumnInfo> out = client.call("sys.columns of " + table, () -> {
      try (PreparedStatement ps = session.prepare(SqlText.of(CdcSql.TABLE_COLUMNS, table.schema(), table.table()));
          ResultSet rs = ps.executeQuery()) {
        List<ColumnInfo> cols = new ArrayList<>();
        while (rs.next()) {
          cols.add(new ColumnInfo(rs.getString(1), rs.getInt(2), rs.getBoolean(3), rs.getString(4),
              KeyTypes.declared(rs.getString(5), rs.getInt(6), rs.getInt(7), rs.getInt(8))));
        }
        return cols;
      }
    });
    if (out.isEmpty()) {
      throw CdcErrors.tableNotFound(CdcSql.table(table));
    }
    return out;
  }

  Optional<List<Object>> keyMinMax(TableRef table, String key, KeyRange range) {
    List<KeyPredicates.Key> keys = KeyTypes.keys(table, List.of(key), columnInfo(table), !range.isAll());
    SqlText q = CdcSql.keyMinMax(table, keys.get(0).name(), KeyPredicates.pieces(keys, range));
    return client.call("MIN/MAX of " + table + "." + key, () -> {
      session.applySession(isolation, lockTimeoutMs);
      try (PreparedStatement ps = session.prepare(q); ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.<List<Object>>empty();
        }
        JdbcValues.Reader[] r = JdbcValues.readers(rs.getMetaData(), 1);
        Object lo = JdbcValues.read(rs, 1, r[0]);
        Object hi = JdbcValues.read(rs, 2, r[1]);
        return lo == null && hi == null ? Optional.<List<Object>>empty() : Optional.of(java.util.Arrays.asList(lo, hi));
      }
    });
  }

  List<List<Object>> keyTiles(TableRef table, List<String> keys, int n) {
    if (n < 2) {
      return List.of();
    }
    String q = CdcSql.keyTiles(table, keys, n);
    return client.call("NTILE key tiles of " + table, () -> {
      session.applySession(isolation, lockTimeoutMs);
      try (Statement st = session.connection().createStatement(); ResultSet rs = st.executeQuery(q)) {
        JdbcValues.Reader[] r = JdbcValues.readers(rs.getMetaData(), 1);
        List<List<Object>> out = new ArrayList<>();
        while (rs.next()) {
          List<Object> bound = new ArrayList<>();
          for (int i = 0; i < r.length; i++) {
            bound.add(JdbcValues.read(rs, i + 1, r[i]));
          }
          out.add(java.util.Collections.unmodifiableList(bound));
        }
        return out;
      }
    });
  }

  RowCursor readTable(TableQuery query) {
    List<KeyPredicates.Key> keys = query.range().isAll()
        ? List.of()
        : KeyTypes.keys(query.table(), query.keys(), columnInfo(query.table()), true);
    SqlText q = CdcSql.readTable(query.table(), query.columns(), KeyPredicates.pieces(keys, query.range()));
    return client.call("rows of " + query.table(), () -> {
      session.applySession(query.isolation(), query.lockTimeoutMs());
      PreparedStatement ps = session.prepare(q);
      ps.setFetchSize(query.fetchSize());
      try {
        return new JdbcRowCursor(ps, ps.executeQuery(), e -> client.translate("reading " + query.table(), e));
      } catch (SQLException e) {
        ps.close();
        throw e;
      }
    });
  }

  long countRows(TableRef table) {
    String q = CdcSql.countRows(table);
    String n = client.callOr("COUNT_BIG(*) of " + table, () -> {
      session.applySession(isolation, lockTimeoutMs);
      return session.readRows(SqlText.of(q), 1).get(0)[0];
    }, e -> missingTable(table, "COUNT_BIG(*) of " + table, e));
    return Long.parseLong(n.strip());
  }

  /** Q25: the {@code rows} text of {@code sp_spaceused} (padded; no row: 0). */
  long rowEstimate(TableRef table) {
    SqlText q = SqlText.of(CdcSql.ROW_ESTIMATE, CdcSql.table(table));
    String rows = client.callOr("sp_spaceused of " + table, () -> {
      try (PreparedStatement ps = session.prepare(q); ResultSet rs = JdbcSession.firstResultSet(ps)) {
        return rs != null && rs.next() ? rs.getString("rows") : null;
      }
    }, e -> missingTable(table, "sp_spaceused of " + table, e));
    String digits = rows == null ? "" : rows.strip().replaceFirst("\\D.*$", "");
    return digits.isEmpty() ? 0 : Long.parseLong(digits);
  }

  /** A table that does not exist (208, 15009) is the caller's to fix; other failures as usual. */
  private RuntimeException missingTable(TableRef table, String what, SQLException e) {
    return SqlServerErrors.classify(e) == SqlServerErrors.Kind.MISSING_OBJECT
        ? CdcErrors.tableNotFound(CdcSql.table(table)) : client.translate(what, e);
  }

  List<KeyBucket> keyBuckets(TableRef table, String key, long width, KeyRange range) {
    if (width < 1) {
      throw new IllegalArgumentException("keyBuckets needs width >= 1, not " + width);
    }
    List<ColumnInfo> columns = columnInfo(table);
    KeyTypes.Failure failure = (t, k, why) -> CdcErrors.keyColumnUnusable("Key buckets", t, k, why);
    KeyPredicates.Key k = KeyTypes.keys(table, List.of(key), columns, false, failure).get(0);
    ColumnInfo c = KeyTypes.column(key, columns);
    KeyColumns.Ordinal kind = KeyColumns.ordinal(c.type())
        .orElseThrow(() -> failure.fail(table.toString(), List.of(key), KeyColumns.notBucketable(c.name(), c.type())));
    KeyColumns.checkBucketRange(kind, range);
    SqlText q = CdcSql.keyBuckets(table, k.name(), kind, width, KeyPredicates.pieces(List.of(k), range));
    return client.call("key buckets of " + table + "." + k.name(), () -> {
      session.applySession(isolation, lockTimeoutMs);
      List<KeyBucket> out = new ArrayList<>();
      try (PreparedStatement ps = session.prepare(q); ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new KeyBucket(rs.getLong(1), rs.getLong(2), rs.getBigDecimal(3).toBigIntegerExact()));
        }
      }
      return out;
    });
  }

  Optional<List<Object>> keyMax(TableRef table, List<String> keys) {
    List<KeyPredicates.Key> k = KeyTypes.keys(table, keys, columnInfo(table), false,
        (t, names, why) -> CdcErrors.keyColumnUnusable("The key maximum", t, names, why));
    String q = CdcSql.keyMax(table, k.stream().map(KeyPredicates.Key::name).toList());
    List<List<Object>> rows = keyRows("largest key of " + table, SqlText.of(q));
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  Optional<List<Object>> keyBound(TableRef table, List<String> keys, KeyRange range, long n) {
    if (n < 0 || n == Long.MAX_VALUE) {
      throw new IllegalArgumentException("keyBound needs 0 <= n < " + Long.MAX_VALUE + ", not " + n);
    }
    List<KeyPredicates.Key> k = KeyTypes.keys(table, keys, columnInfo(table), !range.isAll(),
        (t, names, why) -> CdcErrors.keyColumnUnusable("A keyset bound", t, names, why));
    SqlText q = CdcSql.keyBound(table, k.stream().map(KeyPredicates.Key::name).toList(), KeyPredicates.pieces(k, range), n);
    List<List<Object>> rows = keyRows("keyset bound of " + table, q);
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
  }

  /** The rows of a key query, each a list of key values (NULL as null), under the reader's isolation. */
  private List<List<Object>> keyRows(String what, SqlText q) {
    return client.call(what, () -> {
      session.applySession(isolation, lockTimeoutMs);
      try (PreparedStatement ps = session.prepare(q); ResultSet rs = ps.executeQuery()) {
        JdbcValues.Reader[] r = JdbcValues.readers(rs.getMetaData(), 1);
        List<List<Object>> out = new ArrayList<>();
        while (rs.next()) {
          List<Object> key = new ArrayList<>();
          for (int i = 0; i < r.length; i++) {
            key.add(JdbcValues.read(rs, i + 1, r[i]));
          }
          out.add(java.util.Collections.unmodifiableList(key));
        }
        return out;
      }
    });
  }
}
