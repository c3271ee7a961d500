package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.silver.ApplyHistoryRandomTest.Commit;
import io.mssqlcdc.sink.pipeline.BackfillStatus;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chunked bootstrap (waves read by the sink's {@code backfill()} beside the running stream and a live
 * writer, docs/HISTORY.md "Chunked snapshots"): the history waits while the snapshot is open and while the
 * stream has not read to its last wave's stamp, then starts at S with each key's state at S (not at its
 * wave's stamp), and a point-in-time query equals {@link Workload}'s model as of S and every commit after it,
 * keyed by the primary key and by {@code code}, with crashes after the MERGE. A chunked bootstrap whose waves
 * read an emptied table (no chunk row) waits for the stream the same way, and keys deleted after S are
 * present at S, from their deletes' images.
 */
@Tag("slow")
@Tag("spark")
class ApplyHistoryChunkedTest {
  @TempDir Path tmp;

  @Test
  void aChunkedBootstrapIsAppliedAsOfItsLsnOnceTheStreamHasReadPastItsWaves() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Workload w = new Workload(f.db, 41);
    Random rnd = new Random(43);
    List<Commit> commits = new ArrayList<>();
    String byId = f.silver("history_by_id");
    String byCode = f.silver("history_by_code");
    ApplyHistoryRandomTest.commit(w, 12, commits);
    CdcStream.Builder stream = f.stream("dbo_orders").snapshot("chunked").option("numPartitions", "2");
    f.await(stream.bootstrap(true).toDelta());
    BackfillStatus st;
    int waves = 0;
    while (true) {
      // Changes after S, some of them before the wave that reads their keys: its chunk shows them.
      ApplyHistoryRandomTest.commit(w, 2 + rnd.nextInt(3), commits);
      st = f.stream("dbo_orders").backfill().chunkRows(3).maxWaves(1).targetWaveSeconds(0).run();
      waves++;
      if (st.done() || waves > 30) {
        break; // the stream stays behind the last wave's stamp
      }
      f.await(stream.toDelta());
      if (waves == 1) {
        // Chunk rows without the facts that announce them, or under a spelling the facts do not know: refused.
        String other = f.silver("other");
        assertThatThrownBy(() -> ApplyHistoryRandomTest.call(f, other, byCode).factsTable(null).run())
            .hasMessageContaining("MSSQL_CDC-786").hasMessageContaining("holds rows of a chunked snapshot: pass factsTable");
        assertThatThrownBy(() -> ApplyHistoryRandomTest.call(f, other, byCode).bronze(f.bronze + "/").run())
            .hasMessageContaining("MSSQL_CDC-787").hasMessageContaining("has no 'snapshot_open' row for target");
      }
      for (String h : List.of(byId, byCode)) {
        ApplyHistoryRandomTest.call(f, h, byCode).run();
        assertThat(f.controlRow(h).getOrDefault("snapshot_lsn", "null")).as("the snapshot is open").isEqualTo("null");
        assertThat(f.controlRow(h).getOrDefault("finalized_until", "null")).as("the verdict waits").isEqualTo("null");
      }
    }
    assertThat(st.state()).isEqualTo("done");
    assertThat(waves).isGreaterThan(2);
    String s = st.snapshot();
    // Complete, but bronze lacks the changes committed before the last wave: the state at S is not known yet.
    for (String h : List.of(byId, byCode)) {
      ApplyHistoryRandomTest.call(f, h, byCode).run();
      assertThat(f.controlRow(h).getOrDefault("snapshot_lsn", "null")).as("waits for the stream").isEqualTo("null");
    }
    f.await(stream.toDelta());
    ApplyHistoryRandomTest.commit(w, 4, commits);
    f.await(stream.toDelta());
    for (String h : List.of(byId, byCode)) {
      assertThatThrownBy(() -> ApplyHistoryRandomTest.call(f, h, byCode).onStep(x -> {
        throw new IllegalStateException("crash after " + x);
      }).run()).hasMessage("crash after MERGED");
      ApplyResult r = ApplyHistoryRandomTest.call(f, h, byCode).run();
      assertThat(r.rebuilt()).as("the snapshot applied").isTrue();
      assertThat(f.controlRow(h).get("snapshot_lsn")).isEqualTo(s);
    }

    List<Row> idRows = ApplyHistoryTest.load(byId);
    List<Row> codeRows = ApplyHistoryTest.load(byCode);
    int checked = 0;
    for (int i = 0; i < commits.size(); i++) {
      Commit c = commits.get(i);
      boolean atS = i + 1 < commits.size() && commits.get(i + 1).lsn().hex().compareTo(s) > 0
          && c.lsn().hex().compareTo(s) <= 0;
      if (c.lsn().hex().compareTo(s) <= 0 && !atS) {
        continue; // the history starts at S
      }
      // As of S: the table after the last commit at or before it.
      String lsn = atS ? s : c.lsn().hex();
      assertThat(ApplyHistoryTest.asOf(idRows, "order_id", List.of("code", "status"), lsn))
          .as("by order_id as of %s", lsn).isEqualTo(c.byId());
      assertThat(ApplyHistoryTest.asOf(codeRows, "code", List.of("order_id", "status"), lsn))
          .as("by code as of %s", lsn).isEqualTo(c.byCode());
      checked++;
    }
    assertThat(checked).isGreaterThan(10);
    assertThat(idRows.stream().map(r -> (String) r.getAs("__from_lsn")).min(String::compareTo).orElseThrow())
        .as("the history starts at S").isEqualTo(s);
    long version = SilverFixture.version(byId);
    ApplyHistoryRandomTest.call(f, byId, byCode).run();
    assertThat(SilverFixture.version(byId)).as("a rerun writes nothing").isEqualTo(version);
    Map<String, Object> ctl = f.controlRow(byId);
    assertThat(ctl.get("applied_lsn")).isEqualTo(commits.get(commits.size() - 1).lsn().hex());
  }

  /** ApplyHistory into {@code h}, keyed by {@code order_id}. */
  private static ApplyHistory.Builder byId(SilverFixture f, String h) {
    return ApplyHistoryRandomTest.call(f, h, null);
  }

  @Test
  void aChunkedSnapshotWhoseWavesReadAnEmptiedTableTakesAKeyDeletedAfterItFromItsDelete() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    String h = f.silver("history");
    LocalDateTime t = LocalDateTime.of(2026, 3, 1, 10, 0);
    f.db.commitAt(t, tx -> tx.insert("orders", row("order_id", 1, "code", 10, "status", "new")));
    CdcStream.Builder stream = f.stream("dbo_orders").snapshot("chunked");
    f.await(stream.bootstrap(true).toDelta()); // opens S: the table holds key 1
    Lsn in2 = f.db.commitAt(t.plusSeconds(10), tx -> tx.insert("orders", row("order_id", 2, "code", 20, "status",
        "x")));
    f.await(stream.toDelta());
    // Both deleted after S, before the waves read: they find the table empty and write no chunk row.
    Lsn gone = f.db.commitAt(t.plusSeconds(20), tx -> tx.delete("orders", key(1)).delete("orders", key(2)));
    BackfillStatus st = f.stream("dbo_orders").backfill().chunkRows(3).run();
    assertThat(st.state()).isEqualTo("done");
    String s = st.snapshot();
    assertThat(SilverFixture.SPARK.read().format("delta").load(f.bronze).where(CdcColumns.OPERATION + " = 0").count())
        .as("chunk rows").isZero();
    // The stream has not read the delete the waves saw past: the state at S is not known yet.
    byId(f, h).run();
    assertThat(f.controlRow(h).getOrDefault("snapshot_lsn", "null")).as("waits for the stream").isEqualTo("null");

    f.await(stream.toDelta());
    Lsn in3 = f.db.commitAt(t.plusSeconds(30), tx -> tx.insert("orders", row("order_id", 3, "code", 30, "status",
        "y")));
    Lsn gone3 = f.db.commitAt(t.plusSeconds(40), tx -> tx.delete("orders", key(3)));
    f.await(stream.toDelta());
    assertThat(byId(f, h).run().rebuilt()).as("the snapshot applied").isTrue();
    assertThat(f.controlRow(h).get("snapshot_lsn")).isEqualTo(s);

    List<Row> rows = ApplyHistoryTest.load(h);
    assertThat(ApplyHistoryTest.asOf(rows, s)).as("as of S: key 1, from its delete's image")
        .isEqualTo(Map.of("1", List.of("10", "new")));
    assertThat(ApplyHistoryTest.asOf(rows, in2.hex())).isEqualTo(Map.of("1", List.of("10", "new"), "2",
        List.of("20", "x")));
    assertThat(ApplyHistoryTest.asOf(rows, gone.hex())).isEmpty();
    assertThat(ApplyHistoryTest.asOf(rows, in3.hex())).isEqualTo(Map.of("3", List.of("30", "y")));
    assertThat(ApplyHistoryTest.asOf(rows, gone3.hex())).isEmpty();
    assertThat(rows).as("no gap: the delete's LSN is the end").allSatisfy(r -> assertThat((boolean) r.getAs("__gap"))
        .isFalse());
    long version = SilverFixture.version(h);
    byId(f, h).run();
    assertThat(SilverFixture.version(h)).as("a rerun writes nothing").isEqualTo(version);
  }
}
