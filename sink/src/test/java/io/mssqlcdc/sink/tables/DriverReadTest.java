package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link DriverRead} reads what Spark reads, on the driver, or says it cannot. */
@Tag("spark")
class DriverReadTest {
  private static final List<String> COLUMNS = List.of("table_name", "applied_lsn", "wave", "n", "until");

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private List<Map<String, Object>> read(String path, Set<String> keys) {
    List<Map<String, Object>> rows = DriverRead.rowsWhere(spark, TableRef.of(path), "table_name", keys, COLUMNS)
        .orElseThrow();
    rows.sort(Comparator.comparing(r -> (String) r.get("table_name")));
    return rows;
  }

  @Test
  void theRowsOfTheNewestVersionWithTheirTypes() {
    String p = tmp.resolve("control").toString();
    spark.sql("CREATE TABLE delta.`" + p + "` (table_name STRING, applied_lsn STRING, wave INT, n BIGINT,"
        + " until TIMESTAMP_NTZ) USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true',"
        + " 'delta.columnMapping.mode' = 'name')");
    spark.sql("INSERT INTO delta.`" + p + "` VALUES ('bronze', NULL, NULL, 7, TIMESTAMP_NTZ '2026-03-01 10:00:00'),"
        + " ('silver', '0x01', 2, NULL, TIMESTAMP_NTZ '2026-03-01 10:00:30.123456'), ('other', 'x', 1, 1, NULL)");
    List<Map<String, Object>> rows = read(p, Set.of("bronze", "silver", "missing"));
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0)).containsEntry("table_name", "bronze").containsEntry("n", 7L)
        .containsEntry("until", LocalDateTime.of(2026, 3, 1, 10, 0)).containsEntry("wave", null);
    assertThat(rows.get(1)).containsEntry("applied_lsn", "0x01").containsEntry("wave", 2)
        .containsEntry("until", LocalDateTime.of(2026, 3, 1, 10, 0, 30, 123_456_000));

    // An UPDATE (deletion vectors: the old row masked, not rewritten), a renamed column's data (column mapping).
    spark.sql("UPDATE delta.`" + p + "` SET applied_lsn = '0x02', wave = NULL WHERE table_name = 'silver'");
    spark.sql("DELETE FROM delta.`" + p + "` WHERE table_name = 'bronze'");
    rows = read(p, Set.of("bronze", "silver"));
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0)).containsEntry("applied_lsn", "0x02").containsEntry("wave", null);
    assertThat(spark.read().format("delta").load(p).where("table_name = 'silver'").first().getString(1))
        .as("as Spark reads it").isEqualTo("0x02");
  }

  @Test
  void whetherAVersionHasFiles() {
    String p = tmp.resolve("files").toString();
    TableRef t = TableRef.of(p);
    spark.sql("CREATE TABLE delta.`" + p + "` (id INT, amount DECIMAL(10,2)) USING delta");
    assertThat(DriverRead.hasFiles(spark, t, 0)).contains(false);
    spark.sql("INSERT INTO delta.`" + p + "` VALUES (1, 2.50)");
    assertThat(DriverRead.hasFiles(spark, t, 1)).contains(true);
    assertThat(DriverRead.hasFiles(spark, t, 0)).as("an older version, as it was").contains(false);
    spark.sql("DELETE FROM delta.`" + p + "`");
    assertThat(DriverRead.hasFiles(spark, t, 2)).as("every file removed").contains(false);
    assertThat(DriverRead.hasFiles(spark, TableRef.of(tmp.resolve("none").toString()), 0)).isEmpty();
  }

  @Test
  void whatItCannotReadItLeavesToSpark() {
    String p = tmp.resolve("t").toString();
    spark.sql("CREATE TABLE delta.`" + p + "` (table_name STRING, amount DECIMAL(10,2)) USING delta");
    assertThat(DriverRead.rowsWhere(spark, TableRef.of(p), "table_name", Set.of("a"), List.of("amount")))
        .as("a type it does not convert").isEmpty();
    assertThat(DriverRead.rowsWhere(spark, TableRef.of(p), "missing", Set.of("a"), List.of("amount")))
        .as("no key column").isEmpty();
    assertThat(DriverRead.rowsWhere(spark, TableRef.of(tmp.resolve("none").toString()), "table_name", Set.of("a"),
        List.of("table_name"))).as("no table").isEmpty();
  }
}
