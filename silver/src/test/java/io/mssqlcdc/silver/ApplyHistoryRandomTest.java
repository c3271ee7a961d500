package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 31's "done when" on random histories: {@link Workload}'s transactions (several statements each,
 * deletes, reinserts, primary-key updates, moves of the unique {@code code}) streamed to bronze in rounds
 * and applied by ApplyHistory, sometimes crashing after the MERGE; a point-in-time query over the
 * history equals the workload's own model of the table as of every commit since the history's start,
 * keyed by the primary key and by {@code code} (whose updates move rows between keys).
 */
@Tag("slow")
@Tag("spark")
class ApplyHistoryRandomTest {
  @TempDir Path tmp;

  record Commit(Lsn lsn, Map<String, List<String>> byId, Map<String, List<String>> byCode) {}

  @ParameterizedTest(name = "seed {0}, bootstrap {1}")
  @CsvSource({"7, true", "23, false"})
  void aPointInTimeQueryEqualsTheModelAsOfEveryCommit(long seed, boolean bootstrap) throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Workload w = new Workload(f.db, seed);
    Random rnd = new Random(seed * 17 + 3);
    List<Commit> commits = new ArrayList<>();
    String byId = f.silver("history_by_id");
    String byCode = f.silver("history_by_code");
    if (bootstrap) {
      commit(w, 5, commits);
      f.await(f.stream("dbo_orders").bootstrap(true).toDelta());
    }
    for (int round = 0; round < 3; round++) {
      commit(w, 5 + rnd.nextInt(5), commits);
      f.await(f.stream("dbo_orders").option("maxCommitsPerBatch", Integer.toString(1 + rnd.nextInt(3))).toDelta());
      for (String h : List.of(byId, byCode)) {
        if (round == 1 || rnd.nextInt(3) == 0) { // every history crashes at least once
          assertThatThrownBy(() -> call(f, h, byCode).onStep(s -> {
            throw new IllegalStateException("crash after " + s);
          }).run()).hasMessage("crash after MERGED");
        }
        call(f, h, byCode).run();
      }
    }
    String start = (String) f.controlRow(byId).get("snapshot_lsn");
    int checked = 0;
    List<Row> idRows = ApplyHistoryTest.load(byId);
    List<Row> codeRows = ApplyHistoryTest.load(byCode);
    for (Commit c : commits) {
      if (bootstrap && c.lsn().hex().compareTo(start) < 0) {
        continue; // the history starts at the bootstrap's snapshot
      }
      String lsn = c.lsn().hex();
      assertThat(ApplyHistoryTest.asOf(idRows, "order_id", List.of("code", "status"), lsn))
          .as("seed %d, by order_id as of %s", seed, lsn).isEqualTo(c.byId());
      assertThat(ApplyHistoryTest.asOf(codeRows, "code", List.of("order_id", "status"), lsn))
          .as("seed %d, by code as of %s", seed, lsn).isEqualTo(c.byCode());
      checked++;
    }
    assertThat(checked).isGreaterThan(10);
    long version = SilverFixture.version(byId);
    call(f, byId, byCode).run();
    assertThat(SilverFixture.version(byId)).as("a rerun writes nothing").isEqualTo(version);
  }

  static ApplyHistory.Builder call(SilverFixture f, String history, String byCode) {
    return ApplyHistory.builder(SilverFixture.SPARK).bronze(f.bronze).target(history).captureInstance("dbo_orders")
        .keys(List.of(history.equals(byCode) ? "code" : "order_id")).controlTable(f.control).factsTable(f.facts)
        .granularity("minute");
  }

  static void commit(Workload w, int n, List<Commit> out) {
    for (int i = 0; i < n; i++) {
      w.commit(1);
      List<Workload.Commit> all = w.commits();
      Map<String, List<String>> byId = w.rows();
      Map<String, List<String>> byCode = new TreeMap<>();
      byId.forEach((id, v) -> byCode.put(v.get(0), List.of(id, v.get(1))));
      out.add(new Commit(all.get(all.size() - 1).lsn(), byId, byCode));
    }
  }
}
