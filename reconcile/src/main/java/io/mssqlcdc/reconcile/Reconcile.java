package io.mssqlcdc.reconcile;

import io.mssqlcdc.errors.ReconcileErrors;
import io.mssqlcdc.options.CdcReaderOptions;
import io.mssqlcdc.sink.tables.TableRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * Reconcile: proves a silver table equals the SQL Server table it mirrors, without stopping either
 * (reference-behaviour §17, ADR 0028; docs/RECONCILE.md).
 *
 * <pre>{@code
 * ReconcileResult r = Reconcile.builder(spark)
 *     .options(streamOptions)                  // the stream's reader options (captureInstance, connection)
 *     .silver("silver.orders").bronze("bronze.orders")
 *     .controlTable("ops.table_finalization").factsTable("ops.cdc_facts")
 *     .reportTable("ops.reconcile_report")
 *     .run();
 * }</pre>
 *
 * <p>Tier 1 counts rows and sums keys per bucket on both sides (one integer or date key: buckets
 * of about {@code bucketRows} rows; other keys: one whole-table count). A bucket that differs while
 * keys of it changed after silver's position ({@code applied_lsn}) is {@code IN_FLIGHT}, not a
 * mismatch. Tier 2 reads the mismatched buckets and a seeded sample of the matching ones through
 * {@code mssql_cdc_snapshot} and compares them row by row, naming each differing key. With
 * {@code factsTable}, a chunked snapshot's chunks are checked to tile the table. Each run appends
 * its rows to {@code reportTable} and returns a {@link ReconcileResult}, which it also logs.
 *
 * <p>From PySpark: {@code mssql_cdc.Reconcile} (python/, docs/PYSPARK.md), a wrapper of this builder. Without
 * the package, through the gateway (plain strings, lists, numbers; no overloads):
 * <pre>{@code
 * r = (spark._jvm.io.mssqlcdc.reconcile.Reconcile.builder(spark._jsparkSession)
 *      .options(opts).silver("silver.orders").bronze("bronze.orders")
 *      .controlTable("ops.table_finalization").reportTable("ops.reconcile_report").run())
 * r.mismatch(), r.failures(), r.summary()
 * }</pre>
 */
public final class Reconcile {
  private Reconcile() {}

  /** The default {@code bucketRows}, the reference's. */
  public static final long DEFAULT_BUCKET_ROWS = 1_000_000;
  /** The default {@code sample}, the reference's. */
  public static final double DEFAULT_SAMPLE = 0.01;

  /** Reader options reconcile sets itself on its tier 2 reads: not to be given. */
  static final Set<String> OWN_READ_OPTIONS = Set.of("snapshotchunks", "snapshotkeys", "snapshotlsn", "readid");

  /** Every argument of {@link Builder}, in documentation order (docs/OPTIONS.md is generated from it). */
  public static final List<io.mssqlcdc.sink.pipeline.CdcStream.Argument> ARGUMENTS = List.of(
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("option / options", "string → string", "required",
          "The stream's reader options (`format(\"mssql_cdc\")`, with `captureInstance` and the connection): the"
              + " source table is counted and read through them. Validated as the snapshot reader validates them;"
              + " `snapshotChunks`, `snapshotKeys`, `snapshotLsn` and `readId` are reconcile's own."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("silver", "string", "required",
          "The silver table (name or path) `ApplyChanges` writes, named as its `target` was: its row of the control"
              + " table is found by that spelling. Never written."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("bronze", "string", "required",
          "The bronze table the stream writes, named exactly as the stream's `target`: keys it changed after"
              + " silver's position make their buckets IN_FLIGHT; its chunk rows are checked. Never written."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("controlTable", "string", "required",
          "The control table silver's position (`applied_lsn`) is read from, before silver's version is pinned."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("keys", "list of strings", "the capture instance's unique index",
          "The columns silver is keyed by (matched ignoring case). One integer (`tinyint` to `bigint`) or `date`"
              + " column: buckets by key; anything else: one whole-table count and key ranges."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("factsTable", "string", "none",
          "The stream's facts table: with it, the newest chunked snapshot of bronze is checked (CHUNK_TILING,"
              + " CHUNK_ROWS, CHUNK_STAMP). Without it, no chunk checks."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("reportTable", "string", "none",
          "The report table (name or path, kind `reconcile`, docs/TABLES.md): created on first use; each run"
              + " appends its rows. Without it the rows are only in the result's `report()`."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("bucketRows", "long", "`1000000`",
          "About how many rows a tier 1 bucket holds (at least 1); with other keys, the size of the key ranges"
              + " tier 2 reads."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("sample", "double", "`0.01`",
          "The fraction (0 to 1) of MATCH buckets also compared row by row; at least one when it is above 0 and"
              + " a bucket matches. MISMATCH buckets are always compared."),
      new io.mssqlcdc.sink.pipeline.CdcStream.Argument("seed", "long", "random",
          "Seeds the choice of sampled buckets: the same seed on the same buckets samples the same ones."));

  /** A builder of one run. */
  public static Builder builder(SparkSession spark) {
    return new Builder(spark);
  }

  /** The steps after which a test may act (package-private hook). */
  enum Step {
    /** Silver's version is pinned; the source is not counted yet. */
    SILVER_PINNED,
    /** The source is counted; bronze is not pinned yet. */
    SOURCE_COUNTED,
    /** The tier 2 source read is done; bronze is not pinned for it yet. */
    SOURCE_READ
  }

  /** Collects the arguments of one run; {@link #run()} checks them all before reading anything. */
  public static final class Builder {
    private final SparkSession spark;
    private final Map<String, String> options = new LinkedHashMap<>();
    private String silver;
    private String bronze;
    private String controlTable;
    private List<String> keys;
    private String factsTable;
    private String reportTable;
    private long bucketRows = DEFAULT_BUCKET_ROWS;
    private double sample = DEFAULT_SAMPLE;
    private Long seed;
    private java.util.function.Consumer<Step> steps = s -> { };

    private Builder(SparkSession spark) {
      this.spark = spark;
    }

    /** One of the stream's reader options (names any case). */
    public Builder option(String key, String value) {
      options.keySet().removeIf(k -> k.equalsIgnoreCase(key));
      options.put(key, value);
      return this;
    }

    /** The stream's reader options, as {@link #option} one by one. Required. */
    public Builder options(Map<String, String> readerOptions) {
      if (readerOptions != null) {
        readerOptions.forEach(this::option);
      }
      return this;
    }

    /** The silver table. Required. */
    public Builder silver(String nameOrPath) {
      this.silver = nameOrPath;
      return this;
    }

    /** The bronze table, named exactly as the stream's target. Required. */
    public Builder bronze(String nameOrPath) {
      this.bronze = nameOrPath;
      return this;
    }

    /** The control table. Required. */
    public Builder controlTable(String nameOrPath) {
      this.controlTable = nameOrPath;
      return this;
    }

    /** The key columns; default the capture instance's unique index. */
    public Builder keys(List<String> keyColumns) {
      this.keys = keyColumns == null ? null : new ArrayList<>(keyColumns);
      return this;
    }

    /** The stream's facts table, for the chunk checks. */
    public Builder factsTable(String nameOrPath) {
      this.factsTable = nameOrPath;
      return this;
    }

    /** The report table each run appends to. */
    public Builder reportTable(String nameOrPath) {
      this.reportTable = nameOrPath;
      return this;
    }

    /** About how many rows a bucket holds; default 1,000,000. */
    public Builder bucketRows(long rows) {
      this.bucketRows = rows;
      return this;
    }

    /** The fraction of MATCH buckets compared row by row; default 0.01. */
    public Builder sample(double fraction) {
      this.sample = fraction;
      return this;
    }

    /** Seeds the sample. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Test hook: called after each {@link Step}. */
    Builder onStep(java.util.function.Consumer<Step> hook) {
      this.steps = hook;
      return this;
    }

    /**
     * Runs the reconcile.
     *
     * @throws io.mssqlcdc.errors.CdcConfigException for an invalid argument, a missing table or keys
     *     that are not columns
     */
    public ReconcileResult run() {
      if (bucketRows < 1) {
        throw ReconcileErrors.invalidArgument("bucketRows", Long.toString(bucketRows), "at least 1");
      }
      if (!(sample >= 0 && sample <= 1)) {
        throw ReconcileErrors.invalidArgument("sample", Double.toString(sample), "between 0 and 1");
      }
      if (spark == null) {
        throw ReconcileErrors.invalidArgument("spark", null, "the SparkSession (in PySpark spark._jsparkSession)");
      }
      if (options.isEmpty()) {
        throw ReconcileErrors.noOptions();
      }
      for (String k : options.keySet()) {
        if (OWN_READ_OPTIONS.contains(k.toLowerCase(Locale.ROOT))) {
          throw ReconcileErrors.conflict("option " + k + " is reconcile's own (it reads the buckets it chose): remove"
              + " it from the options.");
        }
      }
      CdcReaderOptions reader = CdcReaderOptions.parse(options, CdcReaderOptions.Reader.SNAPSHOT);
      TableRef s = table("silver", silver, "the silver table, e.g. silver.orders");
      TableRef b = table("bronze", bronze, "the stream's target, e.g. bronze.orders");
      TableRef c = table("controlTable", controlTable, "the control table, e.g. ops.table_finalization");
      TableRef f = factsTable == null ? null : table("factsTable", factsTable, "the stream's facts table");
      TableRef r = reportTable == null ? null : table("reportTable", reportTable, "the report table");
      List<TableRef> all = new ArrayList<>(List.of(s, b, c));
      if (f != null) {
        all.add(f);
      }
      if (r != null) {
        all.add(r);
      }
      if (new java.util.HashSet<>(all).size() != all.size()) {
        throw ReconcileErrors.conflict("silver, bronze, controlTable, factsTable and reportTable must be different"
            + " tables.");
      }
      List<String> k = null;
      if (keys != null && !keys.isEmpty()) {
        for (String key : keys) {
          if (key == null || key.isBlank()) {
            throw ReconcileErrors.invalidArgument("keys", String.valueOf(keys), "a list of column names, none blank");
          }
        }
        k = List.copyOf(keys);
      }
      long sd = seed != null ? seed : new java.security.SecureRandom().nextLong();
      return new ReconcileRun(spark, new LinkedHashMap<>(options), reader, s, silver, b, bronze, c, f, r, k,
          bucketRows, sample, sd, steps).run();
    }

    private static TableRef table(String name, String value, String expected) {
      if (value == null || value.isBlank()) {
        throw ReconcileErrors.invalidArgument(name, value, expected);
      }
      return TableRef.of(value);
    }
  }
}
