package io.mssqlcdc.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
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
  void theSameSeedPicksTheSameOperations() {
    Mix mix = Mix.parse("insert=50,update=40,delete=10");
    Random a = new Random(42);
    Random b = new Random(42);
    assertThat(IntStream.range(0, 100).mapToObj(i -> mix.pick(a)).toList())
        .isEqualTo(IntStream.range(0, 100).mapToObj(i -> mix.pick(b)).toList());
    assertThatThrownBy(() -> Mix.parse("insert=0,update=0,delete=0")).hasMessageContaining("positive sum");
  }
}
