package io.mssqlcdc.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

class SparkValuesTest {
  private static Object cast(Object v, String type) {
    return SparkValues.converter("c", DataType.fromDDL(type)).convert(v);
  }

  @Test
  void nullsStayNull() {
    assertThat(cast(null, "int")).isNull();
  }

  @Test
  void integersWidenAndNarrowWithinRange() {
    assertThat(cast((short) 200, "smallint")).isEqualTo((short) 200);
    assertThat(cast(7, "bigint")).isEqualTo(7L);
    assertThat(cast(7L, "int")).isEqualTo(7);
    assertThat(cast(new BigDecimal("12.00"), "int")).isEqualTo(12);
    assertThat(cast("42", "bigint")).isEqualTo(42L);
    assertThatThrownBy(() -> cast(70000, "smallint"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Cannot cast the value '70000' of column 'c' to its declared type SMALLINT");
  }

  @Test
  void decimalsRoundToTheDeclaredScaleAndFailOnOverflow() {
    assertThat(cast(new BigDecimal("9.905"), "decimal(18,2)")).isEqualTo(Decimal.apply(new BigDecimal("9.91")));
    assertThat(cast(3, "decimal(5,2)")).isEqualTo(Decimal.apply(new BigDecimal("3.00")));
    assertThatThrownBy(() -> cast(new BigDecimal("123456.7"), "decimal(5,2)"))
        .hasMessageContaining("to its declared type DECIMAL(5,2)");
  }

  @Test
  void timesBecomeMicrosecondsOfUtc() {
    assertThat(cast(LocalDateTime.parse("1970-01-01T00:00:01.1234567"), "timestamp_ntz")).isEqualTo(1_123_456L);
    assertThat(cast(OffsetDateTime.parse("1970-01-01T01:00:00+01:00"), "timestamp")).isEqualTo(0L);
    assertThat(cast(LocalDate.parse("1970-01-02"), "date")).isEqualTo(1);
    assertThat(cast("1970-01-01 00:00:02", "timestamp_ntz")).isEqualTo(2_000_000L);
  }

  @Test
  void textAndBinary() {
    assertThat(cast("abc", "string")).isEqualTo(UTF8String.fromString("abc"));
    assertThat(cast(new BigDecimal("1.50"), "string")).isEqualTo(UTF8String.fromString("1.50"));
    assertThat(cast(new byte[] {(byte) 0xAB, 1}, "string")).isEqualTo(UTF8String.fromString("0xAB01"));
    assertThat((byte[]) cast(new byte[] {1, 2}, "binary")).containsExactly(1, 2);
    assertThat(cast(true, "boolean")).isEqualTo(true);
    assertThat(cast((short) 0, "boolean")).isEqualTo(false);
    assertThat(cast(1.5f, "double")).isEqualTo(1.5d);
  }
}
