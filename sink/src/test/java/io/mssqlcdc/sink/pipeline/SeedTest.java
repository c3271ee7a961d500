package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.errors.CdcDataLossException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.BronzeImages;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Seeding bronze from an existing copy of the table, then streaming from its LSN (reference-behaviour §12.7). */
@Tag("slow")
@Tag("spark")
class SeedTest {
  static final LocalDateTime T0 = LocalDateTime.of(2026, 11, 30, 1, 0);

  @TempDir Path tmp;
  FakeCdcDatabase db;
  SparkSession spark = SharedDeltaSpark.spark();
  String bronze;
  String facts;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "note varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commitAt(T0, tx -> {
      for (int i = 1; i <= 20; i++) {
        tx.insert("orders", row("order_id", i, "status", "new", "note", "n" + i));
      }
    });
    bronze = tmp.resolve("bronze").toString();
    facts = tmp.resolve("facts").toString();
  }

  private CdcStream.Builder builder() {
    return CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "dbo_orders").target(bronze).appId("orders")
        .checkpoint(tmp.resolve("ckpt").toString()).factsTable(facts).trigger("availableNow");
  }

  /** The table as it is now, as an export would hold it: other column case, one extra column, no CDC metadata. */
  private Dataset<Row> copy(boolean withNote) {
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : table().entrySet()) {
      rows.add(withNote ? RowFactory.create(Integer.parseInt(e.getKey()), e.getValue().get(0), e.getValue().get(1), "x")
          : RowFactory.create(Integer.parseInt(e.getKey()), e.getValue().get(0), "x"));
    }
    StructType schema = new StructType().add("ORDER_ID", DataTypes.IntegerType).add("Status", DataTypes.StringType);
    schema = withNote ? schema.add("note", DataTypes.StringType) : schema;
    return spark.createDataFrame(rows, schema.add("exported_by", DataTypes.StringType));
  }

  private Map<String, List<String>> table() {
    return BronzeImages.table(db, "dbo", "orders", "order_id", List.of("status", "note"));
  }

  private Dataset<Row> facts() {
    return spark.read().format("delta").load(facts);
  }

  @Test
  void aSeededTargetIsCompletedByTheStreamFromTheSeedsLsn() throws Exception {
    Lsn recorded = db.client().maxLsn().orElseThrow();       // recorded before the copy is taken
    Dataset<Row> copy = copy(true);
    db.commitAt(T0.plusMinutes(5), tx -> tx.update("orders", row("order_id", 3, "status", "paid", "note", "n3"))
        .delete("orders", key(4)).insert("orders", row("order_id", 21, "status", "new", "note", "n21")));

    CdcOffset seeded = builder().seed(copy).asOfLsn(recorded.hex()).run();
    assertThat(seeded.lsn()).isEqualTo(recorded);
    Dataset<Row> b = spark.read().format("delta").load(bronze);
    assertThat(b.columns()).doesNotContain("exported_by", "ORDER_ID");
    assertThat(b.where("_operation = 0 AND _start_lsn = '" + recorded.hex() + "' AND _snapshot = '" + recorded.hex()
        + "' AND _chunk IS NULL AND _seqval IS NULL AND _command_id IS NULL").count()).isEqualTo(20);
    assertThat(b.where("_commit_ts = TIMESTAMP_NTZ'2026-11-30 01:00:00'").count()).isEqualTo(20);
    String meta = DeltaTables.table(spark, TableRef.of(bronze)).history().where("userMetadata LIKE '{\"seed\"%'")
        .first().<String>getAs("userMetadata");
    assertThat(meta).isEqualTo("{\"seed\": \"dbo_orders\", \"lsn\": \"" + recorded.hex()
        + "\", \"commit_ts\": \"2026-11-30T01:00:00.000\"}");
    Row event = facts().where("event = 'bootstrap'").first();
    assertThat((String) event.getAs("max_lsn")).isEqualTo(recorded.hex());
    assertThat((Long) event.getAs("rows")).isEqualTo(20L);

    // The stream finds the seed and starts after it: the commit after the copy arrives once.
    builder().bootstrap(true).toDelta().awaitTermination();
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status", "note"))).isEqualTo(table());
    assertThat(spark.read().format("delta").load(bronze).where("_operation <> 0").count()).isEqualTo(4);
    assertThat(facts().where("event = 'bootstrap'").count()).isEqualTo(1);

    // A rerun at the same LSN appends nothing and returns the same offset.
    long version = DeltaTables.version(spark, TableRef.of(bronze));
    assertThat(builder().seed(copy).asOfLsn(recorded.hex()).run().lsn()).isEqualTo(recorded);
    assertThat(DeltaTables.version(spark, TableRef.of(bronze))).isEqualTo(version);
  }

  @Test
  void aSeedAtAnLsnWithoutACommitTimeWritesAnEmptyCommitTimeAsSnapshotsDo() {
    Lsn second = db.commitAt(T0.plusMinutes(5), tx -> tx.update("orders", row("order_id", 1, "status", "paid",
        "note", "n1")));
    Lsn between = db.client().decrementLsn(second);  // no commit's: sys.fn_cdc_map_lsn_to_time finds none
    assertThat(db.client().commitTime(between)).isEmpty();
    builder().seed(copy(true)).asOfLsn(between.hex()).run();
    String meta = DeltaTables.table(spark, TableRef.of(bronze)).history().where("userMetadata LIKE '{\"seed\"%'")
        .first().<String>getAs("userMetadata");
    assertThat(meta).isEqualTo("{\"seed\": \"dbo_orders\", \"lsn\": \"" + between.hex() + "\", \"commit_ts\": \"\"}");
  }

  @Test
  void asOfATimeStampsTheSeedWithTheLastCommitAtOrBeforeIt() {
    Lsn first = db.client().maxLsn().orElseThrow();
    Lsn second = db.commitAt(T0.plusMinutes(10), tx -> tx.update("orders", row("order_id", 1, "status", "paid",
        "note", "n1")));
    CdcOffset o = builder().seed(copy(true)).asOf("2026-11-30T01:09:59Z").run();
    assertThat(o.lsn()).isEqualTo(first);
    assertThat(spark.read().format("delta").load(bronze).where("_operation = 0").count()).isEqualTo(20);
    // Reseeding with a newer copy (taken after the second commit) is allowed with reseed; an older one is not.
    assertThatThrownBy(() -> builder().seed(copy(true)).asOf(T0.plusMinutes(10).toInstant(ZoneOffset.UTC)).run())
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining(bronze + " already holds a snapshot of dbo_orders at " + first.hex()
            + ": seed an empty target, or with reseed=true a copy newer than it (not " + second.hex() + ")");
    assertThat(builder().seed(copy(true)).asOf("2026-11-30T01:10:00").reseed(true).run().lsn()).isEqualTo(second);
    // An LSN a whole snapshot of the target is stamped with is a rerun of that seed (as the reference): nothing appended.
    long version = DeltaTables.version(spark, TableRef.of(bronze));
    assertThat(builder().seed(copy(true)).asOfLsn(first.hex()).reseed(true).run().lsn()).isEqualTo(first);
    assertThat(DeltaTables.version(spark, TableRef.of(bronze))).isEqualTo(version);
    assertThat(spark.read().format("delta").load(bronze).where("_operation = 0").count()).isEqualTo(40);
  }

  @Test
  void aCopyLackingCapturedColumnsIsRefusedUnlessAllowed() {
    Lsn l = db.client().maxLsn().orElseThrow();
    assertThatThrownBy(() -> builder().seed(copy(false)).asOfLsn(l.hex()).run())
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("The copy lacks captured columns [note] of dbo_orders: pass allowMissingColumns=true");
    assertThat(DeltaTables.exists(spark, TableRef.of(bronze))).isFalse();
    builder().seed(copy(false)).asOfLsn(l.hex()).allowMissingColumns(true).run();
    assertThat(spark.read().format("delta").load(bronze).where("note IS NULL").count()).isEqualTo(20);
  }

  @Test
  void seedsTheSourceCannotContinueAreRefused() {
    Lsn l = db.client().maxLsn().orElseThrow();
    String later = Lsn.parse("0x7fffffff" + "0".repeat(12)).hex();
    assertThatThrownBy(() -> builder().seed(copy(true)).asOfLsn(later).run())
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining(later + " is after sys.fn_cdc_get_max_lsn(): not recorded yet");
    assertThatThrownBy(() -> builder().seed(copy(true)).asOf("2026-11-29T00:00:00Z").run())
        .isInstanceOf(CdcDataLossException.class)
        .hasMessageContaining("dbo_orders: cdc.lsn_time_mapping holds no commit at or before 2026-11-29T00:00:00.000 UTC");
    db.commitAt(T0.plusMinutes(1), tx -> tx.update("orders", row("order_id", 2, "status", "x", "note", "n2")));
    db.cleanup("dbo_orders", db.client().maxLsn().orElseThrow());
    assertThatThrownBy(() -> builder().seed(copy(true)).asOfLsn(l.hex()).run())
        .isInstanceOf(CdcDataLossException.class)
        .hasMessageContaining("dbo_orders: CDC no longer holds the changes after " + l.hex())
        .hasMessageContaining("the copy is older than the CDC retention");
    assertThatThrownBy(() -> builder().seed(copy(true)).run()).hasMessageContaining("asOf");
    assertThat(DeltaTables.exists(spark, TableRef.of(bronze))).isFalse();
  }

  @Test
  void aSeedIsRefusedWhileTheStreamHasASnapshotOpen() throws Exception {
    builder().snapshot("chunked").bootstrap(true).toDelta().awaitTermination();
    Lsn l = db.client().maxLsn().orElseThrow();
    // A seed would put a second copy of the table beside the chunked one being read (either mode blocks it).
    assertThatThrownBy(() -> builder().seed(copy(true)).asOfLsn(l.hex()).run())
        .hasMessageContaining("MSSQL_CDC-704")
        .hasMessageContaining("has a chunked snapshot open at")
        .hasMessageContaining("run backfill() until it is done");
    assertThat(facts().where("event = 'bootstrap'").count()).as("the seed completed nothing").isZero();
  }
}
