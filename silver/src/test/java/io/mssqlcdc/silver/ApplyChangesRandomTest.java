package io.mssqlcdc.silver;

import org.junit.jupiter.api.Tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 10's "done when", on the real engine over the fake: random workloads streamed to bronze by
 * CdcStream (with or without a bootstrap, then batches of several commits), applied to two silvers
 * in several calls with crashes between the steps of a call, give silvers equal to the fake's
 * current table; a rerun applies nothing; the verdict never passes what was applied. One silver is keyed by the
 * primary key (read from the unique index through the options), the other by the unique
 * {@code code}, whose updates move rows between keys (operation 3 of the old key, 4 of the new).
 */
@Tag("slow")
@Tag("spark")
class ApplyChangesRandomTest {
  private static final List<String> BY_ID = List.of("code", "status");
  private static final List<String> BY_CODE = List.of("order_id", "status");
  private static final ApplyChanges.Step[] CRASHES = {null, ApplyChanges.Step.CONTROL_READ,
      ApplyChanges.Step.MERGED, ApplyChanges.Step.POSITION_RECORDED};

  @TempDir Path tmp;

  /** A crash injected after a step. */
  static final class SimulatedCrash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(ApplyChanges.Step step) {
      super("simulated crash after " + step);
    }
  }

  @ParameterizedTest(name = "seed {0}, bootstrap {1}")
  @CsvSource({"11, true", "42, false"})
  void randomWorkloadsAppliedWithCrashesInBetweenGiveTheSourceTable(long seed, boolean bootstrap) throws Exception {
    SilverFixture f = new SilverFixture(tmp);
    Workload.createTable(f.db);
    Workload w = new Workload(f.db, seed);
    Random rnd = new Random(seed * 31 + 7);
    if (bootstrap) { // the first call rebuilds from the snapshot and the changes after it; else from every change
      w.commit(6);
      f.await(f.stream("dbo_orders").bootstrap(true).toDelta());
    }

    String byId = f.silver("silver_by_id");
    String byCode = f.silver("silver_by_code");
    LocalDateTime lastVerdict = null;
    for (int round = 0; round < 2; round++) {
      w.commit(8 + rnd.nextInt(6));
      f.await(f.stream("dbo_orders").option("maxCommitsPerBatch", Integer.toString(1 + rnd.nextInt(3))).toDelta());
      ApplyChanges.Step crash = CRASHES[rnd.nextInt(CRASHES.length)];
      ApplyResult a = applyWithCrash(f, f.apply(byId, "dbo_orders"), crash, w);
      // The first call rebuilds (the repair of a crash after the position was recorded no longer
      // needs to).
      assertThat(a.rebuilt()).isEqualTo(round == 0 && crash != ApplyChanges.Step.POSITION_RECORDED);
      assertThat(SilverFixture.rows(byId, "order_id", BY_ID)).as("seed %d round %d, by order_id", seed, round)
          .isEqualTo(f.table("order_id", BY_ID));
      ApplyResult b = applyWithCrash(f, f.apply(byCode, "dbo_orders").keys(List.of("code")),
          CRASHES[rnd.nextInt(CRASHES.length)], w);
      assertThat(SilverFixture.rows(byCode, "code", BY_CODE)).as("seed %d round %d, by code", seed, round)
          .isEqualTo(f.table("code", BY_CODE));
      assertThat(b.appliedLsn()).isEqualTo(a.appliedLsn());
      if (lastVerdict != null) {
        assertThat(a.finalizedUntil().orElseThrow()).isAfterOrEqualTo(lastVerdict);
      }
      lastVerdict = a.finalizedUntil().orElse(null);
    }
    assertThat(lastVerdict).as("the verdict moved with the stream").isNotNull();

    // A rerun applies nothing: no silver commit, the control row as it was.
    for (String silver : List.of(byId, byCode)) {
      long version = SilverFixture.version(silver);
      Map<String, Object> row = f.controlRow(silver);
      ApplyChanges.Builder again = silver.equals(byId) ? f.apply(byId, "dbo_orders")
          : f.apply(byCode, "dbo_orders").keys(List.of("code"));
      ApplyResult r = again.run();
      assertThat(r.rebuilt()).isFalse();
      assertThat(r.bronzeFound()).isTrue();
      assertThat(SilverFixture.version(silver)).isEqualTo(version);
      assertThat(f.controlRow(silver)).isEqualTo(row);
    }
  }

  /** One call with a crash after step {@code crash} (or none), then the call that repairs it; checks the verdict. */
  private static ApplyResult applyWithCrash(SilverFixture f, ApplyChanges.Builder call, ApplyChanges.Step crash,
      Workload w) {
    if (crash != null) {
      assertThatThrownBy(() -> call.onStep(s -> {
        if (s == crash) {
          throw new SimulatedCrash(s);
        }
      }).run()).isInstanceOf(SimulatedCrash.class);
    }
    ApplyResult r = call.onStep(s -> { }).run();
    assertThat(r.bronzeFound()).isTrue();
    assertThat(r.appliedLsn()).isPresent();
    // The verdict never passes what was applied: every commit before it is at or below the position.
    r.finalizedUntil().ifPresent(v -> {
      Lsn applied = Lsn.parse(r.appliedLsn().orElseThrow());
      for (Workload.Commit c : w.commits()) {
        if (c.at().isBefore(v)) {
          assertThat(c.lsn().isAfter(applied)).as("commit %s at %s is before the verdict %s but after %s", c.lsn(),
              c.at(), v, applied).isFalse();
        }
      }
      assertThat(v).isBeforeOrEqualTo(f.bronzeVerdict());
    });
    return r;
  }
}
