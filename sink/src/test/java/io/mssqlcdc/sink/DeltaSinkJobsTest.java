package io.mssqlcdc.sink;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many Spark jobs a micro-batch of {@link DeltaSink} runs (counted by a listener from the
 * batch id Spark stamps on every job of the query's thread), so the per-batch work cannot grow
 * back unnoticed. An upper bound on jobs, not a timing: the machines are shared.
 *
 * <p>The budget of a batch that follows its predecessor: the bronze append, which reads the batch
 * once and counts it through an observation. Its {@code txnVersion} check needs no Spark job: the
 * sink committed the previous batch itself, so it knows the app id's version there and reads only
 * the commits since from the log (TxnAppend, docs/decisions/0014); Delta 4.4's own check computes
 * the table's state (three jobs), as Delta's own streaming sink does on every batch (4 jobs a batch
 * in the bench). Its facts append (one job, no txn key: no state jobs) runs off the batch's path,
 * while Spark commits the batch and plans the next (docs/decisions/0012). The first batch of a run
 * asks Delta (the three state jobs), writes its facts on its path and adds the rewind check (a scan
 * of the facts table) and, where the planner did not count the batch's rows, an emptiness check.
 */
@Tag("spark")
class DeltaSinkJobsTest {
  /** Bronze's write, which counts the batch; the facts write is off the path. */
  static final int STEADY_BATCH_JOBS = 1;
  /** A facts commit off the path: the rows of every steady batch since the last (decision 0013). */
  static final int OFF_PATH_FACTS_JOBS = 1;
  /**
   * A run's first batch on existing tables: the steady budget + Delta's state of bronze for the
   * {@code txnVersion} check (3) + its facts append (1) + the rewind check's scan (2 jobs) + the
   * emptiness check where the planner did not count the batch's rows (1).
   */
  static final int FIRST_BATCH_JOBS = STEADY_BATCH_JOBS + 7;

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void aBatchRunsAFixedBudgetOfSparkJobs() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    insert(db, 0, 4);
    String bronze = tmp.resolve("bronze").toString();
    String facts = tmp.resolve("facts").toString();
    try (BatchJobs jobs = BatchJobs.on(spark)) {
      // First run: batch 0 creates both tables, batches 1-3 follow their predecessor.
      Map<Long, List<String>> first = jobs.of(run(db, sink(bronze, facts)));
      assertThat(first.keySet()).containsExactly(0L, 1L, 2L, 3L);
      for (long b = 1; b <= 3; b++) {
        assertThat(first.get(b)).as("jobs of batch %d (a steady batch)", b).hasSizeLessThanOrEqualTo(STEADY_BATCH_JOBS);
      }
      // A restart on the same checkpoint, a new sink instance: its first batch checks for a rewind.
      insert(db, 10, 3);
      Map<Long, List<String>> second = jobs.of(run(db, sink(bronze, facts)));
      assertThat(second.keySet()).contains(4L, 5L, 6L);
      assertThat(second.get(4L)).as("jobs of batch 4 (a run's first)").hasSizeLessThanOrEqualTo(FIRST_BATCH_JOBS);
      for (long b = 5; b <= 6; b++) {
        assertThat(second.get(b)).as("jobs of batch %d (a steady batch)", b).hasSizeLessThanOrEqualTo(STEADY_BATCH_JOBS);
      }
      Map<Long, List<String>> offPath = jobs.offPath();
      // Each off-path commit holds the steady batches since the last (decision 0013), named by its last; each run's
      // last batch is in the last one (its stop commits what is held).
      assertThat(offPath.keySet()).as("the last batch of each facts commit off the path").isSubsetOf(1L, 2L, 3L, 5L, 6L)
          .contains(3L, 6L);
      offPath.forEach((b, sites) -> assertThat(sites).as("facts jobs of batch %d", b)
          .hasSizeLessThanOrEqualTo(OFF_PATH_FACTS_JOBS));
    }
    // The work was done: one bronze row per change, one facts row per batch.
    assertThat(spark.read().format("delta").load(bronze).count()).isEqualTo(7);
    assertThat(spark.read().format("delta").load(facts).where("event IS NULL").count()).isEqualTo(7);
  }

  private static void insert(FakeCdcDatabase db, int from, int n) {
    for (int i = from; i < from + n; i++) {
      int id = i;
      db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "new")));
    }
  }

  private static DeltaSink sink(String bronze, String facts) {
    return DeltaSink.builder().target(bronze).appId("orders").factsTable(facts).build();
  }

  /** One Trigger.AvailableNow run, one commit per batch; returns the query id. */
  private String run(FakeCdcDatabase db, DeltaSink sink) throws Exception {
    StreamingQuery q = spark.readStream().format("mssql_cdc").option("backend", "fake")
        .option("fakePath", db.path().toString()).option("captureInstance", "dbo_orders")
        .option("maxCommitsPerBatch", "1").load()
        .writeStream().foreachBatch(sink).trigger(Trigger.AvailableNow())
        .option("checkpointLocation", tmp.resolve("ckpt").toString()).start();
    q.awaitTermination();
    return q.id().toString();
  }
}
