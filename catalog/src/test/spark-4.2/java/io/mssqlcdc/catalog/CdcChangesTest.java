package io.mssqlcdc.catalog;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4.2's {@code CHANGES} clause over a catalog table (src/test/spark-4.2: the 4.1 line has no
 * change-data API): an LSN range returns the change stream's rows of that range.
 */
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
    db.commit(tx -> tx.insert("orders", row("order_id", 1, "status", "new"))
        .insert("orders", row("order_id", 2, "status", "paid")));
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "shipped")));
    db.commit(tx -> tx.delete("orders", List.of(2))
        .insert("orders", row("order_id", 3, "status", "new")));
    db.commit(tx -> tx.update("orders", row("order_id", 1, "status", "done"))
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
}
