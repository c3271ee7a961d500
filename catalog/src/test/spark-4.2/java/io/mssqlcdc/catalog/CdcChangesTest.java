package io.mssqlcdc.catalog;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4.2's {@code CHANGES} clause over a catalog table (src/test/spark-4.2: the 4.1 line has no
 * change-data API): an LSN range returns the change stream's rows of that range.
 */
@Tag("spark")
class CdcChangesTest {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  @TempDir static Path dir;
  static FakeCdcDatabase db;
  /** The stream's rows of the whole history, as strings of the columns compared. */
  static List<Row> streamed;
  static List<String> commits;

  static final String COLS = "order_id, status, _operation, _start_lsn, _seqval, _commit_ts";

  @BeforeAll
  static void setUp() throws Exception {
    db = FakeCdcDatabase.create(dir.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    // commit times a second apart: the timestamp ranges below must not depend on how fast the commits ran (two in
    // one millisecond made "FROM TIMESTAMP <commit 1>" take commit 0 too)
    java.time.LocalDateTime t = java.time.LocalDateTime.of(2026, 3, 1, 10, 0, 0);
    db.commitAt(t, tx -> tx.insert("orders", row("order_id", 1, "status", "new"))
        .insert("orders", row("order_id", 2, "status", "paid")));
    db.commitAt(t.plusSeconds(1), tx -> tx.update("orders", row("order_id", 1, "status", "shipped")));
    db.commitAt(t.plusSeconds(2), tx -> tx.delete("orders", List.of(2))
        .insert("orders", row("order_id", 3, "status", "new")));
    db.commitAt(t.plusSeconds(3), tx -> tx.update("orders", row("order_id", 1, "status", "done"))
        .update("orders", row("order_id", 3, "status", "paid")));
    SPARK.conf().set("spark.sql.catalog.cdc_ch", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_ch.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_ch.fakePath", db.path().toString());

    StreamingQuery q = SPARK.readStream().format("mssql_cdc").option("backend", "fake")
        .option("fakePath", db.path().toString()).option("captureInstance", "dbo_orders").load()
        .writeStream().format("memory").queryName("cdc_ch_stream")
        .option("checkpointLocation", dir.resolve("chk").toString()).trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    streamed = SPARK.sql("SELECT " + COLS + " FROM cdc_ch_stream ORDER BY _start_lsn, _seqval, _operation")
        .collectAsList();
    commits = SPARK.sql("SELECT DISTINCT _start_lsn FROM cdc_ch_stream ORDER BY _start_lsn").collectAsList()
        .stream().map(r -> r.getString(0)).toList();
  }

  private static List<String> rows(Dataset<Row> df) {
    return df.collectAsList().stream().map(Row::toString).toList();
  }

  private static List<String> streamedBetween(String from, String to) {
    return streamed.stream().filter(r -> r.getString(3).compareTo(from) >= 0 && r.getString(3).compareTo(to) <= 0)
        .map(Row::toString).toList();
  }

  @Test
  void aVersionRangeReturnsTheStreamsRowsOfThoseCommits() {
    assertThat(commits).hasSize(4);
    String from = commits.get(1);
    String to = commits.get(2);
    Dataset<Row> changes = SPARK.sql("SELECT " + COLS + " FROM cdc_ch.dbo.orders CHANGES FROM VERSION '" + from
        + "' TO VERSION '" + to + "' ORDER BY _start_lsn, _seqval, _operation");
    assertThat(rows(changes)).isEqualTo(streamedBetween(from, to)).hasSize(4);
  }

  private static final String CHANGES_COLS = "order_id, status, _change_type, _commit_version";

  private static List<String> changes(String clause) {
    return rows(SPARK.sql("SELECT " + CHANGES_COLS + " FROM cdc_ch.dbo.orders CHANGES " + clause
        + " ORDER BY order_id, _commit_version, _change_type"));
  }

  private static String commitTime(int commit) {
    return SPARK.sql("SELECT DISTINCT date_format(_commit_ts, \"yyyy-MM-dd'T'HH:mm:ss.SSS'Z'\") FROM cdc_ch_stream"
        + " WHERE _start_lsn = '" + commits.get(commit) + "'").first().getString(0);
  }

  @Test
  void theChangeDataColumnsComeFromTheOperationTheCommitLsnAndItsTime() {
    List<String> all = rows(SPARK.sql("SELECT order_id, _operation, _change_type, _commit_version = _start_lsn,"
        + " CAST(_commit_timestamp AS TIMESTAMP_NTZ) = _commit_ts, _row_version = _start_lsn || _seqval"
        + " FROM cdc_ch.dbo.orders CHANGES FROM VERSION '" + commits.get(2) + "' ORDER BY _row_version, _operation"));
    assertThat(all).containsExactly(
        "[2,1,delete,true,true,true]", "[3,2,insert,true,true,true]",
        "[1,3,update_preimage,true,true,true]", "[1,4,update_postimage,true,true,true]",
        "[3,3,update_preimage,true,true,true]", "[3,4,update_postimage,true,true,true]");
  }

  @Test
  void exclusiveBoundsLeaveTheirCommitOutAndNoEndingVersionReadsToTheNewestCommit() {
    assertThat(changes("FROM VERSION '" + commits.get(0) + "' EXCLUSIVE TO VERSION '" + commits.get(2) + "' EXCLUSIVE"))
        .containsExactly("[1,shipped,update_postimage," + commits.get(1) + "]",
            "[1,new,update_preimage," + commits.get(1) + "]");
    // Hex digits in any case, 0x optional: the same range.
    assertThat(changes("FROM VERSION '" + commits.get(1).substring(2).toLowerCase() + "' TO VERSION '"
        + commits.get(1) + "'")).containsExactly("[1,shipped,update_postimage," + commits.get(1) + "]",
            "[1,new,update_preimage," + commits.get(1) + "]");
    assertThat(rows(SPARK.sql("SELECT " + COLS + " FROM cdc_ch.dbo.orders CHANGES FROM VERSION '" + commits.get(2)
        + "' ORDER BY _start_lsn, _seqval, _operation"))).isEqualTo(streamedBetween(commits.get(2), commits.get(3)));
    assertThat(changes("FROM VERSION '" + commits.get(3) + "' EXCLUSIVE")).isEmpty();
  }

  @Test
  void aTimestampRangeReadsTheCommitsMadeInIt() {
    assertThat(rows(SPARK.sql("SELECT " + COLS + " FROM cdc_ch.dbo.orders CHANGES FROM TIMESTAMP '" + commitTime(1)
        + "' TO TIMESTAMP '" + commitTime(2) + "' ORDER BY _start_lsn, _seqval, _operation")))
        .isEqualTo(streamedBetween(commits.get(1), commits.get(2)));
    assertThat(changes("FROM TIMESTAMP '" + commitTime(1) + "' EXCLUSIVE TO TIMESTAMP '" + commitTime(3)
        + "' EXCLUSIVE")).containsExactly("[2,paid,delete," + commits.get(2) + "]",
            "[3,new,insert," + commits.get(2) + "]");
  }

  @Test
  void netChangesAreWhatFnCdcGetNetChangesReturns() {
    // fn_cdc_get_net_changes_dbo_orders(all): one row per key changed, with its final values; a key
    // inserted in the range is an insert, one deleted a delete, one inserted and deleted nothing.
    assertThat(changes("FROM VERSION '" + commits.get(0) + "' WITH ('deduplicationMode' = 'netChanges')"))
        .containsExactly("[1,done,insert," + commits.get(3) + "]", "[3,paid,insert," + commits.get(3) + "]");
    // Keys that existed before the range: an update (op 4's final values, with computeUpdates the
    // pre-image of the range's start beside it), a delete.
    assertThat(changes("FROM VERSION '" + commits.get(1) + "' WITH ('deduplicationMode' = 'netChanges',"
        + " 'computeUpdates' = 'true')")).containsExactly(
            "[1,new,update_preimage," + commits.get(1) + "]", "[1,done,update_postimage," + commits.get(3) + "]",
            "[2,paid,delete," + commits.get(2) + "]", "[3,paid,insert," + commits.get(3) + "]");
    // Without computeUpdates, an update is the row's delete (its values at the range's start) and insert.
    assertThat(changes("FROM VERSION '" + commits.get(1) + "' WITH ('deduplicationMode' = 'netChanges')"))
        .containsExactly("[1,new,delete," + commits.get(1) + "]", "[1,done,insert," + commits.get(3) + "]",
            "[2,paid,delete," + commits.get(2) + "]", "[3,paid,insert," + commits.get(3) + "]");
  }

  @Test
  void withoutNetChangesEveryChangeIsThereAsTheStreamHasIt() {
    List<String> all = changes("FROM VERSION '" + commits.get(1) + "'");
    assertThat(all).hasSize(8);
    assertThat(changes("FROM VERSION '" + commits.get(1) + "' WITH ('deduplicationMode' = 'dropCarryovers')"))
        .isEqualTo(all);
    assertThat(changes("FROM VERSION '" + commits.get(1) + "' WITH ('deduplicationMode' = 'none')")).isEqualTo(all);
    assertThat(changes("FROM VERSION '" + commits.get(1) + "' WITH ('computeUpdates' = 'true')")).isEqualTo(all);
  }

  @Test
  void readerOptionsAreTheStreamsAndBadOnesFailAsThere() {
    assertThat(changes("FROM VERSION '" + commits.get(1) + "' TO VERSION '" + commits.get(1)
        + "' WITH ('numPartitions' = '1')")).hasSize(2);
    assertThatThrownBy(() -> changes("FROM VERSION '" + commits.get(1) + "' WITH ('numPartition' = '1')"))
        .hasMessageStartingWith("MSSQL_CDC-101: Unknown option 'numPartition': did you mean 'numPartitions'?");
    assertThatThrownBy(() -> changes("FROM VERSION 'not-an-lsn'")).hasMessage("MSSQL_CDC-103: Invalid LSN 'not-an-lsn': 'n' is not a hex digit (for example 0x0000002A000001F00003).");
  }

  @Test
  /** {@code spark.read().changes(table)} is the batch read, {@code readStream().changes(table)} the change stream from the starting version. */
  void theDataFrameReadersChangesIsTheSameRead() throws Exception {
    Dataset<Row> df = SPARK.read().option("startingVersion", commits.get(1)).option("endingVersion", commits.get(2))
        .changes("cdc_ch.dbo.orders");
    assertThat(rows(df.selectExpr(COLS.split(", ")).orderBy("_start_lsn", "_seqval", "_operation")))
        .isEqualTo(streamedBetween(commits.get(1), commits.get(2)));
    StreamingQuery q = SPARK.readStream().option("startingVersion", commits.get(1)).changes("cdc_ch.dbo.orders")
        .selectExpr(COLS.split(", ")).writeStream().format("memory").queryName("cdc_ch_changes_stream")
        .option("checkpointLocation", dir.resolve("chk-changes").toString()).trigger(Trigger.AvailableNow()).start();
    q.awaitTermination();
    assertThat(rows(SPARK.sql("SELECT * FROM cdc_ch_changes_stream ORDER BY _start_lsn, _seqval, _operation")))
        .isEqualTo(streamedBetween(commits.get(1), commits.get(3)));
  }

  @Test
  void aStreamOfChangesRestartsOnItsCheckpointWithNoDuplicatesAndNoGaps() throws Exception {
    db.createTable("dbo", "items", "item_id int", "name varchar(20)").key("item_id");
    db.enableCdc("dbo", "items");
    db.commit(tx -> tx.insert("items", row("item_id", 1, "name", "a")));
    db.commit(tx -> tx.update("items", row("item_id", 1, "name", "b")));
    String chk = dir.resolve("chk-items").toString();
    String out = dir.resolve("out-items").toString();
    Runnable run = () -> {
      try {
        SPARK.readStream().changes("cdc_ch.dbo.items").selectExpr("item_id", "name", "_change_type", "_commit_version")
            .writeStream().format("parquet").option("path", out).option("checkpointLocation", chk)
            .trigger(Trigger.AvailableNow()).start().awaitTermination();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    run.run();
    assertThat(rows(SPARK.read().parquet(out).orderBy("_commit_version", "_change_type")
        .select("item_id", "name", "_change_type"))).containsExactly("[1,a,insert]", "[1,b,update_postimage]", "[1,a,update_preimage]");
    db.commit(tx -> tx.delete("items", List.of(1)));
    run.run(); // restarted on the checkpoint: only the new commit
    assertThat(rows(SPARK.read().parquet(out).orderBy("_commit_version", "_change_type")
        .select("item_id", "name", "_change_type")))
        .containsExactly("[1,a,insert]", "[1,b,update_postimage]", "[1,a,update_preimage]", "[1,b,delete]");
  }
}
