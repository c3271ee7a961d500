package io.mssqlcdc.reconcile;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.pipeline.BackfillStatus;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reconcile's chunk checks over a chunked snapshot the sink's {@code backfill()} wrote (not
 * hand-written facts): a clean one passes every check and matches; a chunk whose bronze rows were
 * removed by hand is reported as {@code CHUNK_ROWS} (reference-behaviour §17 step 9, issue 14 item 4).
 */
@Tag("slow")
@Tag("spark")
class ChunkedSnapshotReconcileTest {
  @TempDir Path tmp;

  @Test
  void aBackfilledSnapshotPassesTheChunkChecksAndATamperedChunkIsReported() throws Exception {
    ReconcileFixture f = new ReconcileFixture(tmp, "dbo_orders");
    f.db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    f.db.enableCdc("dbo", "orders");
    f.db.commit(tx -> {
      for (int i = -40; i < 80; i++) {
        tx.insert("orders", row("order_id", i, "status", "new"));
      }
    });
    CdcStream.Builder stream = CdcStream.builder(ReconcileFixture.SPARK).options(f.options()).target(f.bronze)
        .appId("t").checkpoint(f.checkpoint).factsTable(f.facts).trigger("availableNow").attach(f.tracking)
        .snapshot("chunked").option("numPartitions", "2");
    stream.bootstrap(true).toDelta().awaitTermination();
    f.db.commit(tx -> tx.update("orders", row("order_id", 7, "status", "paid")).delete("orders", key(-3)));
    BackfillStatus st = stream.backfill().chunkRows(30).targetWaveSeconds(0).run();
    assertThat(st.state()).isEqualTo("done");
    assertThat(st.chunksTotal()).isGreaterThan(2);
    f.db.commit(tx -> tx.insert("orders", row("order_id", 500, "status", "late")));
    f.pipeline();

    ReconcileResult clean = f.reconcile().bucketRows(20).sample(1.0).run();
    assertThat(clean.failures()).isEmpty();
    assertThat(clean.mismatch()).isZero();
    assertThat(clean.inFlight()).isZero();
    assertThat(clean.clean()).isTrue();

    // Chunk 1's rows removed from bronze by hand: its facts row says otherwise.
    f.sql("DELETE FROM " + ReconcileFixture.at(f.bronze) + " WHERE _operation = 0 AND _chunk = 1");
    ReconcileResult tampered = f.reconcile().bucketRows(20).run();
    assertThat(tampered.failures()).containsKey("CHUNK_ROWS");
    assertThat(ReconcileFixture.chunkRows(tampered)).anyMatch(s -> s.startsWith("CHUNK_ROWS") && s.contains(
        "\"chunk\":1,") && s.contains("\"bronze_rows\":0"));
  }
}
