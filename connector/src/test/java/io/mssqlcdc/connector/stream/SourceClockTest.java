package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;

/** {@link SourceClock}: the time inside a reader, Spark's share between the calls sampled. */
class SourceClockTest {
  /** A clock the test moves by hand; each read costs {@code cost} ns, as a real clock read does. */
  private static final class Manual {
    final long cost;
    long now = 1_000;
    int reads;

    Manual(long cost) {
      this.cost = cost;
    }

    long read() {
      reads++;
      long t = now;
      now += cost;
      return t;
    }
  }

  /** What a driven read took: the clock's estimate at its stop, the wall time, Spark's true share. */
  private record Run(long inside, long wall, long outside) {
    long trueInside() {
      return wall - outside;
    }
  }

  /**
   * Drives {@code rows} calls returning a row and a last one finding the end, then stops the clock:
   * each call spends {@code inside} ns in the reader (call {@code slowCall}, 0-based, {@code wait}
   * more), the gap after row {@code k} (1-based) {@code outside.applyAsLong(k)} ns in Spark.
   */
  private static Run drive(SourceClock c, Manual m, int rows, long inside, LongUnaryOperator outside, int slowCall,
      long wait) {
    long spark = 0;
    long start = m.now;
    for (int call = 0; call <= rows; call++) {
      c.enter();
      m.now += inside + (call == slowCall ? wait : 0);
      if (call < rows) {
        c.returned(call + 1);
        long gap = outside.applyAsLong(call + 1);
        m.now += gap;
        spark += gap;
      }
    }
    long end = m.now; // the stop's read: the read's end
    c.stop();
    return new Run(c.insideNanos(), end - start, spark);
  }

  @Test
  void aShortReadIsTimedExactly() {
    Manual m = new Manual(0);
    SourceClock c = new SourceClock(m::read, 0, 7);
    Run r = drive(c, m, SourceClock.EXACT_GAPS, 100, k -> 40, 10, 5_000);
    assertThat(r.inside()).isEqualTo((SourceClock.EXACT_GAPS + 1) * 100L + 5_000);
    assertThat(r.inside()).isEqualTo(r.trueInside());
  }

  @Test
  void eachSampledGapLosesTheClockReadItHolds() {
    Manual m = new Manual(30);
    SourceClock c = new SourceClock(m::read, 30, 7);
    Run r = drive(c, m, 10_000, 100, k -> 40, -1, 0);
    // the reads inside the reader stay inside; Spark's 40 ns a gap are what is taken off
    assertThat(r.inside()).isEqualTo(r.trueInside());
    SourceClock blind = new SourceClock(m::read, 0, 7);
    Run without = drive(blind, m, 10_000, 100, k -> 40, -1, 0);
    assertThat(without.inside()).as("not taking the read off counts a read a row as Spark's")
        .isLessThan(without.trueInside() - 10_000L * 25);
  }

  @Test
  void aLongReadReadsTheClockTwiceASpanAndKeepsEveryWaitInside() {
    Manual m = new Manual(0);
    SourceClock c = new SourceClock(m::read, 0, 7);
    int rows = 100_000;
    // the network wait falls in some call, sampled or not: it is inside, whole
    Run r = drive(c, m, rows, 100, k -> 40, 50_003, 7_000_000);
    assertThat(r.inside()).isEqualTo(r.trueInside()); // equal gaps: the estimate is exact
    // the first call, the exact gaps (two reads each), about two reads a mean span after them, the stop
    double perSpan = (m.reads - 2 - 2.0 * SourceClock.EXACT_GAPS) / ((rows - SourceClock.EXACT_GAPS) / 16.0);
    assertThat(perSpan).isCloseTo(2.0, within(0.2));
  }

  @Test
  void sparksPeriodicWorkIsSampledInProportion() {
    // Spark merges a task's metrics every 100 rows and its bytes every 1,000: a fixed stride of 16
    // would take one such gap in four at weight 16 (four times its share: 2.5 times Spark's true time here)
    LongUnaryOperator spark = k -> 40 + (k % 100 == 0 ? 2_000 : 0) + (k % 1_000 == 0 ? 5_000 : 0);
    for (long seed : new long[] {1, 7, 42}) {
      Manual m = new Manual(0);
      SourceClock c = new SourceClock(m::read, 0, seed);
      Run r = drive(c, m, 200_000, 100, spark, -1, 0);
      long estimatedOutside = r.wall() - r.inside();
      assertThat((double) estimatedOutside).as("seed " + seed).isCloseTo(r.outside(), within(r.outside() * 0.15));
    }
  }

  @Test
  void theGapsAfterTheLastSampleCountAtTheSampledMean() {
    Manual m = new Manual(0);
    SourceClock c = new SourceClock(m::read, 0, 7);
    Run r = drive(c, m, SourceClock.EXACT_GAPS + 5, 100, k -> 40, -1, 0);
    assertThat(r.inside()).isEqualTo(r.trueInside());
  }

  @Test
  void theMetricNeverHoldsAnOpenGapOrSparksTimeAfterTheStop() {
    Manual m = new Manual(0);
    SourceClock c = new SourceClock(m::read, 0, 7);
    assertThat(c.insideNanos()).isZero();
    assertThat(c.started()).isFalse();
    c.enter();
    m.now += 100;
    c.returned(1);
    m.now += 5_000; // Spark, in a sampled gap still open
    assertThat(c.insideNanos()).isEqualTo(100);
    c.enter();
    m.now += 100;
    c.stop();
    long stopped = c.insideNanos();
    assertThat(stopped).isEqualTo(200);
    m.now += 1_000_000; // the rest of the task: not the source's
    int reads = m.reads;
    assertThat(c.insideNanos()).isEqualTo(stopped);
    assertThat(m.reads).as("the metric reads no clock").isEqualTo(reads);
  }

  @Test
  void neverNegative() {
    Manual m = new Manual(0);
    SourceClock c = new SourceClock(m::read, 0, 7);
    c.enter();
    c.returned(1);
    m.now += 50;
    c.enter();
    assertThat(c.insideNanos(c.startedAt())).isZero();
    SourceClock costly = new SourceClock(m::read, 1_000, 7); // a read cost above the gap: the gap counts 0
    costly.enter();
    costly.returned(1);
    m.now += 10;
    costly.enter();
    costly.stop();
    assertThat(costly.insideNanos()).isEqualTo(10);
  }

  @Test
  void theSystemClocksReadCostIsMeasuredOnce() {
    long cost = SourceClock.readCost();
    assertThat(cost).isBetween(0L, 10_000L);
    assertThat(SourceClock.readCost()).isEqualTo(cost);
  }
}
