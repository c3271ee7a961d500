package io.mssqlcdc.standin;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream and the snapshot on real Spark with {@code backend=jdbc}: the driver and every
 * executor partition open {@code SqlCdcClient}s whose statements go through mssql-jdbc to the
 * stand-in, which serves the same fake database a {@code backend=fake} read sees. The rows must
 * be the fake backend's, column for column.
 */
@Tag("spark")
class StandInSparkTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;
  SqlServerStandIn standIn;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)", "note nvarchar(max)")
        .key("order_id");
    db.enableCdc("dbo", "orders");
    standIn = SqlServerStandIn.start(tmp.resolve("db"));
  }

  @AfterEach
  void tearDown() {
    standIn.close();
    db.close();
  }

  private Lsn commitInserts(int firstId, int n) {
    return db.commit(tx -> {
      for (int i = 0; i < n; i++) {
        int id = firstId + i;
        tx.insert("orders", row("order_id", id, "status", "new", "amount", new BigDecimal(id + ".25"), "note",
            id % 3 == 0 ? null : "note \u2713 " + id));
      }
    });
  }

  private Map<String, String> jdbc(String... kv) {
    return StandInClients.options(standIn, "", merge("captureInstance", "dbo_orders", kv));
  }

  private Map<String, String> fake(String... kv) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", tmp.resolve("db").toString());
    o.put("captureInstance", "dbo_orders");
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    return o;
  }

  private static String[] merge(String k, String v, String... kv) {
    String[] out = new String[kv.length + 2];
    out[0] = k;
    out[1] = v;
    System.arraycopy(kv, 0, out, 2, kv.length);
    return out;
  }

  private static List<Integer> ids(List<Row> rows) {
    return rows.stream().map(r -> (Integer) r.getAs("order_id")).toList();
  }

  private static List<Integer> range(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }

  /** Rows as comparable text, every column (metadata columns included). */
  private static List<String> text(List<Row> rows) {
    return rows.stream().map(Row::toString).toList();
  }

  /**
   * A table renamed between runs (sp_rename): the checkpoint's offsets record the capture
   * instance, which sp_cdc_help_change_data_capture now lists under the new name, so the stream
   * resumes through the driver with no gap and no duplicate and names the new table from then on.
   */
  /**
   * Issue 30: the stream's first trigger runs the source's preflight, so a capture that never ran (no
   * mapping entry: {@code fn_cdc_get_max_lsn()} is NULL) fails the query at once, naming the fix.
   */
  @Test
  void aStreamWhoseCaptureNeverRanFailsAtItsFirstTriggerNamingTheFix() {
    assertThatThrownBy(() -> StandInSpark.availableNow(jdbc(), tmp.resolve("ckpt-never")))
        .satisfies(e -> assertThat(rootCause(e).getMessage()).isEqualTo("MSSQL_CDC-402: CDC capture does not seem to"
            + " run on database 'cdc_standin': sys.fn_cdc_get_max_lsn() is NULL: capture has never written to it. Start SQL"
            + " Server Agent, then the capture job: EXEC sys.sp_cdc_start_job @job_type = N'capture'; (check it with"
            + " EXEC sys.sp_cdc_help_jobs;)."));
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  @Test
  void aRenamedTableResumesOnItsCheckpointThroughTheDriver() throws Exception {
    commitInserts(1, 2);
    Path ckpt = tmp.resolve("ckpt-rename");
    assertThat(ids(StandInSpark.rows(StandInSpark.availableNow(jdbc(), ckpt)))).containsExactly(1, 2);
    commitInserts(3, 1);
    db.renameTable("dbo.orders", "dbo", "orders_renamed");
    db.commit(tx -> tx.insert("dbo.orders_renamed", row("order_id", 4, "status", "new")));
    assertThat(ids(StandInSpark.rows(StandInSpark.availableNow(jdbc(), ckpt)))).as("no gap, no duplicate").containsExactly(3, 4);
    try (java.util.stream.Stream<Path> offsets = java.nio.file.Files.list(ckpt.resolve("offsets"))) {
      Path last = offsets.filter(f -> f.getFileName().toString().matches("\\d+"))
          .max(Comparator.comparingLong(f -> Long.parseLong(f.getFileName().toString()))).orElseThrow();
      assertThat(java.nio.file.Files.readString(last)).contains("\"source\":\"dbo.orders_renamed\"");
    }
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::kind).contains(Statement.HELP_ALL);
  }

  @Test
  void theStreamReadsTheFakesRowsThroughTheDriverAndResumesOnItsCheckpoint() {
    for (int c = 0; c < 10; c++) {
      commitInserts(c * 3, 3);
    }
    db.commit(tx -> tx.update("orders", row("order_id", 4, "status", "paid", "amount", new BigDecimal("9.99"), "note", "x"))
        .delete("orders", key(5)));
    List<StandInSpark.Batch> viaDriver = StandInSpark.availableNow(jdbc("maxCommitsPerBatch", "4"), tmp.resolve("ckpt"));
    assertThat(StandInSpark.sizes(viaDriver)).containsExactly(12, 12, 9);
    List<StandInSpark.Batch> viaFake = StandInSpark.availableNow(fake("maxCommitsPerBatch", "4"), tmp.resolve("ckpt-fake"));
    assertThat(text(StandInSpark.rows(viaDriver))).as("every column as the fake backend reads it")
        .containsExactlyElementsOf(text(StandInSpark.rows(viaFake)));

    assertThat(StandInSpark.availableNow(jdbc("maxCommitsPerBatch", "4"), tmp.resolve("ckpt"))).as("nothing new").isEmpty();
    commitInserts(100, 2);
    commitInserts(102, 2);
    List<StandInSpark.Batch> resumed = StandInSpark.availableNow(jdbc("maxCommitsPerBatch", "4"), tmp.resolve("ckpt"));
    assertThat(resumed).extracting(StandInSpark.Batch::id).containsExactly(3L);
    List<Row> all = new ArrayList<>(StandInSpark.rows(viaDriver));
    all.addAll(StandInSpark.rows(resumed));
    assertThat(ids(all).stream().filter(id -> id >= 100)).containsExactly(100, 101, 102, 103);
    assertThat(all).as("no duplicates, no gaps: 30 inserts, update (2 rows), delete, 4 inserts").hasSize(37);
    assertThat(standIn.connections()).as("the driver and the executors connect on their own").isGreaterThan(1);
  }

  @Test
  void theSnapshotInKeyRangesIsTheTableAsTheFakeReadsIt() {
    commitInserts(0, 40);
    db.commit(tx -> tx.delete("orders", key(7)).update("orders", row("order_id", 8, "status", "paid", "amount",
        new BigDecimal("1.00"), "note", null)));
    Comparator<Row> byId = Comparator.comparing(r -> (Integer) r.getAs("order_id"));
    List<Row> viaDriver = new ArrayList<>(StandInSpark.snapshot(jdbc("numPartitions", "3")).collectAsList());
    viaDriver.sort(byId);
    List<Row> viaFake = new ArrayList<>(StandInSpark.snapshot(fake("numPartitions", "3")).collectAsList());
    viaFake.sort(byId);
    assertThat(ids(viaDriver)).hasSize(39).doesNotContain(7);
    assertThat(text(viaDriver)).containsExactlyElementsOf(text(viaFake));
    assertThat(StandInSpark.snapshot(jdbc("numPartitions", "3")).javaRDD().getNumPartitions()).isEqualTo(3);
    assertThat(standIn.executed()).extracting(SqlServerStandIn.Executed::kind)
        .contains(Statement.KEY_MIN_MAX, Statement.READ_TABLE, Statement.SESSION_PREFIX, Statement.MAX_LSN);
  }

  @Test
  void snapshotPlusStreamFromItsStampIsTheWholeHistory() {
    commitInserts(0, 5);
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "paid")));
    db.commitBeforeRead(tx -> tx.update("orders", row("order_id", 2, "status", "late")).delete("orders", key(3)));
    List<Row> snapshot = StandInSpark.snapshot(jdbc()).collectAsList();
    String stamp = snapshot.get(0).getAs("_start_lsn");
    commitInserts(9, 1);
    List<Row> stream = StandInSpark.rows(StandInSpark.availableNow(jdbc("startingLsn", stamp), tmp.resolve("ckpt")));
    assertThat(stream).allSatisfy(r -> assertThat(r.<String>getAs("_start_lsn")).isGreaterThan(stamp));
    assertThat(stream.stream().map(r -> r.getAs("_operation") + ":" + r.getAs("order_id")).toList())
        .containsExactly("3:2", "4:2", "1:3", "2:9");
    TreeMap<Integer, String> latest = new TreeMap<>();
    List<Row> all = new ArrayList<>(snapshot);
    all.addAll(stream);
    all.sort(Comparator.<Row, String>comparing(r -> r.getAs("_start_lsn"))
        .thenComparing(r -> r.isNullAt(r.fieldIndex("_seqval")) ? "" : r.<String>getAs("_seqval"))
        .thenComparing(r -> r.<Integer>getAs("_operation")));
    for (Row r : all) {
      int op = r.getAs("_operation");
      if (op == 1) {
        latest.remove((Integer) r.getAs("order_id"));
      } else if (op != 3) {
        latest.put(r.getAs("order_id"), r.getAs("status"));
      }
    }
    assertThat(latest).containsExactly(Map.entry(0, "new"), Map.entry(1, "paid"), Map.entry(2, "late"),
        Map.entry(4, "new"), Map.entry(9, "new"));
  }

  @Test
  void aConnectionResetInTheMiddleOfASnapshotCursorIsRetriedByTheTaskWithoutDuplicates() {
    commitInserts(0, 30);
    var fault = standIn.faults().on(Statement.READ_TABLE).afterRows(4).reset();
    List<Row> rows = StandInSpark.snapshot(jdbc("numPartitions", "2")).collectAsList();
    assertThat(fault.hits()).isEqualTo(1);
    assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(range(0, 30));
  }

  @Test
  void aConnectionResetInTheMiddleOfAChangeCursorIsRetriedByTheTaskWithoutDuplicates() {
    for (int c = 0; c < 6; c++) {
      commitInserts(c * 5, 5);
    }
    var fault = standIn.faults().on(Statement.CHANGES).afterRows(7).reset();
    List<StandInSpark.Batch> batches = StandInSpark.availableNow(jdbc(), tmp.resolve("ckpt"));
    assertThat(fault.hits()).isEqualTo(1);
    assertThat(StandInSpark.sizes(batches)).containsExactly(30);
    assertThat(ids(StandInSpark.rows(batches))).containsExactlyElementsOf(range(0, 30));
  }
}
