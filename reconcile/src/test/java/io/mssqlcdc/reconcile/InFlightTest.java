package io.mssqlcdc.reconcile;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes the stream or silver has not reached make their buckets IN_FLIGHT, never MISMATCH: in the
 * change table only, in bronze only, committed while reconcile runs (scripted through the run's
 * steps, no timing), and between the counts and the row read of a sampled bucket.
 */
@Tag("slow")
@Tag("spark")
class InFlightTest {
  @TempDir Path tmp;

  @Test
  void changesTheStreamOrSilverHasNotReachedAreInFlightNeverMismatch() throws Exception {
    ReconcileFixture f = new ReconcileFixture(tmp, "dbo_orders");
    f.db.createTable("dbo", "orders", "order_id int", "code int", "status varchar(20)").key("order_id");
    f.db.enableCdc("dbo", "orders");
    f.db.commit(tx -> {
      for (int id = 0; id < 40; id++) {
        tx.insert("orders", row("order_id", id, "code", id, "status", "new"));
      }
    });
    f.pipeline();

    // committed after silver applied, before reconcile reads: in the change table only
    f.db.commit(tx -> tx.update("orders", row("order_id", 3, "code", 300)).delete("orders", key(29))
        .insert("orders", row("order_id", 45, "code", 1, "status", "new")));
    ReconcileResult unread = f.reconcile().bucketRows(10).run();
    assertThat(ReconcileFixture.buckets(unread)).containsExactly("0..10 10/10 MATCH", "10..20 10/10 MATCH",
        "20..30 9/10 IN_FLIGHT", "30..45 10/10 MATCH", "45..46 1/0 IN_FLIGHT");
    assertThat(unread.failures()).isEmpty();

    // in bronze, not yet in silver
    f.stream();
    ReconcileResult inBronze = f.reconcile().bucketRows(10).run();
    assertThat(inBronze.mismatch()).isZero();
    assertThat(inBronze.inFlight()).isEqualTo(2);

    // committed while reconcile runs: after silver's version is pinned, before the source is counted
    f.apply();
    ReconcileResult during = f.reconcile().bucketRows(10).onStep(step -> {
      if (step == Reconcile.Step.SILVER_PINNED) {
        f.db.commit(tx -> tx.delete("orders", key(15)).insert("orders", row("order_id", -7, "code", 2, "status", "x")));
      }
    }).run();
    assertThat(ReconcileFixture.buckets(during)).containsExactly("-7..9 10/9 IN_FLIGHT", "9..19 9/10 IN_FLIGHT",
        "19..30 10/10 MATCH", "30..45 10/10 MATCH", "45..46 1/1 MATCH");
    assertThat(during.failures()).isEmpty();

    // committed after the counts matched, before the rows of a sampled bucket are read: its key row is IN_FLIGHT
    f.pipeline();
    ReconcileResult sampled = f.reconcile().bucketRows(1000).sample(1.0).onStep(step -> {
      if (step == Reconcile.Step.SOURCE_COUNTED) {
        f.db.commit(tx -> tx.update("orders", row("order_id", 0, "status", "late")));
      }
    }).run();
    assertThat(sampled.match()).isEqualTo(1);
    assertThat(sampled.hashed()).isEqualTo(1);
    assertThat(ReconcileFixture.keyRows(sampled)).containsExactly(Map.entry("{\"order_id\":0}", "IN_FLIGHT"));
    assertThat(ReconcileFixture.detail(sampled, "{\"order_id\":0}")).contains("\"columns\":\"status\"");
    assertThat(sampled.mismatch()).isZero();
    assertThat(sampled.clean()).isTrue();
  }
}
