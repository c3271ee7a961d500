package io.mssqlcdc.reconcile;

import static org.apache.spark.sql.functions.col;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.TrackingAttachment;
import io.mssqlcdc.silver.ApplyChanges;
import io.mssqlcdc.silver.ApplyResult;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * A fake-backed pipeline for reconcile tests: the fake database, bronze (CdcStream, AvailableNow,
 * with finalization tracking), silver (ApplyChanges), facts, control and report tables under one
 * directory.
 */
final class ReconcileFixture {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  final Path dir;
  final FakeCdcDatabase db;
  final String captureInstance;
  final String bronze;
  final String facts;
  final String control;
  final String checkpoint;
  final String silver;
  final String report;
  final TrackingAttachment tracking;

  ReconcileFixture(Path dir, String captureInstance) {
    this.dir = dir;
    this.db = FakeCdcDatabase.create(dir.resolve("db"));
    this.captureInstance = captureInstance;
    this.bronze = dir.resolve("bronze").toString();
    this.facts = dir.resolve("facts").toString();
    this.control = dir.resolve("control").toString();
    this.checkpoint = dir.resolve("ckpt").toString();
    this.silver = dir.resolve("silver").toString();
    this.report = dir.resolve("report").toString();
    this.tracking = Finalization.tracking(control, "minute");
  }

  Map<String, String> options() {
    return Map.of("backend", "fake", "fakePath", db.path().toString(), "captureInstance", captureInstance);
  }

  /** Runs the stream into bronze (AvailableNow) and waits for its verdict. */
  void stream() throws Exception {
    StreamingQuery q = CdcStream.builder(SPARK).options(options()).target(bronze).appId("t").checkpoint(checkpoint)
        .factsTable(facts).trigger("availableNow").attach(tracking).toDelta();
    q.awaitTermination();
    if (!tracking.joinAll(Duration.ofMinutes(3))) {
      throw new AssertionError("the finalization tracker did not finish");
    }
  }

  /** Applies bronze to silver. */
  ApplyResult apply() {
    return ApplyChanges.builder(SPARK).bronze(bronze).target(silver).captureInstance(captureInstance)
        .controlTable(control).factsTable(facts).options(options()).granularity("minute").run();
  }

  /** Stream then apply. */
  void pipeline() throws Exception {
    stream();
    apply();
  }

  /** A reconcile of silver, every MATCH bucket left unsampled unless a test says otherwise. */
  Reconcile.Builder reconcile() {
    return Reconcile.builder(SPARK).options(options()).silver(silver).bronze(bronze).controlTable(control)
        .factsTable(facts).reportTable(report).sample(0).seed(7);
  }

  /**
   * A copy of silver (its files, so its Delta log too) at {@code name}, with silver's control row
   * copied under the copy's name: a silver to tamper with by hand while silver stays clean.
   */
  String copyOfSilver(String name) throws java.io.IOException {
    Path from = Path.of(silver);
    Path to = dir.resolve(name);
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        java.nio.file.Files.copy(p, to.resolve(from.relativize(p).toString()));
      }
    }
    Row r = SPARK.read().format("delta").load(control).where(col("table_name").equalTo(silver)).first();
    sql("INSERT INTO " + at(control) + " (table_name, applied_lsn, snapshot_lsn) VALUES ('" + to + "', '"
        + r.getAs("applied_lsn") + "', " + (r.getAs("snapshot_lsn") == null ? "NULL" : "'" + r.getAs("snapshot_lsn")
        + "'") + ")");
    return to.toString();
  }

  void sql(String statement) {
    SPARK.sql(statement);
  }

  static String at(String path) {
    return "delta.`" + path + "`";
  }

  /** The run's key rows: key JSON → failure type. */
  static Map<String, String> keyRows(ReconcileResult r) {
    Map<String, String> out = new TreeMap<>();
    for (Row row : r.report().where(col("key").isNotNull()).select("key", "failure_type").collectAsList()) {
      if (out.put(row.getString(0), row.getString(1)) != null) {
        throw new AssertionError("key " + row.getString(0) + " reported twice");
      }
    }
    return out;
  }

  /** The run's key row of {@code key}: its detail. */
  static String detail(ReconcileResult r, String key) {
    return r.report().where(col("key").equalTo(key)).select("detail").first().getString(0);
  }

  /** The run's bucket rows: status list in bound order, as "lo..hi rows/rows STATUS". */
  static List<String> buckets(ReconcileResult r) {
    List<String> out = new ArrayList<>();
    for (Row row : r.report().where(col("status").isNotNull())
        .select("bucket_lo", "bucket_hi", "source_rows", "silver_rows", "status").collectAsList()) {
      out.add(row.get(0) + ".." + row.get(1) + " " + row.get(2) + "/" + row.get(3) + " " + row.get(4));
    }
    return out;
  }

  /** The run's chunk rows: "TYPE chunk detail". */
  static List<String> chunkRows(ReconcileResult r) {
    List<String> out = new ArrayList<>();
    for (Row row : r.report().where(col("failure_type").startsWith("CHUNK_")).orderBy("detail")
        .select("failure_type", "detail").collectAsList()) {
      out.add(row.getString(0) + " " + row.getString(1));
    }
    return out;
  }
}
