package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.apache.spark.sql.functions.spark_partition_id;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.FakeProbe;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * numPartitions splitting through the real engine. (Executor memory on a huge transaction is
 * measured by {@link BigTransactionBench}, not asserted by a unit test.)
 */
@Tag("spark")
class PartitioningStreamTest {
  @TempDir Path tmp;

  /** Per batch: rows per Spark partition, distinct ids, rows. */
  record Shape(List<Long> perPartition, long distinct, long rows, BatchReport report) {}

  private static List<Shape> run(Map<String, String> options, Path ckpt) throws Exception {
    List<Shape> shapes = Collections.synchronizedList(new ArrayList<>());
    Dataset<Row> df = SharedSpark.spark().readStream().format("mssql_cdc").options(options).load();
    StreamingQuery q = df.writeStream()
        .foreachBatch((Dataset<Row> batch, Long id) -> {
          Dataset<Row> cached = batch.select(spark_partition_id().as("p"), batch.col("id")).localCheckpoint();
          List<Long> per = cached.groupBy("p").count().orderBy("p").collectAsList().stream()
              .map(r -> r.getLong(1)).toList();
          long distinct = cached.select("id").distinct().count();
          shapes.add(new Shape(per, distinct, cached.count(), BatchEvents.forBatch(id).orElseThrow()));
        })
        .trigger(Trigger.AvailableNow())
        .option("checkpointLocation", ckpt.toString())
        .start();
    q.awaitTermination();
    return shapes;
  }

  @Test
  void numPartitionsSplitsCommitAlignedWithoutDuplicatesBalancedByRows() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    for (int c = 0; c < 24; c++) {
      int base = c * 10_000;
      db.commit(tx -> {
        for (int i = 0; i < 10_000; i++) {
          tx.insert("t", row("id", base + i));
        }
      });
    }
    List<Shape> shapes = run(StreamRuns.options(db.path().toString(), "dbo_t", "numPartitions", "4"), tmp.resolve("c"));
    assertThat(shapes).hasSize(1);
    Shape s = shapes.get(0);
    assertThat(s.report().partitionsPlanned()).isEqualTo(4);
    assertThat(s.perPartition()).containsExactly(60_000L, 60_000L, 60_000L, 60_000L);
    assertThat(s.distinct()).isEqualTo(240_000L);
    assertThat(s.rows()).isEqualTo(240_000L);
  }

  /**
   * Without {@code numPartitions} a batch is split into Spark's default parallelism (SharedSpark
   * sets {@code spark.default.parallelism} to 2) of commit-aligned ranges.
   */
  @Test
  void withoutNumPartitionsABatchSplitsIntoSparksDefaultParallelism() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    for (int c = 0; c < 12; c++) {
      int base = c * 10_000;
      db.commit(tx -> {
        for (int i = 0; i < 10_000; i++) {
          tx.insert("t", row("id", base + i));
        }
      });
    }
    List<Shape> shapes = run(StreamRuns.options(db.path().toString(), "dbo_t"), tmp.resolve("c"));
    assertThat(shapes).hasSize(1);
    assertThat(shapes.get(0).report().partitionsPlanned()).isEqualTo(2);
    assertThat(shapes.get(0).perPartition()).containsExactly(60_000L, 60_000L);
    assertThat(shapes.get(0).distinct()).isEqualTo(120_000L);
  }

  /**
   * Spark copies the scan node while it prepares a batch's physical plan, and each copy asks the
   * stream for the batch's partitions again: the batch must be planned against the source once
   * (one NTILE over its change rows, one DDL and retention check), not once per copy.
   */
  @Test
  void aBatchIsPlannedAgainstTheSourceOncePerAction() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    for (int c = 0; c < 3; c++) {
      int base = c * 10;
      db.commit(tx -> {
        for (int i = 0; i < 10; i++) {
          tx.insert("t", row("id", base + i));
        }
      });
    }
    try (FakeProbe probe = FakeProbe.on(db.path())) {
      StreamRuns.Run run = StreamRuns.availableNow(
          StreamRuns.options(db.path().toString(), "dbo_t", "numPartitions", "2"), tmp.resolve("c"));
      assertThat(run.sizes()).containsExactly(30);
      assertThat(run.batches().get(0).report().orElseThrow().rowsRead()).isEqualTo(30);
      assertThat(probe.calls("splitPoints")).as("splitPoints calls for one batch").isEqualTo(1);
    }
  }

  @Test
  void aBatchUnderTwiceTheMinimumStaysOnePartition() throws Exception {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "t", "id int", "name varchar(10)").key("id");
    db.enableCdc("dbo", "t");
    for (int c = 0; c < 9; c++) {
      int base = c * 10_000;
      db.commit(tx -> {
        for (int i = 0; i < 10_000; i++) {
          tx.insert("t", row("id", base + i, "name", "n" + (base + i)));
        }
      });
    }
    List<Shape> shapes = run(StreamRuns.options(db.path().toString(), "dbo_t", "numPartitions", "8"), tmp.resolve("c"));
    assertThat(shapes.get(0).perPartition()).containsExactly(90_000L);
    assertThat(shapes.get(0).distinct()).isEqualTo(90_000L);
  }
}
