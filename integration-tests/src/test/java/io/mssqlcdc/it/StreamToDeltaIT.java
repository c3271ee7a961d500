package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;

/**
 * End to end: a table on SQL Server → CDC → {@code spark.readStream.format("mssql_cdc")} → a Delta
 * table, then more commits and a restart on the same checkpoint: every change once, no gaps.
 * Written against Spark's public API only.
 */
class StreamToDeltaIT {

  @Test
  void changesReachDeltaExactlyOnceAcrossARestart() throws Exception {
    ItServer server = ItServer.get();
    SparkSession spark = ItSpark.session();
    Path dir = Files.createTempDirectory("stream");
    String bronze = dir.resolve("bronze").toString();
    try (SqlServerContractHistory h = new SqlServerContractHistory(server)) {
      String table = ItTables.unique("e2e");
      String ci = h.createTrackedTable(table);
      h.commit(table, List.of(RowOp.insert(1, "a", "1.00"), RowOp.insert(2, "b", "2.00")));
      h.commit(table, List.of(RowOp.update(1, "a2", "1.10")));
      runOnce(spark, server, ci, dir);
      Dataset<Row> first = spark.read().format("delta").load(bronze);
      assertThat(first.count()).isEqualTo(4);
      assertThat(first.filter("_operation = 4").select("name").first().getString(0)).isEqualTo("a2");

      h.commit(table, List.of(RowOp.delete(2)));
      runOnce(spark, server, ci, dir);
      Dataset<Row> all = spark.read().format("delta").load(bronze);
      assertThat(all.count()).isEqualTo(5);
      assertThat(all.select("_start_lsn", "_seqval", "_operation").distinct().count()).isEqualTo(5);
    }
  }

  private static void runOnce(SparkSession spark, ItServer server, String ci, Path dir) throws Exception {
    spark.readStream().format("mssql_cdc")
        .option("captureInstance", ci)
        .option("connectionString", server.url())
        .load()
        .writeStream().format("delta")
        .option("checkpointLocation", dir.resolve("cp").toString())
        .trigger(Trigger.AvailableNow())
        .start(dir.resolve("bronze").toString())
        .awaitTermination();
  }
}
