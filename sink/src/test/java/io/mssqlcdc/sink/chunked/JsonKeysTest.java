package io.mssqlcdc.sink.chunked;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.types.SqlServerType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Key bounds in the JSON form the reference's `_json_key` writes and reads (reference-behaviour §12.9). */
class JsonKeysTest {

  @Test
  void numbersStayNumbersDecimalsAreExactTextAndBitsBooleans() {
    assertThat(PyJson.write(JsonKeys.scalar(42))).isEqualTo("42");
    assertThat(PyJson.write(JsonKeys.scalar(-9_000_000_000L))).isEqualTo("-9000000000");
    assertThat(PyJson.write(JsonKeys.scalar(new BigDecimal("12345678901234567890.50")))).isEqualTo("\"12345678901234567890.50\"");
    assertThat(PyJson.write(JsonKeys.scalar(true))).isEqualTo("true");
    assertThat(PyJson.write(JsonKeys.scalar(null))).isEqualTo("null");
  }

  @Test
  void datetimesCarryTheDigitsTheirTypeCastsBack() {
    assertThat(JsonKeys.scalar(LocalDateTime.of(2026, 1, 2, 3, 4, 5, 3_000_000)).asText())
        .isEqualTo("2026-01-02T03:04:05.003");                      // datetime: milliseconds
    assertThat(JsonKeys.scalar(LocalDateTime.of(2026, 1, 2, 3, 4, 5, 123_456_000)).asText())
        .isEqualTo("2026-01-02T03:04:05.123456");
    assertThat(JsonKeys.scalar(LocalDateTime.of(2026, 1, 2, 3, 4, 5, 123_456_700)).asText())
        .isEqualTo("2026-01-02T03:04:05.1234567");                  // datetime2(7) keeps its 100 ns
    assertThat(JsonKeys.scalar(LocalDate.of(1969, 12, 31)).asText()).isEqualTo("1969-12-31");
  }

  @Test
  void boundsReadBackAsTheKeysTypes() {
    List<SqlServerType> types = List.of(SqlServerType.decimal("decimal", 22, 2), SqlServerType.of("bit"),
        SqlServerType.temporal("datetime2", 7), SqlServerType.of("varchar"));
    List<Object> values = Arrays.asList(new BigDecimal("-0.50"), false, LocalDateTime.of(2026, 1, 2, 3, 4, 5, 100),
        "North");
    assertThat(JsonKeys.values(JsonKeys.of(values), types)).isEqualTo(values);
    assertThat(JsonKeys.values(PyJson.NODES.nullNode(), types)).isNull();
    assertThat(PyJson.write(JsonKeys.of(Arrays.asList("a", null)))).isEqualTo("[\"a\", null]");
  }
}
