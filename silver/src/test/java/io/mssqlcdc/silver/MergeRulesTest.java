package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The MERGE's conditions and the ranking order, as text (reference-behaviour §16 step 12). */
class MergeRulesTest {
  @Test
  void keysMatchNullSafeAndQuoted() {
    assertThat(MergeRules.keyMatch(List.of("order_id"))).isEqualTo("t.`order_id` <=> s.`order_id`");
    assertThat(MergeRules.keyMatch(List.of("a", "Qty (kg)", "we`ird")))
        .isEqualTo("t.`a` <=> s.`a` AND t.`Qty (kg)` <=> s.`Qty (kg)` AND t.`we``ird` <=> s.`we``ird`");
  }

  @Test
  void deletesAndUpdatesTakeOnlyNewerImagesAndInsertsNeverDelete() {
    assertThat(MergeRules.deleteWhen()).isEqualTo("(s._operation IN (1, 3)) AND s._start_lsn > t._start_lsn");
    assertThat(MergeRules.updateWhen()).isEqualTo("NOT (s._operation IN (1, 3)) AND s._start_lsn > t._start_lsn");
    assertThat(MergeRules.insertWhen()).isEqualTo("NOT (s._operation IN (1, 3))");
  }

  @Test
  void everyWrittenColumnIsAssignedFromTheSource() {
    assertThat(MergeRules.assignments(List.of("id", "Qty (kg)", "_start_lsn", "_commit_ts")))
        .containsExactly(
            java.util.Map.entry("`id`", "s.`id`"), java.util.Map.entry("`Qty (kg)`", "s.`Qty (kg)`"),
            java.util.Map.entry("`_start_lsn`", "s.`_start_lsn`"),
            java.util.Map.entry("`_commit_ts`", "s.`_commit_ts`"));
  }

  @Test
  void theLatestImageIsTheGreatestLsnCommandSeqvalOperation() {
    assertThat(ImageOrder.newestFirst(true)).containsExactly(
        new ImageOrder.SortKey("_start_lsn", false), new ImageOrder.SortKey("_command_id", true),
        new ImageOrder.SortKey("_seqval", true), new ImageOrder.SortKey("_operation", false));
    assertThat(ImageOrder.newestFirst(false)).containsExactly(
        new ImageOrder.SortKey("_start_lsn", false), new ImageOrder.SortKey("_seqval", true),
        new ImageOrder.SortKey("_operation", false));
  }
}
