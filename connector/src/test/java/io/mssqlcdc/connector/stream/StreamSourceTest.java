package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Streaming tests: the real Spark engine over scripted {@link MemoryCdc} histories. */
class StreamSourceTest {
  @TempDir Path tmp;

  private static MemoryCdc orders() {
    MemoryCdc db = MemoryCdc.create();
    db.enable("dbo_orders", "orders", MemoryCdc.col("id", 1, "int"), MemoryCdc.col("name", 2, "nvarchar(50)"));
    return db;
  }

  @Test
  void availableNowAdmitsFourCommitsPerBatch() {
    MemoryCdc db = orders();
    Lsn s = db.instance("dbo_orders").start;
    for (int i = 0; i < 10; i++) {
      db.inserts("orders", i * 3, 3);
    }
    StreamRuns.Run run = StreamRuns.availableNow(
        StreamRuns.options(db, "dbo_orders", "maxCommitsPerBatch", "4", "startingLsn", s.toString()),
        tmp.resolve("ckpt"));
    assertThat(run.sizes()).containsExactly(12, 12, 6);
    List<Row> rows = run.rows();
    assertThat(rows.stream().map(r -> r.getInt(6)).toList()).containsExactlyElementsOf(
        java.util.stream.IntStream.range(0, 30).boxed().toList());
    assertThat(run.batches().get(0).report()).isPresent();
    assertThat(run.batches().get(0).report().get().rowsRead()).isEqualTo(12);
  }
}
