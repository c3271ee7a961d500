package io.mssqlcdc.bench.cases;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Checksums;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Fixture;
import io.mssqlcdc.bench.SparkRuns;
import io.mssqlcdc.connector.stream.BatchEvents;
import io.mssqlcdc.connector.stream.BatchReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * Issue 13 case 1: {@code format("mssql_cdc")} over the fake into Spark's {@code noop} sink
 * (Trigger.AvailableNow, one micro-batch, 2 partitions; timed by the micro-batch's
 * {@code triggerExecution}, so starting the query is left out) against Spark reading the same
 * rows (the stream's own output, written once, 2 files) from Parquet into {@code noop}: a batch
 * read (the target's baseline), and, as a second figure, Parquet as a streaming file source with
 * Trigger.AvailableNow into {@code noop}, timed like the candidate, so the streaming machinery's
 * own share (offset and commit logs, the micro-batch's planning) is on both sides.
 * Narrow (5 columns) and wide (90 columns).
 */
public final class SourceReadCase implements BenchCase {
  static final double TARGET = 0.8;

  @Override
  public String name() {
    return "source";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    List<Figure> out = new ArrayList<>();
    out.addAll(compare(ctx, Fixture.narrow(ctx.config().narrowRows()), "narrow, 5 columns", "narrow"));
    out.addAll(compare(ctx, Fixture.wide(ctx.config().wideRows()), "wide, 90 columns", "wide"));
    return out;
  }

  private List<Figure> compare(BenchContext ctx, Fixture f, String label, String shortLabel) {
    SparkSession spark = ctx.spark();
    Path parquet = ctx.streamParquet(f);
    StructType schema = spark.read().parquet(parquet.toString()).schema();
    Map<String, String> options = ctx.sourceOptions(f, 2);
    AtomicReference<Long> bytes = new AtomicReference<>();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    long rows = f.rows();
    variants.put("parquet", rep ->
        new Sample(SparkRuns.batchToNoop(spark.read().parquet(parquet.toString())), rows, Map.of("rows", rows)));
    variants.put("mssql_cdc", rep -> {
      SparkRuns.StreamRun r = SparkRuns.availableNowToNoop(
          spark.readStream().format("mssql_cdc").options(options).load(), ctx.scratch("ckpt"));
      BatchReport report = BatchEvents.forBatch(r.queryId(), r.lastBatchId()).orElseThrow();
      bytes.set(report.bytesRead());
      return new Sample(r.nanos(), r.rows(), runChecks(ctx, r, Map.of("partitions", report.partitionsRead())));
    });
    variants.put("parquet stream", rep -> {
      SparkRuns.StreamRun r = SparkRuns.availableNowToNoop(
          spark.readStream().schema(schema).parquet(parquet.toString()), ctx.scratch("ckpt"));
      return new Sample(r.nanos(), r.rows(), runChecks(ctx, r, Map.of()));
    });
    io.mssqlcdc.bench.Log.info("case 1 source read, %s: %,d rows", label, f.rows());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    List<String> columns = Arrays.asList(schema.fieldNames());
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", (long) f.rows());
    checks.put("mssql_cdc", streamChecksum(ctx, options, columns));
    checks.put("parquet", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    checks.put("rowsPerRun.mssql_cdc", s.get("mssql_cdc").stream().map(Sample::units).toList());
    checks.put("rowsPerRun.parquet stream", s.get("parquet stream").stream().map(Sample::units).toList());
    Figure main = figure("1 source", label, f, s, "mssql_cdc", "parquet", "Parquet -> noop",
        bytes.get(), TARGET, checks);
    Map<String, Object> details = new LinkedHashMap<>();
    for (String v : List.of("mssql_cdc", "parquet stream")) {
      details.put("seconds." + v, s.get(v).stream().map(Sample::seconds).toList());
      details.put("phaseMillis." + v, s.get(v).stream().map(x -> x.checks().get("phaseMillis")).toList());
      details.put("jobs." + v, s.get(v).stream().map(x -> x.checks().get("jobs")).toList());
    }
    Figure streamed = Figure.compared("1 source", shortLabel + ": vs Parquet as a streaming source", "rows/s",
        Comparison.rates(s.get("mssql_cdc")), "Parquet file stream, AvailableNow -> noop",
        Comparison.rates(s.get("parquet stream")), null,
        "both streams timed alike (summed triggerExecution): the streaming machinery's share is on both sides",
        details, Map.of());
    Figure fileStream = Figure.compared("1 source", shortLabel + ": Spark's file stream vs the batch read", "rows/s",
        Comparison.rates(s.get("parquet stream")), "Parquet -> noop", Comparison.rates(s.get("parquet")), null,
        "Spark's own streaming file source over the same Parquet against the batch read: what streaming these rows"
            + " costs Spark's own source at this size (the first figure's target compares a stream with a batch read)",
        Map.of(), Map.of());
    return List.of(main, streamed, fileStream);
  }

  /** A stream run's checks: its rows, its micro-batches' phases, the Spark jobs it ran (by call site). */
  private static Map<String, Object> runChecks(BenchContext ctx, SparkRuns.StreamRun r, Map<String, Object> more) {
    Map<String, Object> c = new LinkedHashMap<>(more);
    c.put("rows", r.rows());
    c.put("phaseMillis", r.phaseMillis());
    List<io.mssqlcdc.bench.JobLog.Job> jobs = ctx.jobs().between(r.startMs(), r.endMs() + 1);
    c.put("jobs", jobs.stream().map(j -> j.callSite() + " (" + j.tasks() + " tasks, " + j.millis() + " ms)").toList());
    return c;
  }

  /** The checksum of what {@code format("mssql_cdc")} reads, through foreachBatch (untimed). */
  static Map<String, Object> streamChecksum(BenchContext ctx, Map<String, String> options, List<String> columns) {
    AtomicReference<Map<String, Object>> sum = new AtomicReference<>();
    Dataset<Row> df = ctx.spark().readStream().format("mssql_cdc").options(options).load();
    SparkRuns.availableNowForeach(df, ctx.scratch("ckpt"),
        (batch, id) -> sum.set(Checksums.plus(sum.get(), Checksums.of(batch, columns))));
    return sum.get();
  }

  static Figure figure(String caseId, String label, Fixture f, Map<String, List<Sample>> s,
      String candidate, String base, String baseLabel, Long bytes, Double target, Map<String, Object> checks) {
    List<Double> c = Comparison.rates(s.get(candidate));
    List<Double> b = Comparison.rates(s.get(base));
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("rows", f.rows());
    details.put("columns", f.columns().size());
    if (bytes != null) {
      double mbPerRow = bytes / (double) f.rows() / (1 << 20);
      details.put("bytesEstimated", bytes);
      details.put("MB/s", io.mssqlcdc.bench.Stats.median(c) * mbPerRow);
      details.put("baselineMB/s", io.mssqlcdc.bench.Stats.median(b) * mbPerRow);
    }
    details.put("seconds", s.get(candidate).stream().map(Sample::seconds).toList());
    details.put("baselineSeconds", s.get(base).stream().map(Sample::seconds).toList());
    return Figure.compared(caseId, label, "rows/s", c, baseLabel, b, target,
        "MB/s from the connector's estimate of the values' in-memory bytes", details, checks);
  }
}
