package io.mssqlcdc.client.jdbc;

import io.mssqlcdc.errors.CdcErrors;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries a statement that failed with a transient error ({@link SqlServerErrors.Kind#TRANSIENT}:
 * deadlock victim, lock timeout, killed session, connection reset) on a new connection, with
 * exponential backoff and jitter: wait {@code base · 2^attempt · uniform(0.5, 1)} (1-2 s, 2-4 s,
 * 4-8 s with the default 2 s base), up to {@code maxRetries} times (reference §19, ADR 0029).
 * Any other failure is rethrown at once; a transient one that outlives the retries becomes a
 * {@link io.mssqlcdc.errors.CdcSourceUnavailableException}.
 *
 * <p>Sleeper and randomness are injected, so tests run the schedule without waiting.
 */
public final class DriverRetry {
  private static final Logger LOG = LoggerFactory.getLogger(DriverRetry.class);

  /** Retries after the first attempt, by default. */
  public static final int DEFAULT_RETRIES = 3;
  public static final Duration DEFAULT_BASE = Duration.ofSeconds(2);

  /** Waits between attempts. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  /** One attempt of a statement. */
  @FunctionalInterface
  public interface SqlCall<T> {
    T call() throws SQLException;
  }

  private final int maxRetries;
  private final Duration base;
  private final Sleeper sleeper;
  private final DoubleSupplier random;

  public DriverRetry(int maxRetries, Duration base, Sleeper sleeper, DoubleSupplier random) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0, not " + maxRetries);
    }
    this.maxRetries = maxRetries;
    this.base = base;
    this.sleeper = sleeper;
    this.random = random;
  }

  /** 3 retries, 2 s base, real sleeps and jitter. */
  public static DriverRetry standard() {
    return new DriverRetry(DEFAULT_RETRIES, DEFAULT_BASE, d -> Thread.sleep(d.toMillis()),
        () -> ThreadLocalRandom.current().nextDouble());
  }

  /** No retry: the first failure counts. */
  public static DriverRetry none() {
    return new DriverRetry(0, Duration.ZERO, d -> { }, () -> 0.0);
  }

  public int maxRetries() {
    return maxRetries;
  }

  /** The wait before retry {@code attempt + 1} (attempt counts from 0). */
  public Duration backoff(int attempt) {
    double factor = (1L << Math.min(attempt, 20)) * (0.5 + 0.5 * random.getAsDouble());
    return Duration.ofMillis(Math.round(base.toMillis() * factor));
  }

  /**
   * Runs {@code call}; on a transient failure runs {@code reset} (drop the connection), waits and
   * tries again.
   *
   * @throws SQLException the first non-transient failure, untouched (the caller maps it)
   * @throws io.mssqlcdc.errors.CdcSourceUnavailableException when every attempt failed transiently
   */
  public <T> T run(String what, SqlCall<T> call, Runnable reset) throws SQLException {
    for (int attempt = 0; ; attempt++) {
      try {
        return call.call();
      } catch (SQLException e) {
        if (!SqlServerErrors.isTransient(e)) {
          throw e;
        }
        reset.run();
        if (attempt >= maxRetries) {
          throw CdcErrors.sourceUnavailable(what, attempt + 1, SqlServerErrors.describe(e), e);
        }
        Duration wait = backoff(attempt);
        LOG.warn("mssql_cdc: {} failed ({}); retry {} of {} on a new connection in {} s", what,
            SqlServerErrors.describe(e), attempt + 1, maxRetries, String.format("%.1f", wait.toMillis() / 1000.0));
        try {
          sleeper.sleep(wait);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw CdcErrors.sourceUnavailable(what, attempt + 1, "interrupted while waiting to retry", e);
        }
      }
    }
  }
}
