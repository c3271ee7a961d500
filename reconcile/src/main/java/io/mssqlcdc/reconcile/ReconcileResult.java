package io.mssqlcdc.reconcile;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What one run of {@link Reconcile} found (the reference's {@code ReconcileResult}).
 *
 * @param runId the run's UUID (the report rows' {@code run_id})
 * @param silverVersion the Delta version of silver compared
 * @param silverLsn silver's {@code applied_lsn}, read before that version was pinned; empty when none
 * @param sourceLsn SQL Server's {@code max_lsn} read before the counts
 * @param buckets tier 1 buckets (a whole-table count is one)
 * @param match buckets whose rows and key sums are equal
 * @param inFlight buckets that differ while keys of them are in flight
 * @param mismatch buckets that differ with nothing in flight
 * @param hashed buckets (or key ranges) compared row by row
 * @param failures key rows and chunk rows by failure type ({@code MISSING_TARGET}, ..., {@code CHUNK_STAMP})
 * @param report this run's report rows (as appended to the report table)
 */
public record ReconcileResult(String runId, long silverVersion, Optional<String> silverLsn, String sourceLsn,
    int buckets, int match, int inFlight, int mismatch, int hashed, Map<String, Long> failures,
    Dataset<Row> report) {

  public ReconcileResult {
    failures = java.util.Collections.unmodifiableMap(new TreeMap<>(failures));
  }

  /** Whether silver was proved equal to the source: no MISMATCH bucket and no failure other than IN_FLIGHT. */
  public boolean clean() {
    return mismatch == 0 && failures.entrySet().stream().allMatch(e -> e.getKey().equals("IN_FLIGHT") || e.getValue() == 0);
  }

  /** The count of one failure type (0 when none). */
  public long failures(String failureType) {
    return failures.getOrDefault(failureType, 0L);
  }

  /** One line for logs. */
  public String summary() {
    return "reconcile run " + runId + ": silver version " + silverVersion + " (applied_lsn " + silverLsn.orElse("none")
        + ") against source max_lsn " + sourceLsn + ": " + buckets + " bucket(s), " + match + " MATCH, " + inFlight
        + " IN_FLIGHT, " + mismatch + " MISMATCH, " + hashed + " hashed; failures " + failures;
  }

  @Override
  public String toString() {
    return summary();
  }
}
