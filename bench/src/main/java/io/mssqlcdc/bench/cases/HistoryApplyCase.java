package io.mssqlcdc.bench.cases;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lead;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;

import io.delta.tables.DeltaTable;
import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Checksums;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.JobLog;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.SilverWorkload;
import io.mssqlcdc.bench.cases.SilverApplyCase.Pipeline;
import io.mssqlcdc.bench.cases.SilverApplyCase.Timed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * Issue 31's bench figure: changes/s of {@code ApplyHistory} (the SCD type 2 history beside silver)
 * against what a user writes by hand, on the silver case's workload and real path (fake, stream,
 * bronze, facts, control: {@link SilverApplyCase.Pipeline}, untimed):
 * <ul>
 *   <li><b>full</b>: the whole bronze into a new history. By hand: every version at once, the
 *       changes ordered per key ({@code _start_lsn, _command_id, _seqval, _operation}) and each
 *       version's end taken from the next change with {@code lead()}, before-images and deletes
 *       left out, written to a new table of the history's columns.
 *   <li><b>incremental</b>: a batch of {@code silverBatch} change rows into the full history. By
 *       hand, Delta's documented SCD type 2 MERGE: the batch ranked to its latest change per key,
 *       staged twice (once with the key as the merge key, to close the current version; once with a
 *       NULL merge key, joined to the current versions, to insert the new one), one MERGE.
 * </ul>
 * The workload changes a key at most once per transaction and per incremental batch, so the
 * hand-written recipes, which keep one version per key per batch, must end equal to the history
 * (checksums over the key, the captured columns and both LSNs). No target: issue 31 asks for the
 * figure; the ratio says what the exactly-once bookkeeping costs beside a recipe that has none.
 */
public final class HistoryApplyCase implements BenchCase {
  private static final List<String> COLUMNS = List.of("id", "name", "amount", "qty", "__from_lsn", "__to_lsn");
  public static final String HAND_FULL = "hand-written versions by lead()";
  public static final String HAND_MERGE = "hand-written SCD2 MERGE";

  @Override
  public String name() {
    return "history";
  }

  @Override
  public List<Figure> run(BenchContext ctx) throws Exception {
    SilverWorkload w = new SilverWorkload(ctx.config().silverChanges(), ctx.config().silverBatch());
    Pipeline p = SilverApplyCase.streamed(ctx, w, "case history", "history-fake");
    List<Figure> out = new ArrayList<>();
    String[] last = new String[2];
    out.add(full(ctx, p, w, last));
    out.add(incremental(ctx, p, w, last));
    return out;
  }

  private Figure full(BenchContext ctx, Pipeline p, SilverWorkload w, String[] last) throws Exception {
    SparkSession spark = ctx.spark();
    List<List<JobLog.Job>> jobs = new ArrayList<>();
    List<List<JobLog.Job>> handJobs = new ArrayList<>();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("ApplyHistory", rep -> {
      String target = ctx.scratch("history-full").toString();
      last[0] = target;
      Timed t = SilverApplyCase.call(ctx, p.history(target)::run);
      jobs.add(t.jobs());
      return new Sample(t.nanos(), w.changeRows(), Map.of());
    });
    variants.put(HAND_FULL, rep -> {
      String table = ctx.scratch("history-hand-full").toString();
      last[1] = table;
      Timed t = SilverApplyCase.timed(ctx, () -> versions(spark.read().format("delta").load(p.bronze)).write()
          .format("delta").save(table));
      handJobs.add(t.jobs());
      return new Sample(t.nanos(), w.changeRows(), Map.of());
    });
    Log.info("case history, full: %,d change rows over %,d keys", w.changeRows(), w.keys());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().heavyReps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("ApplyHistory", Checksums.of(spark.read().format("delta").load(last[0]), COLUMNS));
    checks.put(HAND_FULL, Checksums.of(spark.read().format("delta").load(last[1]), COLUMNS));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("changeRows", w.changeRows());
    details.put("versions", spark.read().format("delta").load(last[0]).count());
    details.put("seconds", s.get("ApplyHistory").stream().map(Sample::seconds).toList());
    details.put("handWrittenSeconds", s.get(HAND_FULL).stream().map(Sample::seconds).toList());
    details.putAll(SilverApplyCase.jobDetails(jobs.subList(ctx.config().warmups(), jobs.size())));
    return Figure.compared("history", "full: " + w.changeRows() / 1000 + "k changes over " + w.keys() / 1000
            + "k keys", "changes/s", Comparison.rates(s.get("ApplyHistory")),
        "every version at once: lead() over the changes per key, written to a new table",
        Comparison.rates(s.get(HAND_FULL)), null,
        "ApplyHistory's first call (control, facts, bronze, versions, MERGE, position) against the versions computed"
            + " by hand from the same bronze into a new table",
        details, checks).withJobs(SilverApplyCase.perCall(jobs, ctx), SilverApplyCase.perCall(handJobs, ctx));
  }

  private Figure incremental(BenchContext ctx, Pipeline p, SilverWorkload w, String[] last) throws Exception {
    SparkSession spark = ctx.spark();
    String candidate = last[0];
    String hand = ctx.scratch("history-hand-incremental").toString();
    spark.sql("CREATE TABLE delta.`" + hand + "` SHALLOW CLONE delta.`" + candidate + "`");
    Map<Integer, String> batches = new HashMap<>();
    List<List<JobLog.Job>> jobs = new ArrayList<>();
    List<List<JobLog.Job>> handJobs = new ArrayList<>();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("ApplyHistory", rep -> {
      p.batch(rep, batches);
      Timed t = SilverApplyCase.call(ctx, p.history(candidate)::run);
      jobs.add(t.jobs());
      return new Sample(t.nanos(), w.batchSize(), Map.of());
    });
    variants.put(HAND_MERGE, rep -> {
      p.batch(rep, batches);
      String[] range = p.ranges.get(rep);
      Timed t = SilverApplyCase.timed(ctx, () -> scd2Merge(spark, hand, spark.read().format("delta").load(p.bronze)
          .where(col("_start_lsn").gt(range[0]).and(col("_start_lsn").leq(range[1])))));
      handJobs.add(t.jobs());
      return new Sample(t.nanos(), w.batchSize(), Map.of());
    });
    Log.info("case history, incremental: %,d change rows per batch", w.batchSize());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("batches", (long) batches.size());
    checks.put("ApplyHistory", Checksums.of(spark.read().format("delta").load(candidate), COLUMNS));
    checks.put(HAND_MERGE, Checksums.of(spark.read().format("delta").load(hand), COLUMNS));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("batchRows", w.batchSize());
    details.put("seconds", s.get("ApplyHistory").stream().map(Sample::seconds).toList());
    details.put("handWrittenSeconds", s.get(HAND_MERGE).stream().map(Sample::seconds).toList());
    details.putAll(SilverApplyCase.jobDetails(jobs.subList(ctx.config().warmups(), jobs.size())));
    details.put("lastMerge", SilverApplyCase.mergeMetrics(spark, candidate));
    details.put("handWrittenMerge", SilverApplyCase.mergeMetrics(spark, hand));
    return Figure.compared("history", "incremental: " + w.batchSize() + " changes into " + w.keys() / 1000
            + "k keys' history", "changes/s", Comparison.rates(s.get("ApplyHistory")),
        "Delta's documented SCD type 2 MERGE of the batch's latest change per key",
        Comparison.rates(s.get(HAND_MERGE)), null,
        "a small batch into the full history, against the hand-written SCD2 MERGE over the batch's bronze rows"
            + " (by LSN range) into a shallow clone of the same history",
        details, checks).withJobs(SilverApplyCase.perCall(jobs, ctx), SilverApplyCase.perCall(handJobs, ctx));
  }

  /** The change order within a key, oldest first (the workload changes a key at most once per transaction). */
  private static WindowSpec perKey() {
    return Window.partitionBy(col("id")).orderBy(col("_start_lsn"), col("_command_id"), col("_seqval"),
        col("_operation"));
  }

  /**
   * Every version of every key, by hand: the inserts and after-images open a version, the next change of the key
   * (a later image or a delete) closes it; before-images and deletes are no versions.
   */
  static Dataset<Row> versions(Dataset<Row> bronze) {
    return bronze.where(col("_operation").isin(1, 2, 4))
        .withColumn("__to_lsn", lead(col("_start_lsn"), 1).over(perKey()))
        .withColumn("__valid_to", lead(col("_commit_ts"), 1).over(perKey()))
        .where(col("_operation").notEqual(1))
        .select(col("id"), col("name"), col("amount"), col("qty"), col("_commit_ts").as("__valid_from"),
            col("__valid_to"), col("_start_lsn").as("__from_lsn"), col("__to_lsn"), lit(false).as("__is_deleted"),
            lit(false).as("__gap"));
  }

  /**
   * Delta's documented SCD type 2 MERGE (the "staged updates" recipe), for a batch of changes: its latest change
   * per key; each staged with its key as the merge key (it closes the key's current version) and, when it is no
   * delete and the key has a current version, again with a NULL merge key (it inserts the new version).
   */
  static void scd2Merge(SparkSession spark, String table, Dataset<Row> changes) {
    Dataset<Row> latest = changes
        .withColumn("_rn", row_number().over(Window.partitionBy(col("id")).orderBy(col("_start_lsn").desc(),
            col("_command_id").desc(), col("_seqval").desc(), col("_operation").desc())))
        .where(col("_rn").equalTo(1))
        .select(col("id"), col("name"), col("amount"), col("qty"), col("_start_lsn"), col("_commit_ts"),
            col("_operation"));
    Dataset<Row> current = spark.read().format("delta").load(table).where(col("__to_lsn").isNull()).select("id");
    Dataset<Row> reopen = latest.join(current, "id").where(col("_operation").notEqual(1))
        .select(lit(null).cast("int").as("merge_key"), col("*"));
    Dataset<Row> staged = latest.select(col("id").as("merge_key"), col("*")).unionByName(reopen);
    Map<String, String> insert = new LinkedHashMap<>();
    for (String c : List.of("id", "name", "amount", "qty")) {
      insert.put(c, "s." + c);
    }
    insert.put("__valid_from", "s._commit_ts");
    insert.put("__valid_to", "NULL");
    insert.put("__from_lsn", "s._start_lsn");
    insert.put("__to_lsn", "NULL");
    insert.put("__is_deleted", "false");
    insert.put("__gap", "false");
    DeltaTable.forPath(spark, table).as("t")
        .merge(staged.as("s"), "t.id = s.merge_key AND t.__to_lsn IS NULL")
        .whenMatched().updateExpr(Map.of("__to_lsn", "s._start_lsn", "__valid_to", "s._commit_ts"))
        .whenNotMatched("s._operation <> 1").insertExpr(insert)
        .execute();
  }
}
