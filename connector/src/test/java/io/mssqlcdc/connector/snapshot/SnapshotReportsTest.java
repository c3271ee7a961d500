package io.mssqlcdc.connector.snapshot;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-chunk figures of snapshot reads ({@link SnapshotReports}, reference-behaviour §8.2), on
 * the fake with real Spark: rows, bytes and seconds per chunk, and {@code high_lsn}, the
 * {@code max_lsn} read after the chunk.
 */
@Tag("spark")
class SnapshotReportsTest {
  /** Bytes of one (order_id int, status 'new') row's captured values. */
  private static final long ROW_BYTES = 4 + "new".length();

  @TempDir Path dir;
  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.commit(tx -> {
      for (int i = 1; i <= 10; i++) {
        tx.insert("dbo.orders", row("order_id", i, "status", "new"));
      }
    });
  }

  private Map<String, String> options(String... kv) {
    Map<String, String> o = new HashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", dir.toString());
    o.put("captureInstance", "dbo_orders");
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    return o;
  }

  private Lsn maxLsn() {
    try (FakeCdcClient c = db.client()) {
      return c.maxLsn().orElseThrow();
    }
  }

  @Test
  void eachChunkReportsItsRowsBytesSecondsAndTheMaxLsnAfterItsRead() {
    Lsn stamp = maxLsn();
    // a writer commits between the stamp and the chunks' reads: high_lsn is read after the read
    db.commitBeforeRead(tx -> tx.insert("dbo.orders", row("order_id", 5_5, "status", "new")));
    Dataset<Row> df = SharedSpark.spark().read().format("mssql_cdc_snapshot")
        .options(options("snapshotChunks", "[[1, null, 4], [2, 4, 8], [3, 8, null]]", "readId", "orders-wave-1"))
        .load();
    List<Row> rows = df.collectAsList();
    Lsn after = maxLsn();

    assertThat(rows).hasSize(11);
    SnapshotReport report = SnapshotReports.forRead("orders-wave-1").orElseThrow();
    assertThat(report.stamp()).isEqualTo(stamp);
    assertThat(report.partitionsPlanned()).isEqualTo(3);
    assertThat(report.complete()).isTrue();
    assertThat(report.chunks()).extracting(c -> c.chunk().getAsInt()).containsExactly(1, 2, 3);
    assertThat(report.chunks()).extracting(ChunkFigures::rows).containsExactly(3L, 4L, 4L);
    assertThat(report.chunks()).extracting(ChunkFigures::bytes)
        .containsExactly(3 * ROW_BYTES, 4 * ROW_BYTES, 4 * ROW_BYTES);
    assertThat(report.chunks()).allSatisfy(c -> {
      assertThat(c.highLsn()).as("max_lsn after the chunk, past the stamp").contains(after);
      assertThat(c.readSeconds()).isBetween(0.0, 60.0);
      assertThat(c.readMb()).isEqualTo(c.bytes() / 1e6);
    });
    assertThat(after).isGreaterThan(stamp);
    assertThat(report.chunk(3).orElseThrow().rows()).as("8, 9, 10 and the 55 committed before the read").isEqualTo(4);
    assertThat(report.rowsRead()).isEqualTo(11);
    assertThat(SnapshotReports.forStamp(stamp)).containsSame(report);
  }

  @Test
  void aSecondActionOnTheSameDataFrameCountsEachChunkOnce() {
    Dataset<Row> df = SharedSpark.spark().read().format("mssql_cdc_snapshot")
        .options(options("snapshotChunks", "[[1, null, 6], [2, 6, null]]", "readId", "twice")).load();
    assertThat(df.count()).isEqualTo(10);
    assertThat(df.collectAsList()).hasSize(10);
    SnapshotReport report = SnapshotReports.forRead("twice").orElseThrow();
    assertThat(report.chunks()).extracting(ChunkFigures::rows).containsExactly(5L, 5L);
    assertThat(report.rowsRead()).isEqualTo(10);
  }

  @Test
  void aWholeTableReadReportsPerPartitionWithoutHighLsn() {
    Dataset<Row> df = SharedSpark.spark().read().format("mssql_cdc_snapshot")
        .options(options("numPartitions", "2", "readId", "whole")).load();
    assertThat(df.collectAsList()).hasSize(10);
    SnapshotReport report = SnapshotReports.forRead("whole").orElseThrow();
    assertThat(report.chunks()).hasSize(report.partitionsPlanned());
    assertThat(report.rowsRead()).isEqualTo(10);
    assertThat(report.bytesRead()).isEqualTo(10 * ROW_BYTES);
    assertThat(report.chunks()).allSatisfy(c -> {
      assertThat(c.chunk()).isEmpty();
      assertThat(c.highLsn()).isEmpty();
    });
  }
}
