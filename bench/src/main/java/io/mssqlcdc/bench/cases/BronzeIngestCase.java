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

/**
 * Issue 13 case 3: source → {@link DeltaSink} → bronze + facts (one micro-batch of the whole
 * fixture per run, Trigger.AvailableNow) against appending the same rows from a cached
 * DataFrame to a Delta table; and, to tell the sink's own work from the source's, against a
 * {@code foreachBatch} that appends the batch to Delta as it is. Each run appends to the same
 * tables (created by the warm-up): a new checkpoint and app id per run, as a new query would.
 */
public final class BronzeIngestCase implements BenchCase {
  static final double TARGET = 0.9;

  @Override
  public String name() {
    return "bronze";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    List<Figure> out = new ArrayList<>();
    out.addAll(compare(ctx, Fixture.narrow(ctx.config().bronzeNarrowRows()), "narrow, 5 columns"));
    out.addAll(compare(ctx, Fixture.wide(ctx.config().bronzeWideRows()), "wide, 90 columns"));
    return out;
  }

  private List<Figure> compare(BenchContext ctx, Fixture f, String label) {
    SparkSession spark = ctx.spark();
    Path parquet = ctx.streamParquet(f);
    Map<String, String> options = ctx.sourceOptions(f, 2);
    Dataset<Row> cached = spark.read().parquet(parquet.toString()).cache();
    long cachedRows = cached.count();
    String bronze = ctx.scratch("bronze").toString();
    String facts = ctx.scratch("facts").toString();
    String appended = ctx.scratch("delta-append").toString();
    String plain = ctx.scratch("foreach-append").toString();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("delta append", rep -> {
      long nanos = Comparison.time(() -> {
        cached.write().format("delta").mode("append").save(appended);
        return null;
      }).nanos();
      return new Sample(nanos, cachedRows, Map.of());
    });
    variants.put("DeltaSink", rep -> {
      DeltaSink sink = DeltaSink.builder().target(bronze).factsTable(facts).appId("bench-" + rep).build();
      SparkRuns.StreamRun r = SparkRuns.availableNowForeach(spark.readStream().format("mssql_cdc").options(options).load(),
          ctx.scratch("ckpt"), sink);
      return new Sample(r.nanos(), r.rows(), Map.of());
    });
    variants.put("foreachBatch append", rep -> {
      SparkRuns.StreamRun r = SparkRuns.availableNowForeach(spark.readStream().format("mssql_cdc").options(options).load(),
          ctx.scratch("ckpt"), (batch, id) -> batch.write().format("delta").mode("append").save(plain));
      return new Sample(r.nanos(), r.rows(), Map.of());
    });
    Log.info("case 3 bronze ingest, %s: %,d rows", label, f.rows());
    int runs = ctx.config().warmups() + ctx.config().heavyReps();
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().heavyReps(), variants);
    cached.unpersist();
    List<String> columns = Arrays.asList(cached.schema().fieldNames());
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("fixtureRows", (long) f.rows());
    checks.put("runs", (long) runs);
    checks.put("source", Checksums.of(spark.read().parquet(parquet.toString()), columns));
    checks.put("bronze", Checksums.of(spark.read().format("delta").load(bronze), columns));
    checks.put("delta append", Checksums.of(spark.read().format("delta").load(appended), columns));
    checks.put("foreachBatch append", Checksums.of(spark.read().format("delta").load(plain), columns));
    Row fr = spark.read().format("delta").load(facts).agg(count(lit(1)), sum(col("rows")), sum(col("inserts"))).first();
    checks.put("facts", Map.of("rows", fr.getLong(0), "rowsSum", fr.getLong(1), "insertsSum", fr.getLong(2)));
    Map<String, Object> details = Map.of("rows", f.rows(), "columns", f.columns().size(),
        "seconds", s.get("DeltaSink").stream().map(Sample::seconds).toList());
    List<Double> sink = Comparison.rates(s.get("DeltaSink"));
    return List.of(
        Figure.compared("3 bronze", label, "rows/s", sink, "append of a cached DataFrame to Delta",
            Comparison.rates(s.get("delta append")), TARGET,
            "source read + persist + facts + bronze and facts commits, against the append alone", details, checks),
        Figure.compared("3 bronze", label + ": the sink's own cost", "rows/s", sink,
            "source -> foreachBatch append to Delta", Comparison.rates(s.get("foreachBatch append")), null,
            "the same source read and append without the sink's persist, facts and facts commit", Map.of(), Map.of()));
  }
}
