package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.client.KeyRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyRangesTest {

  @Test
  void uniformRangesSplitTheIntegerSpanEvenly() {
    assertThat(KeyRanges.uniform(1, 100, 4)).containsExactly(
        new KeyRange(null, List.of(26)),
        new KeyRange(List.of(26), List.of(51)),
        new KeyRange(List.of(51), List.of(76)),
        new KeyRange(List.of(76), null));
  }

  @Test
  void noMoreRangesThanValues() {
    assertThat(KeyRanges.uniform(5, 7, 10)).containsExactly(
        new KeyRange(null, List.of(6)), new KeyRange(List.of(6), List.of(7)), new KeyRange(List.of(7), null));
    assertThat(KeyRanges.uniform(5, 5, 10)).containsExactly(KeyRange.ALL);
  }

  @Test
  void boundsTakeTheKeysJavaClass() {
    assertThat(KeyRanges.uniform((short) -10, (short) 10, 2).get(0).hi()).containsExactly((short) 0);
    assertThat(KeyRanges.uniform(0L, 9L, 2).get(0).hi()).containsExactly(5L);
  }

  @Test
  void theWholeLongSpanDoesNotOverflow() {
    List<KeyRange> r = KeyRanges.uniform(Long.MIN_VALUE, Long.MAX_VALUE, 4);
    assertThat(r).hasSize(4);
    assertThat(r.get(1).lo()).containsExactly(-4611686018427387904L);
    assertThat(r.get(2).lo()).containsExactly(0L);
    assertThat(r.get(3).lo()).containsExactly(4611686018427387904L);
  }

  @Test
  void tilesBecomeAdjacentRangesOpenAtBothEnds() {
    assertThat(KeyRanges.between(List.of(List.of("b", 1), List.of("c", 0)))).containsExactly(
        new KeyRange(null, List.of("b", 1)),
        new KeyRange(List.of("b", 1), List.of("c", 0)),
        new KeyRange(List.of("c", 0), null));
    assertThat(KeyRanges.between(List.of())).containsExactly(KeyRange.ALL);
  }
}
