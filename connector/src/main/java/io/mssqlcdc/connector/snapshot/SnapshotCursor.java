package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.RowCursor;
import io.mssqlcdc.lsn.Lsn;
import java.util.function.LongSupplier;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.util.CollectionAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One key range's read on an executor, shared by the row and the columnar reader: its own client,
 * streaming through a {@link RowCursor} (memory holds one row at a time, plus the client's fetch
 * buffer, whatever the table size), counting the rows. After the last row it reports the
 * partition's {@link ChunkFigures} (with {@code snapshotChunks}, {@code max_lsn} read right after
 * the chunk as its {@code high_lsn}); measuring never fails the read.
 */
final class SnapshotCursor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotCursor.class);

  private final SnapshotInputPartition partition;
  private final CdcClient client;
  private final RowCursor cursor;
  private final LongSupplier bytes;
  private final long startNanos;
  private final CollectionAccumulator<ChunkFigures> figures;
  private long count;
  private boolean reported;

  private SnapshotCursor(SnapshotInputPartition partition, CdcClient client, RowCursor cursor, LongSupplier bytes,
      long startNanos, CollectionAccumulator<ChunkFigures> figures) {
    this.partition = partition;
    this.client = client;
    this.cursor = cursor;
    this.bytes = bytes;
    this.startNanos = startNanos;
    this.figures = figures;
  }

  /**
   * @param bytes the approximate bytes built so far, by the reader's row or column building
   * @param figures the read's accumulator; null: no figures reported
   */
  static SnapshotCursor open(SnapshotInputPartition partition, LongSupplier bytes,
      CollectionAccumulator<ChunkFigures> figures) {
    long start = System.nanoTime();
    CdcClient client = CdcClients.open(partition.read().options());
    try {
      return new SnapshotCursor(partition, client, client.readTable(partition.query()), bytes, start, figures);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** Moves to the next row; false (and the figures reported) after the last. */
  boolean next() {
    if (!cursor.next()) {
      report();
      return false;
    }
    count++;
    return true;
  }

  /** The source row at the current position. */
  RowCursor row() {
    return cursor;
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
    figures.add(new ChunkFigures(partition.index(), partition.chunk(), count, bytes.getAsLong(), nanos, high));
  }

  CustomTaskMetric[] metrics() {
    return SnapshotMetrics.values(count, bytes.getAsLong(), (System.nanoTime() - startNanos) / 1_000_000L);
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
