package io.mssqlcdc.connector;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.fake.FakeCdcDatabase;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spark schema both readers give a table with one column of every SQL Server type family,
 * written out by hand: names, Spark types and nullability, metadata columns included.
 */
@Tag("spark")
class ReaderSchemaTest {
  @TempDir Path tmp;
  FakeCdcDatabase db;

  /** The captured columns as both readers type them. */
  private static final List<String> CAPTURED = List.of(
      "id INT NULL", "flag BOOLEAN NULL", "tiny SMALLINT NULL", "small SMALLINT NULL", "big BIGINT NULL",
      "r FLOAT NULL", "f DOUBLE NULL", "amount DECIMAL(18,2) NULL", "n DECIMAL(38,10) NULL",
      "m DECIMAL(19,4) NULL", "sm DECIMAL(10,4) NULL", "d DATE NULL", "dt TIMESTAMP_NTZ NULL",
      "dt2 TIMESTAMP_NTZ NULL", "sdt TIMESTAMP_NTZ NULL", "dto TIMESTAMP NULL", "t STRING NULL",
      "c STRING NULL", "vc STRING NULL", "nc STRING NULL", "nvc STRING NULL", "txt STRING NULL",
      "ntxt STRING NULL", "x STRING NULL", "g STRING NULL", "b BINARY NULL", "vb BINARY NULL",
      "img BINARY NULL", "rv BINARY NULL");

  private static final List<String> METADATA = List.of(
      "_capture_instance STRING NULL", "_start_lsn STRING NULL", "_seqval STRING NULL", "_operation INT NULL",
      "_command_id INT NULL", "_commit_ts TIMESTAMP_NTZ NULL");

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(tmp.resolve("db"));
    db.createTable("dbo", "every", "id int", "flag bit", "tiny tinyint", "small smallint", "big bigint", "r real",
        "f float", "amount decimal(18,2)", "n numeric(38,10)", "m money", "sm smallmoney", "d date",
        "dt datetime", "dt2 datetime2(7)", "sdt smalldatetime", "dto datetimeoffset(3)", "t time(7)",
        "c char(3)", "vc varchar(max)", "nc nchar(2)", "nvc nvarchar(40)", "txt text", "ntxt ntext", "x xml",
        "g uniqueidentifier", "b binary(4)", "vb varbinary(max)", "img image", "rv rowversion").key("id");
    db.enableCdc("dbo", "every");
  }

  private Map<String, String> options(String... kv) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", db.path().toString());
    o.put("captureInstance", "dbo_every");
    for (int i = 0; i < kv.length; i += 2) {
      o.put(kv[i], kv[i + 1]);
    }
    return o;
  }

  private static List<String> fields(StructType schema) {
    return Arrays.stream(schema.fields())
        .map(f -> f.name() + " " + f.dataType().sql() + (f.nullable() ? " NULL" : " NOT NULL"))
        .toList();
  }

  private static List<String> concat(List<String> a, List<String> b, String... more) {
    List<String> out = new java.util.ArrayList<>(a);
    out.addAll(b);
    out.addAll(List.of(more));
    return out;
  }

  @Test
  void theStreamsSchema() {
    StructType schema = SharedSpark.spark().readStream().format("mssql_cdc").options(options()).load().schema();
    assertThat(fields(schema)).containsExactlyElementsOf(concat(METADATA, CAPTURED));

    StructType noCommandId = SharedSpark.spark().readStream().format("mssql_cdc")
        .options(options("includeCommandId", "false")).load().schema();
    assertThat(fields(noCommandId)).containsExactlyElementsOf(
        concat(METADATA.stream().filter(f -> !f.startsWith("_command_id")).toList(), CAPTURED));
  }

  @Test
  void theSnapshotsSchema() {
    StructType schema = SharedSpark.spark().read().format("mssql_cdc_snapshot").options(options()).load().schema();
    assertThat(fields(schema)).containsExactlyElementsOf(concat(METADATA, CAPTURED));

    StructType chunked = SharedSpark.spark().read().format("mssql_cdc_snapshot")
        .options(options("snapshotChunks", "[[0, null, 10], [1, 10, null]]")).load().schema();
    assertThat(fields(chunked)).containsExactlyElementsOf(concat(METADATA, CAPTURED, "_chunk INT NULL"));
  }
}
