package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lower;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.CdcColumns;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one-pass ranking (issue 13): which bronze row is a key's latest image, written by hand so the
 * expected images do not come from the code under test, and what the pass reports besides.
 */
@Tag("spark")
class RankedChangesTest {
  private static final SparkSession SPARK = SharedDeltaSpark.spark();
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);
  private static final StructType BRONZE = new StructType()
      .add(CdcColumns.CAPTURE_INSTANCE, DataTypes.StringType)
      .add(CdcColumns.START_LSN, DataTypes.StringType)
      .add(CdcColumns.SEQVAL, DataTypes.StringType)
      .add(CdcColumns.OPERATION, DataTypes.IntegerType)
      .add(CdcColumns.COMMAND_ID, DataTypes.IntegerType)
      .add(CdcColumns.COMMIT_TS, DataTypes.TimestampNTZType)
      .add("id", DataTypes.IntegerType)
      .add("name", DataTypes.StringType)
      .add(CdcColumns.BATCH_ID, DataTypes.IntegerType)
      .add(CdcColumns.SNAPSHOT, DataTypes.StringType)
      .add(CdcColumns.CHUNK, DataTypes.IntegerType);

  private static String lsn(int n) {
    return String.format("0x%020X", n);
  }

  private static Row change(String instance, int lsn, int seq, int op, Integer command, Integer id, String name) {
    return RowFactory.create(instance, lsn(lsn), lsn(seq), op, command, T.plusSeconds(lsn), id, name, 1, null, null);
  }

  private static Row snapshot(int lsn, Integer id, String name, Integer chunk) {
    return RowFactory.create("dbo_orders", lsn(lsn), null, 0, null, T.plusSeconds(lsn), id, name, null, lsn(lsn),
        chunk);
  }

  private static RankedChanges rank(List<Row> rows, Column probe, boolean onDriver) {
    Dataset<Row> df = SPARK.createDataFrame(rows, BRONZE);
    BronzeColumns columns = BronzeColumns.of(BRONZE, "bronze", List.of("id"));
    Column ours = lower(col(CdcColumns.CAPTURE_INSTANCE)).isin("dbo_orders");
    Column op = col(CdcColumns.OPERATION);
    Column base = probe == null ? lit(true) : op.notEqual(0);
    return RankedChanges.rank(df, new RankedChanges.Marks(base, probe == null ? lit(false) : probe, ours,
        op.notEqual(0), col(CdcColumns.SNAPSHOT), col(CdcColumns.CHUNK).isNotNull()), null, columns, true, onDriver);
  }

  /** id → "name op _start_lsn" of the latest images. */
  private static Map<String, String> images(RankedChanges r) {
    Map<String, String> out = new TreeMap<>();
    for (Row x : r.latest().collectAsList()) {
      out.put(String.valueOf((Object) x.getAs("id")), x.getAs("name") + " " + x.getAs(CdcColumns.OPERATION) + " "
          + x.getAs(CdcColumns.START_LSN));
    }
    return out;
  }

  @ParameterizedTest(name = "on the driver: {0}")
  @ValueSource(booleans = {false, true})
  void theLatestImageIsTheGreatestLsnCommandSeqvalOperationWithNullsLast(boolean onDriver) {
    List<Row> rows = new ArrayList<>(List.of(
        // 1: a later commit wins, whatever its command and seqval
        change("dbo_orders", 5, 9, 2, 7, 1, "old"), change("dbo_orders", 6, 1, 4, 1, 1, "new"),
        // 2: one update: its after image (4) outranks its before image (3)
        change("dbo_orders", 6, 2, 3, 1, 2, "before"), change("dbo_orders", 6, 2, 4, 1, 2, "after"),
        // 3: one transaction: the later statement wins over a greater seqval
        change("dbo_orders", 6, 8, 4, 1, 3, "first statement"), change("dbo_orders", 6, 3, 1, 2, 3, null),
        // 4: a snapshot row and a change at its LSN: the change (NULL _command_id/_seqval rank last)
        snapshot(7, 4, "snapshot", null), change("dbo_orders", 7, 1, 4, 1, 4, "changed at the stamp"),
        // the NULL key is one key
        change("dbo_orders", 5, 1, 2, 1, null, "null key old"), change("dbo_orders", 8, 1, 4, 1, null, "null key new"),
        // names of instances match ignoring case
        change("DBO_Orders", 9, 1, 2, 1, 5, "upper case instance")));
    try (RankedChanges r = rank(rows, null, onDriver)) {
      assertThat(r.isLocal()).isEqualTo(onDriver);
      Map<String, String> expected = new TreeMap<>();
      expected.put("1", "new 4 " + lsn(6));
      expected.put("2", "after 4 " + lsn(6));
      expected.put("3", "null 1 " + lsn(6));
      expected.put("4", "changed at the stamp 4 " + lsn(7));
      expected.put("null", "null key new 4 " + lsn(8));
      expected.put("5", "upper case instance 2 " + lsn(9));
      assertThat(images(r)).isEqualTo(expected);
      assertThat(r.otherInstance()).isNull();
      assertThat(r.top()).isEqualTo(lsn(9));
      assertThat(r.keysApplied()).isEqualTo(6);
      assertThat(r.ranges()).singleElement().satisfies(range -> {
        assertThat(range.min()).isEqualTo(1);
        assertThat(range.max()).isEqualTo(5);
        assertThat(range.hasNull()).isTrue();
      });
      assertThat(r.keys()).hasSize(6).contains(java.util.Arrays.asList((Object) null));
    }
  }

  @ParameterizedTest(name = "on the driver: {0}")
  @ValueSource(booleans = {false, true})
  void anotherInstancesRowsAreReportedNotAppliedAndTheProbeCountsSnapshotsBeside(boolean onDriver) {
    List<Row> rows = List.of(
        change("dbo_orders", 5, 1, 2, 1, 1, "ours"),
        change("dbo_other", 6, 1, 2, 1, 2, "theirs"),
        change("dbo_other", 6, 2, 2, 1, 1, "theirs too"),
        snapshot(10, 3, "whole", null), snapshot(12, 4, "chunk", 0), snapshot(12, 5, "chunk", 0));
    Column probe = col(CdcColumns.OPERATION).equalTo(0);
    try (RankedChanges r = rank(rows, probe, onDriver)) {
      assertThat(r.otherInstance()).isEqualTo("dbo_other");
      assertThat(images(r)).isEqualTo(Map.of("1", "ours 2 " + lsn(5)));
      assertThat(r.top()).isEqualTo(lsn(5));
      assertThat(r.whole()).isEqualTo(lsn(10));
      assertThat(r.chunkRows()).isEqualTo(2);
    }
  }

  /**
   * String keys whose order by code point (Spark's, by UTF-8 bytes) differs from Java's UTF-16 order: the driver's
   * ranges are Spark's. U+FFFD sorts below U+1F600 by code point, above its surrogates by UTF-16 unit.
   */
  @Test
  void theDriversKeyRangesAreSparksForStringsBeyondTheBasicPlane() {
    StructType bronze = new StructType().add(CdcColumns.CAPTURE_INSTANCE, DataTypes.StringType)
        .add(CdcColumns.START_LSN, DataTypes.StringType).add(CdcColumns.SEQVAL, DataTypes.StringType)
        .add(CdcColumns.OPERATION, DataTypes.IntegerType).add(CdcColumns.COMMIT_TS, DataTypes.TimestampNTZType)
        .add("code", DataTypes.StringType);
    List<Row> rows = new ArrayList<>();
    String[] codes = {"a", "\uFFFD", "\uD83D\uDE00", "z", "\uE000"};
    for (int i = 0; i < codes.length; i++) {
      rows.add(RowFactory.create("dbo_codes", lsn(i + 1), lsn(1), 2, T.plusSeconds(i), codes[i]));
    }
    Dataset<Row> df = SPARK.createDataFrame(rows, bronze);
    BronzeColumns columns = BronzeColumns.of(bronze, "bronze", List.of("code"));
    Column op = col(CdcColumns.OPERATION);
    RankedChanges.Marks marks = new RankedChanges.Marks(lit(true), lit(false),
        lower(col(CdcColumns.CAPTURE_INSTANCE)).isin("dbo_codes"), op.notEqual(0), lit(null).cast("string"),
        lit(false));
    try (RankedChanges spark = RankedChanges.rank(df, marks, null, columns, true, false);
        RankedChanges driver = RankedChanges.rank(df, marks, null, columns, true, true)) {
      assertThat(driver.ranges()).isEqualTo(spark.ranges());
      assertThat(driver.ranges()).singleElement().satisfies(range -> {
        assertThat(range.min()).isEqualTo("a");
        assertThat(range.max()).isEqualTo("\uD83D\uDE00");
      });
      assertThat(driver.top()).isEqualTo(spark.top());
      assertThat(driver.keysApplied()).isEqualTo(spark.keysApplied()).isEqualTo(5);
    }
  }

  /**
   * A first write's two rankings ({@link RankedChanges#observed}): the window over each key's rows (when other
   * instances and plan-changing probe rows are ruled out) gives the same inserts and statistics as the
   * aggregation, over random rows: ties of {@code _start_lsn} broken by {@code _command_id} (NULL lowest),
   * {@code _seqval} and {@code _operation}, before and after images, deletes, snapshot rows applied (a rebuild
   * from S) and probe rows not applied.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theWindowRanksAsTheAggregation(boolean fromSnapshot) throws Exception {
    java.util.Random random = new java.util.Random(fromSnapshot ? 77 : 78);
    List<Row> rows = new ArrayList<>();
    int s = 500;
    for (int id = 0; id < 40; id++) {
      if (fromSnapshot && random.nextInt(4) > 0) {
        rows.add(snapshot(s, id, "s" + id, null));
      }
      int n = random.nextInt(5);
      for (int i = 0; i < n; i++) {
        int lsn = (fromSnapshot ? s : 0) + 1 + random.nextInt(6);
        int op = 1 + random.nextInt(4);
        Integer command = random.nextInt(3) == 0 ? null : random.nextInt(3);
        rows.add(change("dbo_orders", lsn, random.nextInt(4), op, command, id, "n" + id + "-" + i));
      }
    }
    // A snapshot row older than S: a probe row the plan does not apply.
    rows.add(snapshot(100, 99, "old", null));
    Dataset<Row> df = SPARK.createDataFrame(rows, BRONZE);
    BronzeColumns columns = BronzeColumns.of(BRONZE, "bronze", List.of("id"));
    Column ours = lower(col(CdcColumns.CAPTURE_INSTANCE)).isin("dbo_orders");
    Column op = col(CdcColumns.OPERATION);
    Column lsnCol = col(CdcColumns.START_LSN);
    Column change = op.notEqual(0);
    Column base = !fromSnapshot ? change : change.and(lsnCol.gt(lit(lsn(s))))
        .or(op.equalTo(0).and(col(CdcColumns.SNAPSHOT).equalTo(lit(lsn(s)))));
    Column probe = ours.and(op.equalTo(0));
    RankedChanges.Marks marks = new RankedChanges.Marks(base, probe, ours, change, col(CdcColumns.SNAPSHOT),
        col(CdcColumns.CHUNK).isNotNull());
    Dataset<Row> read = df.where(base.or(probe));
    Map<Boolean, List<String>> inserts = new TreeMap<>();
    Map<Boolean, List<Object>> stats = new TreeMap<>();
    for (boolean byWindow : new boolean[] {false, true}) {
      RankedChanges.Observed o = RankedChanges.observed(read, marks, columns, byWindow);
      inserts.put(byWindow, o.inserts().collectAsList().stream().map(Row::toString).sorted().toList());
      RankedChanges r = o.ranked(io.mssqlcdc.sink.tables.Observed.within(o.observation(), 60).orElseThrow());
      stats.put(byWindow, java.util.Arrays.asList(r.otherInstance(), r.top(), r.keysApplied()));
    }
    assertThat(inserts.get(true)).isNotEmpty().isEqualTo(inserts.get(false));
    assertThat(stats.get(true)).isEqualTo(stats.get(false));
  }
}
