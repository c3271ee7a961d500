package io.mssqlcdc.connector.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.KeyRange;
import io.mssqlcdc.errors.CdcConfigException;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotChunksTest {

  @Test
  void singleKeyScalarsAndOpenEnds() {
    SnapshotChunks c = SnapshotChunks.parse("[[0, null, 10], [1, 10, 20], [2, 20, null]]");
    assertThat(c.arity()).isEqualTo(1);
    assertThat(c.chunks()).containsExactly(
        new SnapshotChunk(0, new KeyRange(null, List.of(10L))),
        new SnapshotChunk(1, new KeyRange(List.of(10L), List.of(20L))),
        new SnapshotChunk(2, new KeyRange(List.of(20L), null)));
    assertThat(c.integerBounds(0)).isTrue();
  }

  @Test
  void compositeKeysTakeListsWithNullsAndText() {
    SnapshotChunks c = SnapshotChunks.parse("[[7, [\"a\", 1], [\"b\", null]], [8, [\"b\", null], null]]");
    assertThat(c.arity()).isEqualTo(2);
    assertThat(c.chunks().get(0).range().lo()).containsExactly("a", 1L);
    assertThat(c.chunks().get(0).range().hi()).isEqualTo(Arrays.asList("b", null));
    assertThat(c.integerBounds(0)).isFalse();
    assertThat(c.integerBounds(1)).isTrue();
  }

  @Test
  void decimalsStayExact() {
    SnapshotChunks c = SnapshotChunks.parse("[[0, 1.10, 99999999999999999999]]");
    assertThat(c.chunks().get(0).range().lo()).containsExactly(new BigDecimal("1.10"));
    assertThat(c.chunks().get(0).range().hi()).containsExactly(new BigDecimal("99999999999999999999"));
  }

  @Test
  void allOpenNeedsNoKey() {
    SnapshotChunks c = SnapshotChunks.parse("[[3, null, null]]");
    assertThat(c.allOpen()).isTrue();
    assertThat(c.chunks()).containsExactly(new SnapshotChunk(3, KeyRange.ALL));
  }

  @Test
  void badJsonNamesTheOptionAndValue() {
    assertThatThrownBy(() -> SnapshotChunks.parse("[[0, 1, 2]"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessage("MSSQL_CDC-115: Option 'snapshotChunks' must be a JSON list [[chunk, lo, hi], ...] (chunk an"
            + " integer; lo inclusive, hi exclusive, null for an open end; a value per key column, a list for"
            + " composite keys), not '[[0, 1, 2]': it is not JSON.");
  }

  @Test
  void rejectsWhatIsNoListOfTriples() {
    assertThatThrownBy(() -> SnapshotChunks.parse("{\"a\": 1}")).hasMessageEndingWith(": it is not a JSON list.");
    assertThatThrownBy(() -> SnapshotChunks.parse("[]"))
        .hasMessageEndingWith(": the list is empty; omit the option to read the whole table.");
    assertThatThrownBy(() -> SnapshotChunks.parse("[[0, 1]]"))
        .hasMessageEndingWith(": entry 0 ([0,1]) is not a list [chunk, lo, hi].");
    assertThatThrownBy(() -> SnapshotChunks.parse("[[\"x\", 1, 2]]"))
        .hasMessageEndingWith(": entry 0 has chunk \"x\", which is not an integer.");
    assertThatThrownBy(() -> SnapshotChunks.parse("[[0, 1, 2], [0, 2, 3]]"))
        .hasMessageEndingWith(": chunk 0 is listed twice.");
    assertThatThrownBy(() -> SnapshotChunks.parse("[[0, {\"k\": 1}, 2]]"))
        .hasMessageContaining("entry 0 has {\"k\":1} in lo");
    assertThatThrownBy(() -> SnapshotChunks.parse("[[0, [], 2]]"))
        .hasMessageContaining("entry 0 has an empty list as lo; use null for an open end");
  }

  @Test
  void rejectsBoundsOfDifferentArity() {
    assertThatThrownBy(() -> SnapshotChunks.parse("[[0, [1, 2], [3, 4]], [1, [3, 4], 5]]"))
        .isInstanceOf(CdcConfigException.class)
        .hasMessageEndingWith(": entry 1 has a bound of 1 value(s), others have 2: every bound needs one value per"
            + " key column.");
  }

  @Test
  void longValuesAreShortenedInTheMessage() {
    String json = "[" + "[0, 1, 2], ".repeat(100) + "x]";
    assertThatThrownBy(() -> SnapshotChunks.parse(json))
        .hasMessageContaining("not '[[0, 1, 2], [0, 1, 2]")
        .hasMessageContaining("...': it is not JSON.");
  }
}
