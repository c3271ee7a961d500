package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.lsn.Lsn;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.util.CollectionAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one key range on an executor with its own client, streaming through a
 * {@link RowCursor}: memory holds one row at a time (plus the client's fetch buffer), whatever
 * the table size. After the last row it reports the partition's {@link ChunkFigures} (with
 * {@code snapshotChunks}, {@code max_lsn} read right after the chunk as its {@code high_lsn});
 * measuring never fails the read.
 */
final class SnapshotPartitionReader implements PartitionReader<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotPartitionReader.class);

  private final SnapshotInputPartition partition;
  private final CdcClient client;
  private final RowCursor cursor;
  private final SnapshotRows rows;
  private final long startNanos;
  private final CollectionAccumulator<ChunkFigures> figures;
  private InternalRow current;
  private long count;
  private boolean reported;

  private SnapshotPartitionReader(SnapshotInputPartition partition, CdcClient client, RowCursor cursor,
      SnapshotRows rows, long startNanos, CollectionAccumulator<ChunkFigures> figures) {
    this.partition = partition;
    this.client = client;
    this.cursor = cursor;
    this.rows = rows;
    this.startNanos = startNanos;
    this.figures = figures;
  }

  /** @param figures the read's accumulator; null: no figures reported */
  static SnapshotPartitionReader open(SnapshotInputPartition partition, CollectionAccumulator<ChunkFigures> figures) {
    long start = System.nanoTime();
    SnapshotRows rows = new SnapshotRows(partition.read(), partition.chunk());
    CdcClient client = CdcClients.open(partition.read().options());
    try {
      return new SnapshotPartitionReader(partition, client, client.readTable(partition.query()), rows, start, figures);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  @Override
  public boolean next() {
    if (!cursor.next()) {
      current = null;
      report();
      return false;
    }
    current = rows.row(cursor);
    count++;
    return true;
  }

  private void report() {
    if (reported || figures == null) {
      return;
    }
    reported = true;
    long nanos = System.nanoTime() - startNanos;
    Lsn high = null;
    if (partition.read().chunked()) {
      try {
        high = client.maxLsn().orElse(null);
      } catch (RuntimeException e) {
        LOG.debug("mssql_cdc_snapshot: max_lsn after chunk {} unavailable: {}", partition.chunk(), e.getMessage());
      }
    }
    figures.add(new ChunkFigures(partition.index(), partition.chunk(), count, rows.bytes(), nanos, high));
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
