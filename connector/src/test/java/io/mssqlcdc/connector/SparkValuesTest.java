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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("spark")
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

  private static Object lossy(Object v, String type) {
    return SparkValues.converter("c", DataType.fromDDL(type), true).convert(v);
  }

  @Test
  void decimalsKeepTheirValueOrFailOnOverflow() {
    assertThat(cast(new BigDecimal("9.90"), "decimal(18,2)")).isEqualTo(Decimal.apply(new BigDecimal("9.90")));
    assertThat(cast(new BigDecimal("9.9000"), "decimal(18,2)")).isEqualTo(Decimal.apply(new BigDecimal("9.90")));
    assertThat(cast(3, "decimal(5,2)")).isEqualTo(Decimal.apply(new BigDecimal("3.00")));
    assertThat(cast(0.25d, "decimal(5,2)")).isEqualTo(Decimal.apply(new BigDecimal("0.25")));
    assertThatThrownBy(() -> cast(new BigDecimal("123456.7"), "decimal(5,2)"))
        .hasMessageContaining("to its declared type DECIMAL(5,2)");
  }

  /** Reference §4.4: the safe cast. A value the declared type holds only rounded fails, unless allowPrecisionLoss. */
  @Test
  void castsThatWouldRoundOrTruncateFailNamingTheColumnAndValueUnlessAllowed() {
    assertThatThrownBy(() -> SparkValues.converter("qty", DataType.fromDDL("int")).convert(new BigDecimal("2.5")))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-116: The value '2.5' of column 'qty' does not fit its declared type INT without losing"
            + " digits (it would become 2): declare a type that holds it in 'columns' (or omit 'columns' to infer the"
            + " type), or set allowPrecisionLoss=true to round such values.");
    assertThatThrownBy(() -> SparkValues.converter("amount", DataType.fromDDL("decimal(18,2)")).convert(new BigDecimal("1.2345")))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("The value '1.2345' of column 'amount' does not fit its declared type DECIMAL(18,2)")
        .hasMessageContaining("(it would become 1.23)");
    assertThatThrownBy(() -> cast(2.5d, "bigint")).hasMessageContaining("The value '2.5' of column 'c'");
    assertThatThrownBy(() -> cast("7.01", "smallint")).hasMessageContaining("would become 7");
    assertThatThrownBy(() -> cast(1.005d, "decimal(5,2)")).hasMessageContaining("would become 1.01");

    assertThat(lossy(new BigDecimal("2.5"), "int")).isEqualTo(2);
    assertThat(lossy(-2.7d, "bigint")).isEqualTo(-2L);
    assertThat(lossy(new BigDecimal("1.2345"), "decimal(18,2)")).isEqualTo(Decimal.apply(new BigDecimal("1.23")));
    assertThat(lossy(new BigDecimal("9.905"), "decimal(18,2)")).isEqualTo(Decimal.apply(new BigDecimal("9.91")));
    assertThatThrownBy(() -> lossy(new BigDecimal("123456.7"), "decimal(5,2)")).as("overflow is never allowed")
        .hasMessageContaining("to its declared type DECIMAL(5,2)");
  }

  @Test
  void sqlServersDatetimeoffsetTextFormIsAnInstant() {
    // the text form SQL Server and ODBC give: a blank before the offset, 7 fractional digits
    assertThat(cast("2026-03-01 10:20:30.1234567 -03:00", "timestamp"))
        .isEqualTo(SparkValues.micros(java.time.Instant.parse("2026-03-01T13:20:30.123456Z")));
    assertThat(cast("2026-03-01 10:20:30 +05:30", "timestamp"))
        .isEqualTo(SparkValues.micros(java.time.Instant.parse("2026-03-01T04:50:30Z")));
    assertThat(cast("2026-03-01T10:20:30.5-03:00", "timestamp_ntz"))
        .isEqualTo(SparkValues.micros(java.time.Instant.parse("2026-03-01T13:20:30.5Z")));
    assertThat(cast("2026-03-01 10:20:30.1234567", "timestamp_ntz"))
        .isEqualTo(SparkValues.micros(java.time.Instant.parse("2026-03-01T10:20:30.123456Z")));
    assertThatThrownBy(() -> cast("2026-03-01 10:20:30 -3", "timestamp"))
        .hasMessageContaining("Cannot cast the value '2026-03-01 10:20:30 -3' of column 'c'");
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
