package io.mssqlcdc.reconcile;

import static io.mssqlcdc.fake.FakeRows.row;
import static io.mssqlcdc.reconcile.ReconcileFixture.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Date keys (before and after 1970) and composite keys with a NULL column, clean and tampered. */
@Tag("slow")
@Tag("spark")
class KeyKindsTest {
  @TempDir Path tmp;

  @Test
  void dateKeysAreBucketedByDaysSince1970() throws Exception {
    ReconcileFixture f = new ReconcileFixture(tmp, "dbo_days");
    f.db.createTable("dbo", "days", "day date", "n int").key("day");
    f.db.enableCdc("dbo", "days");
    LocalDate first = LocalDate.of(1969, 12, 26);
    f.db.commit(tx -> {
      for (int i = 0; i < 12; i++) {
        tx.insert("days", row("day", first.plusDays(i), "n", i));
      }
      tx.insert("days", row("day", LocalDate.of(1900, 1, 1), "n", -1));
    });
    f.pipeline();
    ReconcileResult clean = f.reconcile().bucketRows(5).sample(1.0).run();
    assertThat(clean.clean()).isTrue();
    // 1900-01-01 is day -25567, 1969-12-26 day -6; width 1 (span 25,579 days)
    assertThat(ReconcileFixture.buckets(clean)).containsExactly(
        "\"1900-01-01\"..\"1969-12-30\" 5/5 MATCH", "\"1969-12-30\"..\"1970-01-04\" 5/5 MATCH",
        "\"1970-01-04\"..\"1970-01-07\" 3/3 MATCH");
    String silver = f.copyOfSilver("tampered");
    f.sql("DELETE FROM " + at(silver) + " WHERE day = DATE'1969-12-31'");
    ReconcileResult r = f.reconcile().silver(silver).bucketRows(5).run();
    assertThat(ReconcileFixture.buckets(r)).containsExactly(
        "\"1900-01-01\"..\"1969-12-30\" 5/5 MATCH", "\"1969-12-30\"..\"1970-01-04\" 5/4 MISMATCH",
        "\"1970-01-04\"..\"1970-01-07\" 3/3 MATCH");
    assertThat(ReconcileFixture.keyRows(r)).containsExactly(Map.entry("{\"day\":\"1969-12-31\"}", "MISSING_TARGET"));
  }

  @Test
  void compositeKeysWithANullColumnAreComparedAsAWholeTable() throws Exception {
    ReconcileFixture f = new ReconcileFixture(tmp, "dbo_lines");
    f.db.createTable("dbo", "lines", "region varchar(10)", "line int", "qty int").key("region", "line");
    f.db.enableCdc("dbo", "lines");
    f.db.commit(tx -> {
      for (String region : new String[] {"east", "west", "North"}) {
        for (int line = 1; line <= 3; line++) {
          tx.insert("lines", row("region", region, "line", line, "qty", line * 2));
        }
      }
      tx.insert("lines", row("region", null, "line", 1, "qty", 5));
    });
    f.pipeline();
    ReconcileResult clean = f.reconcile().sample(1.0).run();
    assertThat(clean.clean()).isTrue();
    assertThat(ReconcileFixture.buckets(clean)).containsExactly("null..null 10/10 MATCH");
    assertThat(clean.hashed()).isEqualTo(1);

    String silver = f.copyOfSilver("tampered");
    f.sql("DELETE FROM " + at(silver) + " WHERE region = 'east' AND line = 2");
    f.sql("UPDATE " + at(silver) + " SET qty = 99 WHERE region IS NULL");
    f.sql("INSERT INTO " + at(silver) + " (region, line, qty) VALUES ('ghost', 9, 0)");
    f.sql("INSERT INTO " + at(silver) + " (region, line, qty) VALUES ('ghost', 10, 0)");
    // key ranges of about 3 rows (keyTiles): the MISMATCH reads them all (4, at most 10), whatever the sample
    ReconcileResult r = f.reconcile().silver(silver).bucketRows(3).sample(0.01).run();
    assertThat(ReconcileFixture.buckets(r)).containsExactly("null..null 10/11 MISMATCH");
    assertThat(r.hashed()).isEqualTo(4);
    assertThat(ReconcileFixture.keyRows(r)).containsExactly(
        Map.entry("{\"region\":\"east\",\"line\":2}", "MISSING_TARGET"),
        Map.entry("{\"region\":\"ghost\",\"line\":10}", "MISSING_SOURCE"),
        Map.entry("{\"region\":\"ghost\",\"line\":9}", "MISSING_SOURCE"),
        Map.entry("{\"region\":null,\"line\":1}", "RECORD_DIFF"));
    assertThat(ReconcileFixture.detail(r, "{\"region\":null,\"line\":1}")).endsWith("\"columns\":\"qty\"}");

    // Bounded: sample(0) reads no range, even on a MISMATCH; one range a row (11 ranges) reads at most 10.
    ReconcileResult none = f.reconcile().silver(silver).bucketRows(3).sample(0).run();
    assertThat(ReconcileFixture.buckets(none)).containsExactly("null..null 10/11 MISMATCH");
    assertThat(none.hashed()).isZero();
    assertThat(ReconcileFixture.keyRows(none)).isEmpty();
    ReconcileResult capped = f.reconcile().silver(silver).bucketRows(1).sample(0.01).run();
    assertThat(capped.hashed()).isEqualTo(Sampling.MISMATCH_RANGES);
  }
}
