package io.mssqlcdc.connector.snapshot;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CdcClient;
import io.mssqlcdc.errors.CdcErrors;
import io.mssqlcdc.lsn.Lsn;
import java.io.Serializable;
import java.time.Instant;
import java.util.Optional;

/**
 * The LSN a snapshot's rows are stamped with, and its commit time (reference-behaviour §12.1,
 * docs/decisions/0002-snapshot-stamp.md).
 *
 * <p>IMPORTANT: the stamp is taken before any row of the table is read. Every commit after it
 * is then in the change stream after the stamp, so stream + snapshot hold the whole history: a
 * commit the read also sees is replayed by the stream, and latest-image-per-key absorbs the
 * overlap. A snapshot row can be newer than its stamp, never older.
 *
 * <p>The stamp is {@code snapshotLsn} when given; else {@code max_lsn}, raised to
 * {@code decrement(start_lsn)} of a capture instance newer than {@code max_lsn} (a just-enabled
 * instance capture has not reached yet: its rows begin after its start LSN).
 *
 * @param lsn the stamp
 * @param commitTs UTC commit time of {@code lsn}; {@code null} when it is no commit's
 */
public record SnapshotStamp(Lsn lsn, Instant commitTs) implements Serializable {

  /**
   * Takes the stamp for a snapshot of the table {@code captureInstance} tracks, as the snapshot
   * reader does (the configured instance, or the table's newest when it is gone). Call it before
   * the table is read; pass the result as the reader's {@code snapshotLsn}.
   */
  public static SnapshotStamp takeFor(CdcClient client, String captureInstance) {
    return take(client, CaptureInstance.pick(client.captureInstances(captureInstance), captureInstance),
        Optional.empty());
  }

  /** Takes the stamp. Call it before reading the table. */
  static SnapshotStamp take(CdcClient client, CaptureInstance instance, Optional<Lsn> snapshotLsn) {
    Lsn lsn = snapshotLsn.orElseGet(() -> highWater(client, instance));
    return new SnapshotStamp(lsn, client.commitTime(lsn).orElse(null));
  }

  private static Lsn highWater(CdcClient client, CaptureInstance instance) {
    Optional<Lsn> max = client.maxLsn();
    Lsn start = instance.startLsn();
    if (start == null || start.isZero()) {
      return max.orElseThrow(() -> CdcErrors.nothingCapturedYet(instance.name()));
    }
    Lsn beforeStart = client.decrementLsn(start);
    return max.map(m -> Lsn.max(m, beforeStart)).orElse(beforeStart);
  }
}
