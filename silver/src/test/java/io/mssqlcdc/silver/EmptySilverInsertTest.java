package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.tables.DeltaTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rebuild into an empty silver is an insert-only MERGE (issue 13); a rerun after a crash between
 * that MERGE and the control table's commit finds silver's rows and takes the full MERGE.
 */
class EmptySilverInsertTest {
  private static final List<String> COLUMNS = List.of("code", "status");

  @TempDir Path tmp;

  @Test
  void aFirstCallInsertsAndARerunAfterACrashMerges() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    f.db.commit(tx -> tx.insert("orders", row("order_id", 1, "code", 10, "status", "new"))
        .insert("orders", row("order_id", 2, "code", 20, "status", "new"))
        .insert("orders", row("order_id", 3, "code", 30, "status", "new")));
    f.db.commit(tx -> tx.update("orders", row("order_id", 2, "status", "paid")).delete("orders", List.of(3)));
    f.await(f.stream("dbo_orders").toDelta());
    String silver = f.silver("silver");

    // The first call crashes after its MERGE: silver holds the latest images, a key whose latest is a delete not.
    assertThatThrownBy(() -> f.apply(silver, "dbo_orders").onStep(s -> {
      if (s == ApplyChanges.Step.MERGED) {
        throw new IllegalStateException("crash after the MERGE");
      }
    }).run()).hasMessage("crash after the MERGE");
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS))
        .isEqualTo(Map.of("1", List.of("10", "new"), "2", List.of("20", "paid")));
    Map<String, String> insert = lastCommit(silver);
    assertThat(insert.get("operation")).isEqualTo("MERGE");
    assertThat(insert.get("matchedPredicates")).isEqualTo("[]");
    assertThat(insert.get("notMatchedBySourcePredicates")).isEqualTo("[]");
    assertThat(f.controlRow(silver)).doesNotContainKey("applied_lsn"); // the position was not recorded

    // Meanwhile key 1 goes and key 4 comes. The rerun is a rebuild again (no position), into a silver with rows:
    // the full MERGE (deletes, updates, and the rebuild's delete of keys the source lacks).
    f.db.commit(tx -> tx.delete("orders", List.of(1)).insert("orders", row("order_id", 4, "code", 40, "status", "new")));
    f.await(f.stream("dbo_orders").toDelta());
    ApplyResult r = f.apply(silver, "dbo_orders").run();
    assertThat(r.rebuilt()).isTrue();
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS))
        .isEqualTo(Map.of("2", List.of("20", "paid"), "4", List.of("40", "new")));
    Map<String, String> merge = lastCommit(silver);
    assertThat(merge.get("operation")).isEqualTo("MERGE");
    assertThat(merge.get("matchedPredicates")).contains("delete").contains("update");
    assertThat(merge.get("notMatchedBySourcePredicates")).contains("delete");
    assertThat(f.controlRow(silver).get("applied_lsn")).isEqualTo(r.appliedLsn().orElseThrow());

    // A later batch: the usual MERGE, pruned by key.
    f.db.commit(tx -> tx.update("orders", row("order_id", 4, "status", "paid")));
    f.await(f.stream("dbo_orders").toDelta());
    assertThat(f.apply(silver, "dbo_orders").run().rebuilt()).isFalse();
    assertThat(SilverFixture.rows(silver, "order_id", COLUMNS)).isEqualTo(f.table("order_id", COLUMNS));
  }

  /** The operation and parameters of a Delta table's newest commit, read from its history. */
  private static Map<String, String> lastCommit(String table) {
    Row h = DeltaTable.forPath(SilverFixture.SPARK, table).history(1).first();
    Map<String, String> out = new java.util.HashMap<>(
        scala.jdk.javaapi.CollectionConverters.asJava(h.<String, String>getMap(h.fieldIndex("operationParameters"))));
    out.put("operation", h.getString(h.fieldIndex("operation")));
    return out;
  }
}
