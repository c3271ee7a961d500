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
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
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
 * = the batch id, the facts append {@code <sink id>#facts} and the batch id, so Delta skips both
 * when Spark replays a batch after a crash between the Delta commit and its own commit log. A new
 * checkpoint needs a new app id: a checkpoint rewound under the same app id is refused on the
 * first batch (Delta would skip every batch up to the last one written). An empty batch writes no
 * bronze commit; its facts row is still written.
 *
 * <p>Per batch, in order: the rewind check (with facts: on a run's first batch, and on any batch
 * that does not follow the last one this instance wrote), the batch is persisted and counted (one
 * pass, which fills the cache), appended to bronze (columns {@code _batch_id}, {@code _snapshot},
 * {@code _chunk} added last; {@code mergeSchema} lets columns of a newer capture instance join;
 * {@code userMetadata} = the batch's facts as compact JSON), then the facts commit. Metrics and
 * events come from the source in the same JVM ({@link BatchEvents}), not from files. A batch
 * that follows its predecessor runs three Spark jobs of its own (the counting pass, the two
 * appends) plus what Delta runs for each idempotent append (docs/PERFORMANCE.md).
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

  private final Set<TableRef> ensured = new HashSet<>();
  /** The batch whose facts this instance last committed (or found committed); -1 before the first. */
  private long lastFacts = -1;
  private String columnMappingMode;
  private List<String> carriedWarnings = List.of();
  private boolean warnedNoReport;

  /** Called after a batch's bronze and facts commits, before Spark commits the batch. */
  @FunctionalInterface
  public interface AfterBatch {
    void run(SparkSession spark, long batchId, List<BatchEvent> events);
  }

  private DeltaSink(Builder b) {
    this.target = TableRef.of(b.target);
    this.sinkId = b.ids.sinkId(b.generation);
    this.facts = b.facts == null ? null : TableRef.of(b.facts);
    this.afterBatch = List.copyOf(b.afterBatch);
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
  public void call(Dataset<Row> batch, Long batchIdBoxed) {
    long batchId = batchIdBoxed;
    SparkSession spark = batch.sparkSession();
    LocalDateTime startedAt = LocalDateTime.now(ZoneOffset.UTC);
    long t0 = System.nanoTime();
    List<String> warnings = new ArrayList<>(carriedWarnings);
    carriedWarnings = List.of();
    boolean replay = false;
    if (facts != null && (lastFacts < 0 || batchId != lastFacts + 1)) {
      // A run's first batch (or one that does not follow the last this instance wrote: a restart
      // of a reused instance, a replay): the rewind check, one scan of the facts table. A batch
      // that follows the last one written needs none: this instance wrote its predecessor's facts.
      ensure(spark, facts, () -> FactsWriter.ensure(spark, facts));
      OptionalLong last = FactsReader.lastBatch(spark, facts, sinkId);
      if (last.isPresent() && batchId < last.getAsLong()) {
        throw SinkErrors.checkpointRewound(facts.text(), last.getAsLong(), sinkId, batchId);
      }
      replay = last.isPresent() && batchId == last.getAsLong();
    }
    Dataset<Row> rows = batch.persist(StorageLevel.MEMORY_AND_DISK());
    try {
      BatchFacts f = BatchFacts.of(rows);
      if (f.rows() > 0) {
        appendBronze(spark, BronzeTable.changeRows(rows, batchId), batchId, f);
      }
      long durationMs = (System.nanoTime() - t0) / 1_000_000;
      Optional<BatchReport> report = BatchEvents.forBatch(batchId);
      BatchHealth health = report.map(BatchHealth::from).orElse(BatchHealth.NONE);
      if (report.isEmpty() && !warnedNoReport) {
        warnedNoReport = true;
        LOG.warn("{}: the source reported no metrics for batch {}; the facts row's metric columns stay NULL"
            + " (is the stream format(\"mssql_cdc\"), and the sink called on the query's own thread?)", sinkId, batchId);
      }
      warnings.addAll(health.warnings());
      if (facts != null) {
        List<FactsRow> factsRows =
            BatchFactsRows.rows(sinkId, batchId, target.text(), f, startedAt, durationMs, health, warnings);
        ensure(spark, facts, () -> FactsWriter.ensure(spark, facts));
        FactsWriter.write(spark, facts, factsRows, AppIds.factsKey(sinkId), batchId);
        lastFacts = batchId;
        if (replay) {
          // This batch's facts commit was skipped (written before the crash): its warnings go to the next one.
          carriedWarnings = List.copyOf(warnings);
        }
      } else {
        for (BatchEvent e : health.events()) {
          LOG.info("{} batch {}: {}", sinkId, batchId, e);
        }
      }
      LOG.info("{} batch {}: {} rows ({} inserts, {} updates, {} deletes) to {} in {} ms", sinkId, batchId, f.rows(),
          f.inserts(), f.updates(), f.deletes(), target, durationMs);
      for (AfterBatch a : afterBatch) {
        a.run(spark, batchId, health.events());
      }
    } finally {
      rows.unpersist(false);
    }
  }

  private void appendBronze(SparkSession spark, Dataset<Row> rows, long batchId, BatchFacts f) {
    ensure(spark, target, () -> TableRunner.ensure(spark, target, BronzeTable.KIND,
        BronzeTable.creationSchema(rows.schema())));
    checkColumnMapping(spark, rows.schema());
    try {
      DeltaTables.append(rows, target, Map.of(
          "txnAppId", sinkId,
          "txnVersion", Long.toString(batchId),
          "userMetadata", f.userMetadata(batchId, sinkId),
          "mergeSchema", "true"));
    } catch (RuntimeException e) {
      throw BronzeWriteErrors.translate(target.text(), e);
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

    private Builder() {}

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

    /** Runs {@code hook} after each batch's bronze and facts commits (before Spark commits the batch). */
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
