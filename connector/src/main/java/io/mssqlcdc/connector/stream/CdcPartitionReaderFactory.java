package io.mssqlcdc.connector.stream;

import io.mssqlcdc.lsn.Lsn;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/**
 * Creates a {@link CdcPartitionReader} per range. Carries the schema and the accumulators of the
 * stream's recent batches, by batch end LSN: the factory is deserialized inside the task, so the
 * accumulators register with it and Spark merges their updates when the task succeeds.
 *
 * <p>IMPORTANT: it holds the stream's (synchronized) map itself, not a copy. Spark 4.1 asks for
 * the reader factory before it plans the batch's partitions, so a copy would miss the batch's
 * accumulators; the map is read when the tasks are serialized, after planning.
 */
final class CdcPartitionReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final StructType schema;
  private final Map<Lsn, BatchAccumulators> accumulators;

  CdcPartitionReaderFactory(StructType schema, Map<Lsn, BatchAccumulators> accumulators) {
    this.schema = schema;
    this.accumulators = accumulators;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    CdcInputPartition p = (CdcInputPartition) partition;
    return new CdcPartitionReader(p, schema, accumulators.get(p.batchEnd()));
  }
}
