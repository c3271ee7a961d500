package io.mssqlcdc.silver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An open chunked snapshot applied wave by wave (reference-behaviour §16 steps 9 and 12, §33 O8-O10,
 * A3), on bronze and facts written here as the reference's backfill writes them (the sink's own backfill is
 * {@code ChunkedSnapshotSilverTest}'s): a {@code snapshot_open} row with the cut
 * keys, each wave's rows ({@code _snapshot} = S, {@code _chunk}, stamped at the wave's L) and then
 * its {@code snapshot_chunk} rows, and at the end the completion row. Crashes after a wave's MERGE and
 * after the completion's MERGE, before the position, are repaired by the next call.
 */
@Tag("slow")
@Tag("spark")
class SnapshotWavesTest {
  private static final SparkSession SPARK = SilverFixture.SPARK;
  private static final StructType BRONZE = StructType.fromDDL("_capture_instance STRING, _start_lsn STRING,"
      + " _seqval STRING, _operation INT, _command_id INT, _commit_ts TIMESTAMP_NTZ, id INT, name STRING,"
      + " _batch_id INT, _snapshot STRING, _chunk INT");
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);
  private static final String S1 = lsn(1);
  private static final String S3 = lsn(3);
  private static final String L4 = lsn(4);
  private static final String L6 = lsn(6);
  private static final String L7 = lsn(7);

  @TempDir Path tmp;

  private static String lsn(int n) {
    return Lsn.of(0x2A, n * 0x1000L).hex();
  }

  private String bronze;
  private String facts;
  private String control;

  private void bronzeRows(Object[]... rows) {
    List<Row> out = new ArrayList<>();
    for (Object[] r : rows) {
      out.add(RowFactory.create(r));
    }
    SPARK.createDataFrame(out, BRONZE).write().format("delta").mode("append").save(bronze);
  }

  private static Object[] snapshotRow(String stamp, String snapshot, Integer chunk, int id, String name) {
    return new Object[] {"dbo_orders", stamp, null, 0, null, T, id, name, null, snapshot, chunk};
  }

  private static Object[] change(String lsn, int seq, int op, int id, String name) {
    return new Object[] {"dbo_orders", lsn, lsn.substring(0, 18) + String.format("%04X", seq), op, seq,
        T.plusMinutes(5), id, name, 7, null, null};
  }

  private void facts(String event, String lsn, String detail, String appId) {
    FactsWriter.ensure(SPARK, TableRef.of(facts));
    FactsWriter.write(SPARK, TableRef.of(facts), List.of(new FactsRow().set(FactsColumn.APP_ID, appId)
        .set(FactsColumn.EVENT, event).set(FactsColumn.MIN_LSN, lsn).set(FactsColumn.MAX_LSN, lsn)
        .set(FactsColumn.END_LSN, lsn).set(FactsColumn.ROWS, 0L).set(FactsColumn.DETAIL, detail)
        .set(FactsColumn.TARGET, bronze)), null, 0);
  }

  private void chunkFacts(int wave, int chunk, String lo, String hi, String stamp, boolean last) {
    facts("snapshot_chunk", stamp, "{\"snapshot\": \"" + S3 + "\", \"wave\": " + wave + ", \"chunk\": " + chunk
        + ", \"lo\": " + lo + ", \"hi\": " + hi + ", \"last\": " + last + "}", "orders.g1");
  }

  private void bronzeVerdict(String lsn, LocalDateTime at) {
    Finalization.advance(SPARK, control, bronze, CdcOffset.of(Lsn.parse(lsn), at.toInstant(ZoneOffset.UTC), null),
        "minute");
  }

  private ApplyChanges.Builder apply(String silver) {
    return ApplyChanges.builder(SPARK).bronze(bronze).target(silver).captureInstance("dbo_orders")
        .keys(List.of("id")).controlTable(control).factsTable(facts).granularity("minute");
  }

  private static Map<Integer, String> silverRows(String silver) {
    Map<Integer, String> out = new TreeMap<>();
    for (Row r : SPARK.read().format("delta").load(silver).collectAsList()) {
      out.put(r.getAs("id"), r.getAs("name") + "@" + r.getAs("_start_lsn"));
    }
    return out;
  }

  @Test
  void wavesApplyAsTheyArriveWithRangeDeletesAndTheCompletionRebuilds() {
    bronze = tmp.resolve("bronze").toString();
    facts = tmp.resolve("facts").toString();
    control = tmp.resolve("control").toString();
    String silver = tmp.resolve("silver").toString();

    // A bootstrap S1 of ids 1..10.
    List<Object[]> boot = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      boot.add(snapshotRow(S1, S1, null, i, "s1"));
    }
    bronzeRows(boot.toArray(Object[][]::new));
    facts("bootstrap", S1, null, "orders");
    bronzeVerdict(S1, T.plusSeconds(30));
    ApplyResult first = apply(silver).run();
    assertThat(first.rebuilt()).isTrue();
    assertThat(first.finalizedUntil()).contains(T);
    assertThat(silverRows(silver)).hasSize(10);

    // Changes were lost (3 and 7 deleted, 11 inserted); a chunked re-snapshot S3 opens, cut on id.
    facts("snapshot_open", S3, "{\"mode\": \"chunked\", \"kind\": \"resnapshot\", \"generation\": 1,"
        + " \"lost_from_ts\": null, \"lost_to_ts\": null, \"keys\": [\"id\"]}", "orders.g1");
    // Wave 0 (stamp L4) reads [-, 6): 1, 2, 4, 5.
    bronzeRows(snapshotRow(L4, S3, 0, 1, "s3"), snapshotRow(L4, S3, 0, 2, "s3"), snapshotRow(L4, S3, 0, 4, "s3"),
        snapshotRow(L4, S3, 0, 5, "s3"));
    chunkFacts(0, 0, "null", "6", L4, false);
    // The stream meanwhile: 5 deleted and 12 inserted at L6, after wave 0's stamp.
    bronzeRows(change(L6, 1, 1, 5, "s3"), change(L6, 2, 2, 12, "new"));
    bronzeVerdict(L6, T.plusMinutes(5).plusSeconds(30));

    // Without facts, chunk rows cannot be applied; under another spelling, the facts have no open row for it.
    assertThatThrownBy(() -> apply(tmp.resolve("other").toString()).factsTable(null).run())
        .hasMessageContaining("MSSQL_CDC-786")
        .hasMessageContaining("holds rows of a chunked snapshot: pass factsTable");
    assertThatThrownBy(() -> apply(tmp.resolve("other").toString()).bronze(bronze + "/").run())
        .hasMessageContaining("MSSQL_CDC-787")
        .hasMessageContaining("has no 'snapshot_open' row for target = '" + bronze + "/'")
        .hasMessageContaining("Targets with one: [" + bronze + "]");

    ApplyResult w0 = apply(silver).run();
    assertThat(w0.rebuilt()).isFalse();
    assertThat(w0.finalizedUntil()).as("held while the snapshot is open").contains(T);
    assertThat(w0.appliedLsn()).contains(L6);
    Map<Integer, String> expected = new TreeMap<>();
    expected.put(1, "s3@" + L4);
    expected.put(2, "s3@" + L4);
    expected.put(4, "s3@" + L4); // 3: absent from chunk 0's range at L4, so deleted; 5: deleted at L6
    for (int i = 6; i <= 10; i++) {
      expected.put(i, "s1@" + S1);
    }
    expected.put(12, "new@" + L6);
    assertThat(silverRows(silver)).isEqualTo(expected);
    Map<String, Object> ctl = controlRow(silver);
    assertThat(ctl).containsEntry("open_snapshot_lsn", S3).containsEntry("snapshot_wave", 0)
        .containsEntry("snapshot_lsn", S1).containsEntry("applied_lsn", L6);

    // Nothing new: nothing merged, nothing written.
    long version = SilverFixture.version(silver);
    apply(silver).run();
    assertThat(SilverFixture.version(silver)).isEqualTo(version);

    // Wave 1 (stamp L7) reads [6, -): 6, 8, 9, 10, 11, 12.
    bronzeRows(snapshotRow(L7, S3, 1, 6, "s3"), snapshotRow(L7, S3, 1, 8, "s3"), snapshotRow(L7, S3, 1, 9, "s3"),
        snapshotRow(L7, S3, 1, 10, "s3"), snapshotRow(L7, S3, 1, 11, "s3"), snapshotRow(L7, S3, 1, 12, "new"));
    chunkFacts(1, 1, "6", "null", L7, true);
    // A crash after the MERGE, before the position: the next call applies wave 1 again, changing nothing.
    assertThatThrownBy(() -> apply(silver).onStep(crashAfter(ApplyChanges.Step.MERGED)).run())
        .hasMessage("simulated crash after MERGED");
    assertThat(controlRow(silver)).containsEntry("snapshot_wave", 0);
    ApplyResult w1 = apply(silver).run();
    assertThat(w1.finalizedUntil()).contains(T);
    expected.remove(7);
    for (int i : List.of(6, 8, 9, 10, 11, 12)) {
      expected.put(i, (i == 12 ? "new" : "s3") + "@" + L7);
    }
    assertThat(silverRows(silver)).isEqualTo(expected);
    assertThat(controlRow(silver)).containsEntry("open_snapshot_lsn", S3).containsEntry("snapshot_wave", 1);

    // Completion: rebuilt from S3 and the changes after it; the open snapshot is cleared, the verdict moves.
    facts("resnapshot", S3, null, "orders.g1");
    assertThatThrownBy(() -> apply(silver).onStep(crashAfter(ApplyChanges.Step.MERGED)).run())
        .hasMessage("simulated crash after MERGED");
    ApplyResult done = apply(silver).run();
    assertThat(done.rebuilt()).isTrue();
    assertThat(done.finalizedUntil()).contains(T.plusMinutes(5));
    assertThat(silverRows(silver)).isEqualTo(expected);
    assertThat(controlRow(silver)).containsEntry("open_snapshot_lsn", "null").containsEntry("snapshot_wave", "null")
        .containsEntry("snapshot_lsn", S3).containsEntry("applied_lsn", L6);
  }

  private static java.util.function.Consumer<ApplyChanges.Step> crashAfter(ApplyChanges.Step step) {
    return s -> {
      if (s == step) {
        throw new IllegalStateException("simulated crash after " + s);
      }
    };
  }

  private Map<String, Object> controlRow(String table) {
    Row r = SPARK.read().format("delta").load(control).where("table_name = '" + table + "'").first();
    Map<String, Object> m = new TreeMap<>();
    for (String f : r.schema().fieldNames()) {
      m.put(f, r.getAs(f) == null ? "null" : r.getAs(f));
    }
    return m;
  }
}
