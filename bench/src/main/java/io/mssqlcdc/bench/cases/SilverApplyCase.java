package io.mssqlcdc.bench.cases;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.struct;

import io.delta.tables.DeltaTable;
import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Checksums;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Fixtures;
import io.mssqlcdc.bench.JobLog;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.SilverWorkload;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.finalization.Finalization;
import io.mssqlcdc.finalization.TrackingAttachment;
import io.mssqlcdc.silver.ApplyChanges;
import io.mssqlcdc.silver.ApplyResult;
import io.mssqlcdc.sink.pipeline.CdcStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Issue 13 case 4: changes/s of {@link ApplyChanges} against a plain Delta MERGE of the same
 * changes, already ranked to the latest image per key (the baseline gets the ranking for free: it
 * is computed before its timer starts and written to a Delta table).
 *
 * <p>Bronze is written by the real path: the {@link SilverWorkload} committed into a fake database
 * (written once, kept under the data directory), streamed by {@link CdcStream} into bronze and facts,
 * tracked into a control table (bronze's verdict), all before anything is timed. Two figures:
 * <ul>
 *   <li><b>full</b>: the whole bronze ({@code silverChanges} change rows over a fifth as many keys)
 *       applied to a new silver: ApplyChanges' first call (a rebuild from every change) against the
 *       MERGE of the ranked rows into a new empty table of silver's columns; each side creates its
 *       table inside its timer; a new pair of tables per repetition;
 *   <li><b>full: ceiling</b>: the same plain MERGE after one read of every bronze row (into
 *       {@code noop}) against the plain MERGE alone: what the baseline's own MERGE reaches when,
 *       like an apply from bronze, it must read the changes first (it is handed the ranking still);
 *   <li><b>incremental</b>: a batch of {@code silverBatch} change rows (committed into the fake and
 *       streamed into bronze per repetition, untimed) applied to the full silver, clustered by key
 *       ({@code OPTIMIZE ZORDER BY (id)}: a large silver would be), against the MERGE of the batch's
 *       ranked rows into a shallow clone of that same silver. Both silvers advance batch by batch in
 *       step.
 * </ul>
 * All sides must end equal (checksums); the Spark jobs each ApplyChanges call ran are reported.
 */
public final class SilverApplyCase implements BenchCase {
  /** Issue 25: ApplyChanges at least as fast as the hand-written ranking + MERGE. */
  static final double TARGET = 1.0;
  private static final List<String> KEYS = List.of("id");
  private static final String CEILING = "read + plain MERGE";
  /** The user's alternative (Delta's documented foreachBatch recipe): a window ranking, then one MERGE. */
  static final String HAND = "hand-written ranking + MERGE";
  private static final String HAND_LABEL = "the changes ranked per key with row_number() over a window, then one MERGE";
  private static final List<String> COLUMNS = List.of("id", "name", "amount", "qty", "_start_lsn", "_commit_ts");

  @Override
  public String name() {
    return "silver";
  }

  @Override
  public List<Figure> run(BenchContext ctx) throws Exception {
    SilverWorkload w = new SilverWorkload(ctx.config().silverChanges(), ctx.config().silverBatch());
    Pipeline p = streamed(ctx, w, "case 4 silver", "silver-fake");
    List<Figure> out = new ArrayList<>();
    Full full = full(ctx, p, w);
    out.addAll(full.figures());
    out.addAll(incremental(ctx, p, w, full));
    return out;
  }

  /**
   * The workload's fake database (written once under the data directory, copied to {@code scratch}) streamed into a
   * new bronze by the real path, untimed; checks bronze holds every change row.
   */
  static Pipeline streamed(BenchContext ctx, SilverWorkload w, String caseName, String scratch) throws Exception {
    Path data = ctx.config().data().toAbsolutePath().resolve("silver-" + w.changes()).resolve("fake");
    Path cached = Fixtures.ensure(data, w.descriptor(), () -> w.write(data));
    Pipeline p = new Pipeline(ctx, w, copy(cached, ctx.scratch(scratch)));
    long t0 = System.nanoTime();
    p.stream();
    long bronzeRows = p.added().count();
    Log.info("%s: bronze holds %,d change rows over %,d keys (real path: fake -> stream -> bronze, %.1f s)", caseName,
        bronzeRows, w.keys(), (System.nanoTime() - t0) / 1e9);
    if (bronzeRows != w.changeRows()) {
      throw new IllegalStateException("bronze holds " + bronzeRows + " rows, the workload wrote " + w.changeRows());
    }
    return p;
  }

  /** The last full silvers of each side (the incremental figure starts from them). */
  private record Full(List<Figure> figures, String candidate, String baseline, String handWritten) {}

  private Full full(BenchContext ctx, Pipeline p, SilverWorkload w) {
    SparkSession spark = ctx.spark();
    String ranked = ctx.scratch("silver-ranked").toString();
    latestImages(spark.read().format("delta").load(p.bronze)).write().format("delta").save(ranked);
    StructType silverSchema = silverSchema(spark.read().format("delta").load(p.bronze).schema());
    String[] last = new String[4];
    List<List<JobLog.Job>> jobs = new ArrayList<>();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("ApplyChanges", rep -> {
      String silver = ctx.scratch("silver-full").toString();
      last[0] = silver;
      Timed t = call(ctx, p.apply(silver)::run);
      jobs.add(t.jobs());
      return new Sample(t.nanos(), w.changeRows(), Map.of());
    });
    variants.put("plain MERGE", rep -> fullMerge(ctx, w, silverSchema, ranked, "merge-full", last, 1, null));
    // The ceiling: what no apply from bronze can avoid beyond the baseline, one read of every change.
    variants.put(CEILING, rep -> fullMerge(ctx, w, silverSchema, ranked, "merge-full-read", last, 2, p.bronze));
    List<List<JobLog.Job>> handJobs = new ArrayList<>();
    variants.put(HAND, rep -> {
      String table = ctx.scratch("hand-full").toString();
      last[3] = table;
      Timed t = timed(ctx, () -> {
        spark.createDataFrame(List.of(), silverSchema).write().format("delta").save(table);
        handWritten(spark, table, spark.read().format("delta").load(p.bronze));
      });
      handJobs.add(t.jobs());
      return new Sample(t.nanos(), w.changeRows(), Map.of());
    });
    Log.info("case 4 silver, full: %,d change rows over %,d keys", w.changeRows(), w.keys());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().heavyReps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("bronzeRows", w.changeRows());
    checks.put("keys", (long) w.keys());
    checks.put("ApplyChanges", Checksums.of(spark.read().format("delta").load(last[0]), COLUMNS));
    checks.put("plain MERGE", Checksums.of(spark.read().format("delta").load(last[1]), COLUMNS));
    checks.put(CEILING, Checksums.of(spark.read().format("delta").load(last[2]), COLUMNS));
    checks.put(HAND, Checksums.of(spark.read().format("delta").load(last[3]), COLUMNS));
    checks.put("qtySum", spark.read().format("delta").load(last[0]).agg(org.apache.spark.sql.functions.sum("qty"))
        .first().getLong(0));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("changeRows", w.changeRows());
    details.put("keys", w.keys());
    details.put("seconds", s.get("ApplyChanges").stream().map(Sample::seconds).toList());
    details.put("baselineSeconds", s.get("plain MERGE").stream().map(Sample::seconds).toList());
    details.put("ceilingSeconds", s.get(CEILING).stream().map(Sample::seconds).toList());
    details.put("handWrittenSeconds", s.get(HAND).stream().map(Sample::seconds).toList());
    details.putAll(jobDetails(jobs.subList(ctx.config().warmups(), jobs.size())));
    details.put("handWrittenJobsPerCall", handJobs.subList(ctx.config().warmups(), handJobs.size()).stream()
        .map(List::size).toList());
    details.put("lastMerge", mergeMetrics(spark, last[0]));
    details.put("baselineMerge", mergeMetrics(spark, last[1]));
    Figure f = Figure.compared("4 silver", "full: " + w.changeRows() / 1000 + "k changes over " + w.keys() / 1000
            + "k keys", "changes/s", Comparison.rates(s.get("ApplyChanges")), HAND_LABEL,
        Comparison.rates(s.get(HAND)), TARGET,
        "ApplyChanges' first call (control, facts, bronze probe, ranking, MERGE, position, verdict) against the"
            + " hand-written recipe over the same bronze into a new table",
        details, checks).withJobs(perCall(jobs, ctx), perCall(handJobs, ctx));
    Figure limit = Figure.compared("4 silver", "full: limit, plain MERGE of ranked rows", "changes/s",
        Comparison.rates(s.get("ApplyChanges")), "plain Delta MERGE of the ranked rows",
        Comparison.rates(s.get("plain MERGE")), null,
        "against a MERGE of the latest image per key computed before the timer (the ranking free): the limit",
        Map.of(), Map.of());
    Figure ceiling = Figure.compared("4 silver", "full: ceiling, every change read", "changes/s",
        Comparison.rates(s.get(CEILING)), "plain Delta MERGE of the ranked rows", Comparison.rates(s.get("plain MERGE")),
        null, "the plain MERGE after one read of bronze's change rows (into noop): what the baseline's MERGE reaches"
            + " when, like an apply from bronze, it must read every change first (the ranking is still free)",
        Map.of(), Map.of());
    return new Full(List.of(f, limit, ceiling), last[0], last[1], last[3]);
  }

  /**
   * The plain MERGE of {@code ranked} into a new empty table (kept in {@code last[slot]}), timed with
   * the table's creation; when {@code readFirst} is given, after one read of it into {@code noop}.
   */
  private static Sample fullMerge(BenchContext ctx, SilverWorkload w, StructType silverSchema, String ranked,
      String name, String[] last, int slot, String readFirst) throws Exception {
    SparkSession spark = ctx.spark();
    String table = ctx.scratch(name).toString();
    last[slot] = table;
    long nanos = Comparison.time(() -> {
      if (readFirst != null) {
        spark.read().format("delta").load(readFirst).write().format("noop").mode("overwrite").save();
      }
      spark.createDataFrame(List.of(), silverSchema).write().format("delta").save(table);
      plainMerge(spark, table, ranked);
      return null;
    }).nanos();
    return new Sample(nanos, w.changeRows(), Map.of());
  }

  private List<Figure> incremental(BenchContext ctx, Pipeline p, SilverWorkload w, Full full) {
    SparkSession spark = ctx.spark();
    String candidate = full.candidate();
    // Cluster the full silver by key into files of about 1/32 of it, as a large silver would be (OPTIMIZE ZORDER
    // now and then); the baseline is a shallow clone of it: the same files.
    long bytes = ((Number) spark.sql("DESCRIBE DETAIL delta.`" + candidate + "`").first().getAs("sizeInBytes"))
        .longValue();
    String was = spark.conf().get("spark.databricks.delta.optimize.maxFileSize", null);
    spark.conf().set("spark.databricks.delta.optimize.maxFileSize", Long.toString(Math.max(1024, bytes / 32)));
    try {
      spark.sql("OPTIMIZE delta.`" + candidate + "` ZORDER BY (id)");
    } finally {
      if (was == null) {
        spark.conf().unset("spark.databricks.delta.optimize.maxFileSize");
      } else {
        spark.conf().set("spark.databricks.delta.optimize.maxFileSize", was);
      }
    }
    String baseline = ctx.scratch("merge-incremental").toString();
    spark.sql("CREATE TABLE delta.`" + baseline + "` SHALLOW CLONE delta.`" + candidate + "`");
    String hand = ctx.scratch("hand-incremental").toString();
    spark.sql("CREATE TABLE delta.`" + hand + "` SHALLOW CLONE delta.`" + candidate + "`");
    long files = ((Number) spark.sql("DESCRIBE DETAIL delta.`" + candidate + "`").first().getAs("numFiles"))
        .longValue();

    Map<Integer, String> rankedByRep = new HashMap<>();
    List<List<JobLog.Job>> jobs = new ArrayList<>();
    List<Map<String, Object>> merges = new ArrayList<>();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("ApplyChanges", rep -> {
      p.batch(rep, rankedByRep);
      Timed t = call(ctx, p.apply(candidate)::run);
      jobs.add(t.jobs());
      merges.add(mergeMetrics(spark, candidate));
      return new Sample(t.nanos(), w.batchSize(), Map.of());
    });
    variants.put("plain MERGE", rep -> {
      String ranked = p.batch(rep, rankedByRep);
      long nanos = Comparison.time(() -> {
        plainMerge(spark, baseline, ranked);
        return null;
      }).nanos();
      return new Sample(nanos, w.batchSize(), Map.of());
    });
    List<List<JobLog.Job>> handJobs = new ArrayList<>();
    variants.put(HAND, rep -> {
      p.batch(rep, rankedByRep);
      String[] range = p.ranges.get(rep);
      Timed t = timed(ctx, () -> handWritten(spark, hand, spark.read().format("delta").load(p.bronze)
          .where(col("_start_lsn").gt(range[0]).and(col("_start_lsn").leq(range[1])))));
      handJobs.add(t.jobs());
      return new Sample(t.nanos(), w.batchSize(), Map.of());
    });
    Log.info("case 4 silver, incremental: %,d change rows per batch into %,d keys in %d files", w.batchSize(),
        w.keys(), files);
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("batches", (long) rankedByRep.size());
    checks.put("ApplyChanges", Checksums.of(spark.read().format("delta").load(candidate), COLUMNS));
    checks.put("plain MERGE", Checksums.of(spark.read().format("delta").load(baseline), COLUMNS));
    checks.put(HAND, Checksums.of(spark.read().format("delta").load(hand), COLUMNS));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("batchRows", w.batchSize());
    details.put("handWrittenSeconds", s.get(HAND).stream().map(Sample::seconds).toList());
    details.put("silverFiles", files);
    details.put("seconds", s.get("ApplyChanges").stream().map(Sample::seconds).toList());
    details.put("baselineSeconds", s.get("plain MERGE").stream().map(Sample::seconds).toList());
    details.putAll(jobDetails(jobs.subList(ctx.config().warmups(), jobs.size())));
    details.put("handWrittenJobsPerCall", handJobs.subList(ctx.config().warmups(), handJobs.size()).stream()
        .map(List::size).toList());
    details.put("merges", merges.subList(ctx.config().warmups(), merges.size()));
    details.put("baselineMerge", mergeMetrics(spark, baseline));
    return List.of(Figure.compared("4 silver", "incremental: " + w.batchSize() + " changes into " + w.keys() / 1000
            + "k keys", "changes/s", Comparison.rates(s.get("ApplyChanges")), HAND_LABEL,
        Comparison.rates(s.get(HAND)), TARGET,
        "a small batch into a silver clustered by key (" + files + " files): the per-call overhead and the pruning"
            + " by the batch's keys, against the hand-written recipe over the batch's bronze rows (by LSN range)",
        details, checks).withJobs(perCall(jobs, ctx), perCall(handJobs, ctx)),
        Figure.compared("4 silver", "incremental: limit, plain MERGE of ranked rows", "changes/s",
            Comparison.rates(s.get("ApplyChanges")), "plain Delta MERGE of the ranked rows",
            Comparison.rates(s.get("plain MERGE")), null,
            "against a MERGE of the batch's latest images computed before the timer (the ranking free): the limit",
            Map.of(), Map.of()));
  }

  /** The real path: the fake (a copy, batches are committed into it), the stream, bronze, facts and control. */
  static final class Pipeline {
    final BenchContext ctx;
    final SilverWorkload workload;
    final Path fake;
    final String bronze;
    final String facts;
    final String control;
    final String checkpoint;
    final TrackingAttachment tracking;
    /** The greatest _start_lsn bronze held after the last stream run. */
    String head;
    /** Per incremental batch, its bronze rows' _start_lsn range: (after, up to]. */
    final Map<Integer, String[]> ranges = new HashMap<>();

    Pipeline(BenchContext ctx, SilverWorkload workload, Path fake) {
      this.ctx = ctx;
      this.workload = workload;
      this.fake = fake;
      this.bronze = ctx.scratch("silver-bronze").toString();
      this.facts = ctx.scratch("silver-facts").toString();
      this.control = ctx.scratch("silver-control").toString();
      this.checkpoint = ctx.scratch("silver-ckpt").toString();
      this.tracking = Finalization.tracking(control, "hour");
    }

    Map<String, String> options() {
      Map<String, String> o = new LinkedHashMap<>();
      o.put("backend", "fake");
      o.put("fakePath", fake.toString());
      o.put("captureInstance", SilverWorkload.CAPTURE_INSTANCE);
      o.put("numPartitions", "2");
      return o;
    }

    /** Streams what the fake holds into bronze (AvailableNow) and waits for bronze's verdict. */
    void stream() throws Exception {
      StreamingQuery q = CdcStream.builder(ctx.spark()).options(options()).target(bronze).appId("bench-silver")
          .checkpoint(checkpoint).factsTable(facts).trigger("availableNow").attach(tracking).toDelta();
      q.awaitTermination();
      if (!tracking.joinAll(Duration.ofMinutes(5))) {
        throw new IllegalStateException("the finalization tracker did not finish");
      }
    }

    /** The rows the last {@link #stream} added to bronze (those after {@link #head}); moves {@link #head}. */
    Dataset<Row> added() {
      Dataset<Row> all = ctx.spark().read().format("delta").load(bronze);
      Dataset<Row> rows = head == null ? all : all.where(col("_start_lsn").gt(head));
      Row top = rows.agg(max(col("_start_lsn"))).first();
      if (!top.isNullAt(0)) {
        head = top.getString(0);
      }
      return rows;
    }

    /** {@code ApplyHistory} (issue 31) from the same bronze, control and facts: {@link HistoryApplyCase}. */
    io.mssqlcdc.silver.ApplyHistory.Builder history(String target) {
      return io.mssqlcdc.silver.ApplyHistory.builder(ctx.spark()).bronze(bronze).target(target)
          .captureInstance(SilverWorkload.CAPTURE_INSTANCE).keys(KEYS).controlTable(control).factsTable(facts)
          .granularity("hour");
    }

    ApplyChanges.Builder apply(String silver) {
      return ApplyChanges.builder(ctx.spark()).bronze(bronze).target(silver)
          .captureInstance(SilverWorkload.CAPTURE_INSTANCE).keys(KEYS).controlTable(control).factsTable(facts)
          .granularity("hour");
    }

    /**
     * Batch {@code rep}, once: committed into the fake, streamed into bronze, and its latest images
     * per key written to a Delta table for the baseline (all untimed); returns that table.
     */
    String batch(int rep, Map<Integer, String> done) throws Exception {
      String ranked = done.get(rep);
      if (ranked != null) {
        return ranked;
      }
      try (FakeCdcDatabase db = FakeCdcDatabase.open(fake)) {
        workload.batch(db, rep);
      }
      stream();
      String from = head;
      Dataset<Row> added = added();
      ranges.put(rep, new String[] {from, head});
      long n = added.count();
      if (n != workload.batchSize()) {
        throw new IllegalStateException("batch " + rep + " added " + n + " bronze rows, not " + workload.batchSize());
      }
      ranked = ctx.scratch("silver-ranked-batch").toString();
      latestImages(added).write().format("delta").save(ranked);
      done.put(rep, ranked);
      return ranked;
    }
  }

  /** A call's wall time and the Spark jobs it ran. */
  record Timed(long nanos, List<JobLog.Job> jobs) {}

  static Timed call(BenchContext ctx, java.util.function.Supplier<ApplyResult> call) {
    long fromMs = System.currentTimeMillis();
    long t0 = System.nanoTime();
    ApplyResult r = call.get();
    long nanos = System.nanoTime() - t0;
    drain(ctx.spark());
    long toMs = System.currentTimeMillis();
    if (!r.bronzeFound()) {
      throw new IllegalStateException("the call did not find bronze");
    }
    return new Timed(nanos, ctx.jobs().between(fromMs, toMs));
  }

  /** {@code body}'s wall time and the Spark jobs it ran (the hand-written recipe, counted like a call). */
  static Timed timed(BenchContext ctx, Runnable body) {
    long fromMs = System.currentTimeMillis();
    long t0 = System.nanoTime();
    body.run();
    long nanos = System.nanoTime() - t0;
    drain(ctx.spark());
    return new Timed(nanos, ctx.jobs().between(fromMs, System.currentTimeMillis()));
  }

  /** The median of the measured calls' Spark jobs (the warm-ups left out), as text. */
  static String perCall(List<List<JobLog.Job>> calls, BenchContext ctx) {
    List<List<JobLog.Job>> measured = calls.subList(Math.min(ctx.config().warmups(), calls.size()), calls.size());
    if (measured.isEmpty()) {
      return null;
    }
    return String.format(java.util.Locale.ROOT, "%.0f",
        io.mssqlcdc.bench.Stats.median(measured.stream().map(c -> (double) c.size()).toList()));
  }

  private static void drain(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
  }

  /** Jobs per call (each repetition) and, for the last, milliseconds by call site. */
  static Map<String, Object> jobDetails(List<List<JobLog.Job>> calls) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("jobsPerCall", calls.stream().map(List::size).toList());
    if (!calls.isEmpty()) {
      d.put("lastCallJobMsByCallSite", JobLog.byCallSite(calls.get(calls.size() - 1)));
    }
    return d;
  }

  /** The operation metrics of a Delta table's last commit (a MERGE's files and rows, its scan and rewrite times). */
  static Map<String, Object> mergeMetrics(SparkSession spark, String table) {
    Row h = DeltaTable.forPath(spark, table).history(1).first();
    scala.collection.Map<String, String> m = h.getMap(h.fieldIndex("operationMetrics"));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("operation", h.getString(h.fieldIndex("operation")));
    for (String k : List.of("numTargetFilesRemoved", "numTargetFilesAdded", "numTargetRowsCopied",
        "numTargetRowsUpdated", "numTargetRowsDeleted", "numTargetRowsInserted", "numSourceRows", "executionTimeMs",
        "scanTimeMs", "rewriteTimeMs")) {
      if (m != null && m.contains(k)) {
        out.put(k, Long.parseLong(m.apply(k)));
      }
    }
    return out;
  }

  /**
   * The latest image per key of {@code bronze}'s rows, ranked by the bench itself (not by silver's
   * code): per key the greatest {@code (_start_lsn, _command_id, _seqval, _operation)}; the
   * captured columns, {@code _start_lsn}, {@code _commit_ts}, {@code _operation}.
   */
  static Dataset<Row> latestImages(Dataset<Row> bronze) {
    Column newest = max(struct(col("_start_lsn"), col("_command_id"), col("_seqval"), col("_operation"), col("name"),
        col("amount"), col("qty"), col("_commit_ts"))).as("m");
    return bronze.groupBy(col("id")).agg(newest).select(col("id"), col("m.name").as("name"),
        col("m.amount").as("amount"), col("m.qty").as("qty"), col("m._start_lsn").as("_start_lsn"),
        col("m._commit_ts").as("_commit_ts"), col("m._operation").as("_operation"));
  }

  /**
   * The user's alternative, as Delta's documentation writes it for a foreachBatch: rank the changes
   * per key with a window, {@code row_number() over (partition by key order by _start_lsn desc,
   * _command_id desc, _seqval desc, _operation desc)}, keep the first, then one MERGE with the same
   * delete/update/insert clauses as {@link #plainMerge}.
   */
  static void handWritten(SparkSession spark, String table, Dataset<Row> changes) {
    Dataset<Row> latest = changes
        .withColumn("_rn", row_number().over(Window.partitionBy(col("id")).orderBy(col("_start_lsn").desc(),
            col("_command_id").desc(), col("_seqval").desc(), col("_operation").desc())))
        .where(col("_rn").equalTo(1))
        .select(col("id"), col("name"), col("amount"), col("qty"), col("_start_lsn"), col("_commit_ts"),
            col("_operation"));
    merge(spark, table, latest);
  }

  /** Silver's columns for bronze's schema: the captured columns, then {@code _start_lsn}, {@code _commit_ts}. */
  private static StructType silverSchema(StructType bronze) {
    StructType s = new StructType();
    for (String c : COLUMNS) {
      StructField f = bronze.apply(c);
      s = s.add(c, f.dataType(), true);
    }
    return s;
  }

  /** The plain MERGE: matched and deleted (1, or a key's last before-image 3): delete; matched: update; else insert. */
  private static void plainMerge(SparkSession spark, String table, String ranked) {
    merge(spark, table, spark.read().format("delta").load(ranked));
  }

  private static void merge(SparkSession spark, String table, Dataset<Row> source) {
    Map<String, String> set = new LinkedHashMap<>();
    for (String c : COLUMNS) {
      set.put(c, "s." + c);
    }
    DeltaTable.forPath(spark, table).as("t")
        .merge(source.as("s"), "t.id = s.id")
        .whenMatched("s._operation IN (1, 3)").delete()
        .whenMatched().updateExpr(set)
        .whenNotMatched("s._operation NOT IN (1, 3)").insertExpr(set)
        .execute();
  }

  static Path copy(Path from, Path to) {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path src : walk.toList()) {
        if (src.getFileName().toString().equals("READY")) {
          continue; // the fixture's marker, not the database's
        }
        Path dst = to.resolve(from.relativize(src).toString());
        if (Files.isDirectory(src)) {
          Files.createDirectories(dst);
        } else {
          Files.copy(src, dst);
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
