package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.RowCursor;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Function;

/** Streams the rows of {@link CdcSql#readTable}, values as {@link JdbcValues} reads them. */
final class JdbcRowCursor implements RowCursor {
  private final Statement statement;
  private final ResultSet rs;
  private final JdbcValues.Reader[] readers;
  private final Function<SQLException, RuntimeException> translate;

  JdbcRowCursor(Statement statement, ResultSet rs, Function<SQLException, RuntimeException> translate) throws SQLException {
    this.statement = statement;
    this.rs = rs;
    this.readers = JdbcValues.readers(rs.getMetaData(), 1);
    this.translate = translate;
  }

  @Override
  public boolean next() {
    try {
      return rs.next();
    } catch (SQLException e) {
      throw translate.apply(e);
    }
  }

  @Override
  public Object value(int i) {
    try {
      return JdbcValues.read(rs, i + 1, readers[i]);
    } catch (SQLException e) {
      throw translate.apply(e);
    }
  }

  @Override
  public void close() {
    closeQuietly(rs, statement);
  }

  static void closeQuietly(AutoCloseable... resources) {
    for (AutoCloseable r : resources) {
      try {
        if (r != null) {
          r.close();
        }
      } catch (Exception e) {
        // closing after a read: nothing left to save
      }
    }
  }
}
