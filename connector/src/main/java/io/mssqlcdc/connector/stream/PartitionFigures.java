package io.mssqlcdc.connector.stream;

import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What one input partition measured while it read its range (reference-behaviour §7 steps 3
 * and 6, §8.1), sent to the driver by the batch's accumulator when the task succeeds. The
 * driver folds them into the facts figures of {@link BatchReport}. A range read twice (a task
 * retried, or a second action on the batch DataFrame) sends two; the report keeps the last per
 * range.
 *
 * <p>The position figures ({@code minLsn}, {@code retentionWatermark}, {@code maxLsn},
 * {@code maxCommitTs}, {@code captureLagSeconds}) are measured by the batch's last range only
 * (the one ending at the batch's end offset), after its read, as the reference does; they are
 * {@code null} on the others, and on the last one when the source could not tell (metrics never
 * fail a read).
 *
 * @param range the range read
 * @param rows change rows read
 * @param bytes estimated bytes of the values after conversion (Spark's in-memory sizes)
 * @param readNanos wall time from opening the client to the range's last row, Spark's consumption
 *     of the rows included
 * @param sourceNanos time spent inside the source's {@code next()} calls (connect, fetch, convert)
 * @param rttMs one {@code SELECT 1} round trip just before reading, ms; {@code null} when not measured
 * @param networkWaitMs the session's {@code ASYNC_NETWORK_IO} wait accrued during the read (after −
 *     before), ms; {@code null} when either reading is unavailable
 * @param minLsn {@code fn_cdc_get_min_lsn} of the range's instance after the read (last range only)
 * @param retentionWatermark UTC commit time of the last mapping entry at or before {@code minLsn}
 * @param maxLsn {@code fn_cdc_get_max_lsn} after the read (last range only)
 * @param maxCommitTs UTC commit time of {@code maxLsn}
 * @param captureLagSeconds the executor's UTC clock when {@code maxCommitTs} was read, minus it
 * @param skipped the {@code data_skipped} event of the read ({@code certain: false}), or null
 */
public record PartitionFigures(
    LsnRange range, long rows, long bytes, long readNanos, long sourceNanos, Double rttMs, Long networkWaitMs,
    Lsn minLsn, Instant retentionWatermark, Lsn maxLsn, Instant maxCommitTs, Double captureLagSeconds,
    BatchEvent skipped) implements Serializable {
  private static final long serialVersionUID = 1L;

  public OptionalDouble rtt() {
    return rttMs == null ? OptionalDouble.empty() : OptionalDouble.of(rttMs);
  }

  public OptionalLong networkWait() {
    return networkWaitMs == null ? OptionalLong.empty() : OptionalLong.of(networkWaitMs);
  }

  public Optional<BatchEvent> skippedEvent() {
    return Optional.ofNullable(skipped);
  }
}
