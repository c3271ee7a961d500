package io.mssqlcdc.reconcile;

import static io.mssqlcdc.fake.FakeRows.key;
import static io.mssqlcdc.fake.FakeRows.row;
import static io.mssqlcdc.reconcile.ReconcileFixture.at;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Reconcile on an integer key, over one pipeline built once: a clean silver, copies of it tampered
 * with by hand, NULL and negative keys, the arguments, and (last, since it writes facts and bronze
 * rows by hand) a tampered chunked snapshot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("spark")
class ReconcileTest {
  private Path tmp;
  private ReconcileFixture f;

  /**
   * dbo.orders with keys -30..29 (60 rows) and one NULL key (a unique index admits one), some
   * updated, keys -5 and 12 deleted: 58 rows with a key, 1 without.
   */
  @BeforeAll
  void pipeline() throws Exception {
    tmp = Files.createTempDirectory("reconcile");
    f = new ReconcileFixture(tmp, "dbo_orders");
    f.db.createTable("dbo", "orders", "order_id int", "code int", "status varchar(20)").key("order_id");
    f.db.enableCdc("dbo", "orders");
    for (int t = 0; t < 3; t++) {
      int from = -30 + t * 20;
      f.db.commit(tx -> {
        for (int id = from; id < from + 20; id++) {
          tx.insert("orders", row("order_id", id, "code", id * 10, "status", "new"));
        }
      });
    }
    f.db.commit(tx -> tx.update("orders", row("order_id", 3, "status", "paid"))
        .update("orders", row("order_id", -20, "status", "paid")).delete("orders", key(-5)).delete("orders", key(12))
        .insert("orders", row("order_id", null, "code", -1, "status", "no key")));
    f.pipeline();
  }

  @AfterAll
  void cleanUp() throws Exception {
    try (java.util.stream.Stream<Path> files = Files.walk(tmp)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  @Order(1)
  void aCleanPipelineReconcilesAllMatchAndTheReportIsAppendedPerRun() {
    ReconcileResult r = f.reconcile().bucketRows(10).sample(1.0).run();
    assertThat(r.mismatch()).isZero();
    assertThat(r.inFlight()).isZero();
    assertThat(r.match()).isEqualTo(r.buckets()).isEqualTo(7);
    assertThat(r.hashed()).as("sample 1: every bucket compared row by row").isEqualTo(6);
    assertThat(r.failures()).isEmpty();
    assertThat(r.clean()).isTrue();
    assertThat(r.silverLsn()).isPresent();
    // the key span -30..29 gives width 1: buckets of 10 rows from -30, the deleted keys -5 and 12
    // inside theirs; the NULL key a bucket of its own
    assertThat(ReconcileFixture.buckets(r)).containsExactly("null..null 1/1 MATCH",
        "-30..-20 10/10 MATCH", "-20..-10 10/10 MATCH", "-10..1 10/10 MATCH", "1..11 10/10 MATCH",
        "11..22 10/10 MATCH", "22..30 8/8 MATCH");
    assertThat(r.report().where(col("bucket_lo").equalTo("-10")).select("source_key_sum").first().getDecimal(0))
        .isEqualByComparingTo("-50"); // -10..0 without -5
    assertThat(ReconcileFixture.SPARK.read().format("delta").load(f.report).where(col("run_id").equalTo(r.runId()))
        .count()).isEqualTo(7);
    ReconcileResult again = f.reconcile().bucketRows(1000).run();
    assertThat(again.buckets()).isEqualTo(2);
    assertThat(again.match()).isEqualTo(2);
    assertThat(ReconcileFixture.SPARK.read().format("delta").load(f.report).select("run_id").distinct().count())
        .isEqualTo(2);
  }

  @Test
  @Order(2)
  void rowsDeletedAddedOrChangedInSilverByHandAreReportedByKey() throws Exception {
    String silver = f.copyOfSilver("tampered");
    f.sql("DELETE FROM " + at(silver) + " WHERE order_id = 7 OR order_id IS NULL");
    f.sql("INSERT INTO " + at(silver) + " (order_id, code, status, _start_lsn) VALUES (999, 1, 'ghost', NULL)");
    f.sql("UPDATE " + at(silver) + " SET status = 'lost' WHERE order_id = -22");
    ReconcileResult r = f.reconcile().silver(silver).bucketRows(10).sample(1.0).run();
    // a changed value keeps the counts and sums: only the row by row comparison of its bucket finds it
    assertThat(ReconcileFixture.buckets(r)).containsExactly("null..null 1/0 MISMATCH",
        "-30..-20 10/10 MATCH", "-20..-10 10/10 MATCH", "-10..1 10/10 MATCH", "1..11 10/9 MISMATCH",
        "11..22 10/10 MATCH", "22..1000 8/9 MISMATCH");
    assertThat(ReconcileFixture.keyRows(r)).containsExactly(
        Map.entry("{\"order_id\":-22}", "RECORD_DIFF"),
        Map.entry("{\"order_id\":7}", "MISSING_TARGET"),
        Map.entry("{\"order_id\":999}", "MISSING_SOURCE"),
        Map.entry("{\"order_id\":null}", "MISSING_TARGET"));
    assertThat(ReconcileFixture.detail(r, "{\"order_id\":-22}")).matches("\\{\"silver_start_lsn\":\"0x[0-9A-F]{20}\","
        + "\"columns\":\"status\"}");
    assertThat(ReconcileFixture.detail(r, "{\"order_id\":7}")).isEqualTo("{}");
    assertThat(r.failures()).containsExactly(Map.entry("MISSING_SOURCE", 1L), Map.entry("MISSING_TARGET", 2L),
        Map.entry("RECORD_DIFF", 1L));
    assertThat(r.clean()).isFalse();
    // without the sample, the mismatched buckets are still compared; the changed value goes unseen
    ReconcileResult unsampled = f.reconcile().silver(silver).bucketRows(10).run();
    assertThat(unsampled.hashed()).isEqualTo(3);
    assertThat(ReconcileFixture.keyRows(unsampled)).containsOnlyKeys("{\"order_id\":7}", "{\"order_id\":999}",
        "{\"order_id\":null}");
  }

  @Test
  @Order(3)
  void argumentsAreCheckedBeforeAnythingIsRead() {
    assertThatThrownBy(() -> f.reconcile().bucketRows(0).run()).hasMessageContaining("MSSQL_CDC-800")
        .hasMessageContaining("bucketRows must be at least 1, not '0'");
    assertThatThrownBy(() -> f.reconcile().sample(1.5).run()).hasMessageContaining("MSSQL_CDC-800")
        .hasMessageContaining("sample must be between 0 and 1, not '1.5'");
    assertThatThrownBy(() -> f.reconcile().sample(Double.NaN).run()).hasMessageContaining("sample must be between");
    assertThatThrownBy(() -> Reconcile.builder(ReconcileFixture.SPARK).silver(f.silver).bronze(f.bronze)
        .controlTable(f.control).run()).hasMessageContaining("MSSQL_CDC-801").hasMessageContaining("pass options");
    assertThatThrownBy(() -> f.reconcile().option("snapshotChunks", "[]").run())
        .hasMessageContaining("option snapshotChunks is reconcile's own");
    assertThatThrownBy(() -> f.reconcile().option("fetchSise", "10").run()).hasMessageContaining("MSSQL_CDC-101")
        .hasMessageContaining("fetchSize");
    assertThatThrownBy(() -> f.reconcile().silver(f.bronze).run()).hasMessageContaining("must be different tables");
    String none = tmp.resolve("none").toString();
    assertThatThrownBy(() -> f.reconcile().silver(none).run()).hasMessageContaining("MSSQL_CDC-804")
        .hasMessageContaining("silver " + none + " does not exist");
    assertThatThrownBy(() -> f.reconcile().keys(List.of("id")).run()).hasMessageContaining("MSSQL_CDC-803")
        .hasMessageContaining("keys [id] are not columns of the source's snapshot schema (dbo_orders): [order_id, code,"
            + " status]");
    assertThatThrownBy(() -> f.reconcile().silver(f.facts).factsTable(null).run()).hasMessageContaining("MSSQL_CDC-805")
        .hasMessageContaining("is not a silver table written by ApplyChanges");
    assertThat(Files.exists(tmp.resolve("none"))).isFalse();
  }

  /**
   * A chunked snapshot S written by hand (the sink's chunked backfill is not on this branch): its
   * open row, chunk 0 [open, 10) announcing 3 rows of which bronze holds 2, no chunk 1, and chunk 2
   * [20, open), marked last, stamped below S.
   */
  @Test
  @Order(4)
  void aTamperedChunkedSnapshotIsReported() {
    String s = "0x0000002A000001000001";
    String l = "0x0000002A000001000011";
    String below = "0x00000029000001000001";
    String facts = at(f.facts);
    String target = "'" + f.bronze + "'";
    f.sql("INSERT INTO " + facts + " (app_id, rows, min_lsn, max_lsn, event, detail, target) VALUES"
        + " ('t', 0, '" + s + "', '" + s + "', 'snapshot_open', '{\"mode\":\"chunked\",\"kind\":\"bootstrap\","
        + "\"generation\":0,\"keys\":[\"order_id\"]}', " + target + "),"
        + " ('t', 3, '" + l + "', '" + l + "', 'snapshot_chunk', '{\"snapshot\":\"" + s + "\",\"wave\":0,\"chunk\":0,"
        + "\"lo\":null,\"hi\":10,\"last\":false}', " + target + "),"
        + " ('t', 1, '" + below + "', '" + l + "', 'snapshot_chunk', '{\"snapshot\":\"" + s + "\",\"wave\":0,"
        + "\"chunk\":2,\"lo\":20,\"hi\":null,\"last\":true}', " + target + ")");
    f.sql("INSERT INTO " + at(f.bronze) + " (_capture_instance, _start_lsn, _operation, order_id, code, status,"
        + " _snapshot, _chunk) VALUES ('dbo_orders', '" + l + "', 0, 1, 10, 'new', '" + s + "', 0),"
        + " ('dbo_orders', '" + l + "', 0, 2, 20, 'new', '" + s + "', 0)");
    ReconcileResult r = f.reconcile().bucketRows(1000).run();
    assertThat(ReconcileFixture.chunkRows(r)).containsExactlyInAnyOrder(
        "CHUNK_ROWS {\"snapshot\":\"" + s + "\",\"chunk\":0,\"facts_rows\":3,\"bronze_rows\":2}",
        "CHUNK_TILING {\"snapshot\":\"" + s + "\",\"chunk\":1,\"problem\":\"no 'snapshot_chunk' facts row\"}",
        "CHUNK_ROWS {\"snapshot\":\"" + s + "\",\"chunk\":2,\"facts_rows\":1,\"bronze_rows\":0}",
        "CHUNK_STAMP {\"snapshot\":\"" + s + "\",\"chunk\":2,\"lsn\":\"" + below + "\"}");
    assertThat(r.report().where(col("failure_type").equalTo("CHUNK_STAMP")).select("bucket_lo", "bucket_hi", "source_lsn")
        .first().toString()).isEqualTo("[20,null,null]");
    assertThat(r.failures()).containsEntry("CHUNK_ROWS", 2L).containsEntry("CHUNK_TILING", 1L)
        .containsEntry("CHUNK_STAMP", 1L);
    assertThat(r.mismatch()).as("the buckets are silver's and the source's: still equal").isZero();
  }
}
