package io.mssqlcdc.connector.snapshot;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.apache.spark.sql.functions.spark_partition_id;

import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.errors.CdcError;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code format("mssql_cdc_snapshot")} end to end on the fake, with real Spark (tiny tables). */
@Tag("spark")
class SnapshotReadTest {
  @TempDir
  Path dir;

  FakeCdcDatabase db;
  FakeCdcClient client;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
  }

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    db.close();
  }

  private Map<String, String> options(String captureInstance, String... more) {
    Map<String, String> o = new HashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", dir.toString());
    o.put("captureInstance", captureInstance);
    for (int i = 0; i < more.length; i += 2) {
      o.put(more[i], more[i + 1]);
    }
    return o;
  }

  private static Dataset<Row> read(Map<String, String> options) {
    return SharedSpark.spark().read().format("mssql_cdc_snapshot").options(options).load();
  }

  private void orders(int n) {
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)", "amount decimal(18,2)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> {
      for (int i = 1; i <= n; i++) {
        tx.insert("dbo.orders", row("order_id", i * 3, "status", "new", "amount", new BigDecimal(i + ".50")));
      }
    });
    client = db.client();
  }

  /** Rows as (partition, key...) after reading with the partition id. */
  private static Map<Integer, List<Row>> byPartition(Dataset<Row> df, String... keys) {
    List<Row> rows = df.select(spark_partition_id().as("p"), df.col(keys[0])).collectAsList();
    return rows.stream().collect(Collectors.groupingBy(r -> r.getInt(0)));
  }

  @Test
  void rowsAreTheCurrentTableStampedWithMaxLsnTakenBeforeTheRead() {
    orders(10);
    db.commit(tx -> tx.update("dbo.orders", row("order_id", 3, "status", "paid")).delete("dbo.orders", key(6)));
    Lsn stamp = client.maxLsn().orElseThrow();
    Instant stampTime = client.commitTime(stamp).orElseThrow();
    db.commitBeforeRead(tx -> tx.update("dbo.orders", row("order_id", 9, "status", "late")));

    Dataset<Row> df = read(options("dbo_orders", "numPartitions", "3"));
    assertThat(df.schema().fieldNames()).containsExactly(
        "_capture_instance", "_start_lsn", "_seqval", "_operation", "_command_id", "_commit_ts",
        "order_id", "status", "amount");
    List<Row> rows = df.orderBy("order_id").collectAsList();

    assertThat(rows).hasSize(9);
    LocalDateTime commitTs = LocalDateTime.ofInstant(stampTime.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    for (Row r : rows) {
      assertThat(r.getString(0)).isEqualTo("dbo_orders");
      assertThat(r.getString(1)).isEqualTo(stamp.toString());
      assertThat(r.isNullAt(2)).isTrue();
      assertThat(r.getInt(3)).isZero();
      assertThat(r.isNullAt(4)).isTrue();
      assertThat(r.<LocalDateTime>getAs(5)).isEqualTo(commitTs);
    }
    assertThat(rows.stream().map(r -> r.getInt(6) + ":" + r.getString(7) + ":" + r.getDecimal(8)).toList())
        .containsExactly("3:paid:1.50", "9:late:3.50", "12:new:4.50", "15:new:5.50", "18:new:6.50", "21:new:7.50",
            "24:new:8.50", "27:new:9.50", "30:new:10.50");

    // The commit between stamp and read is in the change stream after the stamp: not lost.
    Lsn now = client.maxLsn().orElseThrow();
    assertThat(now).isGreaterThan(stamp);
    List<String> after = new ArrayList<>();
    try (ChangeCursor c = client.changes(new ChangeQuery("dbo_orders", client.incrementLsn(stamp), now,
        List.of("order_id", "status"), true, 100))) {
      while (c.next()) {
        after.add(c.operation() + ":" + c.value(0) + ":" + c.value(1));
      }
    }
    assertThat(after).containsExactly("3:9:new", "4:9:late");
  }

  @Test
  void snapshotLsnOptionStampsTheRowsAndIsUsedAsGiven() {
    orders(2);
    Lsn first = client.maxLsn().orElseThrow();
    db.commit(tx -> tx.insert("dbo.orders", row("order_id", 100)));

    List<Row> rows = read(options("DBO_Orders", "snapshotLsn", first.toString().substring(2).toLowerCase(),
        "includeCommandId", "false")).orderBy("order_id").collectAsList();

    assertThat(rows).hasSize(3);
    assertThat(rows.get(0).schema().fieldNames()).containsExactly(
        "_capture_instance", "_start_lsn", "_seqval", "_operation", "_commit_ts", "order_id", "status", "amount");
    assertThat(rows).allSatisfy(r -> {
      assertThat(r.getString(0)).as("the name as configured").isEqualTo("DBO_Orders");
      assertThat(r.getString(1)).isEqualTo(first.toString());
      assertThat(r.getInt(3)).isZero();
    });
    assertThat(rows.stream().map(r -> r.get(5) + ":" + r.get(6) + ":" + r.get(7)).toList())
        .containsExactly("3:new:1.50", "6:new:2.50", "100:null:null");
  }

  @Test
  void uniformIntegerRangesCoverEveryRowOnce() {
    orders(50);
    Dataset<Row> df = read(options("dbo_orders", "numPartitions", "4"));

    Map<Integer, List<Row>> parts = byPartition(df, "order_id");

    assertThat(df.javaRDD().getNumPartitions()).isEqualTo(4);
    assertThat(parts).hasSize(4);
    List<Integer> ids = parts.values().stream().flatMap(List::stream).map(r -> r.getInt(1)).sorted().toList();
    assertThat(ids).hasSize(50).doesNotHaveDuplicates().startsWith(3, 6).endsWith(150);
  }

  @Test
  void autoPartitionsFollowTheSessionsDefaultParallelism() {
    orders(10);
    assertThat(read(options("dbo_orders")).javaRDD().getNumPartitions())
        .isEqualTo(SharedSpark.spark().sparkContext().defaultParallelism());
  }

  @Test
  void stringKeysWithANullAreTiledAndReadOnce() {
    db.createTable("dbo", "codes", "code varchar(10)", "n int").key("code");
    db.enableCdc("dbo", "codes");
    db.commit(tx -> {
      tx.insert("dbo.codes", row("code", null, "n", 0));
      for (int i = 0; i < 26; i++) {
        tx.insert("dbo.codes", row("code", String.valueOf((char) ('a' + i)), "n", i + 1));
      }
    });

    Dataset<Row> df = read(options("dbo_codes", "numPartitions", "3"));
    List<Row> rows = df.select("code", "n").collectAsList();

    assertThat(df.javaRDD().getNumPartitions()).isEqualTo(3);
    assertThat(rows.stream().map(r -> r.getInt(1)).sorted().toList())
        .isEqualTo(java.util.stream.IntStream.rangeClosed(0, 26).boxed().toList());
    assertThat(rows.stream().filter(r -> r.isNullAt(0)).count()).isEqualTo(1);
  }

  @Test
  void compositeKeysWithNullsAreTiledAndReadOnce() {
    db.createTable("sales", "lines", "region varchar(10)", "line int", "qty int").key("region", "line");
    db.enableCdc("sales", "lines");
    db.commit(tx -> {
      int q = 0;
      for (String region : Arrays.asList(null, "a", "b", "c")) {
        for (int line = 1; line <= 5; line++) {
          tx.insert("sales.lines", row("region", region, "line", line, "qty", q++));
        }
      }
    });

    Dataset<Row> df = read(options("sales_lines", "numPartitions", "4"));
    List<Integer> qty = df.select("qty").collectAsList().stream().map(r -> r.getInt(0)).sorted().toList();

    assertThat(df.javaRDD().getNumPartitions()).isEqualTo(4);
    assertThat(qty).isEqualTo(java.util.stream.IntStream.range(0, 20).boxed().toList());
  }

  @Test
  void anEmptyTableIsOnePartitionWithNoRows() {
    db.createTable("dbo", "empty", "id int", "v varchar(5)").key("id");
    db.enableCdc("dbo", "empty");
    db.commit(tx -> tx.insert("dbo.empty", row("id", 1)).delete("dbo.empty", key(1)));

    Dataset<Row> df = read(options("dbo_empty", "numPartitions", "4"));

    assertThat(df.collectAsList()).isEmpty();
    assertThat(df.javaRDD().getNumPartitions()).isEqualTo(1);
  }

  @Test
  void aTableWithoutUniqueIndexIsOnePartition() {
    db.createTable("dbo", "heap", "v int");
    db.enableCdc("dbo", "heap");
    db.commit(tx -> tx.insert("dbo.heap", row("v", 1)).insert("dbo.heap", row("v", 1)).insert("dbo.heap", row("v", 2)));

    Dataset<Row> df = read(options("dbo_heap", "numPartitions", "4"));

    assertThat(df.javaRDD().getNumPartitions()).isEqualTo(1);
    assertThat(df.select("v").collectAsList()).extracting(r -> r.getInt(0)).containsExactlyInAnyOrder(1, 1, 2);
  }

  @Test
  void chunkReadsTileExactlyTheGivenRanges() {
    orders(10); // order_id 3, 6, ..., 30
    Dataset<Row> df = read(options("dbo_orders", "snapshotChunks", "[[0, null, 10], [1, 10, 21], [7, 27, null]]"));

    assertThat(df.schema().fieldNames()).endsWith("amount", "_chunk");
    List<String> rows = df.select("order_id", "_chunk").orderBy("order_id").collectAsList().stream()
        .map(r -> r.getInt(0) + "@" + r.getInt(1)).toList();

    assertThat(df.javaRDD().getNumPartitions()).isEqualTo(3);
    assertThat(rows).containsExactly("3@0", "6@0", "9@0", "12@1", "15@1", "18@1", "27@7", "30@7");
  }

  @Test
  void compositeChunksUseListsAndSnapshotKeysNamesTheKey() {
    db.createTable("sales", "lines", "region varchar(10)", "line int", "qty int").key("region", "line");
    db.enableCdc("sales", "lines");
    db.commit(tx -> {
      int q = 0;
      for (String region : Arrays.asList(null, "a", "b")) {
        for (int line = 1; line <= 3; line++) {
          tx.insert("sales.lines", row("region", region, "line", line, "qty", q++));
        }
      }
    });

    List<String> composite = read(options("sales_lines",
        "snapshotChunks", "[[1, null, [\"a\", 2]], [2, [\"a\", 2], [\"b\", null]], [3, [\"b\", 2], null]]"))
        .select("qty", "_chunk").orderBy("qty").collectAsList().stream()
        .map(r -> r.getInt(0) + "@" + r.getInt(1)).toList();
    assertThat(composite).containsExactly("0@1", "1@1", "2@1", "3@1", "4@2", "5@2", "7@3", "8@3");

    List<Integer> byQty = read(options("sales_lines", "snapshotKeys", "[\"qty\"]",
        "snapshotChunks", "[[0, 2, 5]]")).select("qty").orderBy("qty").collectAsList().stream()
        .map(r -> r.getInt(0)).toList();
    assertThat(byQty).containsExactly(2, 3, 4);
  }

  @Test
  void droppedAndComputedColumnsReadNull() {
    db.createTable("dbo", "items", "id int", "note varchar(20)", "price int", "twice int computed").key("id");
    db.enableCdc("dbo", "items");
    db.commit(tx -> tx.insert("dbo.items", row("id", 1, "note", "x", "price", 5)));
    db.dropColumn("dbo.items", "note");
    db.addColumn("dbo.items", "note varchar(20)");
    db.commit(tx -> tx.update("dbo.items", row("id", 1, "note", "re-added")));

    Dataset<Row> df = read(options("dbo_items", "columns", "id INT, note STRING, price BIGINT, twice INT"));
    List<Row> rows = df.collectAsList();

    assertThat(rows).hasSize(1);
    Row r = rows.get(0);
    assertThat(r.<Integer>getAs("id")).isEqualTo(1);
    assertThat(r.isNullAt(r.fieldIndex("note"))).as("the captured note was dropped; the new one is another column")
        .isTrue();
    assertThat(r.<Long>getAs("price")).isEqualTo(5L);
    assertThat(r.isNullAt(r.fieldIndex("twice"))).isTrue();
  }

  @Test
  void badOptionsFailWhenTheDataFrameIsCreated() {
    orders(1);
    assertThatThrownBy(() -> read(options("dbo_orders", "snapshotChunks", "[[0, 1")))
        .hasMessageContaining("MSSQL_CDC-115: Option 'snapshotChunks' must be a JSON list")
        .hasMessageEndingWith("not '[[0, 1': it is not JSON.");
    assertThatThrownBy(() -> read(options("dbo_orders", "snapshotKeys", "order_id")))
        .hasMessageStartingWith("MSSQL_CDC-100: Option 'snapshotKeys' must be a non-empty JSON list");
    assertThatThrownBy(() -> read(options("dbo_orders", "isolationLevel", "readUncommitted")))
        .hasMessage("MSSQL_CDC-100: Option 'isolationLevel' must be 'readCommitted' or 'snapshot', not"
            + " 'readUncommitted'. a snapshot never reads uncommitted rows (NOLOCK)");
    assertThatThrownBy(() -> read(options("dbo_orders", "numPartitions", "0")))
        .hasMessage("MSSQL_CDC-100: Option 'numPartitions' must be 'auto' or a positive integer, not '0'.");
    assertThatThrownBy(() -> read(options("dbo_orders", "snapshotChunk", "[]")))
        .hasMessageContaining("MSSQL_CDC-101: Unknown option").hasMessageContaining("did you mean 'snapshotChunks'?");
    assertThatThrownBy(() -> read(options("dbo_orders", "snapshotLsn", "zz")))
        .hasMessageStartingWith("MSSQL_CDC-100: Option 'snapshotLsn' must be an LSN");
  }

  @Test
  void chunksOnAKeyThatCannotBeRangedFailWhenTheDataFrameIsCreated() {
    db.createTable("dbo", "heap", "v int", "t time(7)");
    db.enableCdc("dbo", "heap");
    db.commit(tx -> tx.insert("dbo.heap", row("v", 1)));

    assertThatThrownBy(() -> read(options("dbo_heap", "snapshotChunks", "[[0, null, 5]]")))
        .satisfies(e -> assertThat(cdcError(e).getMessage()).isEqualTo("MSSQL_CDC-115: snapshotChunks has key"
            + " bounds, but dbo.heap's key [] cannot be read in ranges (the table has no unique index CDC uses, and"
            + " snapshotKeys is not set). Read the whole table without snapshotChunks, or name a unique key of"
            + " bindable columns in snapshotKeys."));
    assertThatThrownBy(() -> read(options("dbo_heap", "snapshotKeys", "[\"t\"]",
        "snapshotChunks", "[[0, null, \"10:00\"]]")))
        .satisfies(e -> assertThat(cdcError(e).getMessage()).contains(
            "dbo.heap's key [t] cannot be read in ranges (t is time(7), which has no bindable bound)"));
    assertThatThrownBy(() -> read(options("dbo_heap", "snapshotKeys", "[\"v\", \"t\"]",
        "snapshotChunks", "[[0, null, 5]]")))
        .satisfies(e -> assertThat(cdcError(e).getMessage()).endsWith(
            "not '[[0, null, 5]]': its bounds have 1 value(s), but the key [v, t] has 2 column(s)."));
    assertThatThrownBy(() -> read(options("dbo_heap", "snapshotKeys", "[\"gone\"]",
        "snapshotChunks", "[[0, null, 5]]")))
        .satisfies(e -> assertThat(cdcError(e).getMessage()).contains("the table has no column 'gone' now"));
  }

  /** The library's error in the cause chain (Spark may wrap it). */
  private static Throwable cdcError(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CdcError) {
        return t;
      }
    }
    throw new AssertionError("no CdcError in the cause chain", e);
  }
}
