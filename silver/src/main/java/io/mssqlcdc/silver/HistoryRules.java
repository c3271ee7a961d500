package io.mssqlcdc.silver;

import java.io.Serializable;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The versions of one key (docs/HISTORY.md, "What a call does", step 4), in plain Java: given the
 * key's current version and watermark in the history and the call's bronze rows of the key, the
 * version rows to write (the current one closed or updated in place, and the new ones).
 *
 * <p>Rows at or below the watermark were applied by an earlier call and are skipped (decision 0016).
 * The rest are taken transaction by transaction in LSN order; of a transaction's rows the last by
 * {@code (_command_id, _seqval, _operation)} wins (NULLs first: silver's {@link ImageOrder}), so a key
 * gets one version per transaction.
 */
final class HistoryRules implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The operation of a key that a snapshot applied by the call does not hold ("absent at S"). */
  static final int ABSENT_FROM_SNAPSHOT = -1;

  /**
   * One bronze row of the key: its transaction, order within it, operation and image (captured columns). A snapshot
   * row (operation 0) has the snapshot's LSN as {@code lsn}, or, when the snapshot is chunked, its wave's stamp.
   */
  record Change(String lsn, LocalDateTime commitTs, Integer commandId, String seqval, int operation, Object[] values) {
    boolean present() {
      return operation == 0 || operation == 2 || operation == 4;
    }

    boolean fromSnapshot() {
      return operation == 0 || operation == ABSENT_FROM_SNAPSHOT;
    }
  }

  /**
   * A snapshot the call applies: its LSN and commit time (UTC), and whether it was read in chunks (waves) beside the
   * stream: then its rows (operation 0) are each its key's state when its wave read it (from its stamp L, at or after
   * the snapshot's LSN, on), not at that LSN ({@link #atSnapshot}).
   */
  record Snapshot(String lsn, LocalDateTime commitTs, boolean chunked) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A whole snapshot: its rows are the table at its LSN. */
    Snapshot(String lsn, LocalDateTime commitTs) {
      this(lsn, commitTs, false);
    }
  }

  /** One row of the history (mutable while a key is worked on). */
  static final class Version {
    Object[] values;
    final String fromLsn;
    final LocalDateTime validFrom;
    String toLsn;
    LocalDateTime validTo;
    final boolean deleted;
    boolean gap;

    Version(Object[] values, String fromLsn, LocalDateTime validFrom, String toLsn, LocalDateTime validTo,
        boolean deleted, boolean gap) {
      this.values = values;
      this.fromLsn = fromLsn;
      this.validFrom = validFrom;
      this.toLsn = toLsn;
      this.validTo = validTo;
      this.deleted = deleted;
      this.gap = gap;
    }

    @Override
    public String toString() {
      return Arrays.toString(values) + " [" + fromLsn + ", " + toLsn + ")" + (deleted ? " deleted" : "")
          + (gap ? " gap" : "");
    }
  }

  private static final Comparator<String> NULLS_FIRST = Comparator.nullsFirst(Comparator.naturalOrder());
  private static final Comparator<Change> ORDER = Comparator.comparing(Change::lsn)
      .thenComparing(Change::commandId, Comparator.nullsFirst(Comparator.<Integer>naturalOrder()))
      .thenComparing(Change::seqval, NULLS_FIRST)
      .thenComparingInt(Change::operation);

  /** Chunk rows of one key: the lowest wave stamp first, then (one wave) the image's text. */
  private static final Comparator<Change> EARLIEST_READ = Comparator.comparing(Change::lsn)
      .thenComparing(c -> Arrays.deepToString(c.values()));

  private final boolean[] tracked;
  private final boolean storeDeletes;
  private final String appliedSnapshot;
  private final LocalDateTime appliedAt;

  /**
   * @param tracked per captured column (bronze's order), whether a change of it opens a new version
   * @param storeDeletes whether a delete opens a tombstone
   */
  HistoryRules(boolean[] tracked, boolean storeDeletes) {
    this(tracked, storeDeletes, null, null);
  }

  /**
   * @param appliedSnapshot the snapshot the history applied before the call ({@code snapshot_lsn}); null when none.
   *     What a key's versions say of it is corrected by the key's first change after it ({@link #firstAfterSnapshot})
   * @param appliedAt its commit time (UTC); null when unknown (then a key it left out is not added)
   */
  HistoryRules(boolean[] tracked, boolean storeDeletes, String appliedSnapshot, LocalDateTime appliedAt) {
    this.tracked = tracked.clone();
    this.storeDeletes = storeDeletes;
    this.appliedSnapshot = appliedSnapshot;
    this.appliedAt = appliedAt;
  }

  /**
   * The version rows to write for one key.
   *
   * @param current the key's current version in the history ({@code validTo} null); null when none
   * @param watermark the greatest {@code __from_lsn}/{@code __to_lsn} of the key's rows; null when it has none
   * @param changes the call's bronze rows of the key (any order), snapshot rows as operation 0 (a chunked
   *     snapshot's at their waves' stamps)
   * @param snapshot the snapshot the call applies; null when none. A key without a row of it (and
   *     without a change at its LSN) is absent at it
   * @return the current version when it changed, then the new versions, oldest first
   */
  List<Version> apply(Version current, String watermark, List<Change> changes, Snapshot snapshot) {
    if (snapshot != null) {
      // A snapshot's row may show commits made after its LSN while it was read (the stamp comes first, decision
      // 0002; a chunked snapshot's waves read later still): the key's state at the LSN comes first from its changes.
      changes = atSnapshot(changes, snapshot);
    }
    List<Change> rows = new ArrayList<>();
    for (Change c : changes) {
      if (Lsns.after(c.lsn(), watermark)) {
        rows.add(c);
      }
    }
    if (snapshot != null && Lsns.after(snapshot.lsn(), watermark)
        && rows.stream().noneMatch(c -> c.lsn().equals(snapshot.lsn()))) {
      rows.add(new Change(snapshot.lsn(), snapshot.commitTs(), null, null, ABSENT_FROM_SNAPSHOT, null));
    }
    rows.sort(ORDER);
    List<Version> out = new ArrayList<>();
    Version open = current;
    boolean currentChanged = false;
    Change first = firstAfterSnapshot(current, watermark, rows);
    if (first != null) {
      // The state at the applied snapshot, as the key's first change after it found it.
      boolean present = first.operation() == 1 || first.operation() == 3;
      boolean recorded = current != null && !current.deleted;
      if (recorded && present) {
        if (!Arrays.deepEquals(current.values, first.values())) {
          current.values = first.values().clone();
          currentChanged = true;
        }
      } else if (recorded) {
        closeWhereOpened(current);
        currentChanged = true;
        open = null;
      } else if (present && appliedAt != null) {
        // A tombstone the snapshot opened has the same (key, __from_lsn): the MERGE overwrites it with this version.
        open = new Version(first.values().clone(), appliedSnapshot, appliedAt, null, null, false, false);
        out.add(open);
      }
    }
    for (int i = 0; i < rows.size(); i++) {
      Change c = rows.get(i);
      if (i + 1 < rows.size() && rows.get(i + 1).lsn().equals(c.lsn())) {
        continue; // not the transaction's last row of the key
      }
      if (c.present()) {
        if (open != null && !open.deleted && sameTracked(open.values, c.values())) {
          if (!Arrays.deepEquals(open.values, c.values())) {
            open.values = c.values().clone(); // untracked columns only: in place
            currentChanged |= open == current;
          }
          continue;
        }
        if (open != null) {
          close(open, c);
          currentChanged |= open == current;
        }
        open = new Version(c.values().clone(), c.lsn(), c.commitTs(), null, null, false, false);
        out.add(open);
      } else if (open != null && !open.deleted) {
        close(open, c);
        currentChanged |= open == current;
        Object[] image = c.values() == null ? open.values : c.values();
        open = storeDeletes ? new Version(image.clone(), c.lsn(), c.commitTs(), null, null, true, false) : null;
        if (open != null) {
          out.add(open);
        }
      }
    }
    if (currentChanged) {
      out.add(0, current);
    }
    return out;
  }

  /**
   * The key's rows with its chunk rows replaced by its state at the chunked snapshot's LSN S (docs/HISTORY.md,
   * "Chunked snapshots"): a chunk row is the key's state when its wave read it (at or after S), so a key changed
   * after S may show there what a change after S made. Its state at S is what its first change after S found: a
   * delete's (1) or an update's before image (3) is the row at S; an insert (2), or the after image of an update
   * that moved the row to this key from another (4 without its 3), finds the key absent. A key with no change after
   * S among the call's rows has its chunk row (the caller applies the snapshot only once bronze holds every change
   * its chunk rows may show, {@link StreamProgress}; a key whose change after S an earlier call applied is at or
   * below its watermark and skips the snapshot anyway); none: absent. Of several chunk rows of the key (overlapping
   * chunks), the one with the lowest stamp, read closest to S; of those with the same stamp (one wave), the one whose
   * image comes first as text ({@link Arrays#deepToString}), so that the choice does not depend on the rows' order.
   * A chunked snapshot without any chunk row (its waves read an emptied table) is taken the same way: a key's state
   * at S is its first change's before image, else absent.
   */
  static List<Change> atSnapshot(List<Change> changes, Snapshot snapshot) {
    List<Change> out = new ArrayList<>();
    Change chunk = null;
    Change first = null;
    for (Change c : changes) {
      if (c.operation() == 0) {
        chunk = chunk == null || EARLIEST_READ.compare(c, chunk) < 0 ? c : chunk;
        continue;
      }
      out.add(c);
      if (Lsns.after(c.lsn(), snapshot.lsn()) && (first == null || ORDER.compare(c, first) < 0)) {
        first = c;
      }
    }
    Object[] image = first == null ? chunk == null ? null : chunk.values()
        : first.operation() == 1 || first.operation() == 3 ? first.values() : null;
    if (image != null) {
      out.add(new Change(snapshot.lsn(), snapshot.commitTs(), null, null, 0, image));
    }
    return out;
  }

  /**
   * The key's first change after the snapshot the history applied in an earlier call, when what the key's versions
   * say of its state there came from that snapshot alone: present with the snapshot's row as its image (its current
   * version opened there, nothing applied since), or absent (its versions closed there, or none at all, or a
   * tombstone opened there). The snapshot's row may show a commit made after the snapshot's LSN while it was read
   * (the stamp comes first, decision 0002; a wave reads later still), and a key deleted during the read has no row,
   * when the stream had not brought that commit to bronze as the call ran. The first change after it says what the
   * row was: a delete's (1) or an update's before image (3) is the row; an insert (2), or an update that moved the
   * row to this key (4 without its 3), means it was absent. {@link #apply} corrects the versions to that: the image
   * replaced, a version closed where it opened (valid for no time), or a version added from the snapshot's LSN. A
   * version that was right already is left alone.
   *
   * @param rows the call's rows of the key after its watermark, in order
   * @return the first change; null when there is nothing to check
   */
  private Change firstAfterSnapshot(Version current, String watermark, List<Change> rows) {
    if (appliedSnapshot == null || rows.isEmpty() || rows.get(0).fromSnapshot()
        || !Lsns.after(rows.get(0).lsn(), appliedSnapshot)) {
      return null;
    }
    boolean fromSnapshot = appliedSnapshot.equals(watermark) && (current == null
        || appliedSnapshot.equals(current.fromLsn));
    boolean neverSeen = watermark == null && current == null;
    return fromSnapshot || neverSeen ? rows.get(0) : null;
  }

  /** Closes {@code v} where it opened: valid for no time (a point-in-time query never returns it). */
  private static void closeWhereOpened(Version v) {
    v.toLsn = v.fromLsn;
    v.validTo = v.validFrom;
  }

  private static void close(Version v, Change at) {
    v.toLsn = at.lsn();
    v.validTo = at.commitTs();
    v.gap = at.fromSnapshot();
  }

  private boolean sameTracked(Object[] a, Object[] b) {
    for (int i = 0; i < tracked.length; i++) {
      if (tracked[i] && !Objects.deepEquals(a[i], b[i])) {
        return false;
      }
    }
    return true;
  }
}
