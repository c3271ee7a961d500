package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;

/**
 * Reads one {@link LsnRange} on an executor (reference-behaviour §7): opens its own client,
 * streams the change rows (memory does not grow with a transaction or the range: one row is
 * held at a time), casts each value to the declared schema, and after the last row runs the
 * retention guard again: cleanup that passed the range's start during the read fails the task,
 * or is recorded as a {@code data_skipped} event with {@code failOnDataLoss=false}. The client
 * is closed on every path.
 */
final class CdcPartitionReader implements PartitionReader<InternalRow> {
  private final CdcInputPartition partition;
  private final ChangeRowConverter converter;
  private final BatchAccumulators acc;
  private CdcClient client;
  private ChangeCursor cursor;
  private InternalRow current;
  private boolean finished;
  private long rows;
  private long nanos;

  /** @param acc the batch's accumulators; null when unknown (no batch metrics then) */
  CdcPartitionReader(CdcInputPartition partition, StructType schema, BatchAccumulators acc) {
    this.partition = partition;
    this.acc = acc;
    this.converter = new ChangeRowConverter(schema, label(partition), partition.options().allowPrecisionLoss());
  }

  /**
   * {@code _capture_instance} of the range's rows: the configured name as the user gave it for
   * the configured instance (as the snapshot reader writes it, reference-behaviour §3), else the
   * newer instance's own name.
   */
  static String label(CdcInputPartition partition) {
    String read = partition.range().captureInstance();
    String configured = partition.options().captureInstance();
    return read.equalsIgnoreCase(configured) ? configured : read;
  }

  @Override
  public boolean next() {
    if (finished) {
      return false;
    }
    long t0 = System.nanoTime();
    try {
      if (cursor == null) {
        open();
      }
      if (cursor.next()) {
        current = converter.convert(cursor);
        rows++;
        return true;
      }
      finish();
      return false;
    } finally {
      nanos += System.nanoTime() - t0;
    }
  }

  private void open() {
    LsnRange r = partition.range();
    client = CdcClients.open(partition.options());
    cursor = client.changes(new ChangeQuery(r.captureInstance(), r.from(), r.to(), converter.columns(),
        converter.includeCommandId(), partition.options().fetchSize()));
  }

  private void finish() {
    finished = true;
    cursor.close();
    cursor = null;
    java.util.Optional<BatchEvent> skipped =
        RetentionGuard.afterRead(client, partition.range(), partition.options().failOnDataLoss());
    if (acc == null) {
      return;
    }
    skipped.ifPresent(acc.events::add);
    acc.rows.add(rows);
    acc.bytes.add(converter.bytes());
    acc.readNanos.add(nanos);
    acc.partitionsRead.add(1);
  }

  @Override
  public InternalRow get() {
    return current;
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return CdcMetrics.values(rows, converter.bytes(), nanos);
  }

  @Override
  public void close() {
    try {
      if (cursor != null) {
        cursor.close();
      }
    } finally {
      cursor = null;
      if (client != null) {
        client.close();
        client = null;
      }
    }
  }
}
