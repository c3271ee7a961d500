package io.mssqlcdc.client.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.errors.CdcSourceUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DriverRetryTest {
  private final List<Duration> slept = new ArrayList<>();
  private final AtomicInteger resets = new AtomicInteger();

  private DriverRetry retry(double jitter) {
    return new DriverRetry(3, Duration.ofSeconds(2), slept::add, () -> jitter);
  }

  @Test
  void backoffDoublesWithJitterBetweenHalfAndFull() {
    assertThat(retry(0.0).backoff(0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(retry(1.0).backoff(0)).isEqualTo(Duration.ofSeconds(2));
    assertThat(retry(0.0).backoff(1)).isEqualTo(Duration.ofSeconds(2));
    assertThat(retry(1.0).backoff(2)).isEqualTo(Duration.ofSeconds(8));
  }

  @Test
  void transientFailuresAreRetriedOnANewConnection() throws SQLException {
    AtomicInteger calls = new AtomicInteger();
    String result = retry(0.0).run("max LSN", () -> {
      if (calls.incrementAndGet() < 3) {
        throw new SQLException("deadlock", "40001", 1205);
      }
      return "ok";
    }, resets::incrementAndGet);
    assertThat(result).isEqualTo("ok");
    assertThat(calls).hasValue(3);
    assertThat(resets).hasValue(2);
    assertThat(slept).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  @Test
  void givesUpAfterTheLastRetryNamingTheErrorNumber() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> retry(0.5).run("max LSN", () -> {
      calls.incrementAndGet();
      throw new SQLException("reset", "08S01", 10054);
    }, resets::incrementAndGet))
        .isInstanceOf(CdcSourceUnavailableException.class)
        .hasMessageContaining("max LSN after 4 attempt(s)")
        .hasMessageContaining("error 10054 (SQLState 08S01)")
        .hasMessageContaining("Restart the query");
    assertThat(calls).hasValue(4);
    assertThat(slept).hasSize(3);
  }

  @Test
  void otherFailuresAreNotRetried() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(() -> retry(0.5).run("read", () -> {
      calls.incrementAndGet();
      throw new SQLException("denied", "S0005", 229);
    }, resets::incrementAndGet)).isInstanceOf(SQLException.class).hasMessage("denied");
    assertThat(calls).hasValue(1);
    assertThat(resets).hasValue(0);
    assertThat(slept).isEmpty();
  }

  @Test
  void noneFailsOnTheFirstTransientError() {
    assertThatThrownBy(() -> DriverRetry.none().run("x", () -> {
      throw new SQLException("timeout", "S0001", 1222);
    }, () -> { })).isInstanceOf(CdcSourceUnavailableException.class).hasMessageContaining("1 attempt(s)");
  }
}
