package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link StreamProgress#hasRead}: a chunked snapshot S applies once bronze holds every change its chunk rows may
 * show, and only the stream generation that started at S (or bronze's verdict while no later generation read past
 * S) can say so.
 */
class StreamProgressTest {
  private static final String S = "0x00000010000000100001";
  private static final String STAMP = "0x00000010000000200001";
  private static final String HIGH = "0x00000010000000300001";
  private static final String BEFORE_HIGH = "0x00000010000000280001";
  private static final String S2 = "0x00000010000000900001";

  private static StreamProgress progress(Map<String, String> ends) {
    return new StreamProgress(ends, Map.of(S, HIGH), Map.of(S, Set.of("orders.g1")));
  }

  @Test
  void aBoundAtSNeedsNoWait() {
    StreamProgress p = new StreamProgress(Map.of(), Map.of(S, S), Map.of());
    assertThat(p.hasRead(S, S, null)).isTrue();
    assertThat(p.hasRead(S, null, null)).isTrue();
  }

  @Test
  void theBoundIsTheNewestOfTheStampsAndTheWavesHighs() {
    assertThat(progress(Map.of("orders.g1", STAMP)).hasRead(S, STAMP, null)).as("stamp reached, high not").isFalse();
    assertThat(progress(Map.of("orders.g1", BEFORE_HIGH)).hasRead(S, STAMP, null)).isFalse();
    assertThat(progress(Map.of("orders.g1", HIGH)).hasRead(S, STAMP, null)).isTrue();
    assertThat(progress(Map.of("orders.g1", BEFORE_HIGH)).hasRead(S, STAMP, HIGH)).as("bronze's verdict").isTrue();
  }

  @Test
  void aLaterGenerationsBatchesDoNotStandForTheGenerationThatStartedAtS() {
    // Generation 1 (started at S) ended before the high; generation 2 started at a later re-snapshot S2.
    StreamProgress p = progress(Map.of("orders.g1", BEFORE_HIGH, "orders.g2", S2, "orders", "0x00000009000000100001"));
    assertThat(p.hasRead(S, STAMP, null)).isFalse();
    assertThat(p.hasRead(S, STAMP, S2)).as("a verdict the later generation moved says nothing either").isFalse();
    // The generation before S (orders, gen 0) ended before S: the verdict counts.
    StreamProgress q = progress(Map.of("orders.g1", BEFORE_HIGH, "orders", "0x00000009000000100001"));
    assertThat(q.hasRead(S, STAMP, HIGH)).isTrue();
  }

  @Test
  void factsWithoutAnOpenRowsAppIdCountEveryBatch() {
    StreamProgress p = new StreamProgress(Map.of("a", BEFORE_HIGH, "b", HIGH), Map.of(S, HIGH), Map.of());
    assertThat(p.hasRead(S, STAMP, null)).isTrue();
  }
}
