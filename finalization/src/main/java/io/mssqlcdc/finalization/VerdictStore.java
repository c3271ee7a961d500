package io.mssqlcdc.finalization;

import static io.mssqlcdc.finalization.ControlTable.FINALIZED_UNTIL;
import static io.mssqlcdc.finalization.ControlTable.TABLE_NAME;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.FinalizationErrors;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.time.LocalDateTime;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * The control table on Delta: created and migrated with the sink's table runner, read, and moved
 * forward with one MERGE ({@link ControlRowMerge}, which silver's position uses too). The MERGE
 * updates a row only when its verdict is NULL (a row silver created) or older than the candidate,
 * so concurrent writers (trackers of several streams, silver jobs) can never move a verdict
 * backwards; a MERGE that loses a race with another commit is retried (OSS Delta fails concurrent
 * MERGEs even on other rows).
 */
final class VerdictStore {
  private VerdictStore() {}

  /** Control tables ensured in this JVM, per session: advance ensures once, not per call. */
  private static final Map<SparkSession, Set<TableRef>> ENSURED = Collections.synchronizedMap(new WeakHashMap<>());

  /** Creates the control table at the latest version, or migrates it. */
  static void ensure(SparkSession spark, TableRef control) {
    TableRunner.ensure(spark, control, ControlTable.KIND, ControlTable.schema());
    ENSURED.computeIfAbsent(spark, s -> ConcurrentHashMap.newKeySet()).add(control);
  }

  /** {@link #ensure}, unless this session ensured the table already (and nothing failed on it since). */
  static void ensureOnce(SparkSession spark, TableRef control) {
    Set<TableRef> done = ENSURED.get(spark);
    if (done == null || !done.contains(control)) {
      ensure(spark, control);
    }
  }

  /** Forgets that the table was ensured (an operation on it failed: it may have been dropped). */
  static void forget(SparkSession spark, TableRef control) {
    Set<TableRef> done = ENSURED.get(spark);
    if (done != null) {
      done.remove(control);
    }
  }

  /**
   * Moves {@code tableName}'s verdict to {@code candidate} if that is later than the stored one
   * (or there is none), recording {@code endOffset}; retried on concurrent-commit conflicts.
   *
   * @return whether the MERGE changed the row (false: another writer stored a verdict at or after
   *     {@code candidate} meanwhile)
   */
  static boolean moveForward(
      SparkSession spark, TableRef control, String tableName, LocalDateTime candidate, CdcOffset endOffset) {
    Row metrics = ControlRowMerge.row(tableName).verdict(candidate, endOffset)
        .execute(spark, control, "advancing finalized_until of " + tableName + " in " + control);
    return metrics.<Long>getAs("num_affected_rows") > 0;
  }

  /**
   * {@code tableName}'s verdict; empty when the table has no row or its verdict is NULL.
   *
   * @throws io.mssqlcdc.errors.CdcStateException when the control table does not exist
   */
  static Optional<LocalDateTime> read(SparkSession spark, TableRef control, String tableName) {
    if (!DeltaTables.exists(spark, control)) {
      throw FinalizationErrors.controlTableMissing(control.text());
    }
    // max(): one row per table is the invariant; if a copy ever broke it, the latest verdict is
    // still one no writer could have stored without its data committed.
    Row r = DeltaTables.read(spark, control).where(functions.col(TABLE_NAME).equalTo(tableName))
        .agg(functions.max(FINALIZED_UNTIL)).first();
    return Optional.ofNullable(r.isNullAt(0) ? null : (LocalDateTime) r.get(0));
  }
}
