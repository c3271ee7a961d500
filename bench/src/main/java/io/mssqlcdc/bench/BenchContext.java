package io.mssqlcdc.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the cases share: the configuration, the session, the fixtures (written once, kept under
 * the data directory) and a scratch directory for checkpoints and tables (emptied at the end).
 */
public final class BenchContext implements AutoCloseable {
  private final BenchConfig config;
  private final SparkSession spark;
  private final Path scratch;
  private final AtomicInteger counter = new AtomicInteger();
  private final JobLog jobs;

  public BenchContext(BenchConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
    this.jobs = JobLog.on(spark);
    try {
      Files.createDirectories(config.out());
      this.scratch = Files.createTempDirectory(config.out().toAbsolutePath(), "scratch-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public BenchConfig config() {
    return config;
  }

  public SparkSession spark() {
    return spark;
  }

  /** The Spark jobs of this run. */
  public JobLog jobs() {
    return jobs;
  }

  /** A new, not yet existing path in the scratch directory. */
  public Path scratch(String what) {
    return scratch.resolve(what + "-" + counter.incrementAndGet());
  }

  /** The fake database of {@code f}. */
  public Path fake(Fixture f) {
    return Fixtures.fake(config.data().toAbsolutePath(), f);
  }

  /** Options of {@code format("mssql_cdc")} / {@code format("mssql_cdc_snapshot")} over {@code f}'s fake. */
  public Map<String, String> sourceOptions(Fixture f, int partitions) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("backend", "fake");
    o.put("fakePath", fake(f).toString());
    o.put("captureInstance", f.captureInstance());
    o.put("numPartitions", Integer.toString(partitions));
    return o;
  }

  /** The stream's rows of {@code f} (everything up to max_lsn), as Parquet files written once from the stream itself. */
  public Path streamParquet(Fixture f) {
    Path dir = config.data().toAbsolutePath().resolve(f.name()).resolve("stream-parquet");
    Map<String, String> options = sourceOptions(f, 2);
    Runnable make = () -> {
      Dataset<Row> df = spark.readStream().format("mssql_cdc").options(options).load();
      SparkRuns.availableNowForeach(df, scratch("copy-ckpt"),
          (batch, id) -> batch.write().mode("append").parquet(dir.resolve("rows").toString()));
    };
    return checkedParquet(dir, f, f.descriptor() + " stream-parquet", make);
  }

  /**
   * The Parquet copy in {@code dir}/rows, made by {@code make} unless it is there; a copy that does
   * not hold exactly the fixture's rows (e.g. a directory copied over another, two writes' files
   * side by side) is deleted and written again: a baseline must read the candidate's rows, no more.
   */
  private Path checkedParquet(Path dir, Fixture f, String descriptor, Runnable make) {
    Fixtures.ensure(dir, descriptor, make);
    Path rows = dir.resolve("rows");
    long n = spark.read().parquet(rows.toString()).count();
    if (n != f.rows()) {
      Log.info("%s holds %,d rows, not the fixture's %,d: writing it again", rows, n, f.rows());
      try {
        Fixtures.delete(dir);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      Fixtures.ensure(dir, descriptor, make);
      n = spark.read().parquet(rows.toString()).count();
      if (n != f.rows()) {
        throw new IllegalStateException(rows + " holds " + n + " rows after writing it again, not " + f.rows());
      }
    }
    return rows;
  }

  /** The snapshot reader's rows of {@code f}, as Parquet files written once from the reader itself. */
  public Path snapshotParquet(Fixture f) {
    Path dir = config.data().toAbsolutePath().resolve(f.name()).resolve("snapshot-parquet");
    Map<String, String> options = sourceOptions(f, 2);
    return checkedParquet(dir, f, f.descriptor() + " snapshot-parquet", () ->
        spark.read().format("mssql_cdc_snapshot").options(options).load().write().parquet(dir.resolve("rows").toString()));
  }

  @Override
  public void close() {
    spark.sparkContext().removeSparkListener(jobs);
    try {
      Fixtures.delete(scratch);
    } catch (IOException e) {
      Log.info("could not delete %s: %s", scratch, e.getMessage());
    }
  }
}
