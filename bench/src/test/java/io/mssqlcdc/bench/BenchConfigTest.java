package io.mssqlcdc.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner's arguments: defaults, parsing and refusals (no Spark). */
class BenchConfigTest {
  @Test
  void bronzeBatchesDefaultsToFiveAndTakesMore() {
    assertThat(BenchConfig.parse(new String[0]).bronzeBatches()).isEqualTo(5);
    BenchConfig c = BenchConfig.parse(new String[] {"cases=bronze", "bronzeBatches=20", "bronzeBatchRows=none"});
    assertThat(c.bronzeBatches()).isEqualTo(20);
    assertThat(c.bronzeBatchRows()).isEmpty();
    assertThat(c.cases()).isEqualTo(List.of("bronze"));
    assertThat(c.withCases(List.of("silver")).bronzeBatches()).isEqualTo(20);
  }

  @Test
  void factsCommitSecondsDefaultsToTheSinksInterval() {
    assertThat(BenchConfig.parse(new String[0]).factsCommitMillis()).isZero();
    assertThat(BenchConfig.parse(new String[] {"factsCommitSeconds=5"}).factsCommitMillis()).isEqualTo(5_000);
    assertThat(BenchConfig.parse(new String[] {"factsCommitSeconds=0"}).factsCommitMillis()).isZero();
    assertThat(BenchConfig.parse(new String[] {"factsCommitSeconds=0.25"}).factsCommitMillis()).isEqualTo(250);
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"factsCommitSeconds=-1"}))
        .hasMessage("Argument factsCommitSeconds=-1 must be a number of seconds, 0 or more");
  }

  @Test
  void refusesANonPositiveBatchCountAndUnknownKeys() {
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"bronzeBatches=0"}))
        .hasMessage("Argument bronzeBatches=0 must be a positive integer");
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"bronzeBatch=20"}))
        .hasMessageStartingWith("Unknown argument 'bronzeBatch'; known keys: [")
        .hasMessageContaining("bronzeBatches");
  }
}
