package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-snapshots after CDC retention loss (onDataLoss=resnapshot) rebuild silver: rows deleted while
 * the changes were lost disappear, also when the table was emptied and its re-snapshot wrote no row
 * (only its {@code resnapshot} facts row says so). A re-snapshot that wrote rows is found in bronze
 * alone, without the facts.
 */
@Tag("slow")
@Tag("spark")
class ResnapshotRebuildTest {
  private static final List<String> COLUMNS = List.of("code", "status");

  @TempDir Path tmp;

  @Test
  void reSnapshotsRebuildSilverWithoutTheRowsDeletedInTheGap() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    LocalDateTime t = LocalDateTime.of(2026, 3, 1, 10, 0);
    for (int i = 1; i <= 4; i++) {
      int id = i;
      f.db.commitAt(t.plusSeconds(10L * i),
          tx -> tx.insert("orders", row("order_id", id, "code", id, "status", "new")));
    }
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    String silver = f.silver("silver");
    ApplyResult first = f.apply(silver, "dbo_orders").run();
    assertThat(first.rebuilt()).isTrue();
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).containsOnlyKeys("1", "2", "3", "4");
    // A silver applied without the facts finds a re-snapshot that wrote rows in bronze alone.
    String blind = f.silver("silver_without_facts");
    assertThat(f.apply(blind, "dbo_orders").factsTable(null).run().rebuilt()).isTrue();

    // Changes the stream never reads: CDC cleanup purges them, deletes included.
    f.db.commitAt(t.plusSeconds(100), tx -> tx.delete("orders", key(1)).update("orders",
        row("order_id", 2, "status", "paid")));
    f.db.commitAt(t.plusSeconds(110), tx -> tx.insert("orders", row("order_id", 5, "code", 5, "status", "new"))
        .delete("orders", key(3)));
    f.db.cleanup("dbo_orders", f.db.idleAt(t.plusSeconds(120)));
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").toDelta());
    ApplyResult rebuilt = f.apply(silver, "dbo_orders").run();
    assertThat(rebuilt.rebuilt()).isTrue();
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS))
        .containsOnlyKeys("2", "4", "5");
    Map<String, Object> position = f.controlRow(silver);
    String s1 = (String) position.get("snapshot_lsn");
    assertThat(s1).isEqualTo(f.controlRow(silver).get("applied_lsn"));
    assertThat(rebuilt.finalizedUntil()).isPresent();
    ApplyResult fromBronze = f.apply(blind, "dbo_orders").factsTable(null).run();
    assertThat(fromBronze.rebuilt()).as("the re-snapshot's rows in bronze").isTrue();
    assertThat(SilverFixture.rows(blind, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS));
    assertThat(fromBronze.appliedLsn()).isEqualTo(rebuilt.appliedLsn());
    // A first call into a new silver without the facts: the re-snapshot's rows in bronze decide its plan (its
    // write ranks by the aggregation, which sees them, not by the window).
    String fresh = f.silver("fresh_without_facts");
    assertThat(f.apply(fresh, "dbo_orders").factsTable(null).run().appliedLsn()).isEqualTo(rebuilt.appliedLsn());
    assertThat(SilverFixture.rows(fresh, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS));

    // The table is emptied, and those deletes are purged too: the re-snapshot reads no row and writes
    // none to bronze; only its facts row tells silver to rebuild.
    long bronzeVersion = SilverFixture.version(f.bronze);
    f.db.commitAt(t.plusSeconds(200), tx -> tx.delete("orders", key(2)).delete("orders", key(4))
        .delete("orders", key(5)));
    f.db.cleanup("dbo_orders", f.db.idleAt(t.plusSeconds(210)));
    f.await(f.stream("dbo_orders").onDataLoss("resnapshot").resnapshotIntervalDays(0).toDelta());
    assertThat(SilverFixture.version(f.bronze)).as("the empty snapshot wrote no bronze commit")
        .isEqualTo(bronzeVersion);
    ApplyResult emptied = f.apply(silver, "dbo_orders").run();
    assertThat(emptied.rebuilt()).isTrue();
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).isEmpty();
    assertThat(f.table("order_id", COLUMNS)).isEmpty();
    String s2 = (String) f.controlRow(silver).get("snapshot_lsn");
    assertThat(s2).isGreaterThan(s1);
    assertThat(emptied.appliedLsn()).contains(s2);

    // A rerun does not rebuild again.
    long silverVersion = SilverFixture.version(silver);
    ApplyResult again = f.apply(silver, "dbo_orders").run();
    assertThat(again.rebuilt()).isFalse();
    assertThat(SilverFixture.version(silver)).isEqualTo(silverVersion);
  }
}
