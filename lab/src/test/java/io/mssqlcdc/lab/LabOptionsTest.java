package io.mssqlcdc.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LabOptionsTest {
  private static final Map<String, String> NO_ENV = Map.of();

  @Test
  void parsesTypedOptions() {
    LabOptions o = LabOptions.parse(new String[] {"stream", "--url", "jdbc:sqlserver://h;user=sa;password=x",
        "--tps=50", "--duration", "5m", "--mix", "insert=1,update=0,delete=0", "--seed", "7"}, NO_ENV);
    assertThat(o.command).isEqualTo("stream");
    assertThat(o.tps()).isEqualTo(50);
    assertThat(o.duration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(o.mix()).isEqualTo(new Mix(1, 0, 0));
    assertThat(o.seed()).isEqualTo(7);
    assertThat(o.database()).isEqualTo("cdc_lab");
  }

  @Test
  void urlFromTheEnvironment() {
    assertThat(LabOptions.parse(new String[] {"setup"}, Map.of("MSSQL_CDC_LAB_URL", "Server=h;UID=sa;PWD=x")).url())
        .isEqualTo("Server=h;UID=sa;PWD=x");
  }

  @Test
  void badInputNamesTheOptionAndValue() {
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"stream", "--url", "u", "--tps", "0"}, NO_ENV))
        .hasMessage("Option '--tps' must be an integer >= 1, not '0'.");
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"stream", "--url", "u", "--duration", "soon"}, NO_ENV))
        .hasMessageContaining("'--duration' must be a positive duration").hasMessageContaining("'soon'");
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"stream", "--url", "u", "--mix", "insert=1,upsert=2"}, NO_ENV))
        .hasMessageContaining("'--mix' must look like insert=50,update=40,delete=10");
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"stream", "--url", "u", "--database", "x]; DROP"}, NO_ENV))
        .hasMessageContaining("'--database' must be letters, digits and '_'");
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"stream", "--colour", "red"}, NO_ENV))
        .hasMessageContaining("Unknown option '--colour'");
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"drop-all"}, NO_ENV))
        .hasMessageContaining("Unknown command 'drop-all'");
    assertThatThrownBy(() -> LabOptions.parse(new String[] {"seed"}, NO_ENV))
        .hasMessageContaining("Option '--url' is required");
  }

  @Test
  void pickFollowsTheWeights() {
    Mix mix = Mix.parse("insert=50,update=40,delete=10");
    // every value nextInt(sum of weights) can return, once and in order: the weights, cut at 50 and 90
    Random eachValueOnce = new Random() {
      private int next;

      @Override
      public int nextInt(int bound) {
        assertThat(bound).as("drawn over the sum of the weights").isEqualTo(100);
        return next++;
      }
    };
    List<Mix.Op> expected = new ArrayList<>();
    expected.addAll(Collections.nCopies(50, Mix.Op.INSERT));
    expected.addAll(Collections.nCopies(40, Mix.Op.UPDATE));
    expected.addAll(Collections.nCopies(10, Mix.Op.DELETE));
    assertThat(IntStream.range(0, 100).mapToObj(i -> mix.pick(eachValueOnce)).toList()).isEqualTo(expected);

    // 100,000 seeded draws (deterministic for the seed): shares within 1 % of the weights (6 sigma)
    Random seeded = new Random(42);
    Map<Mix.Op, Long> counts = IntStream.range(0, 100_000).mapToObj(i -> mix.pick(seeded))
        .collect(Collectors.groupingBy(op -> op, () -> new EnumMap<>(Mix.Op.class), Collectors.counting()));
    assertThat(counts.get(Mix.Op.INSERT)).isBetween(49_000L, 51_000L);
    assertThat(counts.get(Mix.Op.UPDATE)).isBetween(39_000L, 41_000L);
    assertThat(counts.get(Mix.Op.DELETE)).isBetween(9_000L, 11_000L);

    Mix updatesOnly = Mix.parse("insert=0,update=3,delete=0");
    assertThat(IntStream.range(0, 1_000).mapToObj(i -> updatesOnly.pick(seeded))).as("a zero weight is never drawn")
        .containsOnly(Mix.Op.UPDATE);
    assertThatThrownBy(() -> Mix.parse("insert=0,update=0,delete=0")).hasMessageContaining("positive sum");
  }
}
