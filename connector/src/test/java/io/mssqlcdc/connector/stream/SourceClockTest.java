package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link SourceClock}: the time inside a reader, Spark's share between the calls sampled. */
class SourceClockTest {
  /** A clock the test moves by hand; counts how often it was read. */
  private static final class Manual {
    long now = 1_000;
    int reads;

    long read() {
      reads++;
      return now;
    }
  }

  /**
   * Drives {@code rows} calls returning a row and a last one finding the end: each call spends
   * {@code inside} ns in the reader, each gap after a row {@code outside} ns in Spark; a call
   * listed in {@code slowCall} (0-based) waits {@code wait} ns more inside.
   */
  private static long[] drive(SourceClock c, Manual m, int rows, long inside, long outside, int slowCall, long wait) {
    for (int call = 0; call <= rows; call++) {
      c.enter();
      m.now += inside + (call == slowCall ? wait : 0);
      if (call < rows) {
        c.returned(call + 1);
        m.now += outside;
      }
    }
    return new long[] {c.insideNanos(m.now), m.now - c.startedAt()};
  }

  @Test
  void aShortReadIsTimedExactly() {
    Manual m = new Manual();
    SourceClock c = new SourceClock(m::read);
    long[] r = drive(c, m, SourceClock.EXACT_GAPS, 100, 40, 10, 5_000);
    assertThat(r[0]).isEqualTo((SourceClock.EXACT_GAPS + 1) * 100L + 5_000);
    assertThat(r[1]).isEqualTo((SourceClock.EXACT_GAPS + 1) * 100L + 5_000 + SourceClock.EXACT_GAPS * 40L);
  }

  @Test
  void aLongReadReadsTheClockOnceInAStrideAndCountsEveryWaitInside() {
    Manual m = new Manual();
    SourceClock c = new SourceClock(m::read);
    int rows = 64 + 16 * 1000;
    // the network wait falls in an unsampled call: it is still inside, exactly
    long[] r = drive(c, m, rows, 100, 40, 64 + 16 * 500 + 3, 7_000_000);
    assertThat(r[0]).isEqualTo((rows + 1) * 100L + 7_000_000);
    // the first call, the exact gaps (two reads each), then one gap in a stride (two reads)
    assertThat(m.reads).isEqualTo(1 + 2 * SourceClock.EXACT_GAPS + 2 * 1000);
  }

  @Test
  void theTailAfterTheLastSampledGapIsCountedInside() {
    Manual m = new Manual();
    SourceClock c = new SourceClock(m::read);
    int rows = 64 + 16 * 10 + 5; // five gaps after the last sample: their 40 ns each stay inside
    long[] r = drive(c, m, rows, 100, 40, -1, 0);
    assertThat(r[0]).isEqualTo((rows + 1) * 100L + 5 * 40L);
  }

  @Test
  void nothingBeforeTheFirstCall() {
    Manual m = new Manual();
    SourceClock c = new SourceClock(m::read);
    assertThat(c.insideNanos()).isZero();
    assertThat(c.startedAt()).isEqualTo(-1);
    assertThat(m.reads).isZero();
  }

  @Test
  void neverNegative() {
    Manual m = new Manual();
    SourceClock c = new SourceClock(m::read);
    c.enter();
    c.returned(1);
    m.now += 50;
    c.enter();
    assertThat(c.insideNanos(c.startedAt())).isZero();
  }
}
