package io.mssqlcdc.connector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.connector.FactsRounding;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fold of partition figures into a batch's facts figures (reference §8.4), without Spark. */
class BatchFiguresTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  private static LsnRange range(long from, long to) {
    return new LsnRange("dbo_t", Lsn.of(0, from), Lsn.of(0, to), -1);
  }

  private static PartitionFigures read(LsnRange r, long rows, long bytes, long nanos, Double rtt, Long wait) {
    return new PartitionFigures(r, rows, bytes, nanos, nanos / 2, rtt, wait, null, null, null, null, null, null);
  }

  private static PartitionFigures last(LsnRange r, Instant watermark, Lsn max, Instant maxTs, double lag) {
    return new PartitionFigures(r, 1, 10, 1_000_000, 500_000, 1.0, 0L, r.from(), watermark, max, maxTs, lag, null);
  }

  @Test
  void sumsRowsBytesSecondsAndWaitsAndTakesTheMedianRoundTrip() {
    BatchFigures f = BatchFigures.of(List.of(
        read(range(1, 10), 5, 1_000_000, 1_250_000_000L, 3.0, 7L),
        read(range(11, 20), 7, 500_001, 250_000_000L, 1.0, 5L),
        read(range(21, 30), 0, 0, 4_000L, 20.0, 0L)));
    assertThat(f.rows()).isEqualTo(12);
    assertThat(f.bytes()).isEqualTo(1_500_001);
    assertThat(f.readSeconds()).hasValue(1.5);
    assertThat(f.readMb()).hasValue(1.500001);
    assertThat(f.sourceRttMs()).as("median of 1, 3, 20").hasValue(3.0);
    assertThat(f.networkWaitMs()).hasValue(12);
  }

  @Test
  void anEvenCountTakesTheMeanOfTheMiddleTwoRoundedToOneDecimal() {
    BatchFigures f = BatchFigures.of(List.of(
        read(range(1, 10), 0, 0, 0, 1.0, 0L), read(range(11, 20), 0, 0, 0, 1.25, 0L),
        read(range(21, 30), 0, 0, 0, 9.0, 0L), read(range(31, 40), 0, 0, 0, 1.5, 0L)));
    assertThat(f.sourceRttMs()).as("(1.25 + 1.5) / 2 = 1.375").hasValue(1.4);
  }

  @Test
  void networkWaitIsEmptyWhenAnyPartitionLacksIt() {
    BatchFigures f = BatchFigures.of(List.of(read(range(1, 10), 1, 1, 1, 1.0, 4L), read(range(11, 20), 1, 1, 1, 1.0, null)));
    assertThat(f.networkWaitMs()).isEmpty();
    assertThat(f.rows()).isEqualTo(2);
  }

  @Test
  void noPartitionReadLeavesTheMeasuredFiguresEmpty() {
    BatchFigures f = BatchFigures.of(List.of());
    assertThat(f.rows()).isZero();
    assertThat(f.readSeconds()).isEmpty();
    assertThat(f.readMb()).isEmpty();
    assertThat(f.sourceRttMs()).isEmpty();
    assertThat(f.networkWaitMs()).isEmpty();
    assertThat(f.retentionWatermark()).isEmpty();
    assertThat(f.captureLagSeconds()).isEmpty();
  }

  @Test
  void aRangeReportedTwiceCountsOnceWithItsLastReport() {
    LsnRange r = range(1, 10);
    BatchFigures f = BatchFigures.of(List.of(read(r, 5, 50, 1_000_000_000L, 2.0, 1L), read(range(11, 20), 1, 10, 0, 4.0, 0L),
        read(r, 5, 50, 3_000_000_000L, 8.0, 2L)));
    assertThat(f.partitions()).hasSize(2);
    assertThat(f.rows()).isEqualTo(6);
    assertThat(f.readSeconds()).hasValue(3.0);
    assertThat(f.networkWaitMs()).hasValue(2);
  }

  @Test
  void positionFiguresAreTheLatestAndTheLargestLag() {
    BatchFigures f = BatchFigures.of(List.of(
        last(range(1, 10), T, Lsn.of(0, 50), T.plusSeconds(60), 12.3456),
        last(range(11, 20), T.plusSeconds(30), Lsn.of(0, 40), T.plusSeconds(50), 2.0)));
    assertThat(f.retentionWatermark()).contains(T.plusSeconds(30));
    assertThat(f.sourceMaxLsn()).contains(Lsn.of(0, 50));
    assertThat(f.sourceMaxCommitTs()).contains(T.plusSeconds(60));
    assertThat(f.captureLagSeconds()).hasValue(12.346);
  }

  @Test
  void headroomInHoursAndLagInSeconds() {
    assertThat(BatchFigures.hoursBetween(Optional.of(T), Optional.of(T.plusSeconds(72 * 3600 - 18))))
        .as("72 h less 18 s = 71.995 h").hasValue(72.0);
    assertThat(BatchFigures.hoursBetween(Optional.of(T), Optional.empty())).isEmpty();
    assertThat(BatchFigures.secondsBetween(Optional.of(T), Optional.of(T.plusMillis(-1500)))).hasValue(-1.5);
  }

  /** Python's round: half-even on the exact binary value (2.675 is 2.67499999...). */
  @Test
  void roundsAsPythonDoes() {
    assertThat(FactsRounding.round(2.675, 2)).isEqualTo(2.67);
    assertThat(FactsRounding.round(0.125, 2)).isEqualTo(0.12);
    assertThat(FactsRounding.round(0.375, 2)).isEqualTo(0.38);
    assertThat(FactsRounding.round(1.0005, 3)).isEqualTo(1.0);
    assertThat(FactsRounding.round(-2.5, 0)).isEqualTo(-2.0);
  }
}
