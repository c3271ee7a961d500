package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.IntNode;
import io.mssqlcdc.silver.ApplyPlan.BaseKind;
import java.time.LocalDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decisions of one call, without Spark (reference-behaviour §16 steps 7-9, 13-15; §33 W7, A2-A4, O10, O11). */
class ApplyPlanTest {
  static final String S1 = "0x0000002A000001000001";
  static final String L2 = "0x0000002A000002000001";
  static final String S3 = "0x0000002A000003000001";
  static final String L4 = "0x0000002A000004000001";
  static final String S5 = "0x0000002A000005000001";
  static final LocalDateTime V = LocalDateTime.of(2026, 3, 1, 10, 0);

  private static SilverPosition at(String applied, String snapshot) {
    return new SilverPosition(applied, snapshot, null, null, V);
  }

  private static Chunk chunk(int i, int wave) {
    return new Chunk(i, wave, IntNode.valueOf(i * 10), IntNode.valueOf(i * 10 + 10), L4);
  }

  @Test
  void aFirstCallWithoutASnapshotAppliesEveryChangeAndRebuilds() {
    ApplyPlan p = ApplyPlan.decide(SilverPosition.NONE, null, null, null, Map.of());
    assertThat(p.rebuild()).isTrue();
    assertThat(p.base()).isEqualTo(new ApplyPlan.Base(BaseKind.ALL_CHANGES, null));
    ApplyPlan.Outcome o = p.outcome(L2, true);
    assertThat(o.merged()).isTrue();
    assertThat(o.rebuilt()).isTrue();
    assertThat(o.next().appliedLsn()).isEqualTo(L2);
    assertThat(o.next().snapshotLsn()).isNull();
    assertThat(o.writePosition()).isTrue();
  }

  @Test
  void aFirstCallOnAnEmptyBronzeMergesNothingAndRecordsNothing() {
    ApplyPlan.Outcome o = ApplyPlan.decide(SilverPosition.NONE, null, null, null, Map.of()).outcome(null, true);
    assertThat(o.merged()).isFalse();
    assertThat(o.rebuilt()).isFalse();
    assertThat(o.writePosition()).isFalse();
    assertThat(o.next().appliedLsn()).isNull();
  }

  @Test
  void aBootstrapSnapshotIsTheBaseOfTheFirstCall() {
    ApplyPlan p = ApplyPlan.decide(SilverPosition.NONE, S1, S1, null, Map.of());
    assertThat(p.base()).isEqualTo(new ApplyPlan.Base(BaseKind.SNAPSHOT_AND_LATER_CHANGES, S1));
    ApplyPlan.Outcome o = p.outcome(null, true);
    assertThat(o.merged()).isTrue(); // even without changes: the snapshot's rows
    assertThat(o.rebuilt()).isTrue();
    assertThat(o.next()).isEqualTo(new SilverPosition(S1, S1, null, null, null));
  }

  @Test
  void laterCallsApplyTheChangesAfterThePositionAndARerunNothing() {
    ApplyPlan p = ApplyPlan.decide(at(L2, S1), S1, null, null, Map.of());
    assertThat(p.rebuild()).isFalse();
    assertThat(p.snapshot()).isEqualTo(S1);
    assertThat(p.base()).isEqualTo(new ApplyPlan.Base(BaseKind.CHANGES_AFTER, L2));
    ApplyPlan.Outcome o = p.outcome(L4, true);
    assertThat(o.next().appliedLsn()).isEqualTo(L4);
    assertThat(o.next().snapshotLsn()).isEqualTo(S1);
    assertThat(o.holdVerdict()).isFalse();

    ApplyPlan.Outcome rerun = ApplyPlan.decide(at(L4, S1), S1, null, null, Map.of()).outcome(null, true);
    assertThat(rerun.merged()).isFalse();
    assertThat(rerun.writePosition()).isFalse();
    assertThat(rerun.rebuilt()).isFalse();
  }

  @Test
  void aNewerSnapshotRebuildsAlsoWhenOnlyTheFactsKnowIt() {
    // A re-snapshot of an emptied table wrote no row: only its facts row says S3.
    ApplyPlan p = ApplyPlan.decide(at(L2, S1), S3, null, null, Map.of());
    assertThat(p.rebuild()).isTrue();
    assertThat(p.base()).isEqualTo(new ApplyPlan.Base(BaseKind.SNAPSHOT_AND_LATER_CHANGES, S3));
    ApplyPlan.Outcome o = p.outcome(null, true);
    assertThat(o.merged()).isTrue();
    assertThat(o.rebuilt()).isTrue();
    assertThat(o.next().snapshotLsn()).isEqualTo(S3);
    assertThat(o.next().appliedLsn()).isEqualTo(S3);
  }

  @Test
  void aSnapshotNoNewerThanTheOneRebuiltFromIsNoRebuildEvenBelowThePosition() {
    // A bootstrap added to a stream on a quiet database is stamped with the LSN silver applied already.
    ApplyPlan p = ApplyPlan.decide(at(L4, null), L4, L4, null, Map.of());
    assertThat(p.rebuild()).isTrue(); // snapshot_lsn NULL counts as older (A2)
    ApplyPlan q = ApplyPlan.decide(at(S5, L4), L4, null, null, Map.of());
    assertThat(q.rebuild()).isFalse();
    assertThat(q.base().kind()).isEqualTo(BaseKind.CHANGES_AFTER);
  }

  @Test
  void withoutFactsTheVerdictIsHeld() {
    ApplyPlan.Outcome o = ApplyPlan.decide(at(L2, S1), null, null, null, Map.of()).outcome(L4, false);
    assertThat(o.holdVerdict()).isTrue();
    assertThat(o.next().appliedLsn()).isEqualTo(L4);
  }

  @Test
  void anOpenChunkedSnapshotAppliesItsNewWavesAndHoldsTheVerdict() {
    Map<Integer, Chunk> chunks = Map.of(0, chunk(0, 0), 1, chunk(1, 0), 2, chunk(2, 1));
    ApplyPlan p = ApplyPlan.decide(at(L2, S1), S1, null, S3, chunks);
    assertThat(p.open()).isTrue();
    assertThat(p.rebuild()).isFalse();
    assertThat(p.afterWave()).isEqualTo(-1);
    assertThat(p.newChunks()).containsOnlyKeys(0, 1, 2);
    ApplyPlan.Outcome o = p.outcome(null, true);
    assertThat(o.merged()).isTrue();
    assertThat(o.holdVerdict()).isTrue();
    assertThat(o.next()).isEqualTo(new SilverPosition(L2, S1, S3, 1, V));

    // The next call: wave 1 applied already (a high-water mark), wave 2 is new.
    Map<Integer, Chunk> more = Map.of(0, chunk(0, 0), 1, chunk(1, 0), 2, chunk(2, 1), 3, chunk(3, 2));
    ApplyPlan q = ApplyPlan.decide(o.next(), S1, null, S3, more);
    assertThat(q.afterWave()).isEqualTo(1);
    assertThat(q.newChunks()).containsOnlyKeys(3);
    assertThat(q.outcome(null, true).next().snapshotWave()).isEqualTo(2);

    // No new wave, no change: nothing merged, nothing written.
    ApplyPlan.Outcome idle = ApplyPlan.decide(o.next(), S1, null, S3, chunks).outcome(null, true);
    assertThat(idle.merged()).isFalse();
    assertThat(idle.writePosition()).isFalse();
  }

  @Test
  void wavesAppliedBeforeAnyChangeKeepTheNextCallFromRebuilding() {
    // First call during an open bootstrap: applied_lsn stays NULL, the open position is recorded (O10, W7).
    Map<Integer, Chunk> chunks = Map.of(0, chunk(0, 0));
    ApplyPlan.Outcome o = ApplyPlan.decide(SilverPosition.NONE, null, null, S3, chunks).outcome(null, true);
    assertThat(o.next()).isEqualTo(new SilverPosition(null, null, S3, 0, null));
    assertThat(o.writePosition()).isTrue();
    ApplyPlan next = ApplyPlan.decide(o.next(), null, null, S3, Map.of(0, chunk(0, 0), 1, chunk(1, 1)));
    assertThat(next.rebuild()).isFalse();
    assertThat(next.base().kind()).isEqualTo(BaseKind.ALL_CHANGES); // applied_lsn is NULL
    assertThat(next.newChunks()).containsOnlyKeys(1);
  }

  @Test
  void completionRebuildsAndClearsTheOpenSnapshot() {
    SilverPosition during = new SilverPosition(L4, S1, S3, 2, V);
    ApplyPlan p = ApplyPlan.decide(during, S3, S3, S3, Map.of());
    assertThat(p.open()).isFalse();
    assertThat(p.rebuild()).isTrue();
    ApplyPlan.Outcome o = p.outcome(null, true);
    assertThat(o.next()).isEqualTo(new SilverPosition(L4, S3, null, null, V));
    assertThat(o.holdVerdict()).isFalse();
    assertThat(o.rebuilt()).isTrue();
  }

  @Test
  void aRebuildDuringAnOpenSnapshotReappliesAllItsWaves() {
    // A newer whole snapshot S3 arrives while chunked S5 is open: rebuild from S3, waves of S5 from -1 (A3).
    SilverPosition during = new SilverPosition(L2, S1, S5, 3, V);
    ApplyPlan p = ApplyPlan.decide(during, S1, S3, S5, Map.of(0, chunk(0, 0), 1, chunk(1, 3)));
    assertThat(p.rebuild()).isTrue();
    assertThat(p.open()).isTrue();
    assertThat(p.afterWave()).isEqualTo(-1);
    assertThat(p.newChunks()).containsOnlyKeys(0, 1);
  }

  @Test
  void anotherOpenSnapshotStartsItsWavesFromTheFirst() {
    SilverPosition during = new SilverPosition(L2, S1, S3, 4, V);
    ApplyPlan p = ApplyPlan.decide(during, S1, null, S5, Map.of(0, chunk(0, 0)));
    assertThat(p.afterWave()).isEqualTo(-1);
    assertThat(p.newChunks()).containsOnlyKeys(0);
    assertThat(p.outcome(null, true).next().openSnapshotLsn()).isEqualTo(S5);
  }

  @Test
  void lsnsCompareAsTheirTextAndNullIsBeforeEverything() {
    assertThat(Lsns.max(null, S1, null, S3)).isEqualTo(S3);
    assertThat(Lsns.max((String) null)).isNull();
    assertThat(Lsns.after(S3, null)).isTrue();
    assertThat(Lsns.after(null, S3)).isFalse();
    assertThat(Lsns.after(S1, S3)).isFalse();
  }
}
