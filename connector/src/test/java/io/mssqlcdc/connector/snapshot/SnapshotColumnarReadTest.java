package io.mssqlcdc.connector.snapshot;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.SharedSpark;
import io.mssqlcdc.fake.FakeCdcDatabase;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columnar snapshot reader ({@link SnapshotBatchReader}) gives exactly the row reader's rows:
 * every SQL Server type the fake models, inferred and cast to other Spark types through
 * {@code columns}, NULLs in every column, more rows than one batch, the metadata columns,
 * {@code _chunk}, and a captured column the table no longer has.
 */
class SnapshotColumnarReadTest {
  /** More than two batches per partition with 2 partitions. */
  private static final int ROWS = 2 * SnapshotBatchReader.CAPACITY * 2 + 123;

  /** Every type the fake models (rowversion, which the server fills, left out), column name to declaration. */
  private static final Map<String, String> TYPES = new LinkedHashMap<>();

  static {
    TYPES.put("b", "bit");
    TYPES.put("ti", "tinyint");
    TYPES.put("si", "smallint");
    TYPES.put("i", "int");
    TYPES.put("bi", "bigint");
    TYPES.put("r", "real");
    TYPES.put("f", "float");
    TYPES.put("d9", "decimal(9,2)");
    TYPES.put("d18", "numeric(18,4)");
    TYPES.put("d38", "decimal(38,10)");
    TYPES.put("m", "money");
    TYPES.put("sm", "smallmoney");
    TYPES.put("dt", "date");
    TYPES.put("dtm", "datetime");
    TYPES.put("dt2", "datetime2(7)");
    TYPES.put("sdt", "smalldatetime");
    TYPES.put("dto", "datetimeoffset(7)");
    TYPES.put("t", "time(7)");
    TYPES.put("c", "char(5)");
    TYPES.put("vc", "varchar(20)");
    TYPES.put("nc", "nchar(5)");
    TYPES.put("nvc", "nvarchar(20)");
    TYPES.put("tx", "text");
    TYPES.put("ntx", "ntext");
    TYPES.put("x", "xml");
    TYPES.put("g", "uniqueidentifier");
    TYPES.put("bin", "binary(4)");
    TYPES.put("vb", "varbinary(10)");
    TYPES.put("img", "image");
  }

  @TempDir
  Path dir;

  FakeCdcDatabase db;

  @BeforeEach
  void setUp() {
    db = FakeCdcDatabase.create(dir);
    List<String> columns = new ArrayList<>();
    columns.add("id int");
    TYPES.forEach((name, type) -> columns.add(name + " " + type));
    columns.add("gone int");
    db.createTable("dbo", "all_types", columns.toArray(new String[0])).key("id");
    db.enableCdc("dbo", "all_types");
    db.commit(tx -> {
      for (int k = 0; k < ROWS; k++) {
        Map<String, Object> v = values(k);
        v.put("gone", k);
        tx.insert("dbo.all_types", v);
      }
    });
    db.dropColumn("dbo.all_types", "gone"); // captured, no longer in the table: NULL
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  /** Row {@code k}: each column NULL on one row in 7 (a different one per column), else a value of {@code k}. */
  private static Map<String, Object> values(int k) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", k);
    int sign = k % 2 == 0 ? 1 : -1;
    LocalDateTime at = LocalDateTime.of(2026, 12, 4, 12, 0).plusSeconds(k * 37L).plusNanos(k * 1_234_567L % 1_000_000_000L);
    v.put("b", k % 3 == 0);
    v.put("ti", k % 128);
    v.put("si", sign * (k % 30_000));
    v.put("i", sign * k * 1_000);
    v.put("bi", sign * (long) k * 1_000_000_007L);
    v.put("r", sign * k / 8.0f);
    v.put("f", sign * k / 3.0);
    v.put("d9", BigDecimal.valueOf(sign * (long) k * 7, 2));
    v.put("d18", BigDecimal.valueOf(sign * (long) k * 1_000_003L, 4));
    v.put("d38", new BigDecimal(BigDecimal.valueOf(sign * (long) k).pow(3).toString() + "123456.0123456789"));
    v.put("m", BigDecimal.valueOf(sign * (long) k * 12_345L, 4));
    v.put("sm", BigDecimal.valueOf(sign * (long) k * 3L, 4));
    v.put("dt", LocalDate.of(1990, 1, 1).plusDays(k));
    v.put("dtm", at.withNano(k % 1000 * 1_000_000 / 10 * 10));
    v.put("dt2", at);
    v.put("sdt", at.withSecond(0).withNano(0));
    v.put("dto", OffsetDateTime.of(at, ZoneOffset.ofHoursMinutes(k % 14, 0)));
    v.put("t", LocalTime.ofNanoOfDay(k * 1_000_000_300L % 86_400_000_000_000L / 100 * 100));
    v.put("c", "c" + k % 1000);
    v.put("vc", "vc-" + k);
    v.put("nc", "ñ" + k % 1000);
    v.put("nvc", "nvc-é€-" + k);
    v.put("tx", "text " + k);
    v.put("ntx", "ntext ü " + k);
    v.put("x", "<r k=\"" + k + "\"/>");
    v.put("g", new UUID(k, -k).toString());
    v.put("bin", new byte[] {(byte) k, (byte) (k >> 8), 0, 1});
    v.put("vb", new byte[] {(byte) k, (byte) (k >> 3), (byte) (k >> 8)});
    v.put("img", new byte[] {(byte) (k * 31)});
    int c = 0;
    for (String name : TYPES.keySet()) {
      if (k % 7 == c++ % 7) {
        v.put(name, null);
      }
    }
    return v;
  }

  private Map<String, String> options(boolean columnar, String... more) {
    Map<String, String> o = new HashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", dir.toString());
    o.put("captureInstance", "dbo_all_types");
    o.put("numPartitions", "2");
    o.put("columnarReads", Boolean.toString(columnar));
    for (int i = 0; i < more.length; i += 2) {
      o.put(more[i], more[i + 1]);
    }
    return o;
  }

  private static Dataset<Row> read(Map<String, String> options) {
    return SharedSpark.spark().read().format("mssql_cdc_snapshot").options(options).load();
  }

  /** The read's rows by id, and whether Spark read it as column batches. */
  private static List<Row> rows(Map<String, String> options, boolean expectColumnar) {
    Dataset<Row> df = read(options);
    df.collectAsList(); // plans the query
    String plan = df.queryExecution().executedPlan().toString();
    assertThat(plan.contains("ColumnarToRow")).as("plan %s", plan).isEqualTo(expectColumnar);
    return df.orderBy("id").collectAsList();
  }

  private static void assertSameRows(List<Row> columnar, List<Row> rows) {
    assertThat(columnar).hasSize(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      assertThat(columnar.get(i)).as("row %d", i).isEqualTo(rows.get(i));
    }
  }

  @Test
  void everyInferredTypeReadsTheSameAsRowsNullsIncluded() {
    List<Row> rows = rows(options(false), false);
    List<Row> columnar = rows(options(true), true);

    assertThat(rows).hasSize(ROWS);
    assertThat(rows.get(0).<Integer>getAs("id")).isEqualTo(0);
    assertThat(rows.get(1).<String>getAs("nvc")).isEqualTo("nvc-é€-1");
    assertThat(rows.get(7).isNullAt(rows.get(7).fieldIndex("b"))).isTrue();
    assertThat(rows.get(7).<Integer>getAs("_operation")).isEqualTo(0);
    assertThat(rows.get(7).isNullAt(rows.get(7).fieldIndex("_seqval"))).isTrue();
    assertSameRows(columnar, rows);
  }

  @Test
  void castsToOtherSparkTypesReadTheSameAsRows() {
    String ddl = "id INT, b BOOLEAN, ti BYTE, si INT, i LONG, bi DECIMAL(20,0), r DOUBLE, f FLOAT, d9 DECIMAL(12,3),"
        + " d18 DECIMAL(30,4), d38 STRING, m DOUBLE, sm DECIMAL(5,1), dt TIMESTAMP, dtm TIMESTAMP_NTZ,"
        + " dt2 TIMESTAMP, sdt DATE, dto TIMESTAMP, t STRING, c BINARY, vc STRING, g STRING, bin STRING,"
        + " gone INT";
    List<Row> rows = rows(options(false, "columns", ddl, "allowPrecisionLoss", "true"), false);
    List<Row> columnar = rows(options(true, "columns", ddl, "allowPrecisionLoss", "true"), true);

    assertThat(rows).hasSize(ROWS);
    assertThat(rows.get(3).isNullAt(rows.get(3).fieldIndex("gone"))).as("not in the table: NULL").isTrue();
    assertSameRows(columnar, rows);
  }

  @Test
  void chunksReadTheSameAsRows() {
    String chunks = "[[0, null, 5000], [4, 5000, null]]";
    List<Row> rows = rows(options(false, "snapshotChunks", chunks, "includeCommandId", "false"), false);
    List<Row> columnar = rows(options(true, "snapshotChunks", chunks, "includeCommandId", "false"), true);

    assertThat(rows.get(ROWS - 1).<Integer>getAs("_chunk")).isEqualTo(4);
    assertSameRows(columnar, rows);
  }
}
