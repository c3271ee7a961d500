package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.client.RowCursor;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Function;

/**
 * Streams the rows of {@link CdcSql#readTable}, values as {@link JdbcValues} reads them. Closed
 * before its last row (a {@code LIMIT}, a killed task), it cancels the statement first: mssql-jdbc
 * would otherwise read and discard every remaining row inside {@code ResultSet.close()}
 * (microsoft/mssql-jdbc#1460), i.e. the rest of the table.
 */
final class JdbcRowCursor implements RowCursor {
  private final Statement statement;
  private final ResultSet rs;
  private final JdbcValues.Reader[] readers;
  private final Function<SQLException, RuntimeException> translate;
  private boolean exhausted;

  JdbcRowCursor(Statement statement, ResultSet rs, Function<SQLException, RuntimeException> translate) throws SQLException {
    this.statement = statement;
    this.rs = rs;
    this.readers = JdbcValues.readers(rs.getMetaData(), 1);
    this.translate = translate;
  }

  @Override
  public boolean next() {
    try {
      boolean more = rs.next();
      exhausted = !more;
      return more;
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
    close(exhausted, rs, statement);
  }

  /**
   * Closes a streamed result: when it was not read to its end, cancels the statement first (an
   * attention to the server), so that closing does not fetch the remaining rows.
   */
  static void close(boolean exhausted, ResultSet rs, Statement statement) {
    if (!exhausted && statement != null) {
      try {
        statement.cancel();
      } catch (Exception e) {
        // best effort: closing still works, only slower
      }
    }
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
