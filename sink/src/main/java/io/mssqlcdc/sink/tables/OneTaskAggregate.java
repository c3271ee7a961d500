package io.mssqlcdc.sink.tables;

import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.Aggregate;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Repartition;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An aggregation over few rows run as one job of one task: its input coalesced to one partition (no
 * shuffle) right under the aggregate, so Spark plans no exchange before it (one partition holds every
 * group). Built from the query's optimized plan, which {@link ScanSize} has already prepared: Delta keeps its
 * prepared file index (it prepares scans of a table's log index only), so its file skipping does not run again.
 * Spark does not promise that an optimized plan analyzes again: any failure to build the new query leaves the
 * caller's as it is.
 */
public final class OneTaskAggregate {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OneTaskAggregate.class);
  private static final java.util.concurrent.atomic.AtomicBoolean LOGGED = new java.util.concurrent.atomic.AtomicBoolean();

  private OneTaskAggregate() {}

  /**
   * {@code ds} with its top aggregate's input in one partition; empty when its optimized plan does not
   * end with an aggregate, this runtime lacks Spark's classic API, or the new query cannot be built.
   */
  public static Optional<Dataset<Row>> of(Dataset<Row> ds) {
    try {
      LogicalPlan plan = ds.queryExecution().optimizedPlan();
      if (!(plan instanceof Aggregate agg) || !(ds.sparkSession() instanceof org.apache.spark.sql.classic.SparkSession s)) {
        return Optional.empty();
      }
      LogicalPlan one = agg.withNewChildren(CollectionConverters.asScala(
          java.util.List.<LogicalPlan>of(new Repartition(1, false, agg.child()))).toSeq());
      return Optional.of(org.apache.spark.sql.classic.Dataset$.MODULE$.ofRows(s, one));
    } catch (Exception | LinkageError e) {
      // Spark's AnalysisException is a checked exception, thrown undeclared.
      if (LOGGED.compareAndSet(false, true)) {
        LOG.debug("a small aggregation runs as planned, not in one task ({})", e.toString());
      }
      return Optional.empty();
    }
  }
}
