package io.mssqlcdc.connector;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every client a reader opens on an executor is closed, whether the partition is read to the end,
 * fails in the middle, or its task is cancelled; so is the driver's. Counted by {@link FakeProbe}
 * over the real engine (local Spark runs executors in this JVM).
 */
@Tag("spark")
class ExecutorClientsCloseTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  FakeProbe probe;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    for (int c = 0; c < 3; c++) {
      int base = c * 10;
      db.commit(tx -> {
        for (int i = 1; i <= 10; i++) {
          tx.insert("orders", row("order_id", base + i, "status", "new"));
        }
      });
    }
    probe = FakeProbe.on(db.path());
  }

  @AfterEach
  void tearDown() {
    probe.close();
  }

  private Map<String, String> options(String... kv) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", db.path().toString());
    o.put("captureInstance", "dbo_orders");
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    return o;
  }

  private StreamingQuery startStream(List<Long> counts) throws Exception {
    Dataset<Row> df = SharedSpark.spark().readStream().format("mssql_cdc").options(options()).load();
    return df.writeStream()
        .foreachBatch((Dataset<Row> batch, Long id) -> {
          counts.add(batch.count());
        })
        .trigger(Trigger.AvailableNow())
        .option("checkpointLocation", tmp.resolve("ckpt").toString())
        .start();
  }

  private Dataset<Row> snapshot() {
    return SharedSpark.spark().read().format("mssql_cdc_snapshot").options(options("numPartitions", "2")).load();
  }

  private void assertEveryClientClosed() throws InterruptedException {
    assertThat(probe.readersOpened()).as("clients that read rows (executors)").isPositive();
    assertThat(probe.awaitAllClosed()).as("%d of %d clients still open", probe.clientsOpen(), probe.clientsOpened())
        .isTrue();
  }

  @Test
  void aStreamReadToTheEndClosesItsClients() throws Exception {
    List<Long> counts = new java.util.concurrent.CopyOnWriteArrayList<>();
    startStream(counts).awaitTermination();
    assertThat(counts).containsExactly(30L);
    assertEveryClientClosed();
  }

  @Test
  void aStreamTaskThatFailsMidReadClosesItsClient() throws Exception {
    probe.failCursorsAfter(5);
    StreamingQuery q = startStream(new java.util.concurrent.CopyOnWriteArrayList<>());
    assertThatThrownBy(q::awaitTermination).hasStackTraceContaining("Connection reset");
    assertEveryClientClosed();
  }

  @Test
  void aStreamTaskCancelledMidReadClosesItsClient() throws Exception {
    probe.holdCursorsAfter(5);
    StreamingQuery q = startStream(new java.util.concurrent.CopyOnWriteArrayList<>());
    assertThat(probe.awaitHeld()).as("a partition reader is reading").isTrue();
    q.stop();
    assertEveryClientClosed();
    assertThat(probe.cancelledWhileHeld()).as("the reader's task was cancelled, not finished").isPositive();
  }

  @Test
  void aSnapshotReadToTheEndClosesItsClients() throws Exception {
    assertThat(snapshot().collectAsList()).hasSize(30);
    assertEveryClientClosed();
    assertThat(probe.readersOpened()).as("one per partition").isEqualTo(2);
  }

  @Test
  void aSnapshotTaskThatFailsMidReadClosesItsClient() throws Exception {
    probe.failCursorsAfter(5);
    assertThatThrownBy(() -> snapshot().collectAsList()).hasStackTraceContaining("Connection reset");
    assertEveryClientClosed();
  }

  @Test
  void aSnapshotTaskCancelledMidReadClosesItsClient() throws Exception {
    probe.holdCursorsAfter(5);
    SparkContext sc = SharedSpark.spark().sparkContext();
    String group = "cancel-" + UUID.randomUUID();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      sc.setJobGroup(group, "a snapshot read cancelled by the test", true);
      try {
        snapshot().collectAsList();
      } catch (Throwable t) {
        failure.set(t);
      } finally {
        sc.clearJobGroup();
      }
    });
    reader.start();
    assertThat(probe.awaitHeld()).as("a partition reader is reading").isTrue();
    sc.cancelJobGroup(group);
    reader.join();
    assertThat(failure.get()).as("the read was cancelled").isNotNull().hasStackTraceContaining("cancel");
    assertEveryClientClosed();
    assertThat(probe.cancelledWhileHeld()).as("a reader's task was cancelled, not finished").isPositive();
  }
}
