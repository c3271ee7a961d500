package io.mssqlcdc.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("spark")
class CapturedValuesTest {
  private static final StructField[] FIELDS = new StructType()
      .add("_meta", DataTypes.StringType)
      .add("id", DataTypes.IntegerType)
      .add("name", DataTypes.StringType)
      .add("amount", DataTypes.createDecimalType(18, 2))
      .add("wide", DataTypes.createDecimalType(38, 2))
      .fields();

  @Test
  void castsEachValueFromItsPositionAndLeavesAbsentColumnsNull() {
    CapturedValues c = new CapturedValues(FIELDS, 1, new int[] {2, -1, 0, -1});
    assertThat(c.names()).containsExactly("id", "name", "amount", "wide");
    assertThat(c.count()).isEqualTo(4);
    SpecificInternalRow row = new SpecificInternalRow(new StructType(FIELDS));
    row.update(0, UTF8String.fromString("kept"));
    List<Object> source = List.of(new BigDecimal("12.50"), "ignored", 7);
    long size = c.fill(row, source::get);
    assertThat(row.getUTF8String(0)).as("metadata untouched").hasToString("kept");
    assertThat(row.getInt(1)).isEqualTo(7);
    assertThat(row.isNullAt(2)).as("absent column").isTrue();
    assertThat(row.getDecimal(3, 18, 2)).isEqualTo(Decimal.apply(new BigDecimal("12.50"), 18, 2));
    assertThat(row.isNullAt(4)).isTrue();
    assertThat(size).isEqualTo(4 + 8);
    assertThat(c.bytes()).isEqualTo(12);
    c.fill(row(), source::get);
    assertThat(c.bytes()).as("accumulates").isEqualTo(24);
  }

  @Test
  void inOrderReadsEveryFieldFromTheSamePosition() {
    CapturedValues c = CapturedValues.inOrder(FIELDS, 1);
    SpecificInternalRow row = row();
    List<Object> source = List.of(1, "ab", new BigDecimal("1.00"), new BigDecimal("2.00"));
    assertThat(c.fill(row, source::get)).isEqualTo(4 + 2 + 8 + 16);
    assertThat(row.getUTF8String(2)).isEqualTo(UTF8String.fromString("ab"));
  }

  @Test
  void aValueThatDoesNotCastNamesTheColumn() {
    CapturedValues c = CapturedValues.inOrder(FIELDS, 1);
    List<Object> source = List.of("not a number", "x", BigDecimal.ONE, BigDecimal.ONE);
    assertThatThrownBy(() -> c.fill(row(), source::get)).hasMessageContaining("id");
  }

  private static SpecificInternalRow row() {
    return new SpecificInternalRow(new StructType(FIELDS));
  }

  @Test
  void sizesFollowSparkDefaultSizes() {
    assertThat(CapturedValues.sizeOf(null)).isZero();
    assertThat(CapturedValues.sizeOf(new byte[3])).isEqualTo(3);
    assertThat(CapturedValues.sizeOf(true)).isEqualTo(1);
    assertThat(CapturedValues.sizeOf((short) 1)).isEqualTo(2);
    assertThat(CapturedValues.sizeOf(1.5f)).isEqualTo(4);
    assertThat(CapturedValues.sizeOf(2L)).isEqualTo(8);
  }

  @Test
  void microsTruncatesToTheMicrosecond() {
    assertThat(SparkValues.micros(Instant.parse("1970-01-01T00:00:01.000001999Z"))).isEqualTo(1_000_001L);
    assertThat(SparkValues.micros(Instant.parse("1969-12-31T23:59:59.999999999Z"))).isEqualTo(-1L);
  }
}
