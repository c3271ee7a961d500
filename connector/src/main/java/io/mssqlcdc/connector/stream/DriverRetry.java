package io.mssqlcdc.connector.stream;

import io.mssqlcdc.errors.CdcSourceUnavailableException;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Driver-side retries of the stream's calls to SQL Server (reference-behaviour §19): on a
 * transient failure ({@link CdcSourceUnavailableException}) the client is dropped, the call
 * waits {@code 2 s · 2^attempt · uniform(0.5, 1)} (1-2, 2-4, 4-8 s) and runs again on a new
 * connection, up to {@link #RETRIES} times; then the last failure is thrown. Every other
 * failure (data loss, schema change, configuration, permission) is thrown at once. Executors do
 * not retry: Spark retries the task.
 */
final class DriverRetry {
  static final int RETRIES = 3;
  private static final Logger LOG = LoggerFactory.getLogger(DriverRetry.class);

  /** Waits; tests inject one that records instead of sleeping. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private final Sleeper sleeper;
  private final DoubleSupplier random;
  private final Runnable dropClient;

  /**
   * @param random uniform in [0, 1)
   * @param dropClient closes and forgets the cached client, so the next call opens a new one
   */
  DriverRetry(Sleeper sleeper, DoubleSupplier random, Runnable dropClient) {
    this.sleeper = sleeper;
    this.random = random;
    this.dropClient = dropClient;
  }

  <T> T call(String method, Supplier<T> body) {
    for (int attempt = 0; ; attempt++) {
      try {
        return body.get();
      } catch (CdcSourceUnavailableException e) {
        dropClient.run();
        if (attempt >= RETRIES) {
          throw e;
        }
        long millis = Math.round(2000.0 * (1L << attempt) * (0.5 + 0.5 * random.getAsDouble()));
        LOG.warn("mssql_cdc: {} failed ({}); retry {} of {} on a new connection in {} s",
            method, e.getMessage(), attempt + 1, RETRIES, millis / 1000.0);
        try {
          sleeper.sleep(millis);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  void run(String method, Runnable body) {
    call(method, () -> {
      body.run();
      return null;
    });
  }
}
