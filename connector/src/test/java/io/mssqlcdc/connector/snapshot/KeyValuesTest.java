package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.types.SqlServerType;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

class KeyValuesTest {

  @Test
  void typesJsonBoundsAsTheKeyColumn() {
    assertThat(KeyValues.typed(5L, SqlServerType.of("int"))).isEqualTo(5);
    assertThat(KeyValues.typed(5L, SqlServerType.of("tinyint"))).isEqualTo((short) 5);
    assertThat(KeyValues.typed(5L, SqlServerType.of("bigint"))).isEqualTo(5L);
    assertThat(KeyValues.typed(new BigDecimal("1.50"), SqlServerType.decimal("decimal", 9, 2)))
        .isEqualTo(new BigDecimal("1.50"));
    assertThat(KeyValues.typed("2026-01-02", SqlServerType.of("date"))).isEqualTo(LocalDate.of(2026, 1, 2));
    assertThat(KeyValues.typed("2026-01-02 03:04:05.123", SqlServerType.of("datetime")))
        .isEqualTo(LocalDateTime.of(2026, 1, 2, 3, 4, 5, 123_000_000));
    assertThat(KeyValues.typed("2026-03-01 10:20:30.1234567 -03:00", SqlServerType.temporal("datetimeoffset", 7)))
        .as("SQL Server's text form").isEqualTo(java.time.OffsetDateTime.parse("2026-03-01T10:20:30.1234567-03:00"));
    assertThat(KeyValues.typed("2026-03-01T10:20:30-03:00", SqlServerType.temporal("datetimeoffset", 0)))
        .isEqualTo(java.time.OffsetDateTime.parse("2026-03-01T10:20:30-03:00"));
    assertThat((byte[]) KeyValues.typed("0x0A0b", SqlServerType.sized("varbinary", 8))).containsExactly(10, 11);
    assertThat(KeyValues.typed("6f9619ff-8b86-d011-b42d-00c04fc964ff", SqlServerType.of("uniqueidentifier")))
        .isEqualTo("6F9619FF-8B86-D011-B42D-00C04FC964FF");
    assertThat(KeyValues.typed("x", SqlServerType.sized("nvarchar", 10))).isEqualTo("x");
    assertThat(KeyValues.typed(7L, null)).isEqualTo(7L);
    assertThat(KeyValues.typed(null, SqlServerType.of("int"))).isNull();
  }

  @Test
  void rejectsValuesOfAnotherType() {
    assertThatThrownBy(() -> KeyValues.typed(3_000_000_000L, SqlServerType.of("int")))
        .hasMessage("3000000000 is no int value");
    assertThatThrownBy(() -> KeyValues.typed(new BigDecimal("1.5"), SqlServerType.of("int")))
        .hasMessage("1.5 is no int value");
    assertThatThrownBy(() -> KeyValues.typed("yesterday", SqlServerType.of("date")))
        .hasMessage("'yesterday' is no date value");
    assertThatThrownBy(() -> KeyValues.typed("0A", SqlServerType.sized("binary", 1)))
        .hasMessage("'0A' is no binary(1) value");
  }

  @Test
  void timeAndUnmappedTypesCannotBoundARange() {
    assertThat(KeyValues.unrangeable("t", SqlServerType.temporal("time", 7), true))
        .contains("t is time(7), which has no bindable bound");
    assertThat(KeyValues.unrangeable("v", SqlServerType.of("sql_variant"), true))
        .contains("v is sql_variant, which has no bindable bound");
    assertThat(KeyValues.unrangeable("i", SqlServerType.of("int"), false)).isEmpty();
  }

  @Test
  void datetime2WithSevenDigitsOnlyAsTheLastKeyColumn() {
    SqlServerType dt7 = SqlServerType.temporal("datetime2", 7);
    assertThat(KeyValues.unrangeable("ts", dt7, true)).isEmpty();
    assertThat(KeyValues.unrangeable("ts", dt7, false))
        .contains("ts is datetime2(7), which reads back truncated to microseconds, and is not the last key column");
    assertThat(KeyValues.unrangeable("ts", SqlServerType.temporal("datetime2", 3), false)).isEmpty();
  }
}
