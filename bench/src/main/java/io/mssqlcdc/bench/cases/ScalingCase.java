package io.mssqlcdc.bench.cases;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Fixture;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.bench.SparkRuns;
import io.mssqlcdc.connector.stream.BatchEvents;
import io.mssqlcdc.connector.stream.BatchReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Issue 13 case 6, throughput: {@code format("mssql_cdc")} into {@code noop} over the narrow
 * table with {@code numPartitions} 1, 2 and 4, each against 1 partition in the same repetition.
 * The machine has 2 cores (local[2]): 4 partitions can only show what the extra tasks cost.
 */
public final class ScalingCase implements BenchCase {
  static final int[] PARTITIONS = {1, 2, 4};

  @Override
  public String name() {
    return "scaling";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    Fixture f = Fixture.narrow(ctx.config().narrowRows());
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    for (int p : PARTITIONS) {
      Map<String, String> options = ctx.sourceOptions(f, p);
      variants.put(p + " partitions", rep -> {
        SparkRuns.StreamRun r = SparkRuns.availableNowToNoop(
            ctx.spark().readStream().format("mssql_cdc").options(options).load(), ctx.scratch("ckpt"));
        BatchReport report = BatchEvents.forBatch(r.queryId(), r.lastBatchId()).orElseThrow();
        return new Sample(r.nanos(), r.rows(), Map.of("rows", r.rows(), "partitions", report.partitionsRead()));
      });
    }
    Log.info("case 6 scaling: %,d rows at 1, 2, 4 partitions", f.rows());
    Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
    List<Double> one = Comparison.rates(s.get("1 partitions"));
    List<Figure> out = new ArrayList<>();
    for (int p : PARTITIONS) {
      List<Sample> samples = s.get(p + " partitions");
      Map<String, Object> checks = new LinkedHashMap<>();
      checks.put("rows", samples.stream().map(Sample::units).toList());
      checks.put("partitions", samples.stream().map(x -> x.checks().get("partitions")).toList());
      out.add(Figure.compared("6 scaling", p + " partition" + (p == 1 ? "" : "s"), "rows/s",
          Comparison.rates(samples), "1 partition", one, null, "narrow table, " + f.rows() + " rows; 2 cores",
          Map.of(), checks));
    }
    return out;
  }
}
