package io.mssqlcdc.sink.tables;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.FileAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Rows written into a Delta table that holds no row, in Delta's own transaction, in two steps:
 * {@link #write} writes the files (the caller's pass over its source runs in that write, so it can
 * observe what it needs there), {@link #commit} commits them after the caller has checked what it
 * observed; a write it does not commit is left to {@code VACUUM}, as Delta leaves a failed write's.
 * The commit is an append ({@code WRITE}, mode {@code Append}) whose transaction registered the whole
 * table as read, made only when the table's newest version is still the one read: a commit of another
 * writer since the version the caller found empty stops it (Delta's check alone lets a concurrent blind
 * append pass; one landing in the moment between the look and the commit still does, and the caller
 * sees it in the version the commit produced). Silver's first call writes its rows this way ({@code FirstWrite}). Delta's internal API,
 * pinned by the build's Delta: a runtime without it as this build knows it raises a
 * {@code LinkageError}, which callers catch.
 */
public final class NewFiles {
  private static final Logger LOG = LoggerFactory.getLogger(NewFiles.class);

  private final TableRef table;
  private final LogVersion.Log log;
  private final OptimisticTransaction txn;
  private final List<Action> actions;

  private NewFiles(TableRef table, LogVersion.Log log, OptimisticTransaction txn, List<Action> actions) {
    this.table = table;
    this.log = log;
    this.txn = txn;
    this.actions = actions;
  }

  /**
   * Writes {@code rows} (the table's columns by name) as new files of {@code table}, reading it at
   * {@code emptyAt}, the version at which the caller found it without a data file.
   *
   * @return empty when the table has a newer version already, or is not reachable this way (a name
   *     outside the session catalog); the caller then writes another way
   */
  public static Optional<NewFiles> write(SparkSession spark, TableRef table, long emptyAt, Dataset<Row> rows)
      throws Exception {
    Optional<LogVersion.Log> found = LogVersion.log(spark, table);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    DeltaLog log = found.get().log();
    OptimisticTransaction txn = log.startTransaction(found.get().table(), Option.empty());
    if (txn.readVersion() != emptyAt) {
      LOG.debug("{} moved from version {} to {} before its first write", table, emptyAt, txn.readVersion());
      return Optional.empty();
    }
    txn.readWholeTable();
    List<FileAction> written = CollectionConverters.asJava(txn.writeFiles(rows));
    return Optional.of(new NewFiles(table, found.get(), txn, new ArrayList<>(written)));
  }

  /** The operation of an append without options (a {@code WRITE} in mode {@code Append}). */
  static DeltaOperations.Write append() {
    return new DeltaOperations.Write(SaveMode.Append,
        Option.apply(CollectionConverters.asScala(List.<String>of()).toSeq()), Option.empty(), Option.empty(),
        Option.empty(), Option.empty(), Option.empty(), Option.empty(), Option.empty());
  }

  /**
   * Commits the files written.
   *
   * @return the version committed; empty when a concurrent commit conflicts (nothing committed)
   */
  public Optional<Long> commit() {
    // Delta lets a concurrent blind append pass this transaction's check (WriteSerializable): a commit since the
    // read, whatever it is, means the table may hold rows already, so nothing is committed. (One landing between
    // this look and the commit still passes: the caller sees it in the version committed.)
    long newest = log.update();
    if (newest != txn.readVersion()) {
      LOG.info("{} moved from version {} to {} during the first write: not committed, written another way", table,
          txn.readVersion(), newest);
      return Optional.empty();
    }
    try {
      Option<Object> v = txn.commitIfNeeded(CollectionConverters.asScala(actions).toSeq(), append(),
          scala.collection.immutable.Map$.MODULE$.<String, String>empty());
      return v.isDefined() ? Optional.of((Long) v.get()) : Optional.of(txn.readVersion());
    } catch (RuntimeException e) {
      if (!DeltaConflicts.isConflict(e)) {
        throw e;
      }
      LOG.info("{}: the first write lost a race with another commit ({}): written another way", table,
          e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(""));
      return Optional.empty();
    }
  }
}
