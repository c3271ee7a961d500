package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.client.CdcClients;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.options.CdcReaderOptions;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.CollectionAccumulator;
import scala.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans the read on the driver: stamps and cuts the table once ({@link SnapshotPlanner}) and
 * hands each partition the stamp, so every row of the read carries the same one. Registers the
 * read's {@link SnapshotReport} ({@link SnapshotReports}) when it plans.
 */
final class SnapshotBatch implements Batch {
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotBatch.class);

  private final StructType schema;
  private final SnapshotOptions options;
  private InputPartition[] partitions;
  private CollectionAccumulator<ChunkFigures> figures;

  SnapshotBatch(StructType schema, SnapshotOptions options) {
    this.schema = schema;
    this.options = options;
  }

  @Override
  public synchronized InputPartition[] planInputPartitions() {
    if (partitions == null) {
      partitions = plan();
    }
    return partitions.clone();
  }

  private InputPartition[] plan() {
    CdcReaderOptions o = options.reader();
    boolean chunked = options.chunks().isPresent();
    SnapshotPlanner.Request request = new SnapshotPlanner.Request(
        o.captureInstance(), SnapshotSchema.capturedNames(schema, o.includeCommandId(), chunked), o.snapshotLsn(),
        options.keys(), options.chunks(), numPartitions(o));
    SnapshotPlan plan;
    CdcReaderOptions forExecutors;
    try (CdcClient client = CdcClients.open(o)) {
      plan = new SnapshotPlanner(client).plan(request);
      forExecutors = o.forExecutors(client);
    }
    LOG.info("mssql_cdc_snapshot: {} stamped {} ({}), {} partition(s).", plan.table(), plan.stamp().lsn(),
        plan.stamp().commitTs(), plan.ranges().size());
    SnapshotRead read =
        new SnapshotRead(forExecutors, schema, o.captureInstance(), plan.stamp(), plan.columns(), chunked);
    List<PlannedRange> ranges = plan.ranges();
    InputPartition[] out = new InputPartition[ranges.size()];
    for (int i = 0; i < out.length; i++) {
      PlannedRange r = ranges.get(i);
      TableQuery query = new TableQuery(plan.table(), plan.columns().read(), plan.keys(), r.range(),
          o.isolationLevel(), o.lockTimeoutMs(), o.fetchSize());
      out[i] = new SnapshotInputPartition(i, read, query, r.chunk());
    }
    SnapshotReports.register(
        new SnapshotReport(o.readId().orElse(null), o.captureInstance(), plan.stamp(), out.length, figures()));
    return out;
  }

  /**
   * The read's accumulator, registered on the driver by whichever comes first, planning or the
   * reader factory (Spark may ask for the factory first); the factory carries it to the tasks.
   * Null outside a Spark session (a batch planned by hand): no figures then.
   */
  private synchronized CollectionAccumulator<ChunkFigures> figures() {
    if (figures == null) {
      Option<SparkSession> session = SparkSession.getActiveSession();
      if (session.isEmpty()) {
        session = SparkSession.getDefaultSession();
      }
      if (session.isDefined()) {
        figures = session.get().sparkContext().collectionAccumulator("mssql_cdc_snapshot partitions read");
      }
    }
    return figures;
  }

  private static int numPartitions(CdcReaderOptions o) {
    return o.numPartitions().orElseGet(() -> SparkSession.active().sparkContext().defaultParallelism());
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return new SnapshotReaderFactory(figures());
  }
}
