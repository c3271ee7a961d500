package io.mssqlcdc.sink.tables;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.DeltaOptions;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.SetTransaction;
import org.apache.spark.sql.delta.commands.DMLUtils;
import org.apache.spark.sql.delta.commands.WriteIntoDelta;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@link TxnAppend}'s commit in Delta's own transaction: the only class that touches Delta's internal
 * API for it, so that a runtime without it fails loading this class (a {@code LinkageError} the caller
 * catches) rather than the sink's.
 */
final class TxnCommit {
  private static final Logger LOG = LoggerFactory.getLogger(TxnCommit.class);
  private static final long UNKNOWN = Long.MIN_VALUE;
  /** Tables whose unreadable log tail was logged (once each). */
  private static final java.util.Set<String> GONE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** What an append did, and what the writer knows after it (null: nothing). */
  record Result(TxnAppend.Outcome outcome, TxnAppend.Last last) {}

  private TxnCommit() {}

  /** The append through Delta's transaction; null when the table is not reachable that way (a name outside the session catalog). */
  static Result append(Dataset<Row> rows, TableRef table, String appId, long version, Map<String, String> options,
      TxnAppend.Last previous, java.util.function.Consumer<Boolean> checked, Runnable beforeCommit) {
    SparkSession spark = rows.sparkSession();
    Optional<LogVersion.Log> found;
    try {
      found = LogVersion.log(spark, table);
    } catch (Exception e) {
      LogVersion.unavailable(table, e);
      return null;
    }
    if (found.isEmpty()) {
      return null;
    }
    DeltaLog log = found.get().log();
    Option<CatalogTable> catalogTable = found.get().table();
    return log.withNewTransaction(catalogTable, Option.empty(), txn -> {
      long recorded = knownVersion(log, catalogTable, txn, appId, version, previous);
      checked.accept(recorded == UNKNOWN);
      if (recorded == UNKNOWN) {
        recorded = txn.txnVersion(appId);
      } else {
        // As Delta's own check does: a concurrent commit of this app id then fails this one.
        txn.readTxn().$plus$eq(appId);
      }
      if (recorded >= version) {
        return new Result(TxnAppend.Outcome.SKIPPED, null);
      }
      DeltaOptions delta = new DeltaOptions(
          scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(options)),
          spark.sessionState().conf());
      WriteIntoDelta write = new WriteIntoDelta(log, SaveMode.Append, delta,
          CollectionConverters.asScala(List.<String>of()).toSeq(),
          scala.collection.immutable.Map$.MODULE$.<String, String>empty(), rows.toDF(), catalogTable, Option.empty(),
          false);
      DMLUtils.TaggedCommitData<Action> data = write.writeAndReturnCommitData(txn, spark, Option.empty(), false);
      List<Action> actions = new ArrayList<>(CollectionConverters.asJava(data.actions()));
      actions.add(new SetTransaction(appId, version, Option.apply(log.clock().getTimeMillis())));
      DeltaOperations.Write op = new DeltaOperations.Write(SaveMode.Append,
          Option.apply(CollectionConverters.asScala(List.<String>of()).toSeq()), Option.empty(), delta.userMetadata(),
          Option.empty(), delta.canOverwriteSchema() ? Option.apply(Boolean.TRUE) : Option.empty(),
          delta.canMergeSchema() ? Option.apply(Boolean.TRUE) : Option.empty(), Option.empty(), Option.empty());
      beforeCommit.run();
      Option<Object> committed = txn.commitIfNeeded(CollectionConverters.asScala(actions).toSeq(), op,
          data.stringTags());
      TxnAppend.Last last = committed.isDefined()
          ? new TxnAppend.Last(version, (Long) committed.get(), txn.metadata().id()) : null;
      return new Result(TxnAppend.Outcome.WRITTEN, last);
    });
  }

  /**
   * The app id's version at the transaction's read version when the writer knows it: its last commit was the
   * previous version of the app id, at a table version the transaction reads past, of the same table, and the
   * commits between record no newer one for the app id.
   */
  private static long knownVersion(DeltaLog log, Option<CatalogTable> table, OptimisticTransaction txn, String appId,
      long version, TxnAppend.Last last) {
    if (last == null || last.txnVersion() != version - 1) {
      return UNKNOWN;
    }
    long read = txn.readVersion();
    if (read < last.tableVersion() || read - last.tableVersion() > LogTail.MAX_COMMITS
        || !last.tableId().equals(txn.metadata().id())) {
      return UNKNOWN;
    }
    long[] recorded = {last.txnVersion()};
    if (read == last.tableVersion()) {
      return recorded[0];
    }
    try {
      boolean whole = LogTail.eachAction(log, table, last.tableVersion(), read, a -> {
        if (a instanceof SetTransaction t && t.appId().equals(appId)) {
          recorded[0] = Math.max(recorded[0], t.version());
        }
        return true;
      });
      return whole ? recorded[0] : UNKNOWN;
    } catch (Exception e) {
      // A commit file since the writer's last commit is gone (log cleanup with a retention shorter than a batch;
      // Delta may throw it undeclared, hence Exception) or unreadable: Delta's state, from a checkpoint, answers.
      if (GONE.add(log.dataPath().toString())) {
        LOG.warn("{}: the log's commits after version {} are not readable ({}): Delta's state is asked instead. Is"
            + " delta.logRetentionDuration shorter than the stream's batch interval?", log.dataPath(),
            last.tableVersion(), e.toString());
      }
      return UNKNOWN;
    }
  }
}
