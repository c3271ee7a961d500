package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.errors.CdcSchemaChangedException;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stream behaviour that had code but no test (issue 8), on the real engine over the fake:
 * {@code includeCommandId=false}, {@code startingLsn=latest} before capture wrote, what a switch
 * says and checks, replays across a switch, an idle trigger's statements, and a checkpoint
 * directory as the Python reference leaves it.
 */
@Tag("spark")
class StreamCoverageTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  Path ckpt;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    ckpt = tmp.resolve("ckpt");
  }

  private Map<String, String> options(String... kv) {
    return StreamRuns.options(db.path().toString(), "dbo_orders", kv);
  }

  private Lsn insert(int id) {
    return db.commit(tx -> tx.insert("orders", row("order_id", id, "status", "s" + id)));
  }

  private static List<Integer> ids(List<Row> rows) {
    return rows.stream().map(r -> (Integer) r.getAs("order_id")).toList();
  }

  @Test
  void includeCommandIdFalseDropsTheColumnAndReadsTheRows() {
    db.enableCdc("dbo", "orders");
    insert(1);
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid")));
    StreamRuns.Run run = StreamRuns.availableNow(options("includeCommandId", "false"), ckpt);
    StructType schema = run.batches().get(0).rows().get(0).schema();
    assertThat(Arrays.stream(schema.fields()).map(StructField::name))
        .containsExactly("_capture_instance", "_start_lsn", "_seqval", "_operation", "_commit_ts", "order_id", "status");
    assertThat(run.rows()).extracting(r -> r.getAs("_operation") + ":" + r.getAs("status"))
        .containsExactly("2:s1", "3:s1", "4:paid");
  }

  /** Nothing captured in the database yet ({@code max_lsn} NULL): latest is just below the instance's start. */
  @Test
  void latestBeforeCaptureWroteAnythingStartsAtTheInstancesStart() {
    db.enableCdc("dbo", "orders");
    try (FakeCdcClient c = db.client()) {
      assertThat(c.maxLsn()).isEmpty();
    }
    StreamRuns.Run first = StreamRuns.availableNow(options("startingLsn", "latest"), ckpt);
    assertThat(first.rows()).isEmpty();
    insert(1);
    insert(2);
    assertThat(ids(StreamRuns.availableNow(options("startingLsn", "latest"), ckpt).rows()))
        .as("the first commits after the instance was enabled").containsExactly(1, 2);
  }

  /** Capture has written (another table) but not yet reached the instance: latest is still below its start. */
  @Test
  void latestBeforeCaptureReachedTheInstanceMissesNothingOfIt() {
    db.createTable("dbo", "other", "id int").key("id");
    db.enableCdc("dbo", "other");
    db.commit(tx -> tx.insert("other", row("id", 1)));
    db.enableCdc("dbo", "orders");
    StreamRuns.availableNow(options("startingLsn", "latest"), ckpt);
    insert(1);
    assertThat(ids(StreamRuns.availableNow(options("startingLsn", "latest"), ckpt).rows())).containsExactly(1);
  }

  @Test
  void theSwitchEventNamesTheColumnsTheNewerInstanceNoLongerCaptures() {
    db.addColumn("dbo.orders", "note nvarchar(10)");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "s1", "note", "n1")));
    db.enableCdc("dbo", "orders", "dbo_orders_v2", "order_id", "status");
    db.commit(tx -> tx.insert("orders", row("order_id", 2, "status", "s2", "note", "n2")));
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);
    assertThat(run.rows()).extracting(r -> r.getAs("order_id") + ":" + r.getAs("note")).containsExactly("1:n1", "2:null");
    assertThat(run.batches().get(0).report().orElseThrow().events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED);
      assertThat(e.detail()).isEqualTo("dbo_orders -> dbo_orders_v2; no longer captured, read as NULL: note");
    });
  }

  /**
   * The stream skips ahead into a newer instance (its start was purged, failOnDataLoss=false):
   * the first read of that instance still checks that the query's schema holds its columns.
   */
  @Test
  void theFirstReadOfANewerInstanceSkippedAheadToChecksItsColumns() {
    db.enableCdc("dbo", "orders");
    insert(1);
    StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt);
    Runnable newerInstanceThenCleanup = () -> {
      db.addColumn("dbo.orders", "note nvarchar(10)");
      db.enableCdc("dbo", "orders", "dbo_orders_v2");
      db.commit(tx -> tx.insert("orders", row("order_id", 2, "status", "s2", "note", "n2")));
      Lsn l3 = db.commit(tx -> tx.insert("orders", row("order_id", 3, "status", "s3", "note", "n3")));
      db.cleanup("dbo_orders_v2", l3);
    };
    assertThatThrownBy(() -> StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt, (df, id) -> {},
        newerInstanceThenCleanup))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcSchemaChangedException.class)
            .hasMessageContaining("The stream reaches capture instance 'dbo_orders_v2' of the table (from 0x")
            .hasMessageContaining("with new column(s) note string"));
    StreamRuns.Run restart = StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt);
    assertThat(restart.rows()).extracting(r -> r.getAs("order_id") + ":" + r.getAs("note"))
        .as("the replanned batch reads v2 from its min_lsn").containsExactly("3:n3");
  }

  /** With declared columns, a newer instance's extra columns are only a warning, and a column it lacks reads NULL. */
  @Test
  void declaredColumnsMeetingANewerInstance() {
    db.enableCdc("dbo", "orders");
    insert(1);
    Map<String, String> declared = options("columns", "order_id BIGINT, status STRING");
    StreamRuns.availableNow(declared, ckpt);
    Runnable newer = () -> {
      db.addColumn("dbo.orders", "note nvarchar(10)");
      db.enableCdc("dbo", "orders", "dbo_orders_v2", "order_id", "note");
      db.commit(tx -> tx.insert("orders", row("order_id", 2, "status", "s2", "note", "n2")));
    };
    StreamRuns.Run run = StreamRuns.availableNow(declared, ckpt, (df, id) -> {}, newer);
    assertThat(run.rows()).extracting(r -> r.getAs("order_id") + ":" + r.getAs("status")).containsExactly("2:null");
    BatchReport r = run.batches().get(0).report().orElseThrow();
    assertThat(r.events()).extracting(BatchEvent::kind)
        .containsExactly(BatchEvent.Kind.SCHEMA_CHANGE, BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED);
    assertThat(r.events().get(1).detail()).isEqualTo("dbo_orders -> dbo_orders_v2; no longer captured, read as NULL:"
        + " status");
    assertThat(r.warnings()).contains("mssql_cdc: capture instance 'dbo_orders_v2' captures [note string], which"
        + " 'columns' does not list: not read.");
  }

  @Test
  void aReplayedBatchAcrossASwitchReadsTheSameRowsFromTheSameInstances() {
    db.enableCdc("dbo", "orders");
    insert(1);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    insert(2);
    insert(3);
    List<List<Row>> seen = new ArrayList<>();
    assertThatThrownBy(() -> StreamRuns.availableNow(options(), ckpt, (df, id) -> {
      seen.add(df.collectAsList());
      throw new IllegalStateException("sink crashed after reading batch " + id);
    })).hasMessageContaining("sink crashed");
    insert(4);
    StreamRuns.Run replay = StreamRuns.availableNow(options(), ckpt);
    assertThat(replay.batches().get(0).id()).isZero();
    assertThat(replay.batches().get(0).rows()).containsExactlyElementsOf(seen.get(0));
    assertThat(replay.batches().get(0).rows()).extracting(r -> r.getAs("order_id") + "@" + r.getAs("_capture_instance"))
        .containsExactly("1@dbo_orders", "2@dbo_orders_v2", "3@dbo_orders_v2");
    assertThat(replay.batches().get(0).report().orElseThrow().events()).extracting(BatchEvent::kind)
        .containsExactly(BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED);
    assertThat(ids(replay.rows())).containsExactly(1, 2, 3, 4);
  }

  /**
   * What one idle trigger costs the source, as MicroBatchExecution calls it when nothing is new:
   * {@code latestOffset}, {@code reportLatestOffset}, and the progress's {@code metrics}: one
   * statement, {@code max_lsn}.
   */
  @Test
  void anIdleTriggerSendsOneStatement() {
    db.enableCdc("dbo", "orders");
    insert(1);
    Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
    CdcReaderOptions o = CdcReaderOptions.parse(options("numPartitions", "1"), CdcReaderOptions.Reader.STREAM);
    CdcMicroBatchStream s = new CdcMicroBatchStream(o, new StructType(), new StructType(), ckpt.toString(),
        new Configuration(), SharedSpark.spark().sparkContext(), Clock.systemUTC(),
        opts -> counting(FakeCdcClient.open(db.path(), opts.sourceTimeZone()), calls));
    try {
      CdcOffset start = (CdcOffset) s.initialOffset();
      CdcOffset end = (CdcOffset) s.latestOffset(start, ReadLimit.allAvailable());
      s.reportLatestOffset();
      s.planInputPartitions(start, end);
      s.metrics(Optional.of(end));
      s.commit(end);
      calls.clear();
      for (int trigger = 0; trigger < 3; trigger++) {
        assertThat(s.latestOffset(end, ReadLimit.allAvailable())).isEqualTo(end);
        assertThat(((CdcOffset) s.reportLatestOffset()).lsn()).isEqualTo(end.lsn());
        assertThat(s.metrics(Optional.of(end))).containsEntry("pendingCommits", "0");
      }
      assertThat(calls).as("per idle trigger: max_lsn only").containsOnlyKeys("maxLsn");
      assertThat(calls.get("maxLsn").get()).isEqualTo(3);
    } finally {
      s.stop();
    }
  }

  /** A client that counts the calls made on it and passes each to {@code delegate}. */
  private static CdcClient counting(CdcClient delegate, Map<String, AtomicLong> calls) {
    return (CdcClient) Proxy.newProxyInstance(CdcClient.class.getClassLoader(), new Class<?>[] {CdcClient.class},
        (proxy, method, args) -> {
          if (!method.getName().equals("close")) {
            calls.computeIfAbsent(method.getName(), k -> new AtomicLong()).incrementAndGet();
          }
          try {
            return method.invoke(delegate, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  /**
   * A checkpoint directory as the Python reference leaves it (Spark's {@code metadata},
   * {@code offsets/<n>} with the reference's offset JSON, {@code commits/<n>}, no file of the
   * source's own): the uncommitted batch is replayed exactly and the stream goes on, with no
   * duplicate and no gap.
   */
  @Test
  void aCheckpointAsThePythonReferenceWritesItResumes() throws Exception {
    db.enableCdc("dbo", "orders");
    Lsn l1 = insert(1);
    Lsn l2 = insert(2);
    Lsn l3 = insert(3);
    insert(4);
    Files.createDirectories(ckpt.resolve("offsets"));
    Files.createDirectories(ckpt.resolve("commits"));
    write(ckpt.resolve("metadata"), "{\"id\":\"0d4c1a5e-3b8e-4a57-9f0e-2f6c7d1b8a90\"}");
    Lsn[] ends = {l1, l2, l3};
    for (int b = 0; b < ends.length; b++) {
      String ts;
      try (FakeCdcClient c = db.client()) {
        ts = c.commitTime(ends[b]).orElseThrow().toString().replace("Z", "");
      }
      write(ckpt.resolve("offsets/" + b), "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1791308365834,\"conf\":"
          + "{\"spark.sql.shuffle.partitions\":\"2\",\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}}\n"
          + "{\"lsn\": \"" + ends[b] + "\", \"commit_ts\": \"" + withMillis(ts) + "\"}");
    }
    write(ckpt.resolve("commits/0"), "v1\n{\"nextBatchWatermarkMs\":0}");
    write(ckpt.resolve("commits/1"), "v1\n{\"nextBatchWatermarkMs\":0}");

    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);
    assertThat(run.batches()).extracting(StreamRuns.Batch::id).startsWith(2L);
    assertThat(ids(run.batches().get(0).rows())).as("batch 2, replayed from the offset log").containsExactly(3);
    assertThat(ids(run.rows())).containsExactly(3, 4);
    insert(5);
    assertThat(ids(StreamRuns.availableNow(options(), ckpt).rows())).containsExactly(5);
  }

  private static String withMillis(String isoWithoutZone) {
    return isoWithoutZone.contains(".") ? isoWithoutZone : isoWithoutZone + ".000";
  }

  private static void write(Path p, String text) throws java.io.IOException {
    Files.writeString(p, text, StandardCharsets.UTF_8);
  }
}
