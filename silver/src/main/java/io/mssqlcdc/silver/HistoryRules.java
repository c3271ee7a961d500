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
    /** Whether the row goes: a version the applied snapshot's row opened that a later call found was never there. */
    boolean drop;

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
          + (gap ? " gap" : "") + (drop ? " dropped" : "");
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
  private final boolean[] uncarried;

  /**
   * @param tracked per captured column (bronze's order), whether a change of it opens a new version
   * @param storeDeletes whether a delete opens a tombstone
   */
  HistoryRules(boolean[] tracked, boolean storeDeletes) {
    this(tracked, storeDeletes, null, null);
  }

  /**
   * @param appliedSnapshot the snapshot the history applied before the call ({@code snapshot_lsn}); null when none.
   *     What a key's versions say of it is corrected by the key's first change after it ({@link #checksSnapshot})
   * @param appliedAt its commit time (UTC); null when unknown (then a key it left out is not added)
   */
  HistoryRules(boolean[] tracked, boolean storeDeletes, String appliedSnapshot, LocalDateTime appliedAt) {
    this(tracked, storeDeletes, appliedSnapshot, appliedAt, null);
  }

  /**
   * @param uncarried per captured column (bronze's order), whether a before image may hold NULL for a value it does
   *     not carry (SQL Server's large-object and computed columns, a column some capture instance of the table does
   *     not capture); null when the columns' SQL types are unknown: then every column may
   */
  HistoryRules(boolean[] tracked, boolean storeDeletes, String appliedSnapshot, LocalDateTime appliedAt,
      boolean[] uncarried) {
    this.tracked = tracked.clone();
    this.storeDeletes = storeDeletes;
    this.appliedSnapshot = appliedSnapshot;
    this.appliedAt = appliedAt;
    this.uncarried = uncarried == null ? null : uncarried.clone();
  }

  /** The snapshot the history applied before the call; null when none. */
  String appliedSnapshot() {
    return appliedSnapshot;
  }

  /** Whether a before image's NULL in column {@code i} may stand for a value it does not carry. */
  private boolean uncarried(int i) {
    return uncarried == null || i >= uncarried.length || uncarried[i];
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
    return apply(current, null, watermark, changes, snapshot);
  }

  /**
   * As {@link #apply(Version, String, List, Snapshot)}, with the version the applied snapshot closed.
   *
   * @param previous the key's version that the snapshot the history applied before the call closed with a gap
   *     ({@code __to_lsn} its LSN, {@code __gap} true); null when none. When the call finds the key's state at the
   *     snapshot was that version's (the snapshot's row showed a later commit, or the key's absence), the version
   *     continues: reopened, without the gap, and the one the snapshot's row opened dropped
   * @return the current version when it changed (or goes: {@link Version#drop}), the previous one when it was
   *     reopened, then the new versions, oldest first
   */
  List<Version> apply(Version current, Version previous, String watermark, List<Change> changes, Snapshot snapshot) {
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
    boolean recorded = current != null && !current.deleted;
    // A version from before the snapshot, which it confirmed, is checked only where the first statement is known
    // whole (without _command_id its first row alone could be an exchange's after image, and the version right).
    boolean spanning = recorded && !current.fromLsn.equals(appliedSnapshot);
    if (checksSnapshot(watermark, rows) && !(spanning && rows.get(0).commandId() == null)) {
      // What the key's first statement after the applied snapshot found there, against what the history says.
      Change left = leftKey(firstStatement(rows));
      if (recorded && left != null) {
        Object[] fixed = overlay(current.values, left.values());
        if (!Arrays.deepEquals(current.values, fixed)) {
          if (appliedSnapshot.equals(current.fromLsn) && continues(previous, fixed)) {
            // The snapshot's row alone closed the version before it and opened this one: the key's tracked columns
            // had not changed there. The version before it continues (its other columns as they were at the
            // snapshot, as when a snapshot is applied: in place); this one goes.
            reopen(previous, fixed);
            out.add(previous);
            current.drop = true;
            currentChanged = true;
            open = previous;
          } else if (appliedSnapshot.equals(current.fromLsn) || sameTracked(current.values, fixed)) {
            current.values = fixed; // the snapshot's row stood for it: corrected in place
            currentChanged = true;
          } else if (appliedAt != null) {
            // A version from before the snapshot, which it confirmed by a row read after a later commit: the key
            // had changed before the snapshot, unseen (a gap), and the version of that state starts there.
            closeAt(current, appliedSnapshot, appliedAt);
            currentChanged = true;
            open = new Version(fixed, appliedSnapshot, appliedAt, null, null, false, false);
            out.add(open);
          }
        }
      } else if (recorded) {
        if (appliedSnapshot.equals(current.fromLsn)) {
          // Absent at the snapshot: the version its row opened was never there.
          if (closedBySnapshot(previous) && previous.deleted) {
            reopen(previous, previous.values); // the tombstone before it continues
            out.add(previous);
            open = previous;
          } else if (storeDeletes && closedBySnapshot(previous) && !previous.deleted) {
            // Present before, closed at the snapshot with a gap, absent there: the tombstone a snapshot that left the
            // key out opens (same key and __from_lsn as the version it replaces: the MERGE overwrites that one).
            open = new Version(previous.values.clone(), appliedSnapshot, current.validFrom, null, null, true, false);
            out.add(open);
          } else {
            open = null;
          }
          if (open == null || open == previous) {
            current.drop = true;
            currentChanged = true;
          }
        } else if (appliedAt != null) {
          closeAt(current, appliedSnapshot, appliedAt);
          currentChanged = true;
          // Absent at the snapshot, as a snapshot that left it out closes it: with storeDeletes a tombstone from there.
          open = storeDeletes ? new Version(current.values.clone(), appliedSnapshot, appliedAt, null, null, true, false)
              : null;
          if (open != null) {
            out.add(open);
          }
        }
      } else if (left != null && (current == null || appliedSnapshot.equals(current.fromLsn))
          && continues(previous, left.values())) {
        // The snapshot's read missed the key (deleted while it read): the version it closed continues, and a
        // tombstone it opened goes.
        reopen(previous, left.values().clone());
        out.add(previous);
        open = previous;
        if (current != null) {
          current.drop = true;
          currentChanged = true;
        }
      } else if (left != null && appliedAt != null) {
        if (current != null && !appliedSnapshot.equals(current.fromLsn)) {
          closeAt(current, appliedSnapshot, appliedAt); // an older tombstone: the reinsert before S was not seen
          currentChanged = true;
        }
        // A tombstone the snapshot opened has the same (key, __from_lsn): the MERGE overwrites it with this version.
        open = new Version(left.values().clone(), appliedSnapshot, appliedAt, null, null, false, false);
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
   * The key's rows with its snapshot rows replaced by its state at the snapshot's LSN S (docs/HISTORY.md, "What a
   * call does" and "Chunked snapshots"): a snapshot's row may show what a change after S made (the stamp comes first,
   * decision 0002; a chunk row is the key's state when its wave read it, later still). Its state at S is what its
   * first statement after S found ({@link #leftKey}): a delete's (1) or an update's before image (3) is the row at S,
   * its NULLs in columns a before image may not carry ({@link #uncarried}) taken from the snapshot's row; only inserts (2) or after images of
   * rows moved to this key (4 without its 3) find the key absent. A key with no change after S among the call's rows
   * has its snapshot row (a chunked snapshot is applied only once bronze holds every change its chunk rows may show,
   * {@link StreamProgress}; a key whose change after S an earlier call applied is at or below its watermark and skips
   * the snapshot anyway); none: absent. Of several chunk rows of the key (overlapping chunks), the one with the
   * lowest stamp, read closest to S; of those with the same stamp (one wave), the one whose image comes first as text
   * ({@link Arrays#deepToString}), so that the choice does not depend on the rows' order. A chunked snapshot without
   * any chunk row (its waves read an emptied table) is taken the same way.
   */
  List<Change> atSnapshot(List<Change> changes, Snapshot snapshot) {
    List<Change> out = new ArrayList<>();
    List<Change> after = new ArrayList<>();
    Change chunk = null;
    for (Change c : changes) {
      if (c.operation() == 0) {
        chunk = chunk == null || EARLIEST_READ.compare(c, chunk) < 0 ? c : chunk;
        continue;
      }
      out.add(c);
      if (Lsns.after(c.lsn(), snapshot.lsn())) {
        after.add(c);
      }
    }
    Object[] image;
    if (after.isEmpty()) {
      image = chunk == null ? null : chunk.values();
    } else {
      after.sort(ORDER);
      Change left = leftKey(firstStatement(after));
      image = left == null ? null : chunk == null ? left.values() : fill(left.values(), chunk.values());
    }
    if (image != null) {
      out.add(new Change(snapshot.lsn(), snapshot.commitTs(), null, null, 0, image));
    }
    return out;
  }

  /**
   * {@code image} with its NULLs taken from {@code row} in the columns where a before image may not carry the value
   * ({@link #uncarried}, {@link #overlay}): elsewhere a before image's NULL is the value at the snapshot.
   */
  private Object[] fill(Object[] image, Object[] row) {
    Object[] out = image.clone();
    for (int i = 0; i < out.length && i < row.length; i++) {
      if (out[i] == null && uncarried(i)) {
        out[i] = row[i];
      }
    }
    return out;
  }

  /**
   * Whether the call's rows of the key start with its first change after the snapshot the history applied in an
   * earlier call, nothing having been applied to the key since (its watermark at or before the snapshot). What the
   * history says of the key there came from the snapshot's rows (or their absence), which may show a commit made
   * after the snapshot's LSN while it was read (the stamp comes first, decision 0002; a wave reads later still)
   * when the stream had not brought that commit to bronze as that call ran; and a key deleted during the read has
   * no row. The key's first statement after the snapshot says what was there ({@link #leftKey}); {@link #apply}
   * corrects the versions to it, as a call that had that statement first would have written them: the version the
   * snapshot closed with a gap reopened where the state found is its own (tracked columns; a tombstone when the key
   * was absent), the version the snapshot's row opened then deleted ({@link Version#drop}); else an image corrected
   * (in place when the snapshot opened the version, else a version from the snapshot's LSN, the one before it closed
   * there with a gap), a version the snapshot opened for a key absent there deleted (with storeDeletes a tombstone in
   * its place when a version before it was closed there), a version closed where the key was absent, a version added
   * from the snapshot's LSN where it was present. Values a before image cannot carry (NULL there:
   * large-object columns an update did not change, columns dropped or added since) are not corrected. A version
   * that was right is left alone.
   *
   * @param rows the call's rows of the key after its watermark, in order
   */
  private boolean checksSnapshot(String watermark, List<Change> rows) {
    return appliedSnapshot != null && !rows.isEmpty() && !rows.get(0).fromSnapshot()
        && Lsns.after(rows.get(0).lsn(), appliedSnapshot) && !Lsns.after(watermark, appliedSnapshot);
  }

  /**
   * The rows of the first statement among {@code sorted} (by {@link #ORDER}): those of its transaction with its
   * {@code _command_id}; the first row alone when it has none (statements are then not told apart).
   */
  static List<Change> firstStatement(List<Change> sorted) {
    Change head = sorted.get(0);
    if (head.commandId() == null) {
      return List.of(head);
    }
    List<Change> out = new ArrayList<>();
    for (Change c : sorted) {
      if (!c.lsn().equals(head.lsn()) || !head.commandId().equals(c.commandId())) {
        break;
      }
      out.add(c);
    }
    return out;
  }

  /**
   * Of one statement's rows of a key, the first that says a row left the key (a delete, 1, or an update's before
   * image, 3): the key held it before the statement. None (only inserts, 2, and after images, 4: rows that moved
   * to the key): the key was absent. In one statement every before image precedes the after images whatever their
   * {@code _seqval}: two rows exchanging a unique value each leave one key and reach another.
   */
  static Change leftKey(List<Change> statement) {
    for (Change c : statement) {
      if (c.operation() == 1 || c.operation() == 3) {
        return c;
      }
    }
    return null;
  }

  /**
   * {@code base} with the values of {@code image} where {@code base} is not NULL: a NULL in {@code base} may be a
   * column added after it, and a before image has NULL where it cannot carry the value (SQL Server's large-object
   * columns an update did not change; text, ntext and image always: {@link #uncarried}), so there only its non-NULL
   * values are taken; neither NULL is taken as a change.
   */
  private Object[] overlay(Object[] base, Object[] image) {
    Object[] out = base.clone();
    for (int i = 0; i < out.length && i < image.length; i++) {
      if (out[i] != null && (image[i] != null || !uncarried(i))) {
        out[i] = image[i];
      }
    }
    return out;
  }

  /** Closes {@code v} at the snapshot: its state there is unknown from here (a gap). */
  private static void closeAt(Version v, String lsn, LocalDateTime at) {
    v.toLsn = lsn;
    v.validTo = at;
    v.gap = true;
  }

  /** Whether {@code v} is a version the applied snapshot closed with a gap ({@code __to_lsn} its LSN). */
  private boolean closedBySnapshot(Version v) {
    return v != null && v.gap && appliedSnapshot.equals(v.toLsn);
  }

  /**
   * Whether {@code previous}, a version (not a tombstone) the applied snapshot closed with a gap, was the key's
   * state at the snapshot after all: its tracked columns equal to {@code atSnapshot}, the key's state there as a
   * call that had the key's first statement after the snapshot would have found it (the before image, its values
   * a before image may not carry taken from the snapshot's row). That call would have kept the version open,
   * updating any other column in place.
   */
  private boolean continues(Version previous, Object[] atSnapshot) {
    return closedBySnapshot(previous) && !previous.deleted && sameTracked(previous.values, atSnapshot);
  }

  /** Opens {@code v} again, as the current version, without a gap, with {@code values}. */
  private static void reopen(Version v, Object[] values) {
    v.values = values;
    v.toLsn = null;
    v.validTo = null;
    v.gap = false;
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
