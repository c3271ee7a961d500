package io.mssqlcdc.connector.stream;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.util.CollectionAccumulator;

/**
 * What the executors of one micro-batch measured, carried to the driver by a Spark accumulator
 * (registered on the driver when the batch is planned; the reader factory holds it, and Spark
 * merges a task's update when the task succeeds, before the action that read the batch
 * returns). One {@link PartitionFigures} per range read; no side files.
 */
final class BatchAccumulators implements Serializable {
  private static final long serialVersionUID = 2L;

  final CollectionAccumulator<PartitionFigures> partitions;

  BatchAccumulators(SparkContext sc) {
    partitions = sc.collectionAccumulator("mssql_cdc partitions read");
  }

  /** The figures received so far (a range read twice appears twice). */
  List<PartitionFigures> received() {
    return List.copyOf(partitions.value());
  }
}
