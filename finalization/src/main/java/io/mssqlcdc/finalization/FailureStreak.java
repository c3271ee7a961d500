package io.mssqlcdc.finalization;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.event.Level;

/**
 * Counts failures in a row and decides how loudly each is logged, so a permanent failure (no
 * MODIFY on the control table, a dropped table) does not flood the log every progress (about every
 * 10 s on an idle stream): the first of a streak at ERROR with its stack trace, then a WARNING at
 * most once per {@code repeat}, until a success ends the streak.
 */
final class FailureStreak {
  private final LongSupplier nanoClock;
  private final long repeatNanos;
  private int failures;
  private Throwable lastError;
  private long loggedAt;

  FailureStreak(Duration repeat, LongSupplier nanoClock) {
    this.repeatNanos = repeat.toNanos();
    this.nanoClock = nanoClock;
  }

  /** Records a failure; returns the level to log it at, or null to stay quiet. */
  synchronized Level failed(Throwable e) {
    failures++;
    lastError = e;
    long now = nanoClock.getAsLong();
    if (failures == 1) {
      loggedAt = now;
      return Level.ERROR;
    }
    if (now - loggedAt >= repeatNanos) {
      loggedAt = now;
      return Level.WARN;
    }
    return null;
  }

  /** A success: the streak ends. */
  synchronized void succeeded() {
    failures = 0;
    lastError = null;
  }

  /** Failures in a row (0 after a success). */
  synchronized int failures() {
    return failures;
  }

  /** The error of the last attempt, null once one succeeded. */
  synchronized Throwable lastError() {
    return lastError;
  }
}
