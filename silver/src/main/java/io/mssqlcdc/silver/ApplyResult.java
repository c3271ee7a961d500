package io.mssqlcdc.silver;

import java.time.LocalDateTime;
import java.util.Optional;

/**
 * What an {@link ApplyChanges} call did (the reference's {@code ApplyResult}): whether it rebuilt
 * silver from a snapshot, the position silver is at, silver's verdict, and whether bronze existed.
 * From PySpark: {@code r.rebuilt()}, {@code r.appliedLsn().orElse(None)},
 * {@code r.finalizedUntil().orElse(None)} (a {@code java.time.LocalDateTime}, UTC),
 * {@code r.bronzeFound()}.
 */
public final class ApplyResult {
  private final boolean rebuilt;
  private final String appliedLsn;
  private final LocalDateTime finalizedUntil;
  private final boolean bronzeFound;

  ApplyResult(boolean rebuilt, String appliedLsn, LocalDateTime finalizedUntil, boolean bronzeFound) {
    this.rebuilt = rebuilt;
    this.appliedLsn = appliedLsn;
    this.finalizedUntil = finalizedUntil;
    this.bronzeFound = bronzeFound;
  }

  /** Whether this call rebuilt silver (first call, or a newer snapshot in bronze) and MERGEd. */
  public boolean rebuilt() {
    return rebuilt;
  }

  /**
   * The position silver is at ({@code applied_lsn}): the newest bronze change or snapshot LSN
   * applied; empty before anything was.
   */
  public Optional<String> appliedLsn() {
    return Optional.ofNullable(appliedLsn);
  }

  /**
   * Silver's verdict after the call (UTC): every period ending at or before it is complete in silver.
   * It is the stored verdict as the call read it first, or the candidate the call wrote when later;
   * the control row is not read again after the write (a read of the control table per call): only
   * silver's calls write silver's row, one call per silver table at a time, so nothing can have moved
   * it in between. (A verdict written to silver's row by another writer meanwhile, against that rule,
   * stays in the table, since the write is forward-only, and is returned by the next call.)
   */
  public Optional<LocalDateTime> finalizedUntil() {
    return Optional.ofNullable(finalizedUntil);
  }

  /** False when bronze does not exist (yet): nothing was applied. */
  public boolean bronzeFound() {
    return bronzeFound;
  }

  @Override
  public String toString() {
    return "ApplyResult{rebuilt=" + rebuilt + ", appliedLsn=" + appliedLsn + ", finalizedUntil=" + finalizedUntil
        + ", bronzeFound=" + bronzeFound + "}";
  }
}
