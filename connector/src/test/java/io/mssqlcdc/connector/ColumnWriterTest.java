package io.mssqlcdc.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ColumnWriter}, the fast path, against {@link SparkValues#converter} (the conversion the
 * readers used before, and still the writers' fallback): over a wide row of every type a client
 * returns (each SQL Server type's Java class as {@code SqlCdcClient} and the fake give it, and the
 * other classes a declared type accepts), with NULLs, decimals wider than 18 digits, datetimeoffset,
 * binary, uniqueidentifier and non-ASCII text, the same values, sizes and errors; the rows compared
 * as the {@code UnsafeRow}s Spark makes of them, byte for byte, with one reused row re-filled
 * row after row (so a NULL after a value, and a value after a NULL, are covered).
 */
@Tag("spark")
class ColumnWriterTest {
  /** A column: its declared type and the values to cast, NULL included. */
  private record Column(String type, List<Object> values) {}

  private static List<Object> values(Object... v) {
    return new ArrayList<>(Arrays.asList(v));
  }

  private static final List<Column> COLUMNS = List.of(
      new Column("string", values("plain", null, "naïve café – 東京 🚀", "", "6F9619FF-8B86-D011-B42D-00C04FC964FF",
          "12:34:56.1234567", 42, new BigDecimal("1.50"), new byte[] {1, (byte) 0xAB}, LocalDateTime.of(2026, 3, 1, 10, 20),
          true)),
      new Column("int", values(7, null, Integer.MIN_VALUE, Integer.MAX_VALUE, (short) -3, 12L, new BigDecimal("12.00"),
          "42", true, 3.0d)),
      new Column("bigint", values(7L, null, Long.MIN_VALUE, Long.MAX_VALUE, 5, (short) 9, new BigDecimal("99"), " 17 ",
          (byte) 1)),
      new Column("smallint", values((short) 200, null, (short) 0, Short.MIN_VALUE, 255, 300L, "12")),
      new Column("tinyint", values((byte) 12, null, (byte) -128, 100, "7")),
      new Column("boolean", values(true, false, null, 1, 0L, "true", "0")),
      new Column("double", values(2.5d, null, -0.0d, Double.MAX_VALUE, Double.NaN, 3, 2.5f, new BigDecimal("1.25"),
          "3.75", 10L)),
      new Column("float", values(1.5f, null, Float.MIN_VALUE, 2.25d, 4, new BigDecimal("0.5"), "8.5")),
      new Column("decimal(18,2)", values(new BigDecimal("12.50"), null, new BigDecimal("-9999999999999999.99"),
          new BigDecimal("9999999999999999.99"), new BigDecimal("0.00"), new BigDecimal("12.5"), new BigDecimal("7"),
          new BigDecimal("1.2000"), 3, 4L, 0.25d, "12.34", new BigDecimal(new BigInteger("1234"), 2))),
      new Column("decimal(19,4)", values(new BigDecimal("922337203685477.5807"), null,
          new BigDecimal("-922337203685477.5808"), new BigDecimal("1.0000"), new BigDecimal("2.5"))),
      new Column("decimal(10,4)", values(new BigDecimal("214748.3647"), null, new BigDecimal("-0.0001"),
          new BigDecimal("1.00"))),
      new Column("decimal(38,10)", values(new BigDecimal("1234567890123456789012345678.0123456789"), null,
          new BigDecimal("-0.0000000001"), new BigDecimal("5"), 3L)),
      new Column("decimal(1,0)", values(new BigDecimal("9"), null, new BigDecimal("-9"), new BigDecimal("0"))),
      new Column("decimal(18,0)", values(new BigDecimal("999999999999999999"), null, new BigDecimal("-999999999999999999"),
          new BigDecimal("1E+3"))),
      new Column("timestamp_ntz", values(LocalDateTime.of(2026, 3, 1, 10, 20, 30, 123_456_789), null,
          LocalDateTime.of(1900, 1, 1, 0, 0), LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
          LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900),
          OffsetDateTime.of(2026, 3, 1, 10, 20, 30, 1_000, ZoneOffset.ofHours(-3)), Instant.parse("1960-05-05T01:02:03.000000500Z"),
          LocalDate.of(2026, 2, 28), Timestamp.valueOf("2026-03-01 10:20:30.5"), "2026-03-01 10:20:30.1234567 -03:00",
          "2026-03-01T10:20:30")),
      new Column("timestamp", values(OffsetDateTime.of(2026, 3, 1, 10, 20, 30, 123_456_789, ZoneOffset.ofHoursMinutes(5, 30)),
          null, OffsetDateTime.of(0001, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(14)),
          OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999, ZoneOffset.UTC), LocalDateTime.of(2026, 3, 1, 10, 20),
          Instant.parse("2026-03-01T10:20:30.999999999Z"), "2026-03-01 10:20:30.1234567 +01:00")),
      new Column("date", values(LocalDate.of(2026, 3, 1), null, LocalDate.of(1, 1, 1), LocalDate.of(9999, 12, 31),
          LocalDateTime.of(2026, 3, 1, 23, 59), OffsetDateTime.of(2026, 3, 1, 23, 0, 0, 0, ZoneOffset.ofHours(-3)),
          "2026-03-02")),
      new Column("binary", values(new byte[] {0, 1, (byte) 0xFF}, null, new byte[0], new byte[] {0, 0, 0, 0, 0, 0, 7, (byte) 0xD1},
          "text", "ü")));

  @Test
  void everyTypeWritesWhatSparkValuesConvertsAndSparkSeesTheSameRow() {
    for (boolean lossy : new boolean[] {false, true}) {
      StructType schema = new StructType();
      for (int j = 0; j < COLUMNS.size(); j++) {
        schema = schema.add("c" + j, DataType.fromDDL(COLUMNS.get(j).type()));
      }
      int width = schema.size();
      SparkValues.Converter[] old = new SparkValues.Converter[width];
      ColumnWriter[] writers = new ColumnWriter[width];
      for (int j = 0; j < width; j++) {
        old[j] = SparkValues.converter("c" + j, schema.fields()[j].dataType(), lossy);
        writers[j] = ColumnWriter.of("c" + j, schema.fields()[j].dataType(), lossy);
      }
      UnsafeProjection oldProjection = UnsafeProjection.create(schema);
      UnsafeProjection newProjection = UnsafeProjection.create(schema);
      SpecificInternalRow reused = new SpecificInternalRow(schema);
      int rows = COLUMNS.stream().mapToInt(c -> c.values().size()).max().orElseThrow() * 3;
      int compared = 0;
      for (int r = 0; r < rows; r++) {
        Object[] expected = new Object[width];
        long expectedBytes = 0;
        for (int j = 0; j < width; j++) {
          List<Object> vs = COLUMNS.get(j).values();
          Object v = vs.get((r * (j + 1)) % vs.size()); // columns cycle at different strides
          Object want = old[j].convert(v);
          expected[j] = want;
          expectedBytes += CapturedValues.sizeOf(want);
          assertThat(writers[j].write(v, reused, j)).as("size of %s as %s", v, COLUMNS.get(j).type())
              .isEqualTo(CapturedValues.sizeOf(want));
        }
        UnsafeRow want = oldProjection.apply(new GenericInternalRow(expected)).copy();
        UnsafeRow got = newProjection.apply(reused);
        assertThat(got).as("row %d (lossy=%s)", r, lossy).isEqualTo(want);
        for (int j = 0; j < width; j++) {
          DataType t = schema.fields()[j].dataType();
          Object a = got.get(j, t);
          Object b = want.get(j, t);
          assertThat(a instanceof byte[] ab ? Arrays.toString(ab) : String.valueOf(a))
              .isEqualTo(b instanceof byte[] bb ? Arrays.toString(bb) : String.valueOf(b));
        }
        assertThat(expectedBytes).isPositive();
        compared++;
      }
      assertThat(compared).isEqualTo(rows);
    }
  }

  /**
   * The timestamp writer keeps the last date's epoch seconds: runs of values on one date (in
   * distinct objects), a date change, a return to an earlier date, midnight on either side,
   * dates before 1970 and the type's ends still write what {@link SparkValues} converts.
   */
  @Test
  void timestampsOnSharedAndChangingDatesWriteWhatSparkValuesConverts() {
    List<Object> values = new ArrayList<>();
    LocalDateTime base = LocalDateTime.of(2026, 3, 1, 23, 59, 58, 999_999_999);
    for (int k = 0; k < 400; k++) {
      values.add(base.plusNanos(k * 7_000_001L)); // crosses midnight into 2026-03-02 on the way
    }
    values.add(LocalDateTime.of(2026, 3, 1, 0, 0)); // back to an earlier date
    values.add(LocalDateTime.of(2026, 3, 1, 0, 0, 0, 1_000));
    values.add(null);
    values.add(LocalDateTime.of(2026, 3, 1, 12, 0));
    values.add(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999));
    values.add(LocalDateTime.of(1969, 12, 31, 0, 0, 0, 500));
    values.add(LocalDateTime.of(1, 1, 1, 0, 0));
    values.add(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_900));
    values.add(OffsetDateTime.of(2026, 3, 1, 10, 0, 0, 0, ZoneOffset.ofHours(2)));
    values.add(LocalDateTime.of(2026, 3, 1, 10, 0, 0, 999)); // after another class, the kept date still right
    for (String type : List.of("timestamp_ntz", "timestamp")) {
      DataType t = DataType.fromDDL(type);
      StructType schema = new StructType().add("ts", t);
      SparkValues.Converter old = SparkValues.converter("ts", t, false);
      ColumnWriter writer = ColumnWriter.of("ts", t, false);
      SpecificInternalRow row = new SpecificInternalRow(schema);
      for (Object v : values) {
        writer.write(v, row, 0);
        Object want = old.convert(v);
        if (want == null) {
          assertThat(row.isNullAt(0)).as("%s", v).isTrue();
        } else {
          assertThat(row.getLong(0)).as("%s as %s", v, type).isEqualTo(want);
        }
      }
    }
    // and the micros are the epoch's, independently of either path: 1969-12-31T23:59:59.999999999 is -1 micro
    SpecificInternalRow row = new SpecificInternalRow(new StructType().add("ts", DataType.fromDDL("timestamp_ntz")));
    ColumnWriter w = ColumnWriter.of("ts", DataType.fromDDL("timestamp_ntz"), false);
    w.write(LocalDateTime.of(1970, 1, 2, 0, 0, 1), row, 0);
    assertThat(row.getLong(0)).isEqualTo(86_401_000_000L);
    w.write(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999), row, 0);
    assertThat(row.getLong(0)).isEqualTo(-1L);
    w.write(LocalDateTime.of(1970, 1, 2, 0, 0, 2), row, 0);
    assertThat(row.getLong(0)).isEqualTo(86_402_000_000L);
  }

  @Test
  void valuesSparkValuesRejectsFailAlikeWithTheSameMessage() {
    Object[][] cases = {
        {"int", 2_147_483_648L}, {"int", new BigDecimal("2.5")}, {"int", "x"}, {"smallint", 70_000},
        {"tinyint", 200}, {"bigint", Double.NaN}, {"boolean", "maybe"},
        {"decimal(18,2)", new BigDecimal("1.2345")}, {"decimal(18,2)", new BigDecimal("12345678901234567.00")},
        {"decimal(18,2)", new BigDecimal("99999999999999999")}, {"decimal(5,2)", new BigDecimal("1234.56")},
        {"decimal(38,10)", new BigDecimal("1.00000000001")}, {"decimal(18,2)", Double.POSITIVE_INFINITY},
        {"timestamp_ntz", "not a time"}, {"date", "2026-13-01"},
        {"timestamp", LocalDateTime.of(-290_000, 1, 1, 0, 0)}};
    for (Object[] c : cases) {
      for (boolean lossy : new boolean[] {false, true}) {
        DataType t = DataType.fromDDL((String) c[0]);
        Throwable expected = catchThrowable(() -> SparkValues.converter("col", t, lossy).convert(c[1]));
        SpecificInternalRow row = new SpecificInternalRow(new StructType().add("col", t));
        Throwable got = catchThrowable(() -> ColumnWriter.of("col", t, lossy).write(c[1], row, 0));
        if (expected == null) {
          assertThat(got).as("%s into %s (lossy=%s)", c[1], c[0], lossy).isNull();
        } else {
          assertThat(got).as("%s into %s (lossy=%s)", c[1], c[0], lossy).isNotNull()
              .hasMessage(expected.getMessage()).isInstanceOf(expected.getClass());
        }
      }
    }
    // the cases above do fail on the old path (the test is not vacuous)
    assertThat(catchThrowable(() -> SparkValues.converter("col", DataType.fromDDL("decimal(18,2)"))
        .convert(new BigDecimal("1.2345")))).hasMessageContaining("col");
  }
}
