package io.mssqlcdc.silver;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import io.mssqlcdc.lsn.Lsn;
import io.mssqlcdc.sink.SharedDeltaSpark;
import io.mssqlcdc.sink.facts.FactsColumn;
import io.mssqlcdc.sink.facts.FactsRow;
import io.mssqlcdc.sink.facts.FactsWriter;
import io.mssqlcdc.sink.tables.TableRef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * Whether a call that changed few keys scans all of silver (issue 10 item 6), measured in one run
 * against a baseline: a silver built from a bronze snapshot of N rows and clustered by key into F
 * files ({@code OPTIMIZE ... ZORDER BY (id)}, as a large silver table would be), and a shallow clone
 * of it at the same position; then, in each round, K updates of keys spread over the whole key
 * range appended to bronze and applied to both:
 * <ul>
 *   <li>{@code baseline}: the MERGE without the key predicate ({@code pruneByKeys(false)});
 *   <li>{@code pruned}: as {@code ApplyChanges} runs, with the predicate on the batch's keys.
 * </ul>
 * Reported per variant (median over rounds): the silver files the MERGE scanned for matches (Delta's
 * {@code numTargetFilesAfterSkipping}; for the one pass of decision 0020, the candidates it wrote again) and rewrote, the rows the call's tasks read (bronze's new
 * rows, the control and facts tables, silver's scanned files, and the rewritten files read again:
 * copy-on-write), and wall time, with ratios to the baseline. Both silvers end equal (checked).
 *
 * <p>Args: {@code [rows=1000000] [files=64] [keys=20] [rounds=3]}. Run:
 * {@code java -cp <silver test classpath> io.mssqlcdc.silver.ApplyChangesBench}
 */
public final class ApplyChangesBench {
  private static final LocalDateTime T = LocalDateTime.of(2026, 3, 1, 10, 0);

  private ApplyChangesBench() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int files = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    int keys = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    Path dir = Files.createTempDirectory("apply-changes-bench");
    System.out.println(run(SharedDeltaSpark.spark(), dir, rows, files, keys, rounds));
  }

  /**
   * What one variant's call cost: rows its tasks read, silver files its MERGE scanned for matches
   * (after Delta's file skipping) and rewrote, and wall time.
   */
  record Cost(long rowsRead, long filesInSilver, long filesScanned, long filesRewritten, long millis) {}

  /** Runs the bench; returns the report. */
  static String run(SparkSession spark, Path dir, int rows, int files, int keys, int rounds) {
    String bronze = dir.resolve("bronze").toString();
    String facts = dir.resolve("facts").toString();
    String control = dir.resolve("control").toString();
    String pruned = dir.resolve("silver_pruned").toString();
    String baseline = dir.resolve("silver_baseline").toString();
    String s1 = lsn(1);
    Dataset<Row> snapshot = spark.range(rows).select(lit("dbo_orders").as("_capture_instance"),
        lit(s1).as("_start_lsn"), lit(null).cast(DataTypes.StringType).as("_seqval"), lit(0).as("_operation"),
        lit(null).cast(DataTypes.IntegerType).as("_command_id"), lit(T).as("_commit_ts"),
        col("id").cast(DataTypes.LongType).as("id"), concat(lit("name-"), col("id").cast("string")).as("name"),
        col("id").multiply(3).cast(DataTypes.LongType).as("amount"),
        lit(null).cast(DataTypes.IntegerType).as("_batch_id"), lit(s1).as("_snapshot"),
        lit(null).cast(DataTypes.IntegerType).as("_chunk"));
    snapshot.write().format("delta").mode("append").save(bronze);
    FactsWriter.ensure(spark, TableRef.of(facts));
    FactsWriter.write(spark, TableRef.of(facts), List.of(new FactsRow().set(FactsColumn.APP_ID, "orders")
        .set(FactsColumn.EVENT, "bootstrap").set(FactsColumn.MAX_LSN, s1).set(FactsColumn.MIN_LSN, s1)
        .set(FactsColumn.TARGET, bronze)), null, 0);

    // One silver, clustered by key; the baseline is a shallow clone of it (the same files) with the
    // same position, so both variants start from the same layout.
    call(spark, bronze, pruned, control, facts, true).run();
    long bytes = ((Number) spark.sql("DESCRIBE DETAIL delta.`" + pruned + "`").first().getAs("sizeInBytes"))
        .longValue();
    spark.conf().set("spark.databricks.delta.optimize.maxFileSize", Long.toString(Math.max(1, bytes / files)));
    spark.sql("OPTIMIZE delta.`" + pruned + "` ZORDER BY (id)");
    spark.sql("CREATE TABLE delta.`" + baseline + "` SHALLOW CLONE delta.`" + pruned + "`");
    ControlRows.write(spark, TableRef.of(control), baseline,
        ControlRows.read(spark, TableRef.of(control), bronze, pruned).silver(), null, false);
    long filesNow = ((Number) spark.sql("DESCRIBE DETAIL delta.`" + pruned + "`").first().getAs("numFiles"))
        .longValue();

    Random rnd = new Random(7);
    List<Cost> p = new ArrayList<>();
    List<Cost> b = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      String l = lsn(10 + r);
      List<Long> ids = new ArrayList<>();
      for (int k = 0; k < keys; k++) {
        ids.add((long) ((rows / (double) keys) * k + rnd.nextInt(Math.max(1, rows / keys))));
      }
      spark.createDataset(ids, org.apache.spark.sql.Encoders.LONG()).toDF("id")
          .select(lit("dbo_orders").as("_capture_instance"), lit(l).as("_start_lsn"),
              concat(lit(l.substring(0, 14)), org.apache.spark.sql.functions.lpad(col("id").cast("string"), 8, "0"))
                  .as("_seqval"),
              lit(4).as("_operation"), lit(1).as("_command_id"), lit(T.plusMinutes(r + 1)).as("_commit_ts"),
              col("id"), lit("updated-" + r).as("name"), lit(-1L).as("amount"), lit(r).as("_batch_id"),
              lit(null).cast(DataTypes.StringType).as("_snapshot"), lit(null).cast(DataTypes.IntegerType).as("_chunk"))
          .write().format("delta").mode("append").save(bronze);
      // Alternate which variant goes first, so caches favour neither.
      if (r % 2 == 0) {
        b.add(measure(spark, call(spark, bronze, baseline, control, facts, false), baseline));
        p.add(measure(spark, call(spark, bronze, pruned, control, facts, true), pruned));
      } else {
        p.add(measure(spark, call(spark, bronze, pruned, control, facts, true), pruned));
        b.add(measure(spark, call(spark, bronze, baseline, control, facts, false), baseline));
      }
    }
    Dataset<Row> a = spark.read().format("delta").load(pruned);
    Dataset<Row> z = spark.read().format("delta").load(baseline);
    long same = a.exceptAll(z).count() + z.exceptAll(a).count();  // both directions: neither holds a row the other lacks
    if (same != 0) {
      throw new IllegalStateException("the two silvers differ in " + same + " rows");
    }
    Cost pm = median(p);
    Cost bm = median(b);
    return String.format(Locale.ROOT,
        "ApplyChangesBench: %,d rows in %d silver files, %d keys changed per call x %d rounds (median; silvers equal)%n"
            + "  baseline  %4d of %4d files scanned  %4d rewritten  %,12d rows read  %7d ms  x1.00%n"
            + "  pruned    %4d of %4d files scanned  %4d rewritten  %,12d rows read  %7d ms  files scanned x%.3f,"
            + " rows read x%.3f, time x%.2f of baseline%n",
        rows, filesNow, keys, rounds, bm.filesScanned(), bm.filesInSilver(), bm.filesRewritten(), bm.rowsRead(),
        bm.millis(), pm.filesScanned(), pm.filesInSilver(), pm.filesRewritten(), pm.rowsRead(), pm.millis(),
        (double) pm.filesScanned() / Math.max(1, bm.filesScanned()),
        (double) pm.rowsRead() / Math.max(1, bm.rowsRead()),
        (double) pm.millis() / Math.max(1, bm.millis()));
  }

  private static ApplyChanges.Builder call(SparkSession spark, String bronze, String silver, String control,
      String facts, boolean prune) {
    return ApplyChanges.builder(spark).bronze(bronze).target(silver).captureInstance("dbo_orders")
        .keys(List.of("id")).controlTable(control).factsTable(facts).pruneByKeys(prune);
  }

  private static Cost measure(SparkSession spark, ApplyChanges.Builder call, String silver) {
    AtomicLong read = new AtomicLong();
    AtomicLong scanned = new AtomicLong(-1);
    // The MERGE's own metric (numTargetFilesAfterSkipping) is not in the table history: read it from the
    // executed command. The silver MERGE is the one over the most files (the control table has one or two).
    AtomicLong before = new AtomicLong(-1);
    org.apache.spark.sql.util.QueryExecutionListener q = new org.apache.spark.sql.util.QueryExecutionListener() {
      @Override
      public void onSuccess(String funcName, org.apache.spark.sql.execution.QueryExecution qe, long durationNs) {
        if (qe.executedPlan() instanceof org.apache.spark.sql.execution.command.ExecutedCommandExec exec) {
          var m = exec.cmd().metrics();
          if (m.contains("numTargetFilesBeforeSkipping") && m.contains("numTargetFilesAfterSkipping")) {
            long b = m.apply("numTargetFilesBeforeSkipping").value();
            if (b > before.get()) {
              before.set(b);
              scanned.set(m.apply("numTargetFilesAfterSkipping").value());
            }
          }
        }
      }

      @Override
      public void onFailure(String funcName, org.apache.spark.sql.execution.QueryExecution qe, Exception e) {}
    };
    spark.listenerManager().register(q);
    SparkListener l = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd e) {
        if (e.taskMetrics() != null) {
          read.addAndGet(e.taskMetrics().inputMetrics().recordsRead());
        }
      }
    };
    spark.sparkContext().addSparkListener(l);
    long filesBefore = ((Number) spark.sql("DESCRIBE DETAIL delta.`" + silver + "`").first().getAs("numFiles"))
        .longValue();
    long t0 = System.nanoTime();
    try {
      call.run();
    } finally {
      try {
        spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("Spark's listener bus did not drain", e);
      }
      spark.sparkContext().removeSparkListener(l);
      spark.listenerManager().unregister(q);
    }
    long ms = (System.nanoTime() - t0) / 1_000_000;
    Row m = spark.sql("DESCRIBE HISTORY delta.`" + silver + "` LIMIT 1").first();
    scala.collection.Map<String, String> metrics = m.getMap(m.fieldIndex("operationMetrics"));
    long removed = Long.parseLong(metrics.get("numTargetFilesRemoved").getOrElse(() -> "0"));
    if (scanned.get() < 0) {
      // No MERGE command ran: the one pass (decision 0020) wrote every candidate file again.
      before.set(filesBefore);
      scanned.set(removed);
    }
    return new Cost(read.get(), before.get(), scanned.get(), removed, ms);
  }

  private static Cost median(List<Cost> cs) {
    long[] r = cs.stream().mapToLong(Cost::rowsRead).sorted().toArray();
    long[] n = cs.stream().mapToLong(Cost::filesInSilver).sorted().toArray();
    long[] s = cs.stream().mapToLong(Cost::filesScanned).sorted().toArray();
    long[] f = cs.stream().mapToLong(Cost::filesRewritten).sorted().toArray();
    long[] t = cs.stream().mapToLong(Cost::millis).sorted().toArray();
    return new Cost(r[r.length / 2], n[n.length / 2], s[s.length / 2], f[f.length / 2], t[t.length / 2]);
  }

  private static String lsn(int n) {
    return Lsn.of(0x2A, n * 0x10000L).hex();
  }

}
