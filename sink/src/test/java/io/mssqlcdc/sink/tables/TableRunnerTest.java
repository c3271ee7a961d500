package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsTable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Creating and migrating the library's tables with real Delta. */
@Tag("slow")
@Tag("spark")
class TableRunnerTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  /** The facts columns a table at {@code version} has, in the order the reference's releases created them. */
  private static StructType factsAtVersion(int version) {
    List<FactsColumn> base = new ArrayList<>(List.of(FactsColumn.APP_ID, FactsColumn.BATCH_ID, FactsColumn.ROWS,
        FactsColumn.MIN_LSN, FactsColumn.MAX_LSN, FactsColumn.MIN_COMMIT_TS, FactsColumn.MAX_COMMIT_TS,
        FactsColumn.DELETES, FactsColumn.INSERTS, FactsColumn.UPDATES, FactsColumn.STARTED_AT, FactsColumn.DURATION_MS,
        FactsColumn.TARGET, FactsColumn.WRITTEN_AT));
    List<StructField> fields = new ArrayList<>(base.stream().map(FactsColumn::field).toList());
    for (int v = 1; v <= version; v++) {
      fields.addAll(FactsTable.KIND.migrations().get(v - 1).addColumns());
    }
    return new StructType(fields.toArray(StructField[]::new));
  }

  @Test
  void aFactsTableOfAnOlderReleaseIsMigratedAndARerunChangesNothing() {
    TableRef t = TableRef.of(tmp.resolve("facts").toString());
    DeltaTables.create(spark, t, factsAtVersion(5), "old comment", java.util.Map.of(TableRunner.SCHEMA_VERSION, "5"));
    assertThat(DeltaTables.schema(spark, t).fieldNames()).doesNotContain("detail");

    TableRunner.ensure(spark, t, FactsTable.KIND, FactsTable.schema());
    StructType after = DeltaTables.schema(spark, t);
    assertThat(Arrays.stream(after.fieldNames()).sorted().toList())
        .isEqualTo(Arrays.stream(FactsTable.schema().fieldNames()).sorted().toList());
    assertThat(after.apply("detail").getComment().get()).isEqualTo(FactsColumn.DETAIL.comment());
    assertThat(after.apply("rows").getComment().get()).isEqualTo(FactsColumn.ROWS.comment());
    assertThat(DeltaTables.properties(spark, t)).containsEntry(TableRunner.SCHEMA_VERSION, "12");
    long version = DeltaTables.version(spark, t);

    TableRunner.ensure(spark, t, FactsTable.KIND, FactsTable.schema());
    assertThat(DeltaTables.version(spark, t)).isEqualTo(version);
  }

  @Test
  void anUnstampedTableIsVersionZeroAndANewerOneIsWrittenAsItIs() {
    TableRef t = TableRef.of(tmp.resolve("facts0").toString());
    DeltaTables.create(spark, t, factsAtVersion(0), null, java.util.Map.of());
    assertThat(TableRunner.migrate(spark, t, FactsTable.KIND)).isEqualTo(12);
    assertThat(DeltaTables.schema(spark, t).fieldNames()).contains("source_rtt_ms", "detail", "end_lsn");

    TableRef newer = TableRef.of(tmp.resolve("facts99").toString());
    DeltaTables.create(spark, newer, FactsTable.schema(), null, java.util.Map.of(TableRunner.SCHEMA_VERSION, "99"));
    assertThat(TableRunner.migrate(spark, newer, FactsTable.KIND)).isEqualTo(99);

    TableRef required = TableRef.of(tmp.resolve("factsMin").toString());
    DeltaTables.create(spark, required, FactsTable.schema(), null,
        java.util.Map.of(TableRunner.SCHEMA_VERSION, "14", TableRunner.MIN_VERSION, "13"));
    assertThatThrownBy(() -> TableRunner.migrate(spark, required, FactsTable.KIND))
        .hasMessageContaining("MSSQL_CDC-703").hasMessageContaining("needs a release that knows 13 facts migrations");
  }

  @Test
  void twoConcurrentFirstWritersEndWithOneTable() throws Exception {
    TableRef t = TableRef.of(tmp.resolve("race").toString());
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        fs.add(pool.submit(() -> {
          go.await();
          TableRunner.ensure(spark, t, FactsTable.KIND, FactsTable.schema());
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(DeltaTables.schema(spark, t).catalogString()).isEqualTo(FactsTable.schema().catalogString());
    assertThat(DeltaTables.properties(spark, t)).containsEntry(TableRunner.SCHEMA_VERSION, "12");
  }

  /**
   * The loser of a first-writer race finds the winner's log directory there and its first commit
   * not yet: Delta fails the CREATE with an AnalysisException (DELTA_TABLE_NOT_FOUND here;
   * DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION in the race of the test above), which Java sees as
   * a checked exception. The CREATE waits for the winner's table and adopts it instead of failing.
   * The half-created state is made by hand, and the test waits for the refused CREATE through a
   * QueryExecutionListener.
   */
  @Test
  void aCreateThatFindsAnotherWritersTableHalfCreatedAdoptsIt() throws Exception {
    Path dir = tmp.resolve("pending");
    java.nio.file.Files.createDirectories(dir.resolve("_delta_log"));
    Path stray = java.nio.file.Files.writeString(dir.resolve("_delta_log").resolve(".00000000000000000000.json.tmp"), "{}");
    TableRef t = TableRef.of(dir.toString());
    CountDownLatch refused = new CountDownLatch(1);
    org.apache.spark.sql.util.QueryExecutionListener listener = new org.apache.spark.sql.util.QueryExecutionListener() {
      @Override
      public void onSuccess(String funcName, org.apache.spark.sql.execution.QueryExecution qe, long durationNs) {}

      @Override
      public void onFailure(String funcName, org.apache.spark.sql.execution.QueryExecution qe, Exception exception) {
        String m = String.valueOf(exception.getMessage());
        if (m.contains(dir.toString()) && (m.contains("DELTA_TABLE_NOT_FOUND") || m.contains("DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION"))) {
          refused.countDown();
        }
      }
    };
    spark.listenerManager().register(listener);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Boolean> loser = pool.submit(() -> DeltaTables.create(spark, t, FactsTable.schema(), null, java.util.Map.of()));
      assertThat(refused.await(60, java.util.concurrent.TimeUnit.SECONDS)).as("the first CREATE was refused").isTrue();
      java.nio.file.Files.delete(stray); // the winner's CREATE lands (here: this thread's)
      java.nio.file.Files.delete(dir.resolve("_delta_log"));
      DeltaTables.create(spark, t, FactsTable.schema(), null, java.util.Map.of());
      loser.get(); // returns (created or adopted) instead of failing
    } finally {
      spark.listenerManager().unregister(listener);
      pool.shutdownNow();
    }
    assertThat(DeltaTables.schema(spark, t).catalogString()).isEqualTo(FactsTable.schema().catalogString());
  }

  @Test
  void conflictsAreRecognisedByClassAndMessage() {
    assertThat(DeltaConflicts.isConflict(new RuntimeException("wrapped",
        new io.delta.exceptions.ConcurrentAppendException("x")))).isTrue();
    assertThat(DeltaConflicts.isConflict(new RuntimeException("[DELTA_CONCURRENT_WRITE] ..."))).isTrue();
    assertThat(DeltaConflicts.isConflict(new io.delta.exceptions.ProtocolChangedException("x"))).isFalse();
    assertThat(DeltaConflicts.isConflict(new IllegalStateException("other"))).isFalse();
  }
}
