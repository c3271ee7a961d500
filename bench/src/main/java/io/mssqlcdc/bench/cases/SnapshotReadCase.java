package io.mssqlcdc.bench.cases;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Checksums;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Fixture;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.SparkRuns;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 13 case 2: {@code spark.read.format("mssql_cdc_snapshot")} (2 key ranges) into
 * {@code noop} against Spark reading the same rows (the reader's own output, written once) from
 * Parquet into {@code noop}. Narrow and wide, each with issue 25's target ({@link #TARGET}).
 */
public final class SnapshotReadCase implements BenchCase {
  /** Issue 25: the snapshot at least 0.8x the batch Parquet read, at both sizes. */
  static final double TARGET = 0.8;

  @Override
  public String name() {
    return "snapshot";
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
    Path parquet = ctx.snapshotParquet(f);
    Map<String, String> options = ctx.sourceOptions(f, 2);
    List<String> columns = Arrays.asList(spark.read().parquet(parquet.toString()).schema().fieldNames());
    long rows = f.rows();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("parquet", rep -> withJobs(ctx, rows, () -> spark.read().parquet(parquet.toString())));
    variants.put("mssql_cdc_snapshot", rep ->
        withJobs(ctx, rows, () -> spark.read().format("mssql_cdc_snapshot").options(options).load()));
    Log.info("case 2 snapshot read, %s: %,d rows", label, f.rows());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", rows);
    checks.put("mssql_cdc_snapshot",
        Checksums.of(spark.read().format("mssql_cdc_snapshot").options(options).load(), columns));
    checks.put("parquet", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    Figure fig = SourceReadCase.figure("2 snapshot", label, f, s, "mssql_cdc_snapshot", "parquet",
        "Parquet -> noop (batch)", null, TARGET, checks);
    Map<String, Object> details = new LinkedHashMap<>(fig.details());
    for (String v : List.of("mssql_cdc_snapshot", "parquet")) {
      details.put("jobs." + v, s.get(v).stream().map(x -> x.checks().get("jobs")).toList());
      details.put("jobMillis." + v, s.get(v).stream().map(x -> x.checks().get("jobMillis")).toList());
    }
    fig = new Figure(fig.caseId(), fig.name(), fig.metric(), fig.value(), fig.baseline(), fig.baselineValue(),
        fig.ratio(), fig.ratioMin(), fig.ratioMax(), fig.reps(), fig.target(), fig.meetsTarget(), fig.note(), details,
        fig.checks(), fig.status());
    return fig.withJobs(jobs(s.get("mssql_cdc_snapshot")), jobs(s.get("parquet")));
  }

  /**
   * A batch read into {@code noop}, timed, with the Spark jobs it ran (their call sites, tasks and
   * milliseconds) and their summed milliseconds: the rest of the wall time is the driver's (planning,
   * the reader's own work before its job).
   */
  private static Sample withJobs(BenchContext ctx, long rows,
      java.util.function.Supplier<org.apache.spark.sql.Dataset<org.apache.spark.sql.Row>> read) {
    long fromMs = System.currentTimeMillis();
    long nanos = SparkRuns.batchToNoop(read.get());
    try {
      ctx.spark().sparkContext().listenerBus().waitUntilEmpty(60_000);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain", e);
    }
    List<io.mssqlcdc.bench.JobLog.Job> jobs = ctx.jobs().between(fromMs, System.currentTimeMillis() + 1);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("jobs", jobs.stream().map(j -> j.callSite() + " (" + j.tasks() + " tasks, " + j.millis() + " ms)").toList());
    c.put("jobMillis", jobs.stream().mapToLong(io.mssqlcdc.bench.JobLog.Job::millis).sum());
    return new Sample(nanos, rows, c);
  }

  private static String jobs(List<Sample> samples) {
    return String.format(java.util.Locale.ROOT, "%.0f",
        io.mssqlcdc.bench.Stats.median(samples.stream().map(x -> (double) ((List<?>) x.checks().get("jobs")).size())
            .toList()));
  }
}
