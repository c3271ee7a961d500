package io.mssqlcdc.sink.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Path;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChecksumFiles#holdsOnly}: proven from the files' statistics only when every file's bounds are one
 * of the values (or the column NULL throughout), never for a file that mixes values, a name Delta's
 * 32-character prefix truncates, a value that differs only by case, another version than the newest, or a
 * table with column mapping (statistics keyed by physical names);
 * {@link ChecksumFiles#largest}: the largest maximum; {@link ChecksumFiles#mayHold}: a predicate ruled out by
 * the bounds.
 */
@Tag("spark")
class ChecksumFilesTest {
  private static final String COLUMN = "_capture_instance";

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private void append(String path, String values) {
    spark.sql("SELECT CAST(v AS STRING) AS " + COLUMN + ", id FROM VALUES " + values + " AS t(v, id)").coalesce(1)
        .write().format("delta").mode("append").save(path);
  }

  @Test
  void provenOnlyWhenEveryFileHoldsOneOfTheValues() {
    String p = tmp.resolve("bronze").toString();
    TableRef ref = TableRef.of(p);
    append(p, "('dbo_t', 1), ('dbo_t', 2)");
    append(p, "('dbo_t2', 3)");
    long v1 = DeltaTables.version(spark, ref);
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v1, COLUMN, Set.of("dbo_t", "dbo_t2"))).isTrue();
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v1, COLUMN, Set.of("dbo_t"))).as("a file of another value")
        .isFalse();
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v1, COLUMN, Set.of("DBO_T", "dbo_t2"))).as("exact values only")
        .isFalse();
    assertThat(ChecksumFiles.largest(spark, ref, v1, COLUMN)).contains("dbo_t2");

    append(p, "(NULL, 4), (NULL, 5)");
    long v2 = DeltaTables.version(spark, ref);
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v2, COLUMN, Set.of("dbo_t", "dbo_t2"))).as("a file of NULLs")
        .isTrue();
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v1, COLUMN, Set.of("dbo_t", "dbo_t2")))
        .as("not the newest version").isFalse();
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v2, "id", Set.of("1"))).as("not a string column").isFalse();
    assertThat(ChecksumFiles.largest(spark, ref, v2, "id")).as("not a string column").isEmpty();
    assertThat(ChecksumFiles.largest(spark, ref, v2, COLUMN)).as("NULLs have no maximum").contains("dbo_t2");

    append(p, "('dbo_t', 6), ('zzz', 7)");
    long v3 = DeltaTables.version(spark, ref);
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v3, COLUMN, Set.of("dbo_t", "dbo_t2"))).as("a mixed file")
        .isFalse();
    assertThat(ChecksumFiles.largest(spark, ref, v3, COLUMN)).contains("zzz");

    // mayHold: ruled out by every file's bounds, or not; unknown for another version.
    org.apache.spark.sql.Column id = org.apache.spark.sql.functions.col("id");
    assertThat(ChecksumFiles.mayHold(spark, ref, v3, id.equalTo(100))).contains(false);
    assertThat(ChecksumFiles.mayHold(spark, ref, v3, id.equalTo(5))).contains(true);
    assertThat(ChecksumFiles.mayHold(spark, ref, v3, id.gt(3).and(org.apache.spark.sql.functions.col(COLUMN)
        .isNotNull()))).as("ids 4 and 5 only in the file of NULLs, 6 and 7 beside names").contains(true);
    assertThat(ChecksumFiles.mayHold(spark, ref, v2, id.gt(3).and(org.apache.spark.sql.functions.col(COLUMN)
        .isNotNull()))).as("not the newest version").isEmpty();
    String p2 = tmp.resolve("nulls").toString();
    append(p2, "(NULL, 4), (NULL, 5)");
    TableRef ref2 = TableRef.of(p2);
    assertThat(ChecksumFiles.mayHold(spark, ref2, DeltaTables.version(spark, ref2),
        org.apache.spark.sql.functions.col(COLUMN).isNotNull())).as("a column NULL throughout").contains(false);
  }

  @Test
  void notProvenForANameDeltaTruncates() {
    String p = tmp.resolve("long").toString();
    String name = "dbo_a_capture_instance_name_longer_than_32";
    append(p, "('" + name + "', 1)");
    TableRef ref = TableRef.of(p);
    assertThat(ChecksumFiles.holdsOnly(spark, ref, DeltaTables.version(spark, ref), COLUMN, Set.of(name))).isFalse();
    String p2 = tmp.resolve("short").toString();
    append(p2, "('dbo_exactly_32_characters_long__', 1)");
    TableRef ref2 = TableRef.of(p2);
    assertThat(ChecksumFiles.holdsOnly(spark, ref2, DeltaTables.version(spark, ref2), COLUMN,
        Set.of("dbo_exactly_32_characters_long__"))).isTrue();
  }

  @Test
  void notReadWithColumnMapping() {
    String p = tmp.resolve("mapped").toString();
    spark.sql("CREATE TABLE delta.`" + p + "` (" + COLUMN + " STRING, id INT) USING delta"
        + " TBLPROPERTIES ('delta.columnMapping.mode' = 'name')");
    append(p, "('dbo_t', 1)");
    TableRef ref = TableRef.of(p);
    long v = DeltaTables.version(spark, ref);
    assertThat(ChecksumFiles.holdsOnly(spark, ref, v, COLUMN, Set.of("dbo_t"))).isFalse();
    assertThat(ChecksumFiles.largest(spark, ref, v, COLUMN)).isEmpty();
    assertThat(ChecksumFiles.mayHold(spark, ref, v, org.apache.spark.sql.functions.col("id").equalTo(7))).isEmpty();
  }
}
