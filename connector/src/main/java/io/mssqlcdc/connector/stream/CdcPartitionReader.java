package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.lsn.Lsn;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one {@link LsnRange} on an executor (reference-behaviour §7): opens its own client,
 * measures one {@code SELECT 1} round trip and the session's network wait, streams the change
 * rows (memory does not grow with a transaction or the range: one row is held at a time), casts
 * each value to the declared schema, and after the last row runs the retention guard again:
 * cleanup that passed the range's start during the read fails the task, or is recorded as a
 * {@code data_skipped} event with {@code failOnDataLoss=false}. The batch's last range then reads
 * the position figures ({@code min_lsn}'s and {@code max_lsn}'s commit times, the capture lag).
 * What it measured goes to the driver as one {@link PartitionFigures}; measuring never fails
 * the read. The client is closed on every path.
 *
 * <p>Statements per range: network wait (it opens the connection, so the round trip that follows
 * does not time the login), ping, the read, {@code min_lsn}, network wait; the last range adds the commit time of {@code min_lsn}, {@code max_lsn} and its commit time.
 */
final class CdcPartitionReader implements PartitionReader<InternalRow> {
  private static final Logger LOG = LoggerFactory.getLogger(CdcPartitionReader.class);

  private final CdcInputPartition partition;
  private final ChangeRowConverter converter;
  private final BatchAccumulators acc;
  private CdcClient client;
  private ChangeCursor cursor;
  private InternalRow current;
  private boolean finished;
  private long rows;
  private long nanos;
  private long openedAt;
  private Double rttMs;
  private OptionalLong waitBefore = OptionalLong.empty();

  /** @param acc the batch's accumulators; null when unknown (no batch figures then) */
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
        open(t0);
      }
      if (cursor.next()) {
        current = converter.convert(cursor);
        rows++;
        return true;
      }
      finish(t0);
      return false;
    } finally {
      nanos += System.nanoTime() - t0;
    }
  }

  private void open(long t0) {
    openedAt = t0;
    LsnRange r = partition.range();
    client = CdcClients.open(partition.options());
    if (acc != null) {
      // the wait first: the client connects on its first statement, and the round trip must not time the login
      waitBefore = quietly("network wait", client::networkWaitMillis, OptionalLong.empty());
      OptionalDouble rtt = quietly("round trip", client::pingMillis, OptionalDouble.empty());
      rttMs = rtt.isPresent() ? rtt.getAsDouble() : null;
    }
    cursor = client.changes(new ChangeQuery(r.captureInstance(), r.from(), r.to(), converter.columns(),
        converter.includeCommandId(), partition.options().fetchSize()));
  }

  /** @param callStart when the {@code next()} call that found the end began */
  private void finish(long callStart) {
    finished = true;
    cursor.close();
    cursor = null;
    long now = System.nanoTime();
    long readNanos = now - openedAt;
    long sourceNanos = nanos + (now - callStart);
    LsnRange range = partition.range();
    Lsn minLsn = client.minLsn(range.captureInstance());
    Optional<BatchEvent> skipped =
        RetentionGuard.afterRead(client, range, minLsn, partition.options().failOnDataLoss());
    if (acc == null) {
      return;
    }
    OptionalLong waitAfter = quietly("network wait", client::networkWaitMillis, OptionalLong.empty());
    Long networkWait = waitBefore.isPresent() && waitAfter.isPresent()
        ? Math.max(0, waitAfter.getAsLong() - waitBefore.getAsLong()) : null;
    Instant watermark = null;
    Lsn maxLsn = null;
    Instant maxTs = null;
    Double lag = null;
    if (partition.last()) {
      watermark = quietly("retention watermark", () -> client.commitTimeAtOrBefore(minLsn), Optional.<Instant>empty())
          .orElse(null);
      maxLsn = quietly("max_lsn", client::maxLsn, Optional.<Lsn>empty()).orElse(null);
      if (maxLsn != null) {
        Lsn m = maxLsn;
        maxTs = quietly("max_lsn commit time", () -> client.commitTime(m), Optional.<Instant>empty()).orElse(null);
      }
      if (maxTs != null) {
        lag = Duration.between(maxTs, Instant.now()).toNanos() / 1e9;
      }
    }
    acc.partitions.add(new PartitionFigures(range, rows, converter.bytes(), readNanos, sourceNanos, rttMs,
        networkWait, partition.last() ? minLsn : null, watermark, maxLsn, maxTs, lag, skipped.orElse(null)));
  }

  /** {@code read.get()}, or {@code otherwise} when the source cannot tell: figures never fail a read. */
  private static <T> T quietly(String what, java.util.function.Supplier<T> read, T otherwise) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      LOG.debug("mssql_cdc: {} unavailable: {}", what, e.getMessage());
      return otherwise;
    }
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
