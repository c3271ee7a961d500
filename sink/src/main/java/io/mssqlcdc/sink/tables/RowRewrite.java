package io.mssqlcdc.sink.tables;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.delta.DeltaConfigs;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.NoMapping$;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.RowTracking;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.sql.delta.actions.Metadata;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * An {@code UPDATE} of one keyed row of a small Delta table (the control table), or the insert of a row
 * no file holds ({@link #prepareInsert}), done in two steps:
 * {@link #prepare} writes the rewritten files now, {@link #commit} commits them later, in the one
 * transaction Delta's {@code UpdateCommand} would have committed (the files that may hold the row by
 * their statistics removed, their rows rewritten with the new values where the key matches, the
 * predicate registered as read, operation {@code UPDATE} with its predicate). Silver writes its position this way: the
 * files are written while silver's MERGE runs, and after the MERGE only the commit is left (the
 * {@code UPDATE} ran two Spark jobs and its planning there).
 *
 * <p>Delta's conflict detection applies as to the {@code UPDATE}: a commit on the table after the prepared
 * transaction's read that conflicts with it (on a table without partitions, as the control table is, any
 * commit that adds or removes data files other than a blind append) fails {@link #commit}, which then
 * commits nothing and says so; the caller writes the row another way. Writers of the control table move
 * a row when its value moves (a tracker once per period of its granularity, a silver call once per call),
 * so such a commit is rare while one MERGE runs. A table this class
 * leaves to Delta's own {@code UPDATE} (partitioned, change data feed, row tracking, column mapping,
 * append-only, deletion vectors on a file read), a table outside the session catalog's reach, or no row
 * matching at the read version: {@link #prepare} is empty. Delta's internal API, pinned by the build's
 * Delta: a runtime without it as this build knows it raises a {@code LinkageError}, which callers catch.
 * Files of a prepared rewrite that is never committed are left to {@code VACUUM}, as Delta leaves a
 * failed write's.
 */
public final class RowRewrite {
  private static final Logger LOG = LoggerFactory.getLogger(RowRewrite.class);
  /** How long {@link #prepare} waits for the write's observation (the rows it matched) after the write. */
  static final long OBSERVATION_WAIT_SECONDS = 30;

  private final TableRef table;
  private final OptimisticTransaction txn;
  private final List<Action> actions;
  private final DeltaOperations.Operation operation;
  private final long matched;

  private RowRewrite(TableRef table, OptimisticTransaction txn, List<Action> actions,
      DeltaOperations.Operation operation, long matched) {
    this.table = table;
    this.txn = txn;
    this.actions = actions;
    this.operation = operation;
    this.matched = matched;
  }

  /**
   * Writes the files of the rewrite of the rows whose {@code keyColumn} is {@code key}: each column of
   * {@code set} takes its expression there (evaluated against the row as read, as an {@code UPDATE}'s
   * {@code SET}), every other row and column is copied. Nothing is committed.
   *
   * @return empty when this path does not apply (see the class comment); the caller then runs its
   *     {@code UPDATE} or {@code MERGE}
   */
  public static Optional<RowRewrite> prepare(SparkSession spark, TableRef table, String keyColumn, String key,
      Map<String, Column> set) throws Exception {
    Optional<Read> found = read(spark, table, keyColumn, key, "UPDATE");
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Read r = found.get();
    List<AddFile> read = CollectionConverters.asJava(r.files());
    if (read.isEmpty() || read.stream().anyMatch(f -> f.deletionVector() != null)) {
      return Optional.empty();
    }
    Dataset<Row> rows = r.log().createDataFrame(r.txn().snapshot(), r.files(), false, Option.apply("update"));
    List<Column> columns = new ArrayList<>();
    for (StructField f : r.txn().metadata().schema().fields()) {
      Column c = rows.col(DeltaTables.quote(f.name()));
      Column value = set.get(f.name());
      columns.add(value == null ? c : when(r.match(), value.cast(f.dataType())).otherwise(c).as(f.name()));
    }
    Observation o = new Observation("mssql_cdc_row_rewrite_" + UUID.randomUUID().toString().replace("-", ""));
    Dataset<Row> rewritten = rows.select(columns.toArray(Column[]::new))
        .observe(o, count(when(r.match(), lit(1))).as("matched"));
    List<FileAction> written = CollectionConverters.asJava(r.txn().writeFiles(rewritten));
    Long matched = matched(o);
    if (matched == null || matched == 0) {
      // Not known (the observation did not complete), or the row is gone since the caller read it: the caller's
      // MERGE inserts it.
      return Optional.empty();
    }
    long now = System.currentTimeMillis();
    List<Action> actions = new ArrayList<>(written);
    for (AddFile f : read) {
      actions.add(f.removeWithTimestamp(now, true));
    }
    return Optional.of(new RowRewrite(table, r.txn(), actions,
        new DeltaOperations.Update(Option.apply(r.predicate())), matched));
  }

  /**
   * Writes the file of a new row whose {@code keyColumn} is {@code key} (each column the value of
   * {@code values}, the others NULL), committed by {@link #commit} later as an append: the insert a
   * {@code MERGE} makes of a row no file holds. The read predicate is registered as for the rewrite.
   *
   * @return empty when a file holds the key (the caller's {@code MERGE} then decides), or the path does not
   *     apply (see the class comment)
   */
  public static Optional<RowRewrite> prepareInsert(SparkSession spark, TableRef table, String keyColumn, String key,
      Map<String, Column> values) throws Exception {
    Optional<Read> found = read(spark, table, keyColumn, key, "MERGE");
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Read r = found.get();
    // Files that may hold the key by their statistics (Delta keeps a string's first 32 characters there, so
    // long names sharing a prefix match every file): a read says whether one does.
    if (!r.files().isEmpty() && !r.log().createDataFrame(r.txn().snapshot(), r.files(), false, Option.empty())
        .where(r.match()).isEmpty()) {
      return Optional.empty();
    }
    List<Column> columns = new ArrayList<>();
    for (StructField f : r.txn().metadata().schema().fields()) {
      Column value = f.name().equals(keyColumn) ? lit(key) : values.get(f.name());
      columns.add((value == null ? lit(null) : value).cast(f.dataType()).as(f.name()));
    }
    List<Action> actions = new ArrayList<>(CollectionConverters.asJava(r.txn().writeFiles(
        spark.range(1).select(columns.toArray(Column[]::new)))));
    return Optional.of(new RowRewrite(table, r.txn(), actions, NewFiles.append(), 1));
  }

  /** A transaction on the table, the key's predicate, and the files that may hold the key (registered as read). */
  private record Read(DeltaLog log, OptimisticTransaction txn, Column match, Expression predicate,
      scala.collection.immutable.Seq<AddFile> files) {}

  /**
   * Whether a row written into {@code table} by this class would find the files that may hold it without Delta's
   * table state: the newest snapshot this JVM knows lists its files in its checksum ({@link ChecksumFiles}) and
   * this path applies to the table. A hint for whether to compute the state ahead.
   */
  public static boolean needsNoState(SparkSession spark, TableRef table) {
    return ChecksumFiles.newestListed(spark, table).map(s -> unsupported(s.metadata(), s.protocol()) == null)
        .orElse(false);
  }

  /** Starts the transaction and reads the files that may hold the key; empty where this path does not apply. */
  private static Optional<Read> read(SparkSession spark, TableRef table, String keyColumn, String key, String instead)
      throws Exception {
    Optional<LogVersion.Log> found = LogVersion.log(spark, table);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    DeltaLog log = found.get().log();
    OptimisticTransaction txn = found.get().startTransaction();
    String unsupported = unsupported(txn);
    if (unsupported != null) {
      LOG.debug("{}: the row of {} is written by Delta's {} ({})", table, key, instead, unsupported);
      return Optional.empty();
    }
    Column match = col(DeltaTables.quote(keyColumn)).equalTo(lit(key));
    Expression predicate = condition(DeltaTables.read(spark, table).where(match));
    // By the files' statistics (from the checksum on the driver when it lists them); the predicate and the files
    // registered as read, as Delta's UPDATE registers them.
    return Optional.of(new Read(log, txn, match, predicate,
        CollectionConverters.asScala(ChecksumFiles.candidates(txn, predicate)).toSeq()));
  }

  /**
   * Commits the prepared rewrite.
   *
   * @return true when committed; false when a concurrent commit conflicts with it (nothing committed)
   */
  public boolean commit() {
    try {
      txn.commitIfNeeded(CollectionConverters.asScala(actions).toSeq(), operation,
          scala.collection.immutable.Map$.MODULE$.<String, String>empty());
      return true;
    } catch (LinkageError e) {
      // Delta's commit not as this build knows it (linked at its first call): nothing was committed.
      LogVersion.unavailable(table, e);
      return false;
    } catch (RuntimeException e) {
      if (!DeltaConflicts.isConflict(e)) {
        throw e;
      }
      LOG.info("{}: the prepared {} lost a race with another commit ({}); written again", table,
          operation instanceof DeltaOperations.Update ? "UPDATE of " + matched + " row(s)" : "insert of a row",
          firstLine(e));
      return false;
    }
  }

  /** The rows the rewrite updated. */
  public long matched() {
    return matched;
  }

  /** Why the table's row is left to Delta's own UPDATE; null when this path applies. */
  static String unsupported(OptimisticTransaction txn) {
    return unsupported(txn.metadata(), txn.protocol());
  }

  /** {@link #unsupported(OptimisticTransaction)} of a table with metadata {@code m} and protocol {@code p}. */
  static String unsupported(Metadata m, org.apache.spark.sql.delta.actions.Protocol p) {
    if (!m.partitionColumns().isEmpty()) {
      return "partitioned";
    }
    if (Boolean.TRUE.equals(DeltaConfigs.CHANGE_DATA_FEED().fromMetaData(m))) {
      return "change data feed";
    }
    if (Boolean.TRUE.equals(DeltaConfigs.IS_APPEND_ONLY().fromMetaData(m))) {
      return "append-only";
    }
    if (RowTracking.isEnabled(p, m)) {
      return "row tracking";
    }
    if (m.columnMappingMode() != NoMapping$.MODULE$) {
      return "column mapping";
    }
    return null;
  }

  /** The resolved condition of {@code filtered}'s top filter (the predicate as Delta's UPDATE would get it). */
  static Expression condition(Dataset<Row> filtered) {
    return condition(filtered.queryExecution().analyzed());
  }

  /** The condition of {@code plan}'s top filter. */
  static Expression condition(LogicalPlan plan) {
    if (plan instanceof Filter f) {
      return f.condition();
    }
    throw new IllegalStateException("expected a filter on top of the analyzed plan, got " + plan.nodeName());
  }

  private static Long matched(Observation o) throws InterruptedException {
    Optional<Row> row = Observed.within(o, OBSERVATION_WAIT_SECONDS);
    return row.isPresent() && !row.get().isNullAt(0) ? row.get().getLong(0) : null;
  }

  private static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
