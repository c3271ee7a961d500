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
 * Parquet into {@code noop}. Narrow and wide. Also the same read with {@code columnarReads=false}
 * (the row reader), interleaved with the others: issue 25 item 4's columnar reader against it.
 */
public final class SnapshotReadCase implements BenchCase {
  @Override
  public String name() {
    return "snapshot";
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
    Map<String, String> rowOptions = new LinkedHashMap<>(options);
    rowOptions.put("columnarReads", "false");
    variants.put("mssql_cdc_snapshot rows", rep ->
        new Sample(SparkRuns.batchToNoop(spark.read().format("mssql_cdc_snapshot").options(rowOptions).load()), rows,
            Map.of()));
    Log.info("case 2 snapshot read, %s: %,d rows", label, f.rows());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", rows);
    checks.put("mssql_cdc_snapshot",
        Checksums.of(spark.read().format("mssql_cdc_snapshot").options(options).load(), columns));
    checks.put("mssql_cdc_snapshot rows",
        Checksums.of(spark.read().format("mssql_cdc_snapshot").options(rowOptions).load(), columns));
    checks.put("parquet", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    Figure main = SourceReadCase.figure("2 snapshot", label, f, s, "mssql_cdc_snapshot", "parquet",
        "Parquet -> noop (batch)", null, null, checks);
    Figure rowPath = Figure.compared("2 snapshot", shortLabel + ": column batches vs rows", "rows/s",
        Comparison.rates(s.get("mssql_cdc_snapshot")), "the same read with columnarReads=false",
        Comparison.rates(s.get("mssql_cdc_snapshot rows")), null,
        "issue 25 item 4: the columnar reader against the row reader, same run, interleaved",
        Map.of("seconds.rows", s.get("mssql_cdc_snapshot rows").stream().map(Sample::seconds).toList()), Map.of());
    Figure rowsVsParquet = Figure.compared("2 snapshot", shortLabel + ": rows (columnarReads=false)", "rows/s",
        Comparison.rates(s.get("mssql_cdc_snapshot rows")), "Parquet -> noop (batch)",
        Comparison.rates(s.get("parquet")), null, "the row reader against the same baseline", Map.of(), Map.of());
    return List.of(main, rowPath, rowsVsParquet);
  }
}
