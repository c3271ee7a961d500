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
import io.mssqlcdc.standin.SqlServerStandIn;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * Issue 11 item 6 / issue 13: {@code format("mssql_cdc")} with {@code backend=jdbc}, i.e.
 * {@code SqlCdcClient} through the real mssql-jdbc driver, over loopback TDS to the SQL Server
 * stand-in (sqlserver-standin's test-jar) serving the narrow fixture's fake database, into
 * {@code noop}; against the same stream with {@code backend=fake} on the same directory and
 * against Spark reading the same rows from Parquet, in the same run. The stand-in runs in this
 * JVM and shares the two cores: its TDS encoding is in the {@code jdbc} figure, which a real
 * server would do on its own machine, so the ratio is a floor of the JDBC path's.
 */
public final class JdbcReadCase implements BenchCase {
  @Override
  public String name() {
    return "jdbc";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    Fixture f = Fixture.narrow(ctx.config().jdbcRows());
    SparkSession spark = ctx.spark();
    Path parquet = ctx.streamParquet(f);
    Map<String, String> fake = ctx.sourceOptions(f, 2);
    long rows = f.rows();
    try (SqlServerStandIn standIn = SqlServerStandIn.start(ctx.fake(f))) {
      Map<String, String> jdbc = new LinkedHashMap<>();
      jdbc.put("backend", "jdbc");
      jdbc.put("connectionString", standIn.jdbcUrl());
      jdbc.put("captureInstance", f.captureInstance());
      jdbc.put("numPartitions", "2");
      Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
      variants.put("parquet", rep ->
          new Sample(SparkRuns.batchToNoop(spark.read().parquet(parquet.toString())), rows, Map.of()));
      variants.put("fake", rep -> stream(ctx, fake));
      variants.put("jdbc", rep -> {
        Sample s = stream(ctx, jdbc);
        standIn.clearExecuted();
        return s;
      });
      Log.info("case 11.6 jdbc source read, narrow: %,d rows", rows);
      Map<String, List<Sample>> s = Comparison.run(ctx.config().warmups(), ctx.config().reps(), variants);
      List<String> columns = Arrays.asList(spark.read().parquet(parquet.toString()).schema().fieldNames());
      Map<String, Object> checks = new LinkedHashMap<>();
      checks.put("fixtureRows", rows);
      checks.put("jdbc", SourceReadCase.streamChecksum(ctx, jdbc, columns));
      checks.put("parquet", Checksums.of(spark.read().parquet(parquet.toString()), columns));
      checks.put("rowsPerRun.jdbc", s.get("jdbc").stream().map(Sample::units).toList());
      checks.put("rowsPerRun.fake", s.get("fake").stream().map(Sample::units).toList());
      List<Double> j = Comparison.rates(s.get("jdbc"));
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("rows", rows);
      details.put("seconds", s.get("jdbc").stream().map(Sample::seconds).toList());
      return List.of(
          Figure.compared("11.6 jdbc", "narrow, backend=jdbc vs Parquet", "rows/s", j, "Parquet -> noop",
              Comparison.rates(s.get("parquet")), null,
              "mssql-jdbc over loopback TDS to the in-JVM stand-in (its encoding shares the cores)", details, checks),
          Figure.compared("11.6 jdbc", "narrow, backend=jdbc vs backend=fake", "rows/s", j, "backend=fake -> noop",
              Comparison.rates(s.get("fake")), null, "the JDBC client path's cost over the fake's", Map.of(),
              Map.of()));
    }
  }

  private static Sample stream(BenchContext ctx, Map<String, String> options) {
    SparkRuns.StreamRun r = SparkRuns.availableNowToNoop(
        ctx.spark().readStream().format("mssql_cdc").options(options).load(), ctx.scratch("ckpt"));
    return new Sample(r.nanos(), r.rows(), Map.of("rows", r.rows()));
  }
}
