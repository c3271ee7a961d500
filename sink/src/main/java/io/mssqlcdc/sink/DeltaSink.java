package io.mssqlcdc.sink;

import io.mssqlcdc.connector.stream.BatchEvent;
import io.mssqlcdc.connector.stream.BatchEvents;
import io.mssqlcdc.connector.stream.BatchReport;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.errors.SinkErrors;
import io.mssqlcdc.sink.facts.FactsReader;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import io.mssqlcdc.sink.tables.TxnAppend;
import io.mssqlcdc.testing.CrashPoint;
import io.mssqlcdc.testing.CrashPoints;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongConsumer;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Delta sink: a {@code foreachBatch} function that appends each micro-batch of
 * {@code format("mssql_cdc")} to a bronze table exactly once, and writes one facts row per batch
 * (also for empty batches) plus one per event (reference-behaviour §13).
 *
 * <pre>{@code
 * DeltaSink sink = DeltaSink.builder().target("bronze.orders").appId("orders").factsTable("ops.cdc_facts").build();
 * changes.writeStream().foreachBatch(sink).option("checkpointLocation", "/chk/orders").start();
 * }</pre>
 *
 * <p>Exactly once: the bronze append carries {@code txnAppId} = the sink id and {@code txnVersion}
 * = the batch id, so Delta skips it when Spark replays a batch after a crash between the Delta
 * commit and its own commit log. The facts commit follows the bronze commit and carries no txn
 * key: a run's first batch (and any batch that does not follow the last one this instance
 * finished) reads the facts table's last batch of the sink id first; a batch it holds is a replay
 * with nothing to write, and a batch it does not hold gets its facts row. A checkpoint rewound
 * under the same app id is refused there (Delta would skip every batch up to the last one
 * written). An empty batch writes no bronze commit; its facts row is still written.
 *
 * <p>Per batch, in order: the rewind check (on a run's first batch), the bronze append (columns
 * {@code _batch_id}, {@code _snapshot}, {@code _chunk} added last; {@code mergeSchema} lets
 * columns of a newer capture instance join) which counts the batch in the same pass
 * ({@link BatchFacts#observe}), then the facts commit. The batch is read once: no persist, no
 * counting pass. A replay after a crash between the two commits (Delta skips the append, so the
 * pass does not run) counts the batch with one more read. Metrics and events come from the source
 * in the same JVM ({@link BatchEvents}), not from files. A steady batch runs the bronze append
 * (one job plus the jobs Delta runs to compute the table's set transactions) on its path.
 *
 * <p>A steady batch's facts rows (one that follows the last this instance finished, read by
 * {@code format("mssql_cdc")}, without events) are committed off the batch's path, on a thread of
 * the sink's ({@link FactsCommitter}, docs/decisions/0012 and 0013): Spark commits the batch and
 * plans the next while they land, in groups of every batch handed over since the last commit, at
 * most one commit per {@link Builder#factsCommitInterval}. The sink's own facts writes, a run's
 * rewind check and the query's stop wait for the rows held (the stop for up to two minutes), so rows
 * land in batch order. If the process ends with rows held after Spark committed their batches, the
 * next run's first batch finds the facts short and rebuilds those rows from bronze
 * ({@link FactsRebuild}; the pipeline does the same when it closes the generation): their counts and
 * LSN ranges kept, the
 * figures of the read NULL. A batch with events writes its facts on its path, as do batches of
 * other sources. A stop that interrupts the query's thread while it waits reaches Spark as an
 * {@link InterruptedException}: the query ends as stopped.
 *
 * <p>Runs on the driver, on the query's thread; one instance serves one query.
 */
public final class DeltaSink implements VoidFunction2<Dataset<Row>, Long> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DeltaSink.class);

  private final TableRef target;
  private final String sinkId;
  private final TableRef facts;
  private final List<AfterBatch> afterBatch;
  private final Map<Step, LongConsumer> steps;
  private final java.time.Duration factsCommitInterval;

  private final Set<TableRef> ensured = new HashSet<>();
  private transient FactsCommitter committer;
  /** Bronze's appends; what it committed last lets a following batch skip Delta's state computation. */
  private transient TxnAppend bronzeWriter;
  /** The default of {@link Builder#factsCommitInterval}. */
  public static final java.time.Duration DEFAULT_FACTS_COMMIT_INTERVAL = java.time.Duration.ZERO;

  /** How long a steady batch's append may take to report its figures before it counts as skipped. */
  static final long OBSERVATION_WAIT_SECONDS = 5;

  /**
   * The batch this instance last finished (its commits and hooks done, or found done); -1
   * before the first and after any failure.
   */
  private long lastWritten = -1;
  /** Whether that batch had no rows. */
  private boolean lastEmpty;
  private String columnMappingMode;
  private List<String> carriedWarnings = List.of();
  private boolean warnedNoReport;
  /** The query whose stop hook this instance registered (decision 0012), until the hook runs. */
  private volatile String stopHookQuery;

  /**
   * Called after a batch's bronze commit and its facts commit, before Spark commits the batch; a
   * steady batch without events may still have its facts commit in flight (class comment).
   */
  @FunctionalInterface
  public interface AfterBatch {
    void run(SparkSession spark, long batchId, List<BatchEvent> events);
  }

  private DeltaSink(Builder b) {
    this.target = TableRef.of(b.target);
    this.sinkId = b.ids.sinkId(b.generation);
    this.facts = b.facts == null ? null : TableRef.of(b.facts);
    this.afterBatch = List.copyOf(b.afterBatch);
    this.steps = Map.copyOf(b.steps);
    this.factsCommitInterval = b.factsCommitInterval;
  }

  /** Points of a batch where tests make the sink fail (package-private: a crash test's hook). */
  enum Step {
    /** After the rewind check, before the bronze append. */
    BEFORE_BRONZE,
    /** After the bronze append, before the facts commit. */
    BETWEEN_COMMITS,
    /** On the background thread, before a steady batch's facts commit. */
    FACTS_COMMIT
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The bronze table (name or path). */
  public TableRef target() {
    return target;
  }

  /** The sink id: {@code txnAppId} of the bronze appends. */
  public String sinkId() {
    return sinkId;
  }

  /** The facts table, if any. */
  public Optional<TableRef> factsTable() {
    return Optional.ofNullable(facts);
  }

  @Override
  public void call(Dataset<Row> batch, Long batchIdBoxed) throws InterruptedException {
    long batchId = batchIdBoxed;
    SparkSession spark = batch.sparkSession();
    LocalDateTime startedAt = LocalDateTime.now(ZoneOffset.UTC);
    long t0 = System.nanoTime();
    List<String> warnings = new ArrayList<>(carriedWarnings);
    carriedWarnings = List.of();
    long previous = lastWritten;
    // Set again only once this batch is done: after a failure anywhere below, the next call
    // (Spark's retry, a restart with this instance) runs the rewind check.
    lastWritten = -1;
    boolean follows = previous >= 0 && batchId == previous + 1;
    boolean factsHold = false;
    List<FactsRow> rebuilt = List.of();
    if (facts != null && !follows) {
      // A run's first batch (or one that does not follow the last this instance wrote: a retry,
      // a restart of a reused instance): the rewind check, one scan of the facts table. A batch
      // that follows needs none: this instance wrote its predecessor's facts, and nothing else
      // writes facts rows of this sink id.
      committer().drainBeforeCheck(spark, facts);
      ensure(spark, facts, () -> FactsWriter.ensure(spark, facts));
      OptionalLong last = FactsReader.lastBatch(spark, facts, sinkId);
      if (last.isPresent() && batchId < last.getAsLong()) {
        throw SinkErrors.checkpointRewound(facts.text(), last.getAsLong(), sinkId, batchId);
      }
      factsHold = last.isPresent() && batchId == last.getAsLong();
      OptionalLong lost = FactsRebuild.firstLost(last, batchId - 1);
      if (lost.isPresent()) {
        // Spark committed the batches before this one, whose facts commits were held or in flight when the process
        // ended.
        rebuilt = FactsRebuild.rows(spark, facts, target, sinkId, lost.getAsLong(), batchId - 1);
      }
    }
    // Planning the batch's scan (no Spark job) registers the source's report of it: the planned
    // rows decide whether the batch is empty; the figures of the read fill in as it runs.
    batch.queryExecution().toRdd();
    Optional<BatchReport> report = BatchEvents.forBatch(batchId);
    if (report.isEmpty() && !warnedNoReport) {
      warnedNoReport = true;
      LOG.warn("{}: the source reported no metrics for batch {}; the facts row's metric columns stay NULL"
          + " (is the stream format(\"mssql_cdc\"), and the sink called on the query's own thread?)", sinkId, batchId);
    }
    if (factsHold) {
      BatchHealth health = report.map(BatchHealth::from).orElse(BatchHealth.NONE);
      warnings.addAll(health.warnings());
      // A replay of a batch whose facts are committed, and with them its bronze rows (the bronze
      // commit comes first): nothing to write. Its warnings go to the next batch's facts row.
      carriedWarnings = List.copyOf(warnings);
      LOG.info("{} batch {}: written before (its facts row is in {}); nothing to write", sinkId, batchId, facts);
      afterCommits(spark, batchId, health);
      return;
    }
    step(Step.BEFORE_BRONZE, batchId);
    CrashPoints.hit(CrashPoint.SINK_BEFORE_BRONZE);
    BatchFacts f = writeBronze(spark, batch, batchId, report.map(BatchReport::plannedRows).orElse(-1L), follows);
    long durationMs = (System.nanoTime() - t0) / 1_000_000;
    BatchHealth health = report.map(BatchHealth::from).orElse(BatchHealth.NONE);
    warnings.addAll(health.warnings());
    step(Step.BETWEEN_COMMITS, batchId);
    CrashPoints.hit(CrashPoint.SINK_AFTER_BRONZE);
    if (facts != null) {
      List<FactsRow> factsRows = new ArrayList<>(rebuilt);
      factsRows.addAll(BatchFactsRows.rows(sinkId, batchId, target.text(), f, startedAt, durationMs, health, warnings));
      ensure(spark, facts, () -> FactsWriter.ensure(spark, facts));
      // No txn key: a batch reaches this write only when the facts table does not hold it (checked
      // above on a run's first batch; a following batch is new by construction), so Delta's
      // idempotence check, a computation of the table's state per batch, would buy nothing
      // (docs/decisions/0005-txn-app-ids.md).
      if (follows && health.events().isEmpty() && report.isPresent()) {
        // A steady batch without events: its facts commit goes off the batch's path (decision 0012), after the
        // one in flight; the query's stop waits for it.
        String query = report.get().queryId();
        if (!query.equals(stopHookQuery)) {
          // Once per run: the source's stop runs the hook and then forgets it.
          stopHookQuery = query;
          BatchEvents.whenStopped(query, this, () -> {
            // The next run of this instance checks the facts first (and registers again), whatever the wait below
            // leaves behind.
            lastWritten = -1;
            stopHookQuery = null;
            committer().drainOnStop(spark, facts);
          });
        }
        committer().submit(spark, facts, batchId, factsRows, factsCommitInterval,
            () -> {
              step(Step.FACTS_COMMIT, batchId);
              CrashPoints.hit(CrashPoint.SINK_FACTS_COMMIT);
            });
      } else {
        committer().drain(spark, facts);
        FactsWriter.write(spark, facts, factsRows, null, batchId);
      }
    } else {
      for (BatchEvent e : health.events()) {
        LOG.info("{} batch {}: {}", sinkId, batchId, e);
      }
    }
    LOG.info("{} batch {}: {} rows ({} inserts, {} updates, {} deletes) to {} in {} ms", sinkId, batchId, f.rows(),
        f.inserts(), f.updates(), f.deletes(), target, durationMs);
    lastEmpty = f.rows() == 0;
    afterCommits(spark, batchId, health);
  }

  private void afterCommits(SparkSession spark, long batchId, BatchHealth health) {
    for (AfterBatch a : afterBatch) {
      a.run(spark, batchId, health.events());
    }
    CrashPoints.hit(CrashPoint.SINK_AFTER_FACTS);
    lastWritten = batchId;
  }

  /**
   * Appends the batch to bronze, counting it in the same pass, and returns its figures. No bronze
   * commit for a batch known to be empty: one the planner counted no rows for, or, when it did
   * not count ({@code numPartitions=1}), one that {@code isEmpty()} finds empty, asked only where
   * an empty batch is likely (a run's first batch, one after an empty batch): elsewhere an empty
   * batch the planner did not count writes an empty bronze commit (its facts row says 0 rows).
   */
  private BatchFacts writeBronze(SparkSession spark, Dataset<Row> batch, long batchId, long plannedRows,
      boolean follows) throws InterruptedException {
    boolean empty = plannedRows == 0 || (plannedRows < 0 && (!follows || lastEmpty) && batch.isEmpty());
    if (empty) {
      return BatchFacts.EMPTY;
    }
    Observation o = BatchFacts.newObservation();
    TxnAppend.Outcome appended = appendBronze(spark, BronzeTable.changeRows(BatchFacts.observe(batch, o), batchId),
        batchId);
    Optional<BatchFacts> observed = appended == TxnAppend.Outcome.SKIPPED ? Optional.empty()
        : observed(o, appended == TxnAppend.Outcome.WRITTEN || (follows && facts != null));
    if (observed.isPresent()) {
      return observed.get();
    }
    if (appended == TxnAppend.Outcome.WRITTEN) {
      // Committed, but Spark did not complete the observation in time: count the batch with one more read.
      LOG.warn("{} batch {}: bronze committed it but its observation did not complete within {} s; counting it"
          + " with one more read for the facts row", sinkId, batchId, OBSERVATION_WAIT_SECONDS);
      return BatchFacts.of(batch);
    }
    // Delta skipped the append: bronze holds this batch id of this sink id already.
    if (facts != null && follows) {
      // In steady state this instance wrote the previous batch and no facts row of this one
      // exists: another writer appended under this app id.
      throw SinkErrors.bronzeWrittenElsewhere(target.text(), sinkId, batchId);
    }
    // A replay after a crash between the bronze and the facts commit: count the batch for its
    // facts row with one more read (the source reads the same commits again).
    LOG.info("{} batch {}: bronze holds it already (a replay); counting it for the facts row", sinkId, batchId);
    return BatchFacts.of(batch);
  }

  /**
   * The observation's figures if the append ran the batch. Spark completes an observation when
   * the execution that ran its plan ends, before the action returns; when Delta skips the append
   * nothing completes it. {@code mustRun}: wait a little for a completion before concluding the
   * batch was not run (a steady batch, where a skip is an error).
   */
  private static Optional<BatchFacts> observed(Observation o, boolean mustRun) throws InterruptedException {
    // An interrupt (the query's stop) goes to Spark as it is: Spark then ends the query as stopped, not failed.
    scala.concurrent.Future<?> f = o.future();
    if (!f.isCompleted() && mustRun) {
      try {
        scala.concurrent.Await.ready(f, scala.concurrent.duration.Duration.create(OBSERVATION_WAIT_SECONDS,
            java.util.concurrent.TimeUnit.SECONDS));
      } catch (java.util.concurrent.TimeoutException e) {
        return Optional.empty();
      }
    }
    if (!f.isCompleted()) {
      return Optional.empty();
    }
    return BatchFacts.from(o.getAsJava());
  }

  private TxnAppend.Outcome appendBronze(SparkSession spark, Dataset<Row> rows, long batchId) {
    ensure(spark, target, () -> TableRunner.ensure(spark, target, BronzeTable.KIND,
        BronzeTable.creationSchema(rows.schema())));
    checkColumnMapping(spark, rows.schema());
    if (bronzeWriter == null) {
      bronzeWriter = new TxnAppend(target, sinkId);
    }
    try {
      // txnAppId = the sink id, txnVersion = the batch id (decision 0005); the writer skips Delta's state
      // computation for the check when it committed the previous batch itself (decision 0017).
      return bronzeWriter.append(rows, batchId, Map.of(
          "userMetadata", BatchFacts.uncountedMetadata(batchId, sinkId),
          "mergeSchema", "true"));
    } catch (RuntimeException e) {
      throw BronzeWriteErrors.translate(target.text(), e);
    }
  }

  private FactsCommitter committer() {
    if (committer == null) {
      committer = FactsCommitter.of(facts, sinkId);
    }
    return committer;
  }

  private void step(Step s, long batchId) {
    LongConsumer r = steps.get(s);
    if (r != null) {
      r.accept(batchId);
    }
  }

  /** New columns Delta refuses without column mapping fail before the write, with the fix. */
  private void checkColumnMapping(SparkSession spark, StructType schema) {
    List<String> refused = new ArrayList<>();
    for (StructField f : schema.fields()) {
      if (TableRunner.needsColumnMapping(f.name())) {
        refused.add(f.name());
      }
    }
    if (refused.isEmpty()) {
      return;
    }
    if (columnMappingMode == null) {
      columnMappingMode = DeltaTables.properties(spark, target).getOrDefault("delta.columnMapping.mode", "none");
    }
    if (!columnMappingMode.toLowerCase(Locale.ROOT).equals("none")) {
      return;
    }
    Set<String> have = new HashSet<>();
    for (String n : DeltaTables.schema(spark, target).fieldNames()) {
      have.add(n.toLowerCase(Locale.ROOT));
    }
    List<String> newOnes = refused.stream().filter(n -> !have.contains(n.toLowerCase(Locale.ROOT))).toList();
    if (!newOnes.isEmpty()) {
      throw SinkErrors.columnMappingRequired(target.text(), newOnes);
    }
  }

  private void ensure(SparkSession spark, TableRef table, Runnable op) {
    if (ensured.add(table)) {
      try {
        op.run();
      } catch (RuntimeException e) {
        ensured.remove(table);
        throw e;
      }
    }
  }

  /** Builds a {@link DeltaSink}. */
  public static final class Builder {
    private String target;
    private AppIds ids;
    private int generation;
    private String facts;
    private final List<AfterBatch> afterBatch = new ArrayList<>();
    private final Map<Step, LongConsumer> steps = new java.util.EnumMap<>(Step.class);
    private java.time.Duration factsCommitInterval = DEFAULT_FACTS_COMMIT_INTERVAL;

    private Builder() {}

    /** Runs {@code action} at {@code step} of every batch (tests: a crash between two commits). */
    Builder at(Step step, Runnable action) {
      steps.put(step, batchId -> action.run());
      return this;
    }

    /** Runs {@code action} with the batch id at {@code step} of every batch. */
    Builder at(Step step, LongConsumer action) {
      steps.put(step, action);
      return this;
    }

    /** The bronze table: a name, or a path (anything with {@code /} or {@code :}). Required. */
    public Builder target(String nameOrPath) {
      this.target = nameOrPath;
      return this;
    }

    /**
     * The app id: stable for the checkpoint's lifetime; a new checkpoint needs a new one. It is
     * the {@code txnAppId} of the bronze appends. Required.
     */
    public Builder appId(String appId) {
      this.ids = new AppIds(appId);
      return this;
    }

    /** The facts table (name or path); without one no facts are written and events are only logged. */
    public Builder factsTable(String nameOrPath) {
      this.facts = nameOrPath;
      return this;
    }

    /**
     * The checkpoint generation (the pipeline's re-snapshots, docs/PIPELINE.md); the sink id is
     * then {@code <app_id>.g<n>} for n &gt; 0. Default 0. {@code CdcStream} sets it.
     */
    public Builder generation(int generation) {
      if (generation < 0) {
        throw CdcErrors.invalidOption("generation", Integer.toString(generation), "0 or more", null);
      }
      this.generation = generation;
      return this;
    }

    /**
     * How often at most steady batches' facts rows are committed (docs/decisions/0013): a commit
     * takes every row handed over since the last one, once that one ended and this long after it
     * started. Batches further apart than this get a commit each, right after the batch; a stream
     * catching up, one per interval. {@code Duration.ZERO} (the default,
     * {@link #DEFAULT_FACTS_COMMIT_INTERVAL}): each commit starts as soon as the one before ended, with
     * every row handed over meanwhile; a batch never waits for a facts commit. Rows still held when the process
     * ends are rebuilt from bronze by the next run, figures of the read NULL.
     */
    public Builder factsCommitInterval(java.time.Duration interval) {
      if (interval == null || interval.isNegative()) {
        throw CdcErrors.invalidOption("factsCommitInterval", String.valueOf(interval), "a duration of 0 or more", null);
      }
      this.factsCommitInterval = interval;
      return this;
    }

    /**
     * Runs {@code hook} after each batch's bronze and facts commits (before Spark commits the batch;
     * a steady batch without events may have its facts commit still in flight).
     */
    public Builder afterBatch(AfterBatch hook) {
      afterBatch.add(hook);
      return this;
    }

    public DeltaSink build() {
      if (target == null) {
        throw CdcErrors.missingOption("target", "'bronze.orders' or '/lake/bronze/orders'");
      }
      if (ids == null) {
        throw CdcErrors.missingOption("appId", "'orders-bronze', stable for the checkpoint's lifetime");
      }
      if (facts != null && TableRef.of(facts).equals(TableRef.of(target))) {
        throw SinkErrors.conflict("factsTable '" + facts + "' is the target: the facts go to a table of their own.");
      }
      return new DeltaSink(this);
    }
  }
}
