package io.mssqlcdc.reconcile;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.BronzeImages;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsTable;
import io.mssqlcdc.sink.pipeline.BackfillStatus;
import io.mssqlcdc.sink.pipeline.CdcStream;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import io.mssqlcdc.sink.tables.TableRunner;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A team switches from the Python reference while its chunked bootstrap is open (issue 26 items
 * 1 and 3): the reference wrote the {@code snapshot_open} facts row, started the stream at S and
 * ran its first micro-batch, empty (facts row without metrics or end offset, no bronze commit,
 * the checkpoint at S). Here {@code backfill()} reads every chunk (throttled on the headroom the
 * source gives), the stream continues on the reference's checkpoint, and silver applied from
 * that bronze equals the source; reconcile agrees.
 */
@Tag("slow")
@Tag("spark")
class SwitchedChunkedSnapshotTest {
  private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS");
  @TempDir Path tmp;

  @Test
  void aChunkedBootstrapTheReferenceLeftOpenCompletesHereAndSilverEqualsTheSource() throws Exception {
    ReconcileFixture f = new ReconcileFixture(tmp, "dbo_orders");
    f.db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    f.db.enableCdc("dbo", "orders");
    f.db.commit(tx -> {
      for (int i = 1; i <= 60; i++) {
        tx.insert("orders", row("order_id", i, "status", "new"));
      }
    });
    Lsn s = f.db.client().maxLsn().orElseThrow();
    LocalDateTime sTs = LocalDateTime.ofInstant(f.db.client().commitTime(s).orElseThrow(), ZoneOffset.UTC);

    // The reference's facts table (version 10): its chunked open and its empty first micro-batch.
    TableRef facts = TableRef.of(f.facts);
    DeltaTables.create(ReconcileFixture.SPARK, facts, FactsTable.schema(), "reference facts",
        Map.of(TableRunner.SCHEMA_VERSION, "10"));
    Map<FactsColumn, Object> open = new TreeMap<>(Map.of(FactsColumn.APP_ID, "t", FactsColumn.ROWS, 60L,
        FactsColumn.MIN_LSN, s.hex(), FactsColumn.MAX_LSN, s.hex(), FactsColumn.END_LSN, s.hex(),
        FactsColumn.MIN_COMMIT_TS, sTs, FactsColumn.MAX_COMMIT_TS, sTs, FactsColumn.END_COMMIT_TS, sTs,
        FactsColumn.EVENT, "snapshot_open", FactsColumn.TARGET, f.bronze));
    open.put(FactsColumn.DETAIL, "{\"mode\": \"chunked\", \"kind\": \"bootstrap\", \"generation\": 0, \"lost_from_ts\":"
        + " null, \"lost_to_ts\": null, \"keys\": [\"order_id\"], \"plan\": {\"kind\": \"int\", \"lo\": 1, \"hi\": 60,"
        + " \"rows\": 60}}");
    append(facts, open, "t#snapshots");
    append(facts, new TreeMap<>(Map.of(FactsColumn.APP_ID, "t", FactsColumn.BATCH_ID, 0L, FactsColumn.ROWS, 0L,
        FactsColumn.DELETES, 0L, FactsColumn.INSERTS, 0L, FactsColumn.UPDATES, 0L, FactsColumn.TARGET, f.bronze)),
        "t#facts");
    // Its checkpoint: batch 0 committed at S.
    Path ckpt = Path.of(f.checkpoint);
    Files.createDirectories(ckpt.resolve("offsets"));
    Files.createDirectories(ckpt.resolve("commits"));
    write(ckpt.resolve("metadata"), "{\"id\":\"3c5e8a1f-7b2d-4e90-a6c4-1d8f2b7e9a35\"}");
    write(ckpt.resolve("offsets/0"), "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1791308365834,\"conf\":"
        + "{\"spark.sql.shuffle.partitions\":\"2\",\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}}\n"
        + "{\"lsn\": \"" + s.hex() + "\", \"commit_ts\": \"" + MILLIS.format(sTs) + "\"}");
    write(ckpt.resolve("commits/0"), "v1\n{\"nextBatchWatermarkMs\":0}");

    f.db.commit(tx -> tx.update("orders", row("order_id", 5, "status", "paid")).delete("orders", key(7))
        .insert("orders", row("order_id", 100, "status", "late")));
    CdcStream.Builder stream = CdcStream.builder(ReconcileFixture.SPARK).options(f.options()).target(f.bronze)
        .appId("t").checkpoint(f.checkpoint).factsTable(f.facts).trigger("availableNow").attach(f.tracking)
        .snapshot("chunked").bootstrap(true).option("numPartitions", "2");
    stream.toDelta().awaitTermination();
    // The throttle on: before the stream wrote a batch with a headroom, the source gives it (0 h, not below 0).
    BackfillStatus st = stream.backfill().chunkRows(20).minHeadroomHours(0).targetWaveSeconds(0).run();
    assertThat(st.state()).isEqualTo("done");
    assertThat(st.chunksDone()).isEqualTo(st.chunksTotal()).isGreaterThan(2L);
    f.db.commit(tx -> tx.update("orders", row("order_id", 12, "status", "shipped")).delete("orders", key(30)));
    stream.toDelta().awaitTermination();
    f.apply();

    Map<String, List<String>> source = BronzeImages.table(f.db, "dbo", "orders", "order_id", List.of("status"));
    Map<String, List<String>> silver = new TreeMap<>();
    for (Row r : ReconcileFixture.SPARK.read().format("delta").load(f.silver).select("order_id", "status")
        .collectAsList()) {
      silver.put(String.valueOf(r.getInt(0)), java.util.Arrays.asList(r.getString(1)));
    }
    assertThat(silver).isEqualTo(source).hasSize(59);
    assertThat(f.reconcile().sample(1.0).run().clean()).isTrue();
    // The reference's batch 0 and ours after it, once each; one completion row.
    assertThat(ReconcileFixture.SPARK.read().format("delta").load(f.facts).where("event IS NULL").orderBy("batch_id")
        .collectAsList().stream().map(r -> r.<Long>getAs("batch_id")).toList()).containsExactly(0L, 1L, 2L);
    assertThat(ReconcileFixture.SPARK.read().format("delta").load(f.facts).where("event = 'bootstrap'").count())
        .isEqualTo(1);
  }

  private static void append(TableRef facts, Map<FactsColumn, Object> values, String txnAppId) {
    Object[] v = new Object[FactsColumn.values().length];
    values.forEach((c, x) -> v[c.ordinal()] = x);
    v[FactsColumn.WRITTEN_AT.ordinal()] = LocalDateTime.now(ZoneOffset.UTC);
    DeltaTables.append(ReconcileFixture.SPARK.createDataFrame(List.of(RowFactory.create(v)), FactsTable.schema()),
        facts, Map.of("txnAppId", txnAppId, "txnVersion", "0"));
  }

  private static void write(Path p, String text) throws java.io.IOException {
    Files.writeString(p, text, StandardCharsets.UTF_8);
  }
}
