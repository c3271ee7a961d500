package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Opens a {@link SnapshotPartitionReader} per partition, on the executor. Carries the read's
 * accumulator: the factory is deserialized inside the task, so the accumulator registers with it
 * and Spark merges its update when the task succeeds (input partitions are deserialized before
 * the task runs, so they cannot carry it).
 */
final class SnapshotReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 2L;

  private final CollectionAccumulator<ChunkFigures> figures;

  SnapshotReaderFactory(CollectionAccumulator<ChunkFigures> figures) {
    this.figures = figures;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return SnapshotPartitionReader.open((SnapshotInputPartition) partition, figures);
  }
}
