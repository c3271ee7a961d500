package io.mssqlcdc.bench.cases;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Fixture;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.client.ChangeCursor;
import io.mssqlcdc.client.ChangeQuery;
import io.mssqlcdc.connector.stream.ChangeRowPath;
import io.mssqlcdc.fake.FakeCdcClient;
import io.mssqlcdc.lsn.Lsn;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.StructType;

/**
 * Issue 13 case 7: the fake's own per-row cost against the whole per-row path of a partition
 * reader, on one thread, no Spark job: {@code fake} iterates the fake's change cursor touching
 * every value; {@code + rows} adds the connector's row building (metadata columns, each value
 * cast to its Spark type into the converter's reused row); {@code + UnsafeRow} adds the
 * {@code UnsafeProjection} Spark applies to a row-based reader's rows. The fake's share of the
 * per-row cost is {@code fake / (+ UnsafeRow)} in time, the ratio reported; the rest is the
 * connector's and Spark's. These are also the instruments of the row-path optimisations
 * (docs/PERFORMANCE.md).
 */
public final class FakeCostCase implements BenchCase {
  @Override
  public String name() {
    return "fake";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    List<Figure> out = new ArrayList<>();
    out.addAll(compare(ctx, Fixture.narrow(ctx.config().narrowRows()), "narrow, 5 columns"));
    out.addAll(compare(ctx, Fixture.wide(ctx.config().wideRows()), "wide, 90 columns"));
    return out;
  }

  private List<Figure> compare(BenchContext ctx, Fixture f, String label) {
    Path dir = ctx.fake(f);
    StructType captured = ctx.spark().readStream().format("mssql_cdc").options(ctx.sourceOptions(f, 1)).load()
        .schema();
    // the inferred schema with its metadata columns: keep the captured ones
    StructType onlyCaptured = new StructType(java.util.Arrays.copyOfRange(captured.fields(), 6, captured.size()));
    StructType schema = ChangeRowPath.schema(onlyCaptured);
    int limit = Math.min(f.rows(), ctx.config().microRows());
    Lsn max;
    try (FakeCdcClient client = FakeCdcClient.open(dir)) {
      max = client.maxLsn().orElseThrow();
    }
    ChangeQuery q = new ChangeQuery(f.captureInstance(), Lsn.ZERO, max, ChangeRowPath.columns(onlyCaptured), true,
        10_000);
    int width = onlyCaptured.size();
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put("fake", rep -> {
      long t0 = System.nanoTime();
      long sum = 0;
      try (FakeCdcClient client = FakeCdcClient.open(dir); ChangeCursor c = client.changes(q)) {
        for (int n = 0; n < limit && c.next(); n++) {
          long touched = c.operation() + c.commandId() + c.startLsn().low() + c.seqval().low()
              + c.commitTime().getNano();
          for (int i = 1; i < width; i++) {
            touched += c.value(i) == null ? 0 : 1;
          }
          touchedSink += touched;
          sum = 31 * sum + (Integer) c.value(0) + c.operation();
        }
      }
      return new Sample(System.nanoTime() - t0, limit, Map.of("idChecksum", sum));
    });
    variants.put("+ rows", rep -> {
      long t0 = System.nanoTime();
      long sum = 0;
      Function<ChangeCursor, InternalRow> conv = ChangeRowPath.converter(onlyCaptured, f.captureInstance());
      try (FakeCdcClient client = FakeCdcClient.open(dir); ChangeCursor c = client.changes(q)) {
        for (int n = 0; n < limit && c.next(); n++) {
          InternalRow row = conv.apply(c);
          sum = 31 * sum + row.getInt(6) + row.getInt(3); // id + _operation
        }
      }
      return new Sample(System.nanoTime() - t0, limit, Map.of("idChecksum", sum));
    });
    variants.put("+ UnsafeRow", rep -> {
      long t0 = System.nanoTime();
      long sum = 0;
      Function<ChangeCursor, InternalRow> conv = ChangeRowPath.converter(onlyCaptured, f.captureInstance());
      UnsafeProjection proj = UnsafeProjection.create(schema);
      try (FakeCdcClient client = FakeCdcClient.open(dir); ChangeCursor c = client.changes(q)) {
        for (int n = 0; n < limit && c.next(); n++) {
          UnsafeRow row = proj.apply(conv.apply(c));
          sum = 31 * sum + row.getInt(6) + row.getInt(3); // id + _operation
        }
      }
      return new Sample(System.nanoTime() - t0, limit, Map.of("idChecksum", sum));
    });
    Log.info("case 7 the fake's cost, %s: %,d rows per pass", label, limit);
    Map<String, List<Sample>> s = Comparison.run(Math.max(1, ctx.config().warmups()), ctx.config().reps(), variants);
    List<Double> fake = Comparison.rates(s.get("fake"));
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("rows", (long) limit);
    for (String v : s.keySet()) {
      checks.put(v, s.get(v).stream().map(x -> x.checks().get("idChecksum")).toList());
    }
    Map<String, Object> details = new LinkedHashMap<>();
    for (String v : s.keySet()) {
      details.put("nsPerRow." + v, s.get(v).stream().map(x -> x.nanos() / (double) x.units()).toList());
    }
    return List.of(
        Figure.compared("7 fake cost", label + ": fake share of the row path", "rows/s",
            Comparison.rates(s.get("+ UnsafeRow")), "the fake's cursor alone", fake, null,
            "ratio = the fake's share of the per-row time (fake / whole row path); the rest is the connector's"
                + " and Spark's", details, checks),
        Figure.compared("7 fake cost", label + ": row building", "rows/s", Comparison.rates(s.get("+ rows")),
            "the fake's cursor alone", fake, null, "fake cursor + ChangeRowConverter (its reused row)", Map.of(),
            Map.of()));
  }

  /** Keeps the JIT from dropping the values the fake variant touches. */
  static volatile long touchedSink;
}
