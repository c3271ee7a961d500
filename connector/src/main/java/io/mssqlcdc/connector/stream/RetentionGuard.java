package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention guard (reference-behaviour §10.1): a range whose first LSN lies below the
 * instance's {@code fn_cdc_get_min_lsn} has lost changes to CDC cleanup (or to a disabled
 * instance). It runs on the driver before a batch is planned and on the executor after each
 * range is read: cleanup moves {@code min_lsn} before it deletes rows, so a range that was
 * purged while it was read is caught by the second check.
 */
final class RetentionGuard {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionGuard.class);

  private RetentionGuard() {}

  /**
   * What the guard decided for one range.
   *
   * @param warning the WARNING line logged for a skip (for the batch's {@code detail.warnings})
   */
  record Outcome(Optional<LsnRange> range, Optional<BatchEvent> skipped, Optional<String> warning) {}

  /**
   * Checks {@code range} against {@code minLsn} before it is read.
   *
   * @param goneInstances instances seen earlier this run and no longer listed (named in the error)
   * @return the range (moved up to {@code minLsn} when skipping; empty when nothing of it is
   *     left) and the {@code data_skipped} event when changes were skipped
   * @throws io.mssqlcdc.errors.CdcDataLossException when changes are gone and
   *     {@code failOnDataLoss} is true
   */
  static Outcome beforeRead(
      CdcClient client, LsnRange range, Lsn minLsn, boolean failOnDataLoss, List<String> goneInstances) {
    if (!range.from().isBefore(minLsn)) {
      return new Outcome(Optional.of(range), Optional.empty(), Optional.empty());
    }
    if (failOnDataLoss) {
      throw CdcErrors.dataLoss(range.captureInstance(), range.from().toString(), minLsn.toString(), goneInstances);
    }
    Instant minTs = client.commitTimeAtOrBefore(minLsn).orElse(null);
    String detail = "{\"from\": \"" + range.from() + "\", \"to\": \"" + minLsn + "\", \"certain\": true}";
    BatchWarnings warnings = new BatchWarnings();
    warnings.warn(LOG, "mssql_cdc: {}: changes from {} to before {} (min_lsn, committed {}) are gone and"
        + " failOnDataLoss=false: skipping ahead; those changes are lost. A re-snapshot restores them.",
        range.captureInstance(), range.from(), minLsn, minTs);
    BatchEvent event =
        new BatchEvent(BatchEvent.Kind.DATA_SKIPPED, range.captureInstance(), minLsn, minTs, detail, null, minTs);
    Optional<LsnRange> left = minLsn.isAfter(range.to()) ? Optional.empty() : Optional.of(range.withFrom(minLsn));
    return new Outcome(left, Optional.of(event), Optional.of(warnings.lines().get(0)));
  }

  /**
   * The executor's check after reading {@code range}, with the instance's {@code min_lsn} read
   * after the read.
   *
   * @return the {@code data_skipped} event (uncertain: rows may or may not be missing) when
   *     {@code failOnDataLoss} is false and cleanup passed the range's start during the read
   * @throws io.mssqlcdc.errors.CdcDataLossException otherwise when cleanup passed it
   */
  static Optional<BatchEvent> afterRead(CdcClient client, LsnRange range, Lsn minLsn, boolean failOnDataLoss) {
    if (!range.from().isBefore(minLsn)) {
      return Optional.empty();
    }
    if (failOnDataLoss) {
      throw CdcErrors.dataLoss(range.captureInstance(), range.from().toString(), minLsn.toString(), List.of());
    }
    String detail = "{\"from\": \"" + range.from() + "\", \"to\": \"" + minLsn + "\", \"certain\": false,"
        + " \"reason\": \"CDC cleanup moved min_lsn past the range while it was read\"}";
    LOG.warn("mssql_cdc: {}: CDC cleanup moved min_lsn to {} while {} was read, and failOnDataLoss=false: rows of"
        + " that range may be missing.", range.captureInstance(), minLsn, range);
    Instant minTs = client.commitTimeAtOrBefore(minLsn).orElse(null);
    return Optional.of(
        new BatchEvent(BatchEvent.Kind.DATA_SKIPPED, range.captureInstance(), minLsn, minTs, detail, null, minTs));
  }
}
