package io.mssqlcdc.silver;

import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.TrackingAttachment;
import io.mssqlcdc.sink.BronzeImages;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;

/**
 * A fake-backed pipeline for silver tests: the fake database, bronze, facts and control tables
 * under one directory, the stream (CdcStream with finalization tracking, AvailableNow), and
 * readers of silver and of the fake's table that do not use the code under test.
 */
final class SilverFixture {
  static final SparkSession SPARK = SharedDeltaSpark.spark();

  final Path dir;
  final FakeCdcDatabase db;
  final String bronze;
  final String facts;
  final String control;
  final String checkpoint;
  final TrackingAttachment tracking;

  SilverFixture(Path dir) {
    this.dir = dir;
    this.db = FakeCdcDatabase.create(dir.resolve("db"));
    this.bronze = dir.resolve("bronze").toString();
    this.facts = dir.resolve("facts").toString();
    this.control = dir.resolve("control").toString();
    this.checkpoint = dir.resolve("ckpt").toString();
    this.tracking = Finalization.tracking(control, "minute");
  }

  /** The stream's reader options. */
  Map<String, String> options(String captureInstance) {
    return Map.of("backend", "fake", "fakePath", db.path().toString(), "captureInstance", captureInstance);
  }

  /** The stream into bronze, tracked into the control table. */
  CdcStream.Builder stream(String captureInstance) {
    return CdcStream.builder(SPARK).options(options(captureInstance)).target(bronze).appId("orders")
        .checkpoint(checkpoint).factsTable(facts).trigger("availableNow").attach(tracking);
  }

  /** Runs a started AvailableNow query to its end and waits for its verdict. */
  void await(StreamingQuery q) throws Exception {
    q.awaitTermination();
    if (!tracking.joinAll(Duration.ofMinutes(3))) {
      throw new AssertionError("the finalization tracker did not finish");
    }
  }

  /** ApplyChanges from bronze into {@code silver}, with the stream's facts, control table and options. */
  ApplyChanges.Builder apply(String silver, String captureInstance) {
    return ApplyChanges.builder(SPARK).bronze(bronze).target(silver).captureInstance(captureInstance)
        .controlTable(control).factsTable(facts).options(options(captureInstance)).granularity("minute");
  }

  String silver(String name) {
    return dir.resolve(name).toString();
  }

  /** Silver's rows: key column's value → the other columns' values, as text. */
  static Map<String, List<String>> rows(String silver, String key, List<String> columns) {
    Map<String, List<String>> out = new TreeMap<>();
    for (Row r : SPARK.read().format("delta").load(silver).collectAsList()) {
      List<String> v = new ArrayList<>();
      for (String c : columns) {
        v.add(String.valueOf((Object) r.getAs(c)));
      }
      String k = String.valueOf((Object) r.getAs(key));
      if (out.put(k, v) != null) {
        throw new AssertionError(silver + " holds key " + k + " twice");
      }
    }
    return out;
  }

  /** The fake table's current rows, the same shape. */
  Map<String, List<String>> table(String key, List<String> columns) {
    return BronzeImages.table(db, "dbo", "orders", key, columns);
  }

  /** A Delta table's newest version. */
  static long version(String table) {
    return io.delta.tables.DeltaTable.forPath(SPARK, table).history(1).select("version").first().getLong(0);
  }

  /** A table's row of the control table, as {@code column → value}; empty when it has none. */
  Map<String, Object> controlRow(String table) {
    List<Row> rows = SPARK.read().format("delta").load(control).where(functions.col("table_name").equalTo(table))
        .collectAsList();
    if (rows.isEmpty()) {
      return Map.of();
    }
    Row r = rows.get(0);
    Map<String, Object> m = new TreeMap<>();
    for (String f : r.schema().fieldNames()) {
      m.put(f, r.getAs(f) == null ? "null" : r.getAs(f));
    }
    return m;
  }

  /** Bronze's verdict in the control table; null when none. */
  LocalDateTime bronzeVerdict() {
    Object v = controlRow(bronze).get("finalized_until");
    return v instanceof LocalDateTime t ? t : null;
  }
}
