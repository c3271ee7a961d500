package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Re-snapshots after CDC retention loss: the history closes the versions a re-snapshot contradicts at
 * its LSN with {@code __gap} true (deleted or changed in the lost range), keeps the versions it
 * confirms, opens versions for what it shows new, and never invents the lost ones; an emptied table's
 * re-snapshot (its facts row alone) closes every version.
 */
@Tag("slow")
@Tag("spark")
class ApplyHistoryResnapshotTest {
  private static final List<String> COLUMNS = List.of("code", "status");

  @TempDir Path tmp;

  private static List<String> versions(String history) {
    List<String> out = new ArrayList<>();
    for (Row r : SilverFixture.SPARK.read().format("delta").load(history).orderBy("order_id", "__from_lsn")
        .collectAsList()) {
      out.add(r.getAs("order_id") + " " + r.getAs("status") + (r.getAs("__to_lsn") == null ? " open" : " closed")
          + ((boolean) r.getAs("__gap") ? " gap" : ""));
    }
    return out;
  }

  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);

  /** Orders 1-4 (status "new") committed at T + 10 s .. T + 40 s and streamed to bronze. */
  private SilverFixture fourOrders() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    for (int i = 1; i <= 4; i++) {
      int id = i;
      f.db.commitAt(T.plusSeconds(10L * i), tx -> tx.insert("orders", row("order_id", id, "code", id, "status",
          "new")));
    }
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    return f;
  }

  @Test
  void versionsAReSnapshotContradictsAreClosedAtItWithAGap() throws Exception {
    SilverFixture f = fourOrders();
    String h = f.silver("history");
    ApplyHistory.Builder call = ApplyHistory.builder(SilverFixture.SPARK).bronze(f.bronze).target(h)
        .captureInstance("dbo_orders").keys(List.of("order_id")).controlTable(f.control).factsTable(f.facts)
        .granularity("minute");
    call.run();

    // Changes the stream never reads: CDC cleanup purges them.
    f.db.commitAt(T.plusSeconds(100), tx -> tx.delete("orders", key(1)).update("orders",
        row("order_id", 2, "status", "paid")));
    f.db.commitAt(T.plusSeconds(110), tx -> tx.insert("orders", row("order_id", 5, "code", 5, "status", "new"))
        .delete("orders", key(3)));
    f.db.cleanup("dbo_orders", f.db.idleAt(T.plusSeconds(120)));
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    ApplyResult r = call.run();
    assertThat(r.rebuilt()).as("the re-snapshot applied").isTrue();
    String s1 = (String) f.controlRow(h).get("snapshot_lsn");
    assertThat(versions(h)).containsExactly("1 new closed gap", "2 new closed gap", "2 paid open",
        "3 new closed gap", "4 new open", "5 new open");
    assertThat(ApplyHistoryTest.asOf(ApplyHistoryTest.load(h), s1)).isEqualTo(f.table("order_id", COLUMNS));
    assertThat(SilverFixture.SPARK.read().format("delta").load(h).where("__gap").select("__to_lsn").distinct()
        .collectAsList().toString()).isEqualTo("[[" + s1 + "]]");

    // The table is emptied and those deletes are purged: the re-snapshot is its facts row alone.
    f.db.commitAt(T.plusSeconds(200), tx -> tx.delete("orders", key(2)).delete("orders", key(4))
        .delete("orders", key(5)));
    f.db.cleanup("dbo_orders", f.db.idleAt(T.plusSeconds(210)));
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").resnapshotIntervalDays(0).toDelta());
    assertThat(call.run().rebuilt()).isTrue();
    String s2 = (String) f.controlRow(h).get("snapshot_lsn");
    assertThat(s2).isGreaterThan(s1);
    assertThat(ApplyHistoryTest.asOf(ApplyHistoryTest.load(h), s2)).isEmpty();
    assertThat(versions(h)).containsExactly("1 new closed gap", "2 new closed gap", "2 paid closed gap",
        "3 new closed gap", "4 new closed gap", "5 new closed gap");
    long version = SilverFixture.version(h);
    assertThat(call.run().rebuilt()).isFalse();
    assertThat(SilverFixture.version(h)).isEqualTo(version);
  }

  /**
   * A commit made while a re-snapshot S reads (after its stamp) shows in S's rows and comes to bronze after S. A call
   * that applied S before the stream brought that commit took S's rows for S (the versions before S closed there
   * with a gap); the call that applies the commit corrects them, and the history is then exactly the one a call
   * that had the commit from the start writes: no gap where the key did not change, no version from S where the key
   * was not there, nothing split in two.
   */
  @Test
  void aCorrectedReSnapshotLeavesTheHistoryACallWithTheWholeStreamWrites() throws Exception {
    SilverFixture f = fourOrders();
    String whole = f.silver("history");
    String early = f.silver("history_early");
    java.util.function.Function<String, ApplyHistory.Builder> call = h -> ApplyHistory.builder(SilverFixture.SPARK)
        .bronze(f.bronze).target(h).captureInstance("dbo_orders").keys(List.of("order_id")).controlTable(f.control)
        .factsTable(f.facts).granularity("minute").storeDeletes(true); // without tombstones: the random cases below
    call.apply(whole).run();
    call.apply(early).run();

    // A change the stream never reads (purged), then the re-snapshot, during whose read key 1 is updated, key 4
    // deleted and key 6 inserted.
    f.db.commitAt(T.plusSeconds(100), tx -> tx.update("orders", row("order_id", 2, "status", "paid")));
    f.db.cleanup("dbo_orders", f.db.idleAt(T.plusSeconds(120)));
    f.db.commitBeforeRead(tx -> tx.update("orders", row("order_id", 1, "status", "late")).delete("orders", key(4))
        .insert("orders", row("order_id", 6, "code", 6, "status", "late")));
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    assertThat(call.apply(whole).run().rebuilt()).isTrue();
    String s = (String) f.controlRow(whole).get("snapshot_lsn");
    assertThat(versions(whole)).as("the commit after S is known: only key 2 changed in the gap").containsExactly(
        "1 new closed", "1 late open", "2 new closed gap", "2 paid open", "3 new open", "4 new closed",
        "4 new open" /* the delete's tombstone */, "6 late open");

    // The same re-snapshot applied while bronze lacked the commit (its rows taken out, then put back as the stream
    // wrote them): S's rows stood for S.
    long full = SilverFixture.version(f.bronze);
    SilverFixture.SPARK.sql("DELETE FROM delta.`" + f.bronze + "` WHERE _operation <> 0 AND _start_lsn > '" + s + "'");
    assertThat(call.apply(early).run().rebuilt()).isTrue();
    assertThat(versions(early)).contains("1 new closed gap", "1 late open", "6 late open");
    SilverFixture.SPARK.sql("INSERT INTO delta.`" + f.bronze + "` SELECT * FROM delta.`" + f.bronze + "` VERSION AS OF "
        + full + " WHERE _operation <> 0 AND _start_lsn > '" + s + "'");
    call.apply(early).run();
    assertThat(ApplyHistoryTest.all(early)).isEqualTo(ApplyHistoryTest.all(whole));
  }

  /**
   * The same on random workloads ({@link Workload}: several statements a transaction, deletes, reinserts, primary-key
   * updates, moves of the unique code), keyed by the primary key and by {@code code}: transactions committed while the
   * re-snapshot reads; a history that applied the re-snapshot before the stream brought them, crashing after the
   * MERGE of the call that corrects it, ends equal, row for row, to the history that had them from the start.
   */
  @ParameterizedTest(name = "seed {0}, storeDeletes={1}")
  @CsvSource({"5, false", "11, true"})
  void onRandomWorkloadsACorrectedHistoryEqualsTheOneWrittenWithTheWholeStream(long seed, boolean storeDeletes)
      throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Workload w = new Workload(f.db, seed);
    List<String> histories = List.of("by_id", "by_id_early", "by_code", "by_code_early");
    java.util.function.Function<String, ApplyHistory.Builder> call = h -> ApplyHistory.builder(SilverFixture.SPARK)
        .bronze(f.bronze).target(f.silver(h)).captureInstance("dbo_orders")
        .keys(List.of(h.startsWith("by_code") ? "code" : "order_id")).controlTable(f.control).factsTable(f.facts)
        .granularity("minute").storeDeletes(storeDeletes);
    w.commit(8);
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    histories.forEach(h -> call.apply(h).run());

    w.commit(5); // purged: the re-snapshot's gap
    f.db.cleanup("dbo_orders", f.db.idleAt(w.clock().plusSeconds(30)));
    w.commitBeforeRead(4);
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    for (String h : List.of("by_id", "by_code")) {
      assertThat(call.apply(h).run().rebuilt()).isTrue();
    }
    String s = (String) f.controlRow(f.silver("by_id")).get("snapshot_lsn");
    long full = SilverFixture.version(f.bronze);
    SilverFixture.SPARK.sql("DELETE FROM delta.`" + f.bronze + "` WHERE _operation <> 0 AND _start_lsn > '" + s + "'");
    for (String h : List.of("by_id_early", "by_code_early")) {
      assertThat(call.apply(h).run().rebuilt()).isTrue();
    }
    SilverFixture.SPARK.sql("INSERT INTO delta.`" + f.bronze + "` SELECT * FROM delta.`" + f.bronze + "` VERSION AS OF "
        + full + " WHERE _operation <> 0 AND _start_lsn > '" + s + "'");
    for (String h : List.of("by_id_early", "by_code_early")) {
      assertThatThrownBy(() -> call.apply(h).onStep(step -> {
        throw new IllegalStateException("crash after " + step);
      }).run()).hasMessage("crash after MERGED");
      call.apply(h).run();
    }
    for (String key : List.of("by_id", "by_code")) {
      assertThat(ApplyHistoryTest.all(f.silver(key + "_early"))).as("seed %d, %s", seed, key)
          .isEqualTo(ApplyHistoryTest.all(f.silver(key)));
    }
    Map<String, List<String>> now = ApplyHistoryTest.asOf(ApplyHistoryTest.load(f.silver("by_id")), "order_id",
        List.of("code", "status"), "0xFFFFFFFFFFFFFFFFFFFF");
    assertThat(now).as("the history's current versions are the table").isEqualTo(w.rows());
    long version = SilverFixture.version(f.silver("by_id_early"));
    call.apply("by_id_early").run();
    assertThat(SilverFixture.version(f.silver("by_id_early"))).as("a rerun writes nothing").isEqualTo(version);
  }
}
