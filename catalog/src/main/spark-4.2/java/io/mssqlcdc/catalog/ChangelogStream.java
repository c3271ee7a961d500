package io.mssqlcdc.catalog;

import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;

/**
 * {@code spark.readStream.changes(table)}: the change stream itself ({@code format("mssql_cdc")}'s
 * micro-batch stream: offsets, checkpoints, admission control, metrics), started after the range's
 * start, its rows extended with the change-data columns by {@code rows}.
 */
final class ChangelogStream implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {
  private final MicroBatchStream stream;
  private final java.util.function.UnaryOperator<PartitionReaderFactory> rows;

  ChangelogStream(MicroBatchStream stream, java.util.function.UnaryOperator<PartitionReaderFactory> rows) {
    this.stream = stream;
    this.rows = rows;
  }

  @Override
  public Offset latestOffset() {
    return stream.latestOffset();
  }

  @Override
  public InputPartition[] planInputPartitions(Offset start, Offset end) {
    return stream.planInputPartitions(start, end);
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return rows.apply(stream.createReaderFactory());
  }

  @Override
  public Offset initialOffset() {
    return stream.initialOffset();
  }

  @Override
  public Offset deserializeOffset(String json) {
    return stream.deserializeOffset(json);
  }

  @Override
  public void commit(Offset end) {
    stream.commit(end);
  }

  @Override
  public void stop() {
    stream.stop();
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return ((SupportsTriggerAvailableNow) stream).getDefaultReadLimit();
  }

  @Override
  public Offset latestOffset(Offset startOffset, ReadLimit limit) {
    return ((SupportsTriggerAvailableNow) stream).latestOffset(startOffset, limit);
  }

  @Override
  public Offset reportLatestOffset() {
    return ((SupportsTriggerAvailableNow) stream).reportLatestOffset();
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    ((SupportsTriggerAvailableNow) stream).prepareForTriggerAvailableNow();
  }

  @Override
  public Map<String, String> metrics(Optional<Offset> latestConsumedOffset) {
    return ((ReportsSourceMetrics) stream).metrics(latestConsumedOffset);
  }

  @Override
  public String toString() {
    return "changes of " + stream;
  }
}
