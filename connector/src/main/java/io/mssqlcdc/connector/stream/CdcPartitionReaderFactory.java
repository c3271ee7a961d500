package io.mssqlcdc.connector.stream;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;

/** Creates a {@link CdcPartitionReader} per range; carries only the schema. */
final class CdcPartitionReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final StructType schema;

  CdcPartitionReaderFactory(StructType schema) {
    this.schema = schema;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    return new CdcPartitionReader((CdcInputPartition) partition, schema);
  }
}
