package io.mssqlcdc.sink;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsTable;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Delta sink on the real engine: fake source → foreachBatch(DeltaSink) → Delta bronze + facts. The
 * facts committer's edge cases (group commits, held rows, a stop during a retry) carry the "slow" tag:
 * CI runs them (-Pall-tests), the README's test command keeps the crash points of every batch.
 */
@Tag("spark")
class DeltaSinkTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  SparkSession spark = SharedDeltaSpark.spark();
  String bronze;
  String facts;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    bronze = tmp.resolve("bronze").toString();
    facts = tmp.resolve("facts").toString();
  }

  private void history(int from, int n) {
    for (int i = from; i < from + n; i++) {
      int id = i;
      db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "new")));
      if (id % 2 == 0) {
        db.commit(tx -> tx.update("orders", row("order_id", id, "status", "paid")));
      }
      if (id % 3 == 0) {
        db.commit(tx -> tx.delete("orders", key(id)));
      }
    }
  }

  private Dataset<Row> stream(String... kv) {
    var r = spark.readStream().format("mssql_cdc").option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "dbo_orders");
    for (int i = 0; i < kv.length; i += 2) {
      r = r.option(kv[i], kv[i + 1]);
    }
    return r.load();
  }

  private void run(VoidFunction2<Dataset<Row>, Long> sink, Path checkpoint, String... options) throws Exception {
    StreamingQuery q = stream(options).writeStream().foreachBatch(sink).trigger(Trigger.AvailableNow())
        .option("checkpointLocation", checkpoint.toString()).start();
    q.awaitTermination();
  }

  private DeltaSink sink(String appId) {
    return DeltaSink.builder().target(bronze).appId(appId).factsTable(facts).build();
  }

  private Lsn firstCommit() {
    try (var c = db.client().changes(new ChangeQuery("dbo_orders", Lsn.ZERO, Lsn.MAX, List.of(), true, 1000))) {
      c.next();
      return c.startLsn();
    }
  }

  /** The change rows the fake holds: (start_lsn, seqval, operation) of each. */
  private Set<List<Object>> sourceChanges() {
    Set<List<Object>> all = new HashSet<>();
    try (var c = db.client().changes(new ChangeQuery("dbo_orders", Lsn.ZERO, Lsn.MAX, List.of(), true, 1000))) {
      while (c.next()) {
        all.add(List.of(c.startLsn().hex(), c.seqval().hex(), c.operation()));
      }
    }
    return all;
  }

  private List<List<Object>> bronzeChanges() {
    List<List<Object>> out = new ArrayList<>();
    for (Row r : spark.read().format("delta").load(bronze).select("_start_lsn", "_seqval", "_operation").collectAsList()) {
      out.add(List.of(r.getString(0), r.getString(1), r.getInt(2)));
    }
    return out;
  }

  @Test
  void everyChangeOnceAndOneFactsRowPerBatch() throws Exception {
    history(1, 6);
    // A running CDC database has had cleanup: min_lsn is then a commit's, whose time is the watermark
    // (a just-enabled instance's start LSN is no commit's, and its watermark is NULL, as in the reference).
    db.cleanup("dbo_orders", firstCommit());
    java.time.LocalDateTime runStart = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC);
    run(sink("orders"), tmp.resolve("ckpt"), "maxCommitsPerBatch", "3");
    java.time.LocalDateTime runEnd = java.time.LocalDateTime.now(java.time.ZoneOffset.UTC);

    List<List<Object>> rows = bronzeChanges();
    assertThat(new HashSet<>(rows)).isEqualTo(sourceChanges());
    assertThat(rows).hasSize(sourceChanges().size());

    Dataset<Row> f = spark.read().format("delta").load(facts);
    List<Row> batches = f.where("event IS NULL").orderBy("batch_id").collectAsList();
    long commits = 6 + 3 + 2; // inserts, updates of even ids, deletes of multiples of 3
    assertThat(batches).hasSize((int) Math.ceil(commits / 3.0));
    assertThat(batches.stream().mapToLong(r -> r.getAs("rows")).sum()).isEqualTo(rows.size());
    for (int i = 0; i < batches.size(); i++) {
      Row b = batches.get(i);
      assertThat((Long) b.getAs("batch_id")).isEqualTo(i);
      assertThat((String) b.getAs("app_id")).isEqualTo("orders");
      assertThat((String) b.getAs("target")).isEqualTo(bronze);
      // The clock's times lie within the run, started before written.
      java.time.LocalDateTime writtenAt = b.getAs("written_at");
      java.time.LocalDateTime startedAt = b.getAs("started_at");
      assertThat(writtenAt).isBetween(runStart, runEnd);
      assertThat(startedAt).isBetween(runStart, writtenAt);
      // Every metric column the reference defines is filled from the source's own figures: the timings
      // (not knowable here) present, the positions exactly.
      for (String c : List.of("source_rtt_ms", "read_seconds", "read_mb", "network_wait_ms", "capture_lag_seconds",
          "started_at", "duration_ms")) {
        assertThat((Object) b.getAs(c)).as(c + " of batch " + i).isNotNull();
      }
      // Each batch ends at its last commit, which holds rows.
      assertThat((String) b.getAs("end_lsn")).as("end_lsn of batch " + i).isEqualTo(b.getAs("max_lsn"));
      java.time.LocalDateTime end = utc(db.client().commitTime(Lsn.parse(b.getAs("end_lsn"))).orElseThrow());
      java.time.LocalDateTime watermark = utc(db.client().commitTime(db.client().minLsn("dbo_orders")).orElseThrow());
      java.time.LocalDateTime sourceMax = utc(db.client().commitTime(db.client().maxLsn().orElseThrow()).orElseThrow());
      assertThat((Object) b.getAs("end_commit_ts")).as("end_commit_ts of batch " + i).isEqualTo(end);
      assertThat((Object) b.getAs("retention_watermark_ts")).as("retention_watermark_ts of batch " + i)
          .isEqualTo(watermark);
      assertThat((Object) b.getAs("source_max_commit_ts")).as("source_max_commit_ts of batch " + i)
          .isEqualTo(sourceMax);
      assertThat((Double) b.getAs("retention_headroom_hours")).as("retention_headroom_hours of batch " + i)
          .isEqualTo(java.math.BigDecimal.valueOf(java.time.Duration.between(watermark, end).toMillis() / 3_600_000.0)
              .setScale(2, java.math.RoundingMode.HALF_EVEN).doubleValue());
      assertThat((Double) b.getAs("ingestion_lag_seconds")).as("ingestion_lag_seconds of batch " + i)
          .isEqualTo(java.time.Duration.between(end, sourceMax).toMillis() / 1000.0);
    }
    Row last = batches.get(batches.size() - 1);
    assertThat((String) last.getAs("end_lsn")).isEqualTo(db.client().maxLsn().orElseThrow().hex());
    assertThat((Object) last.getAs("retention_watermark_ts")).isEqualTo(java.time.LocalDateTime.ofInstant(
        db.client().commitTime(db.client().minLsn("dbo_orders")).orElseThrow(), java.time.ZoneOffset.UTC));
    // Per-batch ranges and counts agree with bronze's own rows of the batch.
    for (Row b : batches) {
      Row agg = spark.read().format("delta").load(bronze).where("_batch_id = " + b.getAs("batch_id"))
          .selectExpr("count(*)", "min(_start_lsn)", "max(_start_lsn)", "sum(if(_operation = 2, 1, 0))",
              "sum(if(_operation = 4, 1, 0))", "sum(if(_operation = 1, 1, 0))").first();
      assertThat(agg.getLong(0)).isEqualTo((Long) b.getAs("rows"));
      assertThat(agg.getString(1)).isEqualTo(b.getAs("min_lsn"));
      assertThat(agg.getString(2)).isEqualTo(b.getAs("max_lsn"));
      assertThat(agg.getLong(3)).isEqualTo((Long) b.getAs("inserts"));
      assertThat(agg.getLong(4)).isEqualTo((Long) b.getAs("updates"));
      assertThat(agg.getLong(5)).isEqualTo((Long) b.getAs("deletes"));
    }
  }

  @Test
  void skippedChangesAreRecordedAsADataSkippedRowWithTheGap() throws Exception {
    history(1, 2);
    Path ckpt = tmp.resolve("ckpt");
    run(sink("orders"), ckpt, "failOnDataLoss", "false");
    java.time.Instant from = db.client().commitTime(db.client().maxLsn().orElseThrow()).orElseThrow();
    history(10, 2);
    Lsn low = db.idle();
    db.cleanup("dbo_orders", low);
    run(sink("orders"), ckpt, "failOnDataLoss", "false");
    Row skip = spark.read().format("delta").load(facts).where("event = 'data_skipped'").first();
    assertThat((String) skip.getAs("detail")).contains("\"certain\": true");
    assertThat((Object) skip.getAs("lost_from_ts")).isEqualTo(java.time.LocalDateTime.ofInstant(from,
        java.time.ZoneOffset.UTC));
    // the commit time of the min_lsn the stream resumed at (the cleanup's low water mark)
    assertThat((Object) skip.getAs("lost_to_ts")).isEqualTo(java.time.LocalDateTime.ofInstant(
        db.client().commitTime(db.client().minLsn("dbo_orders")).orElseThrow(), java.time.ZoneOffset.UTC));
    assertThat((Object) skip.getAs("batch_id")).isEqualTo(1L); // the second run's only batch
  }

  @Test
  void tablesHaveTheReferenceSchemasAndVersions() throws Exception {
    history(1, 2);
    run(sink("orders"), tmp.resolve("ckpt"));
    var bronzeSchema = spark.read().format("delta").load(bronze).schema();
    assertThat(bronzeSchema.fieldNames()).containsExactly("_capture_instance", "_start_lsn", "_seqval", "_operation",
        "_command_id", "_commit_ts", "order_id", "status", "_batch_id", "_snapshot", "_chunk");
    assertThat(bronzeSchema.apply("_batch_id").dataType().sql()).isEqualTo("INT");
    assertThat(bronzeSchema.apply("_batch_id").getComment().isDefined()).isTrue();
    assertThat(spark.read().format("delta").load(facts).schema().catalogString())
        .isEqualTo(FactsTable.schema().catalogString());
    assertThat(spark.read().format("delta").load(facts).schema().catalogString()).isEqualTo(
        "struct<app_id:string,batch_id:bigint,rows:bigint,min_lsn:string,max_lsn:string,"
            + "min_commit_ts:timestamp_ntz,max_commit_ts:timestamp_ntz,deletes:bigint,inserts:bigint,updates:bigint,"
            + "started_at:timestamp_ntz,duration_ms:bigint,source_rtt_ms:double,read_seconds:double,read_mb:double,"
            + "network_wait_ms:bigint,retention_watermark_ts:timestamp_ntz,retention_headroom_hours:double,"
            + "event:string,lost_from_ts:timestamp_ntz,lost_to_ts:timestamp_ntz,source_max_commit_ts:timestamp_ntz,"
            + "capture_lag_seconds:double,ingestion_lag_seconds:double,end_lsn:string,end_commit_ts:timestamp_ntz,"
            + "detail:string,target:string,written_at:timestamp_ntz>");
    assertThat(DeltaTables.properties(spark, TableRef.of(bronze))).containsEntry("mssql_cdc.schema_version", "2");
    assertThat(DeltaTables.properties(spark, TableRef.of(facts))).containsEntry("mssql_cdc.schema_version", "12");
    String meta = DeltaTables.table(spark, TableRef.of(bronze)).history().where("operation = 'WRITE'")
        .select("userMetadata").first().getString(0);
    // The figures are counted during the append, so the commit names the batch and the facts row holds them.
    assertThat(meta).isEqualTo("{\"rows\":null,\"min_lsn\":null,\"max_lsn\":null,\"min_commit_ts\":null,"
        + "\"max_commit_ts\":null,\"deletes\":null,\"inserts\":null,\"updates\":null,\"batch_id\":0,"
        + "\"app_id\":\"orders\"}");
  }

  @Test
  void anEmptyBatchWritesItsFactsRowButNoBronzeCommit() throws Exception {
    history(1, 1);
    Path ckpt = tmp.resolve("ckpt");
    run(sink("orders"), ckpt);
    long version = DeltaTables.version(spark, TableRef.of(bronze));
    db.idle();
    run(sink("orders"), ckpt);
    assertThat(DeltaTables.version(spark, TableRef.of(bronze))).isEqualTo(version);
    List<Row> rows = spark.read().format("delta").load(facts).where("event IS NULL").orderBy("batch_id").collectAsList();
    assertThat(rows).hasSize(2);
    Row empty = rows.get(1);
    assertThat((Long) empty.getAs("rows")).isZero();
    assertThat((Object) empty.getAs("min_lsn")).isNull();
    assertThat((Long) empty.getAs("inserts")).isZero();
    assertThat((String) empty.getAs("end_lsn")).isEqualTo(db.client().maxLsn().orElseThrow().hex());
  }

  @Test
  void aCrashAfterTheDeltaCommitsResumesWithoutDuplicatesOrGaps() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    AtomicBoolean crashed = new AtomicBoolean();
    DeltaSink crashing = DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .afterBatch((s, id, events) -> {
          if (id == 1 && crashed.compareAndSet(false, true)) {
            throw new IllegalStateException("simulated crash after the Delta commits of batch 1");
          }
        }).build();
    assertThatThrownBy(() -> run(crashing, ckpt, "maxCommitsPerBatch", "3")).hasStackTraceContaining("simulated crash");
    db.commit(tx -> tx.insert("orders", row("order_id", 100, "status", "late")));
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");

    List<List<Object>> rows = bronzeChanges();
    assertThat(rows).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(rows)).isEqualTo(sourceChanges());
    List<Row> batches = spark.read().format("delta").load(facts).where("event IS NULL").orderBy("batch_id")
        .collectAsList();
    assertThat(batches.stream().map(r -> (Long) r.getAs("batch_id")).toList())
        .isEqualTo(java.util.stream.LongStream.range(0, batches.size()).boxed().toList());
  }

  /** The facts row of each batch against what bronze holds of it: rows, inserts, updates, deletes. */
  private void factsMatchBronze() {
    List<Row> byBatch = spark.read().format("delta").load(bronze).groupBy("_batch_id")
        .agg(functions.count("*").as("rows"),
            functions.sum(functions.when(functions.col("_operation").equalTo(2), 1).otherwise(0)).as("inserts"),
            functions.sum(functions.when(functions.col("_operation").equalTo(4), 1).otherwise(0)).as("updates"),
            functions.sum(functions.when(functions.col("_operation").equalTo(1), 1).otherwise(0)).as("deletes"),
            functions.min("_start_lsn").as("min_lsn"), functions.max("_start_lsn").as("max_lsn"))
        .orderBy("_batch_id").collectAsList();
    List<Row> factsRows = spark.read().format("delta").load(facts).where("event IS NULL AND rows > 0")
        .orderBy("batch_id").collectAsList();
    assertThat(factsRows).hasSameSizeAs(byBatch);
    for (int i = 0; i < byBatch.size(); i++) {
      Row b = byBatch.get(i);
      Row f = factsRows.get(i);
      assertThat((Long) f.getAs("batch_id")).isEqualTo(((Integer) b.getAs("_batch_id")).longValue());
      assertThat((Long) f.getAs("rows")).isEqualTo((Long) b.getAs("rows"));
      assertThat((Long) f.getAs("inserts")).isEqualTo((Long) b.getAs("inserts"));
      assertThat((Long) f.getAs("updates")).isEqualTo((Long) b.getAs("updates"));
      assertThat((Long) f.getAs("deletes")).isEqualTo((Long) b.getAs("deletes"));
      assertThat((String) f.getAs("min_lsn")).isEqualTo((String) b.getAs("min_lsn"));
      assertThat((String) f.getAs("max_lsn")).isEqualTo((String) b.getAs("max_lsn"));
    }
  }

  /** Batch ids of the facts table's batch rows, in order. */
  private List<Long> factsBatches() {
    return spark.read().format("delta").load(facts).where("event IS NULL").orderBy("batch_id").collectAsList()
        .stream().map(r -> (Long) r.getAs("batch_id")).toList();
  }

  /** A sink that fails once at {@code step} of batch 1. */
  private DeltaSink crashingAt(DeltaSink.Step step, AtomicBoolean crashed, long[] batch) {
    return DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .afterBatch((s, id, events) -> batch[0] = id + 1)
        .at(step, () -> {
          if (batch[0] == 1 && crashed.compareAndSet(false, true)) {
            throw new IllegalStateException("simulated crash at " + step + " of batch 1");
          }
        }).build();
  }

  @Test
  void aCrashBetweenTheBronzeAndTheFactsCommitCountsTheReplayedBatch() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    AtomicBoolean crashed = new AtomicBoolean();
    assertThatThrownBy(() -> run(crashingAt(DeltaSink.Step.BETWEEN_COMMITS, crashed, new long[1]), ckpt,
        "maxCommitsPerBatch", "3")).hasStackTraceContaining("simulated crash at BETWEEN_COMMITS of batch 1");
    assertThat(factsBatches()).containsExactly(0L); // bronze holds batch 1, facts do not
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    // Delta skipped batch 1's bronze append; its facts row counts it with one more read.
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    factsMatchBronze();
  }

  /** A sink whose facts commit holding batch {@code failing} fails {@code times} times (each attempt counts). */
  private DeltaSink factsFailing(long failing, int times) {
    java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(times);
    return DeltaSink.builder().target(bronze).appId("orders").factsTable(facts).factsCommitInterval(java.time.Duration.ZERO)
        .at(DeltaSink.Step.FACTS_COMMIT, (long batch) -> {
          if (batch == failing && left.getAndDecrement() > 0) {
            throw new IllegalStateException("simulated failure of the facts commit of batch " + failing);
          }
        }).build();
  }

  @Test
  void aFactsCommitInFlightWhenTheProcessEndsIsRebuiltFromBronzeOnRestart() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    // The last batch (3) of the run: bronze and Spark's commit made, its facts commit never lands (every attempt
    // fails, as when the process ends with it in flight). The query itself ends normally.
    run(factsFailing(3, Integer.MAX_VALUE), ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L);
    Row lost = spark.read().format("delta").load(bronze).where("_batch_id = 3")
        .agg(functions.count("*"), functions.min("_start_lsn"), functions.max("_start_lsn")).first();
    assertThat(lost.getLong(0)).isPositive();

    // A backfill beside the stream writes its chunk rows under the stream's app id, with the source's max_lsn read
    // after the chunk: ahead of the stream, and no bound for the rebuild.
    FactsWriter.write(spark, TableRef.of(facts), List.of(new FactsRow().set(FactsColumn.APP_ID, "orders")
        .set(FactsColumn.EVENT, "snapshot_chunk").set(FactsColumn.ROWS, 0L).set(FactsColumn.MIN_LSN, lost.getString(1))
        .set(FactsColumn.MAX_LSN, "0xFFFFFFFF00000000FFFF").set(FactsColumn.END_LSN, "0xFFFFFFFF00000000FFFF")
        .set(FactsColumn.TARGET, bronze)), null, 0);
    history(7, 2);
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    // Batch 4, the run's first, finds the facts one batch short: batch 3's row is rebuilt from bronze.
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    assertThat(factsBatches()).hasSizeGreaterThan(4);
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    factsMatchBronze();
    Row rebuilt = spark.read().format("delta").load(facts).where("event IS NULL AND batch_id = 3").first();
    assertThat((Long) rebuilt.getAs("rows")).isEqualTo(lost.getLong(0));
    assertThat((String) rebuilt.getAs("min_lsn")).isEqualTo(lost.getString(1));
    assertThat((String) rebuilt.getAs("max_lsn")).isEqualTo(lost.getString(2));
    assertThat((String) rebuilt.getAs("detail")).contains("facts row rebuilt from " + bronze
        + " after the process ended before its facts commit: figures of the read unknown");
    assertThat((Object) rebuilt.getAs("read_seconds")).isNull();
  }

  @Test
  @Tag("slow")
  void theSameInstanceRunAgainAfterItsStopLostTheLastFactsRowRebuildsIt() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    // Batch 3's facts commit fails in the background and again in the stop's wait: the run ends with the row
    // missing. The same instance, run again, must not take its next batch for one that follows batch 3.
    DeltaSink sink = factsFailing(3, 2);
    run(sink, ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L);
    history(7, 2);
    run(sink, ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    assertThat(factsBatches()).hasSizeGreaterThan(4);
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    factsMatchBronze();
  }

  @Test
  @Tag("slow")
  void steadyBatchesFactsAreCommittedTogetherWithinTheInterval() throws Exception {
    history(1, 6);
    // An hour's interval: batch 1's row is committed at once (no commit before it), batches 2 and 3 are held and
    // committed together by the query's stop; with no interval a commit follows the one before at once.
    run(DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .factsCommitInterval(java.time.Duration.ofHours(1)).build(), tmp.resolve("ckpt"), "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L, 3L);
    factsMatchBronze();
    assertThat(factsCommitsOfRows()).containsExactly(1L, 1L, 2L);

    String facts2 = tmp.resolve("facts2").toString();
    String bronze2 = tmp.resolve("bronze2").toString();
    run(DeltaSink.builder().target(bronze2).appId("orders").factsTable(facts2).factsCommitInterval(java.time.Duration.ZERO)
        .build(), tmp.resolve("ckpt2"), "maxCommitsPerBatch", "3");
    // No interval: a commit as soon as the one before ended, with the rows handed over meanwhile (batch 0's in line).
    assertThat(spark.read().format("delta").load(facts2).where("event IS NULL").count()).isEqualTo(4);
    List<Long> commits = io.delta.tables.DeltaTable.forPath(spark, facts2).history().where("operation = 'WRITE'")
        .select("operationMetrics.numOutputRows").as(org.apache.spark.sql.Encoders.STRING()).collectAsList().stream()
        .map(Long::parseLong).toList();
    assertThat(commits.stream().mapToLong(Long::longValue).sum()).isEqualTo(4);
    assertThat(commits).hasSizeGreaterThanOrEqualTo(2);
  }

  @Test
  @Tag("slow")
  void heldFactsRowsOfAStreamGoneIdleAreCommittedWithoutAnotherBatch() throws Exception {
    history(1, 6);
    java.util.concurrent.CountDownLatch lastCommitting = new java.util.concurrent.CountDownLatch(1);
    DeltaSink sink = DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .factsCommitInterval(java.time.Duration.ofSeconds(1))
        .at(DeltaSink.Step.FACTS_COMMIT, (long batch) -> {
          if (batch == 3) {
            lastCommitting.countDown();
          }
        }).build();
    StreamingQuery q = stream("maxCommitsPerBatch", "3").writeStream().foreachBatch(sink)
        .trigger(Trigger.ProcessingTime(100)).option("checkpointLocation", tmp.resolve("ckpt").toString()).start();
    long stoppedAt;
    try {
      // Batch 3 is the last with rows: its facts are committed by the committer's own thread once the interval has
      // passed, while the query is still running and runs no further batch.
      assertThat(lastCommitting.await(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
      while (factsBatches().size() < 4 && q.isActive()) {
        q.awaitTermination(100); // the commit is under way; the query keeps running
      }
      assertThat(q.isActive()).isTrue();
      stoppedAt = System.currentTimeMillis();
    } finally {
      q.stop();
    }
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L, 3L);
    long lastCommit = io.delta.tables.DeltaTable.forPath(spark, facts).history(1).select("timestamp").first()
        .getTimestamp(0).getTime();
    assertThat(lastCommit).as("batch 3's facts committed before the stop").isLessThanOrEqualTo(stoppedAt);
    factsMatchBronze();
  }

  /** The number of rows of each append to the facts table, oldest first (creation excluded). */
  private List<Long> factsCommitsOfRows() {
    return io.delta.tables.DeltaTable.forPath(spark, facts).history().where("operation = 'WRITE'")
        .orderBy("version").select("operationMetrics.numOutputRows").as(org.apache.spark.sql.Encoders.STRING())
        .collectAsList().stream().map(Long::parseLong).toList();
  }

  @Test
  @Tag("slow")
  void severalHeldFactsRowsLostWithTheProcessAreRebuiltFromBronzeOnRestart() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    // Batches 2 and 3 are held (an hour's interval) and their commit never lands (every attempt fails, as when the
    // process ends with them held): the facts end at batch 1.
    java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
    run(DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .factsCommitInterval(java.time.Duration.ofHours(1))
        .at(DeltaSink.Step.FACTS_COMMIT, (long batch) -> {
          if (batch == 2) {
            attempts.incrementAndGet();
            throw new IllegalStateException("simulated failure of the facts commit of batch 2");
          }
        }).build(), ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L);
    assertThat(attempts.get()).as("the stop's commit and its retry").isEqualTo(2);
    history(7, 2);
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    assertThat(factsBatches()).hasSizeGreaterThan(4);
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    factsMatchBronze();
    assertThat(spark.read().format("delta").load(facts).where("event IS NULL AND batch_id IN (2, 3)")
        .where("detail LIKE '%facts row rebuilt from%'").count()).isEqualTo(2);
  }

  @Test
  @Tag("slow")
  void rowsHeldBehindAFactsCommitThatFailsTwiceAreDroppedWithItAndRebuiltOnRestart() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    // Batch 1's background commit fails once batch 2's rows are held behind it (an hour's interval); batch 3 writes
    // batch 1 again, which fails too. Batch 2's rows must not land without batch 1's (a gap the rebuild would miss).
    java.util.concurrent.CountDownLatch batch2Held = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(2);
    DeltaSink failing = DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .factsCommitInterval(java.time.Duration.ofHours(1))
        .afterBatch((s, id, events) -> {
          if (id == 2) {
            batch2Held.countDown();
          }
        })
        .at(DeltaSink.Step.FACTS_COMMIT, (long batch) -> {
          if (batch == 1 && left.getAndDecrement() > 0) {
            try {
              assertThat(batch2Held.await(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
            throw new IllegalStateException("simulated failure of the facts commit of batch 1");
          }
        }).build();
    assertThatThrownBy(() -> run(failing, ckpt, "maxCommitsPerBatch", "3"))
        .hasStackTraceContaining("MSSQL_CDC-708: The facts rows of batches 1 to 2 of app_id 'orders' could not be"
            + " appended to " + facts + " (twice; bronze holds the batches): simulated failure of the facts commit of"
            + " batch 1.");
    assertThat(factsBatches()).containsExactly(0L);
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L, 3L);
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    factsMatchBronze();
  }

  @Test
  @Tag("slow")
  void aStopWhileAFailedFactsCommitIsWrittenAgainEndsAsStoppedAndLeavesNoGap() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    java.util.concurrent.CountDownLatch sourceStopped = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch retrying = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
    // Batch 1's commit fails once; its second attempt (asked for by batch 2) waits until the query's source stopped,
    // then succeeds: the stop arrives while the batch waits for it.
    DeltaSink sink = DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .at(DeltaSink.Step.FACTS_COMMIT, (long batch) -> {
          if (batch != 1) {
            return;
          }
          if (attempts.incrementAndGet() == 1) {
            throw new IllegalStateException("simulated failure of the facts commit of batch 1");
          }
          retrying.countDown();
          try {
            assertThat(sourceStopped.await(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }).build();
    StreamingQuery q = stream("maxCommitsPerBatch", "3").writeStream().foreachBatch((Dataset<Row> df, Long id) -> {
      if (id == 0) { // registered before the sink's own stop hook, so it runs first
        String query = SparkSession.active().sparkContext().getLocalProperty("sql.streaming.queryId");
        io.mssqlcdc.connector.stream.BatchEvents.whenStopped(query, "test", sourceStopped::countDown);
      }
      sink.call(df, id);
    }).trigger(Trigger.ProcessingTime(100)).option("checkpointLocation", ckpt.toString()).start();
    assertThat(retrying.await(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    q.stop();
    assertThat(q.exception().isEmpty()).as("the query ended as stopped, not failed").isTrue();
    assertThat(attempts.get()).isEqualTo(2);
    List<Long> batches = factsBatches();
    assertThat(batches).isEqualTo(java.util.stream.LongStream.range(0, batches.size()).boxed().toList());
    assertThat(batches).as("batch 1's second attempt, under way at the stop, landed").contains(1L);

    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    factsMatchBronze();
  }

  @Test
  @Tag("slow")
  void stoppingARunningQueryWaitsForTheFactsCommitInFlightAndEndsAsStopped() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    java.util.concurrent.CountDownLatch sourceStopped = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch inFlight = new java.util.concurrent.CountDownLatch(1);
    // Every background facts commit waits until the query's source has stopped: batch 1's is in flight at the stop,
    // and batch 2, if it gets that far, waits for it (the stop's interrupt arrives there or anywhere before).
    DeltaSink sink = DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .at(DeltaSink.Step.FACTS_COMMIT, (long batch) -> {
          inFlight.countDown();
          try {
            assertThat(sourceStopped.await(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }).build();
    StreamingQuery q = stream("maxCommitsPerBatch", "3").writeStream().foreachBatch((Dataset<Row> df, Long id) -> {
      if (id == 0) { // registered before the sink's own stop hook, so it runs first
        String query = SparkSession.active().sparkContext().getLocalProperty("sql.streaming.queryId");
        io.mssqlcdc.connector.stream.BatchEvents.whenStopped(query, "test", sourceStopped::countDown);
      }
      sink.call(df, id);
    }).trigger(Trigger.ProcessingTime(100)).option("checkpointLocation", ckpt.toString()).start();
    assertThat(inFlight.await(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    q.stop();
    assertThat(q.exception().isEmpty()).as("the query ended as stopped, not failed").isTrue();
    List<Long> batches = factsBatches();
    assertThat(batches).isEqualTo(java.util.stream.LongStream.range(0, batches.size()).boxed().toList());
    assertThat(batches).as("batch 1's facts commit, in flight at the stop, landed").contains(1L);

    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    factsMatchBronze();
  }

  @Test
  void aFailedFactsCommitIsWrittenAgainByTheNextBatch() throws Exception {
    history(1, 6);
    run(factsFailing(1, 1), tmp.resolve("ckpt"), "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L, 3L);
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    factsMatchBronze();
    Row second = spark.read().format("delta").load(facts).where("event IS NULL AND batch_id = 1").first();
    assertThat((Object) second.getAs("read_seconds")).as("the figures of the read kept").isNotNull();
  }

  @Test
  void aFactsCommitFailingTwiceFailsTheNextBatchAndTheRestartRebuildsIt() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    assertThatThrownBy(() -> run(factsFailing(1, 2), ckpt, "maxCommitsPerBatch", "3"))
        .hasStackTraceContaining("MSSQL_CDC-708")
        .hasStackTraceContaining("The facts row of batch 1 of app_id 'orders' could not be appended to " + facts
            + " (twice; bronze holds the batch): simulated failure of the facts commit of batch 1. Fix the cause")
        .hasStackTraceContaining("restart the query on the same checkpoint: its first batch rebuilds the missing row"
            + " from bronze.");
    assertThat(factsBatches()).containsExactly(0L);
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    assertThat(factsBatches()).containsExactly(0L, 1L, 2L, 3L);
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    factsMatchBronze();
  }

  @Test
  void aCrashBeforeTheBronzeCommitWritesTheBatchOnRestart() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    AtomicBoolean crashed = new AtomicBoolean();
    assertThatThrownBy(() -> run(crashingAt(DeltaSink.Step.BEFORE_BRONZE, crashed, new long[1]), ckpt,
        "maxCommitsPerBatch", "3")).hasStackTraceContaining("simulated crash at BEFORE_BRONZE of batch 1");
    run(sink("orders"), ckpt, "maxCommitsPerBatch", "3");
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(new HashSet<>(bronzeChanges())).isEqualTo(sourceChanges());
    factsMatchBronze();
  }

  @Test
  void theSameInstanceRestartedAfterACrashBetweenTheCommitsChecksTheFacts() throws Exception {
    history(1, 6);
    Path ckpt = tmp.resolve("ckpt");
    AtomicBoolean crashed = new AtomicBoolean();
    DeltaSink sink = crashingAt(DeltaSink.Step.BETWEEN_COMMITS, crashed, new long[1]);
    assertThatThrownBy(() -> run(sink, ckpt, "maxCommitsPerBatch", "3")).hasStackTraceContaining("simulated crash");
    // Batch 1 follows batch 0, the last this instance finished, but the failure reset it: the retry checks.
    run(sink, ckpt, "maxCommitsPerBatch", "3");
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(factsBatches()).isEqualTo(java.util.stream.LongStream.range(0, factsBatches().size()).boxed().toList());
    factsMatchBronze();
  }

  @Test
  void anotherWriterUnderTheSameAppIdIsRefusedInSteadyState() throws Exception {
    history(1, 6);
    // After batch 0, someone appends bronze batch 1 under the same app id (another query, another checkpoint).
    DeltaSink sink = DeltaSink.builder().target(bronze).appId("orders").factsTable(facts)
        .afterBatch((s, id, events) -> {
          if (id == 0) {
            DeltaTables.append(spark.read().format("delta").load(bronze).limit(1), TableRef.of(bronze),
                Map.of("txnAppId", "orders", "txnVersion", "1"));
          }
        }).build();
    assertThatThrownBy(() -> run(sink, tmp.resolve("ckpt"), "maxCommitsPerBatch", "3"))
        .hasStackTraceContaining("MSSQL_CDC-707")
        .hasStackTraceContaining("already holds batch 1 of app_id 'orders' (Delta skipped the append as written), but"
            + " this run wrote batch 0 and the facts table has no row of batch 1: another query writes to " + bronze
            + " under the same app_id. Give each query its own app_id (and checkpoint).");
    assertThat(factsBatches()).containsExactly(0L);
  }

  @Test
  void replayingABatchWritesNothingTwice() throws Exception {
    history(1, 3);
    Path ckpt = tmp.resolve("ckpt");
    List<Dataset<Row>> kept = new ArrayList<>();
    DeltaSink sink = sink("orders");
    run((df, id) -> {
      sink.call(df, id);
      if (id == 0) {
        sink.call(df, id); // the same batch again: Delta skips both appends
      }
    }, ckpt);
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
    assertThat(spark.read().format("delta").load(facts).where("event IS NULL AND batch_id = 0").count()).isEqualTo(1);
  }

  @Test
  void aRewoundCheckpointUnderTheSameAppIdIsRefused() throws Exception {
    history(1, 6);
    run(sink("orders"), tmp.resolve("ckpt"), "maxCommitsPerBatch", "3");
    assertThatThrownBy(() -> run(sink("orders"), tmp.resolve("other-ckpt"), "maxCommitsPerBatch", "3"))
        .hasStackTraceContaining("MSSQL_CDC-700")
        .hasStackTraceContaining("holds batch 3 of app_id 'orders', but this run's checkpoint starts at batch 0")
        .hasStackTraceContaining("Use a new app_id, or restore the checkpoint");
    // A new app id on a new checkpoint is fine.
    run(sink("orders-2"), tmp.resolve("ckpt-2"), "maxCommitsPerBatch", "3");
  }

  @Test
  void aReusedSinkInstanceChecksAgainWhenABatchDoesNotFollowItsLast() throws Exception {
    history(1, 6);
    DeltaSink sink = sink("orders");
    run(sink, tmp.resolve("ckpt"), "maxCommitsPerBatch", "3");
    // The same instance on a new checkpoint under the same app id: batch 0 does not follow batch 3.
    assertThatThrownBy(() -> run(sink, tmp.resolve("other-ckpt"), "maxCommitsPerBatch", "3"))
        .hasStackTraceContaining("MSSQL_CDC-700")
        .hasStackTraceContaining("holds batch 3 of app_id 'orders', but this run's checkpoint starts at batch 0");
    assertThat(bronzeChanges()).hasSize(sourceChanges().size());
  }

  @Test
  void namedTablesWorkLikePaths() throws Exception {
    history(1, 2);
    String name = "bronze_named_" + Math.abs(tmp.hashCode());
    String factsName = "facts_named_" + Math.abs(tmp.hashCode());
    DeltaSink sink = DeltaSink.builder().target(name).appId("named").factsTable(factsName).build();
    run(sink, tmp.resolve("ckpt"));
    run(sink, tmp.resolve("ckpt"));
    assertThat(spark.table(name).count()).isEqualTo(sourceChanges().size());
    assertThat(spark.table(factsName).where("event IS NULL").count()).isEqualTo(1);
    assertThat(DeltaTables.properties(spark, TableRef.of(name))).containsEntry("mssql_cdc.schema_version", "2");
  }

  private static java.time.LocalDateTime utc(java.time.Instant t) {
    return java.time.LocalDateTime.ofInstant(t, java.time.ZoneOffset.UTC);
  }
}
