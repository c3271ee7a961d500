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
 * rows (the stream's own output, written once, 2 files) from Parquet into {@code noop}.
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
    out.add(compare(ctx, Fixture.narrow(ctx.config().narrowRows()), "narrow, 5 columns"));
    out.add(compare(ctx, Fixture.wide(ctx.config().wideRows()), "wide, 90 columns"));
    return out;
  }

  private Figure compare(BenchContext ctx, Fixture f, String label) {
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
      return new Sample(r.nanos(), r.rows(), Map.of("rows", r.rows(), "partitions", report.partitionsRead()));
    });
    io.mssqlcdc.bench.Log.info("case 1 source read, %s: %,d rows", label, f.rows());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    List<String> columns = Arrays.asList(schema.fieldNames());
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", (long) f.rows());
    checks.put("mssql_cdc", streamChecksum(ctx, options, columns));
    checks.put("parquet", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    checks.put("rowsPerRun.mssql_cdc", s.get("mssql_cdc").stream().map(Sample::units).toList());
    return figure("1 source", label, f, s, "mssql_cdc", "parquet", "Parquet -> noop",
        bytes.get(), TARGET, checks);
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
