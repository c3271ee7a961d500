package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.TableRef;
import io.mssqlcdc.errors.CdcConfigException;
import io.mssqlcdc.types.SqlServerType;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyTypesTest {
  private static final TableRef T = new TableRef("dbo", "t");

  @Test
  void declaredTypesFromSysColumns() {
    assertThat(KeyTypes.declared("nvarchar", 100, 0, 0).declaration()).isEqualTo("nvarchar(50)");
    assertThat(KeyTypes.declared("varchar", -1, 0, 0).declaration()).isEqualTo("varchar(max)");
    assertThat(KeyTypes.declared("decimal", 9, 18, 2).declaration()).isEqualTo("decimal(18,2)");
    assertThat(KeyTypes.declared("datetime2", 8, 27, 7).declaration()).isEqualTo("datetime2(7)");
    assertThat(KeyTypes.declared("binary", 16, 0, 0).declaration()).isEqualTo("binary(16)");
    assertThat(KeyTypes.declared("int", 4, 10, 0).declaration()).isEqualTo("int");
    assertThat(KeyTypes.bindable(SqlServerType.temporal("time", 7))).isNull();
    assertThat(KeyTypes.bindable(SqlServerType.of("sql_variant"))).isNull();
    assertThat(KeyTypes.bindable(SqlServerType.of("uniqueidentifier"))).isEqualTo("uniqueidentifier");
  }

  @Test
  void keysGetTypesAndCollations() {
    List<SourceTableReads.ColumnInfo> cols = List.of(
        new SourceTableReads.ColumnInfo("region", 1, false, "Latin1_General_CI_AS", KeyTypes.declared("varchar", 10, 0, 0)),
        new SourceTableReads.ColumnInfo("id", 2, false, null, KeyTypes.declared("bigint", 8, 19, 0)));
    assertThat(KeyTypes.keys(T, List.of("region", "id"), cols, true)).containsExactly(
        new KeyPredicates.Key("region", "varchar(10)", "Latin1_General_CI_AS"), new KeyPredicates.Key("id", "bigint", null));
  }

  @Test
  void unbindableKeysAreRefusedOnlyWhenBoundsAreNeeded() {
    List<SourceTableReads.ColumnInfo> cols = List.of(
        new SourceTableReads.ColumnInfo("at", 1, false, null, KeyTypes.declared("time", 5, 16, 7)),
        new SourceTableReads.ColumnInfo("ts", 2, false, null, KeyTypes.declared("datetime2", 8, 27, 7)),
        new SourceTableReads.ColumnInfo("id", 3, false, null, KeyTypes.declared("int", 4, 10, 0)));
    assertThat(KeyTypes.keys(T, List.of("at"), cols, false)).hasSize(1);
    assertThatThrownBy(() -> KeyTypes.keys(T, List.of("at"), cols, true)).isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("dbo.t's key [at] cannot be read in ranges (at is time(7)");
    assertThatThrownBy(() -> KeyTypes.keys(T, List.of("ts", "id"), cols, true))
        .hasMessageContaining("ts is datetime2(7) and not the last key column");
    assertThat(KeyTypes.keys(T, List.of("id", "ts"), cols, true)).hasSize(2);
    assertThatThrownBy(() -> KeyTypes.keys(T, List.of("gone"), cols, false))
        .hasMessageContaining("the table has no column gone now");
  }

  @Test
  void valueReadersFollowTheDocumentedJavaTypes() {
    assertThat(JdbcValues.readerFor("tinyint")).isEqualTo(JdbcValues.Reader.SHORT);
    assertThat(JdbcValues.readerFor("int identity")).isEqualTo(JdbcValues.Reader.INT);
    assertThat(JdbcValues.readerFor("money")).isEqualTo(JdbcValues.Reader.DECIMAL);
    assertThat(JdbcValues.readerFor("smalldatetime")).isEqualTo(JdbcValues.Reader.DATETIME);
    assertThat(JdbcValues.readerFor("time")).isEqualTo(JdbcValues.Reader.TIME);
    assertThat(JdbcValues.readerFor("uniqueidentifier")).isEqualTo(JdbcValues.Reader.GUID);
    assertThat(JdbcValues.readerFor("xml")).isEqualTo(JdbcValues.Reader.STRING);
    assertThat(JdbcValues.readerFor("timestamp")).isEqualTo(JdbcValues.Reader.BYTES);
    assertThat(JdbcValues.utc("2026-09-28T14:03:12")).hasToString("2026-09-28T14:03:12Z");
  }

  @Test
  void commitTimesReadByHandEqualWhatIsoParsingGives() {
    for (String iso : List.of("2026-09-28T14:03:12", "2026-09-28T14:03:12.003", "2024-02-29T23:59:59.997",
        "1900-01-01T00:00:00", "9999-12-31T23:59:59.997", "2026-01-31T00:00:00.100")) {
      assertThat(JdbcValues.utc(iso)).as(iso).isEqualTo(LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC));
    }
    // other ISO shapes still read (the general parser), nothing else does
    assertThat(JdbcValues.utc("2026-09-28T14:03:12.1234567")).hasToString("2026-09-28T14:03:12.123456700Z");
    assertThat(JdbcValues.utc("2026-09-28T14:03")).hasToString("2026-09-28T14:03:00Z");
    assertThat(JdbcValues.utc(null)).isNull();
    assertThatThrownBy(() -> JdbcValues.utc("2026-02-30T00:00:00")).isInstanceOf(java.time.DateTimeException.class)
        .hasMessageContaining("FEBRUARY 30");
    assertThatThrownBy(() -> JdbcValues.utc("2026-09-28T24:00:00.000")).isInstanceOf(java.time.DateTimeException.class);
    assertThatThrownBy(() -> JdbcValues.utc("2026-09-28X14:03:12")).isInstanceOf(java.time.DateTimeException.class);
  }
}
