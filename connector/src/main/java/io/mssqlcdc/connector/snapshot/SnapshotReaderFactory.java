package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.CollectionAccumulator;

/**
 * Opens a reader per partition, on the executor: a {@link SnapshotBatchReader} (column batches)
 * when option {@code columnarReads} is on (the default) and every column's type is built by
 * {@link SnapshotColumns}, else a {@link SnapshotPartitionReader} (rows). Every partition of a read
 * shares its options and schema, so they all take the same path, as Spark requires. Carries the
 * read's accumulator: the factory is deserialized inside the task, so the accumulator registers
 * with it and Spark merges its update when the task succeeds (input partitions are deserialized
 * before the task runs, so they cannot carry it).
 */
final class SnapshotReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 2L;

  private final CollectionAccumulator<ChunkFigures> figures;

  SnapshotReaderFactory(CollectionAccumulator<ChunkFigures> figures) {
    this.figures = figures;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    SnapshotRead read = ((SnapshotInputPartition) partition).read();
    return read.options().columnarReads() && SnapshotColumns.supports(read.schema());
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return SnapshotPartitionReader.open((SnapshotInputPartition) partition, figures);
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return SnapshotBatchReader.open((SnapshotInputPartition) partition, figures);
  }
}
