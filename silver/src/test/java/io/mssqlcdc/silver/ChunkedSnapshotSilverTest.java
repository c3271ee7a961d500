package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.pipeline.BackfillStatus;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole chunked path on the real engine over the fake: a chunked bootstrap, waves read by the
 * sink's {@code backfill()} beside a live writer and the running stream, and silver applying each
 * wave as it lands (reference-behaviour §12.10, §16): silver equals the fake's table at the end,
 * and holds its verdict while the snapshot is open.
 */
@Tag("slow")
@Tag("spark")
class ChunkedSnapshotSilverTest {
  @TempDir Path tmp;

  @Test
  void silverAppliesAChunkedBootstrapWaveByWaveBesideALiveWriter() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    f.db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    f.db.enableCdc("dbo", "orders");
    List<Integer> keys = new ArrayList<>();
    f.db.commit(tx -> {
      for (int i = 1; i <= 200; i++) {
        tx.insert("orders", row("order_id", i, "status", "new"));
        keys.add(i);
      }
    });
    CdcStream.Builder stream = f.stream("dbo_orders").snapshot("chunked").option("numPartitions", "2");
    f.await(stream.bootstrap(true).toDelta());
    String silver = f.silver("silver");
    Random rnd = new Random(5);
    int[] next = {201};
    BackfillStatus st;
    int calls = 0;
    do {
      // The writer: updates, deletes (also of keys no wave has read yet) and inserts across the key space.
      for (int c = 0; c < 6; c++) {
        int k = keys.get(rnd.nextInt(keys.size()));
        switch (c % 3) {
          case 0 -> f.db.commit(tx -> tx.update("orders", row("order_id", k, "status", "paid-" + rnd.nextInt(9))));
          case 1 -> {
            f.db.commit(tx -> tx.delete("orders", key(k)));
            keys.remove(Integer.valueOf(k));
          }
          default -> {
            int id = next[0]++;
            f.db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "late")));
            keys.add(id);
          }
        }
      }
      st = f.stream("dbo_orders").backfill().chunkRows(40).maxWaves(1).targetWaveSeconds(0).run();
      f.await(stream.toDelta());
      f.apply(silver, "dbo_orders").run();
      Map<String, Object> ctl = f.controlRow(silver);
      if (!st.done()) {
        assertThat(ctl.get("open_snapshot_lsn")).isEqualTo(st.snapshot());
        assertThat(ctl.get("finalized_until")).as("the verdict is held while the snapshot is open")
            .isEqualTo("null");
      }
      calls++;
    } while (!st.done() && calls < 20);
    assertThat(st.state()).isEqualTo("done");
    assertThat(calls).isGreaterThan(1);
    // The completion lands; the next call rebuilds from the whole snapshot plus the changes after it.
    f.await(stream.toDelta());
    f.apply(silver, "dbo_orders").run();
    assertThat(SilverFixture.rows(silver, "order_id", List.of("status")))
        .isEqualTo(f.table("order_id", List.of("status")));
    assertThat(f.controlRow(silver)).containsEntry("open_snapshot_lsn", "null");
    // A rerun applies nothing.
    long v = SilverFixture.version(silver);
    f.apply(silver, "dbo_orders").run();
    assertThat(SilverFixture.version(silver)).isEqualTo(v);
  }
}
