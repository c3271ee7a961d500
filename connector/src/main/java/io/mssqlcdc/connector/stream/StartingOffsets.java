package io.mssqlcdc.connector.stream;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.StartingPosition;
import java.util.List;

/**
 * Resolves {@code startingLsn} to the offset of a new checkpoint (reference-behaviour §5.1).
 * The offset counts as processed: the first batch reads from {@code increment(offset)}.
 * <ul>
 *   <li>{@code earliest}: {@code decrement(min_lsn(oldest instance))}, so the first batch starts
 *       at the oldest change CDC holds;
 *   <li>{@code latest}: {@code max(max_lsn, decrement(start_lsn of the oldest instance))}: never
 *       below the instance's first LSN (which would fail with a false data loss);
 *   <li>an LSN: that LSN (an LSN cleanup already passed fails the first batch with data loss).
 * </ul>
 */
final class StartingOffsets {
  private StartingOffsets() {}

  /**
   * @param source the table's {@code schema.table}, recorded in the offset
   * @param captureInstance the {@code captureInstance} option, recorded in the offset
   */
  static CdcOffset resolve(CdcClient client, StartingPosition position, List<CaptureInstance> instances,
      String source, String captureInstance) {
    CaptureInstance oldest = instances.get(0);
    Lsn lsn = switch (position.kind()) {
      case EARLIEST -> client.decrementLsn(client.minLsn(oldest.name()));
      case LATEST -> latest(client, oldest);
      case LSN -> position.lsn();
    };
    return CdcOffset.of(lsn, client.commitTime(lsn).orElse(null), source, captureInstance);
  }

  private static Lsn latest(CdcClient client, CaptureInstance oldest) {
    Lsn max = client.maxLsn().orElse(Lsn.ZERO);
    Lsn lsn = oldest.startLsn() == null ? max : Lsn.max(max, client.decrementLsn(oldest.startLsn()));
    if (lsn.isZero()) {
      throw CdcErrors.nothingCapturedYet(oldest.name());
    }
    return lsn;
  }
}
