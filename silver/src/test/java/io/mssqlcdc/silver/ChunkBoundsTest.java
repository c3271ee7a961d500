package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mssqlcdc.silver.ChunkBounds.KeyKind;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Chunk bounds for range deletes (reference-behaviour §33 O9), and the facts' chunk and open rows. */
@Tag("spark")
class ChunkBoundsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode j(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void integerBoundsAreBigintsAndMaxPlusOnePastBigintIsOpen() throws Exception {
    assertThat(ChunkBounds.bound(j("42"), KeyKind.INTEGRAL, true).value()).isEqualTo(42L);
    assertThat(ChunkBounds.bound(j("null"), KeyKind.INTEGRAL, false).open()).isTrue();
    assertThat(ChunkBounds.bound(null, KeyKind.INTEGRAL, true).open()).isTrue();
    assertThat(ChunkBounds.bound(j("9223372036854775808"), KeyKind.INTEGRAL, false).open()).isTrue();
    assertThat(ChunkBounds.bound(j("9223372036854775807"), KeyKind.INTEGRAL, false).value())
        .isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> ChunkBounds.bound(j("9223372036854775808"), KeyKind.INTEGRAL, true))
        .isInstanceOf(ChunkBounds.Overflow.class);
  }

  @Test
  void dateBoundsTakeTheirFirstTenCharacters() throws Exception {
    assertThat(ChunkBounds.bound(j("\"2026-03-01\""), KeyKind.DATE, true).value()).isEqualTo(LocalDate.of(2026, 3, 1));
    assertThat(ChunkBounds.bound(j("\"2026-03-01T00:00:00\""), KeyKind.DATE, false).value())
        .isEqualTo(LocalDate.of(2026, 3, 1));
  }

  @Test
  void timestampBoundsKeepMicrosecondsAndALowerBoundWithFinerDigitsMovesUp() throws Exception {
    assertThat(ChunkBounds.bound(j("\"2026-03-01 10:00:00.1234567\""), KeyKind.TIMESTAMP_NTZ, false).value())
        .isEqualTo(LocalDateTime.parse("2026-03-01T10:00:00.123456"));
    assertThat(ChunkBounds.bound(j("\"2026-03-01 10:00:00.1234567\""), KeyKind.TIMESTAMP_NTZ, true).value())
        .isEqualTo(LocalDateTime.parse("2026-03-01T10:00:00.123457"));
    assertThat(ChunkBounds.bound(j("\"2026-03-01T10:00:00.1234560\""), KeyKind.TIMESTAMP_NTZ, true).value())
        .isEqualTo(LocalDateTime.parse("2026-03-01T10:00:00.123456"));
    assertThat(ChunkBounds.bound(j("\"2026-03-01T10:00:00\""), KeyKind.TIMESTAMP_NTZ, true).value())
        .isEqualTo(LocalDateTime.parse("2026-03-01T10:00:00"));
    assertThat(ChunkBounds.bound(j("\"2026-03-01T10:00:00.5\""), KeyKind.TIMESTAMP_NTZ, true).value())
        .isEqualTo(LocalDateTime.parse("2026-03-01T10:00:00.5"));
    assertThatThrownBy(() -> ChunkBounds.bound(j("\"9999-12-31 23:59:59.9999999\""), KeyKind.TIMESTAMP_NTZ, true))
        .isInstanceOf(ChunkBounds.Overflow.class);
  }

  @Test
  void rangeDeletesApplyToOneIntegerDateOrTimestampKeyThatIsTheCutKey() {
    assertThat(RangeDeletes.applies(List.of("id"), List.of("id"))).isTrue();
    assertThat(RangeDeletes.applies(List.of("id"), List.of("ID"))).isFalse(); // exact, as the reference compares
    assertThat(RangeDeletes.applies(List.of("a", "b"), List.of("a", "b"))).isFalse();
    assertThat(RangeDeletes.applies(List.of("id"), null)).isFalse();
    assertThat(RangeDeletes.kind(DataTypes.ShortType)).contains(KeyKind.INTEGRAL);
    assertThat(RangeDeletes.kind(DataTypes.LongType)).contains(KeyKind.INTEGRAL);
    assertThat(RangeDeletes.kind(DataTypes.DateType)).contains(KeyKind.DATE);
    assertThat(RangeDeletes.kind(DataTypes.TimestampNTZType)).contains(KeyKind.TIMESTAMP_NTZ);
    assertThat(RangeDeletes.kind(DataTypes.TimestampType)).isEmpty();
    assertThat(RangeDeletes.kind(DataTypes.createDecimalType(18, 0))).isEmpty();
    assertThat(RangeDeletes.kind(DataTypes.BooleanType)).isEmpty();
    assertThat(RangeDeletes.kind(DataTypes.StringType)).isEmpty();
  }

  @Test
  void chunkAndOpenRowsAreReadFromTheirDetail() {
    Chunk c = SnapshotFacts.chunk("{\"snapshot\": \"0x0000002A000001000001\", \"wave\": 2, \"chunk\": 7, \"lo\": 100,"
        + " \"hi\": null, \"last\": true}", "0x0000002A000003000001");
    assertThat(c.index()).isEqualTo(7);
    assertThat(c.wave()).isEqualTo(2);
    assertThat(c.lo().asLong()).isEqualTo(100);
    assertThat(c.hi()).isNull();
    assertThat(c.stamp()).isEqualTo("0x0000002A000003000001");
    assertThat(SnapshotFacts.openKeys("{\"mode\": \"chunked\", \"keys\": [\"order_id\"]}")).containsExactly("order_id");
    assertThat(SnapshotFacts.openKeys("{\"mode\": \"chunked\"}")).isNull();
    assertThat(SnapshotFacts.openKeys(null)).isNull();
    assertThatThrownBy(() -> SnapshotFacts.chunk("{\"chunk\": 1}", null))
        .isInstanceOf(io.mssqlcdc.errors.CdcStateException.class)
        .hasMessageContaining("MSSQL_CDC-789")
        .hasMessageContaining("lacks its chunk or wave (integers): {\"chunk\": 1}");
    assertThatThrownBy(() -> SnapshotFacts.chunk("{chunk", null))
        .hasMessageContaining("MSSQL_CDC-789").hasMessageContaining("has a detail that is not JSON: {chunk.");
  }
}
