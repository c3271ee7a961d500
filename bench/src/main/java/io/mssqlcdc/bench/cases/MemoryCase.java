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
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Issue 13 case 6, memory: the heap while one partition ({@code numPartitions=1}) streams one
 * transaction of 5,000,000 rows into {@code noop}, against the same read of a transaction a
 * tenth of its size. Measured as the old generation's growth at peak from a collected heap
 * (local Spark: the executor is this JVM): rows a reader held would be promoted there. Flat
 * means the big transaction grows it no more than the small one (ratio near 1), where holding
 * its rows would take the estimated bytes reported.
 */
public final class MemoryCase implements BenchCase {
  /** Flat: the 10-times-bigger transaction may grow the old generation at most twice as much. */
  static final double TARGET = 2.0;

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    Fixture big = Fixture.bigTransaction(ctx.config().bigTxRows());
    Fixture small = Fixture.bigTransaction(ctx.config().smallTxRows());
    ctx.fake(big);
    ctx.fake(small);
    MemoryPoolMXBean old = oldGen();
    Map<String, Long> bytes = new LinkedHashMap<>();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    for (Fixture f : List.of(small, big)) {
      Map<String, String> options = ctx.sourceOptions(f, 1);
      variants.put(f.name(), rep -> {
        System.gc();
        long before = old.getUsage().getUsed();
        old.resetPeakUsage();
        SparkRuns.StreamRun r = SparkRuns.availableNowToNoop(
            ctx.spark().readStream().format("mssql_cdc").options(options).load(), ctx.scratch("ckpt"));
        long growth = Math.max(0, old.getPeakUsage().getUsed() - before);
        BatchReport report = BatchEvents.forBatch(r.queryId(), r.lastBatchId()).orElseThrow();
        bytes.put(f.name(), report.bytesRead());
        return new Sample(r.nanos(), r.rows(), Map.of("rows", r.rows(), "oldGenGrowthBytes", growth));
      });
    }
    Log.info("case 6 memory: one transaction of %,d rows against one of %,d", big.rows(), small.rows());
    // one pass each, no warm-up: the figure is a heap growth, not a rate, and 5,000,000 rows take a while
    Map<String, List<Sample>> s = Comparison.run(0, 1, variants);
    List<Double> bigMb = mb(s.get(big.name()));
    List<Double> smallMb = mb(s.get(small.name()));
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put(big.name(), s.get(big.name()).stream().map(Sample::units).toList());
    checks.put(small.name(), s.get(small.name()).stream().map(Sample::units).toList());
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("heldMbIfKept", bytes.get(big.name()) / (double) (1 << 20));
    details.put("oldGenGrowthMb", bigMb);
    details.put("baselineOldGenGrowthMb", smallMb);
    details.put("rows/s", Comparison.rates(s.get(big.name())));
    details.put("baselineRows/s", Comparison.rates(s.get(small.name())));
    details.put("maxHeapMb", Runtime.getRuntime().maxMemory() / (double) (1 << 20));
    return List.of(Figure.compared("6 memory", "old-gen growth, one " + String.format("%,d", big.rows())
            + "-row transaction", "MB", floor(bigMb), "one " + String.format("%,d", small.rows()) + "-row transaction",
        floor(smallMb), TARGET, true, "peak old generation growth from a collected heap, numPartitions=1; "
            + "values under 1 MB count as 1 MB", details, checks));
  }

  private static List<Double> mb(List<Sample> samples) {
    return samples.stream().map(x -> ((Long) x.checks().get("oldGenGrowthBytes")) / (double) (1 << 20)).toList();
  }

  /** A ratio of two near-zero growths says nothing: both count as at least 1 MB. */
  private static List<Double> floor(List<Double> mb) {
    return mb.stream().map(v -> Math.max(1.0, v)).toList();
  }

  static MemoryPoolMXBean oldGen() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && (p.getName().contains("Old") || p.getName().contains("Tenured"))) {
        return p;
      }
    }
    throw new IllegalStateException("no old generation pool (run with -XX:+UseParallelGC)");
  }
}
