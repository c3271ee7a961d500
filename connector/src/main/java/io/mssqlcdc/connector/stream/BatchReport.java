package io.mssqlcdc.connector.stream;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What the stream knows about one micro-batch, for the sink on the driver
 * ({@link BatchEvents#forBatch}): its offsets, the events of planning and reading, the WARNING
 * lines the driver logged for it, and what the executors measured (reference-behaviour §7, §8,
 * §14.2): every metric column of the facts table, rounded as the facts table holds it. The
 * figures of the read count the tasks that have finished: inside {@code foreachBatch} they are
 * complete once the sink's action on the batch DataFrame returned (the read runs inside it).
 *
 * <p>Each range counts once, however often it was read (a retried task, a second action on the
 * batch DataFrame): its last report wins. A figure no partition could measure is empty, as the
 * facts column is NULL then. docs/SOURCE.md ("Per-batch figures") maps each accessor to its
 * facts column.
 */
public final class BatchReport {
  private final String queryId;
  private final long batchId;
  private final CdcOffset start;
  private final CdcOffset end;
  private final List<LsnRange> ranges;
  private final List<BatchEvent> plannerEvents;
  private final List<String> warnings;
  private final BatchAccumulators acc;

  BatchReport(String queryId, long batchId, CdcOffset start, CdcOffset end, List<LsnRange> ranges,
      List<BatchEvent> plannerEvents, List<String> warnings, BatchAccumulators acc) {
    this.queryId = queryId;
    this.batchId = batchId;
    this.start = start;
    this.end = end;
    this.ranges = List.copyOf(ranges);
    Instant from = start.commitTs().orElse(null);
    this.plannerEvents = plannerEvents.stream().map(e -> e.withLostFrom(from)).toList();
    this.warnings = List.copyOf(warnings);
    this.acc = acc;
  }

  public String queryId() {
    return queryId;
  }

  /** The micro-batch id, as {@code foreachBatch} receives it; -1 when Spark did not say. */
  public long batchId() {
    return batchId;
  }

  /** The batch's start offset (exclusive: the last commit of the batch before). */
  public CdcOffset startOffset() {
    return start;
  }

  /** The batch's end offset (inclusive: its last commit or idle entry). */
  public CdcOffset endOffset() {
    return end;
  }

  /** Facts {@code end_lsn}: the batch's end offset. */
  public Lsn endLsn() {
    return end.lsn();
  }

  /** Facts {@code end_commit_ts}: UTC commit time of {@link #endLsn()}. */
  public Optional<Instant> endCommitTs() {
    return end.commitTs();
  }

  /** Input partitions planned (LSN ranges). */
  public int partitionsPlanned() {
    return ranges.size();
  }

  /**
   * The change rows the planner expects in this batch, from the split points it read: 0 when no
   * range was planned (nothing to read: an idle poll, a skipped range), -1 when a range was not
   * counted (one partition per range, {@code numPartitions=1}, counts nothing). A cleanup that
   * purges rows between planning and reading can only make the read hold fewer.
   */
  public long plannedRows() {
    long total = 0;
    for (LsnRange r : ranges) {
      if (r.rows() < 0) {
        return -1;
      }
      total += r.rows();
    }
    return total;
  }

  /**
   * Events of planning (schema changes, instance switches, skips), then those of the read
   * (skips found after a range was read). {@code data_skipped} events carry
   * {@link BatchEvent#lostFromTs()} (the commit time of {@link #startOffset()}) and
   * {@link BatchEvent#lostToTs()}.
   */
  public List<BatchEvent> events() {
    List<BatchEvent> all = new ArrayList<>(plannerEvents);
    Instant from = start.commitTs().orElse(null);
    for (BatchEvent e : figures().skipped()) {
      all.add(e.withLostFrom(from));
    }
    return all;
  }

  /**
   * Facts {@code detail.warnings}: the WARNING lines the driver logged for this batch (planning,
   * skips, schema changes and switches, computed columns, the server clock), de-duplicated, in
   * first-seen order. Empty when there were none.
   */
  public List<String> warnings() {
    return warnings;
  }

  /** What each range read reported, by range start (one per range). */
  public List<PartitionFigures> partitions() {
    return figures().partitions();
  }

  /** Change rows read by finished tasks. */
  public long rowsRead() {
    return figures().rows();
  }

  /** Estimated bytes of the values read after conversion (Spark's in-memory sizes), finished tasks. */
  public long bytesRead() {
    return figures().bytes();
  }

  /** Time the finished tasks spent inside the source (connecting, fetching, converting), ms. */
  public long readMillis() {
    return figures().sourceNanos() / 1_000_000;
  }

  /** Ranges whose read finished. */
  public long partitionsRead() {
    return figures().partitions().size();
  }

  /**
   * Facts {@code read_seconds}: the ranges' read wall times summed (task-seconds, from opening the
   * client to the last row, Spark's consumption of the rows included), 3 decimals; empty when
   * no range was read.
   */
  public OptionalDouble readSeconds() {
    return figures().readSeconds();
  }

  /** Facts {@code read_mb}: {@link #bytesRead()} / 10⁶, 6 decimals; empty when no range was read. */
  public OptionalDouble readMb() {
    return figures().readMb();
  }

  /**
   * Facts {@code source_rtt_ms}: the median over ranges of one {@code SELECT 1} round trip just
   * before each read, 1 decimal; empty when none was measured.
   */
  public OptionalDouble sourceRttMs() {
    return figures().sourceRttMs();
  }

  /**
   * Facts {@code network_wait_ms}: the {@code ASYNC_NETWORK_IO} wait of each range's session
   * during its read, summed; empty when no range was read or any range's server did not expose
   * {@code sys.dm_exec_session_wait_stats}.
   */
  public OptionalLong networkWaitMs() {
    return figures().networkWaitMs();
  }

  /**
   * Facts {@code retention_watermark_ts}: UTC commit time of the instance's
   * {@code fn_cdc_get_min_lsn} read after the read (the last mapping entry at or before it),
   * latest over ranges; measured by the batch's last range.
   */
  public Optional<Instant> retentionWatermark() {
    return figures().retentionWatermark();
  }

  /** {@code fn_cdc_get_max_lsn} read after the read, by the batch's last range. */
  public Optional<Lsn> sourceMaxLsn() {
    return figures().sourceMaxLsn();
  }

  /** Facts {@code source_max_commit_ts}: UTC commit time of {@link #sourceMaxLsn()}. */
  public Optional<Instant> sourceMaxCommitTs() {
    return figures().sourceMaxCommitTs();
  }

  /**
   * Facts {@code capture_lag_seconds}: the executor's UTC clock when it read
   * {@link #sourceMaxCommitTs()}, minus that time, 3 decimals (negative with clock skew).
   */
  public OptionalDouble captureLagSeconds() {
    return figures().captureLagSeconds();
  }

  /**
   * Facts {@code retention_headroom_hours}: {@link #endCommitTs()} − {@link #retentionWatermark()}
   * in hours, 2 decimals.
   */
  public OptionalDouble retentionHeadroomHours() {
    return BatchFigures.hoursBetween(retentionWatermark(), endCommitTs());
  }

  /**
   * Facts {@code ingestion_lag_seconds}: {@link #sourceMaxCommitTs()} − {@link #endCommitTs()},
   * 3 decimals.
   */
  public OptionalDouble ingestionLagSeconds() {
    return BatchFigures.secondsBetween(endCommitTs(), sourceMaxCommitTs());
  }

  private BatchFigures figures() {
    return BatchFigures.of(acc == null ? List.of() : acc.received());
  }

  @Override
  public String toString() {
    return "BatchReport{query=" + queryId + ", batch=" + batchId + ", start=" + start.lsn() + ", end=" + end.lsn()
        + ", partitions=" + ranges.size() + ", rows=" + rowsRead() + ", bytes=" + bytesRead() + ", readMs="
        + readMillis() + ", events=" + events() + ", warnings=" + warnings.size() + "}";
  }
}
