package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.RowCursor;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * Reads one key range on an executor with its own client, streaming through a
 * {@link RowCursor}: memory holds one row at a time (plus the client's fetch buffer), whatever
 * the table size.
 */
final class SnapshotPartitionReader implements PartitionReader<InternalRow> {
  private final CdcClient client;
  private final RowCursor cursor;
  private final SnapshotRows rows;
  private final long startNanos;
  private InternalRow current;
  private long count;

  private SnapshotPartitionReader(CdcClient client, RowCursor cursor, SnapshotRows rows, long startNanos) {
    this.client = client;
    this.cursor = cursor;
    this.rows = rows;
    this.startNanos = startNanos;
  }

  static SnapshotPartitionReader open(SnapshotInputPartition partition) {
    long start = System.nanoTime();
    SnapshotRows rows = new SnapshotRows(partition.read(), partition.chunk());
    CdcClient client = CdcClients.open(partition.read().options());
    try {
      return new SnapshotPartitionReader(client, client.readTable(partition.query()), rows, start);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  @Override
  public boolean next() {
    if (!cursor.next()) {
      current = null;
      return false;
    }
    current = rows.row(cursor);
    count++;
    return true;
  }

  @Override
  public InternalRow get() {
    return current;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return SnapshotMetrics.values(count, rows.bytes(), (System.nanoTime() - startNanos) / 1_000_000L);
  }

  @Override
  public void close() {
    try {
      cursor.close();
    } finally {
      client.close();
    }
  }
}
