package io.mssqlcdc.sink.tables;

import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.delta.stats.DataSize;
import org.apache.spark.sql.delta.stats.PreparedDeltaFileIndex;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a query's Delta scans will read, from its optimized plan: the files left after Delta's data
 * skipping, their compressed bytes and rows by their statistics. Known only when every leaf of the plan
 * is such a scan and the plan has no subquery. Optimizing the plan is what running the query does first
 * (Delta's file filtering included), so a caller that asks and then runs the same {@code Dataset} pays
 * for it once.
 */
public final class ScanSize {
  private ScanSize() {}

  /** Compressed bytes and rows of the files read; {@code rows} negative when a file has no statistics. */
  public record Size(long bytes, long rows) {}

  /** The files {@code ds} reads; empty when a leaf is not a Delta scan as this build knows it. */
  public static Optional<Size> of(Dataset<?> ds) {
    try {
      LogicalPlan plan = ds.queryExecution().optimizedPlan();
      if (!plan.subqueriesAll().isEmpty()) {
        // A subquery's scans are not among the plan's leaves.
        return Optional.empty();
      }
      long bytes = 0;
      long rows = 0;
      for (LogicalPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
        if (!(leaf instanceof LogicalRelation lr) || !(lr.relation() instanceof HadoopFsRelation h)
            || !(h.location() instanceof PreparedDeltaFileIndex p)) {
          return Optional.empty();
        }
        DataSize scanned = p.preparedScan().scanned();
        if (scanned.bytesCompressed().isEmpty()) {
          return Optional.empty();
        }
        bytes += (Long) scanned.bytesCompressed().get();
        rows = rows < 0 || scanned.rows().isEmpty() ? -1 : rows + (Long) scanned.rows().get();
      }
      return Optional.of(new Size(bytes, rows));
    } catch (LinkageError e) {
      return Optional.empty();
    }
  }
}
