package io.mssqlcdc.client;

/**
 * A forward-only cursor over rows of a source table ({@link CdcClient#readTable}). Values as in
 * {@link ChangeCursor}. Streams: memory does not grow with the table.
 */
public interface RowCursor extends AutoCloseable {
  boolean next();

  /** The i-th requested column (0-based, {@link TableQuery#columns()} order). */
  Object value(int i);

  @Override
  void close();
}
