package io.mssqlcdc.sink.tables;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.DeltaOptions;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.SetTransaction;
import org.apache.spark.sql.delta.commands.DMLUtils;
import org.apache.spark.sql.delta.commands.WriteIntoDelta;
import scala.Option;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;

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

  private static final long UNKNOWN = Long.MIN_VALUE;

  private final TableRef table;
  private final String appId;
  /** The version of the app id this writer committed last, and the table version and id of that commit. */
  private long lastTxnVersion = -1;
  private long lastTableVersion = -1;
  private String lastTableId;
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
    SparkSession spark = rows.sparkSession();
    if (internalApi) {
      Optional<LogVersion.Log> log = Optional.empty();
      try {
        log = LogVersion.log(spark, table);
      } catch (Exception | LinkageError e) {
        LogVersion.unavailable(table, e);
      }
      if (log.isPresent()) {
        try {
          return inTransaction(spark, log.get(), rows, version, options);
        } catch (LinkageError e) {
          // Before the commit (the classes are resolved as the transaction starts): the writer below checks again.
          internalApi = false;
          LogVersion.unavailable(table, e);
        }
      }
    }
    forget();
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

  /** Forgets what this writer committed: its next append asks Delta. */
  public void forget() {
    lastTxnVersion = -1;
    lastTableVersion = -1;
    lastTableId = null;
  }

  private Outcome inTransaction(SparkSession spark, LogVersion.Log log, Dataset<Row> rows, long version,
      Map<String, String> options) {
    return log.log().withNewTransaction(log.table(), Option.empty(), txn -> {
      long recorded = knownVersion(log.log(), log.table(), txn, version);
      if (recorded == UNKNOWN) {
        checked++;
        recorded = txn.txnVersion(appId);
      } else {
        known++;
        // As Delta's own check does: a concurrent commit of this app id then fails this one.
        txn.readTxn().$plus$eq(appId);
      }
      forget();
      if (recorded >= version) {
        return Outcome.SKIPPED;
      }
      DeltaOptions delta = new DeltaOptions(
          scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(options)),
          spark.sessionState().conf());
      WriteIntoDelta write = new WriteIntoDelta(log.log(), SaveMode.Append, delta,
          CollectionConverters.asScala(List.<String>of()).toSeq(),
          scala.collection.immutable.Map$.MODULE$.<String, String>empty(), rows.toDF(), log.table(), Option.empty(),
          false);
      DMLUtils.TaggedCommitData<Action> data = write.writeAndReturnCommitData(txn, spark, Option.empty(), false);
      List<Action> actions = new ArrayList<>(CollectionConverters.asJava(data.actions()));
      actions.add(new SetTransaction(appId, version, Option.apply(log.log().clock().getTimeMillis())));
      DeltaOperations.Write op = new DeltaOperations.Write(SaveMode.Append,
          Option.apply(CollectionConverters.asScala(List.<String>of()).toSeq()), Option.empty(), delta.userMetadata(),
          Option.empty(), delta.canOverwriteSchema() ? Option.apply(Boolean.TRUE) : Option.empty(),
          delta.canMergeSchema() ? Option.apply(Boolean.TRUE) : Option.empty(), Option.empty(), Option.empty());
      beforeCommit.run();
      Option<Object> committed = txn.commitIfNeeded(CollectionConverters.asScala(actions).toSeq(), op,
          data.stringTags());
      if (committed.isDefined()) {
        lastTxnVersion = version;
        lastTableVersion = (Long) committed.get();
        lastTableId = txn.metadata().id();
      }
      return Outcome.WRITTEN;
    });
  }

  /**
   * The app id's version at the transaction's read version when this writer knows it: its last
   * commit was the previous version of the app id, at a table version the transaction reads past, of
   * the same table, and the commits between record no newer one for the app id.
   */
  private long knownVersion(DeltaLog log, Option<org.apache.spark.sql.catalyst.catalog.CatalogTable> table,
      OptimisticTransaction txn, long version) {
    if (lastTxnVersion < 0 || lastTxnVersion != version - 1 || lastTableId == null) {
      return UNKNOWN;
    }
    long read = txn.readVersion();
    if (read < lastTableVersion || read - lastTableVersion > LogTail.MAX_COMMITS
        || !lastTableId.equals(txn.metadata().id())) {
      return UNKNOWN;
    }
    long recorded = lastTxnVersion;
    if (read == lastTableVersion) {
      return recorded;
    }
    Iterator<Tuple2<Object, scala.collection.immutable.Seq<Action>>> commits =
        log.getChanges(lastTableVersion + 1, read, table, true);
    long expected = lastTableVersion + 1;
    while (commits.hasNext()) {
      Tuple2<Object, scala.collection.immutable.Seq<Action>> c = commits.next();
      if ((Long) c._1() != expected) {
        return UNKNOWN;
      }
      expected++;
      Iterator<Action> actions = c._2().iterator();
      while (actions.hasNext()) {
        if (actions.next() instanceof SetTransaction t && t.appId().equals(appId)) {
          recorded = Math.max(recorded, t.version());
        }
      }
    }
    return expected == read + 1 ? recorded : UNKNOWN;
  }
}
