package io.mssqlcdc.sink;

import io.mssqlcdc.connector.stream.BatchEvent;
import io.mssqlcdc.connector.stream.BatchReport;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;

/**
 * The source's figures for one micro-batch that fill the facts table's metric columns
 * (reference-behaviour §14.2), taken from the stream's {@link BatchReport} on the driver (Spark
 * accumulators carry them from the partitions: no side files). Any figure may be missing (null):
 * its column is then NULL.
 *
 * @param sourceRttMs median {@code SELECT 1} round trip over partitions, ms
 * @param readSeconds partition read time, summed (task-seconds)
 * @param readMb megabytes read after conversion, summed
 * @param networkWaitMs {@code ASYNC_NETWORK_IO} wait of the partitions' sessions, summed
 * @param retentionWatermark commit time of {@code min_lsn} after reading, latest over partitions
 * @param sourceMaxCommitTs commit time of {@code max_lsn} after reading
 * @param captureLagSeconds partition clock minus {@code sourceMaxCommitTs}, max over partitions
 * @param endLsn the batch's end offset
 * @param endCommitTs commit time of {@code endLsn}
 * @param events events of planning and reading
 * @param warnings warnings the stream logged for the batch, de-duplicated
 */
public record BatchHealth(
    Double sourceRttMs, Double readSeconds, Double readMb, Long networkWaitMs, Instant retentionWatermark,
    Instant sourceMaxCommitTs, Double captureLagSeconds, Lsn endLsn, Instant endCommitTs, List<BatchEvent> events,
    List<String> warnings) {

  /** No figures (a batch the source did not report, e.g. from another source). */
  public static final BatchHealth NONE = new BatchHealth(null, null, null, null, null, null, null, null, null,
      List.of(), List.of());

  public BatchHealth {
    events = events == null ? List.of() : List.copyOf(events);
    warnings = warnings == null ? List.of() : List.copyOf(warnings);
  }

  /**
   * The figures of {@code report}. A batch whose end offset is its start (nothing between them to
   * plan a range over: a run's first batch at its starting position) has no end offset in facts,
   * as the reference leaves {@code end_lsn} NULL when no range was planned (reference-behaviour
   * §14.2): a query that tells such batches by a NULL {@code end_lsn} sees the same rows after a
   * switch. A batch over idle entries only plans a range, and keeps its end.
   */
  public static BatchHealth from(BatchReport report) {
    boolean advanced = report.endLsn().isAfter(report.startOffset().lsn());
    return new BatchHealth(
        box(report.sourceRttMs()),
        box(report.readSeconds()),
        box(report.readMb()),
        report.networkWaitMs().isPresent() ? report.networkWaitMs().getAsLong() : null,
        report.retentionWatermark().orElse(null),
        report.sourceMaxCommitTs().orElse(null),
        box(report.captureLagSeconds()),
        advanced ? report.endLsn() : null,
        advanced ? report.endCommitTs().orElse(null) : null,
        report.events(),
        report.warnings());
  }

  private static Double box(java.util.OptionalDouble d) {
    return d.isPresent() ? d.getAsDouble() : null;
  }
}
