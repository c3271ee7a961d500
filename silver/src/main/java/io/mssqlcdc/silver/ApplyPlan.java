package io.mssqlcdc.silver;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one {@code ApplyChanges} call applies, decided without Spark from what it read first
 * (reference-behaviour §16 steps 7-9 and 13-14, with §33's corrections W7, A2-A4, O10, O11): the
 * snapshot bronze holds, whether silver is rebuilt from it, which bronze rows are the base, which
 * waves of an open chunked snapshot are new, and afterwards the position and verdict to record.
 *
 * <p>Why a rerun or a crash never applies anything twice: each key takes the latest image of a
 * range that reaches bronze's head, and a row only takes an image newer than its own
 * {@code _start_lsn}; so applying from behind (a crash after the MERGE, before the position was
 * recorded) changes nothing.
 *
 * @param position silver's control row, read before bronze
 * @param snapshot the newest complete snapshot bronze holds (facts completions and whole
 *     snapshots in bronze); null when none
 * @param openLsn the open chunked snapshot S, when one is newer than {@link #snapshot}; else null
 * @param rebuild whether silver is rebuilt: first call, or a snapshot newer than the one it was
 *     last rebuilt from (the MERGE then also deletes every key not in its source)
 * @param base which bronze rows are applied (besides new waves)
 * @param afterWave the wave of {@link #openLsn} applied already (−1: none)
 * @param newChunks the chunks of {@link #openLsn} whose wave is above {@link #afterWave}, by index
 */
record ApplyPlan(
    SilverPosition position, String snapshot, String openLsn, boolean rebuild, Base base, int afterWave,
    SortedMap<Integer, Chunk> newChunks) {

  /** Which bronze rows a call applies. */
  enum BaseKind {
    /** The snapshot's operation-0 rows (whatever their stamps) and the changes after it. */
    SNAPSHOT_AND_LATER_CHANGES,
    /** Every change row (first call, or a rebuild without a snapshot). */
    ALL_CHANGES,
    /** The change rows after {@code applied_lsn}. */
    CHANGES_AFTER
  }

  /** The base rows: a kind and its LSN (the snapshot's or {@code applied_lsn}; null for all changes). */
  record Base(BaseKind kind, String lsn) {}

  ApplyPlan {
    newChunks = Collections.unmodifiableSortedMap(new TreeMap<>(newChunks));
  }

  /**
   * Decides a call.
   *
   * @param position silver's control row
   * @param newest the newest {@code bootstrap}/{@code resnapshot} facts row's {@code max_lsn} for
   *     bronze (an emptied table's snapshot is in the facts alone); null when none or no facts
   * @param whole the newest whole snapshot id in bronze among this table's operation-0 rows that
   *     are no chunks; null when none. It may leave out snapshots at or below
   *     {@code snapshot_lsn} (they cannot change the decision, and leaving them out lets Delta's
   *     file statistics skip the table's snapshot files on every call).
   * @param opened the newest chunked {@code snapshot_open} row's LSN for bronze; null when none
   * @param chunks the chunks the facts announce for {@code opened} (read only when it is newer
   *     than {@code newest}); empty otherwise
   */
  static ApplyPlan decide(SilverPosition position, String newest, String whole, String opened,
      Map<Integer, Chunk> chunks) {
    // snapshot_lsn stays among the snapshots found: bronze and the facts are append-only.
    String snapshot = Lsns.max(newest, whole, position.snapshotLsn());
    boolean open = opened != null && Lsns.after(opened, snapshot);
    String applied = position.appliedLsn();
    boolean rebuild = (applied == null && position.openSnapshotLsn() == null)
        || (snapshot != null && Lsns.after(snapshot, position.snapshotLsn()));
    Base base;
    if (rebuild && snapshot != null) {
      base = new Base(BaseKind.SNAPSHOT_AND_LATER_CHANGES, snapshot);
    } else if (rebuild || applied == null) {
      base = new Base(BaseKind.ALL_CHANGES, null);
    } else {
      base = new Base(BaseKind.CHANGES_AFTER, applied);
    }
    int after = !rebuild && open && opened.equals(position.openSnapshotLsn()) && position.snapshotWave() != null
        ? position.snapshotWave() : -1;
    SortedMap<Integer, Chunk> fresh = new TreeMap<>();
    if (open) {
      for (Map.Entry<Integer, Chunk> c : chunks.entrySet()) {
        if (c.getValue().wave() > after) {
          fresh.put(c.getKey(), c.getValue());
        }
      }
    }
    return new ApplyPlan(position, snapshot, open ? opened : null, rebuild, base, after, fresh);
  }

  /** Whether a chunked snapshot is open (its waves are applied as they arrive; the verdict is held). */
  boolean open() {
    return openLsn != null;
  }

  /**
   * What the call records once it knows {@code top}, the newest change LSN of its rows.
   *
   * @param top the greatest {@code _start_lsn} of the change rows applied; null when none
   * @param factsGiven whether the call was given a facts table (without one the verdict is held)
   */
  Outcome outcome(String top, boolean factsGiven) {
    boolean merged = top != null || (rebuild && snapshot != null) || !newChunks.isEmpty();
    String applied = Lsns.max(position.appliedLsn(), snapshot, top);
    String rebuiltFrom = rebuild ? snapshot : position.snapshotLsn();
    String openNow = null;
    Integer wave = null;
    if (open()) {
      int w = afterWave;
      for (Chunk c : newChunks.values()) {
        w = Math.max(w, c.wave());
      }
      openNow = openLsn;
      wave = w >= 0 ? w : null;
    }
    SilverPosition next = new SilverPosition(applied, rebuiltFrom, openNow, wave, position.finalizedUntil());
    return new Outcome(merged, next, !next.samePosition(position), open() || !factsGiven, rebuild && merged);
  }

  /**
   * What a call ends with.
   *
   * @param merged whether it MERGEs into silver
   * @param next the position to record
   * @param writePosition whether the control row changes (else nothing is written)
   * @param holdVerdict whether the verdict stays as it was (a snapshot is open, or no facts table)
   * @param rebuilt whether silver was rebuilt (the result's {@code rebuilt})
   */
  record Outcome(boolean merged, SilverPosition next, boolean writePosition, boolean holdVerdict, boolean rebuilt) {}
}
