package io.mssqlcdc.bench;

import io.mssqlcdc.bench.cases.BronzeIngestCase;
import io.mssqlcdc.bench.cases.BronzeRowCostCase;
import io.mssqlcdc.bench.cases.FakeCostCase;
import io.mssqlcdc.bench.cases.JdbcReadCase;
import io.mssqlcdc.bench.cases.LatencyCase;
import io.mssqlcdc.bench.cases.MemoryCase;
import io.mssqlcdc.bench.cases.ScalingCase;
import io.mssqlcdc.bench.cases.SnapshotReadCase;
import io.mssqlcdc.bench.cases.HistoryApplyCase;
import io.mssqlcdc.bench.cases.SilverApplyCase;
import io.mssqlcdc.bench.cases.SourceReadCase;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The benchmark suite (docs/PERFORMANCE.md): every case of issue 13 against its baseline in the
 * same run; prints the table and writes the JSON under {@code out}. Arguments are
 * {@code key=value} ({@link BenchConfig}), e.g. {@code cases=source,bronze reps=3 scale=0.5}.
 */
public final class BenchMain {
  private BenchMain() {}

  /** The cases, in suite order. */
  public static List<BenchCase> cases() {
    return List.of(new SourceReadCase(), new SnapshotReadCase(), new BronzeIngestCase(), new BronzeRowCostCase(),
        new SilverApplyCase(), new HistoryApplyCase(), new LatencyCase(), new ScalingCase(), new MemoryCase(),
        new FakeCostCase(), new JdbcReadCase());
  }

  public static void main(String[] args) {
    BenchConfig config = BenchConfig.parse(args);
    SparkSession spark = BenchSpark.session(config.out().resolve("warehouse"));
    int failed;
    try {
      Result r = run(config, spark);
      System.out.println();
      System.out.println(Report.table(r.figures()));
      System.out.println("JSON: " + r.json());
      failed = (int) r.figures().stream().filter(f -> f.status().equals("failed")).count();
    } finally {
      spark.stop();
    }
    if (failed > 0) {
      System.exit(1);
    }
  }

  /** A run's figures and where its JSON went. */
  public record Result(List<Figure> figures, Path json) {}

  /** Runs the configured cases; a case that fails is reported as failed, the others still run. */
  public static Result run(BenchConfig config, SparkSession spark) {
    Instant started = Instant.now();
    double loadBefore = Report.loadAverage();
    List<Figure> figures = new ArrayList<>();
    try (BenchContext ctx = new BenchContext(config, spark)) {
      for (BenchCase c : cases()) {
        if (!config.cases().contains(c.name())) {
          continue;
        }
        try {
          figures.addAll(c.run(ctx));
        } catch (Exception | Error e) {
          Log.info("case %s failed: %s", c.name(), e);
          e.printStackTrace();
          figures.add(new Figure(c.name(), "the whole case", null, null, null, null, null, null, null, 0, null, null,
              String.valueOf(e), Map.of(), Map.of(), "failed"));
        }
      }
    }
    Path json = Report.write(config.out(), Report.json(config, started, loadBefore, Report.loadAverage(), figures));
    return new Result(figures, json);
  }
}
