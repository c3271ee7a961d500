package io.mssqlcdc.sink.tables;

import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Idempotent appends to one Delta table under one {@code txnAppId} (Delta's idempotent writes:
 * the commit records {@code txnVersion}; a write whose version is at or below the recorded one is
 * skipped), made by one writer whose versions rise one by one: a stream's micro-batches.
 *
 * <p>Delta answers "which version did this app id record" from the table's state, which it
 * computes per table version (in Delta 4.4 three Spark jobs over the log, whatever the table's size:
 * most of a small micro-batch's time). This writer knows the answer without it when its previous
 * append was version {@code v - 1} of the same app id and it committed it itself: the app id's
 * version is then {@code v - 1} at the commit it made, and the commits after it (read from the log's
 * commit files, no Spark job) say whether another writer recorded a newer one. It then commits in
 * the same transaction Delta's own append would (the same write, the same {@code txn} action and
 * commit info) and registers the app id as read, so a concurrent commit of the same app id still
 * fails the commit as with Delta's check. Anything else (a writer's first append, a version that
 * does not follow, another table at the same place, more than {@value LogTail#MAX_COMMITS} commits
 * between) asks Delta as before.
 *
 * <p>Delta's internal API (the transaction, {@code WriteIntoDelta}): where it is not there as this
 * build knows it (another Delta on the runtime), every append goes through the DataFrame writer with
 * {@code txnAppId}/{@code txnVersion}, as before.
 */
public final class TxnAppend {
  /** What an append did. */
  public enum Outcome {
    /** Committed the rows (and the app id's version). */
    WRITTEN,
    /** Delta holds this version of the app id already: nothing written. */
    SKIPPED,
    /** Went through the DataFrame writer, which does not say whether it skipped. */
    UNKNOWN
  }

  /** What this writer committed last: the app id's version, and the table version and id of that commit. */
  record Last(long txnVersion, long tableVersion, String tableId) {}

  private final TableRef table;
  private final String appId;
  private Last last;
  private boolean internalApi = true;
  /** Runs between the write and the commit (tests: a concurrent commit). */
  private Runnable beforeCommit = () -> { };
  private int checked;
  private int known;

  public TxnAppend(TableRef table, String appId) {
    this.table = table;
    this.appId = appId;
  }

  /** Appends rows read as the batch's {@code version} under {@code options} (DataFrame writer options, no txn key). */
  public Outcome append(Dataset<Row> rows, long version, Map<String, String> options) {
    if (internalApi) {
      Last previous = last;
      // forgotten until this append commits: a failure below leaves the next append asking Delta
      last = null;
      TxnCommit.Result r = null;
      try {
        // Delta's internal classes are touched only in TxnCommit, loaded here: a runtime without them ends up below.
        r = TxnCommit.append(rows, table, appId, version, options, previous, asked -> {
          if (asked) {
            checked++;
          } else {
            known++;
          }
        }, beforeCommit);
      } catch (LinkageError e) {
        internalApi = false;
        LogVersion.unavailable(table, e);
      }
      if (r != null) {
        last = r.last();
        return r.outcome();
      }
    }
    Map<String, String> withTxn = new java.util.HashMap<>(options);
    withTxn.put("txnAppId", appId);
    withTxn.put("txnVersion", Long.toString(version));
    DeltaTables.append(rows, table, withTxn);
    return Outcome.UNKNOWN;
  }

  /** Appends whose check took Delta's state of the table (this writer did not know the app id's version). */
  public int checkedAppends() {
    return checked;
  }

  /** Appends whose check needed no state of the table (the writer knew the app id's version). */
  public int knownAppends() {
    return known;
  }

  /** Runs {@code action} between each append's write and its commit (tests). */
  TxnAppend beforeCommit(Runnable action) {
    this.beforeCommit = action;
    return this;
  }
}
