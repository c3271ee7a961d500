package io.mssqlcdc.sink.tables;

import static org.apache.spark.sql.functions.lit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.sql.types.StructField;
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
  private final DeltaOperations.Write operation;

  private NewFiles(TableRef table, LogVersion.Log log, OptimisticTransaction txn, List<Action> actions) {
    this.table = table;
    this.log = log;
    this.txn = txn;
    this.actions = actions;
    // Built here, with the write: a runtime whose Delta lacks it fails before anything is written.
    this.operation = append();
  }

  /**
   * Writes {@code rows} (columns of the table by name, cast to its types; a column it lacks: empty) as new files
   * of {@code table}, reading it at
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
    OptimisticTransaction txn = found.get().startTransaction();
    if (txn.readVersion() != emptyAt) {
      LOG.debug("{} moved from version {} to {} before its first write", table, emptyAt, txn.readVersion());
      return Optional.empty();
    }
    // The table's columns in its order and types, as an insert's assignments give them (Delta's writeFiles matches
    // names, it does not cast); a column the table lacks: another way.
    Map<String, String> given = new HashMap<>();
    for (String c : rows.columns()) {
      given.put(c.toLowerCase(Locale.ROOT), c);
    }
    List<Column> columns = new ArrayList<>();
    for (StructField f : txn.metadata().schema().fields()) {
      String c = given.remove(f.name().toLowerCase(Locale.ROOT));
      columns.add((c == null ? lit(null) : rows.col(DeltaTables.quote(c))).cast(f.dataType()).as(f.name()));
    }
    if (!given.isEmpty()) {
      LOG.debug("{} has no column(s) {}: its first write takes another way", table, given.values());
      return Optional.empty();
    }
    txn.readWholeTable();
    List<FileAction> written = CollectionConverters.asJava(txn.writeFiles(rows.select(columns.toArray(Column[]::new))));
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
      Option<Object> v = txn.commitIfNeeded(CollectionConverters.asScala(actions).toSeq(), operation,
          scala.collection.immutable.Map$.MODULE$.<String, String>empty());
      return v.isDefined() ? Optional.of((Long) v.get()) : Optional.of(txn.readVersion());
    } catch (LinkageError e) {
      // Delta's commit not as this build knows it (linked at its first call): nothing was committed.
      LogVersion.unavailable(table, e);
      return Optional.empty();
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
