package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Reads one key range on an executor as column batches of up to {@link #CAPACITY} rows
 * ({@link SnapshotColumns}, one reused batch) through a {@link SnapshotCursor}: the same rows and
 * values as {@link SnapshotPartitionReader}, without the per-row copy Spark makes of a row-based
 * scan's rows (its {@code ColumnarToRow} reads the vectors in generated code instead). Memory holds
 * one batch.
 */
final class SnapshotBatchReader implements PartitionReader<ColumnarBatch> {
  /** Rows per batch: Spark's own vectorized readers' default ({@code columnarReaderBatchSize}). */
  static final int CAPACITY = 4096;

  private final SnapshotCursor cursor;
  private final SnapshotColumns columns;
  private ColumnarBatch current;
  private boolean done;

  private SnapshotBatchReader(SnapshotCursor cursor, SnapshotColumns columns) {
    this.cursor = cursor;
    this.columns = columns;
  }

  /** @param figures the read's accumulator; null: no figures reported */
  static SnapshotBatchReader open(SnapshotInputPartition partition, CollectionAccumulator<ChunkFigures> figures) {
    SnapshotColumns columns = new SnapshotColumns(partition.read(), partition.chunk(), CAPACITY);
    try {
      return new SnapshotBatchReader(SnapshotCursor.open(partition, columns::bytes, figures), columns);
    } catch (RuntimeException e) {
      columns.close();
      throw e;
    }
  }

  @Override
  public boolean next() {
    if (done) {
      current = null;
      return false;
    }
    columns.reset();
    int n = 0;
    while (n < CAPACITY) {
      if (!cursor.next()) {
        done = true;
        break;
      }
      columns.fill(n++, cursor.row());
    }
    current = n > 0 ? columns.batch(n) : null;
    return n > 0;
  }

  @Override
  public ColumnarBatch get() {
    return current;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return cursor.metrics();
  }

  @Override
  public void close() {
    try {
      cursor.close();
    } finally {
      columns.close();
    }
  }
}
