package io.mssqlcdc.silver;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.Tx;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ApplyHistory on the real engine over the fake: a scripted history (inserts, updates, several changes
 * of a key in one transaction, deletes, reinserts, a primary-key update, two commits at one commit
 * time) streamed to bronze and applied in two calls; a point-in-time query over the history equals
 * the table as of every commit, by LSN and by time, as the test's own model of the script says. A rerun
 * writes nothing; a crash after the MERGE is repaired by the next call; tombstones and untracked
 * columns.
 */
@Tag("spark")
class ApplyHistoryTest {
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);
  private static final List<String> COLUMNS = List.of("code", "status");

  @TempDir Path tmp;

  /** A commit of the script: its LSN, time, and the table after it (the model: order_id → [code, status]). */
  record Commit(Lsn lsn, LocalDateTime at, Map<String, List<String>> table) {}

  /** The script's table, kept by the test itself (not by the code under test). */
  private static final class Model {
    final TreeMap<String, List<String>> rows = new TreeMap<>();
    final List<Commit> commits = new ArrayList<>();

    void put(int id, Object code, String status) {
      rows.put(String.valueOf(id), List.of(String.valueOf(code), status));
    }

    void commit(SilverFixture f, int second, Consumer<Tx> script, Runnable model) {
      Lsn lsn = f.db.commitAt(T.plusSeconds(second), script);
      model.run();
      commits.add(new Commit(lsn, T.plusSeconds(second), new TreeMap<>(rows)));
    }
  }

  private static void firstHalf(SilverFixture f, Model m) {
    m.commit(f, 10, tx -> tx.insert("orders", row("order_id", 1, "code", 10, "status", "new"))
        .insert("orders", row("order_id", 2, "code", 20, "status", "new")), () -> {
          m.put(1, 10, "new");
          m.put(2, 20, "new");
        });
    // Two changes of one key in one transaction: one version, the last.
    m.commit(f, 20, tx -> tx.update("orders", row("order_id", 1, "status", "paid"))
        .update("orders", row("order_id", 1, "status", "shipped")), () -> m.put(1, 10, "shipped"));
    m.commit(f, 30, tx -> tx.delete("orders", key(2)), () -> m.rows.remove("2"));
    // A reinsert; an insert and an update of a key in one transaction.
    m.commit(f, 40, tx -> tx.insert("orders", row("order_id", 2, "code", 21, "status", "back"))
        .insert("orders", row("order_id", 3, "code", 30, "status", "new"))
        .update("orders", row("order_id", 3, "status", "x")), () -> {
          m.put(2, 21, "back");
          m.put(3, 30, "x");
        });
  }

  private static void secondHalf(SilverFixture f, Model m) {
    // A primary-key update (a delete of the old key and an insert of the new one), then a commit at the same time.
    m.commit(f, 50, tx -> tx.delete("orders", key(1)).insert("orders", row("order_id", 4, "code", 10, "status",
        "shipped")), () -> {
          m.rows.remove("1");
          m.put(4, 10, "shipped");
        });
    m.commit(f, 50, tx -> tx.update("orders", row("order_id", 4, "status", "delivered")),
        () -> m.put(4, 10, "delivered"));
    // A delete and an insert of one key in one transaction.
    m.commit(f, 60, tx -> tx.delete("orders", key(3)).insert("orders", row("order_id", 3, "code", 32, "status",
        "re")), () -> m.put(3, 32, "re"));
    m.commit(f, 70, tx -> tx.update("orders", row("order_id", 2, "code", 22)), () -> m.put(2, 22, "back"));
  }

  private static ApplyHistory.Builder history(SilverFixture f, String target) {
    return ApplyHistory.builder(SilverFixture.SPARK).bronze(f.bronze).target(target).captureInstance("dbo_orders")
        .keys(List.of("order_id")).controlTable(f.control).factsTable(f.facts).granularity("minute");
  }

  /** The history's rows (read once; the point-in-time filters below run on them, as the SQL query would). */
  static List<Row> load(String history) {
    return SilverFixture.SPARK.read().format("delta").load(history).collectAsList();
  }

  /** The history as of the commit with LSN {@code lsn}: order_id → [code, status]. */
  static Map<String, List<String>> asOf(List<Row> history, String lsn) {
    return asOf(history, "order_id", COLUMNS, lsn);
  }

  /**
   * The history as of the commit with LSN {@code lsn}: {@code key} → {@code columns}, the rows with
   * {@code __from_lsn <= lsn AND (__to_lsn IS NULL OR __to_lsn > lsn) AND NOT __is_deleted}.
   */
  static Map<String, List<String>> asOf(List<Row> history, String key, List<String> columns, String lsn) {
    return rows(history, key, columns, r -> ((String) r.getAs("__from_lsn")).compareTo(lsn) <= 0
        && (r.getAs("__to_lsn") == null || ((String) r.getAs("__to_lsn")).compareTo(lsn) > 0));
  }

  /** The history as of time {@code t} (UTC): {@code __valid_from <= t AND (__valid_to IS NULL OR __valid_to > t)}. */
  static Map<String, List<String>> asOfTime(List<Row> history, LocalDateTime t) {
    return rows(history, "order_id", COLUMNS, r -> !((LocalDateTime) r.getAs("__valid_from")).isAfter(t)
        && (r.getAs("__valid_to") == null || ((LocalDateTime) r.getAs("__valid_to")).isAfter(t)));
  }

  private static Map<String, List<String>> rows(List<Row> history, String key, List<String> columns,
      Predicate<Row> when) {
    Map<String, List<String>> out = new TreeMap<>();
    for (Row r : history) {
      if (!when.test(r) || (boolean) r.getAs("__is_deleted")) {
        continue;
      }
      List<String> v = new ArrayList<>();
      for (String c : columns) {
        v.add(String.valueOf((Object) r.getAs(c)));
      }
      String k = String.valueOf((Object) r.getAs(key));
      assertThat(out.put(k, v)).as("two versions of key %s at once", k).isNull();
    }
    return out;
  }

  /** Every row of the history, as text, for comparing two histories. */
  static Set<String> all(String history) {
    Set<String> out = new HashSet<>();
    Dataset<Row> d = SilverFixture.SPARK.read().format("delta").load(history);
    for (Row r : d.collectAsList()) {
      out.add(r.toString());
    }
    return out;
  }

  /**
   * The snapshot's stamp comes first (decision 0002): a commit between the stamp S and the read shows in the
   * snapshot's rows and is in the stream after S. The history holds the table as it was at S, then that commit.
   */
  @Test
  void aCommitMadeWhileTheBootstrapReadsIsAVersionOfItsOwn() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Lsn s = f.db.commitAt(T.plusSeconds(10), tx -> tx.insert("orders", row("order_id", 1, "code", 10, "status", "new"))
        .insert("orders", row("order_id", 2, "code", 20, "status", "new")));
    f.db.commitBeforeRead(tx -> tx.update("orders", row("order_id", 1, "status", "late")).delete("orders", key(2))
        .insert("orders", row("order_id", 3, "code", 30, "status", "late")));
    f.await(f.stream("dbo_orders").bootstrap(true).toDelta());
    String h = f.silver("history");

    history(f, h).run();

    List<Row> rows = load(h);
    assertThat(asOf(rows, s.hex())).as("as of the snapshot's LSN").isEqualTo(Map.of("1", List.of("10", "new"),
        "2", List.of("20", "new")));
    String during = rows.stream().filter(r -> (int) r.getAs("order_id") == 3).map(r -> (String) r.getAs("__from_lsn"))
        .findFirst().orElseThrow();
    assertThat(during).isGreaterThan(s.hex());
    assertThat(asOf(rows, during)).as("after the commit made during the read").isEqualTo(Map.of(
        "1", List.of("10", "late"), "3", List.of("30", "late")));
    assertThat(rows.stream().filter(r -> (boolean) r.getAs("__gap"))).isEmpty();
    assertThat(asOf(rows, during)).isEqualTo(f.table("order_id", COLUMNS));

    // A call that ran before the stream brought that commit to bronze (its rows taken out of bronze, then put back
    // as the stream would write them): the snapshot's rows stood for S; the next call corrects them from the first
    // change of each key after S (the image, a key the read did not see, a key it saw too early).
    String early = f.silver("history_early");
    long full = SilverFixture.version(f.bronze);
    SilverFixture.SPARK.sql("DELETE FROM delta.`" + f.bronze + "` WHERE _operation <> 0");
    history(f, early).run();
    assertThat(asOf(load(early), s.hex())).as("the snapshot's rows, taken for S").isEqualTo(Map.of(
        "1", List.of("10", "late"), "3", List.of("30", "late")));
    SilverFixture.SPARK.sql("INSERT INTO delta.`" + f.bronze + "` SELECT * FROM delta.`" + f.bronze + "` VERSION AS OF "
        + full + " WHERE _operation <> 0");
    history(f, early).run();
    List<Row> corrected = load(early);
    assertThat(asOf(corrected, s.hex())).isEqualTo(asOf(rows, s.hex()));
    assertThat(asOf(corrected, during)).isEqualTo(asOf(rows, during));
    assertThat(asOfTime(corrected, T.plusSeconds(10))).isEqualTo(asOf(rows, s.hex()));
  }

  @Test
  void aPointInTimeQueryEqualsTheTableAsOfEveryCommit() throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Model m = new Model();
    String h = f.silver("history");
    String crashed = f.silver("history_crashed");

    firstHalf(f, m);
    f.await(f.stream("dbo_orders").toDelta());
    ApplyResult first = history(f, h).run();
    assertThat(first.rebuilt()).as("no snapshot to apply").isFalse();
    assertThat(first.appliedLsn()).contains(m.commits.get(3).lsn().hex());

    secondHalf(f, m);
    f.await(f.stream("dbo_orders").toDelta());
    ApplyResult second = history(f, h).run();
    assertThat(second.appliedLsn()).contains(m.commits.get(m.commits.size() - 1).lsn().hex());
    assertThat(second.finalizedUntil()).isPresent();

    List<Row> rows = load(h);
    for (int i = 0; i < m.commits.size(); i++) {
      Commit c = m.commits.get(i);
      assertThat(asOf(rows, c.lsn().hex())).as("as of commit %d (%s)", i, c.lsn()).isEqualTo(c.table());
      boolean sharedTime = i + 1 < m.commits.size() && m.commits.get(i + 1).at().equals(c.at());
      if (!sharedTime) {
        assertThat(asOfTime(rows, c.at())).as("as of %s", c.at()).isEqualTo(c.table());
      }
    }
    assertThat(asOfTime(rows, T.plusSeconds(9))).as("before the first commit").isEmpty();
    // The query of docs/HISTORY.md, in SQL, as of the reinsert's commit time.
    List<String> sql = new ArrayList<>();
    for (Row r : SilverFixture.SPARK.sql("SELECT * EXCEPT (__valid_from, __valid_to, __from_lsn, __to_lsn,"
        + " __is_deleted, __gap) FROM delta.`" + h + "` WHERE __valid_from <= TIMESTAMP_NTZ '2026-03-01 10:00:45'"
        + " AND (__valid_to IS NULL OR __valid_to > TIMESTAMP_NTZ '2026-03-01 10:00:45') AND NOT __is_deleted"
        + " ORDER BY order_id").collectAsList()) {
      sql.add(r.toString());
    }
    assertThat(sql).containsExactly("[1,10,shipped]", "[2,21,back]", "[3,30,x]");
    // Key 4's first version, opened and closed by two commits at one time, is valid for no time.
    assertThat(rows.stream().filter(r -> r.getAs("__valid_from").equals(r.getAs("__valid_to")))
        .map(r -> r.getAs("order_id") + " " + r.getAs("status")).toList()).containsExactly("4 shipped");
    assertThat(rows.stream().filter(r -> (boolean) r.getAs("__gap") || (boolean) r.getAs("__is_deleted"))).isEmpty();

    // A rerun writes nothing.
    long version = SilverFixture.version(h);
    Map<String, Object> control = f.controlRow(h);
    ApplyResult again = history(f, h).run();
    assertThat(again.appliedLsn()).isEqualTo(second.appliedLsn());
    assertThat(SilverFixture.version(h)).isEqualTo(version);
    assertThat(f.controlRow(h)).isEqualTo(control);

    // A crash after the first call's MERGE, before the position: the next call re-reads the range and writes the
    // same history (one call over all commits gives the versions two calls gave). A crash with a position behind
    // is ApplyHistoryRandomTest's.
    assertThatThrownBy(() -> history(f, crashed).onStep(s -> {
      throw new IllegalStateException("crash after " + s);
    }).run()).hasMessage("crash after MERGED");
    assertThat(f.controlRow(crashed)).isEmpty();
    assertThat(all(crashed)).isEqualTo(all(h));
    ApplyResult repaired = history(f, crashed).run();
    assertThat(repaired.appliedLsn()).isEqualTo(second.appliedLsn());
    assertThat(all(crashed)).isEqualTo(all(h));

    // Tombstones, and a column whose changes do not open versions (updated in place), all in one call.
    String tomb = f.silver("history_tombstones");
    history(f, tomb).storeDeletes(true).exceptColumns(List.of("CODE")).run();
    List<Row> tombRows = load(tomb);
    List<String> tombstones = new ArrayList<>();
    for (Row r : tombRows) {
      if ((boolean) r.getAs("__is_deleted")) {
        tombstones.add(r.getAs("order_id") + " " + r.getAs("__from_lsn") + " " + r.getAs("__to_lsn"));
      }
    }
    assertThat(tombstones).containsExactlyInAnyOrder("2 " + m.commits.get(2).lsn().hex() + " " + m.commits.get(3).lsn().hex(),
        "1 " + m.commits.get(4).lsn().hex() + " null");
    for (Commit c : m.commits) {
      Map<String, List<String>> status = new TreeMap<>();
      asOf(tombRows, c.lsn().hex()).forEach((k, v) -> status.put(k, List.of(v.get(1))));
      Map<String, List<String>> expected = new TreeMap<>();
      c.table().forEach((k, v) -> expected.put(k, List.of(v.get(1))));
      assertThat(status).as("statuses as of %s", c.lsn()).isEqualTo(expected);
    }
    // A code change alone (commit 8) opened no version: key 2 has [c4, now) with the latest code.
    assertThat(tombRows.stream().filter(r -> (int) r.getAs("order_id") == 2 && !(boolean) r.getAs("__is_deleted")
        && r.getAs("__to_lsn") == null).map(r -> r.getAs("code") + " " + r.getAs("__from_lsn")).toList())
        .containsExactly("22 " + m.commits.get(3).lsn().hex());

    assertThatThrownBy(() -> history(f, f.silver("x")).trackHistoryColumns(List.of("status"))
        .exceptColumns(List.of("code")).run()).hasMessageContaining("MSSQL_CDC-780")
        .hasMessageContaining("pass trackHistoryColumns or exceptColumns, not both");
    assertThatThrownBy(() -> history(f, f.silver("x")).trackHistoryColumns(List.of("state")).run())
        .hasMessageContaining("MSSQL_CDC-780").hasMessageContaining("trackHistoryColumns must be captured columns")
        .hasMessageContaining("(unknown: [state])");
    assertThatThrownBy(() -> history(f, f.bronze).run()).hasMessageContaining("is bronze: history is a table of its"
        + " own");
  }
}
