package io.mssqlcdc.silver;

import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.DriverRead;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A call's one MERGE into its target (silver or the history), insert-only when the target is empty
 * on the call's first run: nothing can match then, and without matched clauses Delta takes its
 * insert-only path (no materialization of the source, no join of the target's files to rewrite);
 * in the bench that is 2 s of a 10 s first history call.
 *
 * <p>The emptiness is the log's when the target has no data file at the version read (no Spark job:
 * a first call usually creates the target just before), else a read's. It is read before the
 * MERGE's own transaction starts, so another writer could commit in between (a second first call
 * overlapping this one), and an insert-only MERGE would then skip the keys that writer inserted,
 * newer images of them included. So the target's version is read before the emptiness and after
 * the MERGE: unless the MERGE's commit is the only one in between, the full MERGE runs too
 * (idempotent: it takes an image only when newer, a version by its key and {@code __from_lsn}),
 * and the call ends as if it had run only that.
 */
final class FirstMerge {
  private static final Logger LOG = LoggerFactory.getLogger(FirstMerge.class);

  private FirstMerge() {}

  /**
   * Runs {@code merge} (its argument: insert only) into {@code target}.
   *
   * @param firstCall no position is recorded for the target (else the full MERGE, no check)
   * @param checked called after the emptiness was read (a test's hook)
   */
  static Row run(SparkSession spark, TableRef target, boolean firstCall, Runnable checked,
      Function<Boolean, Row> merge) {
    if (!firstCall) {
      return merge.apply(false);
    }
    long before = DeltaTables.version(spark, target);
    // No data file at that version (the log's answer, no Spark job): empty. Files: a read says whether a row is left.
    boolean empty = !DriverRead.hasFiles(spark, target, before).orElse(true)
        || DeltaTables.read(spark, target).isEmpty();
    checked.run();
    if (!empty) {
      return merge.apply(false);
    }
    Row inserted = merge.apply(true);
    long after = DeltaTables.version(spark, target);
    if (after == before + 1) {
      return inserted;
    }
    LOG.info("{} moved from version {} to {} during an insert-only first MERGE (another writer): running the full"
        + " MERGE too", target, before, after);
    return merge.apply(false);
  }
}
