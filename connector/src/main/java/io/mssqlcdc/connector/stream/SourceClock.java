package io.mssqlcdc.connector.stream;

import java.util.function.LongSupplier;

/**
 * The time a partition reader spends inside its source (connecting, fetching, converting: the
 * {@code mssqlCdcReadMs} metric, {@link BatchReport#readMillis()}) without reading the clock
 * twice per row, which cost the row path about 65 ns a row (two {@code System.nanoTime} calls of
 * about 32 ns each on the bench's machine, a tenth of the narrow stream's whole per-row time).
 *
 * <p>It measures the complement: the read's wall time from the first call into the reader,
 * minus the time spent outside the reader between a row's return and the next call (Spark
 * consuming the row). Those gaps are Spark's own per-row work, alike from row to row, so they are
 * sampled: the first {@link #EXACT_GAPS} exactly, then one in {@link #STRIDE}, each sample
 * standing for the {@code STRIDE} gaps it ends. Everything inside the reader (a call that waits
 * on the network for the next packet, the connection, the last call's checks) is in the wall
 * time and counted exactly, whichever call it falls in; only Spark's share is estimated. A reader
 * of at most {@code EXACT_GAPS} rows is timed exactly.
 *
 * <p>One per partition reader (one thread); not thread-safe.
 */
final class SourceClock {
  /** The first gaps, timed one by one. */
  static final int EXACT_GAPS = 64;
  /** After them, one gap in this many is timed (a power of two). */
  static final int STRIDE = 16;

  private final LongSupplier clock;
  private long startedAt = -1;
  private long gapStartedAt = -1;
  private long gapWeight;
  private long outsideNanos;

  SourceClock() {
    this(System::nanoTime);
  }

  /** @param clock the nanosecond clock (tests give their own) */
  SourceClock(LongSupplier clock) {
    this.clock = clock;
  }

  /**
   * At the start of every call into the reader: the first call starts the clock and returns its
   * time; a later call closes the gap before it when that gap is sampled. Returns the time read,
   * or -1 when the clock was not read.
   */
  long enter() {
    if (startedAt < 0) {
      startedAt = clock.getAsLong();
      return startedAt;
    }
    if (gapStartedAt < 0) {
      return -1;
    }
    long now = clock.getAsLong();
    outsideNanos += (now - gapStartedAt) * gapWeight;
    gapStartedAt = -1;
    return now;
  }

  /** When a call returns its {@code rows}-th row (1-based): the gap after it is timed if sampled. */
  void returned(long rows) {
    if (rows <= EXACT_GAPS) {
      gapWeight = 1;
    } else if ((rows & (STRIDE - 1)) == 0) {
      gapWeight = STRIDE;
    } else {
      return;
    }
    gapStartedAt = clock.getAsLong();
  }

  /** When the clock was started (the first call's time), or -1 before it. */
  long startedAt() {
    return startedAt;
  }

  /** The time inside the reader from its first call up to {@code now}, estimated as above; 0 before it. */
  long insideNanos(long now) {
    if (startedAt < 0) {
      return 0;
    }
    return Math.max(0, now - startedAt - outsideNanos);
  }

  /** {@link #insideNanos(long)} at the clock's current time. */
  long insideNanos() {
    return startedAt < 0 ? 0 : insideNanos(clock.getAsLong());
  }
}
