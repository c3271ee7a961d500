package io.mssqlcdc.bench.cases;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Checksums;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Fixture;
import io.mssqlcdc.bench.JobLog;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.SparkRuns;
import io.mssqlcdc.bench.SparkRuns.Batch;
import io.mssqlcdc.bench.SparkRuns.StreamRun;
import io.mssqlcdc.sink.DeltaSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Issue 13 case 3, with issue 25's baselines: the throughput of a running stream, source →
 * {@link DeltaSink} → bronze + facts. Per repetition one new query (Trigger.AvailableNow, a new
 * checkpoint and app id, as a new query would) reads the fixture in a fixed number of
 * micro-batches ({@code maxCommitsPerBatch}); its steady batches (batch 1 on) are timed by their
 * {@code triggerExecution} (the rate of a running stream), with a second line that adds the time
 * from the last batch's end to the query's termination (every streaming variant alike: DeltaSink's
 * last facts commit, made beside the next batch in a running stream, is waited for there), and its
 * first batch (the sink's rewind check, the tables' checks and,
 * in the warm-up, their creation) is reported apart. Compared, interleaved in the same run, with
 * what a user would pick instead for the same guarantee:
 *
 * <ul>
 *   <li>(the target's baseline) the same query into Delta's own streaming sink,
 *       {@code writeStream.format("delta")}: exactly once through the query's batch id;
 *   <li>the same query with a {@code foreachBatch} append carrying {@code txnAppId}/{@code txnVersion}
 *       (Delta's idempotent writes, the recipe of Delta's documentation);
 * </ul>
 *
 * and, as limit lines: the same rows appended from cached DataFrames (one append per batch, timed
 * from the second append on: no source, no stream, no idempotence) and the same query with a bare
 * {@code foreachBatch} append (the sink's own cost; against the cached appends the "ceiling" any
 * sink reading this source can reach).
 *
 * <p>The default runs cover 4,000 rows a batch (narrow) and 400 (wide) in {@link #BATCHES} batches
 * ({@code bronzeBatches}: more batches of the same size),
 * and the large narrow sizes of {@code bronzeBatchRows} (100,000 and 1,000,000 rows a batch) in
 * {@link #LARGE_BATCHES}: fixed per-batch and per-row costs are different problems. Each streaming
 * variant's Spark jobs per steady batch (and in its first batch) are counted from the session's
 * job log by the micro-batch that started them.
 *
 * <p>Each run appends to the same tables (created by the first run).
 */
public final class BronzeIngestCase implements BenchCase {
  static final double TARGET = 0.9;
  /** Micro-batches per run of the standard sizes (the fixtures hold 20 commits: 4 a batch). */
  public static final int BATCHES = 5;
  /** Micro-batches per run of the large sizes (12 commits: 4 a batch). */
  public static final int LARGE_BATCHES = 3;

  static final String CACHED = "delta append";
  static final String SINK = "DeltaSink";
  static final String BARE = "foreachBatch append";
  static final String DELTA_STREAM = "Delta streaming sink";
  static final String IDEMPOTENT = "idempotent foreachBatch";
  /** The variants, in the order their tables' checks are reported. */
  public static final List<String> VARIANTS = List.of(CACHED, SINK, BARE, DELTA_STREAM, IDEMPOTENT);
  private static final List<String> STREAMS = List.of(SINK, BARE, DELTA_STREAM, IDEMPOTENT);

  @Override
  public String name() {
    return "bronze";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    List<Figure> out = new ArrayList<>();
    int batches = ctx.config().bronzeBatches();
    int narrow = ctx.config().bronzeNarrowRows();
    int wide = ctx.config().bronzeWideRows();
    // More batches than BATCHES: the same batch size (a fifth of the fixture's rows, 4 commits), more of them.
    out.addAll(compare(ctx, batches == BATCHES ? Fixture.narrow(narrow)
        : Fixture.narrow(narrow / BATCHES * batches, Math.max(1, narrow / 20)), "narrow, 5 columns" + runs(batches), "narrow", batches));
    out.addAll(compare(ctx, batches == BATCHES ? Fixture.wide(wide)
        : Fixture.wide(wide / BATCHES * batches, Math.max(1, wide / 20)), "wide, 90 columns" + runs(batches), "wide", batches));
    for (int perBatch : ctx.config().bronzeBatchRows()) {
      // 4 commits a batch, LARGE_BATCHES batches: every micro-batch holds exactly perBatch rows
      int perCommit = Math.max(1, perBatch / 4);
      Fixture f = Fixture.narrow(perCommit * 4 * LARGE_BATCHES, perCommit);
      String size = String.format(Locale.ROOT, "%,d", perCommit * 4);
      out.addAll(compare(ctx, f, "narrow, " + size + " rows a batch", "narrow " + size, LARGE_BATCHES));
    }
    return out;
  }

  private static String runs(int batches) {
    return batches == BATCHES ? "" : ", " + batches + " batches a run";
  }

  private List<Figure> compare(BenchContext ctx, Fixture f, String label, String shortLabel, int batches) {
    SparkSession spark = ctx.spark();
    Path parquet = ctx.streamParquet(f);
    int commits = (f.rows() + f.rowsPerCommit() - 1) / f.rowsPerCommit();
    int perBatch = Math.max(1, (commits + batches - 1) / batches);
    Map<String, String> options = new LinkedHashMap<>(ctx.sourceOptions(f, 2));
    options.put("maxCommitsPerBatch", Integer.toString(perBatch));
    // The baseline's appends: the rows of each micro-batch (commits perBatch at a time, ids in commit order).
    long sliceRows = (long) perBatch * f.rowsPerCommit();
    Dataset<Row> all = spark.read().parquet(parquet.toString());
    List<Dataset<Row>> slices = new ArrayList<>();
    List<Long> sliceCounts = new ArrayList<>();
    for (long lo = 0; lo < f.rows(); lo += sliceRows) {
      Dataset<Row> slice = all.filter(col("id").geq(lo).and(col("id").lt(lo + sliceRows)))
          .persist(StorageLevel.MEMORY_ONLY());
      sliceCounts.add(slice.count());
      slices.add(slice);
    }
    Map<String, String> tables = new LinkedHashMap<>();
    tables.put(SINK, ctx.scratch("bronze").toString());
    tables.put(CACHED, ctx.scratch("delta-append").toString());
    tables.put(BARE, ctx.scratch("foreach-append").toString());
    tables.put(DELTA_STREAM, ctx.scratch("delta-stream").toString());
    tables.put(IDEMPOTENT, ctx.scratch("idempotent-append").toString());
    String facts = ctx.scratch("facts").toString();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put(CACHED, rep -> {
      List<Batch> appends = new ArrayList<>();
      for (int b = 0; b < slices.size(); b++) {
        Dataset<Row> slice = slices.get(b);
        long nanos = Comparison.time(() -> {
          slice.write().format("delta").mode("append").save(tables.get(CACHED));
          return null;
        }).nanos();
        appends.add(new Batch(b, sliceCounts.get(b), nanos));
      }
      return steady(appends, 0, null);
    });
    variants.put(SINK, rep -> {
      DeltaSink sink = DeltaSink.builder().target(tables.get(SINK)).factsTable(facts).appId("bench-" + rep)
          .factsCommitInterval(java.time.Duration.ofMillis(ctx.config().factsCommitMillis())).build();
      return stream(ctx, SparkRuns.availableNowForeach(source(spark, options), ctx.scratch("ckpt"), sink));
    });
    variants.put(BARE, rep -> stream(ctx, SparkRuns.availableNowForeach(source(spark, options), ctx.scratch("ckpt"),
        (batch, id) -> batch.write().format("delta").mode("append").save(tables.get(BARE)))));
    variants.put(DELTA_STREAM, rep -> stream(ctx,
        SparkRuns.availableNowToDelta(source(spark, options), ctx.scratch("ckpt"), tables.get(DELTA_STREAM))));
    // Each repetition is a new query whose batch ids start at 0 again: its own txnAppId
    variants.put(IDEMPOTENT, rep -> stream(ctx, SparkRuns.availableNowForeach(source(spark, options),
        ctx.scratch("ckpt"), (batch, id) -> batch.write().format("delta").mode("append")
            .option("txnAppId", "bench-idempotent-" + rep).option("txnVersion", id).save(tables.get(IDEMPOTENT)))));
    Log.info("case 3 bronze ingest, %s: %,d rows in %d commits, %d micro-batches of up to %d commits", label, f.rows(),
        commits, slices.size(), perBatch);
    int runs = ctx.config().warmups() + ctx.config().heavyReps();
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().heavyReps(), variants);
    slices.forEach(Dataset::unpersist);
    List<String> columns = Arrays.asList(all.schema().fieldNames());
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", (long) f.rows());
    checks.put("runs", (long) runs);
    checks.put("plannedBatches", (long) slices.size());
    for (String v : VARIANTS) {
      checks.put("batchRows." + v, s.get(v).stream().map(x -> x.checks().get("batchRows")).toList());
    }
    checks.put("source", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    tables.forEach((v, path) -> checks.put(v.equals(SINK) ? "bronze" : v,
        Checksums.of(spark.read().format("delta").load(path), columns)));
    Row fr = spark.read().format("delta").load(facts).agg(count(lit(1)), sum(col("rows")), sum(col("inserts"))).first();
    checks.put("facts", Map.of("rows", fr.getLong(0), "rowsSum", fr.getLong(1), "insertsSum", fr.getLong(2)));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("rows", f.rows());
    details.put("columns", f.columns().size());
    details.put("batches", slices.size());
    details.put("commitsPerBatch", perBatch);
    details.put("rowsPerBatch", sliceRows);
    for (String v : VARIANTS) {
      details.put("steadySeconds." + v, s.get(v).stream().map(Sample::seconds).toList());
      details.put("firstBatchSeconds." + v, s.get(v).stream().map(x -> x.checks().get("firstSeconds")).toList());
      details.put("tailSeconds." + v, s.get(v).stream().map(x -> x.checks().get("tailSeconds")).toList());
    }
    for (String v : STREAMS) {
      details.put("jobsPerSteadyBatch." + v, s.get(v).stream().map(x -> x.checks().get("jobsPerSteadyBatch")).toList());
      details.put("jobsFirstBatch." + v, s.get(v).stream().map(x -> x.checks().get("jobsFirstBatch")).toList());
      details.put("phaseMillis." + v, s.get(v).stream().map(x -> x.checks().get("phaseMillis")).toList());
      details.put("steadyJobMsByCallSite." + v,
          s.get(v).stream().map(x -> x.checks().get("steadyJobMsByCallSite")).toList());
    }
    List<Double> sink = Comparison.rates(s.get(SINK));
    List<Double> deltaStream = Comparison.rates(s.get(DELTA_STREAM));
    List<Double> bare = Comparison.rates(s.get(BARE));
    List<Double> cached = Comparison.rates(s.get(CACHED));
    String steadyNote = "steady micro-batches (batch 1 on, " + (slices.size() - 1) + " per run of "
        + String.format(Locale.ROOT, "%,d", sliceRows) + " rows)";
    return List.of(
        Figure.compared("3 bronze", label, "rows/s", sink,
            "Delta's own exactly-once streaming sink, writeStream.format(\"delta\")", deltaStream, TARGET,
            steadyNote + ": source read + bronze (counted through an observation) + facts, both commits, against the"
                + " same query into Delta's streaming sink; jobs per steady batch: DeltaSink "
                + jobs(s.get(SINK)) + " (+ " + offPathJobs(s.get(SINK)) + " off its path: the facts commit)"
                + ", Delta's sink " + jobs(s.get(DELTA_STREAM)),
            details, checks).withJobs(sinkJobs(s.get(SINK)), jobs(s.get(DELTA_STREAM))),
        Figure.compared("3 bronze", shortLabel + ": vs idempotent foreachBatch append", "rows/s", sink,
            "foreachBatch append with txnAppId/txnVersion", Comparison.rates(s.get(IDEMPOTENT)), null,
            steadyNote + ": the same query with Delta's idempotent writes in a foreachBatch (jobs per steady batch "
                + jobs(s.get(IDEMPOTENT)) + ")", Map.of(), Map.of())
            .withJobs(sinkJobs(s.get(SINK)), jobs(s.get(IDEMPOTENT))),
        Figure.compared("3 bronze", shortLabel + ": limit, cached appends", "rows/s", sink,
            "append of cached DataFrames to Delta, one per batch", cached, null,
            "the same rows appended from memory, no source, no stream, no idempotence (append 1 on): the physical"
                + " limit, not a like-for-like baseline", Map.of(), Map.of()),
        Figure.compared("3 bronze", shortLabel + ": the sink's own cost", "rows/s", sink,
            "source -> foreachBatch append to Delta", bare, null,
            steadyNote + " of the same query with a bare append: no facts, no idempotence (jobs per steady batch "
                + jobs(s.get(BARE)) + ")", Map.of(), Map.of()).withJobs(sinkJobs(s.get(SINK)), jobs(s.get(BARE))),
        Figure.compared("3 bronze", shortLabel + ": Delta's price of exactly-once", "rows/s", deltaStream,
            "source -> foreachBatch append to Delta", bare, null,
            "Delta's streaming sink against the bare append of the same query: what Delta's own exactly-once costs",
            Map.of(), Map.of()).withJobs(jobs(s.get(DELTA_STREAM)), jobs(s.get(BARE))),
        Figure.compared("3 bronze", shortLabel + ": ceiling, no sink cost", "rows/s", bare,
            "append of cached DataFrames to Delta, one per batch", cached, null,
            "the bare foreachBatch append against the cached appends: the most any sink reading this source can reach"
                + " (the source read and the stream's own work, without any cost of the sink's)",
            Map.of(), Map.of()).withJobs(jobs(s.get(BARE)), null),
        Figure.compared("3 bronze", shortLabel + ": with the stream's end", "rows/s", withTail(s.get(SINK)),
            "Delta's own streaming sink, with its end", withTail(s.get(DELTA_STREAM)), null,
            "the steady batches plus the time from the last batch's end to the query's termination (DeltaSink waits"
                + " there for the last facts commit, which a running stream makes beside its next batch, and on every"
                + " tenth facts commit for the facts table's Delta checkpoint)", Map.of(), Map.of()),
        Figure.compared("3 bronze", shortLabel + ": a run's first batch", "rows/s", firstRates(s.get(SINK)),
            "Delta's own streaming sink, batch 0", firstRates(s.get(DELTA_STREAM)), null,
            "batch 0 of each new query: the sink's rewind check and table checks (creation in the first run); jobs:"
                + " DeltaSink " + firstJobs(s.get(SINK)) + ", Delta's sink " + firstJobs(s.get(DELTA_STREAM)),
            Map.of(), Map.of()).withJobs(firstJobs(s.get(SINK)), firstJobs(s.get(DELTA_STREAM))));
  }

  private static Dataset<Row> source(SparkSession spark, Map<String, String> options) {
    return spark.readStream().format("mssql_cdc").options(options).load();
  }

  /** A streaming run as a sample, with its jobs per steady batch and in batch 0. */
  private static Sample stream(BenchContext ctx, StreamRun run) {
    List<JobLog.Job> jobs = ctx.jobs().between(run.startMs(), run.endMs() + 1);
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("jobsPerSteadyBatch", JobLog.perSteadyBatch(jobs, run.lastBatchId()));
    extra.put("jobsOffPathPerSteadyBatch", JobLog.offPathPerSteadyBatch(jobs, run.lastBatchId()));
    extra.put("jobsFirstBatch", JobLog.firstBatch(jobs));
    // Where a run's time went: Spark's phases summed over its batches (addBatch: the sink), and the
    // steady batches' jobs by call site (milliseconds): the rest of addBatch is driver-side work
    extra.put("phaseMillis", run.phaseMillis());
    extra.put("steadyJobMsByCallSite", JobLog.byCallSite(jobs.stream().filter(j -> j.batchId() >= 1).toList()));
    return steady(run.progress(), run.tailNanos(), extra);
  }

  /**
   * A run as a sample: its batches from batch 1 on (time and rows), with batch 0's time and rows,
   * every batch's rows and {@code tailNanos} (the stream's end: what its sink still owed after the
   * last batch) kept in the sample's checks.
   */
  private static Sample steady(List<Batch> batches, long tailNanos, Map<String, Object> extra) {
    if (batches.size() < 2) {
      throw new IllegalStateException("the bronze case needs at least 2 micro-batches per run, the run had "
          + batches.size() + "; the fixture's commits or maxCommitsPerBatch do not split it");
    }
    Batch first = batches.get(0);
    List<Batch> rest = batches.subList(1, batches.size());
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("firstSeconds", first.nanos() / 1e9);
    checks.put("firstRows", first.rows());
    checks.put("batchRows", batches.stream().map(Batch::rows).toList());
    if (extra != null) {
      checks.putAll(extra);
    }
    checks.put("tailSeconds", tailNanos / 1e9);
    return new Sample(Batch.nanos(rest), Batch.rows(rest), checks);
  }

  /** The median of the runs' jobs per steady batch, as text. */
  private static String jobs(List<Sample> samples) {
    List<Double> v = samples.stream().map(x -> (Double) x.checks().get("jobsPerSteadyBatch")).sorted().toList();
    return v.isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.1f", v.get(v.size() / 2));
  }

  /** DeltaSink's jobs per steady batch, as text: on the batch's path, {@code +} those beside it (facts commits). */
  private static String sinkJobs(List<Sample> samples) {
    return jobs(samples) + "+" + offPathJobs(samples);
  }

  /** The median of the runs' jobs per steady batch made off the batch's path, as text. */
  private static String offPathJobs(List<Sample> samples) {
    List<Double> v = samples.stream().map(x -> (Double) x.checks().get("jobsOffPathPerSteadyBatch")).sorted().toList();
    return v.isEmpty() ? "n/a" : String.format(Locale.ROOT, "%.1f", v.get(v.size() / 2));
  }

  private static String firstJobs(List<Sample> samples) {
    List<Long> v = samples.stream().map(x -> (Long) x.checks().get("jobsFirstBatch")).sorted().toList();
    return v.isEmpty() ? "n/a" : Long.toString(v.get(v.size() / 2));
  }

  /** Rates of the steady batches with the stream's end added to their time. */
  private static List<Double> withTail(List<Sample> samples) {
    return samples.stream().map(x -> x.units() / (x.seconds() + (Double) x.checks().get("tailSeconds"))).toList();
  }

  private static List<Double> firstRates(List<Sample> samples) {
    return samples.stream()
        .map(x -> ((Number) x.checks().get("firstRows")).doubleValue() / (Double) x.checks().get("firstSeconds"))
        .toList();
  }
}
