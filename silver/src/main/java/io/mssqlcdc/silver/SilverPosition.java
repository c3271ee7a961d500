package io.mssqlcdc.silver;

import java.time.LocalDateTime;
import java.util.Objects;

/**
 * A silver table's row of the control table (reference-behaviour §14.4): how far it is applied and
 * its verdict. Read before bronze, written after the MERGE.
 *
 * @param appliedLsn the highest bronze change LSN applied; null before the first change
 * @param snapshotLsn the snapshot silver was last rebuilt from; null when never rebuilt from one
 * @param openSnapshotLsn the open chunked snapshot whose waves are being applied; null when none
 * @param snapshotWave the highest wave of it applied (a high-water mark); null when none
 * @param finalizedUntil silver's verdict; null when it has none
 */
record SilverPosition(
    String appliedLsn, String snapshotLsn, String openSnapshotLsn, Integer snapshotWave,
    LocalDateTime finalizedUntil) {

  /** A table the control table has no row for. */
  static final SilverPosition NONE = new SilverPosition(null, null, null, null, null);

  /** Whether the four position columns equal {@code other}'s (the verdict is not compared). */
  boolean samePosition(SilverPosition other) {
    return Objects.equals(appliedLsn, other.appliedLsn) && Objects.equals(snapshotLsn, other.snapshotLsn)
        && Objects.equals(openSnapshotLsn, other.openSnapshotLsn) && Objects.equals(snapshotWave, other.snapshotWave);
  }
}
