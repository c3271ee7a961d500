package io.mssqlcdc.finalization;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.tables.DeltaTables;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control table on Delta: created at version 4 as the reference's, and older ones migrated. */
@Tag("spark")
class ControlTableTest {
  static final String COLUMNS = "struct<table_name:string,finalized_until:timestamp_ntz,end_lsn:string,"
      + "end_commit_ts:timestamp_ntz,updated_at:timestamp_ntz,applied_lsn:string,snapshot_lsn:string,"
      + "open_snapshot_lsn:string,snapshot_wave:int>";

  @TempDir Path tmp;
  SparkSession spark = SharedDeltaSpark.spark();

  private Map<String, String> comments(TableRef t) {
    Map<String, String> out = new LinkedHashMap<>();
    for (StructField f : DeltaTables.schema(spark, t).fields()) {
      out.put(f.name(), f.getComment().isDefined() ? f.getComment().get() : null);
    }
    return out;
  }

  @Test
  void aNewControlTableHasTheReferencesColumnsAtVersionFour() {
    String path = tmp.resolve("control").toString();
    Finalization.ensureControlTable(spark, path);
    TableRef t = TableRef.of(path);
    assertThat(DeltaTables.schema(spark, t).catalogString()).isEqualTo(COLUMNS);
    assertThat(DeltaTables.properties(spark, t)).containsEntry("mssql_cdc.schema_version", "4");
    assertThat(comments(t).values()).doesNotContainNull();
    assertThat(comments(t).get("finalized_until")).contains("loss gap");
    assertThat(DeltaTables.table(spark, t).detail().select("description").first().getString(0))
        .startsWith("mssql-cdc-spark control table");
    long version = DeltaTables.version(spark, t);
    Finalization.ensureControlTable(spark, path); // current: nothing to do
    assertThat(DeltaTables.version(spark, t)).isEqualTo(version);
  }

  @Test
  void anUnstampedTableOfTheFirstReleaseIsMigratedInOrder() {
    String path = tmp.resolve("old-control").toString();
    TableRef t = TableRef.of(path);
    StructType v0 = new StructType().add("table_name", DataTypes.StringType).add("finalized_until",
        DataTypes.TimestampNTZType).add("end_lsn", DataTypes.StringType).add("end_commit_ts", DataTypes.TimestampNTZType)
        .add("updated_at", DataTypes.TimestampNTZType);
    DeltaTables.create(spark, t, v0, "old", Map.of());
    spark.sql("INSERT INTO delta.`" + path + "` VALUES ('bronze.orders', TIMESTAMP_NTZ'2026-03-01 10:00:00',"
        + " '0x0000002A000001F00003', TIMESTAMP_NTZ'2026-03-01 10:42:17.123', TIMESTAMP_NTZ'2026-03-01 10:42:20')");

    Finalization.ensureControlTable(spark, path);

    assertThat(DeltaTables.schema(spark, t).catalogString()).isEqualTo(COLUMNS);
    assertThat(DeltaTables.properties(spark, t)).containsEntry("mssql_cdc.schema_version", "4");
    assertThat(comments(t).get("open_snapshot_lsn")).contains("re-snapshot");
    assertThat(comments(t).get("finalized_until")).contains("loss gap");
    assertThat(Finalization.finalizedUntil(spark, path, "bronze.orders")).contains(java.time.LocalDateTime.of(2026, 3, 1, 10, 0));
  }

  @Test
  void aTableAtVersionTwoGetsTheTwoCommentMigrations() {
    String path = tmp.resolve("v2-control").toString();
    TableRef t = TableRef.of(path);
    StructType noComments = new StructType(Arrays.stream(ControlTable.schema().fields())
        .map(f -> new StructField(f.name(), f.dataType(), true, org.apache.spark.sql.types.Metadata.empty()))
        .toArray(StructField[]::new));
    DeltaTables.create(spark, t, noComments, "old", Map.of("mssql_cdc.schema_version", "2"));

    Finalization.ensureControlTable(spark, path);

    assertThat(DeltaTables.properties(spark, t)).containsEntry("mssql_cdc.schema_version", "4");
    Map<String, String> c = comments(t);
    assertThat(c.get("open_snapshot_lsn")).isEqualTo(ControlTable.OPEN_SNAPSHOT_LSN_COMMENT);
    assertThat(c.get("finalized_until")).isEqualTo(ControlTable.FINALIZED_UNTIL_COMMENT);
    assertThat(c.get("applied_lsn")).isNull(); // migrations 1-2 were applied by the release that wrote it
  }
}
