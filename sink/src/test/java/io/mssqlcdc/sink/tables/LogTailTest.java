package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LogTail#onlyNullIn} tells from Delta's log whether the commits after a version only added
 * rows where a column is NULL, and says false for everything it cannot prove.
 */
@Tag("spark")
class LogTailTest {
  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private void append(String path, String rows) {
    spark.sql("SELECT * FROM VALUES " + rows + " AS t(id, event)").write().format("delta").mode("append")
        .save(path);
  }

  @Test
  void appendsOfNullEventsAreSeenAsSuchAndAnythingElseIsNot() {
    String p = tmp.resolve("t").toString();
    TableRef t = TableRef.of(p);
    append(p, "(1, 'bootstrap')");
    LogTail.Position zero = LogTail.position(spark, t).orElseThrow();
    assertThat(zero.version()).isZero();
    append(p, "(2, CAST(NULL AS STRING))");
    append(p, "(3, CAST(NULL AS STRING)), (4, CAST(NULL AS STRING))");
    LogTail.Position two = LogTail.position(spark, t).orElseThrow();
    assertThat(two.version()).isEqualTo(2);
    assertThat(two.table()).isEqualTo(zero.table());
    assertThat(LogTail.onlyNullIn(spark, t, 0, 2, "event")).isTrue();
    assertThat(LogTail.onlyNullIn(spark, t, 2, 2, "event")).isTrue();
    assertThat(LogTail.onlyNullIn(spark, t, 2, 1, "event")).as("a version before the one seen").isFalse();
    assertThat(LogTail.onlyNullIn(spark, t, -1, 2, "event")).as("the commit with the event").isFalse();
    assertThat(LogTail.onlyNullIn(spark, t, 0, 2, "id")).as("another column, set").isFalse();
    assertThat(LogTail.onlyNullIn(spark, t, 0, 2, "missing")).as("no statistics for it").isFalse();

    append(p, "(5, 'resnapshot'), (6, CAST(NULL AS STRING))");
    assertThat(LogTail.onlyNullIn(spark, t, 2, 3, "event")).as("a file with one event").isFalse();
    assertThat(LogTail.onlyNullIn(spark, t, 0, 4, "event")).as("a version not yet written").isFalse();

    spark.sql("DELETE FROM delta.`" + p + "` WHERE id = 2");
    assertThat(LogTail.onlyNullIn(spark, t, 3, 4, "event")).as("rows removed").isFalse();
    spark.sql("ALTER TABLE delta.`" + p + "` ADD COLUMNS (note STRING)");
    assertThat(LogTail.onlyNullIn(spark, t, 4, 5, "event")).as("the metadata changed").isFalse();
  }

  /** With column mapping a renamed column keeps its old physical name, which statistics are keyed by. */
  @Test
  void aTableWithColumnMappingIsNeverReadFromStatistics() {
    String p = tmp.resolve("mapped").toString();
    TableRef t = TableRef.of(p);
    append(p, "(1, 'bootstrap')");
    spark.sql("ALTER TABLE delta.`" + p + "` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name',"
        + " 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')");
    spark.sql("ALTER TABLE delta.`" + p + "` RENAME COLUMN event TO event_old");
    spark.sql("ALTER TABLE delta.`" + p + "` ADD COLUMNS (event STRING)");
    long from = LogTail.position(spark, t).orElseThrow().version();
    spark.sql("INSERT INTO delta.`" + p + "` (id, event_old, event) VALUES (2, NULL, 'resnapshot')");
    assertThat(LogTail.onlyNullIn(spark, t, from, from + 1, "event")).as("an event under the renamed column's old"
        + " physical name").isFalse();
  }

  @Test
  void aTableMadeAgainAtTheSamePlaceHasAnotherPosition() {
    String p = tmp.resolve("again").toString();
    TableRef t = TableRef.of(p);
    append(p, "(1, CAST(NULL AS STRING))");
    LogTail.Position first = LogTail.position(spark, t).orElseThrow();
    spark.sql("SELECT * FROM VALUES (1, 'bootstrap') AS t(id, event)").write().format("delta").mode("overwrite")
        .option("overwriteSchema", "true").save(p);
    assertThat(LogTail.onlyNullIn(spark, t, 0, 1, "event")).as("an overwrite removes rows").isFalse();
    org.apache.commons.io.FileUtils.deleteQuietly(tmp.resolve("again").toFile());
    append(p, "(1, 'bootstrap')");
    LogTail.Position second = LogTail.position(spark, t).orElseThrow();
    assertThat(second.version()).isZero();
    assertThat(second.table()).isNotEqualTo(first.table());
  }

  @Test
  void aNameOutsideTheCatalogHasNoPosition() {
    assertThat(LogTail.position(spark, TableRef.of("no_such_table_" + Math.abs(tmp.hashCode())))).isEmpty();
    assertThat(LogTail.onlyNullIn(spark, TableRef.of("no_such_table_x"), 0, 1, "event")).isFalse();
  }
}
