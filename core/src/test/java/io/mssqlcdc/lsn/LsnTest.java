package io.mssqlcdc.lsn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcConfigException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LsnTest {

  @Test
  void canonicalTextIsZeroXAndTwentyUppercaseHexDigits() {
    Lsn lsn = Lsn.parse("0x0000002a000001f00003");
    assertThat(lsn).hasToString("0x0000002A000001F00003");
    assertThat(lsn.toString()).hasSize(22);
  }

  @Test
  void parseAcceptsMissingPrefixAnyCaseBlanksAndLeftPads() {
    assertThat(Lsn.parse("  2A000001F00003 ")).isEqualTo(Lsn.parse("0x0000002A000001F00003"));
    assertThat(Lsn.parse("0X2a")).hasToString("0x0000000000000000002A");
    assertThat(Lsn.parse("0")).isEqualTo(Lsn.ZERO);
    assertThat(Lsn.parse("FFFFFFFFFFFFFFFFFFFF")).isEqualTo(Lsn.MAX);
  }

  @Test
  void badTextFailsQuotingTheInput() {
    assertThatThrownBy(() -> Lsn.parse("0x12G4"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Invalid LSN '0x12G4'")
        .hasMessageContaining("'G' is not a hex digit");
    assertThatThrownBy(() -> Lsn.parse("0x"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("Invalid LSN '0x'");
    assertThatThrownBy(() -> Lsn.parse("0x" + "1".repeat(21)))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("1 to 20 hex digits");
    assertThatThrownBy(() -> Lsn.parse(null)).isInstanceOf(CdcConfigException.class);
  }

  @Test
  void bytesRoundTripIncludingBytesAbove0x7F() {
    byte[] b = {(byte) 0x80, (byte) 0xFF, 0x00, (byte) 0x9A, 0x7F, (byte) 0x80, 0x01, (byte) 0xFE, (byte) 0xC3, 0x05};
    Lsn lsn = Lsn.fromBytes(b);
    assertThat(lsn).hasToString("0x80FF009A7F8001FEC305");
    assertThat(lsn.toBytes()).containsExactly(b);
    assertThat(Lsn.parse(lsn.toString())).isEqualTo(lsn);
  }

  @Test
  void fromBytesRejectsOtherLengths() {
    assertThatThrownBy(() -> Lsn.fromBytes(new byte[9]))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageContaining("<9 bytes>")
        .hasMessageContaining("exactly 10 bytes");
  }

  @Test
  void toBytesReturnsACopy() {
    Lsn lsn = Lsn.parse("0x01");
    lsn.toBytes()[9] = 5;
    assertThat(lsn.toBytes()[9]).isEqualTo((byte) 1);
  }

  @Test
  void orderIsUnsignedAndEqualsStringOrder() {
    Random r = new Random(42);
    List<Lsn> lsns = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      byte[] b = new byte[10];
      r.nextBytes(b);
      lsns.add(Lsn.fromBytes(b));
    }
    List<Lsn> byValue = new ArrayList<>(lsns);
    Collections.sort(byValue);
    List<String> byText = new ArrayList<>();
    lsns.forEach(l -> byText.add(l.toString()));
    Collections.sort(byText);
    for (int i = 0; i < lsns.size(); i++) {
      assertThat(byValue.get(i).toString()).isEqualTo(byText.get(i));
    }
    assertThat(Lsn.parse("0x80000000000000000000")).isGreaterThan(Lsn.parse("0x7FFFFFFFFFFFFFFFFFFF"));
    assertThat(Lsn.parse("0x00008000000000000000")).isGreaterThan(Lsn.parse("0x00007FFFFFFFFFFFFFFF"));
  }

  @Test
  void incrementAndDecrementCarryAcrossTheLowWord() {
    Lsn edge = Lsn.parse("0x0000FFFFFFFFFFFFFFFF");
    assertThat(edge.increment()).hasToString("0x00010000000000000000");
    assertThat(edge.increment().decrement()).isEqualTo(edge);
    assertThat(Lsn.ZERO.decrement()).isEqualTo(Lsn.ZERO);
    assertThat(Lsn.MAX.increment()).isEqualTo(Lsn.MAX);
    assertThat(Lsn.parse("0x10").plus(16)).hasToString("0x00000000000000000020");
    assertThat(edge.plus(2)).hasToString("0x00010000000000000001");
  }

  @Test
  void equalsAndHashCodeFollowTheValue() {
    assertThat(Lsn.parse("0x2A")).isEqualTo(Lsn.of(0, 0x2A)).hasSameHashCodeAs(Lsn.of(0, 0x2A));
    assertThat(Lsn.parse("0x2A")).isNotEqualTo(Lsn.parse("0x2B"));
    assertThat(Lsn.max(Lsn.parse("0x1"), Lsn.parse("0x2"))).isEqualTo(Lsn.parse("0x2"));
    assertThat(Lsn.min(Lsn.parse("0x1"), Lsn.parse("0x2"))).isEqualTo(Lsn.parse("0x1"));
  }
}
