package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which pruning predicate a MERGE gets (issue 10 item 6). */
class KeyPruningTest {
  private static final List<String> K = List.of("id");

  @Test
  void fewKeysArePrunedByPointAndNullKeysAreKept() {
    List<List<Object>> keys = new ArrayList<>();
    keys.add(List.of(5));
    List<Object> nullKey = new ArrayList<>();
    nullKey.add(null);
    keys.add(nullKey);
    KeyPruning.Plan p = KeyPruning.plan(false, false, K, keys, List.of());
    assertThat(p).isInstanceOf(KeyPruning.Points.class);
    assertThat(((KeyPruning.Points) p).tuples()).hasSize(2);
  }

  @Test
  void manyKeysArePrunedByTheRangesOfColumnsWithAnOrder() {
    KeyPruning.Plan p = KeyPruning.plan(false, false, List.of("a", "b"), null,
        List.of(new KeyPruning.Range("a", 1, 900, false)));
    assertThat(p).isEqualTo(new KeyPruning.Ranges(List.of(new KeyPruning.Range("a", 1, 900, false))));
    assertThat(KeyPruning.plan(false, false, K, null, List.of())).isInstanceOf(KeyPruning.None.class);
    assertThat(KeyPruning.plan(false, false, K, null, List.of(new KeyPruning.Range("id", null, null, true))))
        .isEqualTo(new KeyPruning.Ranges(List.of(new KeyPruning.Range("id", null, null, true))));
  }

  @Test
  void aRebuildOrWavesOrNoKeyPruneNothing() {
    assertThat(KeyPruning.plan(true, false, K, List.of(List.of(1)), List.of()))
        .isEqualTo(new KeyPruning.None("a rebuild reads all of silver"));
    assertThat(KeyPruning.plan(false, true, K, List.of(List.of(1)), List.of()))
        .isEqualTo(new KeyPruning.None("snapshot waves are applied"));
    assertThat(KeyPruning.plan(false, false, K, List.of(), List.of())).isInstanceOf(KeyPruning.None.class);
  }
}
