package io.mssqlcdc.connector.snapshot;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.client.TableQuery;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.Scan;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The DSv2 batch without a query: planning once, what partitions carry, task metrics. */
@Tag("spark")
class SnapshotBatchTest {
  @TempDir
  Path dir;

  FakeCdcDatabase db;
  FakeCdcClient client;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> {
      for (int i = 1; i <= 20; i++) {
        tx.insert("dbo.orders", row("order_id", i, "status", "s" + i));
      }
    });
    client = db.client();
  }

  @AfterEach
  void tearDown() {
    client.close();
    db.close();
  }

  private Scan scan(String... more) {
    Map<String, String> o = new HashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", dir.toString());
    o.put("captureInstance", "dbo_orders");
    o.put("connectionString", "jdbc:sqlserver://h;user=u;password=secret1");
    for (int i = 0; i < more.length; i += 2) {
      o.put(more[i], more[i + 1]);
    }
    return SnapshotTable.of(SnapshotSchema.infer(o), o).newScanBuilder(null).build();
  }

  @Test
  void theStampIsTakenOncePerBatchAndCarriedByEveryPartition() {
    Lsn before = client.maxLsn().orElseThrow();
    Batch batch = scan("numPartitions", "3").toBatch();

    InputPartition[] first = batch.planInputPartitions();
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 99)));
    InputPartition[] again = batch.planInputPartitions();

    assertThat(first).hasSize(3);
    assertThat(Arrays.stream(again).map(p -> ((SnapshotInputPartition) p).read().stamp().lsn()))
        .containsOnly(before);
    assertThat(Arrays.stream(first).map(p -> ((SnapshotInputPartition) p).read().stamp().lsn()))
        .containsOnly(before);
  }

  @Test
  void copiesOfTheScanNodeShareOneBatchSoAQueryStampsAndCutsOnce() {
    Scan scan = scan("numPartitions", "3");
    Batch batch = scan.toBatch();
    assertThat(scan.toBatch()).isSameAs(batch);
    assertThat(scan.toBatch().planInputPartitions()).isEqualTo(batch.planInputPartitions());
  }

  @Test
  void partitionsCarryIsolationLockTimeoutAndFetchSize() {
    InputPartition[] parts = scan("numPartitions", "2", "isolationLevel", "SNAPSHOT", "lockTimeoutMs", "500",
        "fetchSize", "7").toBatch().planInputPartitions();

    TableQuery q = ((SnapshotInputPartition) parts[0]).query();
    assertThat(q.isolation()).isEqualTo(TableQuery.Isolation.SNAPSHOT);
    assertThat(q.lockTimeoutMs()).isEqualTo(500);
    assertThat(q.fetchSize()).isEqualTo(7);
    assertThat(q.keys()).containsExactly("order_id");
    assertThat(((SnapshotInputPartition) parts[0]).read().options().sourceTimeZone())
        .as("pinned on the driver, so executors never detect it").isEqualTo(client.sourceTimeZone());
    assertThat(q.range()).isEqualTo(new KeyRange(null, java.util.List.of(11)));
    assertThat(((SnapshotInputPartition) parts[1]).query().range()).isEqualTo(new KeyRange(java.util.List.of(11), null));
  }

  @Test
  void theDescriptionMasksThePassword() {
    assertThat(scan().description()).contains("captureInstance=dbo_orders").doesNotContain("secret1");
  }

  @Test
  void readersReportRowsBytesAndReadTime() throws Exception {
    Scan scan = scan("numPartitions", "1");
    assertThat(Arrays.stream(scan.supportedCustomMetrics()).map(CustomMetric::name))
        .containsExactly("snapshotRowsRead", "snapshotBytesRead", "snapshotReadTimeMs");
    Batch batch = scan.toBatch();
    InputPartition part = batch.planInputPartitions()[0];

    long rows = 0;
    CustomTaskMetric[] metrics;
    long beforeOpen = System.nanoTime();
    long opened;
    long beforeMetrics;
    try (PartitionReader<InternalRow> reader = batch.createReaderFactory().createReader(part)) {
      opened = System.nanoTime();
      while (reader.next()) {
        InternalRow r = reader.get();
        assertThat(r.getInt(3)).isZero();
        rows++;
      }
      // at least 2 ms between the reader's open and its metrics, so the read time cannot pass as 0
      while (System.nanoTime() - opened < 2_000_000L) {
        Thread.onSpinWait();
      }
      beforeMetrics = System.nanoTime();
      metrics = reader.currentMetricsValues();
    }
    long afterMetrics = System.nanoTime();

    assertThat(rows).isEqualTo(20);
    assertThat(metrics[0].value()).isEqualTo(20);
    // 20 ints (4 bytes) + "s1".."s20" (9 * 2 + 11 * 3 bytes)
    assertThat(metrics[1].value()).isEqualTo(20 * 4 + 9 * 2 + 11 * 3);
    assertThat(metrics[2].value()).as("ms from the reader's open to its metrics, by this test's own clock")
        .isBetween((beforeMetrics - opened) / 1_000_000L, (afterMetrics - beforeOpen) / 1_000_000L);
  }
}
