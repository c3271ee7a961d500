package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import io.mssqlcdc.silver.HistoryRules.Change;
import io.mssqlcdc.silver.HistoryRules.Snapshot;
import io.mssqlcdc.silver.HistoryRules.Version;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The version rules of one key (docs/HISTORY.md, step 4), without Spark. Images are {@code [id, code, status]}. */
class HistoryRulesTest {
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);
  private static final HistoryRules ALL = new HistoryRules(new boolean[] {true, true, true}, false);

  private static String lsn(int i) {
    return String.format("0x%020X", i);
  }

  private static LocalDateTime at(int i) {
    return T.plusSeconds(i);
  }

  /** A change at LSN {@code i}, committed at T + i s, with seqval {@code seq}. */
  private static Change c(int i, int seq, int op, Object code, String status) {
    return new Change(lsn(i), at(i), 1, String.format("0x%020X", seq), op, new Object[] {1, code, status});
  }

  private static String show(List<Version> vs) {
    List<String> out = new ArrayList<>();
    for (Version v : vs) {
      out.add(v.toString());
    }
    return String.join("; ", out);
  }

  @Test
  void oneVersionPerTransactionTheLastByOrder() {
    List<Version> vs = ALL.apply(null, null, List.of(c(5, 2, 4, 10, "paid"), c(5, 1, 2, 10, "new"),
        c(5, 2, 3, 10, "new"), c(9, 1, 4, 10, "shipped")), null);
    assertThat(show(vs)).isEqualTo("[1, 10, paid] [0x00000000000000000005, 0x00000000000000000009); "
        + "[1, 10, shipped] [0x00000000000000000009, null)");
    assertThat(vs.get(0).validFrom).isEqualTo(at(5));
    assertThat(vs.get(0).validTo).isEqualTo(at(9));
    assertThat(vs.get(1).validTo).isNull();
  }

  @Test
  void aDeleteClosesTheVersionAndAReinsertOpensANewOne() {
    Version current = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    List<Version> vs = ALL.apply(current, lsn(2), List.of(c(4, 1, 1, 10, "new"), c(7, 1, 2, 11, "again")), null);
    assertThat(show(vs)).isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000004); "
        + "[1, 11, again] [0x00000000000000000007, null)");
    assertThat(vs.get(0)).isSameAs(current);

    // With tombstones: the delete opens one, the reinsert closes it.
    HistoryRules tombstones = new HistoryRules(new boolean[] {true, true, true}, true);
    Version again = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(tombstones.apply(again, lsn(2), List.of(c(4, 1, 1, 10, "new"), c(7, 1, 2, 11, "again")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000004); "
            + "[1, 10, new] [0x00000000000000000004, 0x00000000000000000007) deleted; "
            + "[1, 11, again] [0x00000000000000000007, null)");
    // A delete of a key without a version, a second delete: nothing.
    assertThat(ALL.apply(null, null, List.of(c(4, 1, 1, 10, "new")), null)).isEmpty();
  }

  @Test
  void aDeleteAndAnInsertOfTheKeyInOneTransactionAreOneVersion() {
    Version current = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(current, lsn(2), List.of(c(4, 1, 1, 10, "new"), c(4, 2, 2, 10, "other")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000004); "
            + "[1, 10, other] [0x00000000000000000004, null)");
    Version same = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(ALL.apply(same, lsn(2), List.of(c(4, 1, 1, 10, "new"), c(4, 2, 2, 10, "new")), null)).isEmpty();
  }

  @Test
  void anUpdateMovingTheRowToAnotherKeyClosesTheOldKey() {
    // Keyed by a unique index: the 3 of the old key has no 4 of its key in the transaction.
    Version current = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(current, lsn(2), List.of(c(6, 1, 3, 10, "new")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000006)");
  }

  @Test
  void rowsAtOrBelowTheWatermarkWereAppliedAndAreSkipped() {
    // A crash after the MERGE: the history holds the versions up to LSN 9; the same rows come again.
    Version current = new Version(new Object[] {1, 10, "shipped"}, lsn(9), at(9), null, null, false, false);
    assertThat(ALL.apply(current, lsn(9), List.of(c(5, 1, 2, 10, "new"), c(9, 1, 4, 10, "shipped")), null))
        .isEmpty();
    // A deleted key (no current version): its watermark is the delete.
    assertThat(ALL.apply(null, lsn(9), List.of(c(5, 1, 2, 10, "new"), c(9, 1, 1, 10, "new")), null)).isEmpty();
  }

  @Test
  void untrackedColumnsAreUpdatedInPlace() {
    HistoryRules codeOnly = new HistoryRules(new boolean[] {true, true, false}, false);
    Version current = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    List<Version> vs = codeOnly.apply(current, lsn(2), List.of(c(4, 1, 4, 10, "paid"), c(6, 1, 4, 12, "paid")), null);
    assertThat(show(vs)).isEqualTo("[1, 10, paid] [0x00000000000000000002, 0x00000000000000000006); "
        + "[1, 12, paid] [0x00000000000000000006, null)");
    Version unchanged = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(codeOnly.apply(unchanged, lsn(2), List.of(c(4, 1, 4, 10, "new")), null)).isEmpty();
  }

  @Test
  void aSnapshotClosesWhatItContradictsWithAGapAndKeepsWhatItConfirms() {
    Snapshot s = new Snapshot(lsn(50), at(50));
    Change row = new Change(lsn(50), at(50), null, null, 0, new Object[] {1, 10, "paid"});
    // Absent from the snapshot: closed at S, gap.
    Version gone = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(gone, lsn(2), List.of(), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000032) gap");
    // Different: closed with a gap, a version from S.
    Version changed = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    List<Version> vs = ALL.apply(changed, lsn(2), List.of(row), s);
    assertThat(show(vs)).isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000032) gap; "
        + "[1, 10, paid] [0x00000000000000000032, null)");
    assertThat(vs.get(1).validFrom).isEqualTo(at(50));
    // Equal: stays open.
    Version same = new Version(new Object[] {1, 10, "paid"}, lsn(2), at(2), null, null, false, false);
    assertThat(ALL.apply(same, lsn(2), List.of(row), s)).isEmpty();
    // New in the snapshot (the bootstrap): a version from S, no gap.
    assertThat(show(ALL.apply(null, null, List.of(row), s))).isEqualTo("[1, 10, paid] [0x00000000000000000032, null)");
    // Changes bronze holds before the snapshot are applied first; a key changed after S is past it.
    Version before = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(before, lsn(2), List.of(c(30, 1, 4, 10, "paid"), row), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x0000000000000000001E); "
            + "[1, 10, paid] [0x0000000000000000001E, null)");
    Version later = new Version(new Object[] {1, 10, "late"}, lsn(60), at(60), null, null, false, false);
    assertThat(ALL.apply(later, lsn(60), List.of(), s)).isEmpty();
  }

  /** A chunk row of snapshot S = 50 read at stamp 60: the key's state at 60 (HistoryRun keeps the wave's stamp). */
  private static Change chunk(Object code, String status) {
    return chunk(60, code, status);
  }

  /** A chunk row of snapshot S = 50 read by a wave stamped {@code stamp}. */
  private static Change chunk(int stamp, Object code, String status) {
    return new Change(lsn(stamp), at(stamp), null, null, 0, new Object[] {1, code, status});
  }

  @Test
  void aChunkedSnapshotTakesEachKeysStateAtItsLsnFromItsFirstChangeAfterIt() {
    Snapshot s = new Snapshot(lsn(50), at(50), true);
    // Updated at 55, before its chunk was read at 60: the chunk shows "paid", the key held "new" at S (the 3).
    List<Version> vs = ALL.apply(null, null, List.of(chunk(10, "paid"), c(55, 1, 3, 10, "new"),
        c(55, 1, 4, 10, "paid")), s);
    assertThat(show(vs)).isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
        + "[1, 10, paid] [0x00000000000000000037, null)");
    assertThat(vs.get(0).validFrom).as("S's commit time, not the wave's").isEqualTo(at(50));
    // No change after S: the chunk row is the state at S.
    assertThat(show(ALL.apply(null, null, List.of(chunk(10, "new")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, null)");
    // Inserted after S (the chunk read it): absent at S.
    assertThat(show(ALL.apply(null, null, List.of(chunk(10, "late"), c(55, 1, 2, 10, "late")), s)))
        .isEqualTo("[1, 10, late] [0x00000000000000000037, null)");
    // Deleted after S before its chunk was read (no chunk row): present at S, the delete's image.
    assertThat(show(ALL.apply(null, null, List.of(c(55, 1, 1, 10, "new")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037)");
    // Moved to this key by an update of the key column (its 4 without a 3): absent at S.
    assertThat(show(ALL.apply(null, null, List.of(chunk(12, "new"), c(55, 1, 4, 12, "new")), s)))
        .isEqualTo("[1, 12, new] [0x00000000000000000037, null)");
    // Deleted and inserted again after S: the first change decides (the delete's image).
    assertThat(show(ALL.apply(null, null, List.of(chunk(10, "again"), c(52, 1, 1, 10, "new"),
        c(57, 1, 2, 10, "again")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000034); "
            + "[1, 10, again] [0x00000000000000000039, null)");
    // A re-snapshot: the current version differs from the state at S (not from the chunk): closed with a gap.
    Version current = new Version(new Object[] {1, 10, "old"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(current, lsn(2), List.of(chunk(10, "paid"), c(55, 1, 3, 10, "new"),
        c(55, 1, 4, 10, "paid")), s)))
        .isEqualTo("[1, 10, old] [0x00000000000000000002, 0x00000000000000000032) gap; "
            + "[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, paid] [0x00000000000000000037, null)");
    // Equal to the state at S: stays open, whatever the chunk shows.
    Version same = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(same, lsn(2), List.of(chunk(10, "paid"), c(55, 1, 3, 10, "new"),
        c(55, 1, 4, 10, "paid")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000037); "
            + "[1, 10, paid] [0x00000000000000000037, null)");
    // A key an earlier call took past S (its watermark): the snapshot is behind it.
    Version later = new Version(new Object[] {1, 10, "late"}, lsn(58), at(58), null, null, false, false);
    assertThat(ALL.apply(later, lsn(58), List.of(chunk(10, "late")), s)).isEmpty();
  }

  @Test
  void ofSeveralChunkRowsOfAKeyTheOneReadEarliestIsItsStateAtTheSnapshot() {
    Snapshot s = new Snapshot(lsn(50), at(50), true);
    // Overlapping chunks read by waves stamped 60 and 70 (they differ only when bronze lacks a change between them,
    // the first known limit): the wave closest to S, whatever the rows' order.
    Change early = chunk(60, 10, "new");
    Change late = chunk(70, 10, "paid");
    for (List<Change> rows : List.of(List.of(late, early), List.of(early, late))) {
      List<Version> vs = ALL.apply(null, null, rows, s);
      assertThat(show(vs)).as("%s", rows).isEqualTo("[1, 10, new] [0x00000000000000000032, null)");
      assertThat(vs.get(0).validFrom).isEqualTo(at(50));
    }
    // Two rows of one wave (the same stamp): the image first as text, whatever the order.
    Change a = chunk(60, 10, "a");
    Change b = chunk(60, 10, "b");
    for (List<Change> rows : List.of(List.of(b, a), List.of(a, b))) {
      assertThat(show(ALL.apply(null, null, rows, s))).as("%s", rows)
          .isEqualTo("[1, 10, a] [0x00000000000000000032, null)");
    }
    // A change after S still decides over every chunk row.
    assertThat(show(ALL.apply(null, null, List.of(late, c(55, 1, 3, 10, "old"), c(55, 1, 4, 10, "new"), early), s)))
        .isEqualTo("[1, 10, old] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, new] [0x00000000000000000037, null)");
  }

  @Test
  void aChunkedSnapshotWithoutChunkRowsTakesEachKeysStateFromItsFirstChangeAfterIt() {
    // Its waves read an emptied table: no chunk row at all. Deleted after S: present at S (the delete's image).
    Snapshot s = new Snapshot(lsn(50), at(50), true);
    assertThat(show(ALL.apply(null, null, List.of(c(55, 1, 1, 10, "new")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037)");
    // A re-snapshot: the current version differs from that image: closed at S with a gap, the delete closes S's.
    Version current = new Version(new Object[] {1, 10, "old"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(current, lsn(2), List.of(c(55, 1, 1, 10, "new")), s)))
        .isEqualTo("[1, 10, old] [0x00000000000000000002, 0x00000000000000000032) gap; "
            + "[1, 10, new] [0x00000000000000000032, 0x00000000000000000037)");
    // Equal to it: closed at the delete, no gap.
    Version same = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(same, lsn(2), List.of(c(55, 1, 1, 10, "new")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000037)");
    // Inserted after S, or unchanged and not read: absent at S.
    assertThat(show(ALL.apply(null, null, List.of(c(55, 1, 2, 10, "late")), s)))
        .isEqualTo("[1, 10, late] [0x00000000000000000037, null)");
    Version gone = new Version(new Object[] {1, 10, "old"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(gone, lsn(2), List.of(), s)))
        .isEqualTo("[1, 10, old] [0x00000000000000000002, 0x00000000000000000032) gap");
    // The rules are a whole snapshot's too (its rows may show commits made during its read); what differs is
    // HistoryRun's wait for the stream before a chunked one (SnapshotFacts.openedChunked).
    Version whole = new Version(new Object[] {1, 10, "old"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(whole, lsn(2), List.of(c(55, 1, 1, 10, "new")), new Snapshot(lsn(50), at(50)))))
        .isEqualTo("[1, 10, old] [0x00000000000000000002, 0x00000000000000000032) gap; "
            + "[1, 10, new] [0x00000000000000000032, 0x00000000000000000037)");
  }

  @Test
  void aWholeSnapshotsRowThatShowsACommitMadeDuringItsReadIsNotTheStateAtItsLsn() {
    // The stamp comes first (decision 0002): a commit at 55, after S = 50 but before the read reached the key, shows
    // in the snapshot's row; the stream has it too. The row at S is its before image, not the snapshot's row.
    Snapshot s = new Snapshot(lsn(50), at(50));
    Change row = new Change(lsn(50), null, null, null, 0, new Object[] {1, 10, "late"});
    assertThat(show(ALL.apply(null, null, List.of(row, c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "late")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, late] [0x00000000000000000037, null)");
    // Inserted during the read: absent at S, present from the insert.
    assertThat(show(ALL.apply(null, null, List.of(row, c(55, 1, 2, 10, "late")), s)))
        .isEqualTo("[1, 10, late] [0x00000000000000000037, null)");
    // Deleted during the read (no snapshot row): present at S until the delete, not closed at S with a gap.
    Version before = new Version(new Object[] {1, 10, "new"}, lsn(2), at(2), null, null, false, false);
    assertThat(show(ALL.apply(before, lsn(2), List.of(c(55, 1, 1, 10, "new")), s)))
        .isEqualTo("[1, 10, new] [0x00000000000000000002, 0x00000000000000000037)");
  }

  @Test
  void aLaterCallCorrectsTheVersionASnapshotOpenedWhenItsRowShowedALaterCommit() {
    // An earlier call applied snapshot 50 whose row showed "late", committed at 55 during the read; the stream had
    // not brought 55 to bronze then. Its first change after 50, now read, says what the row was at 50.
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Version shown = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(shown, lsn(50), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "late")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, late] [0x00000000000000000037, null)");
    // Inserted at 55: absent at 50, the version the snapshot's row opened was never there: it goes.
    Version inserted = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    List<Version> vs = rules.apply(inserted, lsn(50), List.of(c(55, 1, 2, 10, "late")), null);
    assertThat(show(vs)).isEqualTo("[1, 10, late] [0x00000000000000000032, null) dropped; "
        + "[1, 10, late] [0x00000000000000000037, null)");
    // Deleted at 55 with another image: the image corrected, then closed by the delete.
    Version deleted = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(deleted, lsn(50), List.of(c(55, 1, 1, 10, "new")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037)");
    // A version that was right is left as it is; so is one a change followed.
    Version right = new Version(new Object[] {1, 10, "new"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(right, lsn(50), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "late")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, late] [0x00000000000000000037, null)");
    // A version from before the snapshot, which its row (read after 55) confirmed: the key had changed before 50
    // unseen, so the version closes at 50 with a gap and the state the first change found opens there.
    Version older = new Version(new Object[] {1, 10, "late"}, lsn(40), at(40), null, null, false, false);
    assertThat(show(rules.apply(older, lsn(40), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "later")), null)))
        .isEqualTo("[1, 10, late] [0x00000000000000000028, 0x00000000000000000032) gap; "
            + "[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, later] [0x00000000000000000037, null)");
    Version followed = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(followed, lsn(52), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "later")),
        null))).isEqualTo("[1, 10, late] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, later] [0x00000000000000000037, null)");
  }

  @Test
  void aCorrectionContinuesTheVersionTheSnapshotClosedWhenTheKeyHadNotChangedThere() {
    // Open since 10; snapshot 50's row showed "late" (committed at 55 during the read), so the call that applied it
    // closed the version at 50 with a gap and opened "late" there. The first statement after 50 finds "new": the
    // key had not changed at 50. The version from 10 continues (no gap), the one from 50 goes.
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Version before = new Version(new Object[] {1, 10, "new"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version shown = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    List<Version> vs = rules.apply(shown, before, lsn(50), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "late")),
        null);
    assertThat(show(vs)).isEqualTo("[1, 10, late] [0x00000000000000000032, null) dropped; "
        + "[1, 10, new] [0x0000000000000000000A, 0x00000000000000000037); "
        + "[1, 10, late] [0x00000000000000000037, null)");
    assertThat(vs.get(1).validTo).isEqualTo(at(55));
    // Replayed after a crash (the MERGE committed, the position not): the new version's watermark skips the rows.
    assertThat(rules.apply(vs.get(2), null, lsn(55), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "late")), null))
        .isEmpty();

    // The first statement after 50 only changes an untracked column ("status"), the code change comes at 55 in a
    // later call: the version from 10 continues, updated in place, its watermark back before 50.
    HistoryRules codeOnly = new HistoryRules(new boolean[] {true, true, false}, false, lsn(50), at(50));
    Version old = new Version(new Object[] {1, 10, "new"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version late = new Version(new Object[] {1, 11, "paid"}, lsn(50), at(50), null, null, false, false);
    List<Change> first = List.of(c(52, 1, 3, 10, "new"), c(52, 2, 4, 10, "paid"));
    List<Version> ws = codeOnly.apply(late, old, lsn(50), first, null);
    assertThat(show(ws)).isEqualTo("[1, 11, paid] [0x00000000000000000032, null) dropped; "
        + "[1, 10, paid] [0x0000000000000000000A, null)");
    // Replayed: the same row again; then the call that brings 55 closes it there.
    Version continued = new Version(new Object[] {1, 10, "paid"}, lsn(10), at(10), null, null, false, false);
    assertThat(show(codeOnly.apply(continued, null, lsn(10), first, null)))
        .isEqualTo("[1, 10, paid] [0x0000000000000000000A, null)");
    assertThat(show(codeOnly.apply(continued, null, lsn(10), List.of(c(55, 1, 3, 10, "paid"), c(55, 2, 4, 11, "paid")),
        null))).isEqualTo("[1, 10, paid] [0x0000000000000000000A, 0x00000000000000000037); "
            + "[1, 11, paid] [0x00000000000000000037, null)");

    // A version before 50 that the first statement contradicts too (the key changed before 50, unseen): the gap was
    // real; the version from 50 is corrected in place, as before.
    Version stale = new Version(new Object[] {1, 10, "old"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version again = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(again, stale, lsn(50), List.of(c(55, 1, 3, 10, "mid"), c(55, 2, 4, 10, "late")),
        null))).isEqualTo("[1, 10, mid] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, late] [0x00000000000000000037, null)");
  }

  @Test
  void aCorrectionContinuesTheVersionOnlyWhereTheStateAtTheSnapshotIsItsOwn() {
    // Types known, every column carried: the version before 50 had status NULL, set to "a" in changes lost before 50
    // (the gap was real); 55's before image shows "a". Not continued: the version from 50 corrected in place.
    HistoryRules typed = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50),
        new boolean[] {false, false, false});
    Version nulls = new Version(new Object[] {1, 10, null}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version shown = new Version(new Object[] {1, 11, "a"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(typed.apply(shown, nulls, lsn(50), List.of(c(55, 1, 3, 10, "a"), c(55, 2, 4, 11, "a")), null)))
        .isEqualTo("[1, 10, a] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 11, a] [0x00000000000000000037, null)");
    // Column 2 a large object (a before image may not carry it: NULL there): the snapshot's row says "y" at 50, the
    // version before says "x". Not continued either.
    HistoryRules lob = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50),
        new boolean[] {false, false, true});
    Version x = new Version(new Object[] {1, 10, "x"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version y = new Version(new Object[] {1, 11, "y"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(lob.apply(y, x, lsn(50), List.of(c(55, 1, 3, 10, null), c(55, 2, 4, 11, null)), null)))
        .startsWith("[1, 10, y] [0x00000000000000000032, 0x00000000000000000037); ");
    // Only an untracked column differs from the version before 50 ("status" changed in the gap): that version
    // continues, its status as at 50, as a call that had 55 first would have kept it open and updated it in place.
    HistoryRules codeOnly = new HistoryRules(new boolean[] {true, true, false}, false, lsn(50), at(50));
    Version before = new Version(new Object[] {1, 10, "new"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version late = new Version(new Object[] {1, 11, "x"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(codeOnly.apply(late, before, lsn(50), List.of(c(55, 1, 3, 10, "x"), c(55, 2, 4, 11, "x")), null)))
        .isEqualTo("[1, 11, x] [0x00000000000000000032, null) dropped; "
            + "[1, 10, x] [0x0000000000000000000A, 0x00000000000000000037); "
            + "[1, 11, x] [0x00000000000000000037, null)");
    // The key the snapshot's read missed: its delete's image against the version before 50, NULLs compared too.
    Version missed = new Version(new Object[] {1, 10, null}, lsn(10), at(10), lsn(50), at(50), false, true);
    assertThat(show(typed.apply(null, missed, lsn(50), List.of(c(55, 1, 1, 10, "a")), null)))
        .isEqualTo("[1, 10, a] [0x00000000000000000032, 0x00000000000000000037)");
  }

  @Test
  void aCorrectionFindingTheKeyAbsentAtTheSnapshotDropsTheVersionItsRowOpened() {
    // Deleted at 30 (a tombstone with storeDeletes), reinserted at 55 during snapshot 50's read: the snapshot closed
    // the tombstone at 50 with a gap. The insert at 55 says the key was absent at 50: the tombstone continues.
    HistoryRules tombstones = new HistoryRules(new boolean[] {true, true, true}, true, lsn(50), at(50));
    Version tomb = new Version(new Object[] {1, 10, "old"}, lsn(30), at(30), lsn(50), at(50), true, true);
    Version shown = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(tombstones.apply(shown, tomb, lsn(50), List.of(c(55, 1, 2, 10, "late")), null)))
        .isEqualTo("[1, 10, late] [0x00000000000000000032, null) dropped; "
            + "[1, 10, old] [0x0000000000000000001E, 0x00000000000000000037) deleted; "
            + "[1, 10, late] [0x00000000000000000037, null)");
    // Present before 50 (its delete lost to retention: closed at 50 with a gap), absent at 50: with storeDeletes the
    // tombstone a snapshot that left the key out opens, in the place of the version its row opened.
    Version kept = new Version(new Object[] {1, 10, "x"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version opened = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(tombstones.apply(opened, kept, lsn(50), List.of(c(55, 1, 2, 10, "late")), null)))
        .isEqualTo("[1, 10, x] [0x00000000000000000032, 0x00000000000000000037) deleted; "
            + "[1, 10, late] [0x00000000000000000037, null)");
    // Without storeDeletes the version goes, the one before stays closed at 50 with its gap.
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Version opened2 = new Version(new Object[] {1, 10, "late"}, lsn(50), at(50), null, null, false, false);
    Version kept2 = new Version(new Object[] {1, 10, "x"}, lsn(10), at(10), lsn(50), at(50), false, true);
    assertThat(show(rules.apply(opened2, kept2, lsn(50), List.of(c(55, 1, 2, 10, "late")), null)))
        .isEqualTo("[1, 10, late] [0x00000000000000000032, null) dropped; "
            + "[1, 10, late] [0x00000000000000000037, null)");
  }

  @Test
  void aCorrectionFindingTheKeyTheSnapshotMissedContinuesTheVersionItClosed() {
    // Deleted at 55 while snapshot 50 was read (no row): the snapshot closed the version at 50 with a gap. The
    // delete's image says it was there, unchanged: the version continues to the delete.
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Version closed = new Version(new Object[] {1, 10, "new"}, lsn(10), at(10), lsn(50), at(50), false, true);
    assertThat(show(rules.apply(null, closed, lsn(50), List.of(c(55, 1, 1, 10, "new")), null)))
        .isEqualTo("[1, 10, new] [0x0000000000000000000A, 0x00000000000000000037)");
    // With storeDeletes the snapshot opened a tombstone at 50: it goes; the delete opens the tombstone at 55.
    HistoryRules tombstones = new HistoryRules(new boolean[] {true, true, true}, true, lsn(50), at(50));
    Version closed2 = new Version(new Object[] {1, 10, "new"}, lsn(10), at(10), lsn(50), at(50), false, true);
    Version tomb = new Version(new Object[] {1, 10, "new"}, lsn(50), at(50), null, null, true, false);
    assertThat(show(tombstones.apply(tomb, closed2, lsn(50), List.of(c(55, 1, 1, 10, "new")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, null) deleted dropped; "
            + "[1, 10, new] [0x0000000000000000000A, 0x00000000000000000037); "
            + "[1, 10, new] [0x00000000000000000037, null) deleted");
    // Another image at the delete: the key changed before 50, unseen; a version from 50, as before.
    Version closed3 = new Version(new Object[] {1, 10, "new"}, lsn(10), at(10), lsn(50), at(50), false, true);
    assertThat(show(rules.apply(null, closed3, lsn(50), List.of(c(55, 1, 1, 10, "paid")), null)))
        .isEqualTo("[1, 10, paid] [0x00000000000000000032, 0x00000000000000000037)");
  }

  @Test
  void aLaterCallAddsTheVersionOfAKeyTheSnapshotLeftOutWhenItsFirstChangeShowsItWasThere() {
    // Deleted during the snapshot's read (no row): the delete's image is the key at 50.
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    List<Version> vs = rules.apply(null, null, List.of(c(55, 1, 1, 10, "new")), null);
    assertThat(show(vs)).isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037)");
    assertThat(vs.get(0).validFrom).isEqualTo(at(50));
    // A re-snapshot closed its version at 50 (with a gap): updated at 55, it was there.
    assertThat(show(rules.apply(null, lsn(50), List.of(c(55, 1, 3, 10, "new"), c(55, 2, 4, 10, "late")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, late] [0x00000000000000000037, null)");
    // Inserted at 55: absent at 50, as recorded.
    assertThat(show(rules.apply(null, lsn(50), List.of(c(55, 1, 2, 10, "late")), null)))
        .isEqualTo("[1, 10, late] [0x00000000000000000037, null)");
    // The snapshot's tombstone (storeDeletes): replaced by the version (same key and __from_lsn).
    HistoryRules tombstones = new HistoryRules(new boolean[] {true, true, true}, true, lsn(50), at(50));
    Version tomb = new Version(new Object[] {1, 10, "old"}, lsn(50), at(50), null, null, true, false);
    assertThat(show(tombstones.apply(tomb, lsn(50), List.of(c(55, 1, 1, 10, "new")), null)))
        .isEqualTo("[1, 10, new] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, new] [0x00000000000000000037, null) deleted");
    // Without the snapshot's commit time nothing is added; a change before a later watermark is not the first.
    HistoryRules undated = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), null);
    assertThat(undated.apply(null, null, List.of(c(55, 1, 1, 10, "new")), null)).isEmpty();
    assertThat(rules.apply(null, lsn(52), List.of(c(55, 1, 1, 10, "new")), null)).isEmpty();
  }

  @Test
  void valuesABeforeImageCannotCarryAreNotTakenAsChanges() {
    // A large-object column an update did not change is NULL in its before image; a column added after the
    // snapshot's version is NULL there. Neither corrects the version, nor blanks the state at the snapshot.
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Version lob = new Version(new Object[] {1, 10, "long text"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(lob, lsn(50), List.of(new Change(lsn(55), at(55), 1, "0x01", 3,
        new Object[] {1, 10, null}), new Change(lsn(55), at(55), 1, "0x01", 4, new Object[] {1, 11, null})), null)))
        .isEqualTo("[1, 10, long text] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 11, null] [0x00000000000000000037, null)");
    Version added = new Version(new Object[] {1, 10, null}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(added, lsn(50), List.of(c(55, 1, 3, 10, "default"), c(55, 2, 4, 11, "default")),
        null))).startsWith("[1, 10, null] [0x00000000000000000032, 0x00000000000000000037)");
    // Applying a snapshot: the before image's NULL takes the snapshot row's value.
    Change row = new Change(lsn(50), null, null, null, 0, new Object[] {1, 12, "long text"});
    assertThat(show(ALL.apply(null, null, List.of(row, new Change(lsn(55), at(55), 1, "0x01", 3,
        new Object[] {1, 10, null}), new Change(lsn(55), at(55), 1, "0x01", 4, new Object[] {1, 12, null})),
        new Snapshot(lsn(50), at(50))))).startsWith("[1, 10, long text] [0x00000000000000000032, 0x00000000000000000037)");
  }

  @Test
  void withTheColumnsTypesKnownABeforeImagesNullInAColumnItCarriesIsTheValueAtTheSnapshot() {
    // Column 2 (status) always carried (not a large object, captured by every instance): NULL at the snapshot, set
    // to "paid" by the update after it, which the chunk row (read later) shows. Column 1 stands for a large object.
    boolean[] uncarried = {false, true, false};
    HistoryRules typed = new HistoryRules(new boolean[] {true, true, true}, false, null, null, uncarried);
    Snapshot s = new Snapshot(lsn(50), at(50), true);
    List<Change> rows = List.of(chunk(10, "paid"), new Change(lsn(55), at(55), 1, "0x01", 3,
        new Object[] {1, null, null}), new Change(lsn(55), at(55), 1, "0x01", 4, new Object[] {1, 10, "paid"}));
    assertThat(show(typed.apply(null, null, rows, s)))
        .isEqualTo("[1, 10, null] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, paid] [0x00000000000000000037, null)");
    // Types unknown (no options): every NULL may be one the image does not carry, as before.
    assertThat(show(ALL.apply(null, null, rows, s))).isEqualTo("[1, 10, paid] [0x00000000000000000032, null)");

    // A later call correcting the version the snapshot's row opened: a carried NULL corrects it, an uncarried does not.
    HistoryRules later = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50), uncarried);
    Version shown = new Version(new Object[] {1, 10, "paid"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(later.apply(shown, lsn(50), rows.subList(1, 3), null)))
        .isEqualTo("[1, 10, null] [0x00000000000000000032, 0x00000000000000000037); "
            + "[1, 10, paid] [0x00000000000000000037, null)");
  }

  @Test
  void inOneStatementABeforeImageSaysTheKeyWasHeldWhateverTheSeqvalOrder() {
    // Rows A and B exchange the unique value the history is keyed by: key 10 gets B's after image (seqval 1) and
    // A's before image (seqval 2) in one statement. Key 10 was held (by A) before it.
    Snapshot s = new Snapshot(lsn(50), at(50));
    Change row = new Change(lsn(50), null, null, null, 0, new Object[] {"b", 10, "x"});
    Change bAfter = new Change(lsn(55), at(55), 1, "0x01", 4, new Object[] {"b", 10, "x"});
    Change aBefore = new Change(lsn(55), at(55), 1, "0x02", 3, new Object[] {"a", 10, "x"});
    assertThat(show(ALL.apply(null, null, List.of(row, bAfter, aBefore), s)))
        .startsWith("[a, 10, x] [0x00000000000000000032, 0x00000000000000000037)");
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Version shown = new Version(new Object[] {"b", 10, "x"}, lsn(50), at(50), null, null, false, false);
    assertThat(show(rules.apply(shown, lsn(50), List.of(bAfter, aBefore), null)))
        .startsWith("[a, 10, x] [0x00000000000000000032, 0x00000000000000000037)");
  }

  @Test
  void aVersionFromBeforeTheSnapshotIsCorrectedAsTheSnapshotWouldHaveClosedIt() {
    // Open since 10, confirmed by S = 50's row; the key's first statement after 50 inserts it: it was absent at 50.
    // With storeDeletes a tombstone from 50, as a snapshot that left the key out gives it.
    HistoryRules tombstones = new HistoryRules(new boolean[] {true, true, true}, true, lsn(50), at(50));
    Version open = new Version(new Object[] {1, 10, "x"}, lsn(10), at(10), null, null, false, false);
    assertThat(show(tombstones.apply(open, lsn(10), List.of(c(55, 1, 2, 10, "y")), null)))
        .isEqualTo("[1, 10, x] [0x0000000000000000000A, 0x00000000000000000032) gap; "
            + "[1, 10, x] [0x00000000000000000032, 0x00000000000000000037) deleted; "
            + "[1, 10, y] [0x00000000000000000037, null)");
    // Without _command_id the first statement is its first row alone: a version from before the snapshot is not
    // checked (the row could be an exchange's after image ahead of the before image that shows the version right).
    Version held = new Version(new Object[] {"a", 10, "p"}, lsn(10), at(10), null, null, false, false);
    HistoryRules rules = new HistoryRules(new boolean[] {true, true, true}, false, lsn(50), at(50));
    Change bAfter = new Change(lsn(55), at(55), null, "0x01", 4, new Object[] {"b", 10, "p"});
    Change aBefore = new Change(lsn(55), at(55), null, "0x02", 3, new Object[] {"a", 10, "p"});
    assertThat(show(rules.apply(held, lsn(10), List.of(bAfter, aBefore), null)))
        .isEqualTo("[a, 10, p] [0x0000000000000000000A, 0x00000000000000000037)");
  }

  @Test
  void aChunkedSnapshotWithoutChunkRowsWaitsForTheHighsOfItsWaves() {
    // No chunk row in bronze (no stamp): the highs its snapshot_chunk facts rows record (one per chunk, empty too).
    StreamProgress behind = new StreamProgress(Map.of("orders", lsn(60)), Map.of(lsn(50), lsn(64)), Map.of());
    assertThat(behind.bound(lsn(50), null)).isEqualTo(lsn(64));
    assertThat(behind.hasRead(lsn(50), null, null)).isFalse();
    assertThat(behind.hasRead(lsn(50), null, lsn(64))).as("bronze's verdict reached it").isTrue();
    StreamProgress caughtUp = new StreamProgress(Map.of("orders", lsn(64)), Map.of(lsn(50), lsn(64)), Map.of());
    assertThat(caughtUp.hasRead(lsn(50), null, null)).isTrue();
    // A wave that saw nothing newer than S: nothing to wait for.
    assertThat(new StreamProgress(Map.of(), Map.of(lsn(50), lsn(50)), Map.of()).hasRead(lsn(50), null, null)).isTrue();
    // Chunk rows too: the newest of their stamps and the highs.
    assertThat(behind.bound(lsn(50), lsn(66))).isEqualTo(lsn(66));
  }

  @Test
  void aPlanWaitsForAnOpenChunkedSnapshotAndReadsOnlyTheChangesUpToIt() {
    SilverPosition none = SilverPosition.NONE;
    // The first call while a chunked bootstrap is open: every change up to S, no snapshot.
    HistoryPlan open = HistoryPlan.decide(none, null, null, lsn(50));
    assertThat(open.applySnapshot()).isFalse();
    assertThat(open.changesAfter()).isNull();
    assertThat(open.changesUpTo()).isEqualTo(lsn(50));
    assertThat(open.waits()).isTrue();
    // Completed: applied from S on, nothing bounds the changes.
    HistoryPlan done = HistoryPlan.decide(none, lsn(50), null, lsn(50));
    assertThat(done.applySnapshot()).isTrue();
    assertThat(done.changesAfter()).isEqualTo(lsn(50));
    assertThat(done.changesUpTo()).isNull();
    // Completed, but the stream has not read to its waves' stamps: the first call reads nothing, records nothing.
    HistoryPlan waiting = done.waitingFor();
    assertThat(waiting.applySnapshot()).isFalse();
    assertThat(waiting.changesAfter()).isEqualTo(lsn(50));
    assertThat(waiting.changesUpTo()).isEqualTo(lsn(50));
    assertThat(waiting.next(null)).isEqualTo(none);
    // A history with a position: the changes up to a re-snapshot S' still apply while S' is open.
    SilverPosition at = new SilverPosition(lsn(30), lsn(10), null, null, null);
    HistoryPlan reopened = HistoryPlan.decide(at, lsn(10), null, lsn(80));
    assertThat(reopened.applySnapshot()).isFalse();
    assertThat(reopened.changesAfter()).isEqualTo(lsn(30));
    assertThat(reopened.changesUpTo()).isEqualTo(lsn(80));
    assertThat(reopened.next(lsn(70)).appliedLsn()).isEqualTo(lsn(70));
    assertThat(reopened.next(lsn(70)).snapshotLsn()).isEqualTo(lsn(10));
    // An older chunked open row, superseded by a completed snapshot: nothing waits.
    assertThat(HistoryPlan.decide(at, lsn(90), null, lsn(80)).waits()).isFalse();
  }
}
