package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.sink.BronzeImages;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.chunked.PyJson;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chunked snapshots beside the running stream, on the real engine over the fake (reference-behaviour §12.8-§12.10). */
@Tag("slow")
@Tag("spark")
class ChunkedBackfillTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  SparkSession spark = SharedDeltaSpark.spark();
  String bronze;
  String facts;
  String ckpt;
  Random rnd = new Random(11);
  int nextId = 1;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> {
      for (int i = 0; i < 240; i++) {
        tx.insert("orders", row("order_id", nextId++, "status", "new"));
      }
    });
    bronze = tmp.resolve("bronze").toString();
    facts = tmp.resolve("facts").toString();
    ckpt = tmp.resolve("ckpt").toString();
  }

  private CdcStream.Builder builder() {
    return CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "dbo_orders").option("numPartitions", "2").target(bronze).appId("orders")
        .checkpoint(ckpt).factsTable(facts).trigger("availableNow").snapshot("chunked");
  }

  /** A few commits of a live writer: updates, deletes and inserts of keys across the key space. */
  private void write(int commits) {
    TreeMap<Integer, List<String>> live = new TreeMap<>(BronzeImages.table(db, "dbo", "orders", "order_id",
        List.of("status")).entrySet().stream().collect(java.util.stream.Collectors.toMap(e -> Integer.parseInt(e.getKey()),
        Map.Entry::getValue)));
    List<Integer> keys = new java.util.ArrayList<>(live.keySet());
    for (int c = 0; c < commits; c++) {
      int k = keys.get(rnd.nextInt(keys.size()));
      switch (c % 3) {
        case 0 -> db.commit(tx -> tx.update("orders", row("order_id", k, "status", "paid-" + rnd.nextInt(99))));
        case 1 -> {
          db.commit(tx -> tx.delete("orders", key(k)));
          keys.remove(Integer.valueOf(k));
        }
        default -> {
          int id = nextId++;
          db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "late")));
          keys.add(id);
        }
      }
    }
  }

  private Dataset<Row> facts() {
    return spark.read().format("delta").load(facts);
  }

  private Map<String, List<String>> table() {
    return BronzeImages.table(db, "dbo", "orders", "order_id", List.of("status"));
  }

  @Test
  void aChunkedBootstrapBesideALiveWriterEndsWithTheWholeTable() throws Exception {
    builder().bootstrap(true).toDelta().awaitTermination();
    JsonNode open = PyJson.parse(facts().where("event = 'snapshot_open'").first().<String>getAs("detail"));
    assertThat(open.path("mode").asText()).isEqualTo("chunked");
    assertThat(open.path("kind").asText()).isEqualTo("bootstrap");
    assertThat(open.path("plan").path("kind").asText()).isEqualTo("int");
    assertThat(open.path("keys").get(0).asText()).isEqualTo("order_id");
    String s = facts().where("event = 'snapshot_open'").first().getAs("max_lsn");

    write(12);
    BackfillStatus first = builder().backfill().chunkRows(40).maxWaves(2).targetWaveSeconds(0).run();
    assertThat(first.state()).isEqualTo("running");
    assertThat(first.paused()).as("a limit stopped it, nothing to wait for (reference §12.10)").isFalse();
    assertThat(first.done()).isFalse();
    assertThat(first.chunksDone()).isEqualTo(4);                 // 2 waves of numPartitions=2 chunks
    assertThat(first.chunksTotal()).as("the seeded writes leave 6 chunks of at most 40 rows").isEqualTo(6L);
    write(12);
    builder().toDelta().awaitTermination();
    BackfillStatus rest = builder().backfill().chunkRows(40).targetWaveSeconds(0).run();
    assertThat(rest.state()).isEqualTo("done");
    assertThat(rest.chunksDone()).isEqualTo(rest.chunksTotal());
    write(6);
    builder().toDelta().awaitTermination();

    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
    // Every snapshot row has _snapshot = S and a chunk; chunk rows in facts equal bronze's.
    Dataset<Row> snap = spark.read().format("delta").load(bronze).where("_operation = 0");
    assertThat(snap.where("_snapshot <> '" + s + "' OR _chunk IS NULL").count()).isZero();
    Map<Integer, Long> bronzeChunks = new TreeMap<>();
    for (Row r : snap.groupBy("_chunk").count().collectAsList()) {
      bronzeChunks.put(r.getInt(0), r.getLong(1));
    }
    Map<Integer, Long> factsChunks = new TreeMap<>();
    for (Row r : facts().where("event = 'snapshot_chunk'").collectAsList()) {
      factsChunks.put(PyJson.parse(r.getAs("detail")).path("chunk").asInt(), r.getAs("rows"));
    }
    factsChunks.values().removeIf(v -> v == 0);
    assertThat(factsChunks).isEqualTo(bronzeChunks);
    assertThat(snap.select("order_id").distinct().count()).isEqualTo(snap.count());  // each key read once
    Row done = facts().where("event = 'bootstrap'").first();
    assertThat((Long) done.getAs("rows")).isEqualTo(snap.count());
    assertThat((String) done.getAs("max_lsn")).isEqualTo(s);
    assertThat(facts().where("event = 'snapshot_plan'").count()).isEqualTo(1);
    // A further call finds it done and writes nothing.
    long factsVersion = io.mssqlcdc.sink.tables.DeltaTables.version(spark, io.mssqlcdc.sink.tables.TableRef.of(facts));
    assertThat(builder().backfill().run().state()).isEqualTo("done");
    assertThat(io.mssqlcdc.sink.tables.DeltaTables.version(spark, io.mssqlcdc.sink.tables.TableRef.of(facts)))
        .isEqualTo(factsVersion);
  }

  @Test
  void aCrashBetweenAnyTwoStepsOfAWaveResumesWithoutDuplicates() throws Exception {
    builder().bootstrap(true).toDelta().awaitTermination();
    // 80 rows a chunk, half the chunks and waves of 40: wave 0 crashed after each step in turn, then the rest
    for (String crashAfter : List.of("read", "appended", "facts")) {
      write(3);
      assertThatThrownBy(() -> builder().backfill().chunkRows(80).targetWaveSeconds(0).onStep(st -> {
        if (st.equals(crashAfter)) {
          throw new IllegalStateException("simulated crash after " + st);
        }
      }).run()).hasMessageContaining("simulated crash after " + crashAfter);
    }
    builder().backfill().chunkRows(80).targetWaveSeconds(0).run();
    builder().toDelta().awaitTermination();
    Dataset<Row> snap = spark.read().format("delta").load(bronze).where("_operation = 0");
    assertThat(snap.select("order_id").distinct().count()).isEqualTo(snap.count());
    List<Row> chunkRows = facts().where("event = 'snapshot_chunk'").collectAsList();
    List<Integer> chunks = chunkRows.stream().map(r -> PyJson.parse(r.getAs("detail")).path("chunk").asInt()).toList();
    int planned = PyJson.parse(facts().where("event = 'snapshot_plan'").first().<String>getAs("detail"))
        .path("chunks").size();
    assertThat(chunks).as("every chunk of the plan once").containsExactlyInAnyOrderElementsOf(
        java.util.stream.IntStream.range(0, planned).boxed().toList());
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
    assertThat(facts().where("event = 'bootstrap'").count()).isEqualTo(1);
  }

  @Test
  void throttlingWaitsForTheStreamsHeadroom() throws Exception {
    builder().bootstrap(true).toDelta().awaitTermination();
    // No micro-batch yet with a headroom figure: the backfill reads it from the source, 0 h (one commit).
    // 120 rows a chunk: few chunks to read once the headroom allows it (throttling decides before any wave)
    BackfillStatus waiting = builder().backfill().chunkRows(120).minHeadroomHours(1).run();
    assertThat(waiting.state()).isEqualTo("waiting_headroom");
    assertThat(waiting.reason()).startsWith("the stream's retention headroom is 0.00 h (read from the source at the"
        + " stream's position ").contains("below minHeadroomHours=1.0");
    assertThat(waiting.paused()).isTrue();
    assertThat(waiting.chunksTotal()).as("not planned yet").isNull();
    assertThat(facts().where("event = 'snapshot_plan'").count()).as("no planning reads while throttled").isZero();
    db.cleanup("dbo_orders", db.client().maxLsn().orElseThrow());
    // The next commits two hours after the retention watermark: a headroom of 2 h that does not depend
    // on how fast this machine ran the steps before (rounded to 0.01 h, a fast run would show 0).
    db.clock(java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(2)));
    write(3);
    builder().toDelta().awaitTermination();
    BackfillStatus low = builder().backfill().chunkRows(120).minHeadroomHours(10_000).run();
    assertThat(low.state()).isEqualTo("waiting_headroom");
    assertThat(low.reason()).contains("below minHeadroomHours=10000.0");
    assertThat(builder().backfill().chunkRows(120).minHeadroomHours(1).run().state()).isEqualTo("done");
  }

  @Test
  void aBackfillGoesOnTheSourcesHeadroomAndAfterACrashBeforeItsCompletionRowCompletesFirst() throws Exception {
    BackfillStatus none = builder().backfill().run();
    assertThat(none.state()).isEqualTo("no_snapshot");
    assertThat(none.chunksTotal()).as("the reference's chunks_total None").isNull();
    assertThat(none.paused()).isTrue();
    builder().bootstrap(true).toDelta().awaitTermination();
    // The stream's only micro-batch is empty: its facts row has no headroom (as a snapshot the reference left open).
    // Its end offset is its start, S: no range planned, so no end_lsn (the reference's NULL, item 26.2).
    assertThat(facts().where("event IS NULL").select("retention_headroom_hours", "end_lsn", "end_commit_ts")
        .collectAsList()).extracting(Row::toString).containsExactly("[null,null,null]");
    // 120 rows a chunk, read on the source's headroom (0 h, not below 0); a crash after the facts rows of the
    // wave that holds the last chunk, before the completion row.
    assertThatThrownBy(() -> builder().backfill().chunkRows(120).minHeadroomHours(0).targetWaveSeconds(0)
        .onStep(st -> {
          if (st.equals("facts")
              && facts().where("event = 'snapshot_chunk' AND get_json_object(detail, '$.last') = 'true'").count() > 0) {
            throw new IllegalStateException("simulated crash after the last facts");
          }
        }).run()).hasMessageContaining("simulated crash after the last facts");
    int planned = PyJson.parse(facts().where("event = 'snapshot_plan'").first().<String>getAs("detail"))
        .path("chunks").size();
    assertThat(facts().where("event = 'snapshot_chunk'").count()).isEqualTo(planned);
    assertThat(facts().where("event = 'bootstrap'").count()).isZero();
    // The rerun completes before the throttle could hold it.
    BackfillStatus rerun = builder().backfill().minHeadroomHours(10_000).run();
    assertThat(rerun.state()).isEqualTo("done");
    assertThat(rerun.chunksDone()).isEqualTo(planned);
    assertThat(rerun.chunksTotal()).isEqualTo((long) planned);
    assertThat(rerun.paused()).isFalse();
    Row done = facts().where("event = 'bootstrap'").first();
    assertThat((Long) done.getAs("rows")).isEqualTo(240L);
    assertThat(spark.read().format("delta").load(bronze).where("_operation = 0").count()).isEqualTo(240);
  }

  @Test
  void theModeLockRefusesAFullSnapshotWhileAChunkedOneIsOpen() throws Exception {
    builder().bootstrap(true).toDelta().awaitTermination();
    assertThatThrownBy(() -> builder().snapshot("full").bootstrap(true).toDelta())
        .hasMessageContaining("MSSQL_CDC-704")
        .hasMessageContaining("has a chunked snapshot open at")
        .hasMessageContaining("run backfill() until it is done, or rerun with snapshot=chunked");
    builder().backfill().chunkRows(1_000).run();
    builder().snapshot("full").bootstrap(true).toDelta().awaitTermination(); // complete: either mode may be used
  }

  @Test
  void aCompositeKeyIsCutInKeysetChunks() throws Exception {
    db.createTable("dbo", "lines", "region varchar(10)", "line int", "qty int").key("region", "line");
    db.enableCdc("dbo", "lines");
    db.commit(tx -> {
      for (String region : List.of("east", "North", "south", "west")) {
        for (int i = 0; i < 30; i++) {
          tx.insert("lines", row("region", region, "line", i, "qty", i));
        }
      }
    });
    CdcStream.Builder b = CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "dbo_lines").target(tmp.resolve("lines").toString()).appId("lines")
        .checkpoint(tmp.resolve("lines_ckpt").toString()).factsTable(facts).trigger("availableNow")
        .snapshot("chunked");
    b.bootstrap(true).toDelta().awaitTermination();
    db.commit(tx -> tx.insert("lines", row("region", "zulu", "line", 1, "qty", 5)).delete("lines", key("east", 3)));
    assertThat(b.backfill().chunkRows(25).targetWaveSeconds(0).run().state()).isEqualTo("done");
    b.toDelta().awaitTermination();
    Dataset<Row> snap = spark.read().format("delta").load(tmp.resolve("lines").toString()).where("_operation = 0");
    assertThat(snap.select("region", "line").distinct().count()).isEqualTo(snap.count());
    assertThat(snap.count()).as("120 rows less east/3; zulu, above MAX, is the stream's").isEqualTo(119);
    JsonNode plan = PyJson.parse(facts().where("event = 'snapshot_plan' AND target LIKE '%lines'").first()
        .<String>getAs("detail"));
    assertThat(plan.path("kind").asText()).isEqualTo("keyset");
    assertThat(plan.path("chunks").size()).as("bounds after 25, 50, 75 and 100 of 119 rows").isEqualTo(5);
  }

  @Test
  void aChunkedReSnapshotAfterRetentionLossRebuildsWithoutTheRowsDeletedInTheGap() throws Exception {
    builder().bootstrap(true).toDelta().awaitTermination();
    assertThat(builder().backfill().chunkRows(1_000).run().state()).isEqualTo("done");
    builder().onDataLoss("resnapshot").toDelta().awaitTermination();
    java.time.Instant committedAt = db.client().commitTime(db.client().maxLsn().orElseThrow()).orElseThrow();
    // Changes the stream never read, then purged by CDC cleanup.
    db.commit(tx -> tx.delete("orders", key(5)));
    db.commit(tx -> tx.update("orders", row("order_id", 6, "status", "gone-through")));
    db.cleanup("dbo_orders", db.idle());

    builder().onDataLoss("resnapshot").toDelta().awaitTermination();
    GenerationState state = CheckpointDir.of(spark, ckpt).readState();
    assertThat(state.generation()).isEqualTo(1);
    String s1 = state.snapshotLsn().hex();
    Row open = facts().where("event = 'snapshot_open' AND max_lsn = '" + s1 + "'").first();
    JsonNode detail = PyJson.parse(open.getAs("detail"));
    assertThat(detail.path("mode").asText()).isEqualTo("chunked");
    assertThat(detail.path("kind").asText()).isEqualTo("resnapshot");
    assertThat(detail.path("generation").asInt()).isEqualTo(1);
    assertThat(facts().where("event = 'resnapshot'").count()).isZero();   // open, not complete

    write(6);
    builder().onDataLoss("resnapshot").toDelta().awaitTermination();
    // 80 rows a chunk: several chunks in more than one wave
    BackfillStatus st = builder().onDataLoss("resnapshot").backfill().chunkRows(80).targetWaveSeconds(0).run();
    assertThat(st.state()).isEqualTo("done");
    assertThat(st.snapshot()).isEqualTo(s1);
    write(3);
    builder().onDataLoss("resnapshot").toDelta().awaitTermination();

    Row done = facts().where("event = 'resnapshot'").first();
    assertThat((String) done.getAs("app_id")).isEqualTo("orders.g1");
    assertThat((String) done.getAs("max_lsn")).isEqualTo(s1);
    assertThat((Object) done.getAs("lost_from_ts")).as("the last offset's commit time before the loss")
        .isEqualTo(java.time.LocalDateTime.ofInstant(committedAt, java.time.ZoneOffset.UTC));
    // The completion row carries the gap's headroom like a full re-snapshot's row: from the watermark when the
    // loss was found to S's commit, to 0.01 h.
    java.time.LocalDateTime lostTo = done.getAs("lost_to_ts");
    assertThat(lostTo).as("the retention watermark's commit time when the loss was found").isEqualTo(
        java.time.LocalDateTime.ofInstant(db.client().commitTimeAtOrBefore(db.client().minLsn("dbo_orders"))
            .orElseThrow(), java.time.ZoneOffset.UTC));
    java.time.LocalDateTime sAt = java.time.LocalDateTime.ofInstant(
        db.client().commitTimeAtOrBefore(state.snapshotLsn()).orElseThrow(), java.time.ZoneOffset.UTC);
    assertThat((Object) done.getAs("min_commit_ts")).isEqualTo(sAt);
    assertThat((Double) done.getAs("retention_headroom_hours")).isEqualTo(java.math.BigDecimal.valueOf(
        java.time.Duration.between(lostTo, sAt).toMillis() / 3_600_000.0)
        .setScale(2, java.math.RoundingMode.HALF_EVEN).doubleValue());
    // Bronze from the re-snapshot on is the table: the row deleted during the gap is gone.
    List<Row> fromSnapshot = spark.read().format("delta").load(bronze).where("_snapshot = '" + s1
        + "' OR (_operation <> 0 AND _start_lsn > '" + s1 + "')").collectAsList();
    Map<String, List<String>> rebuilt = BronzeImages.latest(fromSnapshot, "order_id", List.of("status"));
    assertThat(rebuilt).isEqualTo(table()).doesNotContainKey("5");
    assertThat(rebuilt.get("6")).containsExactly("gone-through");
  }

  @Test
  void aRerunNarrowerThanTheCrashedWaveRecordsTheChunksTheEarlierCommitHolds() throws Exception {
    builder().bootstrap(true).toDelta().awaitTermination();
    // 80 rows a chunk: the crashed wave 0 appended chunks 0 and 1, more chunks follow
    assertThatThrownBy(() -> builder().backfill().chunkRows(80).targetWaveSeconds(0).onStep(st -> {
      if (st.equals("appended")) {
        throw new IllegalStateException("simulated crash after appended");
      }
    }).run()).hasMessageContaining("simulated crash after appended");
    // One partition: the rerun's wave 0 takes one chunk, Delta skips it (the crashed attempt committed two),
    // the facts record the two the commit holds, and the wave read ahead (chunk 1 again) is released.
    BackfillStatus st = builder().option("numPartitions", "1").backfill().chunkRows(80).targetWaveSeconds(0).run();
    assertThat(st.state()).isEqualTo("done");
    assertThat(st.chunksTotal()).as("a chunk after the one read ahead").isGreaterThanOrEqualTo(3);
    builder().toDelta().awaitTermination();
    Dataset<Row> snap = spark.read().format("delta").load(bronze).where("_operation = 0");
    assertThat(snap.select("order_id").distinct().count()).isEqualTo(snap.count()).isEqualTo(240);
    List<Integer> chunks = facts().where("event = 'snapshot_chunk'").collectAsList().stream()
        .map(r -> PyJson.parse(r.getAs("detail")).path("chunk").asInt()).sorted().toList();
    assertThat(chunks).isEqualTo(java.util.stream.IntStream.range(0, st.chunksTotal().intValue()).boxed().toList());
    List<Row> wave0 = facts().where("event = 'snapshot_chunk'").collectAsList().stream()
        .filter(r -> PyJson.parse(r.getAs("detail")).path("wave").asInt() == 0).toList();
    assertThat(wave0).hasSize(2);
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
  }
}
