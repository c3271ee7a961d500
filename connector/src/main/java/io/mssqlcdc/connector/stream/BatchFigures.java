package io.mssqlcdc.connector.stream;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.connector.FactsRounding;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Folds the {@link PartitionFigures} of one batch into the facts figures, as the reference's
 * sink folds its partition files (reference-behaviour §8.4, verified/sink-and-pipeline.md §13):
 * sums for rows, bytes, read time and network wait (empty when any partition lacks the wait),
 * the median round trip, the latest watermark and {@code max_lsn} commit time, the largest lag;
 * rounded as the facts columns are ({@link FactsRounding}). Plain logic, no Spark.
 */
final class BatchFigures {
  private final List<PartitionFigures> partitions;

  private BatchFigures(List<PartitionFigures> partitions) {
    this.partitions = partitions;
  }

  /** The figures of {@code reported}, one per range: a range reported twice keeps its last report. */
  static BatchFigures of(Collection<PartitionFigures> reported) {
    Map<LsnRange, PartitionFigures> byRange = new LinkedHashMap<>();
    for (PartitionFigures p : reported) {
      byRange.remove(p.range());
      byRange.put(p.range(), p);
    }
    List<PartitionFigures> list = new ArrayList<>(byRange.values());
    list.sort((a, b) -> a.range().from().compareTo(b.range().from()));
    return new BatchFigures(List.copyOf(list));
  }

  List<PartitionFigures> partitions() {
    return partitions;
  }

  long rows() {
    return partitions.stream().mapToLong(PartitionFigures::rows).sum();
  }

  long bytes() {
    return partitions.stream().mapToLong(PartitionFigures::bytes).sum();
  }

  long sourceNanos() {
    return partitions.stream().mapToLong(PartitionFigures::sourceNanos).sum();
  }

  OptionalDouble readSeconds() {
    if (partitions.isEmpty()) {
      return OptionalDouble.empty();
    }
    long nanos = partitions.stream().mapToLong(PartitionFigures::readNanos).sum();
    return OptionalDouble.of(round(nanos / 1e9, FactsRounding.SECONDS));
  }

  OptionalDouble readMb() {
    return partitions.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(round(bytes() / 1e6, FactsRounding.MB));
  }

  /** Median of the partitions' round trips (the mean of the middle two for an even count). */
  OptionalDouble sourceRttMs() {
    double[] rtts = partitions.stream().filter(p -> p.rttMs() != null).mapToDouble(PartitionFigures::rttMs)
        .sorted().toArray();
    if (rtts.length == 0) {
      return OptionalDouble.empty();
    }
    int m = rtts.length / 2;
    double median = rtts.length % 2 == 1 ? rtts[m] : (rtts[m - 1] + rtts[m]) / 2;
    return OptionalDouble.of(round(median, FactsRounding.RTT_MS));
  }

  /** Summed network wait; empty when no partition was read or any lacks it. */
  OptionalLong networkWaitMs() {
    if (partitions.isEmpty() || partitions.stream().anyMatch(p -> p.networkWaitMs() == null)) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(partitions.stream().mapToLong(PartitionFigures::networkWaitMs).sum());
  }

  Optional<Instant> retentionWatermark() {
    return partitions.stream().map(PartitionFigures::retentionWatermark).filter(t -> t != null)
        .max(Instant::compareTo);
  }

  Optional<Lsn> sourceMaxLsn() {
    return partitions.stream().map(PartitionFigures::maxLsn).filter(l -> l != null).max(Lsn::compareTo);
  }

  Optional<Instant> sourceMaxCommitTs() {
    return partitions.stream().map(PartitionFigures::maxCommitTs).filter(t -> t != null).max(Instant::compareTo);
  }

  OptionalDouble captureLagSeconds() {
    return partitions.stream().filter(p -> p.captureLagSeconds() != null)
        .mapToDouble(PartitionFigures::captureLagSeconds).max()
        .stream().map(v -> round(v, FactsRounding.SECONDS)).findFirst();
  }

  List<BatchEvent> skipped() {
    List<BatchEvent> out = new ArrayList<>();
    for (PartitionFigures p : partitions) {
      if (p.skipped() != null && !out.contains(p.skipped())) {
        out.add(p.skipped());
      }
    }
    return out;
  }

  /** {@code round((position − watermark) / 1 h, 2)}. */
  static OptionalDouble hoursBetween(Optional<Instant> from, Optional<Instant> to) {
    if (from.isEmpty() || to.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(round(Duration.between(from.get(), to.get()).toMillis() / 3_600_000.0, FactsRounding.HOURS));
  }

  /** {@code round(to − from in seconds, 3)}. */
  static OptionalDouble secondsBetween(Optional<Instant> from, Optional<Instant> to) {
    if (from.isEmpty() || to.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(round(Duration.between(from.get(), to.get()).toNanos() / 1e9, FactsRounding.SECONDS));
  }

  private static double round(double v, int digits) {
    return FactsRounding.round(v, digits);
  }
}
