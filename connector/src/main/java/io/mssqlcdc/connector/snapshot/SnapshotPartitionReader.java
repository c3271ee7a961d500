package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Reads one key range on an executor as rows ({@link SnapshotRows}, one reused row) through a
 * {@link SnapshotCursor}: the path for schemas the columnar reader ({@link SnapshotBatchReader})
 * does not build, and for option {@code columnarReads=false}.
 */
final class SnapshotPartitionReader implements PartitionReader<InternalRow> {
  private final SnapshotCursor cursor;
  private final SnapshotRows rows;
  private InternalRow current;

  private SnapshotPartitionReader(SnapshotCursor cursor, SnapshotRows rows) {
    this.cursor = cursor;
    this.rows = rows;
  }

  /** @param figures the read's accumulator; null: no figures reported */
  static SnapshotPartitionReader open(SnapshotInputPartition partition, CollectionAccumulator<ChunkFigures> figures) {
    SnapshotRows rows = new SnapshotRows(partition.read(), partition.chunk());
    return new SnapshotPartitionReader(SnapshotCursor.open(partition, rows::bytes, figures), rows);
  }

  @Override
  public boolean next() {
    if (!cursor.next()) {
      current = null;
      return false;
    }
    current = rows.row(cursor.row());
    return true;
  }

  @Override
  public InternalRow get() {
    return current;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return cursor.metrics();
  }

  @Override
  public void close() {
    cursor.close();
  }
}
