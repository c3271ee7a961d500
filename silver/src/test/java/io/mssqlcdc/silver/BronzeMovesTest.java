package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BronzeMovesTest {
  @Test
  void aTargetsFirstCallAndEveryNewerBronzeVersionSayYes() {
    assertThat(BronzeMoves.since("silver.a", "bronze", 7)).as("the JVM's first call").isTrue();
    assertThat(BronzeMoves.since("silver.a", "bronze", 7)).as("nothing committed since").isFalse();
    assertThat(BronzeMoves.since("silver.a", "bronze", 9)).isTrue();
    assertThat(BronzeMoves.since("silver.b", "bronze", 9)).as("another target keeps its own").isTrue();
    assertThat(BronzeMoves.since("silver.a", "bronze", 3)).as("bronze made again: no hint").isFalse();
  }
}
