package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.BronzeImages;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pipeline entry point on the real engine over the fake: bootstrap, generations, switches, arguments. */
@Tag("spark")
class CdcStreamTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  SparkSession spark = SharedDeltaSpark.spark();
  String bronze;
  String facts;
  String ckpt;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    bronze = tmp.resolve("bronze").toString();
    facts = tmp.resolve("facts").toString();
    ckpt = tmp.resolve("ckpt").toString();
  }

  private Lsn insert(int id, String status) {
    return db.commit(tx -> tx.insert("orders", row("order_id", id, "status", status)));
  }

  private CdcStream.Builder builder() {
    return CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "dbo_orders").target(bronze).appId("orders").checkpoint(ckpt).factsTable(facts)
        .trigger("availableNow");
  }

  private static void await(StreamingQuery q) throws Exception {
    q.awaitTermination();
  }

  private Dataset<Row> facts() {
    return spark.read().format("delta").load(facts);
  }

  private Dataset<Row> bronzeRows() {
    return spark.read().format("delta").load(bronze);
  }

  private Map<String, List<String>> table() {
    return BronzeImages.table(db, "dbo", "orders", "order_id", List.of("status"));
  }

  @Test
  void bootstrapSnapshotsOnceAndTheStreamContinuesFromItsStamp() throws Exception {
    for (int i = 1; i <= 5; i++) {
      insert(i, "new");
    }
    db.commit(tx -> tx.update("orders", row("order_id", 2, "status", "paid")));
    db.commitBeforeRead(tx -> tx.delete("orders", key(3))); // lands between the stamp and the read
    await(builder().bootstrap(true).toDelta());

    List<Row> snap = bronzeRows().where("_operation = 0").collectAsList();
    assertThat(snap).hasSize(4);
    String stamp = snap.get(0).getAs("_start_lsn");
    assertThat(snap).allSatisfy(r -> {
      assertThat((String) r.getAs("_snapshot")).isEqualTo(stamp);
      assertThat((Object) r.getAs("_batch_id")).isNull();
    });
    // The commit between stamp and read is in the stream after the stamp.
    assertThat(bronzeRows().where("_operation = 1 AND order_id = 3").count()).isEqualTo(1);
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
    assertThat(facts().where("event = 'snapshot_open'").count()).isEqualTo(1);
    Row boot = facts().where("event = 'bootstrap'").first();
    assertThat((Long) boot.getAs("rows")).isEqualTo(4);
    assertThat((String) boot.getAs("max_lsn")).isEqualTo(stamp);
    assertThat((String) boot.getAs("app_id")).isEqualTo("orders");
    assertThat((String) facts().where("event = 'snapshot_open'").first().getAs("detail"))
        .isEqualTo("{\"mode\": \"full\", \"kind\": \"bootstrap\", \"generation\": 0, \"lost_from_ts\": null,"
            + " \"lost_to_ts\": null}");

    insert(6, "new");
    await(builder().bootstrap(true).toDelta());
    assertThat(bronzeRows().where("_operation = 0").count()).isEqualTo(4);
    assertThat(facts().where("event = 'bootstrap'").count()).isEqualTo(1);
    assertThat(facts().where("event = 'snapshot_open'").count()).isEqualTo(1);
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
  }

  /**
   * Issue 29's crash suite, seed 1019: a bootstrap of a table that is empty at its stamp leaves no operation-0 row in
   * bronze, only its facts event; a later start with bootstrap must find that event, not snapshot the table again
   * (a second snapshot of generation 0, above changes the stream reads anyway).
   */
  @Test
  void aBootstrapOfAnEmptyTableIsFoundByItsEventAndNotTakenAgain() throws Exception {
    insert(1, "new");
    db.commit(tx -> tx.delete("orders", key(1)));
    await(builder().bootstrap(true).toDelta());
    Row boot = facts().where("event = 'bootstrap'").first();
    assertThat((Long) boot.getAs("rows")).isEqualTo(0);
    String stamp = boot.getAs("max_lsn");
    assertThat(bronzeRows().count()).isEqualTo(0);

    Lsn two = insert(2, "new");
    await(builder().bootstrap(true).toDelta());
    assertThat(bronzeRows().where("_operation = 0").count()).as("snapshot rows in bronze").isEqualTo(0);
    assertThat(facts().where("event = 'snapshot_open'").count()).isEqualTo(1);
    assertThat(facts().where("event = 'bootstrap'").collectAsList()).singleElement()
        .satisfies(r -> assertThat((String) r.getAs("max_lsn")).isEqualTo(stamp));
    List<Row> changes = bronzeRows().collectAsList();
    assertThat(changes).singleElement().satisfies(r -> {
      assertThat((Integer) r.getAs("_operation")).isEqualTo(2);
      assertThat(Lsn.parse(r.getAs("_start_lsn"))).isEqualTo(two);
    });
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
  }

  /**
   * Issue 29's crash suite, seed 7177: an empty bootstrap's event is older than a capture instance enabled later;
   * the stream reads past that instance's start, the older instance is dropped, and the next start on the same
   * checkpoint must not take the bootstrap again (Spark resumes from its offsets whatever bootstrap finds). A new
   * checkpoint would: {@link #anEmptyBootstrapOfADroppedCaptureInstanceIsNotTakenForTheCurrentOne}.
   */
  @Test
  void aResumingStreamKeepsItsEmptyBootstrapAfterTheOlderInstanceIsDropped() throws Exception {
    insert(1, "new");
    db.commit(tx -> tx.delete("orders", key(1)));
    await(builder().bootstrap(true).toDelta());
    String stamp = facts().where("event = 'bootstrap'").first().getAs("max_lsn");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    insert(2, "new");
    await(builder().bootstrap(true).toDelta());
    db.disableCdc("dbo_orders");
    insert(3, "new");

    await(builder().bootstrap(true).toDelta());
    assertThat(bronzeRows().where("_operation = 0").count()).as("snapshot rows in bronze").isEqualTo(0);
    assertThat(facts().where("event = 'snapshot_open'").count()).isEqualTo(1);
    assertThat(facts().where("event = 'bootstrap'").collectAsList()).singleElement()
        .satisfies(r -> assertThat((String) r.getAs("max_lsn")).isEqualTo(stamp));
    assertThat(bronzeRows().where("_operation = 2").count()).isEqualTo(2);
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
  }

  /**
   * The empty bootstrap's event is found only within the capture instance lineage the stream reads, as a snapshot in
   * bronze is (its rows are matched by capture instance): an empty bootstrap taken on an instance since dropped is
   * not the current one. Before the fix a new checkpoint on the table's new instance started at that stale stamp,
   * before the instance's start: MSSQL_CDC-200 (changes "purged"), and the rows written while CDC was off were not in
   * bronze.
   */
  @Test
  void anEmptyBootstrapOfADroppedCaptureInstanceIsNotTakenForTheCurrentOne() throws Exception {
    await(builder().bootstrap(true).toDelta());
    String stale = facts().where("event = 'bootstrap'").first().getAs("max_lsn");
    db.disableCdc("dbo_orders");
    insert(1, "new");
    insert(2, "paid");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    Lsn three = insert(3, "new");

    // A new checkpoint (the stream reset after CDC was enabled again), on the same tables and appId: it starts where
    // bootstrap says. (The old checkpoint resumes on the dropped instance's offset whatever bootstrap finds.)
    ckpt = tmp.resolve("ckpt2").toString();
    await(builder().option("captureInstance", "dbo_orders_v2").bootstrap(true).toDelta());
    List<Row> snap = bronzeRows().where("_operation = 0").orderBy("order_id").collectAsList();
    assertThat(snap).hasSize(3);
    String stamp = snap.get(0).getAs("_snapshot");
    assertThat(Lsn.parse(stamp)).isNotEqualTo(Lsn.parse(stale));
    assertThat(snap.stream().map(r -> r.getAs("order_id") + "," + r.getAs("_snapshot") + ","
        + r.getAs("_capture_instance")).toList())
        .containsExactly("1," + stamp + ",dbo_orders_v2", "2," + stamp + ",dbo_orders_v2",
            "3," + stamp + ",dbo_orders_v2");
    assertThat(Lsn.parse(stamp).compareTo(three)).isGreaterThanOrEqualTo(0);
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status"))).isEqualTo(table());
    // Its bootstrap row is in facts beside the first one (decision 0015: <app_id>#events version 0 is taken), and a
    // rerun on the same checkpoint writes it no second time.
    await(builder().option("captureInstance", "dbo_orders_v2").bootstrap(true).toDelta());
    assertThat(facts().where("event = 'bootstrap'").orderBy("max_lsn").collectAsList().stream()
        .map(r -> r.getAs("app_id") + "," + r.getAs("max_lsn") + "," + r.getAs("rows")).toList())
        .containsExactly("orders," + stale + ",0", "orders," + stamp + ",3");
  }


  @Test
  void retentionLossOpensGenerationOneWithTheGapRecorded() throws Exception {
    insert(1, "new");
    insert(2, "new");
    await(builder().onDataLoss("resnapshot").option("maxCommitsPerBatch", "1").toDelta());
    Lsn committed = db.client().maxLsn().orElseThrow();
    java.time.Instant committedAt = db.client().commitTime(committed).orElseThrow();
    // The process ended with generation 0's last facts commit in flight (it is made beside the next batch): the
    // row is missing, and generation 0 will not run again.
    long last = facts().where("app_id = 'orders' AND event IS NULL").agg(functions.max("batch_id")).first().getLong(0);
    assertThat(last).isPositive();
    Row lostRow = facts().where("app_id = 'orders' AND event IS NULL AND batch_id = " + last).first();
    io.delta.tables.DeltaTable.forPath(spark, facts).delete("app_id = 'orders' AND event IS NULL AND batch_id = " + last);

    // Changes the stream never read, then purged by CDC cleanup.
    insert(3, "new");
    db.commit(tx -> tx.delete("orders", key(1)));
    db.commit(tx -> tx.update("orders", row("order_id", 2, "status", "gone-through")));
    db.cleanup("dbo_orders", db.idle());
    Lsn low = db.client().minLsn("dbo_orders");

    await(builder().onDataLoss("resnapshot").toDelta());

    GenerationState state = CheckpointDir.of(spark, ckpt).readState();
    assertThat(state.generation()).isEqualTo(1);
    // Closing generation 0 rebuilt its last row from bronze.
    Row rebuilt = facts().where("app_id = 'orders' AND event IS NULL AND batch_id = " + last).first();
    assertThat((Long) rebuilt.getAs("rows")).isEqualTo((Long) lostRow.getAs("rows"));
    assertThat((String) rebuilt.getAs("min_lsn")).isEqualTo((String) lostRow.getAs("min_lsn"));
    assertThat((String) rebuilt.getAs("max_lsn")).isEqualTo((String) lostRow.getAs("max_lsn"));
    assertThat((String) rebuilt.getAs("detail")).contains("facts row rebuilt from");
    String text = Files.readString(Path.of(ckpt, "_mssql_cdc_generation.json"));
    assertThat(text).matches("\\{\"generation\": 1, \"snapshot_lsn\": \"0x[0-9A-F]{20}\", \"commit_ts\": \"[0-9T:.-]+\","
        + " \"at\": \"[0-9T:-]+\\+00:00\"}");
    Row resnap = facts().where("event = 'resnapshot'").first();
    assertThat((String) resnap.getAs("app_id")).isEqualTo("orders.g1");
    assertThat((String) resnap.getAs("max_lsn")).isEqualTo(state.snapshotLsn().hex());
    assertThat((Object) resnap.getAs("lost_from_ts"))
        .isEqualTo(java.time.LocalDateTime.ofInstant(committedAt, java.time.ZoneOffset.UTC));
    assertThat((Object) resnap.getAs("lost_to_ts")).as("the retention watermark's commit time when the loss was found")
        .isEqualTo(java.time.LocalDateTime.ofInstant(db.client().commitTimeAtOrBefore(low).orElseThrow(),
            java.time.ZoneOffset.UTC));
    assertThat((Long) resnap.getAs("rows")).isEqualTo(2);
    Row open = facts().where("event = 'snapshot_open'").first();
    assertThat((String) open.getAs("detail")).startsWith("{\"mode\": \"full\", \"kind\": \"resnapshot\", \"generation\": 1");

    // Bronze from the new snapshot on is the table: the row deleted during the gap is gone.
    String s = state.snapshotLsn().hex();
    List<Row> fromSnapshot = bronzeRows().where("_snapshot = '" + s + "' OR (_operation <> 0 AND _start_lsn > '" + s
        + "')").collectAsList();
    assertThat(BronzeImages.latest(fromSnapshot, "order_id", List.of("status"))).isEqualTo(table());
    assertThat(low.isAfter(committed)).isTrue();

    // The new generation's batches are written under <app_id>.g1 from batch 0, none skipped.
    insert(4, "new");
    insert(5, "new");
    await(builder().onDataLoss("resnapshot").option("maxCommitsPerBatch", "1").toDelta());
    List<Row> g1 = facts().where("app_id = 'orders.g1' AND event IS NULL").orderBy("batch_id").collectAsList();
    assertThat(g1).isNotEmpty();
    assertThat(g1.stream().map(r -> (Long) r.getAs("batch_id")).toList())
        .isEqualTo(java.util.stream.LongStream.range(0, g1.size()).boxed().toList());
    assertThat(bronzeRows().where("order_id IN (4, 5) AND _operation = 2").count()).isEqualTo(2);
    assertThat(Files.isDirectory(Path.of(ckpt, "_generations", "1", "commits"))).isTrue();

    // A later start with onDataLoss=fail stays in generation 1.
    insert(6, "new");
    await(builder().toDelta());
    assertThat(facts().where("app_id = 'orders.g1' AND event IS NULL").count()).isGreaterThan(g1.size());
    assertThat(bronzeRows().where("order_id = 6").count()).isEqualTo(1);
    assertThat(facts().where("app_id = 'orders' AND event IS NULL AND batch_id > " + last).count()).isZero();
  }

  @Test
  void aSecondLossInsideTheIntervalFailsAndFailModeNamesTheRange() throws Exception {
    insert(1, "new");
    await(builder().onDataLoss("resnapshot").toDelta());
    insert(2, "new");
    db.cleanup("dbo_orders", db.idle());
    await(builder().onDataLoss("resnapshot").toDelta());
    assertThat(CheckpointDir.of(spark, ckpt).readState().generation()).isEqualTo(1);

    insert(3, "new");
    db.cleanup("dbo_orders", db.idle());
    // Not yet committed by the generation's stream: the loss is after the snapshot's stamp.
    assertThatThrownBy(() -> builder().onDataLoss("resnapshot").toDelta())
        .hasMessageContaining("MSSQL_CDC-250")
        .hasMessageContaining("less than resnapshotIntervalDays=7.0 ago")
        .hasMessageContaining("rerun with a smaller resnapshotIntervalDays");

    // With onDataLoss=fail the stream itself fails, naming the lost range.
    assertThatThrownBy(() -> await(builder().toDelta()))
        .hasStackTraceContaining("MSSQL_CDC-200")
        .hasStackTraceContaining("is gone (min_lsn is now");

    // resnapshotIntervalDays=0 re-snapshots now.
    await(builder().onDataLoss("resnapshot").resnapshotIntervalDays(0).toDelta());
    assertThat(CheckpointDir.of(spark, ckpt).readState().generation()).isEqualTo(2);
    assertThat(facts().where("event = 'resnapshot'").select("app_id").orderBy("app_id").collectAsList().stream()
        .map(r -> r.getString(0)).toList()).containsExactly("orders.g1", "orders.g2");
  }

  @Test
  void aCaptureInstanceSwitchAddsTheNewColumnWithItsEventRow() throws Exception {
    insert(1, "new");
    db.addColumn("dbo.orders", "note varchar(20)");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    db.commit(tx -> tx.insert("orders", row("order_id", 2, "status", "new", "note", "hello")));
    await(builder().toDelta());
    assertThat(List.of(bronzeRows().columns())).contains("note");
    assertThat(bronzeRows().where("order_id = 2 AND _operation = 2").first().<String>getAs("note")).isEqualTo("hello");
    Row e = facts().where("event = 'capture_instance_switched'").first();
    assertThat((String) e.getAs("detail")).contains("dbo_orders -> dbo_orders_v2");
    // The switch event belongs to the batch that read the newer instance's first change.
    assertThat((Long) e.getAs("batch_id"))
        .isEqualTo(bronzeRows().where("order_id = 2 AND _operation = 2").first().<Integer>getAs("_batch_id").longValue());
  }

  @Test
  void snapshotOnSwitchAppendsASnapshotAfterTheSwitchBatch() throws Exception {
    insert(1, "new");
    db.addColumn("dbo.orders", "note varchar(20)");
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "new", "note", "n1")));
    await(builder().snapshotOnSwitch(true).toDelta());
    List<Row> snap = bronzeRows().where("_operation = 0").collectAsList();
    assertThat(snap).hasSize(1);
    assertThat(snap.get(0).<String>getAs("note")).isEqualTo("n1");
  }

  @Test
  void aGenerationStateWrittenByTheReferenceIsContinued() throws Exception {
    insert(1, "new");
    Lsn l = insert(2, "new");
    insert(3, "new");
    Files.createDirectories(Path.of(ckpt));
    Files.writeString(Path.of(ckpt, "_mssql_cdc_generation.json"), "{\"generation\": 1, \"snapshot_lsn\": \""
        + l.hex() + "\", \"commit_ts\": \"2026-09-28T13:58:00.000\", \"at\": \"2026-10-05T15:15:54+00:00\"}");
    await(builder().toDelta());
    assertThat(bronzeRows().select("order_id").collectAsList().stream().map(r -> r.getInt(0)).toList())
        .containsExactly(3);
    assertThat(facts().where("event IS NULL").select("app_id").distinct().collectAsList().stream()
        .map(r -> r.getString(0)).toList()).containsExactly("orders.g1");
  }

  @Test
  void argumentsAreCheckedBeforeAnythingIsWritten() {
    assertThatThrownBy(() -> builder().appId(null).toDelta()).hasMessageContaining("MSSQL_CDC-102")
        .hasMessageContaining("'appId' is required");
    assertThatThrownBy(() -> builder().factsTable(null).onDataLoss("resnapshot").toDelta())
        .hasMessageContaining("MSSQL_CDC-150").hasMessageContaining("onDataLoss=resnapshot needs a factsTable");
    assertThatThrownBy(() -> builder().onDataLoss("resnapshot").option("failOnDataLoss", "false").toDelta())
        .hasMessageContaining("needs failOnDataLoss true, not 'false'");
    assertThatThrownBy(() -> builder().onDataLoss("resnapshot").checkpoint("abfss://c@a.dfs.core.windows.net/x")
        .toDelta()).hasMessageContaining("not a URI or /dbfs/");
    assertThatThrownBy(() -> builder().bootstrap(true).option("startingLsn", "earliest").toDelta())
        .hasMessageContaining("bootstrap=true sets startingLsn itself");
    assertThatThrownBy(() -> builder().onDataLoss("sometimes")).hasMessageContaining("MSSQL_CDC-100")
        .hasMessageContaining("Option 'onDataLoss' must be 'fail' or 'resnapshot', not 'sometimes'");
    assertThatThrownBy(() -> builder().snapshot("chunked").factsTable(null).toDelta())
        .hasMessageContaining("snapshot=chunked needs a factsTable");
    assertThatThrownBy(() -> builder().trigger("continuous")).hasMessageContaining("Option 'trigger'");
    assertThatThrownBy(() -> builder().option("maxComitsPerBatch", "3").toDelta())
        .hasMessageContaining("did you mean 'maxCommitsPerBatch'");
    assertThatThrownBy(() -> builder().startMany(List.of("dbo_orders")))
        .hasMessageContaining("MSSQL_CDC-151").hasMessageContaining("must contain '{ci}'");
    assertThat(Files.exists(Path.of(facts))).isFalse();
    assertThat(Files.exists(Path.of(bronze))).isFalse();
  }
}
