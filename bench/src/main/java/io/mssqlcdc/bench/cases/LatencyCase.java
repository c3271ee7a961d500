package io.mssqlcdc.bench.cases;

import static org.apache.spark.sql.functions.col;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.StatementCounter;
import io.mssqlcdc.bench.Stats;
import io.mssqlcdc.fake.FakeCdcDatabase;
import io.mssqlcdc.sink.DeltaSink;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;

/**
 * Issue 13 case 5, with issue 25's target: commit-to-bronze latency with a 1-second
 * processing-time trigger under a steady workload (a writer thread commits 50 updates, 100 change
 * rows, every 100 ms to a 1,000-row table), and the statements sent to the source per idle trigger
 * once the writer stops. Latency of a source commit = the Delta commit time of the bronze version
 * holding its rows (the table's history, each row's version found through the Delta log's
 * {@code add} of its file) minus its {@code _commit_ts}. Variants, each with its own database and
 * tables, one after the other:
 *
 * <ul>
 *   <li>{@link DeltaSink} with facts (the candidate);
 *   <li>the same stream into Delta's own exactly-once streaming sink, {@code writeStream.format("delta")}
 *       (the target's baseline: p99 at most {@link #TARGET_P99_RATIO} times its p99);
 *   <li>the same stream with a {@code foreachBatch} that appends the batch to Delta as it is (no
 *       persist, no facts, no idempotence): a limit line.
 * </ul>
 *
 * Each variant's workload starts with an unmeasured warm-up ({@link #warmUpMillis}: its sink's
 * classes and the JIT warm, whichever variant runs first); the commits after it are measured, and
 * the micro-batches from its end. The Spark jobs per measured micro-batch of each are counted from the job log by the batch id
 * Spark stamps on them. The idle triggers are counted for {@code DeltaSink} only (the source's
 * statements do not depend on the sink).
 */
public final class LatencyCase implements BenchCase {
  static final int KEYS = 1_000;
  static final int ROWS_PER_COMMIT = 50;
  static final long COMMIT_EVERY_MS = 100;
  /** Issue 25: DeltaSink's commit-to-bronze p99 at most 1.2x Delta's own streaming sink's, at a 1 s trigger. */
  static final double TARGET_P99_RATIO = 1.2;

  /** The variants, by the name their checks are reported under. */
  enum Variant {
    SINK("DeltaSink"), DELTA_STREAM("Delta streaming sink"), APPEND("foreachBatch append");

    final String label;

    Variant(String label) {
      this.label = label;
    }
  }

  @Override
  public String name() {
    return "latency";
  }

  /** What one variant measured. */
  record Measured(double[] latenciesMs, long commits, long warmUpCommits, long rowsInTable, double statementsPerIdleTrigger,
      Map<String, Long> idleCalls, Map<String, Object> batches, String jobsPerBatch) {}

  @Override
  public List<Figure> run(BenchContext ctx) throws Exception {
    Log.info("case 5 latency: %d s of workload per variant, 1 s trigger", ctx.config().latencySeconds());
    Map<Variant, Measured> m = new java.util.EnumMap<>(Variant.class);
    for (Variant v : List.of(Variant.DELTA_STREAM, Variant.APPEND, Variant.SINK)) {
      m.put(v, measure(ctx, v));
    }
    Measured sink = m.get(Variant.SINK);
    Measured delta = m.get(Variant.DELTA_STREAM);
    Measured append = m.get(Variant.APPEND);
    Map<String, Object> checks = new LinkedHashMap<>();
    for (Variant v : Variant.values()) {
      Measured x = m.get(v);
      checks.put(v.label, Map.of("commits", x.commits(), "warmUpCommits", x.warmUpCommits(),
          "commitsMeasured", (long) x.latenciesMs().length,
          "bronzeRows", x.rowsInTable()));
    }
    checks.put("idleCalls", sink.idleCalls());
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("commits", sink.commits());
    details.put("maxSeconds", Stats.max(sink.latenciesMs()) / 1000);
    for (Variant v : Variant.values()) {
      details.put("p50Seconds." + v.label, Stats.percentile(m.get(v).latenciesMs(), 50) / 1000);
      details.put("p99Seconds." + v.label, Stats.percentile(m.get(v).latenciesMs(), 99) / 1000);
      details.put("batches." + v.label, m.get(v).batches());
    }
    String deltaBase = "source -> Delta's own streaming sink, writeStream.format(\"delta\")";
    List<Figure> out = new ArrayList<>();
    out.add(Figure.compared("5 latency", "commit-to-bronze p50", "s", List.of(p(sink, 50)), deltaBase,
        List.of(p(delta, 50)), null, true, "DeltaSink with facts, 1 s processing-time trigger", details, checks)
        .withJobs(sink.jobsPerBatch(), delta.jobsPerBatch()));
    out.add(Figure.compared("5 latency", "commit-to-bronze p99", "s", List.of(p(sink, 99)), deltaBase,
        List.of(p(delta, 99)), TARGET_P99_RATIO, true,
        "the same stream, the same workload, through Delta's own exactly-once streaming sink", Map.of(), Map.of())
        .withJobs(sink.jobsPerBatch(), delta.jobsPerBatch()));
    out.add(Figure.compared("5 latency", "p99: limit, plain foreachBatch append", "s", List.of(p(sink, 99)),
        "source -> foreachBatch append", List.of(p(append, 99)), null, true,
        "the same stream with a bare foreachBatch append (no facts, no idempotence): a limit line", Map.of(),
        Map.of()).withJobs(sink.jobsPerBatch(), append.jobsPerBatch()));
    out.add(Figure.single("5 latency", "statements per idle trigger", "statements", sink.statementsPerIdleTrigger(),
        List.of(sink.statementsPerIdleTrigger()), "<= 1", sink.statementsPerIdleTrigger() <= 1.0,
        "CdcClient calls (one statement each on SQL Server) over " + ctx.config().idleTriggers()
            + " idle triggers, driver and executors", Map.of("calls", sink.idleCalls()), Map.of()));
    return out;
  }

  /** The workload's unmeasured start per variant: a third of {@code latencySeconds}, at most 3 s. */
  static long warmUpMillis(int latencySeconds) {
    return Math.min(3_000L, latencySeconds * 1000L / 3);
  }

  private static double p(Measured m, double percentile) {
    return Stats.percentile(m.latenciesMs(), percentile) / 1000;
  }

  private Measured measure(BenchContext ctx, Variant variant) throws Exception {
    SparkSession spark = ctx.spark();
    Path dbDir = ctx.scratch("latency-db");
    String bronze = ctx.scratch("latency-bronze").toString();
    String facts = ctx.scratch("latency-facts").toString();
    try (FakeCdcDatabase db = FakeCdcDatabase.create(dbDir); StatementCounter counter = StatementCounter.on(dbDir)) {
      db.createTable("dbo", "live", "id int", "name nvarchar(40)", "amount decimal(18,2)", "qty bigint").key("id");
      db.enableCdc("dbo", "live");
      db.commit(tx -> {
        for (int k = 0; k < KEYS; k++) {
          tx.insert("live", Map.of("id", k, "name", "customer-" + k, "amount", BigDecimal.ZERO, "qty", 0L));
        }
      });
      List<long[]> calls = java.util.Collections.synchronizedList(new ArrayList<>()); // {batch, start ms, end ms}
      Map<String, String> options = new LinkedHashMap<>();
      options.put("backend", "fake");
      options.put("fakePath", dbDir.toString());
      options.put("captureInstance", "dbo_live");
      var writer0 = spark.readStream().format("mssql_cdc").options(options).load().writeStream()
          .trigger(Trigger.ProcessingTime(1000)).option("checkpointLocation", ctx.scratch("latency-ckpt").toString());
      if (variant == Variant.DELTA_STREAM) {
        writer0 = writer0.format("delta").outputMode("append").option("path", bronze);
      } else {
        VoidFunction2<Dataset<Row>, Long> body = variant == Variant.SINK
            ? DeltaSink.builder().target(bronze).factsTable(facts).appId("latency")
                .factsCommitInterval(java.time.Duration.ofMillis(ctx.config().factsCommitMillis())).build()
            : (batch, id) -> batch.write().format("delta").mode("append").save(bronze);
        VoidFunction2<Dataset<Row>, Long> timed = (batch, id) -> {
          long t0 = System.currentTimeMillis();
          body.call(batch, id);
          calls.add(new long[] {id, t0, System.currentTimeMillis()});
        };
        writer0 = writer0.foreachBatch(timed);
      }
      long startMs = System.currentTimeMillis();
      StreamingQuery q = writer0.start();
      try {
        awaitBatch(q, 0); // the seed: tables created
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong commits = new AtomicLong();
        // The workload's first commits warm this variant's path (its sink's classes, the JIT) and are not measured:
        // the writer notes the source's max LSN and its commit count when the warm-up ends, before its next commit.
        long warmUpMs = warmUpMillis(ctx.config().latencySeconds());
        long warmEnd = System.currentTimeMillis() + warmUpMs;
        AtomicReference<String> measuredAfterLsn = new AtomicReference<>();
        AtomicLong warmUpCommits = new AtomicLong();
        Thread writer = new Thread(() -> {
          long next = System.currentTimeMillis();
          while (!stop.get()) {
            long n = commits.get();
            if (measuredAfterLsn.get() == null && System.currentTimeMillis() >= warmEnd) {
              warmUpCommits.set(n);
              measuredAfterLsn.set(db.client().maxLsn().orElseThrow().toString());
            }
            db.commit(tx -> {
              // distinct keys within a commit, and a quantity no row had: every update writes its two rows
              for (int i = 0; i < ROWS_PER_COMMIT; i++) {
                tx.update("live", Map.of("id", (int) ((n * ROWS_PER_COMMIT + i) % KEYS), "qty", n + 1));
              }
            });
            commits.incrementAndGet();
            next += COMMIT_EVERY_MS;
            long wait = next - System.currentTimeMillis();
            if (wait > 0) {
              sleep(wait);
            }
          }
        }, "bench-latency-writer");
        writer.setDaemon(true);
        writer.start();
        sleep(warmUpMs);
        long seedBatches = q.lastProgress().batchId(); // the batches from here on are measured
        sleep(ctx.config().latencySeconds() * 1000L);
        stop.set(true);
        writer.join();
        String last = db.client().maxLsn().orElseThrow().toString();
        awaitOffset(q, last);
        long lastBatch = q.lastProgress().batchId();
        double perIdle = Double.NaN;
        Map<String, Long> byMethod = new HashMap<>();
        if (variant == Variant.SINK) {
          // idle: the writer has stopped; count what each trigger sends the source
          int k = ctx.config().idleTriggers();
          long now = System.currentTimeMillis();
          long t0 = (now / 1000 + 2) * 1000 - 200;
          long t1 = t0 + k * 1000L;
          sleep(t1 + 200 - System.currentTimeMillis());
          List<StatementCounter.Call> idle = counter.between(t0, t1);
          idle.forEach(c -> byMethod.merge(c.method(), 1L, Long::sum));
          perIdle = idle.size() / (double) k;
        }
        Map<String, Object> batchFigures = batchFigures(ctx, calls, seedBatches);
        batchFigures.put("phaseMsMedian", phases(q, seedBatches));
        q.stop();
        drain(spark);
        List<io.mssqlcdc.bench.JobLog.Job> jobs = ctx.jobs().between(startMs, System.currentTimeMillis() + 1);
        if (measuredAfterLsn.get() == null) {
          throw new IllegalStateException("the latency writer made no commit after its " + warmUpMs + " ms warm-up");
        }
        return new Measured(latencies(spark, bronze, measuredAfterLsn.get()), commits.get(), warmUpCommits.get(),
            spark.read().format("delta").load(bronze).count(), perIdle, byMethod,
            batchFigures, jobsPerBatch(jobs, seedBatches, lastBatch));
      } finally {
        if (q.isActive()) {
          q.stop();
        }
      }
    }
  }

  /**
   * The medians over the measured micro-batches (after the seed, with rows) of Spark's phase
   * durations ({@code triggerExecution}, {@code addBatch}: the sink, {@code latestOffset},
   * {@code walCommit}, {@code commitOffsets}, ...), ms: where a batch's time went, every variant alike.
   */
  private static Map<String, Double> phases(StreamingQuery q, long seedBatch) {
    Map<String, List<Double>> by = new java.util.TreeMap<>();
    for (org.apache.spark.sql.streaming.StreamingQueryProgress p : q.recentProgress()) {
      if (p.batchId() > seedBatch && p.numInputRows() > 0) {
        p.durationMs().forEach((phase, ms) -> by.computeIfAbsent(phase, x -> new ArrayList<>()).add(ms.doubleValue()));
      }
    }
    Map<String, Double> out = new LinkedHashMap<>();
    by.forEach((phase, v) -> out.put(phase, Stats.median(v)));
    out.put("batches", by.isEmpty() ? 0.0 : (double) by.values().iterator().next().size());
    return out;
  }

  /**
   * The Spark jobs per measured micro-batch (after the seed, up to {@code lastBatch}) by the batch id
   * Spark stamps on them, as text; {@code "+n"} the jobs beside the batches (DeltaSink's facts commits).
   */
  private static String jobsPerBatch(List<io.mssqlcdc.bench.JobLog.Job> jobs, long seedBatch, long lastBatch) {
    long batches = lastBatch - seedBatch;
    if (batches <= 0) {
      return null;
    }
    List<io.mssqlcdc.bench.JobLog.Job> measured =
        jobs.stream().filter(j -> j.batchId() > seedBatch && j.batchId() <= lastBatch).toList();
    double on = measured.stream().filter(j -> !j.offPath()).count() / (double) batches;
    double off = measured.stream().filter(io.mssqlcdc.bench.JobLog.Job::offPath).count() / (double) batches;
    return String.format(java.util.Locale.ROOT, off > 0 ? "%.1f+%.1f" : "%.1f", on, off);
  }

  private static void drain(SparkSession spark) {
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
  }

  /** Per measured batch: the foreachBatch body's time, and the Spark jobs it ran by call site (medians, ms). */
  private static Map<String, Object> batchFigures(BenchContext ctx, List<long[]> calls, long seedBatch) {
    List<long[]> measured = calls.stream().filter(c -> c[0] > seedBatch).toList();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("batches", measured.size());
    if (measured.isEmpty()) {
      return m;
    }
    m.put("bodyMsMedian", Stats.median(measured.stream().map(c -> (double) (c[2] - c[1])).toList()));
    Map<String, List<Double>> sites = new LinkedHashMap<>();
    List<Double> jobsPerBatch = new ArrayList<>();
    for (long[] c : measured) {
      List<io.mssqlcdc.bench.JobLog.Job> jobs = ctx.jobs().between(c[1], c[2] + 1);
      jobsPerBatch.add((double) jobs.size());
      io.mssqlcdc.bench.JobLog.byCallSite(jobs).forEach((site, ms) ->
          sites.computeIfAbsent(site, x -> new ArrayList<>()).add((double) ms));
    }
    m.put("jobsPerBatchMedian", Stats.median(jobsPerBatch));
    Map<String, Double> medians = new LinkedHashMap<>();
    sites.forEach((site, v) -> medians.put(site, Stats.median(v)));
    m.put("jobMsMedianByCallSite", medians);
    return m;
  }

  /**
   * Per source commit after the LSN {@code after} (the warm-up's last): the Delta commit time of the bronze version that added
   * its rows (each row's file, found in the Delta log's {@code add} actions; the version's time from
   * the table's history) minus its commit time, ms. The same for every variant: no column or commit
   * metadata of the sink's is needed.
   */
  private static double[] latencies(SparkSession spark, String bronze, String after) {
    Map<Long, Long> committedAt = new HashMap<>();
    for (Row r : io.delta.tables.DeltaTable.forPath(spark, bronze).history().select("version", "timestamp")
        .collectAsList()) {
      committedAt.put(r.getLong(0), r.getTimestamp(1).getTime());
    }
    Map<String, Long> versionOfFile = new HashMap<>();
    for (Row r : spark.read().option("pathGlobFilter", "*.json").json(bronze + "/_delta_log").where(col("add").isNotNull())
        .select(col("add.path"), col("_metadata.file_name")).collectAsList()) {
      String path = r.getString(0);
      String name = r.getString(1);
      versionOfFile.put(path.substring(path.lastIndexOf('/') + 1),
          Long.parseLong(name.substring(0, name.indexOf('.'))));
    }
    List<Row> rows = spark.read().format("delta").load(bronze)
        .select(col("_start_lsn"), col("_commit_ts"), col("_metadata.file_name")).distinct().collectAsList();
    Map<String, Long> perCommit = new HashMap<>();
    Map<String, Long> commitTsOf = new HashMap<>();
    for (Row r : rows) {
      long commitTs = ((LocalDateTime) r.get(1)).toInstant(ZoneOffset.UTC).toEpochMilli();
      if (r.getString(0).compareTo(after) <= 0) { // canonical hex LSNs of one width: text order is LSN order
        continue;
      }
      Long version = versionOfFile.get(r.getString(2));
      if (version == null || !committedAt.containsKey(version)) {
        throw new IllegalStateException("no bronze commit for file " + r.getString(2));
      }
      String lsn = String.valueOf(r.get(0));
      perCommit.merge(lsn, committedAt.get(version), Math::max);
      commitTsOf.put(lsn, commitTs);
    }
    return perCommit.entrySet().stream().mapToDouble(e -> e.getValue() - commitTsOf.get(e.getKey())).toArray();
  }

  private static void awaitBatch(StreamingQuery q, long batchId) throws TimeoutException {
    long guard = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(5);
    while (q.lastProgress() == null || q.lastProgress().batchId() < batchId) {
      check(q, guard);
      sleep(50);
    }
  }

  /** Waits until a batch ending at {@code lsn} has been written. */
  private static void awaitOffset(StreamingQuery q, String lsn) throws TimeoutException {
    long guard = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(5);
    while (q.lastProgress() == null || !String.valueOf(q.lastProgress().sources()[0].endOffset()).contains(lsn)) {
      check(q, guard);
      sleep(50);
    }
  }

  private static void check(StreamingQuery q, long guard) throws TimeoutException {
    if (q.exception().isDefined()) {
      throw new IllegalStateException(q.exception().get().getMessage(), q.exception().get());
    }
    if (System.nanoTime() > guard) {
      throw new TimeoutException("the latency query made no progress in 5 minutes");
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(Math.max(0, ms));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
