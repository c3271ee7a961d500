package io.mssqlcdc.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.types.SqlServerType;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key rules both clients share (the contract suite checks they apply them alike). */
class KeyColumnsTest {

  @Test
  void bucketsTakeIntegerAndDateKeysOnly() {
    for (String t : List.of("tinyint", "smallint", "int", "bigint")) {
      assertThat(KeyColumns.ordinal(SqlServerType.of(t))).as(t).contains(KeyColumns.Ordinal.INTEGER);
    }
    assertThat(KeyColumns.ordinal(SqlServerType.of("date"))).contains(KeyColumns.Ordinal.DATE);
    // the reference's int/date mode is for Spark integral and date keys: bit is boolean, decimal(p,0) decimal
    assertThat(KeyColumns.ordinal(SqlServerType.of("bit"))).isEmpty();
    assertThat(KeyColumns.ordinal(SqlServerType.decimal("decimal", 18, 0))).isEmpty();
    assertThat(KeyColumns.ordinal(SqlServerType.of("datetime"))).isEmpty();
    assertThat(KeyColumns.notBucketable("Code", SqlServerType.sized("nvarchar", 10)))
        .startsWith("Code is nvarchar(10), and key buckets take one integer");
  }

  @Test
  void ordinalsAreValuesAndDaysSince1970() {
    assertThat(KeyColumns.ordinalOf((short) -3)).isEqualTo(-3);
    assertThat(KeyColumns.ordinalOf(Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
    assertThat(KeyColumns.ordinalOf(LocalDate.of(1969, 12, 31))).isEqualTo(-1);
    assertThat(KeyColumns.ordinalOf(LocalDate.of(1, 1, 1))).isEqualTo(-719_162);
    assertThat(KeyColumns.ordinalOf(LocalDate.of(9999, 12, 31))).isEqualTo(2_932_896);
    assertThatThrownBy(() -> KeyColumns.ordinalOf("7")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("String");
  }

  @Test
  void bucketBoundsMustBeOfTheKeysKind() {
    KeyColumns.checkBucketRange(KeyColumns.Ordinal.INTEGER, new KeyRange(List.of(BigInteger.TWO.pow(70)), List.of((byte) 1)));
    KeyColumns.checkBucketRange(KeyColumns.Ordinal.DATE, new KeyRange(null, List.of(LocalDate.EPOCH)));
    assertThatThrownBy(() -> KeyColumns.checkBucketRange(KeyColumns.Ordinal.DATE, new KeyRange(List.of(0), null)))
        .hasMessage("The lower bound of key buckets over a date key must be a LocalDate, not Integer 0");
    assertThatThrownBy(() -> KeyColumns.checkBucketRange(KeyColumns.Ordinal.INTEGER,
        new KeyRange(null, Arrays.asList((Object) null))))
        .hasMessageContaining("upper bound").hasMessageContaining("not NULL (leave the end open instead)");
    assertThatThrownBy(() -> KeyColumns.checkBucketRange(KeyColumns.Ordinal.INTEGER, new KeyRange(List.of(1.5), null)))
        .hasMessageContaining("integral number").hasMessageContaining("Double 1.5");
  }

  @Test
  void boundsNeedATypeATextBoundReadsBack() {
    assertThat(KeyColumns.unbindable("t", SqlServerType.temporal("time", 7), true)).isEqualTo("t is time(7), which no text bound reads back");
    assertThat(KeyColumns.unbindable("ts", SqlServerType.temporal("datetime2", 7), false))
        .isEqualTo("ts is datetime2(7) and not the last key column: bounds with microseconds could swap keys");
    assertThat(KeyColumns.unbindable("ts", SqlServerType.temporal("datetime2", 7), true)).isNull();
    assertThat(KeyColumns.unbindable("id", SqlServerType.of("int"), false)).isNull();
  }
}
