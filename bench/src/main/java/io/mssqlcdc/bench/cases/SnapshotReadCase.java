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
    variants.put("parquet", rep ->
        new Sample(SparkRuns.batchToNoop(spark.read().parquet(parquet.toString())), rows, Map.of()));
    variants.put("mssql_cdc_snapshot", rep ->
        new Sample(SparkRuns.batchToNoop(spark.read().format("mssql_cdc_snapshot").options(options).load()), rows,
            Map.of()));
    Log.info("case 2 snapshot read, %s: %,d rows", label, f.rows());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", rows);
    checks.put("mssql_cdc_snapshot",
        Checksums.of(spark.read().format("mssql_cdc_snapshot").options(options).load(), columns));
    checks.put("parquet", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    return SourceReadCase.figure("2 snapshot", label, f, s, "mssql_cdc_snapshot", "parquet",
        "Parquet -> noop (batch)", null, TARGET, checks);
  }
}
