package io.mssqlcdc.sink.tables;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries a Delta operation that lost a race with another writer's commit: OSS Delta fails a
 * MERGE or a metadata change when another commit touched the table meanwhile, even on other rows
 * (reference-behaviour §14.7). Retryable: {@code ConcurrentAppendException},
 * {@code ConcurrentDeleteReadException}, {@code ConcurrentDeleteDeleteException},
 * {@code ConcurrentTransactionException}, {@code MetadataChangedException} (matched by class name
 * anywhere in the cause chain and class hierarchy, so Databricks' own Delta matches too), or a
 * message carrying {@code DELTA_CONCURRENT} or {@code DELTA_METADATA_CHANGED}. A protocol change
 * is not retried. Backoff is full jitter, {@code uniform(0, min(10 s, 0.5 s · 2^attempt))}, until
 * the deadline.
 */
public final class DeltaConflicts {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaConflicts.class);
  private static final Set<String> RETRYABLE = Set.of(
      "ConcurrentAppendException", "ConcurrentDeleteReadException", "ConcurrentDeleteDeleteException",
      "ConcurrentTransactionException", "MetadataChangedException");
  /** How long a conflicting operation is retried, as in the reference. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(1);

  private DeltaConflicts() {}

  /** Whether {@code t} (or a cause) is a concurrent-commit conflict worth retrying. */
  public static boolean isConflict(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      for (Class<?> k = c.getClass(); k != null; k = k.getSuperclass()) {
        if (RETRYABLE.contains(k.getSimpleName())) {
          return true;
        }
      }
      String m = c.getMessage();
      if (m != null && (m.contains("DELTA_CONCURRENT") || m.contains("DELTA_METADATA_CHANGED"))) {
        return true;
      }
    }
    return false;
  }

  /** Runs {@code op}, retrying it on conflicts until {@link #DEFAULT_DEADLINE}. */
  public static <T> T retrying(String what, Supplier<T> op) {
    return retrying(what, DEFAULT_DEADLINE, op);
  }

  /** Runs {@code op}, retrying it on conflicts until {@code deadline} has passed. */
  public static <T> T retrying(String what, Duration deadline, Supplier<T> op) {
    long end = System.nanoTime() + deadline.toNanos();
    for (int attempt = 0; ; attempt++) {
      try {
        return op.get();
      } catch (RuntimeException e) {
        long left = end - System.nanoTime();
        if (!isConflict(e) || left <= 0) {
          throw e;
        }
        double capSeconds = Math.min(10.0, 0.5 * Math.pow(2, attempt));
        long sleepNanos = Math.min(left, (long) (ThreadLocalRandom.current().nextDouble(capSeconds) * 1e9));
        LOG.info("{} lost a race with another commit (attempt {}); retrying in {} ms: {}", what, attempt + 1,
            sleepNanos / 1_000_000, firstLine(e));
        try {
          Thread.sleep(sleepNanos / 1_000_000, (int) (sleepNanos % 1_000_000));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Runs {@code op}, retrying it on conflicts. */
  public static void retrying(String what, Runnable op) {
    retrying(what, () -> {
      op.run();
      return null;
    });
  }

  private static String firstLine(Throwable t) {
    String m = String.valueOf(t.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
