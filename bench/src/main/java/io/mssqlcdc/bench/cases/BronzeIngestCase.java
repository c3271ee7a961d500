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
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.SparkRuns;
import io.mssqlcdc.bench.SparkRuns.Batch;
import io.mssqlcdc.sink.DeltaSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Issue 13 case 3: the throughput of a running stream, source → {@link DeltaSink} → bronze +
 * facts. Per repetition one new query (Trigger.AvailableNow, a new checkpoint and app id, as a
 * new query would) reads the fixture in {@link #BATCHES} micro-batches ({@code maxCommitsPerBatch}
 * over the fixture's 20 commits); its steady batches (batch 1 on) are timed by their
 * {@code triggerExecution}, and its first batch (the sink's rewind check, the tables' checks and,
 * in the warm-up, their creation) is reported apart. Compared with:
 *
 * <ul>
 *   <li>the same rows appended to Delta from cached DataFrames in as many appends, one per batch
 *       and of the batch's rows, timed from the second append on;
 *   <li>(the sink's own cost) the same query with a {@code foreachBatch} that appends the batch to
 *       Delta as it is, timed the same way, batch by batch: like with like.
 * </ul>
 *
 * The bare {@code foreachBatch} append against the cached appends is reported too ("ceiling"): it
 * bounds the first ratio from above for any sink, since it pays the source read and the stream's
 * own work but nothing of a sink's.
 *
 * Each run appends to the same tables (created by the first run).
 */
public final class BronzeIngestCase implements BenchCase {
  static final double TARGET = 0.9;
  /** Micro-batches per run (the fixtures hold 20 commits: {@code maxCommitsPerBatch} = 20 / 5 = 4). */
  public static final int BATCHES = 5;

  @Override
  public String name() {
    return "bronze";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    List<Figure> out = new ArrayList<>();
    out.addAll(compare(ctx, Fixture.narrow(ctx.config().bronzeNarrowRows()), "narrow, 5 columns", "narrow"));
    out.addAll(compare(ctx, Fixture.wide(ctx.config().bronzeWideRows()), "wide, 90 columns", "wide"));
    return out;
  }

  private List<Figure> compare(BenchContext ctx, Fixture f, String label, String shortLabel) {
    SparkSession spark = ctx.spark();
    Path parquet = ctx.streamParquet(f);
    int commits = (f.rows() + f.rowsPerCommit() - 1) / f.rowsPerCommit();
    int perBatch = Math.max(1, (commits + BATCHES - 1) / BATCHES);
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
    String bronze = ctx.scratch("bronze").toString();
    String facts = ctx.scratch("facts").toString();
    String appended = ctx.scratch("delta-append").toString();
    String plain = ctx.scratch("foreach-append").toString();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("delta append", rep -> {
      List<Batch> appends = new ArrayList<>();
      for (int b = 0; b < slices.size(); b++) {
        Dataset<Row> slice = slices.get(b);
        long nanos = Comparison.time(() -> {
          slice.write().format("delta").mode("append").save(appended);
          return null;
        }).nanos();
        appends.add(new Batch(b, sliceCounts.get(b), nanos));
      }
      return steady(appends);
    });
    variants.put("DeltaSink", rep -> {
      DeltaSink sink = DeltaSink.builder().target(bronze).factsTable(facts).appId("bench-" + rep).build();
      return steady(SparkRuns.availableNowForeach(spark.readStream().format("mssql_cdc").options(options).load(),
          ctx.scratch("ckpt"), sink).progress());
    });
    variants.put("foreachBatch append", rep -> steady(SparkRuns.availableNowForeach(
        spark.readStream().format("mssql_cdc").options(options).load(), ctx.scratch("ckpt"),
        (batch, id) -> batch.write().format("delta").mode("append").save(plain)).progress()));
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
    for (String v : List.of("delta append", "DeltaSink", "foreachBatch append")) {
      checks.put("batchRows." + v, s.get(v).stream().map(x -> x.checks().get("batchRows")).toList());
    }
    checks.put("source", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    checks.put("bronze", Checksums.of(spark.read().format("delta").load(bronze), columns));
    checks.put("delta append", Checksums.of(spark.read().format("delta").load(appended), columns));
    checks.put("foreachBatch append", Checksums.of(spark.read().format("delta").load(plain), columns));
    Row fr = spark.read().format("delta").load(facts).agg(count(lit(1)), sum(col("rows")), sum(col("inserts"))).first();
    checks.put("facts", Map.of("rows", fr.getLong(0), "rowsSum", fr.getLong(1), "insertsSum", fr.getLong(2)));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("rows", f.rows());
    details.put("columns", f.columns().size());
    details.put("batches", slices.size());
    details.put("commitsPerBatch", perBatch);
    for (String v : List.of("delta append", "DeltaSink", "foreachBatch append")) {
      details.put("steadySeconds." + v, s.get(v).stream().map(Sample::seconds).toList());
      details.put("firstBatchSeconds." + v, s.get(v).stream().map(x -> x.checks().get("firstSeconds")).toList());
    }
    List<Double> sink = Comparison.rates(s.get("DeltaSink"));
    return List.of(
        Figure.compared("3 bronze", label, "rows/s", sink, "append of cached DataFrames to Delta, one per batch",
            Comparison.rates(s.get("delta append")), TARGET,
            "steady micro-batches (batch 1 on, " + (slices.size() - 1) + " per run): source read + persist + facts"
                + " + bronze and facts commits, against as many appends of the same rows (append 1 on)",
            details, checks),
        Figure.compared("3 bronze", shortLabel + ": the sink's own cost", "rows/s", sink,
            "source -> foreachBatch append to Delta", Comparison.rates(s.get("foreachBatch append")), null,
            "steady micro-batches of the same query without the sink's persist, facts and facts commit", Map.of(),
            Map.of()),
        Figure.compared("3 bronze", shortLabel + ": ceiling, no sink cost", "rows/s",
            Comparison.rates(s.get("foreachBatch append")), "append of cached DataFrames to Delta, one per batch",
            Comparison.rates(s.get("delta append")), null,
            "the bare foreachBatch append against the cached appends: the most any sink reading this source can reach"
                + " (the source read and the stream's own work, without any cost of the sink's)",
            Map.of(), Map.of()),
        Figure.compared("3 bronze", shortLabel + ": a run's first batch", "rows/s", firstRates(s.get("DeltaSink")),
            "source -> foreachBatch append to Delta", firstRates(s.get("foreachBatch append")), null,
            "batch 0 of each new query: the sink's rewind check and table checks (creation in the first run)",
            Map.of(), Map.of()));
  }

  /**
   * A run as a sample: its batches from batch 1 on (time and rows), with batch 0's time and rows and
   * every batch's rows kept in the sample's checks.
   */
  private static Sample steady(List<Batch> batches) {
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
    return new Sample(Batch.nanos(rest), Batch.rows(rest), checks);
  }

  private static List<Double> firstRates(List<Sample> samples) {
    return samples.stream()
        .map(x -> ((Number) x.checks().get("firstRows")).doubleValue() / (Double) x.checks().get("firstSeconds"))
        .toList();
  }
}
