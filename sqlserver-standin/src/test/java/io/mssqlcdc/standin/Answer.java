package io.mssqlcdc.standin;

import io.mssqlcdc.standin.tds.SqlType;
import io.mssqlcdc.standin.tds.Tokens.Column;
import java.util.Iterator;
import java.util.List;

/** What a statement answers: one result set (rows streamed from the fake), or nothing (a SET). */
sealed interface Answer {
  /** Rows produced one at a time; {@code next()} returns null at the end and may throw {@link SqlError}. */
  interface RowSource extends AutoCloseable {
    Object[] next();

    @Override
    default void close() {}

    static RowSource of(List<Object[]> rows) {
      Iterator<Object[]> it = rows.iterator();
      return () -> it.hasNext() ? it.next() : null;
    }
  }

  record Rows(List<Column> columns, RowSource rows) implements Answer {}

  record NoResult() implements Answer {}

  static Column col(String name, String declaration) {
    return new Column(name, SqlType.parse(declaration));
  }

  static Rows one(Column column, Object value) {
    return new Rows(List.of(column), RowSource.of(java.util.Collections.singletonList(new Object[] {value})));
  }
}
