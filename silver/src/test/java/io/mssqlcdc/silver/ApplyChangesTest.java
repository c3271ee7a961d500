package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ApplyChanges' arguments, a missing bronze, and the order that keeps the verdict behind what was applied. */
@Tag("spark")
class ApplyChangesTest {
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);
  private static final List<String> COLUMNS = List.of("code", "status");

  @TempDir Path tmp;

  private static void insertAt(SilverFixture f, int id, LocalDateTime at) {
    f.db.commitAt(at, tx -> tx.insert("orders", row("order_id", id, "code", id * 10, "status", "new")));
  }

  @Test
  void argumentsAreCheckedBeforeAnythingIsReadOrWritten() {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    f.db.createTable("dbo", "events", "at datetime2(3)", "what varchar(20)"); // no unique index
    f.db.enableCdc("dbo", "events");
    String silver = f.silver("silver");
    assertThatThrownBy(() -> f.apply(silver, "dbo_orders").granularity("week").run())
        .hasMessageContaining("MSSQL_CDC-760").hasMessageContaining("granularity must be one of ('minute', 'hour',"
            + " 'day'), not 'week'");
    assertThatThrownBy(() -> ApplyChanges.builder(SilverFixture.SPARK).bronze(f.bronze).target(silver)
        .controlTable(f.control).keys(List.of("order_id")).run())
        .hasMessageContaining("MSSQL_CDC-781")
        .hasMessageContaining("pass captureInstance, or the stream's options with captureInstance");
    assertThatThrownBy(() -> ApplyChanges.builder(SilverFixture.SPARK).bronze(f.bronze).target(silver)
        .controlTable(f.control).captureInstance("dbo_orders").run())
        .hasMessageContaining("MSSQL_CDC-782")
        .hasMessageContaining("pass keys, or the stream's options to read them from the capture instance's unique"
            + " index (dbo_orders)");
    assertThatThrownBy(() -> f.apply(silver, "dbo_events").run())
        .hasMessageContaining("MSSQL_CDC-783")
        .hasMessageContaining("dbo_events has no unique index to key rows by: pass keys");
    List<String> blank = new ArrayList<>();
    blank.add(" ");
    assertThatThrownBy(() -> f.apply(silver, "dbo_orders").keys(blank).run())
        .hasMessageContaining("MSSQL_CDC-780").hasMessageContaining("keys must be a list of column names, none blank");
    assertThatThrownBy(() -> f.apply(f.bronze, "dbo_orders").run())
        .hasMessageContaining("MSSQL_CDC-780").hasMessageContaining("is bronze: silver is a table of its own");
    assertThatThrownBy(() -> f.apply(silver, "dbo_orders").bronze(null).run())
        .hasMessageContaining("MSSQL_CDC-780").hasMessageContaining("bronze must be the stream's target");
    assertThatThrownBy(() -> f.apply(silver, "dbo_orders").controlTable(" ").run())
        .hasMessageContaining("controlTable must be the control table");
    assertThatThrownBy(() -> f.apply(silver, "dbo_orders").option("maxComitsPerBatch", "2").run())
        .hasMessageContaining("MSSQL_CDC-101").hasMessageContaining("did you mean 'maxCommitsPerBatch'");
    assertThat(Files.exists(Path.of(f.control))).isFalse();
    assertThat(Files.exists(Path.of(silver))).isFalse();

    // Bronze not written yet: nothing applied, nothing created but the control table.
    ApplyResult r = f.apply(silver, "dbo_orders").run();
    assertThat(r.bronzeFound()).isFalse();
    assertThat(r.rebuilt()).isFalse();
    assertThat(r.appliedLsn()).isEmpty();
    assertThat(r.finalizedUntil()).isEmpty();
    assertThat(Files.exists(Path.of(silver))).isFalse();
  }

  @Test
  void theVerdictIsBronzesAsReadBeforeBronzeAndIsHeldWithoutFacts() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    insertAt(f, 1, T.plusSeconds(10));
    insertAt(f, 2, T.plusSeconds(40));
    f.await(f.stream("dbo_orders").toDelta());
    assertThat(f.bronzeVerdict()).isEqualTo(T);

    // Not bronze, not silver, keys that are no columns: clear errors.
    assertThatThrownBy(() -> f.apply(f.silver("x"), "dbo_orders").bronze(f.facts).factsTable(null).run())
        .hasMessageContaining("MSSQL_CDC-788").hasMessageContaining("is not a bronze table written by the stream");
    assertThatThrownBy(() -> f.apply(f.silver("x"), "dbo_orders").keys(List.of("id")).run())
        .hasMessageContaining("MSSQL_CDC-784")
        .hasMessageContaining("keys [id] are not captured columns of " + f.bronze + ": [order_id, code, status]");
    assertThatThrownBy(() -> f.apply(f.facts, "dbo_orders").factsTable(null).run())
        .hasMessageContaining("MSSQL_CDC-780").hasMessageContaining("exists but is not a silver table");

    // Without facts the position moves but the verdict is not advanced. Keys match ignoring case.
    String held = f.silver("held");
    ApplyResult h = f.apply(held, "dbo_orders").factsTable(null).keys(List.of("ORDER_ID")).run();
    assertThat(h.rebuilt()).isTrue();
    assertThat(h.appliedLsn()).isPresent();
    assertThat(h.finalizedUntil()).isEmpty();
    assertThat(SilverFixture.rows(held, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS));

    // A batch lands after the call read the control table, before it read bronze: the call applies
    // it, but its verdict is the one it read, which that batch's commits are not part of.
    insertAt(f, 3, T.plusSeconds(90));
    String silver = f.silver("silver");
    ApplyResult r = f.apply(silver, "dbo_orders").onStep(step -> {
      if (step == ApplyChanges.Step.CONTROL_READ) {
        insertAt(f, 4, T.plusSeconds(140));
        try {
          f.await(f.stream("dbo_orders").toDelta());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    }).run();
    assertThat(f.bronzeVerdict()).isEqualTo(T.plusMinutes(2));
    assertThat(r.finalizedUntil()).contains(T);
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).containsOnlyKeys("1", "2", "3", "4");
    Map<String, Object> row = f.controlRow(silver);
    assertThat(row.get("end_lsn")).isNotEqualTo("null");
    // The next call moves it to bronze's.
    ApplyResult next = f.apply(silver, "dbo_orders").run();
    assertThat(next.finalizedUntil()).contains(T.plusMinutes(2));
    assertThat(next.appliedLsn()).isEqualTo(r.appliedLsn());
    assertThat(f.controlRow(silver).get("end_lsn")).isEqualTo(f.controlRow(f.bronze).get("end_lsn"));
  }

  /**
   * A first call writes its inserts into its empty silver in one pass (FirstWrite); if another writer commits
   * between the write and its commit (here: an older image of key 1, as an overlapping first call over an older
   * bronze would insert, a blind append, which Delta lets pass), the full MERGE that follows applies key 1's newer
   * image.
   */
  @Test
  void aFirstCallsWriteFallsBackWhenAnotherWriterCommitsFirst() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    insertAt(f, 1, T);
    insertAt(f, 2, T.plusSeconds(10));
    f.await(f.stream("dbo_orders").bootstrap(false).toDelta());
    f.db.commitAt(T.plusSeconds(20), tx -> tx.update("orders", row("order_id", 1, "code", 11, "status", "paid")));
    f.await(f.stream("dbo_orders").toDelta());
    String silver = f.silver("silver");
    java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
    ApplyResult r = f.apply(silver, "dbo_orders").onStep(step -> {
      // Once: the first write, not committed, leaves the call to the MERGE, which reads the emptiness again.
      if (step == ApplyChanges.Step.EMPTY_CHECKED && once.compareAndSet(false, true)) {
        SilverFixture.SPARK.read().format("delta").load(f.bronze).where("order_id = 1 AND _operation = 2")
            .select("order_id", "code", "status", "_start_lsn", "_commit_ts").write().format("delta")
            .mode("append").save(silver);
      }
    }).run();
    assertThat(r.rebuilt()).isTrue();
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS))
        .containsEntry("1", List.of("11", "paid"));
    // Without another writer, the first write is the call's one commit on silver after its creation (no MERGE).
    String alone = f.silver("alone");
    f.apply(alone, "dbo_orders").run();
    assertThat(SilverFixture.SPARK.sql("DESCRIBE HISTORY delta.`" + alone + "`").where("version > 0")
        .select("operation").as(org.apache.spark.sql.Encoders.STRING()).collectAsList()).containsExactly("WRITE");
    assertThat(SilverFixture.rows(alone, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS));
  }
  /**
   * Silver tables applied at the same time share the control table: each call's position, written beside its
   * MERGE (PositionAhead), conflicts with the other's commit in between and is written again; no position is
   * lost or left behind, and each silver equals the source.
   */
  @Test
  @Tag("slow")
  void silversAppliedAtOnceKeepTheirPositionsInOneControlTable() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Workload w = new Workload(f.db, 11);
    w.commit(8);
    f.await(f.stream("dbo_orders").bootstrap(true).toDelta());
    List<String> silvers = List.of(f.silver("a"), f.silver("b"), f.silver("c"));
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(silvers.size());
    try {
      for (int round = 0; round < 2; round++) {
        if (round > 0) {
          w.commit(5);
          f.await(f.stream("dbo_orders").toDelta());
        }
        List<java.util.concurrent.Future<ApplyResult>> calls = new ArrayList<>();
        for (String silver : silvers) {
          calls.add(pool.submit(() -> f.apply(silver, "dbo_orders").run()));
        }
        String applied = null;
        for (java.util.concurrent.Future<ApplyResult> c : calls) {
          String lsn = c.get(5, java.util.concurrent.TimeUnit.MINUTES).appliedLsn().orElseThrow();
          assertThat(applied == null || applied.equals(lsn)).as("every silver applied up to the same change").isTrue();
          applied = lsn;
        }
        for (String silver : silvers) {
          assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS));
          assertThat(f.controlRow(silver).get("applied_lsn")).isEqualTo(applied);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
