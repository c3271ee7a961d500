package io.mssqlcdc.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.contract.ContractHistory.RowOp;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Test;

/** CDC cleanup purges a range a stream still needs: reads come back empty, the low watermark moves, the stream stops. */
class PurgedRangeIT {

  @Test
  void cleanupMovesTheLowWatermarkAndEmptiesTheRange() {
    ItServer server = ItServer.get();
    try (SqlServerContractHistory h = new SqlServerContractHistory(server)) {
      String table = ItTables.unique("purge");
      String ci = h.createTrackedTable(table);
      Lsn first = h.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      Lsn second = h.commit(table, List.of(RowOp.insert(2, "b", "2.00")));
      h.cleanup(ci, second);
      assertThat(h.client().minLsn(ci)).isGreaterThan(first);
      assertThat(ItTables.readAll(h.client(), ci, first, first, List.of("id"), true)).isEmpty();
      assertThat(ItTables.readAll(h.client(), ci, second, second, List.of("id"), true)).hasSize(1);
    }
  }

  @Test
  void aStreamStartingInThePurgedRangeStops() throws Exception {
    ItServer server = ItServer.get();
    String ci;
    Lsn first;
    try (SqlServerContractHistory h = new SqlServerContractHistory(server)) {
      String table = ItTables.unique("purges");
      ci = h.createTrackedTable(table);
      first = h.commit(table, List.of(RowOp.insert(1, "a", "1.00")));
      h.commit(table, List.of(RowOp.insert(2, "b", "2.00")));
      Lsn third = h.commit(table, List.of(RowOp.insert(3, "c", "3.00")));
      h.cleanup(ci, third);
    }
    SparkSession spark = ItSpark.session();
    Path dir = Files.createTempDirectory("purged");
    StreamingQuery q = spark.readStream().format("mssql_cdc")
        .option("captureInstance", ci)
        .option("connectionString", server.url())
        .option("startingLsn", first.hex())
        .load()
        .writeStream().format("delta")
        .option("checkpointLocation", dir.resolve("cp").toString())
        .trigger(Trigger.AvailableNow())
        .start(dir.resolve("bronze").toString());
    assertThatThrownBy(q::awaitTermination).hasStackTraceContaining("is gone");
  }
}
