package io.mssqlcdc.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What one run of the suite measures and where it keeps its data: {@code key=value} arguments,
 * each with a default sized for a few minutes on 2 cores. Unknown keys are refused with the list
 * of known ones.
 *
 * @param out where the JSON results go
 * @param data where the generated fake databases and their Parquet copies are kept between runs
 * @param cases the cases to run, in suite order
 * @param reps measured repetitions per comparison (each runs every variant once, in rotating order); the
 *     slow case (bronze) runs at most {@link #HEAVY_REPS}; memory runs each transaction once
 * @param warmups unmeasured repetitions first
 * @param narrowRows rows of the 5-column table
 * @param wideRows rows of the 90-column table
 * @param bronzeNarrowRows rows of the 5-column table the bronze case writes (Delta writes are slow: smaller)
 * @param bronzeWideRows rows of the 90-column table the bronze case writes
 * @param bigTxRows rows of the one big transaction (memory)
 * @param smallTxRows rows of the memory case's baseline transaction
 * @param latencySeconds how long the latency case's workload runs, per variant
 * @param idleTriggers idle triggers counted after the workload
 * @param microRows rows of the per-row (fake share) case
 * @param jdbcRows rows of the 5-column table the JDBC (stand-in) case reads
 * @param silverChanges change rows in bronze for the silver case ({@link SilverWorkload}: over a fifth as many keys)
 * @param silverBatch change rows of the silver case's incremental batch
 * @param bronzeBatchRows rows per micro-batch of the bronze case's large narrow runs (beside the 4,000-row
 *     one: fixed per-batch and per-row costs are different problems); each is a narrow table of
 *     {@link io.mssqlcdc.bench.cases.BronzeIngestCase#LARGE_BATCHES} batches of that size
 * @param bronzeBatches micro-batches per run of the bronze case's narrow and wide streams (5: the
 *     fixtures above in batches of a fifth; more: the same batch size, more of them, so a run's first
 *     batch and its end weigh less)
 * @param factsCommitMillis the bronze and latency cases' {@code DeltaSink} facts commit interval, ms
 *     (docs/decisions/0013; default the sink's own, 0)
 */
public record BenchConfig(
    Path out, Path data, List<String> cases, int reps, int warmups, int narrowRows, int wideRows,
    int bronzeNarrowRows, int bronzeWideRows, int bigTxRows, int smallTxRows, int latencySeconds, int idleTriggers,
    int microRows, int jdbcRows, int silverChanges, int silverBatch, List<Integer> bronzeBatchRows, int bronzeBatches,
    long factsCommitMillis) {

  /** Repetitions of the slow cases at most. */
  public static final int HEAVY_REPS = 3;

  /** The repetitions of a slow case. */
  public int heavyReps() {
    return Math.min(reps, HEAVY_REPS);
  }

  /** Every case, in suite order (issue 13's numbering). */
  public static final List<String> ALL_CASES =
      List.of("source", "snapshot", "bronze", "bronzerows", "silver", "history", "latency", "scaling", "memory", "fake",
          "jdbc");

  /** The defaults: the README command. */
  public static BenchConfig defaults(Path out, Path data) {
    return new BenchConfig(out, data, ALL_CASES, 3, 1, 200_000, 20_000, 20_000, 2_000, 5_000_000, 500_000, 10, 5,
        200_000, 100_000, 1_000_000, 1_000, List.of(100_000, 1_000_000), 5,
        io.mssqlcdc.sink.DeltaSink.DEFAULT_FACTS_COMMIT_INTERVAL.toMillis());
  }

  /**
   * The smoke test's: tiny sizes, one repetition, no warm-up; the latency workload for 1 s (about 10
   * commits a variant, each measured), so the stream has little to catch up on before its idle
   * triggers are counted.
   */
  public static BenchConfig tiny(Path out, Path data) {
    return new BenchConfig(out, data, ALL_CASES, 1, 0, 3_000, 400, 3_000, 400, 20_000, 2_000, 1, 2, 3_000, 2_000, 2_500, 50,
        List.of(), 5, io.mssqlcdc.sink.DeltaSink.DEFAULT_FACTS_COMMIT_INTERVAL.toMillis());
  }

  /** {@code defaults} with {@code key=value} arguments applied. */
  public static BenchConfig parse(String[] args) {
    Map<String, String> given = new LinkedHashMap<>();
    for (String a : args) {
      if (a.isBlank()) {
        continue;
      }
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("Argument '" + a + "' is not key=value; known keys: " + KEYS);
      }
      given.put(a.substring(0, eq).strip(), a.substring(eq + 1).strip());
    }
    for (String k : given.keySet()) {
      if (!KEYS.contains(k)) {
        throw new IllegalArgumentException("Unknown argument '" + k + "'; known keys: " + KEYS);
      }
    }
    Path out = Path.of(given.getOrDefault("out", "target/bench"));
    Path data = Path.of(given.getOrDefault("data", "target/bench-data"));
    BenchConfig c = given.containsKey("profile") && given.get("profile").equals("tiny") ? tiny(out, data)
        : defaults(out, data);
    double scale = given.containsKey("scale") ? Double.parseDouble(given.get("scale")) : 1.0;
    List<String> cases = c.cases();
    if (given.containsKey("cases")) {
      Set<String> wanted = new LinkedHashSet<>();
      for (String s : given.get("cases").split(",")) {
        String n = s.strip().toLowerCase(Locale.ROOT);
        if (!ALL_CASES.contains(n)) {
          throw new IllegalArgumentException("Unknown case '" + s + "'; cases: " + ALL_CASES);
        }
        wanted.add(n);
      }
      cases = new ArrayList<>(ALL_CASES);
      cases.retainAll(wanted);
    }
    return new BenchConfig(out, data, List.copyOf(cases),
        intArg(given, "reps", c.reps()), intArg(given, "warmups", c.warmups()),
        intArg(given, "narrowRows", scaled(c.narrowRows(), scale)), intArg(given, "wideRows", scaled(c.wideRows(), scale)),
        intArg(given, "bronzeNarrowRows", scaled(c.bronzeNarrowRows(), scale)),
        intArg(given, "bronzeWideRows", scaled(c.bronzeWideRows(), scale)),
        intArg(given, "bigTxRows", c.bigTxRows()), intArg(given, "smallTxRows", c.smallTxRows()),
        intArg(given, "latencySeconds", c.latencySeconds()), intArg(given, "idleTriggers", c.idleTriggers()),
        intArg(given, "microRows", scaled(c.microRows(), scale)), intArg(given, "jdbcRows", scaled(c.jdbcRows(), scale)),
        intArg(given, "silverChanges", scaled(c.silverChanges(), scale)), intArg(given, "silverBatch", c.silverBatch()),
        given.containsKey("bronzeBatchRows") ? intList(given, "bronzeBatchRows") : c.bronzeBatchRows(),
        positive(given, "bronzeBatches", c.bronzeBatches()),
        given.containsKey("factsCommitSeconds") ? millis(given, "factsCommitSeconds") : c.factsCommitMillis());
  }

  private static long millis(Map<String, String> given, String key) {
    String v = given.get(key);
    double seconds;
    try {
      seconds = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      seconds = -1;
    }
    if (!(seconds >= 0) || Double.isInfinite(seconds)) {
      throw new IllegalArgumentException("Argument " + key + "=" + v + " must be a number of seconds, 0 or more");
    }
    return Math.round(seconds * 1000);
  }

  private static int positive(Map<String, String> given, String key, int otherwise) {
    int n = intArg(given, key, otherwise);
    if (n <= 0) {
      throw new IllegalArgumentException("Argument " + key + "=" + given.get(key) + " must be a positive integer");
    }
    return n;
  }

  private static final List<String> KEYS = List.of("out", "data", "profile", "scale", "cases", "reps", "warmups",
      "narrowRows", "wideRows", "bronzeNarrowRows", "bronzeWideRows", "bigTxRows", "smallTxRows", "latencySeconds", "idleTriggers", "microRows", "jdbcRows",
      "silverChanges", "silverBatch", "bronzeBatchRows", "bronzeBatches", "factsCommitSeconds");

  private static int scaled(int n, double scale) {
    return (int) Math.max(1, Math.round(n * scale));
  }

  private static int intArg(Map<String, String> given, String key, int otherwise) {
    String v = given.get(key);
    if (v == null) {
      return otherwise;
    }
    try {
      return Integer.parseInt(v.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Argument " + key + "=" + v + " is not an integer");
    }
  }

  /** A comma-separated list of positive integers ({@code ""} or {@code none}: an empty list). */
  private static List<Integer> intList(Map<String, String> given, String key) {
    String v = given.get(key).strip();
    List<Integer> out = new ArrayList<>();
    if (v.isEmpty() || v.equalsIgnoreCase("none")) {
      return List.of();
    }
    for (String part : v.split(",")) {
      int n = intArg(Map.of(key, part.strip()), key, 0);
      if (n <= 0) {
        throw new IllegalArgumentException("Argument " + key + "=" + v + ": each value must be a positive integer");
      }
      out.add(n);
    }
    return List.copyOf(out);
  }

  public BenchConfig withCases(List<String> c) {
    return new BenchConfig(out, data, List.copyOf(c), reps, warmups, narrowRows, wideRows, bronzeNarrowRows,
        bronzeWideRows, bigTxRows, smallTxRows, latencySeconds, idleTriggers, microRows, jdbcRows, silverChanges,
        silverBatch, bronzeBatchRows, bronzeBatches, factsCommitMillis);
  }
}
