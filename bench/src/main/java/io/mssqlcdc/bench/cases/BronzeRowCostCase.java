package io.mssqlcdc.bench.cases;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.format_string;

import io.mssqlcdc.bench.BenchCase;
import io.mssqlcdc.bench.BenchContext;
import io.mssqlcdc.bench.Comparison;
import io.mssqlcdc.bench.Comparison.Sample;
import io.mssqlcdc.bench.Figure;
import io.mssqlcdc.bench.Log;
import io.mssqlcdc.sink.BatchFacts;
import io.mssqlcdc.sink.BronzeTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Observation;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * Case 3.1: what the sink adds per row to a bronze append, apart from the stream and the commits. One
 * cached micro-batch of the bronze case's largest size (a million rows by default; 5 columns with
 * {@code _start_lsn}, {@code _commit_ts}, {@code _operation}) appended to a Delta table three ways,
 * interleaved: as it is (what Delta's own streaming sink writes), with bronze's three columns
 * ({@code BronzeTable.changeRows}), and with those columns and the facts' figures observed during the
 * write ({@code BatchFacts.observe}, as {@code DeltaSink} appends). The ratios split the per-row side of
 * the bronze target at large batches ("what bounds it", docs/PERFORMANCE.md) between the columns and
 * the observation.
 */
public final class BronzeRowCostCase implements BenchCase {
  static final String PLAIN = "append";
  static final String COLUMNS = "+ bronze columns";
  static final String OBSERVED = "+ bronze columns + observation";

  @Override
  public String name() {
    return "bronzerows";
  }

  @Override
  public List<Figure> run(BenchContext ctx) {
    SparkSession spark = ctx.spark();
    List<Integer> sizes = ctx.config().bronzeBatchRows();
    long rows = sizes.isEmpty() ? ctx.config().bronzeNarrowRows() : sizes.stream().mapToInt(Integer::intValue).max()
        .getAsInt();
    Dataset<Row> batch = spark.range(0, rows, 1, 2).select(col("id"),
        format_string("0x%020X", col("id").plus(4_000_000_000L)).as("_start_lsn"),
        expr("cast(timestamp_seconds(1767225600 + id div 100) AS timestamp_ntz)").as("_commit_ts"),
        expr("cast(CASE id % 4 WHEN 0 THEN 1 WHEN 1 THEN 2 ELSE 4 END AS int)").as("_operation"),
        expr("concat('value-', id)").as("v")).persist(StorageLevel.MEMORY_ONLY());
    batch.count();
    Map<String, String> tables = new LinkedHashMap<>();
    for (String v : List.of(PLAIN, COLUMNS, OBSERVED)) {
      tables.put(v, ctx.scratch("bronzerows").toString());
    }
    Map<String, Comparison.Variant> variants = new LinkedHashMap<>();
    variants.put(PLAIN, rep -> timed(rows, () -> batch.write().format("delta").mode("append").save(tables.get(PLAIN))));
    variants.put(COLUMNS, rep -> timed(rows, () -> BronzeTable.changeRows(batch, rep).write().format("delta")
        .mode("append").save(tables.get(COLUMNS))));
    variants.put(OBSERVED, rep -> {
      Observation o = BatchFacts.newObservation();
      Sample s = timed(rows, () -> BronzeTable.changeRows(BatchFacts.observe(batch, o), rep).write().format("delta")
          .mode("append").save(tables.get(OBSERVED)));
      BatchFacts f = BatchFacts.from(o.getAsJava()).orElseThrow();
      return new Sample(s.nanos(), s.units(), Map.of("observedRows", f.rows(), "observedUpdates", f.updates()));
    });
    Log.info("case 3.1 bronze rows: one cached batch of %,d rows appended three ways", rows);
    Map<String, List<Sample>> s = Comparison.run(Math.max(1, ctx.config().warmups()), ctx.config().heavyReps(),
        variants);
    batch.unpersist();
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("rows", rows);
    checks.put("runs", (long) Math.max(1, ctx.config().warmups()) + ctx.config().heavyReps());
    checks.put("observedRows", s.get(OBSERVED).stream().map(x -> x.checks().get("observedRows")).toList());
    checks.put("observedUpdates", s.get(OBSERVED).stream().map(x -> x.checks().get("observedUpdates")).toList());
    tables.forEach((v, path) -> checks.put("tableRows." + v, spark.read().format("delta").load(path).count()));
    Map<String, Object> details = new LinkedHashMap<>();
    for (String v : s.keySet()) {
      details.put("seconds." + v, s.get(v).stream().map(Sample::seconds).toList());
    }
    List<Double> plain = Comparison.rates(s.get(PLAIN));
    String label = String.format(java.util.Locale.ROOT, "%,d rows, 5 columns", rows);
    List<Figure> out = new ArrayList<>();
    out.add(Figure.compared("3.1 bronze rows", label + ": columns and observation", "rows/s",
        Comparison.rates(s.get(OBSERVED)), "the same cached batch appended to Delta as it is", plain, null,
        "DeltaSink's per-row additions: bronze's _batch_id/_snapshot/_chunk and the facts' figures observed in the"
            + " append's own pass", details, checks));
    out.add(Figure.compared("3.1 bronze rows", label + ": columns only", "rows/s", Comparison.rates(s.get(COLUMNS)),
        "the same cached batch appended to Delta as it is", plain, null, "bronze's three columns, no observation",
        Map.of(), Map.of()));
    return out;
  }

  private static Sample timed(long rows, Runnable write) {
    long t0 = System.nanoTime();
    write.run();
    return new Sample(System.nanoTime() - t0, rows, Map.of());
  }
}
