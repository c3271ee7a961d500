package io.mssqlcdc.catalog;

import static io.mssqlcdc.fake.FakeRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.mssqlcdc.connector.CdcOffset;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.SharedDeltaSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CALL procedures over the fake, each against what the Java API does. */
@Tag("spark")
class CdcProceduresTest {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  @TempDir static Path dir;
  static FakeCdcDatabase db;
  static Lsn last;

  @BeforeAll
  static void setUp() {
    db = FakeCdcDatabase.create(dir.resolve("db"));
    db.createTable("dbo", "orders", "order_id int", "status varchar(20)").key("order_id");
    db.enableCdc("dbo", "orders");
    db.createTable("sales", "lines", "line_id int", "qty int").key("line_id");
    db.enableCdc("sales", "lines");
    db.commitAt(LocalDateTime.of(2026, 3, 1, 10, 0, 1), tx -> tx.insert("sales.lines", row("line_id", 7, "qty", 3)));
    db.commitAt(LocalDateTime.of(2026, 3, 1, 10, 0, 5), tx -> tx.insert("orders", row("order_id", 1, "status", "new"))
        .insert("orders", row("order_id", 2, "status", "paid")));
    last = db.commitAt(LocalDateTime.of(2026, 3, 1, 10, 1, 12),
        tx -> tx.update("orders", row("order_id", 1, "status", "shipped")));
    SPARK.conf().set("spark.sql.catalog.cdc_p", CdcCatalog.class.getName());
    SPARK.conf().set("spark.sql.catalog.cdc_p.backend", "fake");
    SPARK.conf().set("spark.sql.catalog.cdc_p.fakePath", db.path().toString());
  }

  private static String p(String name) {
    return "'" + dir.resolve(name) + "'";
  }

  /** Waits for an AvailableNow query started by a CALL (spark.streams lists it until it ends). */
  private static void awaitEnd(String queryId) throws Exception {
    StreamingQuery q = SPARK.streams().get(queryId);
    if (q != null) {
      q.awaitTermination();
    }
  }

  private static Row call(String sql) {
    List<Row> rows = SPARK.sql(sql).collectAsList();
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  @Test
  void thePipelineRunsThroughCall() throws Exception {
    Row started = call("CALL cdc_p.system.start_stream(table => 'dbo.orders', bronze => " + p("bronze")
        + ", checkpoint => " + p("chk") + ", appId => 'orders', factsTable => " + p("facts")
        + ", controlTable => " + p("control") + ", granularity => 'minute', trigger => 'processingTime=1 second')");
    assertThat(started.schema().fieldNames())
        .containsExactly("query_id", "run_id", "name", "table", "capture_instance", "bronze");
    StreamingQuery q = SPARK.streams().get(started.getString(0));
    assertThat(q).isNotNull();
    assertThat(q.runId().toString()).isEqualTo(started.getString(1));
    assertThat(started.getString(2)).isEqualTo("orders").isEqualTo(q.name());
    assertThat(started.getString(3)).isEqualTo("dbo.orders");
    assertThat(started.getString(4)).isEqualTo("dbo_orders");
    q.processAllAvailable();
    q.stop();
    // the tracking writes on a thread of its own: await_tracking waits for its last verdict
    Row awaited = call("CALL cdc_p.system.await_tracking(queryId => '" + started.getString(0).toUpperCase()
        + "', timeoutSeconds => 120)");
    assertThat(awaited.schema().fieldNames()).containsExactly("done", "table_name", "finalized_until",
        "tracking_error");
    assertThat(awaited.getBoolean(0)).isTrue();
    assertThat(awaited.getString(1)).isEqualTo(dir.resolve("bronze").toString());
    assertThat(awaited.get(2)).isEqualTo(LocalDateTime.of(2026, 3, 1, 10, 1));
    assertThat(awaited.isNullAt(3)).isTrue();
    assertThat(SPARK.read().format("delta").load(dir.resolve("bronze").toString())
        .selectExpr("order_id", "status", "_operation").orderBy("_operation", "order_id", "status")
        .collectAsList().stream().map(Row::toString).toList())
        .containsExactly("[1,new,2]", "[2,paid,2]", "[1,new,3]", "[1,shipped,4]");

    Row applied = call("CALL cdc_p.system.apply_changes(table => 'dbo.orders', bronze => " + p("bronze")
        + ", silver => " + p("silver") + ", controlTable => " + p("control") + ", factsTable => " + p("facts")
        + ", granularity => 'minute')");
    assertThat(applied.schema().fieldNames()).containsExactly("rebuilt", "applied_lsn", "finalized_until",
        "bronze_found");
    assertThat(applied.getString(1)).isEqualTo(last.hex());
    assertThat(applied.getBoolean(3)).isTrue();
    assertThat(SPARK.read().format("delta").load(dir.resolve("silver").toString()).selectExpr("order_id", "status")
        .orderBy("order_id").collectAsList().stream().map(Row::toString).toList())
        .containsExactly("[1,shipped]", "[2,paid]");

    // The history beside silver: every version of each key, from the same bronze (docs/HISTORY.md).
    String history = "CALL cdc_p.system.apply_history(table => 'dbo.orders', bronze => " + p("bronze")
        + ", history => " + p("history") + ", controlTable => " + p("control") + ", factsTable => " + p("facts")
        + ", keys => array('order_id'), granularity => 'minute', trackHistoryColumns => array('status'))";
    Row versions = call(history);
    assertThat(versions.schema().fieldNames()).containsExactly("rebuilt", "applied_lsn", "finalized_until",
        "bronze_found");
    assertThat(versions.getString(1)).isEqualTo(last.hex());
    List<String> historyRows = List.of("[1,new,2026-03-01T10:00:05,2026-03-01T10:01:12," + last.hex() + "]",
        "[1,shipped,2026-03-01T10:01:12,null,null]", "[2,paid,2026-03-01T10:00:05,null,null]");
    assertThat(SPARK.read().format("delta").load(dir.resolve("history").toString())
        .selectExpr("order_id", "status", "__valid_from", "__valid_to", "__to_lsn").orderBy("order_id", "__valid_from")
        .collectAsList().stream().map(Row::toString).toList()).containsExactlyElementsOf(historyRows);
    assertThat(call(history).getString(1)).as("a rerun applies nothing").isEqualTo(last.hex());
    assertThat(SPARK.read().format("delta").load(dir.resolve("history").toString()).count()).isEqualTo(3);

    Row bronzeVerdict = call("CALL cdc_p.system.finalized_until(controlTable => " + p("control") + ", tableName => "
        + p("bronze") + ")");
    assertThat(bronzeVerdict.get(0)).isEqualTo(
        Finalization.finalizedUntil(SPARK, dir.resolve("control").toString(), dir.resolve("bronze").toString())
            .orElse(null));

    Row reconciled = call("CALL cdc_p.system.reconcile(table => 'dbo.orders', silver => " + p("silver")
        + ", bronze => " + p("bronze") + ", controlTable => " + p("control") + ", sample => 1.0, seed => 7)");
    assertThat(reconciled.getBoolean(reconciled.fieldIndex("clean"))).as(reconciled.getString(
        reconciled.fieldIndex("summary"))).isTrue();
    assertThat(reconciled.getString(reconciled.fieldIndex("silver_lsn"))).isEqualTo(last.hex());
    assertThat(reconciled.getInt(reconciled.fieldIndex("mismatch"))).isZero();
  }

  @Test
  void finalizedUntilAndIsFinalReadTheControlTable() {
    String control = dir.resolve("control-verdicts").toString();
    Finalization.advance(SPARK, control, "silver.t", CdcOffset.of(last, Instant.parse("2026-03-01T10:17:42Z"), null),
        "hour");
    Row v = call("CALL cdc_p.system.finalized_until(controlTable => '" + control + "', tableName => 'silver.t')");
    assertThat(v.get(0)).isEqualTo(LocalDateTime.of(2026, 3, 1, 10, 0));
    assertThat(call("CALL cdc_p.system.finalized_until('" + control + "', 'silver.other')").isNullAt(0)).isTrue();
    // A CALL runs once, when the statement is analyzed, and its rows are a command's result: Spark Connect
    // then answers spark.sql(CALL ...) with those rows instead of running the statement again per action.
    org.apache.spark.sql.Dataset<Row> once = SPARK.sql("CALL cdc_p.system.finalized_until('" + control
        + "', 'silver.t')");
    assertThat(((org.apache.spark.sql.classic.Dataset<Row>) once).queryExecution().commandExecuted())
        .isInstanceOf(org.apache.spark.sql.catalyst.plans.logical.CommandResult.class);
    assertThat(call("CALL cdc_p.system.is_final(controlTable => '" + control + "', tableName => 'silver.t',"
        + " periodEnd => '2026-03-01T10:00:00')").getBoolean(0)).isTrue();
    assertThat(call("CALL cdc_p.system.is_final(controlTable => '" + control + "', tableName => 'silver.t',"
        + " periodEnd => '2026-03-01T12:00:00+01:00')").getBoolean(0)).isFalse();
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.is_final(controlTable => '" + control
        + "', tableName => 'silver.t', periodEnd => 'soon')"))
        .hasMessageContaining("MSSQL_CDC-761");
  }

  @Test
  void snapshotAndPreflightReturnTheirRows() {
    Row pre = call("CALL cdc_p.system.preflight(table => 'dbo.orders')");
    assertThat(pre.getString(0)).isEqualTo("dbo.orders");
    assertThat(pre.getString(1)).isEqualTo("dbo_orders");
    assertThat(pre.getString(3)).isEqualTo(last.hex());
    // A capture instance (no dot) names its table too, matched exactly then ignoring case (mssql_cdc's Python
    // builders pass their captureInstance option so over Spark Connect).
    Row byInstance = call("CALL cdc_p.system.preflight(table => 'SALES_LINES')");
    assertThat(byInstance.getString(0)).isEqualTo("sales.lines");
    assertThat(byInstance.getString(1)).isEqualTo("sales_lines");

    Row s = call("CALL cdc_p.system.snapshot(table => 'dbo.orders', bronze => " + p("snap") + ")");
    assertThat(s.getString(0)).isEqualTo(last.hex());
    assertThat(SPARK.read().format("delta").load(dir.resolve("snap").toString()).selectExpr("order_id", "status",
            "_operation").orderBy("order_id").collectAsList().stream().map(Row::toString).toList())
        .containsExactly("[1,shipped,0]", "[2,paid,0]");
    // Taken once: a second call returns the same stamp and reads nothing.
    assertThat(call("CALL cdc_p.system.snapshot(table => 'dbo.orders', bronze => " + p("snap") + ")").getString(0))
        .isEqualTo(last.hex());
    assertThat(SPARK.read().format("delta").load(dir.resolve("snap").toString()).count()).isEqualTo(2L);
  }

  @Test
  @Tag("slow") // two streams and a chunked bootstrap: about a minute on 2 cores
  void startManyStartsAStreamPerTableAndBackfillReadsAChunkedBootstrap() throws Exception {
    List<Row> started = SPARK.sql("CALL cdc_p.system.start_many(tables => array('dbo.orders', 'sales.lines'),"
        + " bronze => '" + dir.resolve("many") + "/{ci}', checkpoint => '" + dir.resolve("many-chk") + "/{ci}',"
        + " appId => '{ci}-many', trigger => 'processingTime=1 second')").collectAsList();
    assertThat(started).extracting(r -> r.getString(0) + " " + r.getString(1) + " " + r.getString(4))
        .containsExactly("dbo.orders dbo_orders dbo_orders-many", "sales.lines sales_lines sales_lines-many");
    for (Row r : started) {
      StreamingQuery q = SPARK.streams().get(r.getString(2));
      q.processAllAvailable();
      q.stop();
    }
    assertThat(SPARK.read().format("delta").load(dir.resolve("many").resolve("dbo_orders").toString()).count())
        .isEqualTo(4L);
    assertThat(SPARK.read().format("delta").load(dir.resolve("many").resolve("sales_lines").toString())
        .selectExpr("line_id", "qty", "_operation").collectAsList().stream().map(Row::toString).toList())
        .containsExactly("[7,3,2]");

    Row chunked = call("CALL cdc_p.system.start_stream(table => 'dbo.orders', bronze => " + p("chunked")
        + ", checkpoint => " + p("chunked-chk") + ", appId => 'chunked', factsTable => " + p("chunked-facts")
        + ", bootstrap => true, snapshot => 'chunked', trigger => 'availableNow')");
    awaitEnd(chunked.getString(0));
    Row filled = call("CALL cdc_p.system.backfill(table => 'dbo.orders', bronze => " + p("chunked")
        + ", appId => 'chunked', factsTable => " + p("chunked-facts") + ", chunkRows => 1)");
    assertThat(filled.schema().fieldNames()).containsExactly("snapshot", "chunks_done", "chunks_total", "done",
        "paused", "state", "reason");
    assertThat(filled.getString(0)).isEqualTo(last.hex());
    assertThat(filled.getBoolean(3)).as(filled.toString()).isTrue();
    assertThat(filled.getString(5)).isEqualTo("done");
    assertThat(SPARK.read().format("delta").load(dir.resolve("chunked").toString()).where("_operation = 0")
        .selectExpr("order_id", "status").orderBy("order_id").collectAsList().stream().map(Row::toString).toList())
        .containsExactly("[1,shipped]", "[2,paid]");
  }

  @Test
  void badArgumentsFailWithTheJavaApisCodesAndMessages() {
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.apply_changes(table => 'dbo.orders', bronze => "
        + p("b2") + ", silver => " + p("s2") + ", controlTable => " + p("c2") + ", granularity => 'week')"))
        .hasMessageContaining("MSSQL_CDC-760")
        .hasMessageContaining("granularity must be one of ('minute', 'hour', 'day'), not 'week'");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.start_stream(table => 'dbo.orders', bronze => "
        + p("b2") + ", checkpoint => " + p("k2") + ", appId => 'o2', onDataLoss => 'sometimes')"))
        .hasMessageContaining("MSSQL_CDC-100")
        .hasMessageContaining("Option 'onDataLoss' must be 'fail' or 'resnapshot', not 'sometimes'");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.start_stream(table => 'dbo.orders', bronze => "
        + p("b2") + ", checkpoint => " + p("k2") + ", appId => 'o2', options => map('maxComitsPerBatch', '2'))"))
        .hasMessageContaining("MSSQL_CDC-101").hasMessageContaining("did you mean 'maxCommitsPerBatch'");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.start_stream(table => 'dbo.orders', bronze => "
        + p("b2") + ", checkpoint => " + p("k2") + ", appId => 'o2', factsCommitIntervalSeconds => -1)"))
        .hasMessageContaining("MSSQL_CDC-100")
        .hasMessageContaining("factsCommitIntervalSeconds").hasMessageContaining("-1.0");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.preflight(table => 'nope_orders')"))
        .hasMessageContaining("MSSQL_CDC-820")
        .hasMessageContaining("Table 'nope_orders' is not a CDC-enabled table of catalog 'cdc_p'");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.start_stream(table => 'dbo.nope', bronze => "
        + p("b2") + ", checkpoint => " + p("k2") + ", appId => 'o2')"))
        .hasMessageContaining("MSSQL_CDC-820")
        .hasMessageContaining("Table 'dbo.nope' is not a CDC-enabled table of catalog 'cdc_p' (its tables:"
            + " dbo.orders, sales.lines)");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.start_stream(table => 'dbo.orders', bronze => "
        + p("b2") + ", checkpoint => " + p("k2") + ")"))
        .hasMessageContaining("REQUIRED_PARAMETER_NOT_FOUND").hasMessageContaining("`appId`");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.await_tracking(queryId => 'nope')"))
        .hasMessageContaining("MSSQL_CDC-823")
        .hasMessageContaining("await_tracking: queryId must be the query_id of a stream this server started with"
            + " controlTable (start_stream or start_many) since it started, not 'nope'.");
    assertThatThrownBy(() -> SPARK.sql("CALL cdc_p.system.no_such_thing()"))
        .hasMessageContaining("FAILED_TO_LOAD_ROUTINE").rootCause()
        .hasMessageContaining("MSSQL_CDC-821")
        .hasMessageContaining("Procedure 'system.no_such_thing' not found in catalog 'cdc_p'");
    assertThat(SPARK.streams().active()).isEmpty();
    assertThat(Files.exists(dir.resolve("b2"))).isFalse();
  }
}
