package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StreamProgress#read}: the batch rows' ends per app id, the waves' highs and the opens' app ids. */
@Tag("spark")
class StreamProgressReadTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  @Test
  void readsEachGenerationsEndTheWavesHighsAndWhichGenerationOpenedEachSnapshot() {
    String facts = tmp.resolve("facts").toString();
    String n = "CAST(NULL AS STRING)";
    spark.sql("SELECT * FROM VALUES"
        + " ('orders', 'bronze', " + n + ", '0x01', '0x05', '0x06', " + n + "),"
        + " ('orders', 'bronze', " + n + ", '0x06', '0x07', " + n + ", " + n + "),"
        + " ('orders.g1', 'bronze', 'snapshot_open', '0x10', '0x10', " + n + ", " + n + "),"
        + " ('orders.g1', 'bronze', 'snapshot_chunk', '0x10', '0x14', " + n + ", '{\"snapshot\": \"0x10\"}'),"
        + " ('orders.g1', 'bronze', 'snapshot_chunk', '0x10', '0x13', " + n + ", '{\"snapshot\": \"0x10\"}'),"
        + " ('orders.g1', 'bronze', " + n + ", '0x10', '0x12', '0x12', " + n + "),"
        + " ('orders.g2', 'bronze', " + n + ", '0x20', '0x22', '0x23', " + n + "),"
        + " ('orders.g2', 'other', " + n + ", '0x20', '0x99', '0x99', " + n + ")"
        + " AS f(app_id, target, event, min_lsn, max_lsn, end_lsn, detail)")
        .write().format("delta").save(facts);

    StreamProgress p = StreamProgress.read(spark, TableRef.of(facts), "bronze");

    assertThat(p.ends()).isEqualTo(Map.of("orders", "0x07", "orders.g1", "0x12", "orders.g2", "0x23"));
    assertThat(p.highs()).isEqualTo(Map.of("0x10", "0x14"));
    assertThat(p.opens()).isEqualTo(Map.of("0x10", Set.of("orders.g1")));
    assertThat(p.hasRead("0x10", "0x11", null)).as("generation 2 read past the high, generation 1 did not").isFalse();
  }
}
