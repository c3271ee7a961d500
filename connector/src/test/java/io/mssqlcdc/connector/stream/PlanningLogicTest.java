package io.mssqlcdc.connector.stream;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.client.CaptureInstance;
import io.mssqlcdc.client.CapturedColumn;
import io.mssqlcdc.client.DdlEvent;
import io.mssqlcdc.client.SplitPoint;
import io.mssqlcdc.errors.CdcDataLossException;
import io.mssqlcdc.errors.CdcSchemaChangedException;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.options.CdcReaderOptions.SchemaChangePolicy;
import io.mssqlcdc.types.SqlServerType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The planning logic without Spark: admission, cutting, splitting, DDL, retention, retries. */
@Tag("spark")
class PlanningLogicTest {
  @TempDir Path tmp;

  private static Lsn l(long v) {
    return Lsn.of(0, v);
  }

  private static CaptureInstance ci(String name, Lsn start) {
    return new CaptureInstance(name, "dbo", "orders", start, List.of(), null);
  }

  // ---- admission ---------------------------------------------------------------------------

  @Test
  void admissionCapsAtTheNthEntryAndNeverPassesUpper() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp);
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    List<Lsn> entries = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int id = i;
      entries.add(db.commit(tx -> tx.insert("t", row("id", id))));
    }
    entries.add(db.idle());
    FakeCdcClient c = db.client();
    Lsn start = entries.get(0);
    Lsn max = entries.get(5);
    assertThat(Admission.end(c, start, max, OptionalInt.of(2))).isEqualTo(entries.get(2));
    assertThat(Admission.end(c, start, max, OptionalInt.of(99))).isEqualTo(max);
    assertThat(Admission.end(c, start, max, OptionalInt.empty())).isEqualTo(max);
    assertThat(Admission.end(c, start, entries.get(1), OptionalInt.of(3))).as("AvailableNow target").isEqualTo(entries.get(1));
    assertThat(Admission.end(c, max, max, OptionalInt.of(1))).as("nothing new").isEqualTo(max);
    assertThat(Admission.pendingCommits(c, start, max, 100)).isEqualTo(5);
    assertThat(Admission.pendingCommits(c, start, max, 5)).isEqualTo(5);
    assertThat(Admission.pendingCommits(c, start, max, 3)).as("more than 3").isEqualTo(4);
    assertThat(Admission.pendingCommits(c, max, max, 100)).isZero();
  }

  // ---- cutting at a newer instance's start --------------------------------------------------

  @Test
  void cutsAtTheNewerInstancesStartWithoutEmptyPieces() {
    List<CaptureInstance> two = List.of(ci("v1", l(10)), ci("v2", l(50)));
    assertThat(RangeCutter.cut(two, l(20), l(90), Lsn::decrement)).extracting(LsnRange::toString)
        .containsExactly("v1[" + l(20) + ", " + l(49) + "]", "v2[" + l(50) + ", " + l(90) + "]");
    assertThat(RangeCutter.cut(two, l(50), l(90), Lsn::decrement)).extracting(LsnRange::captureInstance)
        .as("starting at S: only the newer").containsExactly("v2");
    assertThat(RangeCutter.cut(two, l(20), l(49), Lsn::decrement)).extracting(LsnRange::captureInstance)
        .as("ending below S: only the older").containsExactly("v1");
    assertThat(RangeCutter.cut(two, l(60), l(90), Lsn::decrement)).extracting(LsnRange::captureInstance)
        .containsExactly("v2");
    assertThat(RangeCutter.cut(List.of(ci("v1", l(10)), ci("v2", null)), l(20), l(90), Lsn::decrement))
        .as("unknown start: never cut").extracting(LsnRange::captureInstance).containsExactly("v1");
  }

  /**
   * A batch that starts exactly at the newer instance's start S (its start offset is
   * {@code decrement(S)}, e.g. an explicit {@code startingLsn}) reads only the newer instance:
   * the switch still happens in this batch, so its {@code capture_instance_switched} event must
   * be reported (reference-behaviour §6 step 8).
   */
  @Test
  void aBatchStartingExactlyAtTheNewerInstancesStartReportsTheSwitch() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp);
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    db.commit(tx -> tx.insert("t", row("id", 1)));
    db.enableCdc("dbo", "t", "dbo_t_v2");
    Lsn s = db.commit(tx -> tx.insert("t", row("id", 2)));
    FakeCdcClient c = db.client();
    assertThat(c.captureInstances("dbo_t").get(1).startLsn()).isEqualTo(s);
    io.mssqlcdc.options.CdcReaderOptions o = io.mssqlcdc.options.CdcReaderOptions.parse(
        StreamRuns.options(db.path().toString(), "dbo_t"), io.mssqlcdc.options.CdcReaderOptions.Reader.STREAM);
    org.apache.spark.sql.types.StructType captured = new org.apache.spark.sql.types.StructType().add("id", "int");
    BatchPlanner.Plan plan = new BatchPlanner(o, captured, 1, RangeSplitter.MIN_ROWS).plan(c, s.decrement(), s);
    assertThat(plan.ranges()).extracting(LsnRange::toString).containsExactly("dbo_t_v2[" + s + ", " + s + "]");
    assertThat(plan.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo(BatchEvent.Kind.CAPTURE_INSTANCE_SWITCHED);
      assertThat(e.captureInstance()).isEqualTo("dbo_t_v2");
      assertThat(e.lsn()).isEqualTo(s);
      assertThat(e.detail()).isEqualTo("dbo_t -> dbo_t_v2");
    });
  }

  /**
   * The planner looks the table up by the newest instance name it has seen, then by older ones
   * (reference-behaviour §6 step 2): when that newest instance was replaced and disabled between
   * two batches (v1 -> v2 seen, then v3 enabled and v2 disabled), the configured default name
   * still finds the table, and the lost changes fail as data loss naming the disabled instances,
   * not as an unknown capture instance.
   */
  @Test
  void aReplacedNewestInstanceFallsBackToOlderNamesAndFailsAsDataLoss() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp);
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    Lsn a = db.commit(tx -> tx.insert("t", row("id", 1)));
    db.enableCdc("dbo", "t", "dbo_t_v2");
    Lsn b = db.commit(tx -> tx.insert("t", row("id", 2)));
    FakeCdcClient c = db.client();
    io.mssqlcdc.options.CdcReaderOptions o = io.mssqlcdc.options.CdcReaderOptions.parse(
        StreamRuns.options(db.path().toString(), "dbo_t"), io.mssqlcdc.options.CdcReaderOptions.Reader.STREAM);
    BatchPlanner planner = new BatchPlanner(o, new org.apache.spark.sql.types.StructType().add("id", "int"), 1,
        RangeSplitter.MIN_ROWS);
    assertThat(planner.plan(c, a.decrement(), b).ranges()).extracting(LsnRange::captureInstance)
        .containsExactly("dbo_t", "dbo_t_v2");
    db.commit(tx -> tx.insert("t", row("id", 3))); // held only by v1 and v2: lost once both are disabled
    db.disableCdc("dbo_t");
    db.enableCdc("dbo", "t", "dbo_t_v3");
    db.disableCdc("dbo_t_v2");
    Lsn d = db.commit(tx -> tx.insert("t", row("id", 4)));
    FakeCdcClient c2 = db.client();
    assertThatThrownBy(() -> planner.plan(c2, b, d))
        .isInstanceOf(CdcDataLossException.class)
        .hasMessageContaining("dbo_t_v3: change data from " + b.increment())
        .hasMessageContaining("'dbo_t', 'dbo_t_v2'");
  }

  // ---- splitting ---------------------------------------------------------------------------

  private static List<SplitPoint> tiles(long... rowsPerTile) {
    List<SplitPoint> t = new ArrayList<>();
    long lsn = 100;
    for (long r : rowsPerTile) {
      lsn += 10;
      t.add(new SplitPoint(l(lsn), l(lsn + 1), r));
    }
    return t;
  }

  @Test
  void splitsIntoAboutEqualRangesOfAtLeastTheMinimum() {
    LsnRange piece = new LsnRange("v1", l(100), l(1000), -1);
    List<LsnRange> r = RangeSplitter.split(piece, tiles(60, 60, 60, 60), 4, 50);
    assertThat(r).extracting(LsnRange::rows).containsExactly(60L, 60L, 60L, 60L);
    assertThat(r.get(0).from()).isEqualTo(l(100));
    assertThat(r.get(3).to()).as("the last range ends at the piece's end").isEqualTo(l(1000));
    for (int i = 1; i < r.size(); i++) {
      assertThat(r.get(i).from()).isEqualTo(r.get(i - 1).to().increment());
    }
  }

  @Test
  void neverMakesTinyRangesAndAtMostN() {
    LsnRange piece = new LsnRange("v1", l(100), l(1000), -1);
    assertThat(RangeSplitter.split(piece, tiles(30, 30, 30), 3, 50)).extracting(LsnRange::rows)
        .as("under twice the minimum: one range").containsExactly(90L);
    assertThat(RangeSplitter.split(piece, tiles(50, 50, 50, 10), 4, 50)).extracting(LsnRange::rows)
        .as("a small tail joins the range before it").containsExactly(50L, 50L, 60L);
    assertThat(RangeSplitter.split(piece, tiles(10, 10, 10, 10, 10, 10, 10, 10, 10, 10), 2, 1))
        .hasSize(2).extracting(LsnRange::rows).containsExactly(50L, 50L);
    assertThat(RangeSplitter.split(piece, tiles(500), 1, 50)).hasSize(1);
    // The minimum scales with the row's width: 50,000 rows up to 5 columns, as many values beyond, 5,000 at least.
    assertThat(RangeSplitter.minRows(3)).isEqualTo(50_000);
    assertThat(RangeSplitter.minRows(5)).isEqualTo(50_000);
    assertThat(RangeSplitter.minRows(10)).isEqualTo(25_000);
    assertThat(RangeSplitter.minRows(90)).isEqualTo(5_000);
  }

  // ---- DDL classification ------------------------------------------------------------------

  private static CapturedColumn col(String name, String type) {
    return new CapturedColumn(name, 1, 1, SqlServerType.parse(type), false);
  }

  @Test
  void classifyFailsOnATypeTheQueryCannotHoldAndRecordsOtherDdl() {
    DdlEvent alter = new DdlEvent("v1", l(7), "ALTER TABLE [dbo].[orders] ALTER COLUMN [id] bigint", null);
    DdlEvent same = new DdlEvent("v2", l(7), "ALTER TABLE [dbo].[orders] ALTER COLUMN [id] bigint", null);
    assertThatThrownBy(() -> SchemaChangeClassifier.classify(List.of(alter, same), SchemaChangePolicy.CLASSIFY,
        Map.of("id", DataTypes.IntegerType), x -> List.of(col("id", "bigint")), false))
        .isInstanceOf(CdcSchemaChangedException.class)
        .hasMessageContaining("v1: the type of captured column(s) id bigint (read as int) changed inside the batch ("
            + l(7) + ": ALTER TABLE [dbo].[orders] ALTER COLUMN [id] bigint)")
        .hasMessageContaining("re-infer the schema");
    List<BatchEvent> ok = SchemaChangeClassifier.classify(List.of(alter, same), SchemaChangePolicy.CLASSIFY,
        Map.of("id", DataTypes.LongType), x -> List.of(col("id", "int")), true);
    assertThat(ok).as("deduplicated by LSN").singleElement()
        .satisfies(e -> assertThat(e.kind()).isEqualTo(BatchEvent.Kind.SCHEMA_CHANGE));
    assertThatThrownBy(() -> SchemaChangeClassifier.classify(List.of(alter), SchemaChangePolicy.FAIL,
        Map.of(), x -> List.of(), false))
        .hasMessageContaining("v1: DDL at " + l(7)).hasMessageContaining("schemaChangePolicy=fail");
    assertThat(SchemaChangeClassifier.classify(List.of(), SchemaChangePolicy.FAIL, Map.of(), x -> List.of(), false))
        .isEmpty();
  }

  // ---- retention guard ---------------------------------------------------------------------

  @Test
  void retentionGuardFailsOrSkipsAhead() {
    FakeCdcDatabase db = FakeCdcDatabase.create(tmp);
    db.createTable("dbo", "t", "id int").key("id");
    db.enableCdc("dbo", "t");
    Lsn a = db.commit(tx -> tx.insert("t", row("id", 1)));
    Lsn b = db.commit(tx -> tx.insert("t", row("id", 2)));
    FakeCdcClient c = db.client();
    LsnRange r = new LsnRange("dbo_t", a, b, -1);
    assertThat(RetentionGuard.beforeRead(c, r, a, true, List.of()).range()).contains(r);
    assertThatThrownBy(() -> RetentionGuard.beforeRead(c, r, b, true, List.of("dbo_t_old")))
        .isInstanceOf(CdcDataLossException.class)
        .hasMessageContaining("dbo_t: change data from " + a + " is gone (min_lsn is now " + b + ")")
        .hasMessageContaining("held only by capture instance(s) 'dbo_t_old'");
    RetentionGuard.Outcome skip = RetentionGuard.beforeRead(c, r, b, false, List.of());
    assertThat(skip.range()).contains(r.withFrom(b));
    assertThat(skip.skipped()).hasValueSatisfying(e -> assertThat(e.kind()).isEqualTo(BatchEvent.Kind.DATA_SKIPPED));
    assertThat(RetentionGuard.beforeRead(c, r, b.increment(), false, List.of()).range()).isEmpty();
  }
}
