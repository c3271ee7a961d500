package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.errors.CdcDataLossException;
import io.mssqlcdc.errors.CdcSchemaChangedException;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream on the real Spark engine over scripted histories of the file-backed fake
 * ({@link FakeCdcDatabase}, {@code backend=fake}): exact per-batch outcomes, restarts on the same
 * checkpoint, data loss, capture-instance switches and schema changes.
 */
@Tag("spark")
class FakeStreamTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  Path ckpt;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    ckpt = tmp.resolve("ckpt");
  }

  private Lsn commitInserts(int firstId, int n) {
    return db.commit(tx -> {
      for (int i = 0; i < n; i++) {
        tx.insert("orders", row("order_id", firstId + i, "status", "new"));
      }
    });
  }

  private Map<String, String> options(String... kv) {
    return StreamRuns.options(db.path().toString(), "dbo_orders", kv);
  }

  private static List<Integer> ids(List<Row> rows) {
    return rows.stream().map(r -> (Integer) r.getAs("order_id")).toList();
  }

  private static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }

  /**
   * Issue 30: the driver's capture-health probe reaches the query's progress, and capture stopped longer than
   * {@code failWhenCaptureStoppedSeconds} fails the query with MSSQL_CDC-402 before it reads past its offset.
   */
  @Test
  void captureHealthIsInTheProgressAndAStoppedCaptureFailsTheQueryWhenAsked() {
    db.clock(java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(-2)));
    commitInserts(0, 2); // two hours ago: capture ran then
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);
    assertThat(run.rows()).hasSize(2);
    assertThat(run.query().lastProgress().sources()[0].metrics()).containsEntry("captureState", "running")
        .containsEntry("captureJobRunning", "true");

    commitInserts(5, 1); // captured before the stop, read after it
    db.clock(java.time.Clock.offset(java.time.Clock.systemUTC(), java.time.Duration.ofHours(-1))).stopCapture();
    db.clock(java.time.Clock.systemUTC());
    commitInserts(10, 1); // held by the stopped capture
    StreamRuns.Run stopped = StreamRuns.availableNow(options(), ckpt);
    assertThat(ids(stopped.rows())).containsExactly(5);
    assertThat(stopped.batches()).singleElement().satisfies(b -> assertThat(b.report().orElseThrow().events())
        .extracting(BatchEvent::kind).containsExactly(BatchEvent.Kind.CAPTURE_STOPPED));
    assertThat(stopped.query().lastProgress().sources()[0].metrics()).containsEntry("captureState", "stopped")
        .containsEntry("captureEvents", "capture_stopped");
    assertThatThrownBy(() -> StreamRuns.availableNow(options("failWhenCaptureStoppedSeconds", "1800"), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e).getMessage()).startsWith(
            "MSSQL_CDC-402: CDC capture has been stopped for 36").contains("longer than failWhenCaptureStoppedSeconds=1800,"
                + " for the stream of capture instance 'dbo_orders': the capture job is not running"));

    db.startCapture();
    assertThat(ids(StreamRuns.availableNow(options("failWhenCaptureStoppedSeconds", "1800"), ckpt).rows()))
        .as("the held commit, once capture runs").containsExactly(10);
  }

  /**
   * The bootstrap contract (ADR 0016): a snapshot stamped with the LSN taken before its read, plus
   * the stream started at that stamp, is the whole history: a commit made between the stamp and
   * the read (commitBeforeRead) is in the stream after the stamp, so latest-image-per-key over
   * snapshot + stream equals the table.
   */
  @Test
  void snapshotPlusStreamFromItsStampIsTheWholeHistory() {
    commitInserts(0, 5);
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid")));
    db.commitBeforeRead(tx -> tx.update("orders", row("order_id", 2, "status", "late")).delete("orders", key(3)));
    Map<String, String> snapshotOptions = new java.util.HashMap<>(options());
    List<Row> snapshot = SharedSpark.spark().read().format("mssql_cdc_snapshot").options(snapshotOptions).load()
        .collectAsList();
    String stamp = snapshot.get(0).getAs("_start_lsn");
    db.commit(tx -> tx.insert("orders", row("order_id", 9, "status", "new")));

    StreamRuns.Run run = StreamRuns.availableNow(options("startingLsn", stamp), ckpt);
    java.util.TreeMap<Integer, Row> latest = new java.util.TreeMap<>();
    java.util.Comparator<Row> order = java.util.Comparator.<Row, String>comparing(r -> r.getAs("_start_lsn"))
        .thenComparing(r -> r.isNullAt(r.fieldIndex("_seqval")) ? "" : r.<String>getAs("_seqval"))
        .thenComparing(r -> r.<Integer>getAs("_operation"));
    List<Row> all = new java.util.ArrayList<>(snapshot);
    all.addAll(run.rows());
    all.sort(order);
    for (Row r : all) {
      int op = r.getAs("_operation");
      Integer id = r.getAs("order_id");
      if (op == 1) {
        latest.remove(id);
      } else if (op != 3) {
        latest.put(id, r);
      }
    }
    assertThat(run.rows()).allSatisfy(r -> assertThat(r.<String>getAs("_start_lsn")).isGreaterThan(stamp));
    assertThat(run.rows().stream().map(r -> r.getAs("_operation") + ":" + r.getAs("order_id")).toList())
        .as("the commit between stamp and read, then the later insert").containsExactly("3:2", "4:2", "1:3", "2:9");
    assertThat(latest.values().stream().map(r -> r.getAs("order_id") + ":" + r.getAs("status")).toList())
        .containsExactly("0:new", "1:paid", "2:late", "4:new", "9:new");
  }

  @Test
  void availableNowWithFourCommitsPerBatchReadsTwelveTwelveSix() {
    for (int c = 0; c < 10; c++) {
      commitInserts(c * 3, 3);
    }
    StreamRuns.Run run = StreamRuns.availableNow(options("maxCommitsPerBatch", "4"), ckpt);
    assertThat(run.sizes()).containsExactly(12, 12, 6);
    assertThat(ids(run.rows())).containsExactlyElementsOf(range(0, 30));
    BatchReport first = run.batches().get(0).report().orElseThrow();
    assertThat(first.rowsRead()).isEqualTo(12);
    assertThat(first.partitionsRead()).isEqualTo(1);
    // per row: the metadata's fixed share (two 22-character LSN texts, 8 bytes each for _operation,
    // _command_id and _commit_ts, the instance name) + order_id (int, 4 bytes) + "new" (3 UTF-8 bytes)
    assertThat(first.bytesRead()).isEqualTo(12L * (2 * 22 + 3 * 8 + "dbo_orders".length() + 4 + "new".length()));
    assertThat(first.events()).isEmpty();
  }

  @Test
  void availableNowStopsAtTheMaxLsnSeenWhenTheQueryStarted() {
    commitInserts(0, 1);
    commitInserts(1, 1);
    StreamRuns.Run run = StreamRuns.availableNow(options("maxCommitsPerBatch", "1"), ckpt,
        (df, id) -> commitInserts(100 + id.intValue(), 1));
    assertThat(ids(run.rows())).as("commits made while the run goes wait for the next run").containsExactly(0, 1);
    assertThat(ids(StreamRuns.availableNow(options(), ckpt).rows())).containsExactly(100, 101);
  }

  @Test
  void restartOnTheSameCheckpointReadsOnlyNewCommits() {
    for (int c = 0; c < 5; c++) {
      commitInserts(c * 2, 2);
    }
    StreamRuns.Run first = StreamRuns.availableNow(options("maxCommitsPerBatch", "2"), ckpt);
    assertThat(first.sizes()).containsExactly(4, 4, 2);

    StreamRuns.Run idleRestart = StreamRuns.availableNow(options("maxCommitsPerBatch", "2"), ckpt);
    assertThat(idleRestart.batches()).as("nothing new: no batch").isEmpty();

    for (int c = 5; c < 8; c++) {
      commitInserts(c * 2, 2);
    }
    StreamRuns.Run second = StreamRuns.availableNow(options("maxCommitsPerBatch", "2"), ckpt);
    assertThat(second.sizes()).containsExactly(4, 2);
    assertThat(second.batches().get(0).id()).isEqualTo(3);
    List<Row> all = new java.util.ArrayList<>(first.rows());
    all.addAll(second.rows());
    assertThat(ids(all)).as("no duplicates, no gaps").containsExactlyElementsOf(range(0, 16));
  }

  @Test
  void aReplayedBatchReadsExactlyTheSameRows() {
    for (int c = 0; c < 4; c++) {
      commitInserts(c * 2, 2);
    }
    List<List<Row>> seen = new java.util.ArrayList<>();
    assertThatThrownBy(() -> StreamRuns.availableNow(options("maxCommitsPerBatch", "2"), ckpt, (df, id) -> {
      if (id == 1) {
        seen.add(df.collectAsList());
        throw new IllegalStateException("sink crashed after reading batch 1");
      }
    })).hasMessageContaining("sink crashed");
    commitInserts(100, 2);
    StreamRuns.Run replay = StreamRuns.availableNow(options("maxCommitsPerBatch", "2"), ckpt);
    assertThat(replay.batches().get(0).id()).isEqualTo(1);
    assertThat(replay.batches().get(0).rows()).containsExactlyElementsOf(seen.get(0));
    assertThat(ids(replay.rows())).containsExactly(4, 5, 6, 7, 100, 101);
  }

  /**
   * After a restart, Spark hands {@code ReportsSourceMetrics.metrics} the replayed batch's end
   * offset as read from the offset log (a {@code SerializedOffset}, not a {@code CdcOffset}): the
   * progress of that batch must still carry the consumed offset and the pending commits.
   */
  @Test
  void sourceMetricsOfABatchReplayedAfterARestartReachTheQueryProgress() {
    commitInserts(0, 1);
    Lsn second = commitInserts(1, 1);
    assertThatThrownBy(() -> StreamRuns.availableNow(options("maxCommitsPerBatch", "1"), ckpt, (df, id) -> {
      throw new IllegalStateException("sink crashed before reading batch " + id);
    })).hasMessageContaining("sink crashed");
    StreamRuns.Run replay = StreamRuns.availableNow(options("maxCommitsPerBatch", "1"), ckpt);
    assertThat(replay.sizes()).containsExactly(1, 1);
    assertThat(replay.query().recentProgress()[0].sources()[0].metrics())
        .as("the replayed batch's progress").containsEntry("pendingCommits", "1").containsKey("consumedLsn");
    assertThat(replay.query().lastProgress().sources()[0].metrics()).containsEntry("consumedLsn", second.toString())
        .containsEntry("pendingCommits", "0");
  }

  @Test
  void idleEntriesAdvanceTheOffsetWithZeroRows() {
    commitInserts(0, 3);
    StreamRuns.Run first = StreamRuns.availableNow(options(), ckpt);
    assertThat(first.sizes()).containsExactly(3);
    db.idle();
    Lsn lastIdle = db.idle();
    StreamRuns.Run second = StreamRuns.availableNow(options(), ckpt);
    assertThat(second.sizes()).containsExactly(0);
    assertThat(second.batches().get(0).report().orElseThrow().endOffset().lsn()).isEqualTo(lastIdle);
    assertThat(second.query().lastProgress().sources()[0].endOffset()).contains(lastIdle.toString());
  }

  @Test
  void startingLsnEarliestLatestAndExplicit() {
    commitInserts(0, 2);
    Lsn second = commitInserts(2, 2);
    commitInserts(4, 2);
    assertThat(ids(StreamRuns.availableNow(options("startingLsn", "earliest"), tmp.resolve("e")).rows()))
        .containsExactlyElementsOf(range(0, 6));
    assertThat(StreamRuns.availableNow(options("startingLsn", "latest"), tmp.resolve("l")).sizes())
        .as("Spark runs the first batch of a new checkpoint even when it is empty").containsExactly(0);
    assertThat(ids(StreamRuns.availableNow(options("startingLsn", second.toString()), tmp.resolve("x")).rows()))
        .as("an explicit LSN counts as processed").containsExactlyElementsOf(range(4, 6));
    commitInserts(6, 1);
    assertThat(ids(StreamRuns.availableNow(options("startingLsn", "latest"), tmp.resolve("l")).rows()))
        .as("latest resolved once, persisted before the first commit of the checkpoint").containsExactly(6);
  }

  @Test
  void sourceMetricsReachTheQueryProgress() {
    for (int c = 0; c < 3; c++) {
      commitInserts(c, 1);
    }
    Lsn max = db.idle();
    StreamRuns.Run run = StreamRuns.availableNow(options("maxCommitsPerBatch", "2"), ckpt);
    assertThat(run.sizes()).containsExactly(2, 1);
    Map<String, String> m = run.query().lastProgress().sources()[0].metrics();
    assertThat(m).containsEntry("maxLsn", max.toString()).containsEntry("consumedLsn", max.toString())
        .containsEntry("pendingCommits", "0").containsKeys("maxCommitTs", "captureLagSeconds");
    assertThat(run.query().recentProgress()[0].sources()[0].metrics()).containsEntry("pendingCommits", "2");
  }

  @Test
  void commitTsIsUtcForANonUtcServerClock() {
    db.serverTimeZone("America/Sao_Paulo");
    db.commitAt(LocalDateTime.parse("2026-09-28T11:03:12.117"), tx -> tx.insert("orders", row("order_id", 1)));
    List<Row> rows = StreamRuns.availableNow(options(), ckpt).rows();
    assertThat((Object) rows.get(0).getAs("_commit_ts")).isEqualTo(LocalDateTime.parse("2026-09-28T14:03:12.117"));
  }

  @Test
  void retentionCleanupBeforePlanningFailsLoudly() {
    commitInserts(0, 2);
    StreamRuns.availableNow(options(), ckpt);
    Lsn l2 = commitInserts(2, 2);
    Lsn l3 = commitInserts(4, 2);
    db.cleanup("dbo_orders", l3);
    assertThatThrownBy(() -> StreamRuns.availableNow(options(), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcDataLossException.class)
            .hasMessageContaining("dbo_orders: change data from 0x")
            .hasMessageContaining("(min_lsn is now " + l3 + ")")
            .hasMessageContaining("Set failOnDataLoss=false to skip ahead"));
  }

  @Test
  void retentionCleanupBeforePlanningSkipsAheadWithFailOnDataLossFalse() {
    commitInserts(0, 2);
    StreamRuns.availableNow(options(), ckpt);
    commitInserts(2, 2);
    Lsn l3 = commitInserts(4, 2);
    db.cleanup("dbo_orders", l3);
    StreamRuns.Run run = StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt);
    assertThat(ids(run.rows())).containsExactly(4, 5);
    List<BatchEvent> events = run.batches().get(0).report().orElseThrow().events();
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(BatchEvent.Kind.DATA_SKIPPED);
      assertThat(e.lsn()).isEqualTo(l3);
      assertThat(e.detail()).contains("\"certain\": true");
    });
  }

  @Test
  void retentionCleanupDuringTheReadFailsTheTask() {
    commitInserts(0, 2);
    Lsn l2 = commitInserts(2, 2);
    assertThatThrownBy(() -> StreamRuns.availableNow(options(), ckpt,
        (df, id) -> db.cleanup("dbo_orders", l2.increment())))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e).getMessage())
            .contains("dbo_orders: change data from").contains("is gone (min_lsn is now " + l2.increment()));
  }

  @Test
  void retentionCleanupDuringTheReadIsRecordedWithFailOnDataLossFalse() {
    commitInserts(0, 2);
    Lsn l2 = commitInserts(2, 2);
    StreamRuns.Run run = StreamRuns.availableNow(options("failOnDataLoss", "false"), ckpt,
        (df, id) -> db.cleanup("dbo_orders", l2.increment()));
    assertThat(run.sizes()).containsExactly(0);
    assertThat(run.batches().get(0).report().orElseThrow().events()).singleElement()
        .satisfies(e -> assertThat(e.detail()).contains("\"certain\": false"));
  }

  @Test
  void captureInstanceSwitchInsideABatchReadsEachCommitOnce() {
    commitInserts(0, 2);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    Lsn s = commitInserts(2, 2);
    commitInserts(4, 2);
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);
    assertThat(run.sizes()).containsExactly(6);
    List<Row> rows = run.rows();
    assertThat(ids(rows)).containsExactlyElementsOf(range(0, 6));
    for (Row r : rows) {
      boolean below = ((String) r.getAs("_start_lsn")).compareTo(s.toString()) < 0;
      assertThat((String) r.getAs("_capture_instance")).isEqualTo(below ? "dbo_orders" : "dbo_orders_v2");
    }
    assertThat(run.batches().get(0).report().orElseThrow().events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED);
      assertThat(e.detail()).isEqualTo("dbo_orders -> dbo_orders_v2");
    });
  }

  /**
   * {@code _capture_instance} keeps the configured name as given (reference-behaviour §3), as
   * the snapshot reader writes it: a name matched ignoring case must not give change rows and
   * snapshot rows of the same table two spellings. A newer instance's rows carry its own name.
   */
  @Test
  void captureInstanceColumnKeepsTheConfiguredSpellingLikeTheSnapshot() {
    commitInserts(0, 1);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    commitInserts(1, 1);
    Map<String, String> o = StreamRuns.options(db.path().toString(), "DBO_Orders");
    List<Row> rows = StreamRuns.availableNow(o, ckpt).rows();
    assertThat(rows).extracting(r -> (String) r.getAs("_capture_instance"))
        .containsExactly("DBO_Orders", "dbo_orders_v2");
    List<Row> snapshot = io.mssqlcdc.connector.SharedSpark.spark().read().format("mssql_cdc_snapshot")
        .options(o).load().collectAsList();
    assertThat(snapshot).extracting(r -> (String) r.getAs("_capture_instance")).containsOnly("DBO_Orders");
  }

  @Test
  void followsTheNewerInstanceAfterTheDefaultNamedOneIsDisabled() {
    commitInserts(0, 2);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    commitInserts(2, 2);
    assertThat(StreamRuns.availableNow(options(), ckpt).sizes()).containsExactly(4);
    db.disableCdc("dbo_orders");
    commitInserts(4, 2);
    StreamRuns.Run run = StreamRuns.availableNow(options(), ckpt);
    assertThat(ids(run.rows())).containsExactly(4, 5);
    assertThat(run.rows()).allSatisfy(r -> assertThat((String) r.getAs("_capture_instance")).isEqualTo("dbo_orders_v2"));
  }

  @Test
  void aNewerInstanceWithNewColumnsStopsTheRunningQueryAndARestartReadsThem() {
    commitInserts(0, 2);
    Runnable newInstance = () -> {
      db.addColumn("dbo.orders", "note nvarchar(20)");
      db.enableCdc("dbo", "orders", "dbo_orders_v2");
      db.commit(tx -> tx.insert("orders", row("order_id", 2, "status", "new", "note", "hello")));
    };
    assertThatThrownBy(() -> StreamRuns.availableNow(options("maxCommitsPerBatch", "1"), ckpt, (df, id) -> {},
        newInstance))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcSchemaChangedException.class)
            .hasMessageContaining("The stream reaches capture instance 'dbo_orders_v2' of the table (from 0x")
            .hasMessageContaining("with new column(s) note string")
            .hasMessageContaining("Restart the query to re-infer the schema"));
    StreamRuns.Run restart = StreamRuns.availableNow(options(), ckpt);
    List<Row> all = restart.rows();
    assertThat(all).extracting(r -> (Object) r.getAs("note")).endsWith("hello");
    assertThat(ids(all)).endsWith(2).doesNotHaveDuplicates();
  }

  @Test
  void anInstanceDisabledBeforeTheStreamReadItIsNamedInTheDataLoss() {
    commitInserts(0, 1);
    StreamRuns.availableNow(options(), ckpt);
    commitInserts(1, 1);
    db.enableCdc("dbo", "orders", "dbo_orders_v2");
    commitInserts(2, 1);
    db.disableCdc("dbo_orders");
    assertThatThrownBy(() -> StreamRuns.availableNow(options(), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcDataLossException.class)
            .hasMessageContaining("dbo_orders_v2: change data from 0x")
            .hasMessageContaining("held only by capture instance(s) 'dbo_orders', disabled before the stream read them"));
  }

  @Test
  void declaredColumnsNoInstanceCapturesFailTheFirstBatch() {
    commitInserts(0, 1);
    assertThatThrownBy(() -> StreamRuns.availableNow(options("columns", "order_id INT, nope STRING"), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e).getMessage())
            .contains("No capture instance of the table (dbo_orders) captures nope: fix 'columns'"));
    List<Row> rows = StreamRuns.availableNow(options("columns", "order_id BIGINT, status STRING"), tmp.resolve("c2"))
        .rows();
    assertThat(rows).extracting(r -> (Object) r.getAs("order_id")).containsExactly(0L);
  }

  @Test
  void aTypeChangeFailsBeforeReadingAndARestartPasses() {
    commitInserts(0, 2);
    StreamRuns.availableNow(options(), ckpt);
    Runnable ddlWhileRunning = () -> {
      db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid")));
      db.alterColumn("dbo.orders", "order_id", "bigint");
      db.commit(tx -> tx.insert("orders", row("order_id", 5_000_000_000L, "status", "big")));
    };
    assertThatThrownBy(() -> StreamRuns.availableNow(options(), ckpt, (df, id) -> {}, ddlWhileRunning))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e)).isInstanceOf(CdcSchemaChangedException.class)
            .hasMessageContaining("dbo_orders: the type of captured column(s) order_id bigint (read as int)")
            .hasMessageContaining("Restart the query to re-infer the schema"));
    StreamRuns.Run restart = StreamRuns.availableNow(options(), ckpt);
    assertThat(restart.rows()).extracting(r -> r.getAs("order_id")).containsExactly(1L, 1L, 5_000_000_000L);
    assertThat(restart.batches().get(0).report().orElseThrow().events()).singleElement()
        .satisfies(e -> assertThat(e.kind()).isEqualTo(BatchEvent.Kind.SCHEMA_CHANGE));
  }

  @Test
  void anyDdlFailsWithSchemaChangePolicyFail() {
    commitInserts(0, 1);
    db.addColumn("dbo.orders", "note nvarchar(10)");
    commitInserts(1, 1);
    assertThatThrownBy(() -> StreamRuns.availableNow(options("schemaChangePolicy", "fail"), ckpt))
        .satisfies(e -> assertThat(StreamRuns.rootCause(e).getMessage())
            .contains("ADD [note] nvarchar(10)").contains("schemaChangePolicy=fail"));
    assertThat(ids(StreamRuns.availableNow(options(), ckpt).rows())).containsExactly(0, 1);
  }

  @Test
  void badOptionsFailWhenTheDataFrameIsCreated() {
    assertThatThrownBy(() -> io.mssqlcdc.connector.SharedSpark.spark().readStream().format("mssql_cdc")
        .options(options("maxCommitsPerBatch", "0")).load())
        .hasMessageContaining("Option 'maxCommitsPerBatch' must be");
    assertThatThrownBy(() -> io.mssqlcdc.connector.SharedSpark.spark().readStream().format("mssql_cdc")
        .options(options("startingLsn", "yesterday")).load())
        .hasMessageContaining("Option 'startingLsn' must be 'earliest', 'latest' or an LSN");
  }

  @SuppressWarnings("unused")
  private static List<Object> k(Object v) {
    return key(v);
  }
}
