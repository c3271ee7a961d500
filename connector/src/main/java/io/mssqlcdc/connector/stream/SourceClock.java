package io.mssqlcdc.connector.stream;

import java.util.function.LongSupplier;

/**
 * The time a partition reader spends inside its source (connecting, fetching, converting: the
 * {@code mssqlCdcReadMs} metric, {@link BatchReport#readMillis()}) without reading the clock
 * twice per row, which cost the row path about 65 ns a row (two {@code System.nanoTime} calls of
 * about 32 ns each on the bench's machine).
 *
 * <p>It measures the complement: the read's wall time from the first call into the reader,
 * minus the time spent outside the reader between a row's return and the next call (Spark
 * consuming the row). Those gaps are sampled: the first {@link #EXACT_GAPS} timed one by one,
 * then one gap at a random place in each span of 1 to {@code 2 * MEAN_SPAN - 1} gaps (mean
 * {@link #MEAN_SPAN}), standing for its span, so that Spark's periodic work (its task metrics
 * every 100 and 1,000 rows) is sampled in proportion instead of in step with a fixed stride;
 * the gaps after the last sample are estimated at the sampled mean when the clock stops. Each
 * sampled gap holds about one clock read of the reader's own: {@link #readCost()} is taken off it
 * first. Everything inside the reader (a call that waits on the network for the next packet, the
 * connection) is in the wall time whichever call it falls in; only Spark's share is estimated. A
 * reader of at most {@code EXACT_GAPS} rows is timed as exactly as the clock allows.
 *
 * <p>One per partition reader (one thread); not thread-safe.
 */
final class SourceClock {
  /** The first gaps, timed one by one. */
  static final int EXACT_GAPS = 64;
  /** After them, one gap in this many on average is timed. */
  static final int MEAN_SPAN = 16;

  private static volatile long systemReadCost = -1;

  private final LongSupplier clock;
  private final long readCost;
  private long random;
  private boolean started;
  private long startedAt;
  private boolean gapOpen;
  private long gapStartedAt;
  private long gapWeight;
  /** Gaps left in the current span before its sample; its length. */
  private long countdown;
  private long span;
  private long outsideNanos;
  private long sampledGaps;
  private long sampledNanos;
  /** The last time the clock was read: what the metric reports up to while the read runs. */
  private long lastRead;
  private boolean stopped;
  private long stoppedInside;

  SourceClock() {
    this(System::nanoTime, readCost(), System.nanoTime());
  }

  /**
   * @param clock the nanosecond clock (tests give their own)
   * @param readCost what one read of {@code clock} costs, ns, taken off each sampled gap
   * @param seed the seed of the spans' random lengths
   */
  SourceClock(LongSupplier clock, long readCost, long seed) {
    this.clock = clock;
    this.readCost = readCost;
    this.random = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
  }

  /**
   * At the start of every call into the reader: the first call starts the clock; a later call
   * closes the gap before it when that gap is sampled.
   */
  void enter() {
    if (!started) {
      started = true;
      startedAt = read();
      return;
    }
    if (!gapOpen) {
      return;
    }
    long gap = Math.max(0, read() - gapStartedAt - readCost);
    outsideNanos += gap * gapWeight;
    sampledGaps += gapWeight;
    sampledNanos += gap * gapWeight;
    gapOpen = false;
  }

  /** When a call returns its {@code rows}-th row (1-based): the gap after it is timed if sampled. */
  void returned(long rows) {
    if (rows <= EXACT_GAPS) {
      gapWeight = 1;
      if (rows == EXACT_GAPS) {
        nextSpan();
      }
    } else if (--countdown > 0) {
      return;
    } else {
      gapWeight = span;
      nextSpan();
    }
    gapOpen = true;
    gapStartedAt = read();
  }

  /**
   * Stops the clock when the read ends (the reader's last call): the gaps after the last sample
   * are counted at the sampled mean; {@link #insideNanos()} keeps the value from then on.
   */
  void stop() {
    if (!started || stopped) {
      return;
    }
    long now = read();
    long unsampled = span - countdown;
    if (!gapOpen && unsampled > 0 && sampledGaps > 0) {
      outsideNanos += sampledNanos / sampledGaps * unsampled;
    }
    stoppedInside = insideNanos(now);
    stopped = true;
  }

  /** Whether the clock was started (a first call came in). */
  boolean started() {
    return started;
  }

  /** When the clock was started (the first call's time); only meaningful once {@link #started()}. */
  long startedAt() {
    return startedAt;
  }

  /** The time inside the reader from its first call up to {@code now}, estimated as above; 0 before it. */
  long insideNanos(long now) {
    if (!started) {
      return 0;
    }
    return Math.max(0, now - startedAt - outsideNanos);
  }

  /**
   * For the task metric: the time inside up to the last clock read (at most a span of rows old,
   * never Spark's time after the reader's last call), or the stopped value; reads no clock.
   */
  long insideNanos() {
    if (stopped) {
      return stoppedInside;
    }
    return gapOpen ? insideNanos(gapStartedAt) : insideNanos(lastRead);
  }

  private long read() {
    long now = clock.getAsLong();
    lastRead = now;
    return now;
  }

  /** Starts a span of 1 to {@code 2 * MEAN_SPAN - 1} gaps (xorshift). */
  private void nextSpan() {
    long x = random;
    x ^= x << 13;
    x ^= x >>> 7;
    x ^= x << 17;
    random = x;
    span = 1 + Math.floorMod(x, 2L * MEAN_SPAN - 1);
    countdown = span;
  }

  /**
   * What one {@code System.nanoTime} read costs in this JVM, measured once: the least mean of
   * blocks of back-to-back reads (so a block the JIT had not compiled yet or a preempted one does
   * not count).
   */
  static long readCost() {
    long cost = systemReadCost;
    if (cost < 0) {
      long best = Long.MAX_VALUE;
      for (int block = 0; block < 20; block++) {
        long first = System.nanoTime();
        long last = first;
        for (int i = 0; i < 1_000; i++) {
          last = System.nanoTime();
        }
        best = Math.min(best, (last - first) / 1_000);
      }
      cost = best;
      systemReadCost = cost;
    }
    return cost;
  }
}
