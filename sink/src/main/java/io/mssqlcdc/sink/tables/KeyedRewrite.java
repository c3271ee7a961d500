package io.mssqlcdc.sink.tables;

import static org.apache.spark.sql.functions.broadcast;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.DeltaOperations;
import org.apache.spark.sql.delta.OptimisticTransaction;
import org.apache.spark.sql.delta.actions.Action;
import org.apache.spark.sql.delta.actions.AddFile;
import org.apache.spark.sql.delta.actions.FileAction;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A {@code MERGE} of a small keyed source into a Delta table in one pass over the files that may hold
 * the source's keys: the commit Delta's {@code MERGE} would make (those files removed, their rows
 * written again with the matched clauses applied, the unmatched source rows inserted, the read
 * predicate registered, operation {@code MERGE} with its metrics), without its second pass. Delta's
 * {@code MERGE} first joins the candidate files with the source to find the files it touches, then
 * joins them again to write them; here every candidate file is written in the first pass, so the
 * caller bounds how many there may be ({@link Limits}): a candidate file that holds none of the keys
 * is written again unchanged, which costs a write where the {@code MERGE} paid a read.
 *
 * <p>Semantics, as the {@code MERGE} with these clauses: keys match null-safe; a target row matched by a
 * source row is dropped when {@link Clauses#delete} holds, else takes the source's columns (those the
 * source has; the others kept) when {@link Clauses#update} holds, else is kept; a source row that
 * matches no target row is inserted when {@link Clauses#insert} holds (target columns the source lacks:
 * NULL). Several target rows of one key are each updated or deleted, as by the {@code MERGE}. The
 * source must hold at most one row per key (as the {@code MERGE} requires of a matching source).
 *
 * <p>One write (and the broadcasts of the source and of the candidates' keys): the candidates' rows joined
 * with the source, and the source rows whose key no candidate holds (an anti-join with the candidates' keys)
 * that the insert clause takes, coalesced into as many files as there were candidates, so the files of a key
 * range that every call touches do not multiply; {@link Observation}s count the rows. Conflicts are Delta's: a
 * concurrent commit that conflicts with the read predicate or removes a candidate file fails the commit,
 * nothing is committed, and the
 * caller runs its {@code MERGE}. Where this path does not apply ({@link Outcome#declined}) nothing is
 * written: a partitioned table, change data feed, row tracking, column mapping, append-only, generated,
 * identity or default-valued columns, a candidate file with a deletion vector, more candidates than the
 * limits. Delta's internal API, pinned by the build's Delta: a runtime without it as this build knows
 * it raises a {@code LinkageError}, which callers catch. Files written but not committed are left to
 * {@code VACUUM}, as Delta leaves a failed write's.
 */
public final class KeyedRewrite {
  private static final Logger LOG = LoggerFactory.getLogger(KeyedRewrite.class);
  /** How long the rewrite waits for its observation after the write returned. */
  static final long OBSERVATION_WAIT_SECONDS = 60;
  private static final String PRESENT = "_mssql_cdc_present";
  private static final String TARGET = "t";
  private static final String SOURCE = "s";
  private static final String KEY = "_mssql_cdc_key_";
  private static final String TXN_APP_ID = "spark.databricks.delta.write.txnAppId";
  private static final String TXN_VERSION = "spark.databricks.delta.write.txnVersion";

  /** The metrics row's schema: that of Delta's {@code MERGE}. */
  public static final StructType METRICS = new StructType()
      .add("num_affected_rows", DataTypes.LongType)
      .add("num_updated_rows", DataTypes.LongType)
      .add("num_deleted_rows", DataTypes.LongType)
      .add("num_inserted_rows", DataTypes.LongType);

  private KeyedRewrite() {}

  /**
   * How many candidate files, bytes and rows (by the files' statistics) a rewrite may write again; more: the
   * caller's {@code MERGE}. The candidates' keys are broadcast, so the rows bound what the driver holds.
   */
  public record Limits(int maxFiles, long maxBytes, long maxRows) {}

  /**
   * The clauses, as SQL conditions on the target's ({@code t.}) and the source's ({@code s.}) columns;
   * {@code insert} on the source's alone. NULL counts as false.
   */
  public record Clauses(String delete, String update, String insert) {}

  /** What the rewrite did: committed ({@code metrics}, Delta's MERGE row), or declined ({@code declined}: why). */
  public record Outcome(Row metrics, String declined) {
    static Outcome declined(String why) {
      return new Outcome(null, why);
    }

    public boolean done() {
      return metrics != null;
    }
  }

  /**
   * MERGEs {@code source} into {@code table}.
   *
   * @param source at most one row per key; its columns by the target's names (any case), and others the
   *     clauses read
   * @param keys the key columns (in both)
   * @param readPredicate a predicate on the target's columns (unqualified) that every row of a source key
   *     satisfies, for finding the candidate files by their statistics; null: every file is a candidate
   * @param sourceRows the source's rows (for the commit's metrics)
   * @param checked runs after the files are written, before the commit (a test's hook)
   */
  public static Outcome run(SparkSession spark, TableRef table, Dataset<Row> source, List<String> keys,
      Column readPredicate, Clauses clauses, long sourceRows, Limits limits, Runnable checked) throws Exception {
    Optional<LogVersion.Log> found = LogVersion.log(spark, table);
    if (found.isEmpty()) {
      return Outcome.declined("not reachable through Delta's log");
    }
    if (spark.conf().getOption(TXN_APP_ID).isDefined() || spark.conf().getOption(TXN_VERSION).isDefined()) {
      // Delta's MERGE honours the session's idempotent-DML settings; this path does not.
      return Outcome.declined("the session sets " + TXN_APP_ID + "/" + TXN_VERSION);
    }
    DeltaLog log = found.get().log();
    OptimisticTransaction txn = found.get().startTransaction();
    String unsupported = unsupported(txn);
    if (unsupported != null) {
      return Outcome.declined(unsupported);
    }
    StructType schema = txn.metadata().schema();
    Map<String, String> given = new HashMap<>();
    for (String c : source.columns()) {
      given.put(c.toLowerCase(Locale.ROOT), c);
    }
    Map<String, String> have = new HashMap<>();
    for (StructField f : schema.fields()) {
      have.put(f.name().toLowerCase(Locale.ROOT), f.name());
      String from = given.get(f.name().toLowerCase(Locale.ROOT));
      if (from != null && !source.schema().apply(from).dataType().sameType(f.dataType())) {
        // Delta's MERGE converts by the store-assignment policy; a cast here would not check the same way.
        return Outcome.declined("column " + f.name() + " is " + f.dataType().simpleString() + " in the table and "
            + source.schema().apply(from).dataType().simpleString() + " in the source");
      }
    }
    for (String k : keys) {
      if (!have.containsKey(k.toLowerCase(Locale.ROOT)) || !given.containsKey(k.toLowerCase(Locale.ROOT))) {
        return Outcome.declined("key column " + k + " missing");
      }
    }
    org.apache.spark.sql.catalyst.expressions.Expression predicate = readPredicate == null
        ? Literal.TrueLiteral() : resolved(spark, schema, readPredicate);
    List<AddFile> files = ChecksumFiles.candidates(txn, predicate);
    long bytes = files.stream().mapToLong(AddFile::size).sum();
    long rows = 0;
    for (AddFile f : files) {
      Option<Object> n = f.numLogicalRecords();
      rows = rows < 0 || n.isEmpty() ? -1 : rows + (Long) n.get();
    }
    if (files.stream().anyMatch(f -> f.deletionVector() != null)) {
      return Outcome.declined("a candidate file has a deletion vector");
    }
    if (files.size() > limits.maxFiles() || bytes > limits.maxBytes() || rows < 0 || rows > limits.maxRows()) {
      return Outcome.declined(files.size() + " file(s) of " + bytes + " bytes and " + (rows < 0 ? "unknown" : rows)
          + " rows may hold the keys (at most " + limits.maxFiles() + ", " + limits.maxBytes() + " and "
          + limits.maxRows() + " rewritten in one pass)");
    }
    long started = System.nanoTime();
    Written w;
    try {
      w = write(spark, log, txn, files, source, keys, given, have, schema, clauses);
    } catch (RuntimeException e) {
      // What fails here fails before anything is committed: Delta's MERGE runs and says what it finds.
      LOG.warn("{}: the one-pass MERGE failed before its commit, Delta's MERGE runs: {}", table, firstLine(e));
      return Outcome.declined("failed before its commit (" + firstLine(e) + ")");
    }
    if (w == null) {
      return unobserved(table);
    }
    if (w.deleted() + w.updated() + w.inserted() == 0) {
      // Nothing changes (deletes of absent keys, images not newer): Delta's MERGE commits nothing either.
      return new Outcome(new GenericRowWithSchema(new Object[] {0L, 0L, 0L, 0L}, METRICS), null);
    }
    checked.run();

    List<Action> actions = new ArrayList<>(w.added());
    long now = System.currentTimeMillis();
    for (AddFile f : files) {
      actions.add(f.removeWithTimestamp(now, true));
    }
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("operationNumSourceRows", sourceRows);
    metrics.put("numTargetRowsInserted", w.inserted());
    metrics.put("numTargetRowsUpdated", w.updated());
    metrics.put("numTargetRowsMatchedUpdated", w.updated());
    metrics.put("numTargetRowsNotMatchedBySourceUpdated", 0L);
    metrics.put("numTargetRowsDeleted", w.deleted());
    metrics.put("numTargetRowsMatchedDeleted", w.deleted());
    metrics.put("numTargetRowsNotMatchedBySourceDeleted", 0L);
    metrics.put("numTargetRowsCopied", w.copied());
    metrics.put("numTargetFilesAdded", (long) w.added().size());
    metrics.put("numTargetFilesRemoved", (long) files.size());
    metrics.put("numTargetBytesAdded", w.added().stream().mapToLong(AddFile::size).sum());
    metrics.put("numTargetBytesRemoved", bytes);
    metrics.put("numTargetChangeFilesAdded", 0L);
    metrics.put("numTargetDeletionVectorsAdded", 0L);
    metrics.put("numTargetDeletionVectorsRemoved", 0L);
    metrics.put("numTargetDeletionVectorsUpdated", 0L);
    long ms = (System.nanoTime() - started) / 1_000_000;
    metrics.put("executionTimeMs", ms);
    metrics.put("materializeSourceTimeMs", 0L);
    metrics.put("scanTimeMs", 0L);
    metrics.put("rewriteTimeMs", ms);
    register(spark, txn, metrics);
    // The operation's predicate as Delta's MERGE records it: the key match and the pruning conjuncts.
    String text = match(keys, given, have) + (readPredicate == null ? "" : " AND (" + predicate.sql() + ")");
    org.apache.spark.sql.catalyst.expressions.Expression condition = spark.sessionState().sqlParser()
        .parseExpression(text);
    DeltaOperations.Merge operation = DeltaOperations.Merge$.MODULE$.apply(Option.apply(condition),
        CollectionConverters.asScala(List.of(new DeltaOperations.MergePredicate(Option.apply(clauses.delete()),
            "delete"), new DeltaOperations.MergePredicate(Option.apply(clauses.update()), "update"))).toSeq(),
        CollectionConverters.asScala(List.of(new DeltaOperations.MergePredicate(Option.apply(clauses.insert()),
            "insert"))).toSeq(),
        CollectionConverters.asScala(List.<DeltaOperations.MergePredicate>of()).toSeq());
    try {
      txn.commitIfNeeded(CollectionConverters.asScala(actions).toSeq(), operation,
          scala.collection.immutable.Map$.MODULE$.<String, String>empty());
    } catch (LinkageError e) {
      LogVersion.unavailable(table, e);
      return Outcome.declined("Delta's commit is not as this build knows it");
    } catch (RuntimeException e) {
      if (!DeltaConflicts.isConflict(e)) {
        throw e;
      }
      LOG.info("{}: the one-pass MERGE lost a race with another commit ({}): not committed", table, firstLine(e));
      return Outcome.declined("a concurrent commit conflicts (" + firstLine(e) + ")");
    }
    return new Outcome(new GenericRowWithSchema(new Object[] {w.updated() + w.deleted() + w.inserted(), w.updated(),
        w.deleted(), w.inserted()}, METRICS), null);
  }

  /**
   * Whether a one pass into {@code table} would find its candidates without Delta's table state: the newest
   * snapshot this JVM knows lists its files in its checksum ({@link ChecksumFiles}) and the one pass applies to
   * the table. A hint for whether to compute the state ahead; the pass checks its own snapshot again.
   */
  public static boolean needsNoState(SparkSession spark, TableRef table) {
    return ChecksumFiles.newestListed(spark, table).map(s -> unsupported(s.metadata(), s.protocol()) == null)
        .orElse(false);
  }

  /** What the write produced: the files written (with rows), and the rows it deleted, updated, copied, inserted. */
  private record Written(List<AddFile> added, long deleted, long updated, long copied, long inserted) {}

  /**
   * The one write: the candidates' rows with the clauses applied and the source's unmatched rows the insert
   * clause takes. Null when its observations did not complete.
   */
  private static Written write(SparkSession spark, DeltaLog log, OptimisticTransaction txn, List<AddFile> files,
      Dataset<Row> source, List<String> keys, Map<String, String> given, Map<String, String> have, StructType schema,
      Clauses clauses) throws InterruptedException {
    Dataset<Row> s = source.withColumn(PRESENT, lit(true));
    Column present = col(SOURCE + "." + PRESENT).isNotNull();
    Column delete = present.and(coalesce(expr(clauses.delete()), lit(false)));
    Column update = present.and(not(delete)).and(coalesce(expr(clauses.update()), lit(false)));
    Column insert = coalesce(expr(clauses.insert()), lit(false));
    String id = UUID.randomUUID().toString().replace("-", "");
    Observation rewrite = new Observation("mssql_cdc_keyed_rewrite_" + id);
    Observation inserts = new Observation("mssql_cdc_keyed_inserts_" + id);
    // The source rows no target row matches: an anti-join with the candidate files' keys (broadcast).
    Dataset<Row> unmatched = s.as(SOURCE);
    Dataset<Row> rewritten = null;
    if (!files.isEmpty()) {
      Dataset<Row> old = log.createDataFrame(txn.snapshot(), CollectionConverters.asScala(files).toSeq(), false,
          Option.apply("merge"));
      Dataset<Row> joined = old.as(TARGET).join(broadcast(s.as(SOURCE)), expr(match(keys, given, have)),
          "left_outer");
      List<Column> out = new ArrayList<>();
      for (StructField f : schema.fields()) {
        Column t = col(TARGET + "." + DeltaTables.quote(f.name()));
        String from = given.get(f.name().toLowerCase(Locale.ROOT));
        out.add((from == null ? t : when(update, col(SOURCE + "." + DeltaTables.quote(from))).otherwise(t))
            .as(f.name()));
      }
      rewritten = joined.observe(rewrite, count(when(delete, lit(1))).as("deleted"),
          count(when(update, lit(1))).as("updated"), count(when(not(delete).and(not(update)), lit(1))).as("copied"))
          .where(not(delete)).select(out.toArray(Column[]::new));
      Dataset<Row> held = old.select(keys.stream().map(k -> col(DeltaTables.quote(have.get(k.toLowerCase(
          Locale.ROOT)))).as(KEY + k)).toArray(Column[]::new));
      Column on = null;
      for (String k : keys) {
        Column c = col(SOURCE + "." + DeltaTables.quote(given.get(k.toLowerCase(Locale.ROOT))))
            .eqNullSafe(col(DeltaTables.quote(KEY + k)));
        on = on == null ? c : on.and(c);
      }
      unmatched = unmatched.join(broadcast(held), on, "left_anti");
    }
    List<Column> out = new ArrayList<>();
    for (StructField f : schema.fields()) {
      String from = given.get(f.name().toLowerCase(Locale.ROOT));
      out.add((from == null ? lit(null).cast(f.dataType()) : col(SOURCE + "." + DeltaTables.quote(from)))
          .as(f.name()));
    }
    Dataset<Row> inserted = unmatched.where(insert).select(out.toArray(Column[]::new))
        .observe(inserts, count(lit(1)).as("inserted"));
    // One write: the candidates' rows and the inserts in as many files as there were candidates (the key range's
    // files do not multiply call after call).
    Dataset<Row> written = (rewritten == null ? inserted : rewritten.unionByName(inserted))
        .coalesce(Math.max(1, files.size()));
    List<AddFile> added = new ArrayList<>();
    for (FileAction a : CollectionConverters.asJava(txn.writeFiles(written))) {
      // An empty write (nothing kept, nothing inserted) may still leave one file without rows: not committed.
      if (a instanceof AddFile add && (add.numLogicalRecords().isEmpty() || (Long) add.numLogicalRecords().get() > 0)) {
        added.add(add);
      } else if (!(a instanceof AddFile)) {
        throw new IllegalStateException("the write returned a " + a.getClass().getSimpleName() + ", not a file");
      }
    }
    long deleted = 0;
    long updated = 0;
    long copied = 0;
    if (rewritten != null) {
      Optional<Row> r = Observed.within(rewrite, OBSERVATION_WAIT_SECONDS);
      if (r.isEmpty()) {
        return null;
      }
      deleted = r.get().getLong(0);
      updated = r.get().getLong(1);
      copied = r.get().getLong(2);
    }
    Optional<Row> i = Observed.within(inserts, OBSERVATION_WAIT_SECONDS);
    if (i.isEmpty()) {
      return null;
    }
    return new Written(added, deleted, updated, copied, i.get().getLong(0));
  }

  private static String firstLine(Throwable e) {
    return String.valueOf(e.getMessage()).lines().findFirst().orElse(e.getClass().getSimpleName());
  }

  private static Outcome unobserved(TableRef table) {
    LOG.warn("{}: the one-pass MERGE's observation did not complete within {} s: nothing committed", table,
        OBSERVATION_WAIT_SECONDS);
    return Outcome.declined("the write's observation did not complete");
  }

  /**
   * {@code predicate} resolved against the table's columns, as Delta's data skipping takes it (by column name, its
   * constants folded): against an empty relation of the table's schema, which costs no read of the table's log.
   */
  static org.apache.spark.sql.catalyst.expressions.Expression resolved(SparkSession spark, StructType schema,
      Column predicate) {
    // Constants folded (a cast of a literal becomes a literal): Delta's data skipping takes literals only.
    return RowRewrite.condition(org.apache.spark.sql.catalyst.optimizer.ConstantFolding$.MODULE$.apply(
        spark.createDataFrame(List.<Row>of(), schema).where(predicate).queryExecution().analyzed()));
  }

  /** The operation metrics Delta's MERGE registers, so the commit's history row carries them. */
  private static void register(SparkSession spark, OptimisticTransaction txn, Map<String, Long> values) {
    Map<String, SQLMetric> metrics = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : values.entrySet()) {
      SQLMetric m = SQLMetrics.createMetric(spark.sparkContext(), e.getKey());
      m.set(e.getValue());
      metrics.put(e.getKey(), m);
    }
    txn.registerSQLMetrics(spark, scala.collection.immutable.Map$.MODULE$.from(
        CollectionConverters.asScala(metrics)));
  }

  /** {@code t.k <=> s.k AND ...}: the join's condition and the commit's recorded predicate. */
  private static String match(List<String> keys, Map<String, String> given, Map<String, String> have) {
    List<String> each = new ArrayList<>();
    for (String k : keys) {
      String lower = k.toLowerCase(Locale.ROOT);
      each.add(TARGET + "." + DeltaTables.quote(have.get(lower)) + " <=> " + SOURCE + "."
          + DeltaTables.quote(given.get(lower)));
    }
    return String.join(" AND ", each);
  }

  /** Why the table is left to Delta's own MERGE; null when this path applies. */
  private static String unsupported(OptimisticTransaction txn) {
    return unsupported(txn.metadata(), txn.protocol());
  }

  /** Why the one pass does not apply to a table with metadata {@code m} and protocol {@code p}; null when it does. */
  static String unsupported(org.apache.spark.sql.delta.actions.Metadata m,
      org.apache.spark.sql.delta.actions.Protocol p) {
    String why = RowRewrite.unsupported(m, p);
    if (why != null) {
      return why;
    }
    for (StructField f : m.schema().fields()) {
      org.apache.spark.sql.types.Metadata fm = f.metadata();
      if (fm.contains("delta.generationExpression") || fm.contains("delta.identity.start")
          || fm.contains("CURRENT_DEFAULT")) {
        return "column " + f.name() + " is generated, an identity or has a default";
      }
    }
    return null;
  }

}
