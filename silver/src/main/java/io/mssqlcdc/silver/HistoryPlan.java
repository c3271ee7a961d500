package io.mssqlcdc.silver;

/**
 * What one {@code ApplyHistory} call reads, decided without Spark from what it read first
 * (docs/HISTORY.md, step 2): the newest complete snapshot, whether the call applies it, and the
 * change rows after which LSN (and up to which) it reads; afterwards the position to record.
 *
 * @param position the history's control row, read before bronze
 * @param snapshot the newest complete snapshot (facts completions, whole snapshots in bronze, the one
 *     recorded); null when none
 * @param applySnapshot whether the call applies {@link #snapshot}: it is newer than {@code snapshot_lsn}
 * @param changesAfter the call reads the change rows after this LSN; null: every change row
 * @param changesUpTo the call reads the change rows up to this LSN (inclusive); null: every one after
 *     {@link #changesAfter}. Set while a chunked snapshot the call cannot apply yet waits: the changes after
 *     it wait with it, the history needs the snapshot's state before them
 */
record HistoryPlan(SilverPosition position, String snapshot, boolean applySnapshot, String changesAfter,
    String changesUpTo) {

  /**
   * Decides a call.
   *
   * @param position the history's control row
   * @param newest the newest {@code bootstrap}/{@code resnapshot} facts row's {@code max_lsn}; null when none
   * @param whole the newest whole snapshot in bronze above {@code snapshot_lsn}; null when none
   * @param open the newest chunked snapshot the facts show opened ({@code snapshot_open}); null when none. When it
   *     is newer than every complete snapshot it is still open: the call reads the changes up to it only
   */
  static HistoryPlan decide(SilverPosition position, String newest, String whole, String open) {
    String snapshot = Lsns.max(newest, whole, position.snapshotLsn());
    boolean apply = Lsns.after(snapshot, position.snapshotLsn());
    // The first call starts at the snapshot (the history starts there); later calls read on from their position,
    // changes before a new snapshot included: they are history the snapshot does not show.
    String after = position.appliedLsn() != null ? position.appliedLsn() : apply ? snapshot : null;
    String upTo = open != null && Lsns.after(open, snapshot) ? open : null;
    return new HistoryPlan(position, snapshot, apply, after, upTo);
  }

  /**
   * This plan without its snapshot: the chunked snapshot it would apply waits (bronze does not hold yet every
   * change its chunk rows may show, {@link StreamProgress}), and the changes after it wait with it.
   */
  HistoryPlan waitingFor() {
    // A later open snapshot's bound, if any, is above this one (decide): the snapshot is the lower bound.
    return new HistoryPlan(position, position.snapshotLsn(), false, changesAfter, snapshot);
  }

  /** Whether changes wait for a chunked snapshot: the verdict waits with them. */
  boolean waits() {
    return changesUpTo != null;
  }

  /**
   * What the call records once it knows {@code top}, the newest change LSN it read.
   *
   * @param top the greatest {@code _start_lsn} of the change rows read; null when none
   * @return the position to record
   */
  SilverPosition next(String top) {
    String applied = Lsns.max(position.appliedLsn(), applySnapshot ? snapshot : null, top);
    return new SilverPosition(applied, applySnapshot ? snapshot : position.snapshotLsn(), null, null,
        position.finalizedUntil());
  }

  /** Whether the call MERGEs: it read a change or applies a snapshot. */
  boolean merges(String top) {
    return top != null || applySnapshot;
  }
}
