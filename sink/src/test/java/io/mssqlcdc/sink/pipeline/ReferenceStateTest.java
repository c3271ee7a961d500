package io.mssqlcdc.sink.pipeline;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.BronzeImages;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsTable;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream the Python reference ran is continued here (reference-behaviour §33 point 5): its
 * bronze table at schema version 1 (no {@code _snapshot}/{@code _chunk}), its snapshot written with
 * the reference's {@code userMetadata}, its facts table at version 10 with the bootstrap row and two
 * batch rows written under the reference's txn keys, and its Spark checkpoint (offsets with the
 * reference's JSON). Built from the formats the verified reference source writes.
 */
@Tag("spark")
class ReferenceStateTest {
  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void bronzeFactsAndCheckpointOfTheReferenceAreAdoptedAndContinued() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new")).insert("orders",
        row("order_id", 2, "status", "new")));
    Lsn s = db.client().maxLsn().orElseThrow();                       // the reference's snapshot stamp
    Lsn b0 = db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid")));
    Lsn b1 = db.commit(tx -> tx.insert("orders", row("order_id", 3, "status", "new")));
    db.commit(tx -> tx.delete("orders", io.mssqlcdc.fake.FakeRows.key(2)));   // not read by the reference yet
    String bronze = tmp.resolve("bronze").toString();
    String facts = tmp.resolve("facts").toString();
    Path ckpt = tmp.resolve("ckpt");

    // Bronze at version 1, as the reference's 0.1 created it: no _snapshot, no _chunk.
    StructType v1 = new StructType()
        .add("_capture_instance", DataTypes.StringType).add("_start_lsn", DataTypes.StringType)
        .add("_seqval", DataTypes.StringType).add("_operation", DataTypes.IntegerType)
        .add("_command_id", DataTypes.IntegerType).add("_commit_ts", DataTypes.TimestampNTZType)
        .add("order_id", DataTypes.IntegerType).add("status", DataTypes.StringType)
        .add("_batch_id", DataTypes.IntegerType);
    TableRef bronzeRef = TableRef.of(bronze);
    DeltaTables.create(spark, bronzeRef, v1, "reference bronze", Map.of(TableRunner.SCHEMA_VERSION, "1"));
    LocalDateTime sTs = utc(db.client().commitTime(s).orElseThrow());
    List<Row> snapshot = List.of(
        RowFactory.create("dbo_orders", s.hex(), null, 0, null, sTs, 1, "new", null),
        RowFactory.create("dbo_orders", s.hex(), null, 0, null, sTs, 2, "new", null));
    DeltaTables.append(spark.createDataFrame(snapshot, v1), bronzeRef, Map.of("userMetadata",
        "{\"snapshot\": \"dbo_orders\", \"lsn\": \"" + s.hex() + "\", \"commit_ts\": \"" + MILLIS.format(sTs) + "\"}"));
    DeltaTables.append(spark.createDataFrame(changes(db, s, b0, 0), v1), bronzeRef,
        Map.of("txnAppId", "orders", "txnVersion", "0"));
    DeltaTables.append(spark.createDataFrame(changes(db, b0, b1, 1), v1), bronzeRef,
        Map.of("txnAppId", "orders", "txnVersion", "1"));

    // Facts at version 10 (all 29 columns; 11 and 12 only change comments), with the reference's rows and keys.
    TableRef factsRef = TableRef.of(facts);
    DeltaTables.create(spark, factsRef, FactsTable.schema(), "reference facts", Map.of(TableRunner.SCHEMA_VERSION, "10"));
    DeltaTables.append(spark.createDataFrame(List.of(factsRow("orders", null, 2L, s, sTs, "bootstrap", bronze)),
        FactsTable.schema()), factsRef, Map.of("txnAppId", "orders#events", "txnVersion", "0"));
    DeltaTables.append(spark.createDataFrame(List.of(factsRow("orders", 0L, 2L, b0, utc(db.client().commitTime(b0)
        .orElseThrow()), null, bronze)), FactsTable.schema()), factsRef, Map.of("txnAppId", "orders#facts",
        "txnVersion", "0"));
    DeltaTables.append(spark.createDataFrame(List.of(factsRow("orders", 1L, 1L, b1, utc(db.client().commitTime(b1)
        .orElseThrow()), null, bronze)), FactsTable.schema()), factsRef, Map.of("txnAppId", "orders#facts",
        "txnVersion", "1"));

    // The reference's Spark checkpoint: batches 0 and 1 committed, offsets in the reference's JSON.
    Files.createDirectories(ckpt.resolve("offsets"));
    Files.createDirectories(ckpt.resolve("commits"));
    write(ckpt.resolve("metadata"), "{\"id\":\"6a1f0c1e-9d3b-4a57-8f0e-2f6c7d1b8a91\"}");
    Lsn[] ends = {b0, b1};
    for (int b = 0; b < ends.length; b++) {
      write(ckpt.resolve("offsets/" + b), "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1791308365834,\"conf\":"
          + "{\"spark.sql.shuffle.partitions\":\"2\",\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}}\n"
          + "{\"lsn\": \"" + ends[b].hex() + "\", \"commit_ts\": \""
          + MILLIS.format(utc(db.client().commitTime(ends[b]).orElseThrow())) + "\"}");
      write(ckpt.resolve("commits/" + b), "v1\n{\"nextBatchWatermarkMs\":0}");
    }

    CdcStream.builder(spark).option("backend", "fake").option("fakePath", db.path().toString())
        .option("captureInstance", "dbo_orders").target(bronze).appId("orders").checkpoint(ckpt.toString())
        .factsTable(facts).bootstrap(true).onDataLoss("resnapshot").trigger("availableNow")
        .toDelta().awaitTermination();

    // Nothing read twice, nothing missed: the reference's rows plus batch 2 (the delete).
    List<Row> rows = spark.read().format("delta").load(bronze).collectAsList();
    List<String> changes = rows.stream().filter(r -> (Integer) r.getAs("_operation") != 0)
        .map(r -> r.getAs("_start_lsn") + "/" + r.getAs("_seqval") + "/" + r.getAs("_operation")).toList();
    assertThat(changes).hasSize(new HashSet<>(changes).size());
    assertThat(new HashSet<>(changes)).isEqualTo(allChanges(db, s));
    assertThat(rows.stream().filter(r -> (Integer) r.getAs("_operation") == 0).count()).isEqualTo(2);
    assertThat(BronzeImages.latest(spark, bronze, "order_id", List.of("status")))
        .isEqualTo(BronzeImages.table(db, "dbo", "orders", "order_id", List.of("status")));
    // Tables migrated to this release's versions; facts continue at batch 2 with one bootstrap row.
    assertThat(DeltaTables.properties(spark, bronzeRef)).containsEntry(TableRunner.SCHEMA_VERSION, "2");
    assertThat(DeltaTables.properties(spark, factsRef)).containsEntry(TableRunner.SCHEMA_VERSION, "12");
    assertThat(spark.read().format("delta").load(bronze).columns()).contains("_snapshot", "_chunk");
    List<Row> batches = spark.read().format("delta").load(facts).where("event IS NULL").orderBy("batch_id")
        .collectAsList();
    assertThat(batches.stream().map(r -> (Long) r.getAs("batch_id")).toList()).containsExactly(0L, 1L, 2L);
    assertThat(spark.read().format("delta").load(facts).where("event = 'bootstrap'").count()).isEqualTo(1);
    assertThat(spark.read().format("delta").load(facts).where("event = 'resnapshot'").count()).isZero();
    assertThat(CheckpointDir.of(spark, ckpt.toString()).readState().generation()).isZero();
  }

  /** The change rows of (after, upTo] as the reference wrote them to bronze, with {@code _batch_id}. */
  private static List<Row> changes(FakeCdcDatabase db, Lsn after, Lsn upTo, int batchId) {
    List<Row> out = new ArrayList<>();
    try (var c = db.client().changes(new ChangeQuery("dbo_orders", after.increment(), upTo,
        List.of("order_id", "status"), true, 1000))) {
      while (c.next()) {
        out.add(RowFactory.create("dbo_orders", c.startLsn().hex(), c.seqval().hex(), c.operation(), c.commandId(),
            utc(c.commitTime()), c.value(0), c.value(1), batchId));
      }
    }
    return out;
  }

  private static java.util.Set<String> allChanges(FakeCdcDatabase db, Lsn after) {
    java.util.Set<String> out = new HashSet<>();
    try (var c = db.client().changes(new ChangeQuery("dbo_orders", after.increment(), Lsn.MAX, List.of(), true,
        1000))) {
      while (c.next()) {
        out.add(c.startLsn().hex() + "/" + c.seqval().hex() + "/" + c.operation());
      }
    }
    return out;
  }

  private static Row factsRow(String appId, Long batchId, Long rows, Lsn lsn, LocalDateTime ts, String event,
      String target) {
    Object[] v = new Object[FactsColumn.values().length];
    v[FactsColumn.APP_ID.ordinal()] = appId;
    v[FactsColumn.BATCH_ID.ordinal()] = batchId;
    v[FactsColumn.ROWS.ordinal()] = rows;
    v[FactsColumn.MIN_LSN.ordinal()] = lsn.hex();
    v[FactsColumn.MAX_LSN.ordinal()] = lsn.hex();
    v[FactsColumn.END_LSN.ordinal()] = lsn.hex();
    v[FactsColumn.MIN_COMMIT_TS.ordinal()] = ts;
    v[FactsColumn.MAX_COMMIT_TS.ordinal()] = ts;
    v[FactsColumn.END_COMMIT_TS.ordinal()] = ts;
    v[FactsColumn.EVENT.ordinal()] = event;
    v[FactsColumn.TARGET.ordinal()] = target;
    v[FactsColumn.WRITTEN_AT.ordinal()] = LocalDateTime.now(ZoneOffset.UTC);
    return RowFactory.create(v);
  }

  private static LocalDateTime utc(Instant t) {
    return LocalDateTime.ofInstant(t, ZoneOffset.UTC);
  }

  private static void write(Path p, String text) throws java.io.IOException {
    Files.writeString(p, text, StandardCharsets.UTF_8);
  }
}
