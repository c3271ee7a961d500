package io.mssqlcdc.connector.snapshot;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

/** Opens a {@link SnapshotPartitionReader} per partition, on the executor. */
final class SnapshotReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return SnapshotPartitionReader.open((SnapshotInputPartition) partition);
  }
}
