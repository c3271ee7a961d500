package io.mssqlcdc.connector.stream;

import java.io.Serializable;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.util.CollectionAccumulator;
import org.apache.spark.util.LongAccumulator;

/**
 * The read metrics and executor events of one micro-batch, carried to the driver by Spark
 * accumulators (registered on the driver when the batch is planned; each input partition holds
 * them, and Spark merges a task's updates when it succeeds). No side files.
 */
final class BatchAccumulators implements Serializable {
  private static final long serialVersionUID = 1L;

  final LongAccumulator rows;
  final LongAccumulator bytes;
  final LongAccumulator readNanos;
  final LongAccumulator partitionsRead;
  final CollectionAccumulator<BatchEvent> events;

  BatchAccumulators(SparkContext sc) {
    rows = sc.longAccumulator("mssql_cdc rows");
    bytes = sc.longAccumulator("mssql_cdc bytes");
    readNanos = sc.longAccumulator("mssql_cdc read time (ns)");
    partitionsRead = sc.longAccumulator("mssql_cdc partitions read");
    events = sc.collectionAccumulator("mssql_cdc events");
  }

  List<BatchEvent> taskEvents() {
    return List.copyOf(events.value());
  }
}
